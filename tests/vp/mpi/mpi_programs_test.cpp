// Plain MPI programs (tests/vp/mpi/programs) built twice from the same source, against Vela's MPI
// subset and against Open MPI, run and compared; and what the process of an MPI program on
// Vela does with its arguments, exit status and errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "support/program.hpp"

namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using vela::testing::ProgramResult;
using vela::testing::run_program;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> lines_starting(const std::string& text, const std::string& prefix) {
  std::vector<std::string> found;
  for (const std::string& line : lines_of(text)) {
    if (line.rfind(prefix, 0) == 0) found.push_back(line);
  }
  return found;
}

// The number after `prefix` on the first line that starts with it; NaN when there is none.
double number_after(const std::string& text, const std::string& prefix) {
  const std::vector<std::string> found = lines_starting(text, prefix);
  if (found.empty()) return std::nan("");
  return std::strtod(found[0].c_str() + prefix.size(), nullptr);
}

// Open MPI's mpirun on one host, offline, in a container, possibly as root. In a sanitizer
// build, LeakSanitizer would report Open MPI's own allocations left at exit as leaks.
std::string mpirun(int processes, const std::string& program, const std::string& args = "",
                   const std::string& env = "") {
  return "env " + env +
         " OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm=isolated "
         "OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none "

         "ASAN_OPTIONS=detect_leaks=0 " +
         std::string(VELA_MPIEXEC) + " --oversubscribe -np " + std::to_string(processes) + " " +
         program + " " + args;
}

