// The BRAMS proxy end to end: its fields bitwise identical whatever the ranks, PEs, balancer,
// policy and privatization method, and against the same source run by Open MPI; bad options
// named; the step log and the recorded trace readable by vela-lb.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "support/program.hpp"
#include "vela/lb/strategies/registry.hpp"

#ifdef BRAMS_TEST_NETCDF
#include <netcdf.h>
#endif

namespace {

namespace fs = std::filesystem;

using Result = vela::testing::ProgramResult;
using vela::testing::run_program;

// A small storm case: 24 x 20 columns (blocks of unequal sizes for most rank counts), a storm,
// radiation on steps 5 and 10, topography, MPI_Migrate every 3 steps.
const std::string problem =
    "--nx 24 --ny 20 --nz 6 --steps 12 --lb-every 3 --radiation-every 5 --topography 4 "
    "--storm-radius 3";

std::string field(const std::string& out, const std::string& name) {
  return vela::testing::output_field(out, name);
}

std::string checksum(const std::string& args) {
  return vela::testing::program_checksum(BRAMS_BINARY, args);
}

std::string mpirun_env() {
  return "env ASAN_OPTIONS=detect_leaks=0 OMPI_MCA_plm=isolated OMPI_MCA_btl=self,vader "
         "OMPI_MCA_rmaps_base_oversubscribe=1 "
         "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ";
}

class BramsFiles : public vela::testing::ScratchDirTest {};
class BramsFilesMpi : public vela::testing::ScratchDirTest {};

TEST(Brams, ChecksumIsTheSameForAnyRanksPesAndBalancer) {
  const std::string reference = checksum(problem + " --ranks 1 --pes 1");
  ASSERT_FALSE(reference.empty());
  for (const int pes : {1, 2, 3}) {
    for (const int ranks : {2, 5, 6, 12}) {
      for (const std::string lb : {"", "greedy", "refine-comm", "rec-bisect-bf", "metis", "hilbert",
                                   "refine-swap", "rotate"}) {
        const std::string args = problem + " --ranks " + std::to_string(ranks) + " --pes " +
                                 std::to_string(pes) + (lb.empty() ? "" : " --lb " + lb);
        EXPECT_EQ(checksum(args), reference) << args;
      }
    }
  }
  // Moved every call: rotate moves every rank at each MPI_Migrate.
  const Result moved =
      run_program(BRAMS_BINARY, problem + " --ranks 8 --pes 2 --lb rotate --no-pin");
  EXPECT_EQ(moved.status, 0) << moved.out;
  EXPECT_NE(moved.out.find("lb steps: 3  migrations: 24"), std::string::npos) << moved.out;
}

// Balanced asynchronously (--lb-async, and the policy parameter async=true) by every strategy:
// MPI_Migrate hands the ranks' loads over and the answers move ranks at later calls; the same
// checksum as one rank.
TEST(Brams, AsynchronousBalancingGivesTheSameChecksumUnderEveryStrategy) {
  const std::string reference = checksum(problem + " --ranks 1 --pes 1");
  ASSERT_FALSE(reference.empty());
  for (const vela::lb::StrategyInfo& info : vela::lb::strategies()) {
    const std::string args = problem + " --ranks 12 --pes 3 --lb " + info.name + " --lb-async";
    EXPECT_EQ(checksum(args), reference) << args;
  }
  const std::string policy =
      problem +
      " --ranks 9 --pes 2 --lb greedy --lb-every 1 --lb-policy cost-model --lb-policy-param "
      "every=1 --lb-policy-param async=true";
  EXPECT_EQ(checksum(policy), reference) << policy;
}

// Without a storm or radiation the fields differ: the checksum sees the physics.
TEST(Brams, ChecksumSeesTheFields) {
  const std::string a = checksum(problem + " --ranks 4 --pes 2");
  // (3 Newton iterations already reach the fixed point in 12 steps; 1 does not.)
  const std::string b = checksum(problem + " --ranks 4 --pes 2 --storm-work 1");
  const std::string c = checksum(problem + " --ranks 4 --pes 2 --radiation-every 0");
  EXPECT_NE(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(b, c);
}

TEST(Brams, ChecksumIsTheSameUnderEveryPolicy) {
  const std::string reference = checksum(problem + " --ranks 1 --pes 1");
  ASSERT_FALSE(reference.empty());
  for (const std::string policy :
       {"periodic --lb-policy-param every=2 --lb-policy-param strategy=hilbert",
        "threshold --lb-policy-param every=1 --lb-policy-param threshold=5 "
        "--lb-policy-param strategy=hilbert",
        "auto-threshold --lb-policy-param window=2 --lb-policy-param every=2 "
        "--lb-policy-param strategy=greedy",
        "cost-model --lb-policy-param every=1"}) {
    const std::string args =
        problem + " --ranks 9 --pes 2 --lb greedy --lb-every 1 --lb-policy " + policy;
    EXPECT_EQ(checksum(args), reference) << args;
  }
}

// The three ways of giving each rank its own module state compute the same fields; the TLS
// method is not available under the sanitizers, the copy method needs one PE.
TEST(Brams, ChecksumIsTheSameForEveryPrivatizationMethod) {
  const std::string reference = checksum(problem + " --ranks 1 --pes 1");
  EXPECT_EQ(checksum(problem + " --ranks 6 --pes 1 --privatize copy"), reference);
  EXPECT_EQ(checksum(problem + " --ranks 6 --pes 2 --privatize privatized --lb rotate"), reference);
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  EXPECT_EQ(checksum(problem + " --ranks 6 --pes 2 --privatize tls --lb rotate"), reference);
#endif
  const Result copy =
      run_program(BRAMS_BINARY, problem + " --ranks 6 --pes 2 --privatize copy --no-pin");
  EXPECT_EQ(copy.status, 1) << copy.out;
  EXPECT_NE(copy.out.find("--pes 1"), std::string::npos) << copy.out;
}

#if defined(BRAMS_IMAGE_BINARY)
// The plain-MPI source (module state as plain globals) built unchanged by vela-mpicxx: every
// rank its own instance of the program, so the checksum is the reference one on any PEs, with
// a balancer moving ranks, and across processes; with the globals shared it is not.
TEST(Brams, PlainGlobalsAsALoadedImageGiveTheSameChecksum) {
  const std::string reference = checksum(problem + " --ranks 1 --pes 1");
  for (const std::string layout :
       {"--vp 6 --pes 1", "--vp 6 --pes 2 --lb rotate", "--vp 5 --pes 2 --lb greedy"}) {
    EXPECT_EQ(vela::testing::program_checksum(BRAMS_IMAGE_BINARY, problem + " " + layout),
              reference)
        << layout;
  }
  const std::string env = mpirun_env();
  const Result probe = run_program(env + MPIEXEC, "-np 1 true");
  if (probe.status != 0) GTEST_SKIP() << "mpirun cannot start processes here:\n" << probe.out;
  const Result across = run_program(env + MPIEXEC, std::string("-np 2 ") + BRAMS_IMAGE_BINARY +
                                                       " " + problem + " --vp 6 --lb rotate");
  EXPECT_EQ(across.status, 0) << across.out;
  EXPECT_EQ(field(across.out, "checksum"), reference) << across.out;
  const Result shared =
      run_program(BRAMS_IMAGE_BINARY, problem + " --vp 6 --pes 1 --vp-privatize none");
  EXPECT_NE(field(shared.out, "checksum"), reference) << shared.out;
}
#endif

#if defined(BRAMS_FORTRAN_BINARY)
// The Fortran twin (apps/brams-fortran: module state, mpif.h, packed halos, built by
// vela-mpif90) prints the C++ proxy's checksum on any PEs, with balancers moving its ranks and
// across processes; with its state shared it does not.
TEST(Brams, FortranTwinGivesTheCxxChecksum) {
  const std::string reference = checksum(problem + " --ranks 1 --pes 1");
  for (const std::string layout : {"--vp 1 --pes 1", "--vp 6 --pes 1", "--vp 6 --pes 2 --lb rotate",
                                   "--vp 5 --pes 2 --lb greedy"}) {
    EXPECT_EQ(vela::testing::program_checksum(BRAMS_FORTRAN_BINARY, layout + " " + problem),
              reference)
        << layout;
  }
  const std::string env = mpirun_env();
  const Result probe = run_program(env + MPIEXEC, "-np 1 true");
  if (probe.status != 0) GTEST_SKIP() << "mpirun cannot start processes here:\n" << probe.out;
  const Result across = run_program(env + MPIEXEC, std::string("-np 2 ") + BRAMS_FORTRAN_BINARY +
                                                       " --vp 6 --lb rotate " + problem);
  EXPECT_EQ(across.status, 0) << across.out;
  EXPECT_EQ(field(across.out, "checksum"), reference) << across.out;
  const Result shared =
      run_program(BRAMS_FORTRAN_BINARY, "--vp 6 --pes 1 --vp-privatize none " + problem);
  EXPECT_NE(field(shared.out, "checksum"), reference) << shared.out;
#if defined(BRAMS_FORTRAN_OPENMPI_BINARY)
  for (const int np : {1, 4, 6}) {
    const Result r = run_program(env + MPIEXEC, "-np " + std::to_string(np) + " " +
                                                    BRAMS_FORTRAN_OPENMPI_BINARY + " " + problem);
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_EQ(field(r.out, "checksum"), reference) << np << "\n" << r.out;
  }
#endif
}
#endif

// More ranks than columns: every rank finds it and aborts, and rank 0's message is printed every
// time (it was lost in about half the runs when another rank's MPI_Abort came first: issue
// 36, finding 7).
TEST(Brams, AnOptionErrorIsAlwaysPrinted) {
  for (int run = 0; run < 6; ++run) {
    const Result r = run_program(BRAMS_BINARY, "--ranks 2000 --nx 4 --ny 4 --pes 2 --no-pin");
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_NE(r.out.find("more than the 4 x 4 columns"), std::string::npos) << r.out;
  }
}

// The same source built against Open MPI and run by mpirun with N processes prints the
// checksum of --ranks N (of any N) on Vela.
TEST(Brams, OpenMpiRunOfTheSameSourceGivesTheSameChecksum) {
  const std::string env = mpirun_env();
  const Result probe = run_program(env + MPIEXEC, "-np 1 true");
  if (probe.status != 0) GTEST_SKIP() << "mpirun cannot start processes here:\n" << probe.out;
  const std::string reference = checksum(problem + " --ranks 1 --pes 1");
  for (const int np : {1, 4, 6}) {
    const Result r = run_program(
        env + MPIEXEC, "-np " + std::to_string(np) + " " + BRAMS_OPENMPI_BINARY + " " + problem);
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_EQ(field(r.out, "checksum"), reference) << np << "\n" << r.out;
  }
}

// The same, compiled by hand with Open MPI's wrapper as the user guide shows (mpicxx
// -DBRAMS_STANDALONE -Iinclude): nothing in the source depends on Vela's build (the progress
// line's header is all it takes from include/).
TEST_F(BramsFilesMpi, MpicxxBuildOfTheSourceGivesTheSameChecksum) {
  const std::string env = mpirun_env();
  const Result probe = run_program(env + MPIEXEC, "-np 1 true");
  if (probe.status != 0) GTEST_SKIP() << "mpirun cannot start processes here:\n" << probe.out;
  const std::string binary = path("brams_mpicxx");
  const std::string source = BRAMS_SOURCE_DIR;
  const Result built =
      run_program(MPICXX, "-O2 -DBRAMS_STANDALONE -I" + source + "/../../include " + source +
                              "/model.cpp " + source + "/netcdf_output.cpp -o " + binary);
  ASSERT_EQ(built.status, 0) << built.out;
  const std::string reference = checksum(problem + " --ranks 5 --pes 2");
  const Result r = run_program(env + MPIEXEC, "-np 5 " + binary + " " + problem);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(field(r.out, "checksum"), reference) << r.out;
}

// Ranks moving between processes at every MPI_Migrate with their module state.
TEST(Brams, ChecksumIsTheSameAcrossProcesses) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "ranks move between processes only outside sanitizer builds";
#else
  const std::string env = mpirun_env();
  const Result probe = run_program(env + MPIEXEC, "-np 1 true");
  if (probe.status != 0) GTEST_SKIP() << "mpirun cannot start processes here:\n" << probe.out;
  const std::string reference = checksum(problem + " --ranks 1 --pes 1");
  for (const std::string lb : {"rotate", "greedy"}) {
    const std::string args = problem + " --ranks 8 --lb " + lb + " --no-pin";
    const Result r = run_program(env + "timeout 120 " + MPIEXEC,
                                 "-np 2 " + std::string(BRAMS_BINARY) + " " + args);
    EXPECT_EQ(r.status, 0) << args << "\n" << r.out;
    EXPECT_EQ(field(r.out, "checksum"), reference) << args << "\n" << r.out;
  }
#endif
}

TEST(Brams, BadOptionsAreNamed) {
  struct Case {
    std::string args, expected;
  };
  const std::vector<Case> cases = {
      {"--nx 0", "--nx"},
      {"--ny -4", "--ny"},
      {"--nz 0", "--nz"},
      {"--steps 0", "--steps"},
      {"--nx 4 --ny 4 --ranks 32 --pes 1", "every rank needs at least one column"},
      {"--lb nosuch", "nosuch"},
      {"--lb-policy nosuch --lb greedy", "nosuch"},
      {"--privatize nosuch", "--privatize"},
      {"--ranks 4 --vp 5", "--ranks 4 and --vp 5 disagree"},
      {"--vp-grid 3x3 --ranks 4", "--vp-grid"},
      {"--frobnicate 3", "--frobnicate"},
      {"--nx 12abc", "--nx"},
      {"--steps 3 --ranks 2 --pes 1 --step-log /nonexistent-dir/steps.csv", "--step-log"},
      {"--steps 3 --ranks 2 --pes 1 --record /nonexistent-dir/trace.json", "--record"},
  };
  for (const Case& c : cases) {
    const Result r = run_program(BRAMS_BINARY, c.args + " --no-pin");
    EXPECT_EQ(r.status, 1) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find(c.expected), std::string::npos) << c.args << "\n" << r.out;
  }
  // A domain larger than memory: named, not a crash (ASan's allocator must return null too).
  const Result huge = run_program(
      "env ASAN_OPTIONS=allocator_may_return_null=1 TSAN_OPTIONS=allocator_may_return_null=1 " +
          std::string(BRAMS_BINARY),
      "--nx 1048576 --ny 1048576 --nz 4096 --ranks 1 --pes 1 --no-pin");
  EXPECT_EQ(huge.status, 1) << huge.out;
  EXPECT_NE(huge.out.find("cannot allocate"), std::string::npos) << huge.out;
  // The Open MPI build checks its options too.
  const Result r = run_program(BRAMS_OPENMPI_BINARY, "--nx 0");
  EXPECT_NE(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("--nx '0': expected an integer from 1"), std::string::npos) << r.out;
}

