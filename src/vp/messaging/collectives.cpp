// Collectives over point-to-point messages on their own channel (they never match a program's
// receives, any-tag included), each call's messages tagged with the call's number (every rank
// makes the same collective calls in the same order). Trees are binomial; a deterministic
// reduction combines along a tree fixed by the rank count, left operand the lower ranks, so its
// bits depend on nothing else.
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "fibers/rank.hpp"
#include "messaging/reduce_ops.hpp"

namespace vela::vp {

using namespace detail;

namespace {

struct Collective {
  RankContext& rank;
  int tag;
  const char* call;
};

Collective begin(const char* call) {
  RankContext& rank = current(call);
  const int tag = static_cast<int>(rank.collectives++ & static_cast<std::uint32_t>(max_tag));
  return {rank, tag, call};
}

void put(const Collective& c, const void* data, std::size_t bytes, Type type, int to) {
  post_message(c.rank, data, bytes, type, to, c.tag, collective_channel);
}

Status get(const Collective& c, void* data, std::size_t count, Type type, int from) {
  return receive_now(c.rank, data, count, type, from, c.tag, collective_channel, c.call);
}

// Binomial broadcast from `root` of `bytes` at `data`.
void tree_bcast(const Collective& c, void* data, std::size_t count, Type type, int root) {
  const int n = c.rank.world->size;
  const int rel = (c.rank.rank - root + n) % n;
  int mask = 1;
  while (mask < n) {
    if ((rel & mask) != 0) {
      get(c, data, count, type, (rel - mask + root) % n);
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (rel + mask < n) put(c, data, count * size_of(type), type, (rel + mask + root) % n);
  }
}

// Reduces into `acc` (holding this rank's values) along the binomial tree rooted at rank 0;
// rank 0 ends with the result.
void tree_reduce(const Collective& c, std::byte* acc, std::size_t count, Type type, Op op,
                 Order order) {
  const int n = c.rank.world->size;
  const int r = c.rank.rank;
  const std::size_t bytes = count * size_of(type);
  std::vector<std::byte> child(bytes);
  int children = 0;
  int mask = 1;
  for (; mask < n; mask <<= 1) {
    if ((r & mask) != 0) break;
    if (r + mask < n) ++children;
  }
  if (order == Order::deterministic) {
    // Children in increasing distance: each covers the ranks just above what acc covers.
    for (int m = 1; m < mask && m < n; m <<= 1) {
      if (r + m >= n) break;
      get(c, child.data(), count, type, r + m);
      if (count > 0) combine(op, type, acc, child.data(), count, c.call);
    }
  } else {
    for (int k = 0; k < children; ++k) {
      get(c, child.data(), count, type, any_source);
      if (count > 0) combine(op, type, acc, child.data(), count, c.call);
    }
  }
  if (r != 0) put(c, acc, bytes, type, r - mask);
}

void check_root(const char* call, int root) {
  RankContext& rank = current(call);
  check_peer(call, "root", root, rank.world->size, false);
}

}  // namespace

void barrier() {
  const Collective c = begin("barrier");
  std::byte none{};
  tree_reduce(c, &none, 0, Type::bytes, Op::sum, Order::arrival);
  tree_bcast(c, &none, 0, Type::bytes, 0);
}

void bcast(void* buffer, std::size_t count, Type type, int root) {
  constexpr const char* call = "bcast";
  check_root(call, root);
  check_buffer(call, buffer, count, type);
  tree_bcast(begin(call), buffer, count, type, root);
}

namespace {

void reduce_to(const char* call, const void* in, void* out, std::size_t count, Type type, Op op,
               int root, Order order, bool everyone) {
  RankContext& rank = current(call);
  if (!everyone) check_peer(call, "root", root, rank.world->size, false);
  const std::size_t bytes = check_buffer(call, in, count, type);
  check_op(call, type, op);
  if (everyone || rank.rank == root) check_buffer(call, out, count, type);
  const Collective c = begin(call);
  std::vector<std::byte> acc(bytes);
  if (bytes > 0) std::memcpy(acc.data(), in, bytes);
  tree_reduce(c, acc.data(), count, type, op, order);
  if (everyone) {
    tree_bcast(c, acc.data(), count, type, 0);
    if (bytes > 0) std::memcpy(out, acc.data(), bytes);
    return;
  }
  if (root != 0) {
    if (rank.rank == 0) put(c, acc.data(), bytes, type, root);
    if (rank.rank == root) get(c, acc.data(), count, type, 0);
  }
  if (rank.rank == root && bytes > 0) std::memcpy(out, acc.data(), bytes);
}

}  // namespace

void reduce(const void* in, void* out, std::size_t count, Type type, Op op, int root, Order order) {
  reduce_to("reduce", in, out, count, type, op, root, order, false);
}

void allreduce(const void* in, void* out, std::size_t count, Type type, Op op, Order order) {
  reduce_to("allreduce", in, out, count, type, op, 0, order, true);
}

namespace {

// What gather and scatter share: the root's buffer `blocks` holds a block of `count` elements per
// rank, in rank order; `own` is the calling rank's block. Gathering, every block travels from
// its rank's `own` to the root's `blocks`; scattering, the other way. The root's own block is
// moved within the root.
template <bool gathering>
void gather_or_scatter(const char* call, std::conditional_t<gathering, const void*, void*> own,
                       std::conditional_t<gathering, void*, const void*> blocks, std::size_t count,
                       Type type, int root) {
  check_root(call, root);
  const std::size_t bytes = check_buffer(call, own, count, type);
  const Collective c = begin(call);
  const int n = c.rank.world->size;
  if (c.rank.rank != root) {
    if constexpr (gathering) {
      put(c, own, bytes, type, root);
    } else {
      get(c, own, count, type, root);
    }
    return;
  }
  check_buffer(call, blocks, count * static_cast<std::size_t>(n), type);
  for (int r = 0; r < n; ++r) {
    const std::size_t at = static_cast<std::size_t>(r) * bytes;
    if constexpr (gathering) {
      std::byte* block = static_cast<std::byte*>(blocks) + at;
      if (r != root) {
        get(c, block, count, type, r);
      } else if (bytes > 0) {
        std::memmove(block, own, bytes);
      }
    } else {
      const std::byte* block = static_cast<const std::byte*>(blocks) + at;
      if (r != root) {
        put(c, block, bytes, type, r);
      } else if (bytes > 0) {
        std::memmove(own, block, bytes);
      }
    }
  }
}

}  // namespace

void gather(const void* in, std::size_t count, Type type, void* out, int root) {
  gather_or_scatter<true>("gather", in, out, count, type, root);
}

void allgather(const void* in, std::size_t count, Type type, void* out) {
  constexpr const char* call = "allgather";
  RankContext& rank = current(call);
  const std::size_t n = static_cast<std::size_t>(rank.world->size);
  check_buffer(call, in, count, type);
  check_buffer(call, out, count * n, type);
  gather(in, count, type, out, 0);
  bcast(out, count * n, type, 0);
}

void scatter(const void* in, std::size_t count, Type type, void* out, int root) {
  gather_or_scatter<false>("scatter", out, in, count, type, root);
}

void alltoall(const void* in, std::size_t count, Type type, void* out) {
  constexpr const char* call = "alltoall";
  RankContext& rank = current(call);
  const int n = rank.world->size;
  const std::size_t bytes = check_buffer(call, in, count, type);
  check_buffer(call, in, count * static_cast<std::size_t>(n), type);
  check_buffer(call, out, count * static_cast<std::size_t>(n), type);
  const Collective c = begin(call);
  const auto* from = static_cast<const std::byte*>(in);
  auto* to = static_cast<std::byte*>(out);
  for (int d = 1; d < n; ++d) {
    const int dest = (rank.rank + d) % n;
    put(c, from + static_cast<std::size_t>(dest) * bytes, bytes, type, dest);
  }
  if (bytes > 0) {
    std::memmove(to + static_cast<std::size_t>(rank.rank) * bytes,
                 from + static_cast<std::size_t>(rank.rank) * bytes, bytes);
  }
  for (int d = 1; d < n; ++d) {
    const int source = (rank.rank - d + n) % n;
    get(c, to + static_cast<std::size_t>(source) * bytes, count, type, source);
  }
}

}  // namespace vela::vp