// Runs `program` under Open MPI, or says why mpirun cannot run here (then the test skips).
ProgramResult run_openmpi(int processes, const std::string& program, const std::string& args,
                          std::string& cannot, const std::string& env = "") {
  const ProgramResult probe = run_program(mpirun(1, RING_OPENMPI, "1"), "");
  if (probe.status != 0 || probe.out.find("final token") == std::string::npos) {
    cannot = "mpirun cannot run a one-process job here (status " + std::to_string(probe.status) +
             "): " + probe.out;
    return {};
  }
  return run_program(mpirun(processes, program, args, env), "");
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

TEST(MpiPrograms, CpiMatchesOpenMpi) {
  const ProgramResult vela4 = run_program(CPI_VELA, "--vp 4 --pes 2 200000");
  ASSERT_EQ(vela4.status, 0) << vela4.out;
  const ProgramResult vela7 = run_program(CPI_VELA, "--vp 7 --pes 2 200000");
  ASSERT_EQ(vela7.status, 0) << vela7.out;
  EXPECT_EQ(lines_starting(vela7.out, "Process ").size(), 7u) << vela7.out;

  std::string cannot;
  const ProgramResult open = run_openmpi(4, CPI_OPENMPI, "200000", cannot);
  if (!cannot.empty()) GTEST_SKIP() << cannot;
  ASSERT_EQ(open.status, 0) << open.out;

  // Ranks print their line in any order; rank, size and host agree.
  EXPECT_EQ(sorted(lines_starting(vela4.out, "Process ")),
            sorted(lines_starting(open.out, "Process ")));
  EXPECT_EQ(lines_starting(vela4.out, "intervals: "), lines_starting(open.out, "intervals: "));
  // The partial sums are the same but MPI_Reduce may add them in another order (Open MPI's tree
  // is not Vela's rank-order tree), and 7 ranks split the sum differently: the results agree to
  // rounding (~1e-15), not to the last bit.
  const double pi_vela4 = number_after(vela4.out, "pi is approximately ");
  const double pi_vela7 = number_after(vela7.out, "pi is approximately ");
  const double pi_open = number_after(open.out, "pi is approximately ");
  EXPECT_NEAR(pi_vela4, pi_open, 1e-12) << vela4.out << open.out;
  EXPECT_NEAR(pi_vela7, pi_open, 1e-12) << vela7.out << open.out;
  EXPECT_NEAR(pi_open, 3.14159265358979, 1e-10);
}

TEST(MpiPrograms, RingMatchesOpenMpi) {
  const ProgramResult vela = run_program(RING_VELA, "--vp 4 --pes 2 5");
  ASSERT_EQ(vela.status, 0) << vela.out;
  const ProgramResult vela7 = run_program(RING_VELA, "--vp 7 --pes 2 5");
  ASSERT_EQ(vela7.status, 0) << vela7.out;
  EXPECT_THAT(vela7.out, HasSubstr("ring of 7 ranks: final token 15105"));

  std::string cannot;
  const ProgramResult open = run_openmpi(4, RING_OPENMPI, "5", cannot);
  if (!cannot.empty()) GTEST_SKIP() << cannot;
  ASSERT_EQ(open.status, 0) << open.out;
  // Only rank 0 prints, integers: the outputs are the same to the byte.
  EXPECT_EQ(vela.out, open.out);
  EXPECT_THAT(vela.out, HasSubstr("ring of 4 ranks: final token 15030"));
}

TEST(MpiPrograms, HaloExchangeMatchesOpenMpi) {
  const ProgramResult vela = run_program(HALO_VELA, "--vp 4 --pes 2");
  ASSERT_EQ(vela.status, 0) << vela.out;
  const ProgramResult vela7 = run_program(HALO_VELA, "--vp 7 --pes 2");
  ASSERT_EQ(vela7.status, 0) << vela7.out;

  std::string cannot;
  const ProgramResult open = run_openmpi(4, HALO_OPENMPI, "", cannot);
  if (!cannot.empty()) GTEST_SKIP() << cannot;
  ASSERT_EQ(open.status, 0) << open.out;
  // MPI_MAX is exact whatever the order: the residual lines are equal to the byte.
  EXPECT_EQ(lines_starting(vela.out, "step "), lines_starting(open.out, "step "));
  EXPECT_EQ(lines_starting(vela.out, "step ").size(), 4u);
  // The heat is a sum (MPI_Reduce): equal to rounding.
  EXPECT_NEAR(number_after(vela.out, "heat in the rod: "),
              number_after(open.out, "heat in the rod: "), 1e-12);
  // 7 ranks make a longer rod (64 cells each): a different problem, which must still run.
  EXPECT_EQ(lines_starting(vela7.out, "step ").size(), 4u);
}

// Communicators split, duplicated and used while the balancer moves every rank at each step:
// in one process, and across two under mpirun (the ranks and their communicators move between
// processes), the same result as Open MPI's.
TEST(MpiPrograms, CommunicatorsMoveWithTheirRanksAndMatchOpenMpi) {
  const ProgramResult one = run_program(COMMS_VELA, "--vp 12 --pes 2 --lb rotate");
  ASSERT_EQ(one.status, 0) << one.out;
  std::string cannot;
  const ProgramResult open = run_openmpi(12, COMMS_OPENMPI, "", cannot);
  if (!cannot.empty()) GTEST_SKIP() << cannot;
  ASSERT_EQ(open.status, 0) << open.out;
  EXPECT_EQ(lines_starting(one.out, "12 ranks: check "),
            lines_starting(open.out, "12 ranks: check "));
  EXPECT_EQ(lines_starting(one.out, "12 ranks: check ").size(), 1u);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return;  // across processes a rank's heap must move with it (MpiAcrossProcesses, below)
#endif
  const ProgramResult two =
      run_program(mpirun(2, COMMS_VELA, "--vp 12 --pes-per-process 1 --lb rotate"), "");
  ASSERT_EQ(two.status, 0) << two.out;
  EXPECT_EQ(lines_starting(two.out, "12 ranks: check "),
            lines_starting(open.out, "12 ranks: check "));
}

// Windows, their three kinds of epochs and their requests while the balancer moves every rank at
// each step: in one process, and across two under mpirun (the windows' memory moves with its
// ranks), the same result as Open MPI's.
TEST(MpiPrograms, OneSidedWindowsMoveWithTheirRanksAndMatchOpenMpi) {
  const ProgramResult one = run_program(RMA_VELA, "--vp 8 --pes 2 --lb rotate");
  ASSERT_EQ(one.status, 0) << one.out;
  std::string cannot;
  // Open MPI's windows over these transports: its rdma component needs a single-copy mechanism.
  const ProgramResult open = run_openmpi(8, RMA_OPENMPI, "", cannot, "OMPI_MCA_osc=pt2pt");
  if (!cannot.empty()) GTEST_SKIP() << cannot;
  ASSERT_EQ(open.status, 0) << open.out;
  EXPECT_EQ(lines_starting(one.out, "8 ranks: check "),
            lines_starting(open.out, "8 ranks: check "));
  EXPECT_EQ(lines_starting(one.out, "8 ranks: check ").size(), 1u) << one.out;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return;  // across processes a rank's heap must move with it (MpiAcrossProcesses, below)
#endif
  const ProgramResult two =
      run_program(mpirun(2, RMA_VELA, "--vp 8 --pes-per-process 1 --lb rotate"), "");
  ASSERT_EQ(two.status, 0) << two.out;
  EXPECT_EQ(lines_starting(two.out, "8 ranks: check "),
            lines_starting(open.out, "8 ranks: check "));
}

// ---- the process of an MPI program on Vela ----

TEST(MpiProcess, RuntimeOptionsAreTakenOutTheRestGoesToTheProgram) {
  const ProgramResult r =
      run_program(STATUS_PROGRAM, "args -n 5 --vp 3 --pes=2 file.txt -h -- --vp 9 --");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("ranks 3, argc 9: [args] [-n] [5] [file.txt] [-h] [--vp] [9] [--]"));
}