// The step log has one line per step; the recorded trace reads in vela-lb, with one object per
// rank, the run's steps, and the halo edges; a replay balances it.
TEST_F(BramsFiles, StepLogAndRecordedTraceAreReadable) {
  const std::string log = path("steps.csv");
  const std::string trace = path("trace.json");
  const Result r = run_program(BRAMS_BINARY, problem + " --ranks 6 --pes 2 --no-pin --step-log " +
                                                 log + " --record " + trace + " --record-pes 4");
  ASSERT_EQ(r.status, 0) << r.out;
  std::ifstream in(log);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "step,seconds,migrate_seconds");
  int lines = 0;
  while (std::getline(in, line)) {
    ++lines;
    EXPECT_EQ(line.rfind(std::to_string(lines) + ",", 0), 0u) << line;
  }
  EXPECT_EQ(lines, 12);

  const auto json = nlohmann::json::parse(std::ifstream(trace));
  EXPECT_EQ(json.at("steps").size(), 12u);
  EXPECT_EQ(json.at("initial").at("objects").at("id").size(), 6u);
  EXPECT_EQ(json.at("initial").at("pes").at("speed").size(), 4u);
  // 6 ranks in a 3 x 2 grid: 7 neighbour pairs, each a message both ways.
  EXPECT_EQ(json.at("initial").at("edges").at("from").size(), 14u);
  // Their coordinates are their places in that grid, as the runtime gives the strategies.
  const auto& objects = json.at("initial").at("objects");
  for (int r = 0; r < 6; ++r) {
    EXPECT_EQ(objects.at("x").at(r).get<double>(), r % 3) << r;
    EXPECT_EQ(objects.at("y").at(r).get<double>(), r / 3) << r;
  }
  const Result info = run_program(VELA_LB_BINARY, "trace info " + trace);
  EXPECT_EQ(info.status, 0) << info.out;
  EXPECT_NE(info.out.find("steps: 12"), std::string::npos) << info.out;
  const Result replay =
      run_program(VELA_LB_BINARY, "replay " + trace +
                                      " --policy periodic -P every=3 -P strategy=greedy "
                                      "--strategy-time 0");
  EXPECT_EQ(replay.status, 0) << replay.out;
  // The seed-scale tables' script on it: every strategy and the interval x threshold grid.
  const Result tables = run_program(
      "python3 " + std::string(BRAMS_REPLAY_TABLES),
      trace + " --vela-lb " + VELA_LB_BINARY + " --strategy-time 0 --json " + path("tables.json"));
  ASSERT_EQ(tables.status, 0) << tables.out;
  const auto figures = nlohmann::json::parse(std::ifstream(path("tables.json")));
  EXPECT_EQ(figures.at("steps").get<int>(), 12);
  EXPECT_EQ(figures.at("table_4_5").size(), 6u);
  EXPECT_EQ(figures.at("table_4_7").at("grid").size(), 4u);  // 12 steps: interval 1 only
}

