// The objects an MPI program holds handles to: groups, communicators, error handlers, attribute
// keys and info objects, kept per rank. A handle is a number, its kind's base plus an index into
// the rank's table of that kind (vela/mpi.h's VMPI_*_BASE), so that a handle is also a Fortran
// integer and a freed handle is recognised. Every object and table lives in the rank's own heap
// (vp::detail::RankHeapScope around each change): a rank moving to another process, or written
// into a checkpoint, takes its objects along and its handles stay valid.
//
// Costs: a lookup is an index into a vector; a group of n ranks costs O(1) memory when its ranks
// are evenly strided (the whole run, a row or column of a grid, a duplicate) and O(n) otherwise.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#ifndef VELA_MPI_NO_MAIN
#define VELA_MPI_NO_MAIN
#endif
#include "topology.hpp"
#include "vela/mpi.h"
#include "vela/vp/vp.hpp"

namespace vela::mpi::detail {

// Ranks of the run in group order: rank i of the group is run rank `first + i * stride`, or
// `listed[i]`.
class Group {
 public:
  Group() = default;
  static Group strided(int first, int stride, int size);
  // Ranks in group order (each at most once); stored strided when they are.
  static Group listed(std::vector<std::int32_t> ranks);

  int size() const { return size_; }
  bool is_strided() const { return listed_.empty(); }
  int first() const { return first_; }
  int stride() const { return stride_; }
  int rank_of(int index) const {
    return listed_.empty() ? first_ + index * stride_ : listed_[static_cast<std::size_t>(index)];
  }
  // The position of run rank `rank` in the group, or -1.
  int index_of(int rank) const;
  std::vector<std::int32_t> ranks() const;
  bool operator==(const Group& other) const;
  // The same ranks, in any order.
  bool same_members(const Group& other) const;

  // vp's view of these ranks for a collective in `context`.
  vp::Members members(std::uint32_t context, int index, std::uint32_t* calls) const;

 private:
  int first_ = 0;
  int stride_ = 1;
  int size_ = 0;
  std::vector<std::int32_t> listed_;  // empty when strided
  // (run rank, index) sorted by run rank, for index_of on listed groups.
  std::vector<std::pair<std::int32_t, std::int32_t>> by_rank_;
};

// The virtual topology a communicator was made with (topology.hpp).
struct Topology {
  enum class Kind : std::uint8_t { none, cartesian, graph, dist_graph } kind = Kind::none;
  Cartesian cartesian;
  Graph graph;
  DistGraph dist_graph;
};

struct Communicator {
  Group group;   // the local group
  Group remote;  // an intercommunicator's remote group
  bool inter = false;
  std::uint32_t context = 0;  // its messages'; collectives use the same on their own channel
  std::uint32_t calls = 0;    // collectives made on it
  int rank = 0;               // the calling rank's index in `group`
  int errhandler = 0;         // index of its error handler
  std::string name;
  std::map<int, void*> attributes;  // by key
  Topology topology;
  // An intercommunicator's nonblocking collectives (remote_members), made alike by both groups.
  std::uint32_t remote_calls = 0;

  // The group that p2p ranks name: the remote one of an intercommunicator.
  const Group& peers() const { return inter ? remote : group; }
  vp::Members members() { return group.members(context, rank, &calls); }
};

// An error handler: one of the predefined ones, or a program's function.
struct Errhandler {
  enum class Kind : std::uint8_t { fatal, give_back, function } kind = Kind::fatal;
  MPI_Comm_errhandler_function* function = nullptr;  // called with (handle*, code*)
};

struct Keyval {
  void* copy = nullptr;    // MPI_Comm_copy_attr_function*, or a predefined marker
  void* remove = nullptr;  // MPI_Comm_delete_attr_function*
  void* extra = nullptr;
  bool deprecated_signature = false;  // made by MPI_Keyval_create
};

struct Info {
  std::vector<std::pair<std::string, std::string>> entries;  // in insertion order
};

// Objects of one kind, by index. Freed places are reused last-freed first. The table grows and
// keeps its list of freed places in the rank's heap whatever the caller's heap (an MPI call runs
// with the process's): a place freed before the rank moves to another process is reused there.
template <class T>
class Table {
 public:
  int add(T value) {
    const vp::detail::RankHeapScope heap;
    if (!free_.empty()) {
      const int index = free_.back();
      free_.pop_back();
      items_[static_cast<std::size_t>(index)] = std::make_unique<T>(std::move(value));
      return index;
    }
    items_.push_back(std::make_unique<T>(std::move(value)));
    return static_cast<int>(items_.size() - 1);
  }
  T* find(int index) const {
    if (index < 0 || static_cast<std::size_t>(index) >= items_.size()) return nullptr;
    return items_[static_cast<std::size_t>(index)].get();
  }
  void remove(int index) {
    const vp::detail::RankHeapScope heap;
    items_[static_cast<std::size_t>(index)].reset();
    free_.push_back(index);
  }
  std::size_t live() const { return items_.size() - free_.size(); }
  std::size_t size() const { return items_.size(); }  // places, freed ones included