TEST(MpiProcess, RanksDefaultToOnePerPe) {
  const ProgramResult r = run_program(STATUS_PROGRAM, "--pes 2 args");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("ranks 2, argc 2: [args]"));
}

TEST(MpiProcess, ExitStatusIsAFailingRanksReturnValue) {
  const ProgramResult r = run_program(STATUS_PROGRAM, "--vp 4 --pes 2 return 3");
  EXPECT_EQ(r.status, 3) << r.out;
}

TEST(MpiProcess, AbortExitsWithItsCode) {
  const ProgramResult r = run_program(STATUS_PROGRAM, "--vp 4 --pes 2 abort 42");
  EXPECT_EQ(r.status, 42) << r.out;
  EXPECT_THAT(r.out, HasSubstr("MPI_Abort: rank 1 (process 0) ends the run with code 42"));
}

// Rank 1 aborts in process 1 while rank 0 waits in process 0: every process exits with the
// code (whichever mpirun reports), one line names the rank and its process, and no process
// mistakes the stop for a deadlock. Several runs: the two processes race.
// MPI_Abort while another rank computes forever without calling MPI (as programs wait for mpirun
// to kill them): a fiber is not preempted, so the process is ended a few seconds later with the
// abort's code, saying why, and what the ranks printed is kept.
TEST(MpiProcess, AbortEndsTheProcessWhileARankComputesForever) {
  const ProgramResult r =
      run_program("timeout 60 " + std::string(STATUS_PROGRAM), "abort-while-busy 5 --vp 2 --pes 2");
  EXPECT_EQ(r.status, 5) << r.out;
  EXPECT_THAT(r.out, HasSubstr("MPI_Abort: rank 1 (process 0) ends the run with code 5"));
  EXPECT_THAT(r.out, HasSubstr("a rank still computes without calling the runtime"));
}

TEST(MpiProcess, AbortKeepsItsCodeAcrossProcesses) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "under ThreadSanitizer a process cannot reserve the ranks' slots at the fixed "
                  "address that ranks over several processes need (vela::vp::run says so)";
#endif
  for (int run = 0; run < 5; ++run) {
    const ProgramResult r =
        run_program(mpirun(2, STATUS_PROGRAM, "--vp 2 --pes-per-process 1 abort 7"), "");
    EXPECT_EQ(r.status, 7) << r.out;
    EXPECT_THAT(r.out, HasSubstr("MPI_Abort: rank 1 (process 1) ends the run with code 7"));
    EXPECT_THAT(r.out, Not(HasSubstr("can never go on"))) << r.out;
  }
}

TEST(MpiProcess, AnErrorInACallIsPrintedAndExitsWithOne) {
  const ProgramResult r = run_program(STATUS_PROGRAM, "--vp 4 --pes 2 bad-dest 7");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("status_program: error: MPI_Send: dest 7 is outside 0..3"));
}

