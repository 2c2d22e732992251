// One-way latency and bandwidth between two MPI ranks in two processes, and the cost of moving
// a rank between processes. One source, built twice: against Vela's MPI subset (the ranks are
// Vela ranks, run by Vela's runtime over Open MPI) and against Open MPI itself (the floor).
//   mpirun -np 2 rank_pingpong_vela --vp 2 [--lb rotate] [reps [sizes]]
//   mpirun -np 2 rank_pingpong_openmpi [reps [sizes]]
// `sizes`: message sizes in bytes, comma-separated (default 8,1024,8192,65536,1048576).
// Besides each size's one-way time and bandwidth, the floor within a process: rank 0's bare
// memcpy of the same bytes between two buffers, back and forth.
// With --lb rotate (Vela only), it also times MPI_Migrate when every rank moves to the other
// process carrying a heap of 0, 64 KiB and 1 MiB.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

double one_way_seconds(int me, std::vector<char>& buffer, int bytes, int reps) {
  const int rounds = std::max(10, 2000000 / std::max(bytes, 1000));
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (int i = 0; i < rounds; ++i) {
      if (me == 0) {
        MPI_Send(buffer.data(), bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(buffer.data(), bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else if (me == 1) {
        MPI_Recv(buffer.data(), bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buffer.data(), bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
      }
    }
    best = std::min(best, (MPI_Wtime() - start) / (2.0 * rounds));
  }
  return best;
}

// The floor of a one-way message of `bytes` within a process: a bare memcpy of them between two
// buffers of this rank, back and forth as the ping-pong does, best of `reps`.
double memcpy_seconds(int bytes, int reps) {
  const int rounds = std::max(10, 2000000 / std::max(bytes, 1000));
  std::vector<char> a(static_cast<std::size_t>(std::max(bytes, 1)), 1);
  std::vector<char> b(a.size(), 2);
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    const double start = MPI_Wtime();
    for (int i = 0; i < rounds; ++i) {
      std::memcpy(b.data(), a.data(), static_cast<std::size_t>(bytes));
      std::memcpy(a.data(), b.data(), static_cast<std::size_t>(bytes));
    }
    best = std::min(best, (MPI_Wtime() - start) / (2.0 * rounds));
  }
  volatile char keep = a[0];  // the copies have an effect
  static_cast<void>(keep);
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  if (size != 2) {
    if (me == 0) std::fprintf(stderr, "rank_pingpong: run it with 2 ranks\n");
    MPI_Finalize();
    return 1;
  }
  std::vector<int> sizes = {8, 1024, 8192, 65536, 1 << 20};
  if (argc > 2) {
    sizes.clear();
    for (const char* at = argv[2]; *at != '\0';) {
      char* end = nullptr;
      const long bytes = std::strtol(at, &end, 10);
      if (end == at || bytes < 0 || bytes > (1L << 30) || (*end != ',' && *end != '\0')) {
        sizes.clear();
        break;
      }
      sizes.push_back(static_cast<int>(bytes));
      at = *end == ',' ? end + 1 : end;
    }
    if (sizes.empty()) {
      if (me == 0) {
        std::fprintf(stderr,
                     "rank_pingpong: sizes: expected byte counts (0..2^30) separated by commas, "
                     "got '%s'\n",
                     argv[2]);
      }
      MPI_Finalize();
      return 1;
    }
  }
  const int largest = *std::max_element(sizes.begin(), sizes.end());
  std::vector<char> buffer(static_cast<std::size_t>(std::max(largest, 1)), 1);
  if (me == 0) {
    std::printf("| bytes | one-way µs | MB/s | memcpy µs |\n|---:|---:|---:|---:|\n");
  }
  for (const int bytes : sizes) {
    const double s = one_way_seconds(me, buffer, bytes, reps);
    if (me == 0) {
      std::printf("| %d | %.2f | %.0f | %.2f |\n", bytes, s * 1e6, bytes / s / 1e6,
                  memcpy_seconds(bytes, reps) * 1e6);
    }
  }
#if defined(VELA_MPI_MIGRATE_TIMING)
  // Every MPI_Migrate moves both ranks to the other process (--lb rotate): each carries its
  // stack and a heap block of `heap` bytes.
  if (me == 0) std::printf("\n| heap bytes | µs per MPI_Migrate |\n|---:|---:|\n");
  for (const int heap : {0, 65536, 1 << 20}) {
    std::vector<char> data(static_cast<std::size_t>(heap), 2);
    MPI_Migrate();
    double best = 1e30;
    for (int r = 0; r < reps; ++r) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double start = MPI_Wtime();
      for (int i = 0; i < 10; ++i) MPI_Migrate();
      best = std::min(best, (MPI_Wtime() - start) / 10);
    }
    long sum = 0;
    for (const char c : data) sum += c;
    if (sum != 2L * heap) std::printf("heap corrupted after migrations\n");
    if (me == 0) std::printf("| %d | %.1f |\n", heap, best * 1e6);
  }
#endif
  MPI_Finalize();
  return 0;
}
