// Ranks that carry state through MPI_Migrate: on their stack, on the heap (std::vector), in a
// privatized global, in a receive posted before the migration and in a message that arrives
// while they are away. Each step also passes 320 KB to the right (between processes of one
// machine such a message is received in place, not packed). With a balancer that moves every rank
// each step (--lb rotate) and several processes, every rank visits other processes; the checksum
// must be the same as in one process, whatever the process count.
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <vector>

#include "vela/vp/privatized.hpp"

namespace {

vela::vp::privatized<std::vector<double>> history;  // module-level state, one per rank

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int steps = argc > 1 ? std::atoi(argv[1]) : 6;
  const int right = (rank + 1) % size;
  const int left = (rank + size - 1) % size;

  std::vector<double> field(static_cast<std::size_t>(500 + 37 * rank));
  for (std::size_t i = 0; i < field.size(); ++i) field[i] = rank * 1000.0 + 0.5 * i;
  double on_stack[64];
  for (int i = 0; i < 64; ++i) on_stack[i] = rank + 0.25 * i;
  std::set<long> processes;  // where this rank ran (a node-based container: many heap blocks)

  for (int step = 0; step < steps; ++step) {
    processes.insert(static_cast<long>(getpid()));
    double sum = 0.0;
    for (const double v : field) sum += v;
    // A receive posted before the migration, completed after it.
    double from_left = 0.0;
    MPI_Request pending;
    MPI_Irecv(&from_left, 1, MPI_DOUBLE, left, 100 + step, MPI_COMM_WORLD, &pending);
    // A message sent before the migration and received after it (it may wait for its rank
    // in the rank's queue, and move with it).
    MPI_Send(&sum, 1, MPI_DOUBLE, right, 200 + step, MPI_COMM_WORLD);
    MPI_Migrate();
    processes.insert(static_cast<long>(getpid()));
    double early = 0.0;
    MPI_Recv(&early, 1, MPI_DOUBLE, left, 200 + step, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&sum, 1, MPI_DOUBLE, right, 100 + step, MPI_COMM_WORLD);
    MPI_Wait(&pending, MPI_STATUS_IGNORE);
    std::vector<double> big_out(40'000);
    std::vector<double> big_in(big_out.size());
    for (std::size_t i = 0; i < big_out.size(); ++i) big_out[i] = sum + 1e-3 * i + rank;
    MPI_Sendrecv(big_out.data(), static_cast<int>(big_out.size()), MPI_DOUBLE, right, 300 + step,
                 big_in.data(), static_cast<int>(big_in.size()), MPI_DOUBLE, left, 300 + step,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double big_sum = 0.0;
    for (const double v : big_in) big_sum += v;
    history.get().push_back(1e-6 * big_sum);
    // A large message received after a later one (kept by the receiver until its receive is
    // posted), from a buffer the sender overwrites as soon as its send returns.
    MPI_Send(big_out.data(), static_cast<int>(big_out.size()), MPI_DOUBLE, right, 400 + step,
             MPI_COMM_WORLD);
    std::fill(big_out.begin(), big_out.end(), -1.0);
    MPI_Send(&sum, 1, MPI_DOUBLE, right, 500 + step, MPI_COMM_WORLD);
    double later = 0.0;
    MPI_Recv(&later, 1, MPI_DOUBLE, left, 500 + step, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(big_in.data(), static_cast<int>(big_in.size()), MPI_DOUBLE, left, 400 + step,
             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double kept_sum = 0.0;
    for (const double v : big_in) kept_sum += v;
    if (kept_sum != big_sum) {
      std::fprintf(stderr, "rank %d: the kept large message changed (%.17g, not %.17g)\n", rank,
                   kept_sum, big_sum);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    history.get().push_back(later);
    for (std::size_t i = 0; i < field.size(); ++i) {
      field[i] = 0.5 * field[i] + 1e-4 * from_left + 1e-5 * early + on_stack[i % 64];
    }
    for (double& v : on_stack) v *= 1.0009765625;
    history.get().push_back(sum);
    field.push_back(static_cast<double>(step));  // the heap keeps growing while ranks move
  }

  double mine = 0.0;
  for (const double v : field) mine += v;
  for (const double v : history.get()) mine += 1e-3 * v;
  std::vector<double> all(static_cast<std::size_t>(size));
  MPI_Gather(&mine, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  const int visited = static_cast<int>(processes.size());
  int most = 0;
  MPI_Reduce(&visited, &most, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    double total = 0.0;
    for (const double v : all) total += v;  // in rank order: the same bits everywhere
    std::printf("checksum: %.17g\n", total);
    std::printf("most processes visited by a rank: %d\n", most);
    // What ps and pkill know the process by (a process started again without address-space
    // randomization keeps it).
    char name[32] = "";
    if (std::FILE* comm = std::fopen("/proc/self/comm", "r")) {
      if (std::fgets(name, sizeof name, comm) == nullptr) name[0] = '\0';
      std::fclose(comm);
    }
    std::printf("process name: %s", name);
  }
  MPI_Finalize();
  return 0;
}
