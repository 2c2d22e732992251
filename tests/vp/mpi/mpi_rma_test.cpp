// One-sided communication through vela/mpi.h (MPI 3.1 chapter 11), in process on 2 PEs: the
// results the standard defines for each operation and each kind of epoch, derived datatypes at
// both ends, exclusive locks that serialize, a target that computes while others reach its
// memory, windows that keep working while the balancer moves every rank, and the error classes
// of bad use.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "run_mpi.hpp"

namespace {

using mpi_test::Outcome;
using mpi_test::run_mpi;
using mpi_test::world_rank;
using ::testing::HasSubstr;

std::atomic<int> ranks_done{0};

int world_size() {
  int n = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

// Put, get, accumulate and get-accumulate between fences, with a migration of every rank
// between the epochs: each result as the standard defines it.
TEST(MpiRma, FenceEpochsGiveTheStandardsResultsWhileRanksMove) {
  ranks_done = 0;
  const Outcome o = run_mpi(
      5,
      [](int argc, char** argv) {
        MPI_Init(&argc, &argv);
        const int me = world_rank();
        const int n = world_size();
        const int right = (me + 1) % n;
        const int left = (me + n - 1) % n;
        int* memory = nullptr;
        MPI_Win win;
        EXPECT_EQ(MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                                   &memory, &win),
                  MPI_SUCCESS);
        for (int i = 0; i < 16; ++i) memory[i] = -1;
        for (int step = 0; step < 3; ++step) {
          MPI_Win_fence(0, win);
          const int values[4] = {me, me + 10 * step, 7, 8};
          MPI_Put(values, 4, MPI_INT, right, 0, 4, MPI_INT, win);
          memory[8] = 0;
          MPI_Win_fence(0, win);
          EXPECT_EQ(memory[0], left);
          EXPECT_EQ(memory[1], left + 10 * step);
          int got[4] = {0, 0, 0, 0};
          MPI_Get(got, 4, MPI_INT, left, 0, 4, MPI_INT, win);
          const int one = me + 1;
          for (int t = 0; t < n; ++t)
            MPI_Accumulate(&one, 1, MPI_INT, t, 8, 1, MPI_INT, MPI_SUM, win);
          MPI_Win_fence(0, win);
          // What the left neighbour holds: what its own left neighbour put.
          EXPECT_EQ(got[0], (left + n - 1) % n);
          EXPECT_EQ(memory[8], n * (n + 1) / 2);
          // Get-accumulate returns the value before the operation; fetch-and-op with MPI_MAX.
          int before = -5;
          const int mine = 100 + me;
          MPI_Get_accumulate(&mine, 1, MPI_INT, &before, 1, MPI_INT, right, 9, 1, MPI_INT,
                             MPI_REPLACE, win);
          MPI_Win_fence(0, win);
          EXPECT_EQ(before, step == 0 ? -1 : 100 + me);
          EXPECT_EQ(memory[9], 100 + left);
          MPI_Migrate();  // "rotate": every rank moves, its window's memory with it
        }
        MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
        EXPECT_EQ(MPI_Win_free(&win), MPI_SUCCESS);
        EXPECT_EQ(win, MPI_WIN_NULL);
        MPI_Finalize();
        ++ranks_done;
        return 0;
      },
      "rotate");
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 5);
}

