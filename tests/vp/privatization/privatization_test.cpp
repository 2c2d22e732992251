// Privatized globals: RankGlobals on their own, without the rank runtime (several
// "ranks" switched in and out on one thread, and on two threads to stand for a migration).
#include <gtest/gtest.h>
#include <pthread.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "privatization/privatization.hpp"
#include "privatization/privatization_detail.hpp"
#include "privatization/thread_locals.hpp"
#include "vela/rt/runtime.hpp"
#include "vela/vp/privatized.hpp"
#include "vela/vp/vp.hpp"

namespace {

using vela::vp::Error;
using vela::vp::Options;
using vela::vp::privatized;
using vela::vp::detail::RankGlobals;

// Counts copies, to show that a switch copies no privatized variable.
struct Counted {
  static inline int copies = 0;
  int value = 0;
  explicit Counted(int v) : value(v) {}
  Counted(const Counted& other) : value(other.value) { ++copies; }
  Counted& operator=(const Counted&) = default;
};

privatized<int> counter{7};
privatized<std::vector<double>> values{1.0, 2.0};
privatized<std::string> name;
privatized<Counted> counted{Counted(5)};

// Thread-locals of the test program, and one that stands for the runtime's (carried).
thread_local int tls_counter = 11;
thread_local int tls_zero;
thread_local int tls_carried = 0;
// Makes the executable's TLS block much larger than what a switch copies.
thread_local char tls_big[1 << 16];

// Read and written through calls the optimizer cannot see into: these tests move the thread
// pointer under their own feet, which rank code never sees (its thread pointer is fixed).
[[gnu::noinline, gnu::noipa]] int& tls_counter_ref() {
  return tls_counter;
}
[[gnu::noinline, gnu::noipa]] int& tls_zero_ref() {
  return tls_zero;
}
[[gnu::noinline, gnu::noipa]] int& tls_carried_ref() {
  return tls_carried;
}
[[gnu::noinline, gnu::noipa]] char* tls_big_data() {
  return tls_big;
}

// The TLS method where it runs; the reason where it does not (another platform, sanitizers).
std::string tls_unavailable() {
  try {
    vela::vp::detail::tls_layout();
    return {};
  } catch (const Error& e) {
    return e.what();
  }
}

#define SKIP_WITHOUT_TLS()                                   \
  do {                                                       \
    const std::string why = tls_unavailable();               \
    if (!why.empty()) GTEST_SKIP() << "TLS method: " << why; \
  } while (false)

TEST(Privatized, OutsideARankIsTheMainCopy) {
  EXPECT_EQ(vela::vp::detail::private_block(), nullptr);
  EXPECT_EQ(&counter.get(), &counter.main_copy());
  EXPECT_EQ(*counter, 7);
  EXPECT_EQ(values->size(), 2U);
}

TEST(Privatized, EachRankHasItsOwnCopy) {
  RankGlobals a(0, false);
  RankGlobals b(1, false);
  a.switch_in();
  EXPECT_NE(&counter.get(), &counter.main_copy());
  ++counter;
  counter += 2;
  values->push_back(3.0);
  name = "a";
  const int a_seen = counter;
  a.switch_out();
  b.switch_in();
  const int b_start = counter;
  const std::size_t b_values = values->size();
  const std::string b_name = *name;
  counter = 20;
  b.switch_out();
  a.switch_in();
  const int a_again = counter.get();
  const std::size_t a_values = values->size();
  const std::string a_name = name.get();
  a.switch_out();

  EXPECT_EQ(a_seen, 10);
  EXPECT_EQ(b_start, 7);
  EXPECT_EQ(b_values, 2U);
  EXPECT_EQ(b_name, "");
  EXPECT_EQ(a_again, 10);
  EXPECT_EQ(a_values, 3U);
  EXPECT_EQ(a_name, "a");
  EXPECT_EQ(*counter, 7);  // the main copy never changed
  EXPECT_EQ(values->size(), 2U);
}

TEST(Privatized, RanksStartFromTheMainCopy) {
  counter.main_copy() = 8;
  RankGlobals a(0, false);
  a.switch_in();
  counter = 100;
  a.switch_out();
  RankGlobals b(1, false);  // made after a ran: starts from the main copy, not from a's
  b.switch_in();
  const int b_start = counter;
  b.switch_out();
  counter.main_copy() = 7;
  EXPECT_EQ(b_start, 8);
}

TEST(Privatized, SwitchingCopiesNothing) {
  const int before = Counted::copies;
  std::vector<std::unique_ptr<RankGlobals>> ranks;
  for (int r = 0; r < 4; ++r) ranks.push_back(std::make_unique<RankGlobals>(r, false));
  EXPECT_EQ(Counted::copies, before + 4);  // one copy per rank, when it starts
  for (int i = 0; i < 1000; ++i) {
    RankGlobals& g = *ranks[static_cast<std::size_t>(i) % ranks.size()];
    g.switch_in();
    counted->value += 1;
    g.switch_out();
  }
  EXPECT_EQ(Counted::copies, before + 4);
  ranks[0]->switch_in();
  const int first = counted->value;
  ranks[0]->switch_out();
  EXPECT_EQ(first, 5 + 250);
  EXPECT_GE(vela::vp::detail::privatized_variables(), 4U);
}

TEST(Privatized, RegisteringWhileRanksLiveThrows) {
  int global = 0;
  RankGlobals a(0, false);
  EXPECT_THROW(privatized<int> late{1}, Error);
  EXPECT_THROW(vela::vp::register_global(global), Error);
  EXPECT_THROW(vela::vp::unregister_globals(), Error);
}

TEST(Privatized, ALocalVariableUnregistersItself) {
  const std::size_t before = vela::vp::detail::privatized_variables();
  {
    privatized<std::vector<int>> local{1, 2, 3};
    EXPECT_EQ(vela::vp::detail::privatized_variables(), before + 1);
    EXPECT_EQ(local->size(), 3U);
  }
  EXPECT_EQ(vela::vp::detail::privatized_variables(), before);
  RankGlobals a(0, false);  // does not copy the destroyed one
}

// ---- registered globals (copied in and out) ----

int plain = 3;
double plain_array[4] = {1, 2, 3, 4};

TEST(RegisteredGlobals, EachRankHasItsOwnValues) {
  vela::vp::register_global(plain);
  vela::vp::register_global(plain_array);
  vela::vp::register_global(plain);  // again: nothing
  EXPECT_EQ(vela::vp::detail::registered_globals(), 2U);
  EXPECT_EQ(vela::vp::detail::registered_global_bytes(), sizeof plain + sizeof plain_array);
  EXPECT_THROW(vela::vp::register_global(&plain_array[1], sizeof(double)), Error);
  {
    RankGlobals a(0, false);
    a.switch_in();
    const int a_start = plain;
    plain = 10;
    plain_array[3] = 40;
    a.switch_out();
    RankGlobals b(1, false);  // made after a ran: starts from the values before the run
    b.switch_in();
    const int b_start = plain;
    const double b_array = plain_array[3];
    plain = 20;
    b.switch_out();
    a.switch_in();
    const int a_again = plain;
    const double a_array = plain_array[3];
    a.switch_out();
    EXPECT_EQ(a_start, 3);
    EXPECT_EQ(b_start, 3);
    EXPECT_EQ(b_array, 4.0);
    EXPECT_EQ(a_again, 10);
    EXPECT_EQ(a_array, 40.0);
  }
  // The last rank gone, the globals are as before the run.
  EXPECT_EQ(plain, 3);
  EXPECT_EQ(plain_array[3], 4.0);
  vela::vp::unregister_globals();
  EXPECT_EQ(vela::vp::detail::registered_globals(), 0U);
}

TEST(RegisteredGlobals, OverlappingRangesAreRejected) {
  static double values[8] = {};
  vela::vp::register_global(&values[4], 2 * sizeof(double));
  EXPECT_THROW(vela::vp::register_global(&values[2], 3 * sizeof(double)), Error);  // below
  EXPECT_THROW(vela::vp::register_global(&values[5], 2 * sizeof(double)), Error);  // inside
  EXPECT_NO_THROW(vela::vp::register_global(&values[2], 2 * sizeof(double)));      // adjacent
  EXPECT_NO_THROW(vela::vp::register_global(&values[6], 2 * sizeof(double)));
  EXPECT_EQ(vela::vp::detail::registered_globals(), 3U);
  vela::vp::unregister_globals();
}

TEST(RegisteredGlobals, NeedOnePe) {
  Options options;
  vela::vp::register_global(plain);
  EXPECT_NO_THROW(vela::vp::detail::check_privatization(options, 1));
  try {
    vela::vp::detail::check_privatization(options, 2);
    ADD_FAILURE() << "two PEs accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--pes 1"), std::string::npos) << e.what();
  }
  vela::vp::unregister_globals();
  EXPECT_NO_THROW(vela::vp::detail::check_privatization(options, 2));
}

