// Vela's extensions of MPI (AMPI's, vela/mpi.h), in process on 2 PEs: an explicit move honoured
// with and without a balancer, loads a rank states or keeps out of its measurement as the
// balancer sees them, the migration callbacks, the hints of MPI_Migrate_info, and where a rank
// runs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "run_mpi.hpp"
#include "vela/lb/io/io.hpp"

namespace {

using mpi_test::Outcome;
using mpi_test::run_mpi;
using mpi_test::world_rank;

std::atomic<int> ranks_done{0};
std::atomic<int> about_calls{0};
std::atomic<int> just_calls{0};

void about() {
  ++about_calls;
}
void just() {
  ++just_calls;
}

// The PE of every rank, gathered at rank 0 and compared there.
std::vector<int> pes_of_all() {
  int n = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  const int mine = MPI_My_pe();
  std::vector<int> all(static_cast<std::size_t>(n), -1);
  MPI_Allgather(&mine, 1, MPI_INT, all.data(), 1, MPI_INT, MPI_COMM_WORLD);
  return all;
}

void busy(double seconds) {
  const double until = MPI_Wtime() + seconds;
  volatile double x = 0;
  while (MPI_Wtime() < until) x = x + 1;
}

// Without a balancer, MPI_Migrate_to_pe moves the rank at the next MPI_Migrate; the callbacks run
// (about: at every point; just: only on the rank that moved).
TEST(MpiExtensions, MigrateToPeMovesTheRankWithoutABalancer) {
  ranks_done = 0;
  about_calls = 0;
  just_calls = 0;
  const Outcome o = run_mpi(4, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int me = world_rank();
    EXPECT_EQ(MPI_Num_pes(), 2);
    EXPECT_EQ(MPI_Num_nodes(), 1);
    EXPECT_EQ(MPI_My_node(), 0);
    MPI_Register_about_to_migrate(&about);
    MPI_Register_just_migrated(&just);
    const std::vector<int> before = pes_of_all();
    EXPECT_EQ(before, (std::vector<int>{0, 0, 1, 1}));  // the block map
    if (me == 0) {
      EXPECT_EQ(MPI_Migrate_to_pe(1), MPI_SUCCESS);
    }
    MPI_Migrate();
    EXPECT_EQ(pes_of_all(), (std::vector<int>{1, 0, 1, 1}));
    MPI_Migrate();  // nothing requested: nobody moves
    EXPECT_EQ(pes_of_all(), (std::vector<int>{1, 0, 1, 1}));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int error_class = -1;
    MPI_Error_class(MPI_Migrate_to_pe(2), &error_class);
    EXPECT_EQ(error_class, MPI_ERR_ARG);
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 4);
  EXPECT_EQ(about_calls, 8);  // 4 ranks, 2 points
  EXPECT_EQ(just_calls, 1);   // rank 0, once
}

// With a balancer that moves every rank ("rotate"), a requested PE wins: rank 2 asks to stay.
TEST(MpiExtensions, ARequestedPeWinsOverTheStrategy) {
  ranks_done = 0;
  const Outcome o = run_mpi(
      4,
      [](int argc, char** argv) {
        MPI_Init(&argc, &argv);
        const int me = world_rank();
        if (me == 2) MPI_Migrate_to_pe(1);  // where it is
        MPI_Migrate();
        EXPECT_EQ(pes_of_all(), (std::vector<int>{1, 1, 1, 0}));
        MPI_Finalize();
        ++ranks_done;
        return 0;
      },
      "rotate");
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 4);
}

// --vp-balance-every allreduce:3: a balancing point after every third MPI_Allreduce on
// MPI_COMM_WORLD, and nowhere else (not after one on a duplicate of it, nor after a barrier).
TEST(MpiExtensions, BalanceEveryKthAllreduceOnTheWorld) {
  ranks_done = 0;
  about_calls = 0;
  const Outcome o = run_mpi(
      4,
      [](int argc, char** argv) {
        MPI_Init(&argc, &argv);
        MPI_Register_about_to_migrate(&about);
        MPI_Comm dup = MPI_COMM_NULL;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        const std::vector<int> start = pes_of_all();  // an allgather: no point
        EXPECT_EQ(start, (std::vector<int>{0, 0, 1, 1}));
        int one = 1;
        int sum = 0;
        for (int i = 1; i <= 7; ++i) {
          MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
          EXPECT_EQ(sum, 4);
          MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, dup);
          MPI_Barrier(MPI_COMM_WORLD);
          // "rotate" moves every rank to the next PE at each point: after the 3rd and 6th.
          const bool moved_once = i >= 3 && i < 6;
          std::vector<int> expected = start;
          if (moved_once) expected = {1, 1, 0, 0};
          EXPECT_EQ(pes_of_all(), expected) << "after allreduce " << i;
        }
        MPI_Comm_free(&dup);
        MPI_Finalize();
        ++ranks_done;
        return 0;
      },
      "rotate", {},
      [](vela::vp::Options& options) {
        options.balance_at = vela::vp::BalanceAt::allreduce;
        options.balance_every = 3;
      });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 4);
  EXPECT_EQ(about_calls, 8);  // 4 ranks, 2 points
}

