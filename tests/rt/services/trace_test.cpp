// Chrome trace timeline (--trace): events recorded concurrently by PE threads all come out,
// once each, on the right track, with times that match what was recorded.
#include "services/timeline.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

namespace vela::rt::trace {
namespace {

using nlohmann::json;
using std::chrono::nanoseconds;

class TraceFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("vela_trace_test_" + std::to_string(std::random_device{}()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  static json read(const std::string& file) {
    std::ifstream in(file);
    return json::parse(in);  // throws, failing the test, if the file is not valid JSON
  }

  std::filesystem::path dir_;
};

// Events of the given phase ("X", "i", "M") on track `tid`.
std::vector<json> events(const json& trace, std::string_view phase, int tid) {
  std::vector<json> found;
  for (const json& event : trace.at("traceEvents")) {
    if (event.at("ph") == phase && event.at("tid") == tid) found.push_back(event);
  }
  return found;
}

// Microseconds in the file as nanoseconds (they are written with nanosecond resolution).
std::int64_t ns(const json& microseconds) {
  return std::llround(microseconds.get<double>() * 1000.0);
}

// What a PE thread recorded, to compare with the file.
struct Expected {
  std::string name;
  std::string category;
  std::string element;
  std::int64_t bytes;
  std::int64_t begin_ns;
  std::int64_t duration_ns;  // -1: instant
};

constexpr Category categories[] = {Category::entry, Category::idle, Category::lb,
                                   Category::migration, Category::runtime};
constexpr const char* names[] = {"compute", "halo_exchange", "GreedyLB", "migrate out"};

TEST_F(TraceFile, EveryEventRecordedConcurrentlyAppearsOnceOnItsTrack) {
  constexpr int pes = 4;
  constexpr int per_pe = 2000;
  const TimePoint start = Clock::now();
  Timeline timeline(pes, start, 3);
  std::vector<std::vector<Expected>> expected(pes);

  std::vector<std::thread> threads;
  for (int pe = 0; pe < pes; ++pe) {
    threads.emplace_back([&, pe] {
      auto& mine = expected[static_cast<std::size_t>(pe)];
      for (int i = 0; i < per_pe; ++i) {
        // Distinct, exactly known times: every event can be found by its begin.
        const std::int64_t begin = 1'000'000 * std::int64_t{pe} + 1'237 * std::int64_t{i};
        // Appended, not concatenated: GCC 12 at -O3 warns falsely on the temporaries of
        // "[" + std::to_string(pe) + ... (-Wrestrict, GCC bug 105651).
        std::string element = "[";
        element.append(std::to_string(pe)).append(",").append(std::to_string(i)).append("]");
        const Category category = categories[i % 5];
        const std::string name = names[i % 4];
        if (i % 7 == 6) {
          timeline.instant(pe, category, name, start + nanoseconds(begin), element);
          mine.push_back(
              {name, std::string(category_name(category)), element, no_bytes, begin, -1});
        } else {
          const std::int64_t duration = i % 1000;
          const std::int64_t bytes = i % 3 == 0 ? no_bytes : 8 * std::int64_t{i};
          timeline.complete(pe, category, name, start + nanoseconds(begin),
                            start + nanoseconds(begin + duration), element, bytes);
          mine.push_back(
              {name, std::string(category_name(category)), element, bytes, begin, duration});
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(timeline.event_count(), std::size_t{pes * per_pe});

  timeline.write(path("trace.json"));
  const json trace = read(path("trace.json"));
  EXPECT_EQ(trace.at("displayTimeUnit"), "ms");

  for (int pe = 0; pe < pes; ++pe) {
    // Index the file's events of this track by begin time; each must be found exactly once.
    std::map<std::int64_t, json> by_begin;
    for (const char* phase : {"X", "i"}) {
      for (const json& event : events(trace, phase, pe)) {
        EXPECT_EQ(event.at("pid"), 3);
        EXPECT_GE(event.at("ts").get<double>(), 0.0);
        EXPECT_TRUE(by_begin.emplace(ns(event.at("ts")), event).second)
            << "two events at " << event.at("ts") << " on PE " << pe;
      }
    }
    ASSERT_EQ(by_begin.size(), std::size_t{per_pe}) << "PE " << pe;
    for (const Expected& want : expected[static_cast<std::size_t>(pe)]) {
      const auto found = by_begin.find(want.begin_ns);
      ASSERT_NE(found, by_begin.end()) << want.name << " at " << want.begin_ns << " ns";
      const json& event = found->second;
      EXPECT_EQ(event.at("name"), want.name);
      EXPECT_EQ(event.at("cat"), want.category);
      EXPECT_EQ(event.at("args").at("element"), want.element);
      if (want.duration_ns < 0) {
        EXPECT_EQ(event.at("ph"), "i");
        EXPECT_EQ(event.at("s"), "t");
        EXPECT_FALSE(event.contains("dur"));
      } else {
        EXPECT_EQ(event.at("ph"), "X");
        EXPECT_GE(event.at("dur").get<double>(), 0.0);
        EXPECT_EQ(ns(event.at("dur")), want.duration_ns);
      }
      if (want.bytes == no_bytes) {
        EXPECT_FALSE(event.at("args").contains("bytes"));
      } else {
        EXPECT_EQ(event.at("args").at("bytes"), want.bytes);
      }
    }
  }
}

TEST_F(TraceFile, MetadataNamesAndSortsEveryPeTrack) {
  constexpr int pes = 5;
  Timeline timeline(pes, Clock::now());
  timeline.write(path("empty.json"));
  const json trace = read(path("empty.json"));

  int process_names = 0;
  for (const json& event : trace.at("traceEvents")) {
    if (event.at("ph") == "M" && event.at("name") == "process_name") {
      EXPECT_EQ(event.at("pid"), 0);
      EXPECT_EQ(event.at("args").at("name"), "vela");
      ++process_names;
    }
  }
  EXPECT_EQ(process_names, 1);
  for (int pe = 0; pe < pes; ++pe) {
    std::map<std::string, json> metadata;
    for (const json& event : events(trace, "M", pe)) metadata[event.at("name")] = event;
    ASSERT_TRUE(metadata.contains("thread_name")) << "PE " << pe;
    EXPECT_EQ(metadata["thread_name"].at("args").at("name"), "PE " + std::to_string(pe));
    ASSERT_TRUE(metadata.contains("thread_sort_index")) << "PE " << pe;
    EXPECT_EQ(metadata["thread_sort_index"].at("args").at("sort_index"), pe);
  }
  EXPECT_TRUE(events(trace, "X", 0).empty());
}

TEST_F(TraceFile, SequentialSpansOfOnePeDoNotOverlapAndMatchTheClock) {
  constexpr int pes = 3;
  const TimePoint start = Clock::now();
  Timeline timeline(pes, start);
  // Per PE, the recorded (begin, end) in ns since start.
  std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> recorded(pes);

  std::vector<std::thread> threads;
  for (int pe = 0; pe < pes; ++pe) {
    threads.emplace_back([&, pe] {
      volatile double sink = 0;
      for (int i = 0; i < 300; ++i) {
        const TimePoint begin = Clock::now();
        for (int k = 0; k < 200 * (i % 5 + 1); ++k) sink = sink + std::sqrt(double(k));
        const TimePoint end = Clock::now();
        timeline.complete(pe, i % 2 == 0 ? Category::entry : Category::idle,
                          i % 2 == 0 ? "work" : "idle", begin, end);
        recorded[static_cast<std::size_t>(pe)].emplace_back((begin - start) / nanoseconds(1),
                                                            (end - start) / nanoseconds(1));
      }
    });
  }
  for (std::thread& thread : threads) thread.join();

  timeline.write(path("clock.json"));
  const json trace = read(path("clock.json"));
  for (int pe = 0; pe < pes; ++pe) {
    std::vector<json> spans = events(trace, "X", pe);
    ASSERT_EQ(spans.size(), recorded[static_cast<std::size_t>(pe)].size());
    std::sort(spans.begin(), spans.end(), [](const json& a, const json& b) {
      return a.at("ts").get<double>() < b.at("ts").get<double>();
    });
    for (std::size_t k = 0; k < spans.size(); ++k) {
      const auto [begin, end] = recorded[static_cast<std::size_t>(pe)][k];
      EXPECT_EQ(ns(spans[k].at("ts")), begin);
      EXPECT_EQ(ns(spans[k].at("ts")) + ns(spans[k].at("dur")), end);
      if (k + 1 < spans.size()) {
        EXPECT_LE(ns(spans[k].at("ts")) + ns(spans[k].at("dur")), ns(spans[k + 1].at("ts")))
            << "spans " << k << " and " << k + 1 << " of PE " << pe << " overlap";
      }
    }
  }
}

TEST_F(TraceFile, LongRunKeepsEveryEventAndElementInOrder) {
  // Enough events and element text to fill several of the timeline's internal blocks.
  constexpr int count = 40'000;
  const TimePoint start = Clock::now();
  Timeline timeline(1, start);
  const std::string huge(70'000, 'x');  // longer than an element may be: cut, not lost
  for (int i = 0; i < count; ++i) {
    const std::string element = i == count / 2 ? huge : "element-" + std::to_string(i);
    timeline.complete(0, Category::entry, "step", start + nanoseconds(i), start + nanoseconds(i),
                      element, i);
  }
  timeline.write(path("long.json"));

  const json trace = read(path("long.json"));
  const std::vector<json> spans = events(trace, "X", 0);
  ASSERT_EQ(spans.size(), std::size_t{count});
  for (int i = 0; i < count; ++i) {
    const json& event = spans[static_cast<std::size_t>(i)];
    ASSERT_EQ(event.at("args").at("bytes"), i);
    ASSERT_EQ(ns(event.at("ts")), i);
    const std::string element = event.at("args").at("element");
    if (i == count / 2) {
      EXPECT_EQ(element, huge.substr(0, 65'535));
    } else {
      ASSERT_EQ(element, "element-" + std::to_string(i));
    }
  }
}

TEST_F(TraceFile, NameTextReusedAtOneAddressKeepsEachName) {
  // Names are interned by text; a buffer reused for another name must not alias the first.
  const TimePoint start = Clock::now();
  Timeline timeline(1, start);
  std::string buffer = "alpha";
  const std::vector<std::string> sequence = {"alpha", "omega", "alpha", "alphb", "omega"};
  for (std::size_t i = 0; i < sequence.size(); ++i) {
    buffer.replace(0, buffer.size(), sequence[i]);  // same storage, new text
    timeline.instant(0, Category::runtime, buffer, start + nanoseconds(i));
  }
  timeline.write(path("names.json"));

  const std::vector<json> instants = events(read(path("names.json")), "i", 0);
  ASSERT_EQ(instants.size(), sequence.size());
  for (std::size_t i = 0; i < sequence.size(); ++i) {
    EXPECT_EQ(instants[i].at("name"), sequence[i]) << "event " << i;
  }
}

TEST_F(TraceFile, NamesAndElementsAreEscapedIntoValidJson) {
  const TimePoint start = Clock::now();
  Timeline timeline(1, start);
  const std::string name = "say \"hi\"\\\n\ttab";
  const std::string element = std::string("caf\xc3\xa9 bad\xff end\x01", 15);
  timeline.complete(0, Category::entry, name, start, start + nanoseconds(5), element, 12);
  timeline.write(path("escape.json"));

  const json trace = read(path("escape.json"));
  const std::vector<json> spans = events(trace, "X", 0);
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].at("name"), name);
  // Valid UTF-8 passes through; the stray byte becomes U+FFFD.
  EXPECT_EQ(spans[0].at("args").at("element"), "caf\xc3\xa9 bad\xef\xbf\xbd end\x01");
}

TEST_F(TraceFile, EventsWithoutArgsHaveNoArgs) {
  const TimePoint start = Clock::now();
  Timeline timeline(2, start);
  timeline.complete(1, Category::lb, "GreedyLB", start, start + nanoseconds(1500));
  timeline.instant(1, Category::runtime, "quiescence", start + nanoseconds(2000));
  timeline.write(path("plain.json"));

  const json trace = read(path("plain.json"));
  const std::vector<json> spans = events(trace, "X", 1);
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].at("cat"), "lb");
  EXPECT_EQ(ns(spans[0].at("dur")), 1500);
  EXPECT_FALSE(spans[0].contains("args"));
  const std::vector<json> instants = events(trace, "i", 1);
  ASSERT_EQ(instants.size(), 1u);
  EXPECT_EQ(instants[0].at("name"), "quiescence");
  EXPECT_EQ(instants[0].at("cat"), "runtime");
  EXPECT_EQ(ns(instants[0].at("ts")), 2000);
}

TEST_F(TraceFile, PausedTimelineDropsEvents) {
  const TimePoint start = Clock::now();
  Timeline timeline(1, start);
  EXPECT_TRUE(timeline.enabled());
  timeline.complete(0, Category::entry, "kept", start, start + nanoseconds(10));
  timeline.set_enabled(false);
  EXPECT_FALSE(timeline.enabled());
  timeline.complete(0, Category::entry, "dropped", start, start + nanoseconds(10));
  timeline.instant(0, Category::runtime, "dropped", start);
  timeline.set_enabled(true);
  timeline.instant(0, Category::runtime, "kept too", start);
  EXPECT_EQ(timeline.event_count(), 2u);

  timeline.write(path("paused.json"));
  const json trace = read(path("paused.json"));
  for (const json& event : trace.at("traceEvents")) EXPECT_NE(event.at("name"), "dropped");
}

TEST_F(TraceFile, UnwritablePathThrowsNamingThePath) {
  Timeline timeline(1, Clock::now());
  for (const std::string& bad : {path("no/such/dir/trace.json"), dir_.string()}) {
    try {
      timeline.write(bad);
      ADD_FAILURE() << "writing to " << bad << " did not throw";
    } catch (const std::runtime_error& error) {
      EXPECT_NE(std::string(error.what()).find(bad), std::string::npos) << error.what();
    }
  }
}

TEST(Timeline, NeedsAtLeastOnePe) {
  EXPECT_THROW(Timeline(0, Clock::now()), std::invalid_argument);
  EXPECT_THROW(Timeline(-2, Clock::now()), std::invalid_argument);
}

}  // namespace
}  // namespace vela::rt::trace
