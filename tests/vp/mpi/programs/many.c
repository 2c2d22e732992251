/* Collectives among many ranks, each result checked against its closed form: MPI_Barrier (no
 * rank leaves before the last one came: the late rank's entry time, read from the machine's
 * monotonic clock, is below every rank's exit time), MPI_Bcast of 3 ints and of 300 KB from a
 * root that changes every round, MPI_Allreduce of ints and long longs under every integer
 * operator, MPI_Reduce to a changing root (the other ranks do not wait for it: each reports to
 * the root after its call, and the root takes every report before making its own), the same on
 * a duplicate of MPI_COMM_WORLD, MPI_Gather, MPI_Scatter and MPI_Allgather from and to that
 * root, MPI_Comm_split into three colours with keys reversing the ranks' order (each part's
 * ranks, size and sum checked), and an MPI_Allreduce of doubles. MPI_Migrate
 * after every round. Prints one line per rank with a problem, then rank 0 prints
 * "collectives among N ranks: R rounds, W wrong" and a checksum of every result.
 *   many [ROUNDS]      (default 4) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* What a rank found: kept on its stack (the program runs unchanged on ranks that share its
 * globals as well as on ranks with copies of their own). */
typedef struct {
  int wrong;
  unsigned long long checksum;
} Tally;

static void check(Tally* t, int ok, int rank, int round, const char* what) {
  if (!ok) {
    printf("rank %d round %d: %s is wrong\n", rank, round, what);
    ++t->wrong;
  }
}

static void mix(Tally* t, unsigned long long value) {
  t->checksum = t->checksum * 1000003ull + value;
}

