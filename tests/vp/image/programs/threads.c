/* Threads a rank starts: each rank starts and joins a thread of its own in rounds between
 * barriers (rank r in r + 2 rounds, so ranks end at different times while others still start
 * threads), each thread summing a range; the sums are printed. glibc keeps a finished thread's
 * stack, with its thread-local vector, for the process's next thread: that vector must not be
 * in a rank's memory, which is gone (or another rank's data) by then. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

struct Work {
  long from, to, sum;
};

static void* add(void* argument) {
  struct Work* w = argument;
  w->sum = 0;
  for (long i = w->from; i < w->to; ++i) w->sum += i;
  return NULL;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long total = 0;
  for (int round = 0; round < size + 2; ++round) {
    if (round < rank + 2) {
      struct Work w = {round * 1000L, (round + rank + 1) * 1000L, 0};
      pthread_t thread;
      if (pthread_create(&thread, NULL, add, &w) != 0 || pthread_join(thread, NULL) != 0) {
        fprintf(stderr, "rank %d: pthread_create or pthread_join failed\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 2);
      }
      total += w.sum;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Migrate();
  }
  printf("rank %d threads' sum %ld\n", rank, total);
  MPI_Finalize();
  return 0;
}