// --lb-dump and --trace from the runtime: the dumped instances see the ranks at their blocks'
// places in the 3 x 2 grid (hilbert and rec-bisect-bf use these), the trace is Chrome JSON.
TEST_F(BramsFiles, LbDumpsCarryTheRankGridAndTheTraceOpens) {
  const std::string dumps = path("dumps"), trace = path("trace.json");
  const Result r = run_program(BRAMS_BINARY, problem +
                                                 " --ranks 6 --pes 2 --lb hilbert --no-pin "
                                                 "--lb-dump " +
                                                 dumps + " --trace " + trace);
  ASSERT_EQ(r.status, 0) << r.out;
  const auto instance = nlohmann::json::parse(std::ifstream(dumps + "/ranks-step1.json"));
  EXPECT_EQ(instance.at("dims").get<int>(), 2);
  const auto& objects = instance.at("objects");
  for (std::size_t k = 0; k < objects.at("id").size(); ++k) {
    const int id = objects.at("id")[k].get<int>();
    EXPECT_EQ(objects.at("x")[k].get<double>(), id % 3) << id;
    EXPECT_EQ(objects.at("y")[k].get<double>(), id / 3) << id;
  }
  const auto chrome = nlohmann::json::parse(std::ifstream(trace));
  EXPECT_FALSE(chrome.at("traceEvents").empty());
}