// A large message is received where its receive says: one too small is an error, in one
// process and between two (where its bytes are still on their way), and nothing hangs.
TEST(MpiProcess, ALargeMessageTruncatedIsAnError) {
  const std::string expected =
      "MPI_Recv: the message from rank 0 (tag 0) has 400000 bytes, the receive buffer holds "
      "399992 (truncated)";
  const ProgramResult one = run_program(STATUS_PROGRAM, "--vp 2 --pes 2 truncate-large");
  EXPECT_EQ(one.status, 1) << one.out;
  EXPECT_THAT(one.out, HasSubstr(expected)) << one.out;
#if !defined(__SANITIZE_THREAD__)
  // (Under TSan the ranks' slots cannot be reserved at one address in every process.)
  const ProgramResult two = run_program(mpirun(2, STATUS_PROGRAM, "--vp 2 truncate-large"), "");
  EXPECT_NE(two.status, 0) << two.out;
  EXPECT_THAT(two.out, HasSubstr(expected)) << two.out;
#endif
}

TEST(MpiProcess, ADeadlockIsReportedAndExitsWithOne) {
  const ProgramResult r = run_program(STATUS_PROGRAM, "--vp 3 --pes 2 deadlock");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("status_program: error: "));
  // The waits are named by the MPI calls the program made, not by the rank layer's calls.
  EXPECT_THAT(r.out, HasSubstr("rank 0 waits in MPI_Recv(source 1, tag 0)"));
  EXPECT_THAT(r.out, HasSubstr("rank 1 waits in MPI_Finalize() (a collective)"));
}

TEST(MpiProcess, BadRuntimeOptionsAreRejected) {
  const ProgramResult r = run_program(STATUS_PROGRAM, "--vp -2 args");
  EXPECT_EQ(r.status, 1) << r.out;  // as every program's option errors (CLI11's own is 105)
  EXPECT_THAT(r.out, HasSubstr("--vp"));
  const ProgramResult help = run_program(STATUS_PROGRAM, "--vela-help");
  EXPECT_EQ(help.status, 0) << help.out;
  EXPECT_THAT(help.out, HasSubstr("--pes"));
  EXPECT_THAT(help.out, HasSubstr("--vp-stack"));
}

}  // namespace

// ---- memory allocation in ranks ----

// Blocks from 16 B to 4 MiB allocated by each rank, a third of them freed after the rank moved
// (--lb rotate: to the other PE at every step, so by the other PE's thread; under mpirun to
// the other process, out of the rank's heap copied there), every byte checked: the same
// checksum everywhere. A 1 GiB block from glibc is given (or refused) without harm; from a
// rank's heap (--vp-heap) malloc returns nullptr and new throws std::bad_alloc, with a message
// naming the option. A heap whose blocks were all freed is whole again: a rank exhausting it
// with 1 MiB blocks gets nearly its capacity (blocks of 2 MiB each with their headers).
TEST(MpiPrograms, RanksAllocateMoveAndFreeElsewhere) {
  const ProgramResult one = run_program(ALLOC_CHURN_VELA, "--vp 4 --pes 2 --lb rotate 6");
  ASSERT_EQ(one.status, 0) << one.out;
  const std::vector<std::string> checksum = lines_starting(one.out, "checksum: ");
  ASSERT_EQ(checksum.size(), 1u) << one.out;
  for (int r = 0; r < 4; ++r) {
    const std::string rank = "rank " + std::to_string(r) + ": ";
    EXPECT_THAT(one.out, HasSubstr(rank + "288 blocks checked and freed")) << one.out;
    const auto gib = lines_starting(one.out, rank + "1 GiB by malloc: ");
    ASSERT_EQ(gib.size(), 1u) << one.out;
    EXPECT_THAT(gib[0], testing::MatchesRegex(".*malloc: (given|nullptr), by new: "
                                              "(given|bad_alloc)"));
  }
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "sanitizer builds keep their own allocator: no rank heaps";
#endif
  auto refused_by_heap = [](const ProgramResult& r) {
    for (int rank = 0; rank < 4; ++rank) {
      EXPECT_THAT(r.out, HasSubstr("rank " + std::to_string(rank) +
                                   ": 1 GiB by malloc: nullptr, by new: bad_alloc"))
          << r.out;
    }
    EXPECT_THAT(r.out, HasSubstr("a rank's heap is full")) << r.out;
    EXPECT_THAT(r.out, HasSubstr("--vp-heap")) << r.out;
  };
  const ProgramResult routed =
      run_program(ALLOC_CHURN_VELA, "--vp 4 --pes 2 --lb rotate --vp-heap 256m 6");
  ASSERT_EQ(routed.status, 0) << routed.out;
  EXPECT_EQ(lines_starting(routed.out, "checksum: "), checksum) << routed.out;
  refused_by_heap(routed);
  const ProgramResult across =
      run_program(mpirun(2, ALLOC_CHURN_VELA, "--vp 4 --lb rotate --vp-heap 256m 6"), "");
  ASSERT_EQ(across.status, 0) << across.out;
  EXPECT_EQ(lines_starting(across.out, "checksum: "), checksum) << across.out;
  refused_by_heap(across);
  // Exhaustion of a 128 MiB heap after 6 steps of mixed sizes, everything freed first.
  const ProgramResult exhausted =
      run_program(ALLOC_CHURN_VELA, "--vp 4 --pes 2 --vp-heap 128m 6 exhaust");
  ASSERT_EQ(exhausted.status, 0) << exhausted.out;
  const auto lines = lines_starting(exhausted.out, "rank ");
  int counted = 0;
  for (const std::string& line : lines) {
    const auto at = line.find("exhaustion: refused after ");
    if (at == std::string::npos) continue;
    ++counted;
    const int blocks = std::atoi(line.c_str() + at + std::strlen("exhaustion: refused after "));
    EXPECT_GE(blocks, 62) << line;  // of the 63 that fit beside the heap's own header
    EXPECT_THAT(line, HasSubstr("then given again"));
  }
  EXPECT_EQ(counted, 4) << exhausted.out;
}