// ---- thread_local variables (the TLS method) ----

TEST(TlsGlobals, CheckNamesTheOption) {
  Options options;
  options.tls_globals = true;
  const std::string why = tls_unavailable();
  if (why.empty()) {
    EXPECT_NO_THROW(vela::vp::detail::check_privatization(options, 2));
  } else {
    EXPECT_NE(why.find("--vp-tls-globals"), std::string::npos) << why;
    EXPECT_THROW(vela::vp::detail::check_privatization(options, 2), Error);
    GTEST_SKIP() << "TLS method: " << why;
  }
}

TEST(TlsGlobals, EachRankHasItsOwnFreshCopy) {
  SKIP_WITHOUT_TLS();
  tls_counter_ref() = 50;  // the thread's own, not the initial value
  tls_zero_ref() = 60;
  RankGlobals a(0, true);
  RankGlobals b(1, true);
  a.switch_in();
  const int a_start = tls_counter_ref();
  const int a_zero = tls_zero_ref();
  tls_counter_ref() = 1;
  a.switch_out();
  const int thread_after_a = tls_counter_ref();
  b.switch_in();
  const int b_start = tls_counter_ref();
  tls_counter_ref() = 2;
  b.switch_out();
  a.switch_in();
  const int a_again = tls_counter_ref();
  a.switch_out();

  EXPECT_EQ(a_start, 11);  // the initialization image
  EXPECT_EQ(a_zero, 0);    // .tbss
  EXPECT_EQ(thread_after_a, 50);
  EXPECT_EQ(b_start, 11);
  EXPECT_EQ(a_again, 1);
  EXPECT_EQ(tls_counter_ref(), 50);
  EXPECT_EQ(tls_zero_ref(), 60);
  tls_counter_ref() = 11;
  tls_zero_ref() = 0;
}