#ifdef BRAMS_TEST_NETCDF
// Reads variable `name` of a netCDF file whole, checking its units attribute.
std::vector<double> read_variable(const std::string& file, const char* name, std::size_t size,
                                  const std::string& units) {
  int nc = -1, var = -1;
  EXPECT_EQ(nc_open(file.c_str(), NC_NOWRITE, &nc), NC_NOERR) << file;
  EXPECT_EQ(nc_inq_varid(nc, name, &var), NC_NOERR) << name;
  std::vector<double> values(size);
  EXPECT_EQ(nc_get_var_double(nc, var, values.data()), NC_NOERR) << name;
  std::size_t length = 0;
  EXPECT_EQ(nc_inq_attlen(nc, var, "units", &length), NC_NOERR) << name;
  std::string text(length, ' ');
  EXPECT_EQ(nc_get_att_text(nc, var, "units", text.data()), NC_NOERR) << name;
  EXPECT_EQ(text, units) << name;
  nc_close(nc);
  return values;
}

// --output: a netCDF file with CF conventions, the domain assembled from every rank's block
// (the same values whatever the rank count), the printed maximum of qc in it, rain fallen by
// step 30 (cloud water first exceeds the fall-out threshold after step 12); a file that
// cannot be written is named and nothing partial is left.
TEST_F(BramsFiles, OutputIsNetcdfWithTheWholeDomain) {
  const std::string one = path("one.nc"), six = path("six.nc");
  const Result r1 =
      run_program(BRAMS_BINARY, problem + " --steps 30 --ranks 1 --pes 1 --no-pin --output " + one);
  ASSERT_EQ(r1.status, 0) << r1.out;
  const Result r6 = run_program(
      BRAMS_BINARY, problem + " --steps 30 --ranks 6 --pes 2 --lb rotate --no-pin --output " + six);
  ASSERT_EQ(r6.status, 0) << r6.out;
  int nc = -1;
  ASSERT_EQ(nc_open(six.c_str(), NC_NOWRITE, &nc), NC_NOERR);
  std::size_t length = 0;
  ASSERT_EQ(nc_inq_attlen(nc, NC_GLOBAL, "Conventions", &length), NC_NOERR);
  std::string conventions(length, ' ');
  nc_get_att_text(nc, NC_GLOBAL, "Conventions", conventions.data());
  EXPECT_EQ(conventions, "CF-1.8");
  for (const auto& [name, size] :
       {std::pair<const char*, std::size_t>{"x", 24}, {"y", 20}, {"z", 6}}) {
    int dim = -1;
    ASSERT_EQ(nc_inq_dimid(nc, name, &dim), NC_NOERR) << name;
    std::size_t n = 0;
    nc_inq_dimlen(nc, dim, &n);
    EXPECT_EQ(n, size) << name;
  }
  nc_close(nc);
  const std::size_t cells = 24 * 20 * 6;
  for (const auto& [name, units] : {std::pair<const char*, const char*>{"th", "K"},
                                    {"qv", "kg kg-1"},
                                    {"qc", "kg kg-1"},
                                    {"u", "m s-1"},
                                    {"v", "m s-1"}}) {
    const auto a = read_variable(one, name, cells, units);
    const auto b = read_variable(six, name, cells, units);
    EXPECT_EQ(std::memcmp(a.data(), b.data(), cells * sizeof(double)), 0) << name;
  }
  const auto rain = read_variable(six, "rain", 24 * 20, "m");
  EXPECT_GT(*std::max_element(rain.begin(), rain.end()), 0.0);
  const auto qc = read_variable(six, "qc", cells, "kg kg-1");
  const double largest = *std::max_element(qc.begin(), qc.end());
  const std::string printed = field(r6.out, "max qc").substr(0, 12);
  EXPECT_NEAR(largest, std::stod(printed), 1e-6 * largest) << r6.out;

  const Result bad = run_program(
      BRAMS_BINARY, problem + " --ranks 2 --pes 1 --no-pin --output " + path("missing/dir/out.nc"));
  EXPECT_EQ(bad.status, 1) << bad.out;
  EXPECT_NE(bad.out.find("--output '" + path("missing/dir/out.nc") + "'"), std::string::npos)
      << bad.out;
  EXPECT_FALSE(fs::exists(path("missing/dir/out.nc.part")));
}
#endif

