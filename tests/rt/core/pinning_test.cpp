// PE pinning: a pinned PE thread runs only on a PU of its core, and a refusal
// is reported with a reason instead of aborting.
#include "core/pinning.hpp"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace vela::rt {
namespace {

// What a thread saw after asking to be pinned.
struct PinResult {
  bool pinned = false;
  std::string why_not;
  std::vector<unsigned> affinity;  // the CPUs the thread may run on afterwards
  int ran_on = -1;                 // sched_getcpu() afterwards
};

// Pins the calling thread and reports what it sees afterwards.
PinResult pin_self(Pinning& pinning, int pe) {
  PinResult result;
  result.pinned = pinning.pin(pe, &result.why_not);
  cpu_set_t set;
  CPU_ZERO(&set);
  if (pthread_getaffinity_np(pthread_self(), sizeof set, &set) == 0) {
    for (unsigned cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &set)) result.affinity.push_back(cpu);
    }
  }
  result.ran_on = sched_getcpu();
  return result;
}

PinResult pin_in_new_thread(Pinning& pinning, int pe) {
  PinResult result;
  std::thread thread([&] { result = pin_self(pinning, pe); });
  thread.join();
  return result;
}

TEST(Pinning, HasAtLeastOneCoreAndNoMoreThanTheHardwareThreads) {
  Pinning pinning;
  EXPECT_GE(pinning.cores(), 1);
  EXPECT_GE(available_cores(), 1);
  if (const unsigned hardware = std::thread::hardware_concurrency(); hardware > 0) {
    EXPECT_LE(pinning.cores(), static_cast<int>(hardware));
  }
}

TEST(Pinning, CoresHaveDisjointNonEmptyPuSets) {
  Pinning pinning;
  std::set<unsigned> seen;
  for (int pe = 0; pe < pinning.cores(); ++pe) {
    const std::vector<unsigned> pus = pinning.core_pus(pe);
    if (pus.empty()) GTEST_SKIP() << "no hwloc topology on this machine";
    for (unsigned pu : pus) EXPECT_TRUE(seen.insert(pu).second) << "PU " << pu << " twice";
  }
}

TEST(Pinning, PeNumbersWrapAroundTheCores) {
  Pinning pinning;
  const int cores = pinning.cores();
  EXPECT_EQ(pinning.core_pus(1), pinning.core_pus(1 + cores));
  EXPECT_EQ(pinning.core_pus(0), pinning.core_pus(3 * cores));
}

TEST(Pinning, PinnedThreadRunsOnlyOnThePuOfItsCore) {
  Pinning pinning;
  for (int pe : {0, pinning.cores() - 1, pinning.cores()}) {
    const PinResult result = pin_in_new_thread(pinning, pe);
    if (!result.pinned) {
      // Containers may refuse binding; then the reason must say so.
      EXPECT_FALSE(result.why_not.empty());
      continue;
    }
    const std::vector<unsigned> pus = pinning.core_pus(pe);
    ASSERT_FALSE(pus.empty());
    EXPECT_EQ(result.affinity, std::vector<unsigned>{pus.front()}) << "PE " << pe;
    ASSERT_GE(result.ran_on, 0);
    EXPECT_EQ(static_cast<unsigned>(result.ran_on), pus.front()) << "PE " << pe;
  }
}

TEST(Pinning, ManyThreadsPinConcurrently) {
  Pinning pinning;
  const int pes = 2 * pinning.cores() + 1;
  std::vector<PinResult> results(static_cast<std::size_t>(pes));
  std::vector<std::thread> threads;
  for (int pe = 0; pe < pes; ++pe) {
    threads.emplace_back(
        [&, pe] { results[static_cast<std::size_t>(pe)] = pin_self(pinning, pe); });
  }
  for (std::thread& thread : threads) thread.join();
  for (int pe = 0; pe < pes; ++pe) {
    const PinResult& result = results[static_cast<std::size_t>(pe)];
    if (result.pinned) {
      EXPECT_EQ(result.affinity, std::vector<unsigned>{pinning.core_pus(pe).front()})
          << "PE " << pe;
    } else {
      EXPECT_FALSE(result.why_not.empty()) << "PE " << pe;
    }
  }
}

TEST(Pinning, NegativePeIsRefusedWithAReason) {
  Pinning pinning;
  std::string why_not;
  EXPECT_FALSE(pinning.pin(-1, &why_not));
  EXPECT_NE(why_not.find("-1"), std::string::npos) << why_not;
  EXPECT_FALSE(pinning.pin(-1, nullptr));  // no reason wanted: still no crash
}

}  // namespace
}  // namespace vela::rt