/* One round of every collective on `comm` (MPI_COMM_WORLD or its duplicate). */
static void round_on(Tally* t, MPI_Comm comm, int round) {
  int me = 0, n = 0;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &n);
  const int late = (round * 37 + 5) % n;
  double entered = 0.0;
  if (me == late) {
    const double until = now() + 0.02;
    while (now() < until) {
    }
    entered = now();
  }
  MPI_Barrier(comm);
  const double left = now();
  double late_entered = entered;
  MPI_Bcast(&late_entered, 1, MPI_DOUBLE, late, comm);
  check(t, left >= late_entered, me, round, "MPI_Barrier (a rank left before the last came)");

  const int root = (round * 53 + 11) % n;
  int three[3] = {0, 0, 0};
  if (me == root) three[0] = round, three[1] = -root, three[2] = 12345;
  MPI_Bcast(three, 3, MPI_INT, root, comm);
  check(t, three[0] == round && three[1] == -root && three[2] == 12345, me, round,
        "MPI_Bcast 3 ints");
  mix(t, (unsigned long long)(three[0] + three[1] + three[2]));

  enum { big = 300 * 1024 / 4 };
  int* block = malloc(sizeof(int) * big);
  for (int i = 0; i < big; ++i) block[i] = me == root ? i ^ round : -1;
  MPI_Bcast(block, big, MPI_INT, root, comm);
  int same = 1;
  for (int i = 0; i < big; ++i) same = same && block[i] == (i ^ round);
  check(t, same, me, round, "MPI_Bcast of 300 KB");
  free(block);

  int ints[6] = {me + round, me, me, ~0 ^ (1 << (me % 31)), 1 << (me % 31), me % 2};
  int out[6];
  MPI_Allreduce(&ints[0], &out[0], 1, MPI_INT, MPI_SUM, comm);
  MPI_Allreduce(&ints[1], &out[1], 1, MPI_INT, MPI_MAX, comm);
  MPI_Allreduce(&ints[2], &out[2], 1, MPI_INT, MPI_MIN, comm);
  MPI_Allreduce(&ints[3], &out[3], 1, MPI_INT, MPI_BAND, comm);
  MPI_Allreduce(&ints[4], &out[4], 1, MPI_INT, MPI_BOR, comm);
  MPI_Allreduce(&ints[5], &out[5], 1, MPI_INT, MPI_LXOR, comm);
  const int bits = n >= 31 ? 0x7fffffff : (1 << n) - 1;
  check(t, out[0] == n * (n - 1) / 2 + n * round, me, round, "MPI_Allreduce MPI_SUM");
  check(t, out[1] == n - 1 && out[2] == 0, me, round, "MPI_Allreduce MPI_MAX or MPI_MIN");
  check(t, out[3] == (~0 ^ bits) && out[4] == bits, me, round, "MPI_Allreduce MPI_BAND or MPI_BOR");
  check(t, out[5] == (n / 2) % 2, me, round, "MPI_Allreduce MPI_LXOR");
  for (int i = 0; i < 6; ++i) mix(t, (unsigned long long)(unsigned)out[i]);

  long long wide[4] = {(long long)me << 33, -me, me * me, 1}, sums[4] = {0, 0, 0, 0};
  MPI_Allreduce(wide, sums, 4, MPI_LONG_LONG, MPI_SUM, comm);
  const long long nn = n;
  check(t,
        sums[0] == (nn * (nn - 1) / 2) << 33 && sums[1] == -nn * (nn - 1) / 2 &&
            sums[2] == (nn - 1) * nn * (2 * nn - 1) / 6 && sums[3] == nn,
        me, round, "MPI_Allreduce of 4 long longs");
  mix(t, (unsigned long long)sums[2]);

  /* The other ranks report to the root after their MPI_Reduce; the root takes every report
   * first: a reduction whose other ranks waited for the root would never end. */
  long long mine = (long long)(me + 1) * (round + 1), total = -1;
  if (me != root) {
    MPI_Reduce(&mine, NULL, 1, MPI_LONG_LONG, MPI_SUM, root, comm);
    MPI_Send(&me, 1, MPI_INT, root, 77, comm);
  } else {
    for (int r = 1; r < n; ++r) {
      int from = -1;
      MPI_Recv(&from, 1, MPI_INT, MPI_ANY_SOURCE, 77, comm, MPI_STATUS_IGNORE);
    }
    MPI_Reduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, root, comm);
    check(t, total == nn * (nn + 1) / 2 * (round + 1), me, round, "MPI_Reduce to a changing root");
  }
  MPI_Bcast(&total, 1, MPI_LONG_LONG, root, comm);
  mix(t, (unsigned long long)total);

  int pair[2] = {me, round * me}, *pairs = malloc(sizeof(int) * 2 * (size_t)n);
  for (int i = 0; i < 2 * n; ++i) pairs[i] = -1;
  MPI_Gather(pair, 2, MPI_INT, pairs, 2, MPI_INT, root, comm);
  int gathered = 1;
  for (int r = 0; me == root && r < n; ++r)
    gathered = gathered && pairs[2 * r] == r && pairs[2 * r + 1] == round * r;
  check(t, gathered, me, round, "MPI_Gather");
  for (int i = 0; i < 2 * n; ++i) pairs[i] = me == root ? i * 3 + round : -1;
  int two[2] = {-1, -1};
  MPI_Scatter(pairs, 2, MPI_INT, two, 2, MPI_INT, root, comm);
  check(t, two[0] == 6 * me + round && two[1] == 6 * me + 3 + round, me, round, "MPI_Scatter");
  MPI_Allgather(pair, 2, MPI_INT, pairs, 2, MPI_INT, comm);
  int everywhere = 1;
  for (int r = 0; r < n; ++r)
    everywhere = everywhere && pairs[2 * r] == r && pairs[2 * r + 1] == round * r;
  check(t, everywhere, me, round, "MPI_Allgather");
  free(pairs);

  /* Three colours, keys reversing the order: rank r of colour c is r's place from the top. */
  MPI_Comm part;
  MPI_Comm_split(comm, me % 3, -me, &part);
  int part_rank = -1, part_size = -1, part_sum = -1;
  MPI_Comm_rank(part, &part_rank);
  MPI_Comm_size(part, &part_size);
  MPI_Allreduce(&me, &part_sum, 1, MPI_INT, MPI_SUM, part);
  const int colour_size = (n - me % 3 + 2) / 3;
  int expected_sum = 0;
  for (int r = me % 3; r < n; r += 3) expected_sum += r;
  check(t, part_size == colour_size && part_rank == (n - 1 - me) / 3 && part_sum == expected_sum,
        me, round, "MPI_Comm_split");
  mix(t, (unsigned long long)part_sum);
  /* The part's own collectives (among more than 64 ranks each: combined per PE too). */
  MPI_Barrier(part);
  int from_top = part_rank == part_size - 1 ? round + 1000 : -1;
  MPI_Bcast(&from_top, 1, MPI_INT, part_size - 1, part);
  check(t, from_top == round + 1000, me, round, "MPI_Bcast on a part");
  const double half = 0.5 * me;
  double halves = 0.0;
  MPI_Allreduce(&half, &halves, 1, MPI_DOUBLE, MPI_SUM, part);
  check(t, halves == 0.5 * expected_sum, me, round, "MPI_Allreduce of doubles on a part");
  int* members = malloc(sizeof(int) * (size_t)part_size);
  MPI_Allgather(&me, 1, MPI_INT, members, 1, MPI_INT, part);
  int ordered = 1;
  for (int i = 1; i < part_size; ++i) ordered = ordered && members[i] == members[i - 1] - 3;
  check(t, ordered && members[part_rank] == me, me, round, "MPI_Allgather on a part");
  free(members);
  MPI_Comm_free(&part);

  /* Doubles take the rank-ordered tree, between the per-PE calls. */
  double x = 0.5 * me, xs = 0.0;
  MPI_Allreduce(&x, &xs, 1, MPI_DOUBLE, MPI_SUM, comm);
  check(t, xs == 0.25 * (double)(nn * (nn - 1)), me, round, "MPI_Allreduce of doubles");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, n = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  const int rounds = argc > 1 ? atoi(argv[1]) : 4;
  if (rounds < 1) {
    if (me == 0) fprintf(stderr, "many: ROUNDS: expected a positive count, got '%s'\n", argv[1]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  Tally t = {0, 0};
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  for (int round = 0; round < rounds; ++round) {
    round_on(&t, round % 2 == 0 ? MPI_COMM_WORLD : dup, round);
    MPI_Migrate();
  }
  MPI_Comm_free(&dup);
  int all_wrong = 0;
  MPI_Reduce(&t.wrong, &all_wrong, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (me == 0) {
    printf("collectives among %d ranks: %d rounds, %d wrong\n", n, rounds, all_wrong);
    printf("checksum: %llu\n", t.checksum);
  }
  MPI_Finalize();
  return all_wrong == 0 ? 0 : 1;
}