TEST(TlsGlobals, CarriedThreadLocalsKeepTheThreadsValue) {
  SKIP_WITHOUT_TLS();
  vela::vp::detail::carry_thread_local(&tls_carried_ref(), sizeof(int));
  tls_carried_ref() = 5;
  RankGlobals a(0, true);
  a.switch_in();
  const int inside = tls_carried_ref();
  tls_carried_ref() = 6;  // the runtime changes its state while the rank runs
  a.switch_out();
  EXPECT_EQ(inside, 5);
  EXPECT_EQ(tls_carried_ref(), 6);
  tls_carried_ref() = 7;
  a.switch_in();
  const int again = tls_carried_ref();
  a.switch_out();
  EXPECT_EQ(again, 7);
}

TEST(TlsGlobals, PrivatizedVariablesStillWork) {
  SKIP_WITHOUT_TLS();
  RankGlobals a(0, true);
  RankGlobals b(1, true);
  a.switch_in();
  counter = 1;
  a.switch_out();
  b.switch_in();
  const int b_start = counter;
  b.switch_out();
  a.switch_in();
  const int a_again = counter;
  a.switch_out();
  EXPECT_EQ(b_start, 7);
  EXPECT_EQ(a_again, 1);
}

TEST(TlsGlobals, TheCLibraryWorksInARank) {
  SKIP_WITHOUT_TLS();
  const pthread_t self = pthread_self();
  RankGlobals a(0, true);
  std::byte* const outside = vela::vp::detail::thread_pointer();
  a.switch_in();
  const bool moved = vela::vp::detail::thread_pointer() != outside;
  errno = 0;
  const long big = std::strtol("99999999999999999999999", nullptr, 10);
  const int error = errno;
  std::vector<void*> blocks;
  for (std::size_t i = 1; i < 2000; ++i) blocks.push_back(std::malloc(i * 7));
  for (void* p : blocks) std::free(p);
  std::string thrown;
  try {
    throw std::runtime_error("inside");
  } catch (const std::exception& e) {
    thrown = e.what();
  }
  const bool same_thread = pthread_equal(pthread_self(), self) != 0;
  a.switch_out();
  EXPECT_TRUE(moved);
  EXPECT_EQ(big, LONG_MAX);
  EXPECT_EQ(error, ERANGE);
  EXPECT_EQ(errno, ERANGE);  // the C library's TLS goes back to the thread
  EXPECT_EQ(thrown, "inside");
  EXPECT_TRUE(same_thread);
}