// Accumulates on {value, index} pairs: every rank offers its value with its rank as index, and
// the target keeps the largest (MPI_MAXLOC; the lowest index on a tie) or the smallest; a
// derived datatype of pairs is refused with the standard's class and what to do instead.
TEST(MpiRma, MaxlocAndMinlocOnValueIndexPairs) {
  ranks_done = 0;
  const Outcome o = run_mpi(4, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const int me = world_rank();
    struct DoubleInt {
      double value;
      int index;
    };
    struct IntInt {
      int value;
      int index;
    };
    DoubleInt* memory = nullptr;
    MPI_Win win;
    MPI_Win_allocate(4 * sizeof(DoubleInt), sizeof(DoubleInt), MPI_INFO_NULL, MPI_COMM_WORLD,
                     &memory, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);  // windows have their own
    memory[0] = {-1e300, -1};
    memory[1] = {1e300, -1};
    memory[2] = {-1e300, -1};
    IntInt* ints = nullptr;
    MPI_Win int_win;
    MPI_Win_allocate(sizeof(IntInt), sizeof(IntInt), MPI_INFO_NULL, MPI_COMM_WORLD, &ints,
                     &int_win);
    ints[0] = {1 << 30, -1};
    MPI_Win_fence(0, win);
    MPI_Win_fence(0, int_win);
    // Values 3, 7, 7, 1 for ranks 0..3: the largest is 7 at ranks 1 and 2 (1 kept).
    const double values[4] = {3.0, 7.0, 7.0, 1.0};
    const DoubleInt mine = {values[me], me};
    EXPECT_EQ(MPI_Accumulate(&mine, 1, MPI_DOUBLE_INT, 0, 0, 1, MPI_DOUBLE_INT, MPI_MAXLOC, win),
              MPI_SUCCESS);
    EXPECT_EQ(MPI_Accumulate(&mine, 1, MPI_DOUBLE_INT, 0, 1, 1, MPI_DOUBLE_INT, MPI_MINLOC, win),
              MPI_SUCCESS);
    DoubleInt before = {0.0, -7};
    EXPECT_EQ(MPI_Get_accumulate(&mine, 1, MPI_DOUBLE_INT, &before, 1, MPI_DOUBLE_INT, 3, 2, 1,
                                 MPI_DOUBLE_INT, MPI_MAXLOC, win),
              MPI_SUCCESS);
    const IntInt pair = {-static_cast<int>(values[me]), me};
    EXPECT_EQ(MPI_Accumulate(&pair, 1, MPI_2INT, 1, 0, 1, MPI_2INT, MPI_MINLOC, int_win),
              MPI_SUCCESS);
    // A derived datatype of pairs: refused, naming what to use.
    MPI_Datatype two;
    MPI_Type_contiguous(2, MPI_DOUBLE_INT, &two);
    MPI_Type_commit(&two);
    EXPECT_EQ(MPI_Accumulate(&mine, 1, two, 0, 0, 1, two, MPI_MAXLOC, win), MPI_ERR_TYPE);
    MPI_Type_free(&two);
    MPI_Win_fence(0, win);
    MPI_Win_fence(0, int_win);
    if (me == 0) {
      EXPECT_EQ(memory[0].value, 7.0);
      EXPECT_EQ(memory[0].index, 1);
      EXPECT_EQ(memory[1].value, 1.0);
      EXPECT_EQ(memory[1].index, 3);
    }
    if (me == 1) {
      EXPECT_EQ(ints[0].value, -7);
      EXPECT_EQ(ints[0].index, 1);
    }
    if (me == 3) {
      EXPECT_EQ(memory[2].value, 7.0);
      EXPECT_EQ(memory[2].index, 1);
    }
    // Each fetch saw the value before its own operation: a value offered or the start.
    EXPECT_TRUE(before.index == -1 || (before.index >= 0 && before.index < 4)) << before.index;
    MPI_Win_free(&win);
    MPI_Win_free(&int_win);
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 4);
}

