/* Communicators as a plain MPI program: rows of 4 ranks split from MPI_COMM_WORLD (numbered
 * backwards), a duplicate of each row, and per step a reduction, a scan, a ring on the duplicate
 * with MPI_ANY_SOURCE and a Vela balancing point (MPI_Migrate) that moves ranks, between
 * processes under mpirun. Rank 0 prints one integer built from every result: the same under
 * Open MPI (built from the same source) and under Vela whatever the layout. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank = 0;
  int size = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm row;
  MPI_Comm_split(MPI_COMM_WORLD, rank / 4, -rank, &row);
  MPI_Comm dup;
  MPI_Comm_dup(row, &dup);
  long check = 0;
  for (int step = 0; step < 6; ++step) {
    int r = 0;
    int s = 0;
    int sum = 0;
    int scan = 0;
    int got = -1;
    MPI_Comm_rank(dup, &r);
    MPI_Comm_size(dup, &s);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, dup);
    MPI_Scan(&rank, &scan, 1, MPI_INT, MPI_SUM, row);
    MPI_Sendrecv(&rank, 1, MPI_INT, (r + 1) % s, step, &got, 1, MPI_INT, MPI_ANY_SOURCE, step, dup,
                 MPI_STATUS_IGNORE);
    check += sum * 1000L + scan * 10L + got;
#ifdef VELA_MPI
    MPI_Migrate();
#endif
  }
  long total = 0;
  MPI_Reduce(&check, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("%d ranks: check %ld\n", size, total);
  MPI_Comm_free(&dup);
  MPI_Comm_free(&row);
  MPI_Finalize();
  return 0;
}
