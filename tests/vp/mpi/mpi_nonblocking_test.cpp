// Nonblocking collectives through vela/mpi.h, in process on 2 PEs: each gives what its blocking
// form gives, completes whatever the ranks do between start and wait (an order that a tree
// needing its inner ranks to forward would deadlock on), survives a balancing point (ranks
// moving) while pending, and mixes with point-to-point requests in MPI_Waitall and MPI_Testany.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <numeric>
#include <string>
#include <vector>

#include "run_mpi.hpp"

namespace {

using mpi_test::Outcome;
using mpi_test::run_mpi;
using mpi_test::world_rank;

std::atomic<int> ranks_done{0};

// Every nonblocking collective against its blocking form, on a split communicator, with a
// migration between start and completion.
TEST(MpiNonblocking, SameResultsAsTheBlockingCalls) {
  ranks_done = 0;
  const Outcome o = run_mpi(
      6,
      [](int argc, char** argv) {
        MPI_Init(&argc, &argv);
        const int world = world_rank();
        MPI_Comm comm;
        MPI_Comm_split(MPI_COMM_WORLD, world % 2, world, &comm);  // two groups of 3
        int me = -1;
        int n = 0;
        MPI_Comm_rank(comm, &me);
        MPI_Comm_size(comm, &n);
        std::vector<MPI_Request> r(12);
        // Reductions (integers: the order of combination cannot change the result).
        const int value = 7 * world + 1;
        int sum = -1, sum_root = -1, scan = -1, exscan = -1;
        MPI_Iallreduce(&value, &sum, 1, MPI_INT, MPI_SUM, comm, &r[0]);
        MPI_Ireduce(&value, &sum_root, 1, MPI_INT, MPI_MAX, 1, comm, &r[1]);
        MPI_Iscan(&value, &scan, 1, MPI_INT, MPI_SUM, comm, &r[2]);
        MPI_Iexscan(&value, &exscan, 1, MPI_INT, MPI_SUM, comm, &r[3]);
        // Data movement.
        int token = me == 0 ? 40 + world : -1;
        MPI_Ibcast(&token, 1, MPI_INT, 0, comm, &r[4]);
        std::vector<int> gathered(static_cast<std::size_t>(n), -1);
        MPI_Iallgather(&world, 1, MPI_INT, gathered.data(), 1, MPI_INT, comm, &r[5]);
        std::vector<int> out(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i) out[static_cast<std::size_t>(i)] = 100 * me + i;
        std::vector<int> in(static_cast<std::size_t>(n), -1);
        MPI_Ialltoall(out.data(), 1, MPI_INT, in.data(), 1, MPI_INT, comm, &r[6]);
        std::vector<int> at_root(static_cast<std::size_t>(n), -1);
        MPI_Igather(&me, 1, MPI_INT, at_root.data(), 1, MPI_INT, 2, comm, &r[7]);
        std::vector<int> parts{10, 11, 12};
        int part = -1;
        MPI_Iscatter(parts.data(), 1, MPI_INT, &part, 1, MPI_INT, 1, comm, &r[8]);
        std::vector<int> ones(static_cast<std::size_t>(2 * n), world);
        std::vector<int> block(2, -1);
        MPI_Ireduce_scatter_block(ones.data(), block.data(), 2, MPI_INT, MPI_SUM, comm, &r[9]);
        MPI_Ibarrier(comm, &r[10]);
        double d = 0.5 * world;
        double dmax = 0;
        MPI_Iallreduce(&d, &dmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, &r[11]);
        MPI_Migrate();  // pending collectives move with their ranks
        MPI_Waitall(static_cast<int>(r.size()), r.data(), MPI_STATUSES_IGNORE);
        for (const MPI_Request q : r) EXPECT_EQ(q, MPI_REQUEST_NULL);
        // The blocking forms.
        int bsum = 0, bscan = 0, bexscan = -1;
        MPI_Allreduce(&value, &bsum, 1, MPI_INT, MPI_SUM, comm);
        MPI_Scan(&value, &bscan, 1, MPI_INT, MPI_SUM, comm);
        MPI_Exscan(&value, &bexscan, 1, MPI_INT, MPI_SUM, comm);
        EXPECT_EQ(sum, bsum);
        if (me == 1) {
          EXPECT_EQ(sum_root, 7 * (world % 2 + 4) + 1);
        }
        EXPECT_EQ(scan, bscan);
        if (me > 0) {
          EXPECT_EQ(exscan, bexscan);
        }
        EXPECT_EQ(token, 40 + world % 2);
        for (int i = 0; i < n; ++i) {
          EXPECT_EQ(gathered[static_cast<std::size_t>(i)], world % 2 + 2 * i);
          EXPECT_EQ(in[static_cast<std::size_t>(i)], 100 * i + me);
        }
        if (me == 2) {
          EXPECT_EQ(at_root, (std::vector<int>{0, 1, 2}));
        }
        EXPECT_EQ(part, 10 + me);
        const int group_sum = 3 * (world % 2) + 6;  // the group's world ranks
        EXPECT_EQ(block[0], group_sum);
        EXPECT_EQ(block[1], group_sum);
        EXPECT_EQ(dmax, 2.5);
        MPI_Comm_free(&comm);
        MPI_Finalize();
        ++ranks_done;
        return 0;
      },
      "rotate");
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 6);
}

