// The requests of Vela's MPI beyond vp's own (a vp request's handle is its pointer): each is an
// object in the rank's heap whose handle is its pointer with the low bit set (vp's requests are
// aligned, so the bit tells them apart). Completing one is point_to_point.cpp's complete().
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "internal.hpp"

namespace vela::mpi::detail {

struct Extended {
  enum class Kind : std::uint8_t { persistent, unpacking, collective, completed, generalized };
  explicit Extended(Kind k) : kind(k) {}
  virtual ~Extended() = default;
  Extended(const Extended&) = delete;
  Extended& operator=(const Extended&) = delete;
  Kind kind;
};

// A nonblocking collective under way: the receives it posted when it started (its sends were
// made then), the buffers it owns, and the steps it takes, in order, once every receive arrived
// (combine, unpack).
struct PendingCollective : Extended {
  PendingCollective() : Extended(Kind::collective) {}
  std::vector<vp::Request> receives;
  std::vector<std::vector<std::byte>> buffers;  // moved, never copied: posted receives point in
  std::vector<std::function<void(PendingCollective&)>> steps;
};

// A request complete when made (MPI_Imrecv's): its status.
struct Completed : Extended {
  Completed() : Extended(Kind::completed) {}
  MPI_Status status{};
};

// A generalized request (MPI_Grequest_start): complete once MPI_Grequest_complete sends the rank
// an empty message on a reserved context, which `done` receives (so every wait and test treats it
// as any receive); its status comes from the program's query function.
struct Generalized : Extended {
  Generalized() : Extended(Kind::generalized) {}
  MPI_Grequest_query_function* query = nullptr;
  MPI_Grequest_free_function* free = nullptr;
  MPI_Grequest_cancel_function* cancel = nullptr;
  void* extra = nullptr;
  vp::Request done;
  int tag = 0;
  bool completed = false;  // MPI_Grequest_complete was called
};

// The context of MPI_Grequest_complete's messages (apart from every communicator's).
inline constexpr std::uint32_t grequest_context = 0xfffffff0u;

inline bool is_extended(MPI_Request request) {
  return (reinterpret_cast<std::uintptr_t>(request) & 1) != 0;
}

inline Extended* extended_of(MPI_Request request) {
  return reinterpret_cast<Extended*>(reinterpret_cast<std::uintptr_t>(request) &
                                     ~std::uintptr_t{1});
}

inline MPI_Request handle_of(Extended* e) {
  return reinterpret_cast<MPI_Request>(reinterpret_cast<std::uintptr_t>(e) | 1);
}

}  // namespace vela::mpi::detail
