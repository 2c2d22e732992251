// The main thread's collectives over the run's processes, before the PEs start or after they
// stopped (never while a progress-maker calls MPI on the same communicator): broadcasts, an
// allgather and a gather of the runtime's values, and the clusters of processes (one per
// machine, or found by probing latencies) with the machine's oversubscription.
//
// Invariants: every process calls each of them, in the same order (they are collective);
// cluster labels are numbered in order of their first process, so every process gets the
// same list.
//
// Costs: start-up and end only. probe_clusters() runs a few ping-pongs between each process and
// up to every leader found before it, one process at a time: O(processes x clusters) round
// trips; the others are one or two MPI collectives each.
#include <sched.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <map>

#include "impl.hpp"

namespace vela::rt::detail {

void Transport::broadcast(std::int64_t& value) {
  MPI_Bcast(&value, 1, MPI_INT64_T, 0, impl_->comm);
}

std::vector<std::string> Transport::gather(const std::string& mine) {
  const int n = impl_->processes;
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<std::size_t>(n));
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, impl_->comm);
  std::vector<int> offsets(static_cast<std::size_t>(n), 0);
  std::string all;
  if (impl_->process == 0) {
    for (int p = 1; p < n; ++p) {
      offsets[static_cast<std::size_t>(p)] =
          offsets[static_cast<std::size_t>(p - 1)] + lengths[static_cast<std::size_t>(p - 1)];
    }
    all.resize(static_cast<std::size_t>(offsets.back() + lengths.back()));
  }
  MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
              0, impl_->comm);
  std::vector<std::string> texts;
  if (impl_->process != 0) return texts;
  for (int p = 0; p < n; ++p) {
    texts.push_back(all.substr(static_cast<std::size_t>(offsets[static_cast<std::size_t>(p)]),
                               static_cast<std::size_t>(lengths[static_cast<std::size_t>(p)])));
  }
  return texts;
}

void Transport::broadcast(std::string& text) {
  std::uint64_t length = text.size();
  MPI_Bcast(&length, 1, MPI_UINT64_T, 0, impl_->comm);
  text.resize(length);
  MPI_Bcast(text.data(), static_cast<int>(length), MPI_CHAR, 0, impl_->comm);
}

std::vector<double> Transport::allgather(const std::vector<double>& mine) {
  std::vector<double> all(mine.size() * static_cast<std::size_t>(impl_->processes));
  MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(),
                static_cast<int>(mine.size()), MPI_DOUBLE, impl_->comm);
  return all;
}

namespace {

// Renumbers labels 0.. in order of first appearance.
std::vector<std::int32_t> dense_labels(const std::vector<int>& labels) {
  std::map<int, std::int32_t> seen;
  std::vector<std::int32_t> out;
  for (const int l : labels) {
    const auto it = seen.emplace(l, static_cast<std::int32_t>(seen.size())).first;
    out.push_back(it->second);
  }
  return out;
}

}  // namespace

std::vector<std::int32_t> Transport::node_clusters() {
  int leader = impl_->process;
  MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, impl_->node);
  std::vector<int> leaders(static_cast<std::size_t>(impl_->processes));
  MPI_Allgather(&leader, 1, MPI_INT, leaders.data(), 1, MPI_INT, impl_->comm);
  return dense_labels(leaders);
}

bool Transport::node_oversubscribed(int threads) {
  MPI_Comm node = impl_->node;
  cpu_set_t mine;
  CPU_ZERO(&mine);
  if (sched_getaffinity(0, sizeof mine, &mine) != 0) CPU_SET(0, &mine);
  // CPU sets as words, or-ed over the machine's processes; the threads summed.
  constexpr int words = sizeof(cpu_set_t) / sizeof(std::uint64_t);
  std::uint64_t bits[words] = {};
  std::memcpy(bits, &mine, sizeof bits);
  MPI_Allreduce(MPI_IN_PLACE, bits, words, MPI_UINT64_T, MPI_BOR, node);
  MPI_Allreduce(MPI_IN_PLACE, &threads, 1, MPI_INT, MPI_SUM, node);
  int cores = 0;
  for (const std::uint64_t w : bits) cores += std::popcount(w);
  return threads > cores;
}

std::vector<std::int32_t> Transport::probe_clusters(double threshold_us) {
  // Process p, in turn, ping-pongs with each leader (the first process of each cluster found so
  // far) and joins the first within the threshold; every process learns its choice from a
  // broadcast, so all keep the same list of leaders.
  constexpr int round_trips = 5;
  constexpr int tag = 1000;
  const int me = impl_->process;
  MPI_Comm comm = impl_->comm;
  std::vector<int> cluster(static_cast<std::size_t>(impl_->processes), 0);
  std::vector<int> leaders{0};
  auto ping = [&](int other, bool first) {
    double best = 1e30;
    char byte = 0;
    for (int r = 0; r <= round_trips; ++r) {  // the first round trip warms the path
      const double from = MPI_Wtime();
      if (first) {
        MPI_Send(&byte, 1, MPI_CHAR, other, tag, comm);
        MPI_Recv(&byte, 1, MPI_CHAR, other, tag, comm, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(&byte, 1, MPI_CHAR, other, tag, comm, MPI_STATUS_IGNORE);
        MPI_Send(&byte, 1, MPI_CHAR, other, tag, comm);
      }
      if (r > 0) best = std::min(best, (MPI_Wtime() - from) / 2.0);
    }
    return best;
  };
  for (int p = 1; p < impl_->processes; ++p) {
    int choice = -1;
    for (std::size_t l = 0; l < leaders.size(); ++l) {
      // Both sides learn whether to go on: the prober sends its verdict after each leader.
      int verdict = 0;
      if (me == p) {
        verdict = ping(leaders[l], true) * 1e6 <= threshold_us ? 1 : 0;
        MPI_Send(&verdict, 1, MPI_INT, leaders[l], tag + 1, comm);
      } else if (me == leaders[l]) {
        ping(p, false);
        MPI_Recv(&verdict, 1, MPI_INT, p, tag + 1, comm, MPI_STATUS_IGNORE);
      }
      if (me == p && verdict == 1) {
        choice = static_cast<int>(l);
        break;
      }
      if (me == leaders[l] && verdict == 1) break;
    }
    MPI_Bcast(&choice, 1, MPI_INT, p, comm);
    if (choice < 0) {
      cluster[static_cast<std::size_t>(p)] = static_cast<int>(leaders.size());
      leaders.push_back(p);
    } else {
      cluster[static_cast<std::size_t>(p)] = choice;
    }
  }
  return dense_labels(cluster);
}

}  // namespace vela::rt::detail