// Rank 0 starts a broadcast from rank 3 and waits for a message from rank 3, which rank 3 sends
// only after completing the broadcast: with a tree whose inner ranks forward, rank 0 would have
// to forward while it waits. Started collectives never wait on such progress.
TEST(MpiNonblocking, CompletesWhateverTheRanksDoMeanwhile) {
  ranks_done = 0;
  const Outcome o = run_mpi(4, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int me = world_rank();
    std::vector<double> data(1000, me == 3 ? 2.5 : 0.0);
    MPI_Request bcast;
    MPI_Ibcast(data.data(), 1000, MPI_DOUBLE, 3, MPI_COMM_WORLD, &bcast);
    if (me == 0) {
      int ack = 0;
      MPI_Recv(&ack, 1, MPI_INT, 3, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      EXPECT_EQ(ack, 1);
    }
    MPI_Wait(&bcast, MPI_STATUS_IGNORE);
    EXPECT_EQ(data[999], 2.5);
    if (me == 3) {
      const int ack = 1;
      MPI_Send(&ack, 1, MPI_INT, 0, 9, MPI_COMM_WORLD);
    }
    // Test until done, mixed with a receive request.
    MPI_Request pair[2];
    int got = -1;
    MPI_Irecv(&got, 1, MPI_INT, (me + 3) % 4, 5, MPI_COMM_WORLD, &pair[0]);
    MPI_Ibarrier(MPI_COMM_WORLD, &pair[1]);
    MPI_Send(&me, 1, MPI_INT, (me + 1) % 4, 5, MPI_COMM_WORLD);
    int done = 0;
    while (done < 2) {
      int index = -1;
      int flag = 0;
      MPI_Testany(2, pair, &index, &flag, MPI_STATUS_IGNORE);
      if (flag != 0 && index != MPI_UNDEFINED) ++done;
    }
    EXPECT_EQ(got, (me + 3) % 4);
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 4);
}

// v-forms and a non-commutative operator (combined in rank order).
void digits(void* in, void* inout, int* len, MPI_Datatype*) {
  const long* a = static_cast<const long*>(in);
  long* b = static_cast<long*>(inout);
  for (int i = 0; i + 1 < *len; i += 2) {
    b[i] = a[i] * b[i + 1] + b[i];
    b[i + 1] = a[i + 1] * b[i + 1];
  }
}

TEST(MpiNonblocking, VectorFormsAndOrderedOperators) {
  ranks_done = 0;
  const Outcome o = run_mpi(4, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int me = world_rank();
    std::vector<int> mine(static_cast<std::size_t>(me + 1), me);
    const std::vector<int> counts{1, 2, 3, 4};
    const std::vector<int> displs{9, 7, 4, 0};  // the blocks backwards
    std::vector<int> all(10, -1);
    MPI_Request r[3];
    MPI_Iallgatherv(mine.data(), me + 1, MPI_INT, all.data(), counts.data(), displs.data(), MPI_INT,
                    MPI_COMM_WORLD, &r[0]);
    MPI_Op op;
    MPI_Op_create(&digits, 0, &op);
    const long value[2] = {me + 1, 10};
    long number[2] = {0, 0};
    MPI_Iallreduce(value, number, 2, MPI_LONG, op, MPI_COMM_WORLD, &r[1]);
    std::vector<int> back(static_cast<std::size_t>(me + 1), -1);
    const std::vector<int> source{0, 1, 1, 2, 2, 2, 3, 3, 3, 3};
    const std::vector<int> sdispls{0, 1, 3, 6};
    MPI_Iscatterv(source.data(), counts.data(), sdispls.data(), MPI_INT, back.data(), me + 1,
                  MPI_INT, 0, MPI_COMM_WORLD, &r[2]);
    MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
    for (int k = 0; k < 4; ++k) {
      for (int j = 0; j < k + 1; ++j)
        EXPECT_EQ(all[static_cast<std::size_t>(displs[static_cast<std::size_t>(k)] + j)], k);
    }
    EXPECT_EQ(number[0], 1234);
    EXPECT_EQ(back, mine);
    MPI_Op_free(&op);
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 4);
}

// MPI_IN_PLACE as the send buffer of the nonblocking all-to-alls: every block goes out from the
// receive buffer as the receive counts, displacements and types lay it out, and the rank's own
// block stays. Rank r's block for rank i holds 100 r + i (alltoallv: 1 + (r + i) % 3 of them,
// backwards in the buffer; alltoallw: every other int), ranks moving while the calls are pending.
TEST(MpiNonblocking, AllToAllsInPlace) {
  ranks_done = 0;
  const Outcome o = run_mpi(
      4,
      [](int argc, char** argv) {
        MPI_Init(&argc, &argv);
        const int me = world_rank();
        std::vector<int> plain(4);
        for (int i = 0; i < 4; ++i) plain[static_cast<std::size_t>(i)] = 100 * me + i;
        // alltoallv: 1 + (me + i) % 3 ints between this rank and rank i (the same both ways, as
        // MPI_IN_PLACE needs), the blocks backwards in the buffer.
        std::vector<int> counts(4), displs(4);
        int total = 0;
        for (int i = 0; i < 4; ++i) total += counts[static_cast<std::size_t>(i)] = 1 + (me + i) % 3;
        for (int i = 0, end = total; i < 4; ++i) {
          end -= counts[static_cast<std::size_t>(i)];
          displs[static_cast<std::size_t>(i)] = end;
        }
        std::vector<int> vee(static_cast<std::size_t>(total));
        for (int i = 0; i < 4; ++i) {
          for (int j = 0; j < counts[static_cast<std::size_t>(i)]; ++j)
            vee[static_cast<std::size_t>(displs[static_cast<std::size_t>(i)] + j)] = 100 * me + i;
        }
        MPI_Datatype every_other;
        MPI_Type_vector(2, 1, 2, MPI_INT, &every_other);
        MPI_Type_commit(&every_other);
        std::vector<int> w(16, -7);  // block i: ints 4i and 4i + 2
        for (int i = 0; i < 4; ++i) {
          w[static_cast<std::size_t>(4 * i)] = w[static_cast<std::size_t>(4 * i + 2)] =
              100 * me + i;
        }
        const std::vector<int> ones(4, 1);
        const std::vector<int> byte_displs{0, 16, 32, 48};
        const std::vector<MPI_Datatype> types(4, every_other);
        MPI_Request r[3];
        MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, plain.data(), 1, MPI_INT, MPI_COMM_WORLD,
                      &r[0]);
        MPI_Ialltoallv(MPI_IN_PLACE, nullptr, nullptr, MPI_DATATYPE_NULL, vee.data(), counts.data(),
                       displs.data(), MPI_INT, MPI_COMM_WORLD, &r[1]);
        MPI_Ialltoallw(MPI_IN_PLACE, nullptr, nullptr, nullptr, w.data(), ones.data(),
                       byte_displs.data(), types.data(), MPI_COMM_WORLD, &r[2]);
        MPI_Migrate();
        MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
        for (int i = 0; i < 4; ++i) {
          const int expected = 100 * i + me;  // rank i's block for this rank
          EXPECT_EQ(plain[static_cast<std::size_t>(i)], expected) << "alltoall from " << i;
          EXPECT_EQ(w[static_cast<std::size_t>(4 * i)], expected) << "alltoallw from " << i;
          EXPECT_EQ(w[static_cast<std::size_t>(4 * i + 2)], expected) << "alltoallw from " << i;
          EXPECT_EQ(w[static_cast<std::size_t>(4 * i + 1)], -7) << "alltoallw's gaps untouched";
        }
        for (int i = 0; i < 4; ++i) {
          for (int j = 0; j < counts[static_cast<std::size_t>(i)]; ++j) {
            const auto at = static_cast<std::size_t>(displs[static_cast<std::size_t>(i)] + j);
            EXPECT_EQ(vee[at], 100 * i + me) << "alltoallv at " << at;
          }
        }
        MPI_Type_free(&every_other);
        MPI_Finalize();
        ++ranks_done;
        return 0;
      },
      "rotate");
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 4);
}