// The experiments script (the README's main job) on a tiny case: every table's runs, the
// checksums identical, and the CSV and JSON results.
TEST_F(BramsFiles, ExperimentsScriptWritesTablesAndResults) {
  const Result r = run_program("python3 " + std::string(BRAMS_EXPERIMENTS),
                               "--binary " + std::string(BRAMS_BINARY) +
                                   " --pes 2 --nx 16 --ny 16 --nz 4 --steps 8 " +
                                   "--max-ratio 4 --out " + dir_.string());
  ASSERT_EQ(r.status, 0) << r.out;
  for (const std::string title :
       {"Table 4.3/4.4", "Table 4.2", "Table 4.5", "Table 4.6", "Table 4.7", "Table 4.1",
        "every configuration's runs identical"}) {
    EXPECT_NE(r.out.find(title), std::string::npos) << title << "\n" << r.out;
  }
  const auto json = nlohmann::json::parse(std::ifstream(dir_ / "results.json"));
  EXPECT_TRUE(json.at("checksums_identical").get<bool>());
  EXPECT_GT(json.at("runs").size(), 20u);
  std::ifstream csv(dir_ / "runs.csv");
  std::stringstream text;
  text << csv.rdbuf();
  EXPECT_EQ(text.str().rfind("table,label,ranks,pes,steps,time", 0), 0u) << text.str();
}

