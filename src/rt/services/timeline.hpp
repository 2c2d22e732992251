// Per-PE timeline of a run (--trace), written in the Chrome Trace Event Format that Perfetto
// and chrome://tracing open: one track per PE showing entry methods, idle, LB and migrations.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace vela::rt::trace {

using Clock = std::chrono::steady_clock;
using TimePoint = Clock::time_point;

// The track content an event belongs to; written as the event's "cat".
enum class Category : std::uint8_t { entry, idle, lb, migration, runtime };

// "entry", "idle", "lb", "migration" or "runtime".
std::string_view category_name(Category category);

// Marks an event that carries no message or object size.
inline constexpr std::int64_t no_bytes = -1;

// Records events into one buffer per PE, without locks, and writes them out after the run.
//
// Threading contract: buffer p is written only by the thread of PE p (the `pe` argument of
// complete / instant), so PEs never share a buffer and recording takes no lock. One more
// buffer, balancer_track(), holds what the balancing thread computed (asynchronous balancing):
// PE 0's thread writes it, when the answer comes back. Reading the
// buffers (write, event_count) must happen after every PE thread has stopped recording (e.g.
// after joining them). set_enabled / enabled may be called from any thread at any time.
class Timeline {
 public:
  // A timeline for PEs 0 .. pes-1 whose timestamps are relative to `start`; `process` is the
  // trace's pid (the process rank when a run spans several processes).
  Timeline(int pes, TimePoint start, int process = 0);

  // Across processes: this process records PEs [first, first + count) only; the others' tracks
  // stay empty and are left out of the file.
  void set_local_pes(int first, int count) {
    first_local_ = first;
    local_count_ = count;
  }

  Timeline(const Timeline&) = delete;
  Timeline& operator=(const Timeline&) = delete;

  // Cheap check so callers can skip reading the clock when tracing is paused.
  bool enabled() const { return enabled_.load(std::memory_order_relaxed); }
  // Pauses or resumes recording; events recorded while paused are dropped.
  void set_enabled(bool on) { enabled_.store(on, std::memory_order_relaxed); }

  int pes() const { return static_cast<int>(tracks_.size()) - 1; }
  // The balancing thread's track (written as the thread "balancer", after the PEs').
  int balancer_track() const { return pes(); }
  TimePoint start() const { return start_; }

  // Records a span [begin, end] on PE `pe`'s track: an entry method (name = its name or
  // handler id), idle, an LB strategy run, a migration ("migrate out" / "migrate in"), ...
  // `element` (an element index) and `bytes` become the event's args when given. Names are
  // interned per PE, so repeating a name costs a hash lookup and no allocation.
  void complete(int pe, Category category, std::string_view name, TimePoint begin, TimePoint end,
                std::string_view element = {}, std::int64_t bytes = no_bytes);

  // Records a moment on PE `pe`'s track ("at_sync reached", "quiescence", ...).
  void instant(int pe, Category category, std::string_view name, TimePoint at,
               std::string_view element = {});

  // Events recorded so far, over all PEs (only once the PEs have stopped).
  std::size_t event_count() const;

  // Writes the trace as Chrome Trace Event Format JSON, streamed event by event. Throws
  // std::runtime_error naming `path` and the reason when the file cannot be written.
  void write(const std::string& path) const;

 private:
  // One recorded event (40 bytes); its strings live in the owning track.
  struct Event {
    std::int64_t begin_ns;     // since start_
    std::int64_t duration_ns;  // < 0 marks an instant event
    std::int64_t bytes;        // no_bytes when absent
    std::uint32_t name;        // index into Track::names
    std::uint32_t element_block;
    std::uint32_t element_offset;
    std::uint16_t element_length;
    Category category;
  };
  static_assert(sizeof(Event) <= 40, "keep the per-event record small");

  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  // Recent names by the address of their text: fixed names (literals, registered entry
  // names) are found with one comparison instead of a hash of the text.
  static constexpr std::size_t recent_slots = 16;
  static constexpr std::uint32_t no_name = ~std::uint32_t{0};

  // A PE's buffer, aligned so that neighbouring PEs' bookkeeping never shares a cache line.
  // Events and element texts are kept in fixed-size blocks: growing never copies what is
  // already recorded, so a long run has no reallocation stalls in the middle of a PE's work.
  struct alignas(64) Track {
    Track();
    std::vector<std::vector<Event>> events;
    std::vector<std::string> elements;  // element texts, back to back within a block
    std::vector<std::string> names;
    std::unordered_map<std::string, std::uint32_t, NameHash, std::equal_to<>> name_ids;
    std::array<std::uint32_t, recent_slots> recent;
  };

  Track& track(int pe);
  std::uint32_t intern(Track& track, std::string_view name);
  void record(int pe, Category category, std::string_view name, TimePoint begin,
              std::int64_t duration_ns, std::string_view element, std::int64_t bytes);

  TimePoint start_;
  int process_;
  int first_local_ = 0;
  int local_count_ = -1;  // -1: all
  std::atomic<bool> enabled_{true};
  std::vector<Track> tracks_;
};

}  // namespace vela::rt::trace
