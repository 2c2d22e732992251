// StdoutToStderr: what a C library prints to stdout while the guard lives goes to stderr, and
// stdout is back afterwards, also when several threads take the guard at once.
#include <gtest/gtest.h>

#include <cstdio>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "adapters/stdout_to_stderr.hpp"

namespace vela::lb::builtin {
namespace {

TEST(StdoutToStderr, MovesWhatIsPrintedMeanwhileToStderr) {
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  std::printf("before\n");  // buffered by stdio: must not cross over to stderr
  {
    const StdoutToStderr guard;
    std::printf("***Cannot bisect a graph with 0 vertices!\n");
    std::cout << "from iostream\n";
  }
  std::printf("after\n");
  std::fflush(stdout);
  const std::string out = ::testing::internal::GetCapturedStdout();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(out, "before\nafter\n");
  EXPECT_EQ(err, "***Cannot bisect a graph with 0 vertices!\nfrom iostream\n");
}

TEST(StdoutToStderr, ThreadsTakingTheGuardTogetherLeaveStdoutInPlace) {
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([t] {
      for (int k = 0; k < 50; ++k) {
        const StdoutToStderr guard;
        std::printf("thread %d call %d\n", t, k);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  std::printf("after\n");
  std::fflush(stdout);
  const std::string out = ::testing::internal::GetCapturedStdout();
  const std::string err = ::testing::internal::GetCapturedStderr();
  // Had two guards overlapped, the second would have saved the first's redirection and
  // restored it for good: "after" would be on stderr.
  EXPECT_EQ(out, "after\n");
  std::size_t lines = 0;
  for (const char c : err) lines += c == '\n' ? 1 : 0;
  EXPECT_EQ(lines, 8u * 50u);
}

}  // namespace
}  // namespace vela::lb::builtin
