// The progress line: its text, when it is drawn, and that it stays silent where it must.
#include "vela/progress/reporter.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using vela::progress::Clock;
using vela::progress::describe;
using vela::progress::Reporter;
using vela::progress::Terminal;
using vela::progress::Work;

// A terminal whose clock the test moves and whose output it keeps.
struct FakeTerminal {
  bool is_terminal = true;
  int columns = 0;
  Clock::time_point now{};
  std::string out;

  Terminal terminal() {
    Terminal t;
    t.is_terminal = is_terminal;
    t.columns = columns;
    t.write = [this](std::string_view text) { out += text; };
    t.now = [this] { return now; };
    return t;
  }
};

std::string text(const Work& work, std::uint64_t done, double seconds, bool finished = false) {
  return std::string(describe(work, done, seconds, finished).view());
}

TEST(ProgressLine, ShowsDoneTotalPercentRateAndTimeLeft) {
  const Work work{"replay", "steps", 2400};
  // 600 steps in 2 s: 300 steps/s, 1800 left take 6 s.
  EXPECT_EQ(text(work, 600, 2.0), "replay: 600/2400 steps (25%)  300 steps/s  6.0 s left");
  EXPECT_EQ(text(work, 1, 4.0), "replay: 1/2400 steps (0%)  0.25 steps/s  2h39m left");
  EXPECT_EQ(text(work, 1000, 20.0), "replay: 1000/2400 steps (41%)  50.0 steps/s  28 s left");
  EXPECT_EQ(text(work, 240, 10.0), "replay: 240/2400 steps (10%)  24.0 steps/s  1m30s left");
}

TEST(ProgressLine, ReachesOneHundredPercentOnlyWhenDone) {
  const Work work{"trace generate", "steps", 1000};
  EXPECT_EQ(text(work, 999, 3.0).substr(0, 40), "trace generate: 999/1000 steps (99%)  33");
  EXPECT_NE(text(work, 1000, 3.0).find("(100%)"), std::string::npos);
  EXPECT_EQ(text(work, 1000, 3.0).find("left"), std::string::npos);  // nothing is left
}

// The percentage is done * 100 / total rounded down, exactly: in floating point 171 of 300 came
// out 56%.
TEST(ProgressLine, PercentIsExactWholeNumbers) {
  for (const std::uint64_t total : {3u, 7u, 300u, 1000u, 2400u}) {
    const Work work{"brams", "steps", total};
    for (std::uint64_t done = 0; done < total; ++done) {
      const std::string expected = "(" + std::to_string(done * 100 / total) + "%)";
      EXPECT_NE(text(work, done, 1.0).find(expected), std::string::npos)
          << done << "/" << total << ": " << text(work, done, 1.0);
    }
  }
  const std::uint64_t huge = std::uint64_t{1} << 62;  // past where done * 100 fits
  EXPECT_NE(text(Work{"x", "steps", huge}, huge / 2, 1.0).find("(50%)"), std::string::npos);
}

TEST(ProgressLine, WithoutATotalShowsDoneAndRateOnly) {
  const Work work{"compare", "objects", 0};
  EXPECT_EQ(text(work, 5000, 2.0), "compare: 5000 objects  2500 objects/s");
}

TEST(ProgressLine, FinishedLineSaysHowLongItTook) {
  const Work work{"jacobi2d", "steps", 100};
  EXPECT_EQ(text(work, 100, 125.0, true),
            "jacobi2d: 100/100 steps (100%)  0.80 steps/s  done in 2m05s");
}

TEST(ProgressLine, NoRateBeforeAnyTimePassed) {
  EXPECT_EQ(text({"x", "steps", 10}, 0, 0.0), "x: 0/10 steps (0%)");
  // No rate yet: no time left either.
  EXPECT_EQ(text({"x", "steps", 10}, 0, 5.0), "x: 0/10 steps (0%)  0.00 steps/s");
}

TEST(Reporter, DrawsNothingBeforeTheDelayThenRedrawsInPlace) {
  FakeTerminal t;
  Reporter r({"replay", "steps", 100}, false, t.terminal(), {1000ms, 100ms});
  t.now += 500ms;
  r.set(10);
  EXPECT_EQ(t.out, "") << "work shorter than the delay shows nothing";
  t.now += 500ms;
  r.set(20);
  EXPECT_EQ(t.out, "\rreplay: 20/100 steps (20%)  20.0 steps/s  4.0 s left\x1b[K");
  t.now += 1000ms;
  r.set(40);
  EXPECT_EQ(t.out.substr(t.out.rfind('\r')),
            "\rreplay: 40/100 steps (40%)  20.0 steps/s  3.0 s left\x1b[K");
  EXPECT_EQ(t.out.find('\n'), std::string::npos) << "one line, redrawn in place";
}

