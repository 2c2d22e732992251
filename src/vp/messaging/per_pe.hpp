// Collectives combined per PE (per_pe.cpp): each PE's state, kept in World::PeLocal, and the
// calls that collectives.cpp takes this way among more than 64 members of any group.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <unordered_map>
#include <vector>

#include "vela/vp/vp.hpp"

namespace vela::vp::detail {

struct RankContext;
struct World;

// fold: a reduction gathered like a gather, then combined along the reductions' tree
// (tree_order.hpp) where it is answered.
enum class PeCallKind : std::uint8_t { barrier, bcast, reduce, gather, scatter, fold };

// One collective call on one PE: its members living there, how many came, what they combined;
// then its result, until every rank that waited for it took it.
struct PeCall {
  PeCallKind kind = PeCallKind::barrier;
  std::uint64_t expected = 0;
  std::uint64_t arrived = 0;
  std::size_t count = 0;           // elements of a reduction
  std::size_t block = 0;           // bytes per member of a gather or a scatter
  std::uint64_t total = 0;         // the call's members
  std::vector<std::byte> partial;  // this PE's part, then the result
  std::vector<std::byte> root;     // a scatter's blocks, given by its root living here
  bool has_data = false;           // a broadcast's root lives here and gave its bytes
  bool complete = false;
  Combine combine;  // a waiting rank's, which combines the PEs' parts (its stack holds `data`)
  bool has_combine = false;
  std::vector<RankContext*> waiting;  // ranks blocked until the result comes
  std::uint64_t readers = 0;          // ranks yet to take the result
};

// At PE 0: one call's parts from the PEs that have members, until every member is counted.
struct PeRootCall {
  std::uint64_t members = 0;
  struct Part {
    std::int32_t pe = 0;
    bool answer = false;    // its PE has members waiting for the result
    bool has_data = false;  // a broadcast's or a scatter's root gave its bytes there
    std::uint64_t members = 0;
    std::vector<std::byte> bytes;
  };
  std::vector<Part> parts;
};

// A call: its group's context and call number (context << 32 | number), and the run rank of
// the group's member 0 (groups that share a context are disjoint: their members 0 differ).
struct PeCallKey {
  std::uint64_t call = 0;
  std::int32_t group = 0;
  std::int32_t unused = 0;
  bool operator==(const PeCallKey& o) const { return call == o.call && group == o.group; }
};
struct PeCallKeyHash {
  std::size_t operator()(const PeCallKey& k) const {
    return std::hash<std::uint64_t>{}(k.call ^ (static_cast<std::uint64_t>(k.group) << 40));
  }
};
inline PeCallKey call_key(const Members& members, std::uint32_t number) {
  return {(static_cast<std::uint64_t>(members.context) << 32) | number, members.rank_of(0), 0};
}

// A PE's calls under way: only that PE's thread touches them.
struct PeCalls {
  std::unordered_map<PeCallKey, PeCall, PeCallKeyHash> calls;
  std::unordered_map<PeCallKey, PeRootCall, PeCallKeyHash> root;  // at PE 0
};

namespace per_pe {

// Whether a collective of `bytes` over `members` combines per PE: more than 64 members of
// ranks on PEs, at most `limit` bytes.
bool applies(const Members& members, std::size_t bytes, std::size_t limit);
inline constexpr std::size_t reduce_limit = std::size_t{64} << 10;
inline constexpr std::size_t bcast_limit = std::size_t{1} << 20;
// Of the whole array (members times the block): each member of an allgather copies it.
inline constexpr std::size_t gather_limit = std::size_t{4} << 20;
inline constexpr std::size_t allgather_limit = std::size_t{1} << 20;

void barrier(const Members& members, const char* call);
void bcast(const Members& members, void* buffer, std::size_t bytes, int root, const char* call);
// `combine` exact, or any order allowed; `out` read at the root only, or everywhere when
// `everyone` (an allreduce).
void reduce(const Members& members, const void* in, void* out, std::size_t count,
            std::size_t element, Combine combine, int root, bool everyone, const char* call);
// A reduction of any operator, with the bits of the reductions' tree (tree_order.hpp): every
// member's vector goes to the PEs that wait, which combine them there (the bits depend on the
// member count only).
void fold(const Members& members, const void* in, void* out, std::size_t count, std::size_t element,
          Combine combine, int root, bool everyone, const char* call);
// Blocks of `bytes` per member, in member order at `out` (the root's, or everyone's when
// `everyone`: an allgather).
void gather(const Members& members, const void* in, std::size_t bytes, void* out, int root,
            bool everyone, const char* call);
// The root's blocks of `bytes` per member (member order, at `in`), member i's to its `out`.
void scatter(const Members& members, const void* in, std::size_t bytes, void* out, int root,
             const char* call);

// Makes `world` the one whose PEs' states the messages between PEs reach (vp::run, before its
// ranks start; nullptr after they end), and sets the runtime's layer handler.
void serve(World* world);

}  // namespace per_pe
}  // namespace vela::vp::detail