// Collectives among 300 ranks, combined per PE: every result right (the program checks each
// against its closed form, and that no rank leaves a barrier before the last one came) on 1 to
// 3 PEs, with the ranks moved at every round, and across 2 processes; one checksum everywhere.
TEST(MpiPrograms, CollectivesAmongManyRanksGiveTheirClosedForms) {
  const ProgramResult one = run_program(MANY_VELA, "--vp 300 --pes 1 4");
  ASSERT_EQ(one.status, 0) << one.out;
  EXPECT_THAT(one.out, HasSubstr("collectives among 300 ranks: 4 rounds, 0 wrong")) << one.out;
  const std::vector<std::string> checksum = lines_starting(one.out, "checksum: ");
  ASSERT_EQ(checksum.size(), 1u) << one.out;
  for (const char* layout : {"--vp 300 --pes 2 --lb rotate 4", "--vp 300 --pes 3 --lb greedy 4",
                             "--vp 300 --pes 2 --vp-map round-robin 4"}) {
    const ProgramResult r = run_program(MANY_VELA, layout);
    ASSERT_EQ(r.status, 0) << layout << "\n" << r.out;
    EXPECT_EQ(lines_starting(r.out, "checksum: "), checksum) << layout << "\n" << r.out;
  }
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "sanitizer builds keep their own allocator: ranks cannot move between processes";
#endif
  const ProgramResult across = run_program(mpirun(2, MANY_VELA, "--vp 300 --lb rotate 4"), "");
  ASSERT_EQ(across.status, 0) << across.out;
  EXPECT_EQ(lines_starting(across.out, "checksum: "), checksum) << across.out;
}

// ---- ranks across processes ----

// Ranks carry their stack, heap, privatized globals, a posted receive and a queued message
// through MPI_Migrate; --lb rotate moves every rank to the next PE at every step, so under
// mpirun every rank visits other processes. The checksum is the one-process run's.
TEST(MpiAcrossProcesses, RanksMoveBetweenProcessesWithTheirState) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "sanitizer builds keep their own allocator: ranks' heaps are not routed to "
                  "their slots, so ranks holding heap memory cannot move between processes";
