// LeanMD end to end: bitwise identical checksums whatever the PEs and balancer, energy that
// is conserved, atoms that move between cells, and bad options named.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "support/program.hpp"
#include "vela/lb/io/io.hpp"
#include "vela/lb/strategies/registry.hpp"

namespace {

using Result = vela::testing::ProgramResult;
using vela::testing::run_program;

Result run(const std::string& args) {
  return run_program(LEANMD_BINARY, args + " --no-pin");
}

// The text after `key` up to the end of its line, or "" when the line is missing.
std::string field(const std::string& out, const std::string& key) {
  return vela::testing::text_after(out, key);
}

std::string checksum(const std::string& args) {
  const Result r = run(args);
  EXPECT_EQ(r.status, 0) << args << "\n" << r.out;
  const std::string hex = field(r.out, "checksum: ");
  if (hex.size() != 16 || hex.find_first_not_of("0123456789abcdef") != std::string::npos) {
    ADD_FAILURE() << "no checksum line for " << args << "\n" << r.out;
    return "";
  }
  EXPECT_NE(r.out.find("\ntime: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nstep: "), std::string::npos) << r.out;
  return hex;
}

TEST(Leanmd, ChecksumIsTheSameForAnyPesAndBalancer) {
  const std::string problem =
      "--cells 3 --atoms-per-cell 8 --steps 20 --sync-every 5 --migrate-every 5";
  const std::string reference = checksum(problem + " --pes 1");
  ASSERT_FALSE(reference.empty());
  for (const int pes : {1, 2, 3}) {
    for (const std::string lb : {"", "greedy", "hilbert", "rotate"}) {
      const std::string args =
          problem + " --pes " + std::to_string(pes) + (lb.empty() ? "" : " --lb " + lb);
      EXPECT_EQ(checksum(args), reference) << args;
    }
  }
  const Result moved = run(problem + " --pes 3 --lb rotate");
  EXPECT_EQ(moved.status, 0) << moved.out;
  EXPECT_EQ(moved.out.find("migrations: 0 "), std::string::npos) << moved.out;
  // One compute per cell and per unordered pair of neighbouring cells: 14 per cell.
  EXPECT_NE(moved.out.find("cells: 27  computes: 378 "), std::string::npos) << moved.out;
  EXPECT_NE(run("--cells 4 --atoms-per-cell 1 --steps 1").out.find("cells: 64  computes: 896 "),
            std::string::npos);
}

// Balanced asynchronously (--lb-async) by every strategy: the same checksum as one PE.
TEST(Leanmd, AsynchronousBalancingGivesTheSameChecksumUnderEveryStrategy) {
  const std::string problem =
      "--cells 3 --atoms-per-cell 8 --steps 20 --sync-every 5 --migrate-every 5";
  const std::string reference = checksum(problem + " --pes 1");
  ASSERT_FALSE(reference.empty());
  for (const vela::lb::StrategyInfo& info : vela::lb::strategies()) {
    if (info.name == "optimal") continue;  // at most 60 objects (this run has 405)
    const std::string args = problem + " --pes 3 --lb " + info.name + " --lb-async";
    EXPECT_EQ(checksum(args), reference) << args;
  }
}

TEST(Leanmd, AtomsMoveBetweenCellsAndTheChecksumStaysTheSame) {
  const std::string problem =
      "--cells 3 --atoms-per-cell 8 --steps 200 --dt 0.01 --sync-every 10 --migrate-every 5";
  const Result r = run(problem + " --pes 1");
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string moved = field(r.out, "moved: ");
  ASSERT_FALSE(moved.empty()) << r.out;
  EXPECT_GT(std::stol(moved), 0) << r.out;
  EXPECT_NE(r.out.find("atoms: 216 "), std::string::npos) << r.out;  // none lost or doubled
  const std::string reference = field(r.out, "checksum: ");
  for (const std::string extra : {"--pes 2 --lb greedy", "--pes 3 --lb rotate", "--pes 3"}) {
    EXPECT_EQ(checksum(problem + " " + extra), reference) << extra;
  }
}

TEST(Leanmd, EnergyIsConserved) {
  const Result r = run("--cells 3 --atoms-per-cell 27 --steps 300 --dt 0.002 --pes 2");
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string energy = field(r.out, "energy: start ");
  ASSERT_FALSE(energy.empty()) << r.out;
  const auto at = energy.find(" drift ");
  ASSERT_NE(at, std::string::npos) << r.out;
  const double drift = std::stod(energy.substr(at + 7));
  EXPECT_LT(std::abs(drift), 1e-4) << r.out;
  const double start = std::stod(energy);
  EXPECT_LT(start, 0.0) << r.out;  // a bound system: potential outweighs kinetic
}

// --dense-atoms: the corner octant [0, C/2)^3 starts with more atoms; still the same checksum
// for any PEs and balancer.
TEST(Leanmd, DenseOctantHasMoreAtomsAndTheSameChecksumEverywhere) {
  const std::string problem =
      "--cells 4 --atoms-per-cell 4 --dense-atoms 12 --steps 12 --sync-every 4 --migrate-every 4";
  const Result r = run(problem + " --pes 1");
  ASSERT_EQ(r.status, 0) << r.out;
  // 64 cells of 4 atoms, 8 of them (the octant [0, 2)^3) with 12.
  EXPECT_NE(r.out.find("atoms: 320 "), std::string::npos) << r.out;
  const std::string reference = field(r.out, "checksum: ");
  for (const std::string extra :
       {"--pes 2 --lb greedy", "--pes 3 --lb grid-hybrid --clusters 2,1"}) {
    EXPECT_EQ(checksum(problem + " " + extra), reference) << extra;
  }
  EXPECT_NE(checksum("--cells 4 --atoms-per-cell 4 --steps 12 --pes 1"), reference);
}

// Two clusters behind the delay device: WAN traffic per step and the step time after the last
// balancing point are printed.
TEST(Leanmd, PrintsWanBytesAndTheStepTimeAfterBalancing) {
  const Result r =
      run("--cells 3 --atoms-per-cell 8 --steps 12 --sync-every 4 --pes 2 --clusters 1,1 "
          "--wan-latency 1 --lb grid-comm");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("bytes/step)"), std::string::npos) << r.out;
  EXPECT_FALSE(field(r.out, "\nwan: ").empty()) << r.out;
  const std::string steady = field(r.out, "steady step: ");
  ASSERT_FALSE(steady.empty()) << r.out;
  EXPECT_GT(std::stod(steady), 0.0);
  EXPECT_NE(steady.find("(steps 8 to 12,"), std::string::npos) << r.out;
  // One cluster: no WAN line.
  EXPECT_EQ(run("--cells 3 --atoms-per-cell 8 --steps 4 --pes 2").out.find("\nwan: "),
            std::string::npos);
}