// With repeats, every time is the median of its runs with their range beside it, a reduction
// within the ranges is marked, and the machine's load and calibration loop are printed at the
// start and the end (a busy machine is warned about: apps/common/noise.py, checked directly).
TEST_F(BramsFiles, ExperimentsScriptShowsItsNoise) {
  const Result r = run_program("python3 " + std::string(BRAMS_EXPERIMENTS),
                               "--binary " + std::string(BRAMS_BINARY) +
                                   " --tables 4.5 --repeats 3 --pes 2 --nx 16 --ny 16 --nz 4 "
                                   "--steps 8 --no-report --out " +
                                   dir_.string());
  ASSERT_EQ(r.status, 0) << r.out;
  for (const std::string text : {"machine at the start: load average", "machine at the end",
                                 "calibration loop", "the median of 3 run(s)"}) {
    EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
  }
  const auto json = nlohmann::json::parse(std::ifstream(dir_ / "results.json"));
  for (const auto& run : json.at("runs")) {
    auto times = run.at("times").get<std::vector<double>>();
    ASSERT_EQ(times.size(), 3u);
    std::sort(times.begin(), times.end());
    EXPECT_EQ(run.at("time").get<double>(), times[1]);  // the median run is the one reported
    char range[64];
    std::snprintf(range, sizeof range, "%.3f (%.3f-%.3f)", times[1], times[0], times[2]);
    EXPECT_NE(r.out.find(range), std::string::npos) << range << "\n" << r.out;
  }
  const std::string noise =
      (fs::path(BRAMS_EXPERIMENTS).parent_path().parent_path() / "common").string();
  const Result checks = run_program(
      "python3",
      "-c \"import sys; sys.path.insert(0, '" + noise +
          "'); import noise; out = []; "
          "assert noise.overlap([1, 2], [1.5, 3]) and not noise.overlap([1, 2], [2.5, 3]);"
          "assert not noise.overlap([1], [1]);"
          "assert noise.spread([3.0, 1.0, 2.0], 1) == '2.0 (1.0-3.0)';"
          "t = noise.machine_state('end', 1e-9, out.append);"
          "assert 'WARNING: the machine was busy at the end' in out[-1], out;"
          "print('noise ok')\"");
  EXPECT_EQ(checks.status, 0) << checks.out;
  EXPECT_NE(checks.out.find("noise ok"), std::string::npos) << checks.out;
}