// Its values are checked, on the command line and from vp::Options.
TEST(MpiExtensions, BalanceEveryNamesItsBadValues) {
  for (const char* bad : {"allreduce:0", "bcast:3", "allreduce", "allreduce:x", ":4"}) {
    CLI::App app;
    vela::vp::Options options;
    vela::vp::add_vp_options(app, options);
    const std::vector<std::string> args{"--vp-balance-every", bad};
    try {
      app.parse(std::vector<std::string>(args.rbegin(), args.rend()));
      ADD_FAILURE() << bad << " was accepted";
    } catch (const CLI::ParseError& e) {
      EXPECT_THAT(e.what(), testing::HasSubstr(std::string("--vp-balance-every '") + bad + "'"));
      EXPECT_THAT(e.what(), testing::HasSubstr("expected CALL:K"));
    }
  }
  const Outcome o = run_mpi(
      2,
      [](int, char**) {
        ADD_FAILURE() << "the run started";
        return 0;
      },
      "", {},
      [](vela::vp::Options& options) {
        options.balance_at = vela::vp::BalanceAt::barrier;
        options.balance_every = 0;
      });
  EXPECT_THAT(o.error, testing::HasSubstr("--vp-balance-every: K 0: expected CALL:K"));
}

// The balancer sees a stated load in place of the measured one, and nothing of what a rank
// computes between MPI_Load_stop_measure and MPI_Load_start_measure (read back from --lb-dump).
TEST(MpiExtensions, StatedAndUnmeasuredLoadsAreWhatTheBalancerSees) {
  ranks_done = 0;
  const auto dir =
      std::filesystem::temp_directory_path() /
      ("vela_mpi_ext_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::remove_all(dir);
  const Outcome o = run_mpi(
      4,
      [](int argc, char** argv) {
        MPI_Init(&argc, &argv);
        const int me = world_rank();
        if (me == 0) {
          MPI_Load_stop_measure();
          busy(0.06);
          MPI_Load_start_measure();
        }
        if (me == 1) busy(0.06);
        if (me == 3) MPI_Load_set_value(7.5);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int error_class = -1;
        MPI_Error_class(MPI_Load_set_value(-1.0), &error_class);
        EXPECT_EQ(error_class, MPI_ERR_ARG);
        MPI_Migrate_info(MPI_INFO_LB_SYNC);
        MPI_Finalize();
        ++ranks_done;
        return 0;
      },
      "greedy", [&](vela::rt::Options& options) { options.lb_dump = dir.string(); });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 4);
  std::vector<std::filesystem::path> dumps;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) dumps.push_back(entry.path());
  ASSERT_EQ(dumps.size(), 1u);  // one balancing step
  const vela::lb::Instance instance = vela::lb::read_instance(dumps[0].string());
  ASSERT_EQ(instance.objects.size(), 4u);
  EXPECT_LT(instance.objects[0].load, 0.03);  // 60 ms computed, not measured
  EXPECT_GT(instance.objects[1].load, 0.05);  // 60 ms computed and measured
  EXPECT_DOUBLE_EQ(instance.objects[3].load, 7.5);
  std::filesystem::remove_all(dir);
}

// MPI_INFO_LB_ASYNC: the point hands the measurements to the balancing thread and the ranks go
// on where they are (rotate would move every rank, inline); the answer moves them at a later
// point, and every point after the first balances on the thread as well. MPI_INFO_LB_SYNC then
// balances inline; the hint "false" makes no balancing point.
std::atomic<int> first_move{-1};
std::atomic<int> moved_at_sync{0};

TEST(MpiExtensions, AnAsynchronousHintMovesTheRanksAtALaterPoint) {
  ranks_done = 0;
  first_move = -1;
  moved_at_sync = 0;
  const Outcome o = run_mpi(
      4,
      [](int argc, char** argv) {
        MPI_Init(&argc, &argv);
        const int me = world_rank();
        int pe = MPI_My_pe();
        // "false": no balancing point at all (rotate would move every rank).
        MPI_Info off;
        MPI_Info_create(&off);
        MPI_Info_set(off, "ampi_load_balance", "false");
        MPI_Migrate_info(off);
        MPI_Info_free(&off);
        if (MPI_My_pe() != pe) ++moved_at_sync;
        int first = -1;
        for (int point = 0; point < 1000000 && first < 0; ++point) {
          MPI_Migrate_info(MPI_INFO_LB_ASYNC);
          if (MPI_My_pe() != pe) first = point;
          // Whether any rank moved: every rank leaves the loop at the same point.
          int moved = first >= 0 ? 1 : 0;
          int any = 0;
          MPI_Allreduce(&moved, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
          if (any != 0 && first < 0) first = point;
        }
        if (me == 0) first_move = first;
        pe = MPI_My_pe();
        MPI_Migrate_info(MPI_INFO_LB_SYNC);
        if (MPI_My_pe() != pe) ++moved_at_sync;
        MPI_Finalize();
        ++ranks_done;
        return 0;
      },
      // At the PEs' priority: the idle class could wait without bound on a busy machine.
      "rotate", [](vela::rt::Options& options) { options.lb_async_nice = 0; });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 4);
  EXPECT_GE(first_move.load(), 1);  // never at the point that handed the step over
  EXPECT_EQ(moved_at_sync.load(), 4);
}

}  // namespace