TEST(Reporter, RedrawsAtMostOncePerInterval) {
  FakeTerminal t;
  Reporter r({"x", "steps", 1000000}, false, t.terminal(), {0ms, 100ms});
  for (int i = 0; i < 1000; ++i) {
    t.now += 1ms;  // a second in all
    r.advance();
  }
  const auto lines = std::count(t.out.begin(), t.out.end(), '\r');
  EXPECT_GE(lines, 9);
  EXPECT_LE(lines, 11);
}

TEST(Reporter, FinishEndsTheLineWithANewline) {
  FakeTerminal t;
  Reporter r({"trace generate", "steps", 50}, false, t.terminal(), {1000ms, 100ms});
  t.now += 2s;
  r.set(25);
  t.now += 2s;
  r.set(50);
  r.finish();
  ASSERT_FALSE(t.out.empty());
  EXPECT_EQ(t.out.back(), '\n');
  EXPECT_EQ(t.out.substr(t.out.rfind('\r')),
            "\rtrace generate: 50/50 steps (100%)  12.5 steps/s  done in 4.0 s\x1b[K\n");
  r.finish();
  r.set(60);
  EXPECT_EQ(std::count(t.out.begin(), t.out.end(), '\n'), 1) << "nothing after finish";
}

TEST(Reporter, ShortWorkFinishesSilently) {
  FakeTerminal t;
  Reporter r({"x", "steps", 10}, false, t.terminal(), {1000ms, 100ms});
  t.now += 300ms;
  r.set(10);
  r.finish();
  EXPECT_EQ(t.out, "");
}

TEST(Reporter, AbandonedLineGetsItsNewline) {
  FakeTerminal t;
  {
    Reporter r({"x", "steps", 10}, false, t.terminal(), {1000ms, 100ms});
    t.now += 2s;
    r.set(3);
  }  // an exception, an early return: no finish()
  ASSERT_FALSE(t.out.empty());
  EXPECT_EQ(t.out.front(), '\r');
  EXPECT_EQ(t.out.back(), '\n');
  EXPECT_NE(t.out.find("3/10 steps"), std::string::npos);
}

TEST(Reporter, SilentWhenNotATerminal) {
  FakeTerminal t;
  t.is_terminal = false;
  {
    Reporter r({"x", "steps", 10}, false, t.terminal(), {0ms, 0ms});
    EXPECT_FALSE(r.active());
    t.now += 5s;
    r.set(5);
    r.finish();
  }
  EXPECT_EQ(t.out, "");
}

TEST(Reporter, SilentWhenQuiet) {
  FakeTerminal t;
  {
    Reporter r({"x", "steps", 10}, true, t.terminal(), {0ms, 0ms});
    EXPECT_FALSE(r.active());
    t.now += 5s;
    r.set(5);
    r.finish();
  }
  EXPECT_EQ(t.out, "");
}

TEST(Reporter, CutsTheLineToTheTerminalWidth) {
  FakeTerminal t;
  t.columns = 20;
  Reporter r({"replay", "steps", 100}, false, t.terminal(), {0ms, 0ms});
  t.now += 1s;
  r.set(50);
  EXPECT_EQ(t.out, "\rreplay: 50/100 step\x1b[K")
      << "19 characters: no wrap, so \\r stays on the line";
}

TEST(Reporter, CountsEveryThreadsUnits) {
  FakeTerminal t;
  // A real clock here: the fake one is not meant for several threads.
  Terminal terminal = t.terminal();
  terminal.now = [] { return Clock::now(); };
  std::string& out = t.out;
  Reporter r({"x", "steps", 40000}, false, std::move(terminal), {0ms, 0ms});
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; ++k) {
    threads.emplace_back([&r] {
      for (int i = 0; i < 10000; ++i) r.advance();
    });
  }
  for (std::thread& th : threads) th.join();
  r.finish();
  EXPECT_NE(out.find("\rx: 40000/40000 steps (100%)"), std::string::npos)
      << out.substr(out.size() - 200);
  EXPECT_EQ(out.back(), '\n');
}

}  // namespace
