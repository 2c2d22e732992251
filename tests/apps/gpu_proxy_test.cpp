// The GPU proxy end to end: its fields bitwise identical whatever the ranks, PEs, balancer,
// launch mode and back end, and against the same source run by Open MPI; the heavy region's
// cost measured as the ranks' load; the measured steps where they belong; bad options named.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "support/program.hpp"

namespace {

using Result = vela::testing::ProgramResult;
using vela::testing::run_program;

// A small case: 12 x 10 columns (blocks of unequal sizes for most rank counts), MPI_Migrate
// after steps 3 and 6 of 8.
const std::string problem = "--nx 12 --ny 10 --nz 6 --fields 3 --steps 8 --lb-every 3";

std::string field(const std::string& out, const std::string& name) {
  return vela::testing::output_field(out, name);
}

std::string checksum(const std::string& args) {
  return vela::testing::program_checksum(GPU_PROXY_BINARY, args);
}

class GpuProxyFiles : public vela::testing::ScratchDirTest {};

TEST(GpuProxy, ChecksumIsTheSameForAnyRanksPesBalancerAndLaunch) {
  for (const std::string load : {"fixed", "moving"}) {
    const std::string base = problem + " --load " + load;
    const std::string reference = checksum(base + " --ranks 1 --pes 1");
    ASSERT_FALSE(reference.empty());
    for (const int pes : {1, 2}) {
      for (const int ranks : {2, 5, 6}) {
        for (const std::string lb : {"", "greedy", "refine-swap", "rotate"}) {
          const std::string args = base + " --ranks " + std::to_string(ranks) + " --pes " +
                                   std::to_string(pes) + (lb.empty() ? "" : " --lb " + lb);
          EXPECT_EQ(checksum(args), reference) << args;
        }
      }
    }
    for (const std::string launch : {"sync", "async"}) {
      EXPECT_EQ(checksum(base + " --ranks 6 --pes 2 --lb rotate --launch " + launch), reference);
    }
    // The seed's sequence: greedy at the first balancing point, refine-swap after.
    EXPECT_EQ(checksum(base + " --ranks 6 --pes 2 --lb greedy --lb-policy sequence "
                              "--lb-policy-param every=1 --lb-policy-param threshold=0"),
              reference);
  }
  // rotate moves every rank at each of the two MPI_Migrate() calls.
  const Result moved =
      run_program(GPU_PROXY_BINARY, problem + " --ranks 6 --pes 2 --lb rotate --no-pin");
  EXPECT_EQ(moved.status, 0) << moved.out;
  EXPECT_NE(moved.out.find("lb steps: 2  migrations: 12"), std::string::npos) << moved.out;
}

// The checksum sees the physics: the heavy region, its place and the Newton steps change it.
TEST(GpuProxy, ChecksumSeesTheFields) {
  const std::string base = problem + " --ranks 4 --pes 2";
  const std::string moving = checksum(base + " --load moving");
  const std::string fixed = checksum(base + " --load fixed");
  const std::string none = checksum(base + " --load none");
  const std::string work = checksum(base + " --load moving --physics-work 2");
  EXPECT_NE(moving, fixed);
  EXPECT_NE(moving, none);
  EXPECT_NE(fixed, none);
  EXPECT_NE(moving, work);
}

// The same source built against Open MPI and run by mpirun with N processes prints the
// checksum of --ranks N (of any N) on Vela.
TEST(GpuProxy, OpenMpiRunOfTheSameSourceGivesTheSameChecksum) {
  const std::string env =
      "env ASAN_OPTIONS=detect_leaks=0 OMPI_MCA_plm=isolated OMPI_MCA_btl=self,vader "
      "OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_ALLOW_RUN_AS_ROOT=1 "
      "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ";
  const Result probe = run_program(env + MPIEXEC, "-np 1 true");
  if (probe.status != 0) GTEST_SKIP() << "mpirun cannot start processes here:\n" << probe.out;
  const std::string reference = checksum(problem + " --ranks 1 --pes 1");
  for (const int np : {1, 3, 4}) {
    const Result r = run_program(env + MPIEXEC, "-np " + std::to_string(np) + " " +
                                                    GPU_PROXY_OPENMPI_BINARY + " " + problem);
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_EQ(field(r.out, "checksum"), reference) << np << "\n" << r.out;
  }
}

// --backend cuda computes the CPU back end's fields bit for bit; without a device (or a CUDA
// build) it says why and exits 1, and the comparison is skipped.
TEST(GpuProxy, CudaBackendMatchesTheCpuOne) {
  const Result probe =
      run_program(GPU_PROXY_BINARY, problem + " --ranks 1 --pes 1 --no-pin --backend cuda");
  if (probe.status != 0) {
    EXPECT_EQ(probe.status, 1) << probe.out;
    EXPECT_NE(probe.out.find("gpu-proxy: --backend cuda: "), std::string::npos) << probe.out;
    GTEST_SKIP() << "no CUDA device to compare with: " << probe.out;
  }
  for (const std::string load : {"fixed", "moving", "none"}) {
    const std::string base = problem + " --load " + load;
    const std::string cpu = checksum(base + " --ranks 1 --pes 1");
    for (const std::string run :
         {" --ranks 1 --pes 1", " --ranks 6 --pes 2 --lb rotate",
          " --ranks 5 --pes 2 --launch async", " --ranks 4 --pes 1 --launch sync --lb greedy"}) {
      EXPECT_EQ(checksum(base + run + " --backend cuda"), cpu) << base << run;
    }
  }
}

// Seed 004's Table II loop: element (i, j) of an n x m array starts at ((i m + j) mod 1000)
// / 1000 and takes `inner` steps x <- 0.999 x + 0.001 (k mod 8); the program prints the sum
// of the elements in row order, as a hexadecimal float.
double scaling_sum(int n, int m, int inner) {
  double sum = 0.0;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < m; ++j) {
      double x = static_cast<double>((i * m + j) % 1000) * 1e-3;
      for (int k = 0; k < inner; ++k) {
        const volatile double scaled = 0.999 * x;  // no fused multiply-add, as the program
        x = scaled + 0.001 * static_cast<double>(k % 8);
      }
      sum += x;
    }
  }
  return sum;
}