#if defined(BRAMS_FORTRAN_BINARY)
// With --fortran (the demo's), the Fortran twin's tables too: Table 4.1's three methods from
// Fortran and Table 4.5 beside the C++ proxy, every twin run with the C++ proxy's checksum.
TEST_F(BramsFiles, ExperimentsScriptRunsTheFortranTwinBesideTheCxxProxy) {
  const std::string twin_dir = fs::path(BRAMS_FORTRAN_BINARY).parent_path().string();
  const Result r = run_program("python3 " + std::string(BRAMS_EXPERIMENTS),
                               "--binary " + std::string(BRAMS_BINARY) + " --fortran " + twin_dir +
                                   " --tables 4.1,4.5 --pes 2 --nx 16 --ny 16 --nz 4 --steps 8 " +
                                   "--no-report --out " + dir_.string());
  ASSERT_EQ(r.status, 0) << r.out;
  for (const std::string title :
       {"Table 4.1 shape from Fortran", "TLS (!$omp threadprivate)",
        "Table 4.5 shape beside the C++ proxy", "every configuration's runs identical"}) {
    EXPECT_NE(r.out.find(title), std::string::npos) << title << "\n" << r.out;
  }
  const auto json = nlohmann::json::parse(std::ifstream(dir_ / "results.json"));
  EXPECT_TRUE(json.at("checksums_identical").get<bool>());
  EXPECT_EQ(json.at("tables").at("4.1_fortran").at("runs").size(), 9u);
  // Table 4.5's twin and the C++ proxy run in turn, each time.
  for (const auto& run : json.at("tables").at("4.5_fortran").at("runs")) {
    EXPECT_EQ(run.at("cxx_times").size(), 1u);
    EXPECT_EQ(run.at("fortran_times").size(), 1u);
  }
  EXPECT_EQ(json.at("tables").at("4.5_fortran").at("runs").size(), 3u);
  // A directory without the twin is refused, naming it.
  const Result missing = run_program("python3 " + std::string(BRAMS_EXPERIMENTS),
                                     "--binary " + std::string(BRAMS_BINARY) + " --fortran " +
                                         dir_.string() + " --out " + dir_.string());
  EXPECT_EQ(missing.status, 2) << missing.out;
  EXPECT_NE(missing.out.find("no executable brams-fortran"), std::string::npos) << missing.out;
}
#endif

}  // namespace