class LeanmdFiles : public vela::testing::ScratchDirTest {};

// Cells and computes are one collection, so a dump holds both and every cell-compute message:
// each cell sends its positions to its 27 computes once a step, and each compute sends forces
// to its two cells (one for a cell with itself).
TEST_F(LeanmdFiles, DumpHoldsCellsComputesAndTheirMessages) {
  const std::filesystem::path dumps = dir_ / "dumps";
  const Result r =
      run("--cells 3 --atoms-per-cell 8 --steps 8 --sync-every 4 --migrate-every 100 "
          "--pes 2 --lb greedy --lb-dump " +
          dumps.string());
  ASSERT_EQ(r.status, 0) << r.out;
  const vela::lb::Instance instance =
      vela::lb::read_instance((dumps / "leanmd-step1.json").string());
  ASSERT_EQ(instance.objects.size(), 27u * 15u);  // 27 cells, 378 computes
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::uint64_t> messages;
  for (const auto& e : instance.edges) {
    messages[{instance.objects[e.from].id, instance.objects[e.to].id}] += e.messages;
  }
  std::size_t to_computes = 0, to_cells = 0;
  for (const auto& [edge, count] : messages) {
    EXPECT_EQ(count, 4u) << edge.first << " -> " << edge.second;  // one a step, 4 steps
    if (edge.first < 27) {
      EXPECT_GE(edge.second, 27u);
      ++to_computes;
    } else {
      EXPECT_LT(edge.second, 27u);
      ++to_cells;
    }
  }
  EXPECT_EQ(to_computes, 27u * 27u);
  EXPECT_EQ(to_cells, 27u + 2u * 27u * 13u);  // self computes: one cell; the others: two
}