TEST(GpuProxyScaling, PrintsTheLoopsSum) {
  for (const auto& [n, m, inner] : {std::tuple{1, 1, 0}, {3, 5, 7}, {40, 30, 100}}) {
    const std::string args = "--n " + std::to_string(n) + " --m " + std::to_string(m) +
                             " --inner " + std::to_string(inner) + " --repeats 2";
    const Result r = run_program(GPU_PROXY_SCALING_BINARY, args);
    ASSERT_EQ(r.status, 0) << args << "\n" << r.out;
    EXPECT_EQ(std::stod(field(r.out, "sum")), scaling_sum(n, m, inner)) << args << "\n" << r.out;
    EXPECT_GE(std::stod(field(r.out, "seconds")), 0.0) << r.out;
  }
}

// On a device the loop gives the CPU's bits; without one the program says why and exits 1.
TEST(GpuProxyScaling, CudaGivesTheCpuSum) {
  const std::string args = "--n 64 --m 48 --inner 300 --repeats 1";
  const Result cuda = run_program(GPU_PROXY_SCALING_BINARY, args + " --backend cuda");
  if (cuda.status != 0) {
    EXPECT_EQ(cuda.status, 1) << cuda.out;
    EXPECT_NE(cuda.out.find("gpu-proxy-scaling: --backend cuda: "), std::string::npos) << cuda.out;
    GTEST_SKIP() << "no CUDA device to compare with: " << cuda.out;
  }
  const Result cpu = run_program(GPU_PROXY_SCALING_BINARY, args);
  ASSERT_EQ(cpu.status, 0) << cpu.out;
  EXPECT_EQ(field(cuda.out, "sum"), field(cpu.out, "sum"));
}

TEST(GpuProxyScaling, BadOptionsAreNamed) {
  for (const auto& [args, named] : {std::pair{"--backend gpu", "--backend"},
                                    {"--n 0", "--n"},
                                    {"--m x", "--m"},
                                    {"--inner -1", "--inner"},
                                    {"--repeats 0", "--repeats"},
                                    {"--n 1048576 --m 4096", "more than 2^31"}}) {
    const Result r = run_program(GPU_PROXY_SCALING_BINARY, args);
    EXPECT_EQ(r.status, 1) << args << "\n" << r.out;
    EXPECT_NE(r.out.find(named), std::string::npos) << args << "\n" << r.out;
  }
}

