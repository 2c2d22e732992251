// Running the project's programs from tests: their exit status and output, and a scratch
// directory per test.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

namespace vela::testing {

struct ProgramResult {
  int status = -1;  // exit status, -1 when it did not exit normally
  std::string out;  // stdout and stderr together
};

// Runs a shell command line as given (its redirections included): its stdout and exit status.
inline ProgramResult run_command(const std::string& command) {
  ProgramResult r;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) r.out.append(buffer.data(), n);
  const int raw = pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

inline ProgramResult run_program(const std::string& binary, const std::string& args) {
  return run_command(binary + " " + args + " 2>&1");
}

// The text after "NAME: " on the first line of `out` that starts with it, or "".
inline std::string output_field(const std::string& out, const std::string& name) {
  const std::string key = name + ": ";
  std::size_t start = out.rfind(key, 0) == 0 ? 0 : out.find("\n" + key);
  if (start == std::string::npos) return "";
  if (out[start] == '\n') ++start;
  const std::size_t begin = start + key.size();
  return out.substr(begin, out.find('\n', begin) - begin);
}

// The text after the first `key` anywhere in `out` up to the end of its line, or "".
inline std::string text_after(const std::string& out, const std::string& key) {
  const std::size_t at = out.find(key);
  if (at == std::string::npos) return "";
  const std::size_t from = at + key.size();
  return out.substr(from, out.find('\n', from) - from);
}

// Runs `binary` with `args` (unpinned) and returns its "checksum: " line, 16 hex digits; a
// failed run or a missing checksum fails the test, naming the command and its output.
inline std::string program_checksum(const std::string& binary, const std::string& args) {
  const ProgramResult r = run_program(binary, args + " --no-pin");
  EXPECT_EQ(r.status, 0) << args << "\n" << r.out;
  const std::string hex = output_field(r.out, "checksum");
  if (hex.size() != 16 || hex.find_first_not_of("0123456789abcdef") != std::string::npos) {
    ADD_FAILURE() << "no checksum line for " << args << "\n" << r.out;
    return "";
  }
  return hex;
}

// A fixture with a fresh directory for each test, removed afterwards.
class ScratchDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("vela_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  std::filesystem::path dir_;
};

// Open MPI's mpirun (`mpiexec`) of `program` on one host, offline, possibly as root; `env`
// adds variables (NAME=VALUE ...).
inline std::string openmpi_mpirun(const std::string& mpiexec, int processes,
                                  const std::string& program, const std::string& args,
                                  const std::string& env = "") {
  return "env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm=isolated "
         "OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none " +
         env + " " + mpiexec + " --oversubscribe -np " + std::to_string(processes) + " " + program +
         " " + args;
}

// The lines of `out`, sorted (ranks print in any order).
inline std::vector<std::string> sorted_lines(const std::string& out) {
  std::vector<std::string> v;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) v.push_back(line);
  std::sort(v.begin(), v.end());
  return v;
}

// The sorted lines that `command` prints (stdout and stderr), failing the test unless it exits 0.
inline std::vector<std::string> successful_output(const std::string& command) {
  const ProgramResult r = run_program(command, "");
  EXPECT_EQ(r.status, 0) << command << "\n" << r.out;
  return sorted_lines(r.out);
}

}  // namespace vela::testing