// apps/leanmd/grid_replay.py on hand-made instances of two cells (0 and 1) and three computes:
// 2 pairs cell 0 with itself, 3 pairs cells 0 and 1, 4 pairs cell 1 with itself.
void write_pair_instance(const std::string& path, const std::string& pes,
                         const std::string& clusters, const std::string& loads) {
  std::ofstream(path) << R"({"format": "vela-instance", "version": 1, "dims": 0,
    "pes": {"speed": [)"
                      << (clusters.size() > 1 ? "1, 1" : "1") << R"(], "background": [)"
                      << (clusters.size() > 1 ? "0, 0" : "0") << R"(], "cluster": [)" << clusters
                      << R"(]},
    "objects": {"id": [0, 1, 2, 3, 4], "load": [)"
                      << loads << R"(], "size": [0, 0, 0, 0, 0],
                "pe": [)"
                      << pes << R"(], "migratable": [true, true, true, true, true]},
    "edges": {"from": [0, 0, 1, 1, 2, 3, 3, 4], "to": [2, 3, 3, 4, 0, 0, 1, 1],
              "messages": [1, 1, 1, 1, 1, 1, 1, 1],
              "bytes": [100, 100, 100, 100, 100, 100, 100, 100]}})";
}

// The replay's step times (ms) of one instance at the given latencies (ms), in order.
std::vector<double> replayed(const std::string& path, const std::string& latencies) {
  const Result r = vela::testing::run_command("python3 " + std::string(LEANMD_GRID_REPLAY) +
                                              " --cells 2 simulate " + path + " --latency " +
                                              latencies + " 2>&1");
  EXPECT_EQ(r.status, 0) << r.out;
  std::vector<double> times;
  const auto row = r.out.rfind("\n| ");
  if (row == std::string::npos) return times;
  std::istringstream cells(r.out.substr(row + 3));
  std::string cell;
  std::getline(cells, cell, '|');  // the placement's name
  while (std::getline(cells, cell, '|')) {
    if (cell.find_first_of("0123456789") != std::string::npos) times.push_back(std::stod(cell));
  }
  return times;
}

class LeanmdReplay : public vela::testing::ScratchDirTest {};

// On one PE nothing waits: the step is the sum of the loads, whatever the latency.
TEST_F(LeanmdReplay, OnePeStepIsTheLoadSum) {
  write_pair_instance(path("one.json"), "0, 0, 0, 0, 0", "0", "0.001, 0.002, 0.004, 0.008, 0.016");
  EXPECT_EQ(replayed(path("one.json"), "0,4,100"), (std::vector<double>{31.0, 31.0, 31.0}));
}

// Every object in one cluster: no message crosses, so the latency changes nothing.
TEST_F(LeanmdReplay, NoCrossClusterMessagesNoLatencyEffect) {
  write_pair_instance(path("local.json"), "0, 0, 0, 0, 0", "0, 1",
                      "0.001, 0.001, 0.010, 0.001, 0.010");
  EXPECT_EQ(replayed(path("local.json"), "0,8,100"), (std::vector<double>{23.0, 23.0, 23.0}));
}