// A derived target datatype (every other element, and a resized struct at the origin): the
// runs land where the type map says, nothing between them is touched.
TEST(MpiRma, DerivedDatatypesAtBothEnds) {
  ranks_done = 0;
  const Outcome o = run_mpi(2, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int me = world_rank();
    double window[12];
    for (int i = 0; i < 12; ++i) window[i] = -1;
    MPI_Win win;
    MPI_Win_create(window, sizeof window, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Datatype every_other;
    MPI_Type_vector(4, 1, 2, MPI_DOUBLE, &every_other);
    MPI_Type_commit(&every_other);
    MPI_Win_fence(0, win);
    if (me == 0) {
      const double values[4] = {1.5, 2.5, 3.5, 4.5};
      MPI_Put(values, 4, MPI_DOUBLE, 1, 2, 1, every_other, win);
    }
    MPI_Win_fence(0, win);
    if (me == 0) {
      const double adds[4] = {10, 20, 30, 40};
      MPI_Accumulate(adds, 4, MPI_DOUBLE, 1, 2, 1, every_other, MPI_SUM, win);
    }
    MPI_Win_fence(0, win);
    if (me == 1) {
      const std::vector<double> seen(window, window + 12);
      EXPECT_EQ(seen,
                (std::vector<double>{-1, -1, 11.5, -1, 22.5, -1, 33.5, -1, 44.5, -1, -1, -1}));
    }
    // A get into a strided origin buffer, unpacked by the next synchronization.
    double spread[8];
    for (double& d : spread) d = 0;
    if (me == 0) MPI_Get(spread, 1, every_other, 1, 2, 4, MPI_DOUBLE, win);
    // The window's disp_unit scales displacements; data outside the runs stays.
    MPI_Win_fence(0, win);
    if (me == 0) {
      const std::vector<double> seen(spread, spread + 8);
      EXPECT_EQ(seen, (std::vector<double>{11.5, 0, -1, 0, 22.5, 0, -1, 0}));
    }
    MPI_Type_free(&every_other);
    MPI_Win_free(&win);
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 2);
}

// Exclusive locks serialize a read-modify-write at rank 0 (no update is lost) while rank 0
// itself computes and waits elsewhere: its memory is reached without it calling MPI_Win_*.
TEST(MpiRma, ExclusiveLocksSerializeAndTheTargetNeedNotCallMpi) {
  ranks_done = 0;
  const Outcome o = run_mpi(6, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int me = world_rank();
    const int n = world_size();
    long counter[2] = {0, 0};
    MPI_Win win;
    MPI_Win_create(counter, sizeof counter, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    constexpr int rounds = 20;
    if (me != 0) {
      for (int k = 0; k < rounds; ++k) {
        long value = 0;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Get(&value, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win);
        MPI_Win_flush(0, win);
        MPI_Yield();  // others try to get in meanwhile: the lock keeps them out
        ++value;
        MPI_Put(&value, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win);
        MPI_Win_unlock(0, win);
        long previous = -1;
        const long one = 1;
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Fetch_and_op(&one, &previous, MPI_LONG, 0, 1, MPI_SUM, win);
        MPI_Win_unlock(0, win);
        EXPECT_GE(previous, 0);
      }
      const int done = 1;
      MPI_Send(&done, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
    } else {
      // Rank 0 only receives: the operations on its window are served meanwhile.
      for (int r = 1; r < n; ++r) {
        int done = 0;
        MPI_Recv(&done, 1, MPI_INT, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
      EXPECT_EQ(counter[0], static_cast<long>(rounds) * (n - 1));
      EXPECT_EQ(counter[1], static_cast<long>(rounds) * (n - 1));
    }
    // Compare-and-swap: exactly one rank wins.
    MPI_Barrier(MPI_COMM_WORLD);
    long expected = 0;
    if (me == 0) counter[0] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    long mine = me + 1;
    long found = -1;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Compare_and_swap(&mine, &expected, &found, MPI_LONG, 0, 0, win);
    MPI_Win_unlock(0, win);
    int won = found == 0 ? 1 : 0;
    int winners = 0;
    MPI_Allreduce(&won, &winners, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    EXPECT_EQ(winners, 1);
    MPI_Win_free(&win);
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 6);
}

// Post-start-complete-wait on a subset, MPI_Win_test polling, requests (MPI_Rput, MPI_Rget,
// MPI_Raccumulate) in MPI_Waitall, a dynamic window, and a shared one read by plain loads.
TEST(MpiRma, GeneralActiveTargetRequestsDynamicAndSharedWindows) {
  ranks_done = 0;
  const Outcome o = run_mpi(4, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int me = world_rank();
    int slot[2] = {-1, -1};
    MPI_Win win;
    MPI_Win_create(slot, sizeof slot, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Group world_group, partner;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    const int other = me ^ 1;  // pairs {0,1}, {2,3}
    MPI_Group_incl(world_group, 1, &other, &partner);
    MPI_Win_post(partner, 0, win);
    MPI_Win_start(partner, 0, win);
    const int value = 50 + me;
    MPI_Request r[3];
    MPI_Rput(&value, 1, MPI_INT, other, 0, 1, MPI_INT, win, &r[0]);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    MPI_Win_complete(win);
    int flag = 0;
    while (flag == 0) MPI_Win_test(win, &flag);
    EXPECT_EQ(slot[0], 50 + other);
    // Requests under a passive epoch on a dynamic window.
    std::vector<long> attached(4, 10 * me);
    MPI_Win dynamic;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dynamic);
    MPI_Win_attach(dynamic, attached.data(), 4 * sizeof(long));
    MPI_Aint address = 0;
    MPI_Get_address(attached.data(), &address);
    std::vector<MPI_Aint> addresses(4);
    MPI_Allgather(&address, 1, MPI_AINT, addresses.data(), 1, MPI_AINT, MPI_COMM_WORLD);
    MPI_Win_lock_all(0, dynamic);
    long got[4] = {0, 0, 0, 0};
    const long add = 1;
    MPI_Rget(got, 4, MPI_LONG, other, addresses[static_cast<std::size_t>(other)], 4, MPI_LONG,
             dynamic, &r[1]);
    MPI_Raccumulate(&add, 1, MPI_LONG, 0, addresses[0] + 3 * static_cast<MPI_Aint>(sizeof(long)), 1,
                    MPI_LONG, MPI_SUM, dynamic, &r[2]);
    MPI_Waitall(2, &r[1], MPI_STATUSES_IGNORE);
    EXPECT_EQ(got[0], 10 * other);
    MPI_Win_unlock_all(dynamic);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
      EXPECT_EQ(attached[3], 4);
    }
    MPI_Win_detach(dynamic, attached.data());
    MPI_Win_free(&dynamic);
    // A shared window: member 0's part first, each part reachable by plain loads and stores.
    MPI_Win shared;
    int* part = nullptr;
    MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &part,
                            &shared);
    *part = 1000 + me;
    MPI_Win_sync(shared);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Aint size = 0;
    int unit = 0;
    int* base = nullptr;
    MPI_Win_shared_query(shared, (me + 1) % 4, &size, &unit, &base);
    EXPECT_EQ(*base, 1000 + (me + 1) % 4);
    EXPECT_EQ(size, static_cast<MPI_Aint>(sizeof(int)));
    EXPECT_EQ(unit, static_cast<int>(sizeof(int)));
    int* flavor = nullptr;
    MPI_Win_get_attr(shared, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
    EXPECT_EQ(flag, 1);
    EXPECT_EQ(*flavor, MPI_WIN_FLAVOR_SHARED);
    void* attr_base = nullptr;
    MPI_Win_get_attr(shared, MPI_WIN_BASE, &attr_base, &flag);
    EXPECT_EQ(attr_base, part);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&shared);
    MPI_Group_free(&partner);
    MPI_Group_free(&world_group);
    MPI_Win_free(&win);
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 4);
}

std::atomic<int> errors_seen{0};

// A window error handler: counts the MPI_ERR_RMA_RANGE errors it is called with on a window.
void count_range_errors(MPI_Win* w, int* code, ...) {
  if (w != nullptr && *w != MPI_WIN_NULL && *code == MPI_ERR_RMA_RANGE) ++errors_seen;
}

// Bad use gets the class the standard names under MPI_ERRORS_RETURN, the window's own handler
// is called with the window, and under MPI_ERRORS_ARE_FATAL the message names the call.
TEST(MpiRma, BadUseGetsTheStandardsErrorClasses) {
  ranks_done = 0;
  errors_seen = 0;
  const Outcome o = run_mpi(2, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int me = world_rank();
    int memory[4] = {0, 0, 0, 0};
    MPI_Win win;
    MPI_Win_create(memory, sizeof memory, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    const int v = 1;
    int error_class = -1;
    MPI_Error_class(MPI_Put(&v, 1, MPI_INT, 1 - me, 0, 1, MPI_INT, win), &error_class);
    EXPECT_EQ(error_class, MPI_ERR_RMA_SYNC);  // no epoch yet
    MPI_Win_fence(0, win);
    MPI_Error_class(MPI_Put(&v, 1, MPI_INT, 1 - me, 4, 1, MPI_INT, win), &error_class);
    EXPECT_EQ(error_class, MPI_ERR_RMA_RANGE);  // past the 4 ints
    MPI_Error_class(MPI_Put(&v, 1, MPI_INT, 2, 0, 1, MPI_INT, win), &error_class);
    EXPECT_EQ(error_class, MPI_ERR_RANK);
    MPI_Error_class(MPI_Accumulate(&v, 1, MPI_INT, 1 - me, 0, 1, MPI_INT, MPI_NO_OP, win),
                    &error_class);
    EXPECT_EQ(error_class, MPI_ERR_OP);  // MPI_NO_OP is for the fetching forms
    const double d = 1;
    MPI_Error_class(MPI_Accumulate(&d, 1, MPI_DOUBLE, 1 - me, 0, 1, MPI_INT, MPI_SUM, win),
                    &error_class);
    EXPECT_EQ(error_class, MPI_ERR_TYPE);  // elements differ
    MPI_Error_class(MPI_Put(&v, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win), &error_class);
    EXPECT_EQ(error_class, MPI_SUCCESS);  // a no-op
    MPI_Win_fence(0, win);
    MPI_Error_class(MPI_Win_lock(99, 0, 0, win), &error_class);
    EXPECT_EQ(error_class, MPI_ERR_LOCKTYPE);
    MPI_Error_class(MPI_Win_unlock(0, win), &error_class);
    EXPECT_EQ(error_class, MPI_ERR_RMA_SYNC);
    MPI_Error_class(MPI_Win_shared_query(win, 0, nullptr, nullptr, nullptr), &error_class);
    EXPECT_EQ(error_class, MPI_ERR_RMA_FLAVOR);
    // The window's own handler gets the window and the class.
    MPI_Errhandler handler;
    MPI_Win_create_errhandler(&count_range_errors, &handler);
    MPI_Win_set_errhandler(win, handler);
    MPI_Win_lock(MPI_LOCK_SHARED, 1 - me, 0, win);
    MPI_Get(memory, 1, MPI_INT, 1 - me, -1, 1, MPI_INT, win);
    MPI_Win_unlock(1 - me, win);
    MPI_Errhandler_free(&handler);
    char name[MPI_MAX_OBJECT_NAME];
    int length = 0;
    MPI_Win_set_name(win, "halo window");
    MPI_Win_get_name(win, name, &length);
    EXPECT_EQ(std::string(name, static_cast<std::size_t>(length)), "halo window");
    MPI_Win_free(&win);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);  // a freed window: world's
    MPI_Error_class(MPI_Win_fence(0, win), &error_class);
    EXPECT_EQ(error_class, MPI_ERR_WIN);
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 2);
  EXPECT_EQ(errors_seen, 2);
}

TEST(MpiRma, UnderErrorsAreFatalTheMessageNamesTheCall) {
  const Outcome o = run_mpi(2, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int memory = 0;
    MPI_Win win;
    MPI_Win_create(&memory, sizeof memory, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    const int v = 1;
    MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);  // no epoch open
    MPI_Finalize();
    return 0;
  });
  EXPECT_THAT(o.error, HasSubstr("MPI_Put: no access epoch to target 0"));
}

std::atomic<int> attributes_deleted{0};

int count_deletes(MPI_Win win, int, void* value, void*) {
  if (win != MPI_WIN_NULL && value != nullptr) ++attributes_deleted;
  return MPI_SUCCESS;
}

// The program's attributes on a window: set, read, replaced and deleted (its delete function
// runs each time a value goes, MPI_Win_free included); predefined keys are read-only.
TEST(MpiRma, WindowAttributesRunTheirDeleteFunctions) {
  attributes_deleted = 0;
  const Outcome o = run_mpi(1, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int memory = 0;
    MPI_Win win;
    MPI_Win_create(&memory, sizeof memory, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    int key = MPI_KEYVAL_INVALID;
    MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, &count_deletes, &key, nullptr);
    int a = 1;
    int b = 2;
    MPI_Win_set_attr(win, key, &a);
    int* got = nullptr;
    int flag = 0;
    MPI_Win_get_attr(win, key, &got, &flag);
    EXPECT_EQ(flag, 1);
    EXPECT_EQ(got, &a);
    MPI_Win_set_attr(win, key, &b);  // replaces: a's value deleted
    EXPECT_EQ(attributes_deleted, 1);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    EXPECT_EQ(MPI_Win_set_attr(win, MPI_WIN_SIZE, &a), MPI_ERR_KEYVAL);
    MPI_Win_free_keyval(&key);  // the attribute keeps its key until the window goes
    EXPECT_EQ(key, MPI_KEYVAL_INVALID);
    MPI_Win_free(&win);
    EXPECT_EQ(attributes_deleted, 2);
    MPI_Finalize();
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(attributes_deleted, 2);
}

}  // namespace