 private:
  std::vector<std::unique_ptr<T>> items_;
  std::vector<int> free_;
};

// Indices of the predefined objects.
inline constexpr int world_index = 0;
inline constexpr int self_index = 1;
inline constexpr int fatal_index = 0;
inline constexpr int give_back_index = 1;
inline constexpr int first_context = 2;  // 0 is the world's, 1 MPI_COMM_SELF's
// MPI_Comm_idup's contexts, [2^30, 2^31): a proposal is 2^30 + k * (world size) + (world rank),
// each made once, so the largest of an agreement's proposals is its alone however many
// agreements run at once (communicators.cpp). Below: the blocking calls' contexts; above
// (2^31 on), contexts of the library's own messages.
inline constexpr std::uint32_t idup_contexts = 0x40000000u;
inline constexpr std::uint32_t own_contexts = 0x80000000u;
// A communicator MPI_Comm_idup made whose request has not completed yet: no messages match it.
inline constexpr std::uint32_t unsettled_context = 0xffffffefu;

struct UserOp;
struct DerivedType;
struct Window;

// Every object a rank holds, made at MPI_Init.
struct Objects {
  Objects();
  ~Objects();
  Objects(const Objects&) = delete;
  Objects& operator=(const Objects&) = delete;
  Table<UserOp> user_ops;    // MPI_Op_create's, after the predefined operators
  Table<DerivedType> types;  // the derived datatypes, after the predefined ones
  Table<Communicator> comms;
  Table<Group> groups;
  Table<Errhandler> errhandlers;
  Table<Info> infos;
  Table<Window> windows;  // windows.hpp
  std::map<int, Keyval> keyvals;
  // Attributes on datatypes, predefined or derived: (handle, key) -> value.
  std::map<std::pair<std::uintptr_t, int>, void*> type_attributes;
  int next_keyval = 64;  // below: the predefined attributes
  std::uint32_t next_context = first_context;
  std::uint32_t next_idup_context = idup_contexts;  // MPI_Init: + the world rank
  std::uint32_t idup_stride = 1;                    // MPI_Init: the world's size
  std::map<std::uint32_t, int> by_context;          // communicator index by context
  void* attached_buffer = nullptr;                  // MPI_Buffer_attach's
  int attached_bytes = 0;
  // The predefined attributes' values, which MPI_Comm_get_attr points to.
  int tag_ub = 0;
  int host = 0;
  int io = 0;
  int wtime_is_global = 1;
  int universe_size = 0;
  int appnum = 0;
  int last_used_code = 0;
  // MPI_Register_about_to_migrate's and MPI_Register_just_migrated's functions.
  MPI_MigrateFn about_to_migrate = nullptr;
  MPI_MigrateFn just_migrated = nullptr;
  // How many of --vp-balance-every's collective this rank has called on MPI_COMM_WORLD.
  std::uint64_t balanced_calls = 0;
  int next_grequest_tag = 0;  // MPI_Grequest_start's, numbering their completion messages
  // MPI_Add_error_class's and MPI_Add_error_code's: code MPI_ERR_LASTCODE + 1 + i is entry i (a
  // class is its own class). last_used_code is the largest.
  struct UserError {
    int error_class;
    std::string text;
  };
  std::vector<UserError> user_errors;
  // The Fortran numbers of requests and messages (MPI_Request_c2f, MPI_Message_c2f), which are
  // pointers: entry i - 1 is number i; each pointer once (a request's memory may hold a later
  // one after it completes, which then keeps the number: the table is bounded by the addresses
  // requests and messages ever had, not by the calls).
  std::vector<const void*> fortran_pointers;
  std::map<const void*, MPI_Fint> fortran_numbers;
};

}  // namespace vela::mpi::detail
