/* One-sided communication as a plain MPI program: per step, on a window made by MPI_Win_allocate,
 * a fence epoch (a put to the right neighbour, a strided get from the left one, a sum into every
 * rank), a passive-target epoch (every rank adds to a counter at rank 0 under an exclusive lock,
 * then by MPI_Fetch_and_op and MPI_Compare_and_swap under shared locks), a post-start-complete-
 * wait ring on a window made by MPI_Win_create, and requests (MPI_Rget) on a dynamic window.
 * Between steps a Vela balancing point (MPI_Migrate) moves the ranks, between processes under
 * mpirun. Rank 0 prints four integers built from every result: the same under Open MPI (built from
 * the same source) and under Vela whatever the layout. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define SLOTS 8

int main(int argc, char** argv) {
  int rank = 0;
  int size = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int right = (rank + 1) % size;
  const int left = (rank + size - 1) % size;

  long* slots = NULL; /* [0..SLOTS): puts, SLOTS: sums, SLOTS + 1: counter */
  MPI_Win win;
  MPI_Win_allocate((SLOTS + 2) * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &slots,
                   &win);
  for (int i = 0; i < SLOTS + 2; ++i) slots[i] = 0;

  int ring[2] = {-1, -1};
  MPI_Win ring_win;
  MPI_Win_create(ring, sizeof ring, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &ring_win);
  MPI_Group world_group;
  MPI_Group neighbours;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  int pair[2] = {left, right};
  MPI_Group_incl(world_group, left == right ? 1 : 2, pair, &neighbours);

  double* attached = malloc(4 * sizeof(double));
  MPI_Win dynamic;
  MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dynamic);
  MPI_Win_attach(dynamic, attached, 4 * sizeof(double));
  MPI_Aint mine = 0;
  MPI_Get_address(attached, &mine);
  MPI_Aint* addresses = malloc((size_t)size * sizeof(MPI_Aint));
  MPI_Allgather(&mine, 1, MPI_AINT, addresses, 1, MPI_AINT, MPI_COMM_WORLD);

  MPI_Datatype every_other;
  MPI_Type_vector(SLOTS / 2, 1, 2, MPI_LONG, &every_other);
  MPI_Type_commit(&every_other);

  long check[4] = {0, 0, 0, 0}; /* per epoch kind: fence, locks, start/post, requests */
  for (int step = 0; step < 4; ++step) {
    /* Fence epoch. */
    long out[SLOTS];
    long strided[SLOTS / 2];
    for (int i = 0; i < SLOTS; ++i) out[i] = 100L * rank + 10L * step + i;
    MPI_Win_fence(0, win);
    MPI_Put(out, SLOTS, MPI_LONG, right, 0, SLOTS, MPI_LONG, win);
    MPI_Win_fence(0, win);
    MPI_Get(strided, SLOTS / 2, MPI_LONG, left, 0, 1, every_other, win);
    long one = rank + 1;
    for (int t = 0; t < size; ++t)
      MPI_Accumulate(&one, 1, MPI_LONG, t, SLOTS, 1, MPI_LONG, MPI_SUM, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < SLOTS / 2; ++i) check[0] += strided[i] * (i + 1);
    check[0] += slots[SLOTS] * 7 + slots[3];

    /* Passive target: a counter at rank 0. */
    for (int k = 0; k < 3; ++k) {
      long value = 0;
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
      MPI_Get(&value, 1, MPI_LONG, 0, SLOTS + 1, 1, MPI_LONG, win);
      MPI_Win_flush(0, win);
      value += rank + 1;
      MPI_Put(&value, 1, MPI_LONG, 0, SLOTS + 1, 1, MPI_LONG, win);
      MPI_Win_unlock(0, win);
    }
    long fetched = 0;
    long add = 1;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Fetch_and_op(&add, &fetched, MPI_LONG, 0, SLOTS + 1, MPI_SUM, win);
    MPI_Win_unlock(0, win);
    MPI_Barrier(MPI_COMM_WORLD);
    long counter = 0;
    long swapped = 0;
    long expected = 0;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Fetch_and_op(&add, &counter, MPI_LONG, 0, SLOTS + 1, MPI_NO_OP, win);
    MPI_Win_unlock(0, win);
    MPI_Barrier(MPI_COMM_WORLD); /* every rank read the counter before any swaps it */
    expected = counter;
    long replacement = -1;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Compare_and_swap(&replacement, &expected, &swapped, MPI_LONG, 0, SLOTS + 1, win);
    MPI_Win_unlock(0, win);
    MPI_Barrier(MPI_COMM_WORLD);
    /* Exactly one rank swapped (the first; the others found -1). */
    int i_swapped = swapped == counter ? 1 : 0;
    int swaps = 0;
    MPI_Allreduce(&i_swapped, &swaps, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    check[1] += counter * 3 + swaps * 11;
    if (rank == 0) slots[SLOTS + 1] = 0; /* reset for the next step (the window is rank 0's) */
    MPI_Barrier(MPI_COMM_WORLD);

    /* Post-start-complete-wait: each rank writes its rank into its neighbours' ring windows. */
    MPI_Win_post(neighbours, 0, ring_win);
    MPI_Win_start(neighbours, 0, ring_win);
    MPI_Put(&rank, 1, MPI_INT, right, 0, 1, MPI_INT, ring_win);
    MPI_Put(&rank, 1, MPI_INT, left, 1, 1, MPI_INT, ring_win);
    MPI_Win_complete(ring_win);
    MPI_Win_wait(ring_win);
    check[2] += ring[0] * 5 + ring[1] * 13;

    /* Requests on a dynamic window: read the left neighbour's attached numbers. */
    for (int i = 0; i < 4; ++i) attached[i] = rank + 0.25 * i + step;
    MPI_Barrier(MPI_COMM_WORLD);
    double got[4] = {0, 0, 0, 0};
    MPI_Request request;
    MPI_Win_lock_all(0, dynamic);
    MPI_Rget(got, 4, MPI_DOUBLE, left, addresses[left], 4, MPI_DOUBLE, dynamic, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    MPI_Win_unlock_all(dynamic);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 4; ++i) check[3] += (long)(got[i] * 4) * (i + 2);
#ifdef VELA_MPI
    MPI_Migrate();
#endif
  }
  long total[4] = {0, 0, 0, 0};
  MPI_Reduce(check, total, 4, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("%d ranks: check %ld %ld %ld %ld\n", size, total[0], total[1], total[2], total[3]);
  }
  MPI_Type_free(&every_other);
  MPI_Win_detach(dynamic, attached);
  MPI_Win_free(&dynamic);
  MPI_Win_free(&ring_win);
  MPI_Win_free(&win);
  MPI_Group_free(&neighbours);
  MPI_Group_free(&world_group);
  free(addresses);
  free(attached);
  MPI_Finalize();
  return 0;
}