// How many ranks of each group (A: world ranks 0 and 1, B: 2, 3 and 4) started the
// intercommunicator's nonblocking barrier.
std::atomic<int> barrier_started[2];

// Every nonblocking collective on an intercommunicator of groups A (world ranks 0, 1) and B (2, 3,
// 4), checked for what the standard prescribes: each group gets the other group's data or
// reduction (combined in its rank order: `digits` is not commutative); a rooted call names
// MPI_ROOT at its root, MPI_PROC_NULL in the rest of the root's group (untouched) and the root's
// rank in the other group. World rank 4 starts only once rank 0 has started everything and, all
// other ranks having started, seen its barrier and gather incomplete; rank 0 then waits for a
// message that rank 4 sends only after completing its calls, and every rank moves (MPI_Migrate,
// rotate) while they are pending.
int intercommunicator_collectives(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int me = world_rank();
  auto [in_a, half, inter, local, remote, first_remote] = mpi_test::two_groups();
  // Roots: A's rank 0 (world 0), B's rank 1 (world 3), B's rank 2 (world 4).
  const int a_root = in_a ? (local == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
  const int b_root = in_a ? 1 : (local == 1 ? MPI_ROOT : MPI_PROC_NULL);
  const int c_root = in_a ? 2 : (local == 2 ? MPI_ROOT : MPI_PROC_NULL);
  MPI_Op digits_op;
  MPI_Op_create(&digits, 0, &digits_op);
  MPI_Datatype every_other;
  MPI_Type_vector(2, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  if (me == 4) MPI_Recv(nullptr, 0, MPI_INT, 0, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  std::vector<MPI_Request> r(18, MPI_REQUEST_NULL);
  ++barrier_started[in_a ? 0 : 1];
  EXPECT_EQ(MPI_Ibarrier(inter, &r[0]), MPI_SUCCESS);
  // Broadcasts: from A's rank 0; from B's rank 1 into a strided type at A.
  std::vector<int> words(3, -1);
  if (a_root == MPI_ROOT) words = {5, 6, 7};
  EXPECT_EQ(MPI_Ibcast(words.data(), 3, MPI_INT, a_root, inter, &r[1]), MPI_SUCCESS);
  int spaced[3] = {31, 32, -1};
  if (in_a) spaced[0] = spaced[1] = -1;
  EXPECT_EQ(MPI_Ibcast(spaced, in_a ? 1 : 2, in_a ? every_other : MPI_INT, b_root, inter, &r[2]),
            MPI_SUCCESS);
  // Reductions of {world rank + 1, 10} under `digits`: the other group's ranks' digits in order.
  const long value[2] = {me + 1, 10};
  long at_b[2] = {-1, -1}, at_a[2] = {-1, -1}, each_digits[2] = {-1, -1};
  EXPECT_EQ(MPI_Ireduce(value, at_b, 2, MPI_LONG, digits_op, c_root, inter, &r[3]), MPI_SUCCESS);
  EXPECT_EQ(MPI_Ireduce(value, at_a, 2, MPI_LONG, digits_op, a_root, inter, &r[4]), MPI_SUCCESS);
  EXPECT_EQ(MPI_Iallreduce(value, each_digits, 2, MPI_LONG, digits_op, inter, &r[5]), MPI_SUCCESS);
  int sum = -1;
  EXPECT_EQ(MPI_Iallreduce(&me, &sum, 1, MPI_INT, MPI_SUM, inter, &r[6]), MPI_SUCCESS);
  // Reduce-scatter: vectors of 6 (A's recvcount 3, B's 2), 10 me + j; with counts, vectors of 3
  // (A's counts {1, 2}, B's {1, 1, 1}).
  std::vector<int> six, three;
  for (int j = 0; j < 6; ++j) six.push_back(10 * me + j);
  for (int j = 0; j < 3; ++j) three.push_back(10 * me + j);
  const int each = in_a ? 3 : 2;
  std::vector<int> blocks(3, -1), pieces(2, -1);
  EXPECT_EQ(
      MPI_Ireduce_scatter_block(six.data(), blocks.data(), each, MPI_INT, MPI_SUM, inter, &r[7]),
      MPI_SUCCESS);
  const std::vector<int> a_counts = {1, 2}, b_counts = {1, 1, 1};
  EXPECT_EQ(
      MPI_Ireduce_scatter(three.data(), pieces.data(), in_a ? a_counts.data() : b_counts.data(),
                          MPI_INT, MPI_SUM, inter, &r[8]),
      MPI_SUCCESS);
  // Gathers at A's rank 0 (B's rank i sends i + 1 copies of its world rank to the v-form, which
  // puts them backwards); scatters from B's rank 1.
  std::vector<int> gathered(3, -1), packed(6, -1);
  EXPECT_EQ(MPI_Igather(&me, 1, MPI_INT, gathered.data(), 1, MPI_INT, a_root, inter, &r[9]),
            MPI_SUCCESS);
  const int gcounts[3] = {1, 2, 3}, gdispls[3] = {5, 3, 0};
  const std::vector<int> mine(3, me);
  EXPECT_EQ(MPI_Igatherv(mine.data(), local + 1, MPI_INT, packed.data(), gcounts, gdispls, MPI_INT,
                         a_root, inter, &r[10]),
            MPI_SUCCESS);
  const int spread[2] = {10, 11};
  int one = -1;
  EXPECT_EQ(MPI_Iscatter(spread, 1, MPI_INT, &one, 1, MPI_INT, b_root, inter, &r[11]), MPI_SUCCESS);
  const int scounts[2] = {1, 2}, sdispls[2] = {2, 0};
  const int values[3] = {7, 8, 9};
  int two[2] = {-1, -1};
  EXPECT_EQ(MPI_Iscatterv(values, scounts, sdispls, MPI_INT, two, in_a ? local + 1 : 0, MPI_INT,
                          b_root, inter, &r[12]),
            MPI_SUCCESS);
  // All to all: world ranks; 100 * sender + receiver's rank; the same in reversed places (v, w).
  const auto m = static_cast<std::size_t>(remote);
  std::vector<int> worlds(m, -1), worlds_back(m, -1), got(m, -1), got_v(m, -1), got_w(m, -1);
  EXPECT_EQ(MPI_Iallgather(&me, 1, MPI_INT, worlds.data(), 1, MPI_INT, inter, &r[13]), MPI_SUCCESS);
  std::vector<int> ones(m, 1), reversed, out;
  for (int i = 0; i < remote; ++i) {
    reversed.push_back(remote - 1 - i);
    out.push_back(100 * me + i);
  }
  EXPECT_EQ(MPI_Iallgatherv(&me, 1, MPI_INT, worlds_back.data(), ones.data(), reversed.data(),
                            MPI_INT, inter, &r[14]),
            MPI_SUCCESS);
  EXPECT_EQ(MPI_Ialltoall(out.data(), 1, MPI_INT, got.data(), 1, MPI_INT, inter, &r[15]),
            MPI_SUCCESS);
  EXPECT_EQ(MPI_Ialltoallv(out.data(), ones.data(), reversed.data(), MPI_INT, got_v.data(),
                           ones.data(), reversed.data(), MPI_INT, inter, &r[16]),
            MPI_SUCCESS);
  std::vector<int> in_bytes, out_bytes;
  std::vector<MPI_Datatype> ints(m, MPI_INT);
  for (int i = 0; i < remote; ++i) {
    out_bytes.push_back(4 * i);
    in_bytes.push_back(4 * (remote - 1 - i));
  }
  EXPECT_EQ(MPI_Ialltoallw(out.data(), ones.data(), out_bytes.data(), ints.data(), got_w.data(),
                           ones.data(), in_bytes.data(), ints.data(), inter, &r[17]),
            MPI_SUCCESS);
  if (me != 0 && me != 4) MPI_Send(nullptr, 0, MPI_INT, 0, 13, MPI_COMM_WORLD);  // started
  if (me == 0) {
    // Every rank but world rank 4 has started: neither the barrier nor the gather can be complete.
    for (const int rank : {1, 2, 3})
      MPI_Recv(nullptr, 0, MPI_INT, rank, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int flag = -1;
    MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE);
    EXPECT_EQ(flag, 0);
    MPI_Test(&r[9], &flag, MPI_STATUS_IGNORE);
    EXPECT_EQ(flag, 0);
    MPI_Send(nullptr, 0, MPI_INT, 4, 11, MPI_COMM_WORLD);
  }
  MPI_Migrate();  // pending collectives move with their ranks
  if (me == 0) MPI_Recv(nullptr, 0, MPI_INT, 4, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  EXPECT_EQ(barrier_started[in_a ? 1 : 0].load(), remote);
  MPI_Waitall(static_cast<int>(r.size()), r.data(), MPI_STATUSES_IGNORE);
  if (me == 4) MPI_Send(nullptr, 0, MPI_INT, 0, 12, MPI_COMM_WORLD);
  // Broadcasts.
  EXPECT_EQ(words, (me == 1 ? std::vector<int>{-1, -1, -1} : std::vector<int>{5, 6, 7}));
  if (in_a) {
    EXPECT_EQ((std::vector<int>{spaced[0], spaced[1], spaced[2]}), (std::vector<int>{31, -1, 32}));
  }
  // Reductions: A's digits 1 2, B's 3 4 5.
  if (me == 4) {
    EXPECT_EQ(at_b[0], 12);
  }
  if (me == 0) {
    EXPECT_EQ(at_a[0], 345);
  }
  if (me == 1 || me == 2 || me == 3) {
    EXPECT_EQ(at_a[0], -1);
    EXPECT_EQ(at_b[0], -1);
  }
  EXPECT_EQ(each_digits[0], in_a ? 345 : 12);
  EXPECT_EQ(sum, in_a ? 2 + 3 + 4 : 0 + 1);
  // Element j of A's sum is 10 + 2j, of B's 90 + 3j; with counts, B's rank j gets A's element j,
  // A's rank 0 B's element 0 and A's rank 1 elements 1 and 2.
  for (int i = 0; i < each; ++i) {
    const int j = each * local + i;
    EXPECT_EQ(blocks[static_cast<std::size_t>(i)], in_a ? 90 + 3 * j : 10 + 2 * j) << i;
  }
  if (!in_a) {
    EXPECT_EQ(pieces[0], 10 + 2 * local);
  } else if (local == 0) {
    EXPECT_EQ(pieces[0], 90);
  } else {
    EXPECT_EQ(pieces, (std::vector<int>{93, 96}));
  }
  // Gathers and scatters.
  if (me == 0) {
    EXPECT_EQ(gathered, (std::vector<int>{2, 3, 4}));
    EXPECT_EQ(packed, (std::vector<int>{4, 4, 4, 3, 3, 2}));
  } else {
    EXPECT_EQ(gathered, (std::vector<int>{-1, -1, -1}));
  }
  if (in_a) {
    EXPECT_EQ(one, 10 + local);
    EXPECT_EQ(two[0], local == 0 ? 9 : 7);
    if (local == 1) {
      EXPECT_EQ(two[1], 8);
    }
  } else {
    EXPECT_EQ(one, -1);
  }
  // All to all.
  for (int i = 0; i < remote; ++i) {
    const auto at = static_cast<std::size_t>(i);
    const auto back = static_cast<std::size_t>(remote - 1 - i);
    EXPECT_EQ(worlds[at], first_remote + i);
    EXPECT_EQ(worlds_back[back], first_remote + i);
    EXPECT_EQ(got[at], 100 * (first_remote + i) + local);
    // From rank i of the other group: its block for this rank, which it put at remote' - 1 - me.
    const int sender_places = in_a ? 2 : 3;  // this group's size: the other group's remote size
    EXPECT_EQ(got_v[back], 100 * (first_remote + i) + (sender_places - 1 - local)) << i;
    EXPECT_EQ(got_w[back], 100 * (first_remote + i) + local) << i;
  }
  // Not defined on an intercommunicator, or not allowed there: refused by every rank alike (no
  // call started), so the next collective still matches.
  int x = -1;
  MPI_Request q = MPI_REQUEST_NULL;
  EXPECT_EQ(MPI_Iscan(&me, &x, 1, MPI_INT, MPI_SUM, inter, &q), MPI_ERR_COMM);
  EXPECT_EQ(MPI_Iexscan(&me, &x, 1, MPI_INT, MPI_SUM, inter, &q), MPI_ERR_COMM);
  EXPECT_EQ(MPI_Iallreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, inter, &q), MPI_ERR_BUFFER);
  EXPECT_EQ(MPI_Iallgather(MPI_IN_PLACE, 1, MPI_INT, worlds.data(), 1, MPI_INT, inter, &q),
            MPI_ERR_BUFFER);
  EXPECT_EQ(MPI_Ialltoall(MPI_IN_PLACE, 1, MPI_INT, got.data(), 1, MPI_INT, inter, &q),
            MPI_ERR_BUFFER);
  EXPECT_EQ(
      MPI_Ireduce_scatter_block(MPI_IN_PLACE, blocks.data(), each, MPI_INT, MPI_SUM, inter, &q),
      MPI_ERR_BUFFER);
  EXPECT_EQ(q, MPI_REQUEST_NULL);
  EXPECT_EQ(MPI_Iallreduce(&me, &x, 1, MPI_INT, MPI_MAX, inter, &q), MPI_SUCCESS);
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  EXPECT_EQ(x, in_a ? 4 : 1);
  MPI_Type_free(&every_other);
  MPI_Op_free(&digits_op);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  MPI_Finalize();
  ++ranks_done;
  return 0;
}

// The intercommunicator's nonblocking collectives with the ranks on one PE and on two, moving.
TEST(MpiNonblocking, IntercommunicatorCollectives) {
  for (const int pes : {1, 2}) {
    ranks_done = 0;
    barrier_started[0] = barrier_started[1] = 0;
    const Outcome o = run_mpi(5, &intercommunicator_collectives, "rotate",
                              [pes](vela::rt::Options& options) { options.pes = pes; });
    EXPECT_EQ(o.error, "") << pes << " PEs";
    EXPECT_EQ(ranks_done, 5) << pes << " PEs";
  }
}

std::atomic<int> grequests_freed{0};

int query_says_seven(void* extra, MPI_Status* status) {
  status->MPI_SOURCE = 7;
  status->MPI_TAG = *static_cast<int*>(extra);
  MPI_Status_set_elements(status, MPI_INT, 3);
  return MPI_SUCCESS;
}
int count_frees(void*) {
  ++grequests_freed;
  return MPI_SUCCESS;
}
int cancel_nothing(void*, int) {
  return MPI_SUCCESS;
}

// Generalized requests: incomplete until the program calls MPI_Grequest_complete, then
// completed by any wait or test with the status the query function gives; the free function
// runs once; they mix with other requests in MPI_Waitany.
TEST(MpiNonblocking, GeneralizedRequestsCompleteWhenTheProgramSaysSo) {
  ranks_done = 0;
  grequests_freed = 0;
  const Outcome o = run_mpi(1, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int tags[2] = {11, 12};
    MPI_Request r[2];
    MPI_Grequest_start(&query_says_seven, &count_frees, &cancel_nothing, &tags[0], &r[0]);
    MPI_Grequest_start(&query_says_seven, &count_frees, &cancel_nothing, &tags[1], &r[1]);
    int flag = -1;
    MPI_Status status;
    MPI_Test(&r[0], &flag, &status);
    EXPECT_EQ(flag, 0);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Request copy = r[0];
    EXPECT_EQ(MPI_Request_free(&copy), MPI_ERR_REQUEST);  // not complete yet
    MPI_Grequest_complete(r[1]);
    int index = -1;
    MPI_Waitany(2, r, &index, &status);
    EXPECT_EQ(index, 1);
    EXPECT_EQ(status.MPI_SOURCE, 7);
    EXPECT_EQ(status.MPI_TAG, 12);
    int count = 0;
    MPI_Get_count(&status, MPI_INT, &count);
    EXPECT_EQ(count, 3);
    EXPECT_EQ(r[1], MPI_REQUEST_NULL);
    EXPECT_EQ(grequests_freed, 1);
    MPI_Grequest_complete(r[0]);
    MPI_Wait(&r[0], &status);
    EXPECT_EQ(status.MPI_TAG, 11);
    EXPECT_EQ(grequests_freed, 2);
    EXPECT_EQ(MPI_Grequest_complete(MPI_REQUEST_NULL), MPI_ERR_REQUEST);
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 1);
}

}  // namespace

namespace {

// The value a message on `comm` from `from` with tag 0 carries: which communicator it was sent on.
int received_on(MPI_Comm comm, int from) {
  int v = -1;
  MPI_Recv(&v, 1, MPI_INT, from, 0, comm, MPI_STATUS_IGNORE);
  return v;
}

}  // namespace

// MPI_Comm_idup returns at once: a rank may go on to point-to-point calls that another member
// needs before it starts its own idup (a blocking duplicate would deadlock here), and to other
// new communicators, blocking and not, on other groups. Every communicator made so gets a
// context of its own on every rank: messages with the same source and tag on each arrive on
// that one. Attributes are copied; ranks move between PEs meanwhile (MPI_Migrate, rotate).
TEST(MpiNonblocking, CommIdupCompletesWhateverTheRanksDoMeanwhile) {
  ranks_done = 0;
  const Outcome o = run_mpi(
      4,
      [](int argc, char** argv) {
        MPI_Init(&argc, &argv);
        const int me = world_rank();
        int key = MPI_KEYVAL_INVALID;
        static int value = 42;
        MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &key, nullptr);
        MPI_Comm_set_attr(MPI_COMM_WORLD, key, &value);
        MPI_Comm a = MPI_COMM_NULL, b = MPI_COMM_NULL, c = MPI_COMM_NULL;
        MPI_Comm pair = MPI_COMM_NULL, pair_dup = MPI_COMM_NULL;
        MPI_Request requests[3];
        int token = 0;
        if (me == 0) {
          MPI_Comm_idup(MPI_COMM_WORLD, &a, &requests[0]);
          MPI_Send(&token, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
        } else if (me == 1) {
          MPI_Recv(&token, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          MPI_Comm_idup(MPI_COMM_WORLD, &a, &requests[0]);
        } else {
          MPI_Comm_idup(MPI_COMM_WORLD, &a, &requests[0]);
        }
        MPI_Migrate();
        // Pairs {0,1} and {2,3}: a blocking split and duplicate, then an idup of the pair and
        // a second one of the world, all while the first may still be under way.
        MPI_Comm_split(MPI_COMM_WORLD, me / 2, me, &pair);
        MPI_Comm_dup(pair, &pair_dup);
        MPI_Comm_idup(pair, &b, &requests[1]);
        MPI_Comm_idup(MPI_COMM_WORLD, &c, &requests[2]);
        MPI_Migrate();
        MPI_Waitall(3, requests, MPI_STATUSES_IGNORE);
        // From the same source and tag, one message on each communicator, sent in the other
        // order: each arrives on its own.
        const int partner = me ^ 1;
        const MPI_Comm comms[] = {MPI_COMM_WORLD, a, c, pair, pair_dup, b};
        const int source[] = {partner, partner, partner, partner % 2, partner % 2, partner % 2};
        for (int i = 5; i >= 0; --i) MPI_Send(&i, 1, MPI_INT, source[i], 0, comms[i]);
        for (int i = 0; i < 6; ++i) EXPECT_EQ(received_on(comms[i], source[i]), i) << i;
        int result = -1;
        MPI_Comm_compare(MPI_COMM_WORLD, a, &result);
        EXPECT_EQ(result, MPI_CONGRUENT);
        int* got = nullptr;
        int flag = 0;
        MPI_Comm_get_attr(a, key, &got, &flag);
        EXPECT_EQ(flag, 1);
        EXPECT_EQ(got, &value);
        for (MPI_Comm* made : {&a, &b, &c, &pair, &pair_dup}) MPI_Comm_free(made);
        MPI_Comm_free_keyval(&key);
        MPI_Finalize();
        ++ranks_done;
        return 0;
      },
      "rotate");
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 4);
}