TEST(TlsGlobals, ARankMovesBetweenThreads) {
  SKIP_WITHOUT_TLS();
  RankGlobals a(0, true);
  int* first_address = nullptr;
  int* second_address = nullptr;
  int seen_on_second = 0;
  int thread_value_on_second = 0;
  std::byte* tp_first = nullptr;
  std::byte* tp_second = nullptr;
  std::thread([&] {
    a.switch_in();
    tls_counter_ref() = 42;
    first_address = &tls_counter_ref();
    tp_first = vela::vp::detail::thread_pointer();
    a.switch_out();
  }).join();
  std::thread([&] {
    tls_counter_ref() = 13;
    a.switch_in();
    seen_on_second = tls_counter_ref();
    second_address = &tls_counter_ref();
    tp_second = vela::vp::detail::thread_pointer();
    std::free(std::malloc(100));
    a.switch_out();
    thread_value_on_second = tls_counter_ref();
  }).join();
  EXPECT_EQ(seen_on_second, 42);
  EXPECT_EQ(first_address, second_address);  // an address kept across a migration stays good
  EXPECT_EQ(tp_first, tp_second);
  EXPECT_EQ(thread_value_on_second, 13);
}

TEST(TlsGlobals, TheSystemCallWorksWhereWrfsbaseIsNotAllowed) {
  SKIP_WITHOUT_TLS();
  EXPECT_FALSE(vela::vp::detail::tls_use_fsgsbase(false));  // arch_prctl from now on
  RankGlobals a(0, true);
  std::byte* const outside = vela::vp::detail::thread_pointer();
  a.switch_in();
  const bool moved = vela::vp::detail::thread_pointer() != outside;
  tls_counter_ref() = 3;
  a.switch_out();
  a.switch_in();
  const int again = tls_counter_ref();
  a.switch_out();
  vela::vp::detail::tls_use_fsgsbase(true);
  EXPECT_TRUE(moved);
  EXPECT_EQ(again, 3);
  EXPECT_EQ(tls_counter_ref(), 11);
}

TEST(TlsGlobals, SwitchCostDoesNotGrowWithThreadLocals) {
  SKIP_WITHOUT_TLS();
  tls_big_data()[0] = 1;
  const auto& layout = vela::vp::detail::tls_layout();
  EXPECT_GE(layout.executable_bytes, sizeof tls_big);
  vela::vp::detail::TlsBlock block;
  // The executable's block (this program's thread_locals) is never copied by a switch.
  EXPECT_LT(block.bytes_per_switch(), layout.executable_bytes / 4);
  EXPECT_LT(block.bytes_per_switch(), 16U * 1024);
}