// The column physics' second pass is the rank's load: with the heavy region fixed on the
// left half of a 2 x 2 grid of ranks, ranks 0 and 2 are measured about twice as heavy as ranks
// 1 and 3. (Thread CPU time, which other processes on the machine do not disturb; on the CPU
// back end it is the rank's running time, as wall time would be on an idle machine.)
TEST_F(GpuProxyFiles, HeavyColumnsAreMeasuredAsTheRanksLoad) {
  const std::string dumps = path("dumps");
  const Result r = run_program(GPU_PROXY_BINARY,
                               "--nx 32 --ny 32 --nz 20 --fields 2 --steps 6 --lb-every 3 "
                               "--physics-work 24 --load fixed --ranks 4 --pes 1 --no-pin "
                               "--lb greedy --lb-cpu-time --lb-dump " +
                                   dumps);
  ASSERT_EQ(r.status, 0) << r.out;
  const auto instance = nlohmann::json::parse(std::ifstream(dumps + "/ranks-step1.json"));
  const auto& objects = instance.at("objects");
  std::vector<double> load(4, 0.0);
  for (std::size_t k = 0; k < objects.at("id").size(); ++k) {
    load.at(objects.at("id")[k].get<std::size_t>()) = objects.at("load")[k].get<double>();
  }
  const double heavy = std::min(load[0], load[2]), light = std::max(load[1], load[3]);
  EXPECT_GT(heavy, 1.5 * light) << load[0] << " " << load[1] << " " << load[2] << " " << load[3];
}

// With --launch measured, the --measure-steps steps before each MPI_Migrate() wait for their
// kernels (sync), the others do not; the step log says which.
TEST_F(GpuProxyFiles, StepLogMarksTheMeasuredSteps) {
  const std::string log = path("steps.csv");
  const Result r = run_program(GPU_PROXY_BINARY, problem +
                                                     " --ranks 4 --pes 2 --no-pin "
                                                     "--measure-steps 2 --step-log " +
                                                     log);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("sync steps: 4,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("async steps: 4,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("steps 1-3: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("steps 7-8: "), std::string::npos) << r.out;
  std::ifstream in(log);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "step,seconds,mode,migrate_seconds");
  std::vector<std::string> modes;
  while (std::getline(in, line)) {
    std::stringstream fields(line);
    std::string step, seconds, mode;
    std::getline(fields, step, ',');
    std::getline(fields, seconds, ',');
    std::getline(fields, mode, ',');
    modes.push_back(mode);
  }
  // MPI_Migrate after steps 3 and 6 (none after the last step, 8).
  EXPECT_EQ(modes, (std::vector<std::string>{"async", "sync", "sync", "async", "sync", "sync",
                                             "async", "async"}));
}

TEST(GpuProxy, BadOptionsAreNamed) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--nx 0", "--nx"},
      {"--ny -4", "--ny"},
      {"--nz 0", "--nz"},
      {"--fields 0", "--fields"},
      {"--fields 5000", "--fields"},
      {"--steps 0", "--steps"},
      {"--lb-every -1", "--lb-every"},
      {"--measure-steps -1", "--measure-steps"},
      {"--physics-work 0", "--physics-work"},
      {"--nx abc", "--nx"},
      {"--backend gpu", "--backend"},
      {"--load storm", "--load"},
      {"--launch later", "--launch"},
      {"--lb no-such-strategy", "--lb"},
      {"--nx 4 --ny 4 --ranks 20", "every rank needs at least one column"},
      {"--ranks 4 --vp 6", "disagree"},
      {"--no-such-option 1", "--no-such-option"},
      {"--nx 100000 --ny 100000", "of memory available here"},
  };
  for (const auto& [args, expected] : cases) {
    const Result r = run_program(GPU_PROXY_BINARY, args + " --pes 1 --no-pin");
    EXPECT_EQ(r.status, 1) << args << "\n" << r.out;
    EXPECT_NE(r.out.find(expected), std::string::npos) << args << "\n" << r.out;
  }
  const Result help = run_program(GPU_PROXY_BINARY, "--help");
  EXPECT_EQ(help.status, 0);
  for (const std::string option : {"--fields", "--backend", "--load", "--launch", "--measure-steps",
                                   "--lb", "--pes", "--step-log"}) {
    EXPECT_NE(help.out.find(option), std::string::npos) << option;
  }
}

TEST_F(GpuProxyFiles, UnwritableStepLogIsAnError) {
  const Result r = run_program(GPU_PROXY_BINARY, problem +
                                                     " --ranks 2 --pes 1 --no-pin "
                                                     "--step-log " +
                                                     path("no/such/dir/steps.csv"));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("--step-log"), std::string::npos) << r.out;
}

}  // namespace
