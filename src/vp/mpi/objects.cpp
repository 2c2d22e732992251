// Groups of ranks and the rank's tables of MPI objects (objects.hpp).
#include "objects.hpp"

#include <algorithm>

#include "derived_types.hpp"
#include "internal.hpp"
#include "operators.hpp"
#include "windows.hpp"

namespace vela::mpi::detail {

Group Group::strided(int first, int stride, int size) {
  Group g;
  g.first_ = first;
  g.stride_ = size > 1 ? stride : 1;
  g.size_ = size;
  return g;
}

Group Group::listed(std::vector<std::int32_t> ranks) {
  const int n = static_cast<int>(ranks.size());
  if (n == 0) return Group{};
  const int stride = n > 1 ? ranks[1] - ranks[0] : 1;
  bool regular = stride != 0;
  for (int i = 1; regular && i < n; ++i) {
    regular = ranks[static_cast<std::size_t>(i)] == ranks[0] + i * stride;
  }
  if (regular) return strided(ranks[0], stride, n);
  Group g;
  g.size_ = n;
  g.by_rank_.reserve(ranks.size());
  for (int i = 0; i < n; ++i) g.by_rank_.emplace_back(ranks[static_cast<std::size_t>(i)], i);
  std::sort(g.by_rank_.begin(), g.by_rank_.end());
  g.listed_ = std::move(ranks);
  return g;
}

int Group::index_of(int rank) const {
  if (listed_.empty()) {
    const int offset = rank - first_;
    if (offset % stride_ != 0) return -1;
    const int index = offset / stride_;
    return index >= 0 && index < size_ ? index : -1;
  }
  const auto it = std::lower_bound(by_rank_.begin(), by_rank_.end(),
                                   std::pair<std::int32_t, std::int32_t>{rank, -1});
  return it != by_rank_.end() && it->first == rank ? it->second : -1;
}

std::vector<std::int32_t> Group::ranks() const {
  if (!listed_.empty()) return listed_;
  std::vector<std::int32_t> all(static_cast<std::size_t>(size_));
  for (int i = 0; i < size_; ++i) all[static_cast<std::size_t>(i)] = rank_of(i);
  return all;
}

bool Group::operator==(const Group& other) const {
  if (size_ != other.size_) return false;
  for (int i = 0; i < size_; ++i) {
    if (rank_of(i) != other.rank_of(i)) return false;
  }
  return true;
}

bool Group::same_members(const Group& other) const {
  if (size_ != other.size_) return false;
  for (int i = 0; i < size_; ++i) {
    if (other.index_of(rank_of(i)) < 0) return false;
  }
  return true;
}

vp::Members Group::members(std::uint32_t context, int index, std::uint32_t* calls) const {
  vp::Members m;
  m.context = context;
  m.size = size_;
  m.index = index;
  m.first = first_;
  m.stride = stride_;
  m.ranks = listed_.empty() ? nullptr : listed_.data();
  m.calls = calls;
  return m;
}

Communicator* comm_by_context(Objects& objects, std::uint32_t context) {
  const auto it = objects.by_context.find(context);
  return it == objects.by_context.end() ? nullptr : objects.comms.find(it->second);
}

MPI_Comm add_comm(Objects& objects, Communicator comm) {
  const InRankHeap heap;
  const std::uint32_t context = comm.context;
  const int index = objects.comms.add(std::move(comm));
  if (context != unsettled_context) objects.by_context[context] = index;
  return comm_handle(index);
}

Objects::Objects() = default;
Objects::~Objects() = default;

RankMpi::~RankMpi() {
  delete objects;
}

}  // namespace vela::mpi::detail