// ---- end to end: ranks of vp::run, yielding between increments and migrating ----

enum class Method { privatized, tls, copy };

privatized<int> run_counter{0};
thread_local int run_tls_counter = 0;
int run_plain_counter = 0;

[[gnu::noinline]] int& counter_of(Method m) {
  switch (m) {
    case Method::privatized:
      return run_counter.get();
    case Method::tls:
      return run_tls_counter;
    case Method::copy:
      return run_plain_counter;
  }
  return run_plain_counter;
}

// 8 ranks each count to 4 x 50 in their own copy of the variable, yielding after every
// increment (so the other ranks of the PE run and change theirs) and balancing with `rotate`
// after every 50 (so with 2 PEs every rank moves). Returns how many ranks always saw their own
// count; `migrations` gets the run's rank moves.
int ranks_that_kept_their_count(Method m, int pes, std::uint64_t& migrations) {
  vela::rt::Options options;
  options.pes = pes;
  options.pin = false;
  options.lb = "rotate";
  vela::rt::Runtime runtime(options);
  vela::vp::Options v;
  v.ranks = 8;
  v.tls_globals = m == Method::tls;
  std::atomic<int> kept{0};
  vela::vp::run(runtime, v, [&] {
    bool good = counter_of(m) == 0;
    int expected = 0;
    for (int round = 0; round < 4; ++round) {
      for (int k = 0; k < 50; ++k) {
        counter_of(m) += 1 + vela::vp::rank();
        expected += 1 + vela::vp::rank();
        vela::vp::yield();
        good = good && counter_of(m) == expected;
      }
      vela::vp::migrate();
      good = good && counter_of(m) == expected;
    }
    if (good) kept++;
  });
  migrations = vela::vp::last_run().migrations;
  return kept.load();
}

TEST(PrivatizedRun, EachRankKeepsItsCountAcrossYieldsAndMigrations) {
  std::uint64_t migrations = 0;
  EXPECT_EQ(ranks_that_kept_their_count(Method::privatized, 2, migrations), 8);
  EXPECT_GT(migrations, 0U);
  EXPECT_EQ(*run_counter, 0);  // the main copy
}

TEST(PrivatizedRun, ThreadLocalsWithTheTlsMethod) {
  SKIP_WITHOUT_TLS();
  std::uint64_t migrations = 0;
  try {
    EXPECT_EQ(ranks_that_kept_their_count(Method::tls, 2, migrations), 8);
  } catch (const Error& e) {
    // What a rank sees when the core's running-rank thread_local is not carried.
    FAIL() << e.what() << " (with --vp-tls-globals the core must register its thread-locals "
           << "with vela::vp::detail::carry_thread_local)";
  }
  EXPECT_GT(migrations, 0U);
  EXPECT_EQ(run_tls_counter, 0);  // the main thread's own
}

TEST(PrivatizedRun, RegisteredGlobalsOnOnePe) {
  vela::vp::register_global(run_plain_counter);
  std::uint64_t migrations = 0;
  EXPECT_EQ(ranks_that_kept_their_count(Method::copy, 1, migrations), 8);
  EXPECT_EQ(run_plain_counter, 0);  // as before the run
  vela::vp::unregister_globals();
}

TEST(PrivatizedRun, RegisteredGlobalsRejectTwoPes) {
  vela::vp::register_global(run_plain_counter);
  std::uint64_t migrations = 0;
  try {
    ranks_that_kept_their_count(Method::copy, 2, migrations);
    ADD_FAILURE() << "two PEs accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--pes"), std::string::npos) << e.what();
  }
  vela::vp::unregister_globals();
}

}  // namespace