namespace {

// The weather model's ranks checkpointed at MPI_Migrate() and restarted on another PE count: the
// same checksum as the uninterrupted run, which the restart reaches without starting again.
TEST_F(BramsFiles, RestartFromACheckpointGivesTheSameChecksum) {
#if defined(VELA_SANITIZED_BUILD)
  GTEST_SKIP() << "checkpoints need ranks at fixed addresses, which sanitizer builds refuse";
#endif
  const std::string problem = "--ranks 8 --steps 60 --lb-every 10 --nx 32 --ny 32 --nz 10";
  const std::string reference = checksum(problem + " --pes 1");
  ASSERT_FALSE(reference.empty());
  const std::string dir = path("ckpt");
  EXPECT_EQ(
      checksum(problem + " --pes 2 --lb greedy --checkpoint " + dir + " --checkpoint-every 2"),
      reference);
  ASSERT_TRUE(std::filesystem::exists(dir + "/ranks.ckpt"));
  // Like every application, it says what its checkpoints and restarts did.
  const Result written = run_program(BRAMS_BINARY, problem + " --pes 2 --no-pin --checkpoint " +
                                                       path("again") + " --checkpoint-every 2");
  const std::string line = field(written.out, "checkpoints");
  EXPECT_NE(line.find(" bytes each  "), std::string::npos) << written.out;
  EXPECT_NE(line.find(" ms each"), std::string::npos) << written.out;
  EXPECT_NE(line.rfind("0 ", 0), 0u) << written.out;  // at least one checkpoint
  const Result restarted =
      run_program(BRAMS_BINARY, problem + " --pes 1 --no-pin --restart " + dir);
  EXPECT_EQ(field(restarted.out, "restart").rfind("8 ranks from sync point ", 0), 0u)
      << restarted.out;
  for (const int pes : {1, 3}) {
    EXPECT_EQ(checksum(problem + " --pes " + std::to_string(pes) + " --restart " + dir), reference)
        << pes << " PEs";
  }
  // Another problem size is refused, naming what differs.
  const Result other = run_program(BRAMS_BINARY,
                                   "--ranks 8 --steps 60 --lb-every 10 --nx 32 "
                                   "--ny 32 --nz 12 --pes 2 --no-pin --restart " +
                                       dir);
  EXPECT_NE(other.status, 0) << other.out;
  EXPECT_EQ(other.out.find("checksum:"), std::string::npos) << other.out;
}

}  // namespace