// Cell 0 and compute 2 on PE 0 (cluster 0); cell 1 and computes 3 and 4 on PE 1 (cluster 1).
// PE 1 works 12 ms a step; the cycle cell 0 -> compute 3 -> cell 0 takes 2 ms of work and two
// WAN crossings of L + 10.1 us (alpha + 100 bytes x beta). The step is the larger: 12 ms while
// 2 + 2 (L + 0.0101) <= 12 (the latency is masked by compute 4's work), then 2 (L + 0.0101) + 2.
TEST_F(LeanmdReplay, LatencyBelowTheSlackIsMaskedAboveItShows) {
  write_pair_instance(path("two.json"), "0, 1, 0, 1, 1", "0, 1",
                      "0.001, 0.001, 0.010, 0.001, 0.010");
  const std::vector<double> t = replayed(path("two.json"), "0,1,2,4,6,8,100");
  ASSERT_EQ(t.size(), 7u);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(t[i], 12.0) << i;
  EXPECT_DOUBLE_EQ(t[4], 14.02);
  EXPECT_DOUBLE_EQ(t[5], 18.02);
  EXPECT_DOUBLE_EQ(t[6], 202.02);
}

// From a real dump to a bigger machine: `prepare` places the objects as LeanMD does on 4 PEs in
// two clusters, and `table` runs the strategies on it and replays each placement.
TEST_F(LeanmdReplay, PreparesARecordedDumpAndReplaysTheStrategies) {
  const std::string dumps = path("dumps");
  const Result r =
      run("--cells 3 --atoms-per-cell 8 --dense-atoms 20 --steps 8 --sync-every 4 "
          "--pes 1 --lb greedy --lb-cpu-time --lb-dump " +
          dumps);
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string script = "python3 " + std::string(LEANMD_GRID_REPLAY);
  const Result prepared =
      vela::testing::run_command(script + " prepare " + dumps + "/leanmd-step1.json -o " +
                                 path("p4.json") + " --clusters 2,2 --work-per-pe 10 2>&1");
  ASSERT_EQ(prepared.status, 0) << prepared.out;
  const vela::lb::Instance instance = vela::lb::read_instance(path("p4.json"));
  ASSERT_EQ(instance.pes.size(), 4u);
  EXPECT_EQ(instance.pes[1].cluster, 0);
  EXPECT_EQ(instance.pes[2].cluster, 1);
  ASSERT_EQ(instance.objects.size(), 405u);
  double work = 0.0;
  for (const auto& o : instance.objects) work += o.load;
  EXPECT_NEAR(work, 0.040, 1e-9);                    // 10 ms per PE per step
  EXPECT_EQ(instance.objects[0].pe, 0u);             // cell 0
  EXPECT_EQ(instance.objects[26].pe, 3u);            // cell 26 of 27
  EXPECT_EQ(instance.objects[27 + 14 * 26].pe, 3u);  // a compute of cell 26
  const Result table =
      vela::testing::run_command(script + " table " + path("p4.json") + " --vela-lb " +
                                 VELA_LB_BINARY + " --latency 0,50 2>&1");
  ASSERT_EQ(table.status, 0) << table.out;
  for (const std::string s : {"none", "greedy", "grid-comm", "grid-metis", "grid-hybrid"}) {
    EXPECT_NE(table.out.find("\n| " + s + " | "), std::string::npos) << s << "\n" << table.out;
  }
}

TEST(Leanmd, BadOptionsExitOneNamingTheOption) {
  for (const std::string bad :
       {"--cells 2", "--atoms-per-cell 0", "--dt -0.01", "--dt 0", "--steps 0", "--migrate-every 0",
        "--sync-every -1", "--cells abc", "--frobnicate 1", "--dense-atoms -1",
        "--cells 1024 --atoms-per-cell 100000"}) {  // the last: more than this machine's memory
    const Result r = run(bad);
    EXPECT_EQ(r.status, 1) << bad << "\n" << r.out;
    EXPECT_NE(r.out.find(bad.substr(0, bad.find(' '))), std::string::npos) << bad << "\n" << r.out;
  }
}

}  // namespace