#endif
  const ProgramResult one = run_program(WANDER_VELA, "--vp 7 --pes 4 --lb rotate 10");
  ASSERT_EQ(one.status, 0) << one.out;
  const std::vector<std::string> checksum = lines_starting(one.out, "checksum: ");
  ASSERT_EQ(checksum.size(), 1u) << one.out;
  EXPECT_THAT(one.out, HasSubstr("most processes visited by a rank: 1"));
  // Heaps in one process too (--vp-heap): what the ranks allocate comes from their slots.
  const ProgramResult routed =
      run_program(WANDER_VELA, "--vp 7 --pes 4 --lb rotate --vp-heap 4m 10");
  ASSERT_EQ(routed.status, 0) << routed.out;
  EXPECT_EQ(lines_starting(routed.out, "checksum: "), checksum) << routed.out;
  // A heap too small for what a rank allocates: an error naming the option.
  const ProgramResult full = run_program(WANDER_VELA, "--vp 2 --pes 1 --vp-heap 8k 10");
  EXPECT_EQ(full.status, 1) << full.out;
  EXPECT_THAT(full.out, HasSubstr("a rank's heap is full")) << full.out;
  EXPECT_THAT(full.out, HasSubstr("--vp-heap")) << full.out;
  // The sizing rule is in the message (issue 36, finding 6).
  EXPECT_THAT(full.out, HasSubstr("more than twice its largest allocation")) << full.out;
  struct Layout {
    int processes;
    const char* args;
  };
  for (const Layout& layout : {Layout{2, "--pes-per-process 2"}, Layout{4, ""},
                               Layout{2, "--mpi-progress thread --pes-per-process 2"}}) {
    const ProgramResult r =
        run_program(mpirun(layout.processes, WANDER_VELA,
                           std::string("--vp 7 --lb rotate ") + layout.args + " 10"),
                    "");
    ASSERT_EQ(r.status, 0) << layout.processes << " processes " << layout.args << ": " << r.out;
    EXPECT_EQ(lines_starting(r.out, "checksum: "), checksum) << r.out;
    EXPECT_THAT(r.out,
                HasSubstr("most processes visited by a rank: " + std::to_string(layout.processes)))
        << r.out;
    // Started again without address-space randomization, the process keeps its program's name.
    EXPECT_THAT(r.out, HasSubstr("process name: wander_vela\n")) << r.out;
  }
  // A balancer that decides by load: fewer moves, the same bits.
  const ProgramResult greedy =
      run_program(mpirun(2, WANDER_VELA, "--vp 7 --lb greedy --pes-per-process 2 10"), "");
  ASSERT_EQ(greedy.status, 0) << greedy.out;
  EXPECT_EQ(lines_starting(greedy.out, "checksum: "), checksum) << greedy.out;
  // Eleven processes, a rank starting in each: from process 10 on, a process's environment is
  // longer (two-digit ranks in Open MPI's variables), so its stack, and what lies on it, sits
  // elsewhere than process 0's; every rank must find its own process's world.
  const ProgramResult twelve = run_program(WANDER_VELA, "--vp 12 --pes 4 --lb rotate 4");
  ASSERT_EQ(twelve.status, 0) << twelve.out;
  const ProgramResult eleven = run_program(mpirun(11, WANDER_VELA, "--vp 12 --lb rotate 4"), "");
  ASSERT_EQ(eleven.status, 0) << eleven.out;
  EXPECT_EQ(lines_starting(eleven.out, "checksum: "), lines_starting(twelve.out, "checksum: "))
      << eleven.out;
  EXPECT_THAT(eleven.out, HasSubstr("most processes visited by a rank: 5")) << eleven.out;
}

TEST(MpiAcrossProcesses, WhatCannotMoveIsAClearErrorInEveryProcess) {
  // Each rank's own TLS block cannot go to another process.
  const ProgramResult tls = run_program(mpirun(2, WANDER_VELA, "--vp 4 --vp-tls-globals 2"), "");
  EXPECT_NE(tls.status, 0) << tls.out;
  EXPECT_THAT(tls.out, HasSubstr("--vp-tls-globals: ranks cannot take their own TLS blocks"));
#if !defined(__SANITIZE_THREAD__)
  // With address-space randomization left on (the program's own restart without it turned
  // off), the code sits elsewhere in each process: refused, with the remedy.
  const ProgramResult aslr =
      run_program("env VELA_NO_ASLR_TRIED=1 " + mpirun(2, WANDER_VELA, "--vp 4 2"), "");
  if (aslr.status == 0) GTEST_SKIP() << "address-space randomization is off on this machine";
  EXPECT_THAT(aslr.out, HasSubstr("start each process under `setarch -R`")) << aslr.out;
  // Both processes say it.
  EXPECT_EQ(lines_starting(aslr.out, "wander_vela: error: ").size(), 2u) << aslr.out;
#endif
}
