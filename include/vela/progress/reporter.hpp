// Progress of long work on a terminal: one line on stderr ("replay: 1200/2400 steps (50%)  812
// steps/s  1.5 s left") redrawn in place — a carriage return, the text, then "\x1b[K" to clear
// what a longer line left — and ended by a newline when the work is done or abandoned, so the
// shell's prompt starts on a line of its own. Nothing is drawn when stderr is not a terminal,
// when the user asked for quiet, or for work that ends within the first second.
//
// Header-only, on the standard library and POSIX alone: vela-lb (toolkit), the applications
// (runtime) and the applications' plain-MPI builds (which link no Vela library) share it.
#pragma once

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <mutex>
#include <string_view>
#include <utility>

namespace vela::progress {

using Clock = std::chrono::steady_clock;

// What is counted. The names are views: pass string literals, or strings that outlive the
// reporter.
struct Work {
  std::string_view label;   // the program or command: "replay"
  std::string_view unit;    // what is counted, plural: "steps"
  std::uint64_t total = 0;  // 0: unknown (then no percentage and no time left)
};

// Where and when a reporter draws; tests give their own clock and writer.
struct Terminal {
  bool is_terminal = false;  // nothing is drawn unless true
  int columns = 0;           // lines are cut to columns - 1 characters (no wrapping); 0: unknown
  std::function<void(std::string_view)> write;
  std::function<Clock::time_point()> now;
};

// How often: nothing before `delay` (short work stays silent), then at most one line per
// `interval`.
struct Pacing {
  std::chrono::milliseconds delay{1000};
  std::chrono::milliseconds interval{100};
};

// One line of text, built without allocating: the applications' ranks report from code whose
// heap moves with the rank (docs/architecture.md, "Ranks across processes").
struct Line {
  std::array<char, 200> text{};
  std::size_t size = 0;
  std::string_view view() const { return {text.data(), size}; }

  template <class... Args>
  void append(const char* format, Args... args) {
    if (size + 1 >= text.size()) return;
    const int n = std::snprintf(text.data() + size, text.size() - size, format, args...);
    if (n > 0) size = std::min(size + static_cast<std::size_t>(n), text.size() - 1);
  }
  void append_view(std::string_view s) {
    append("%.*s", static_cast<int>(std::min<std::size_t>(s.size(), text.size())), s.data());
  }
};

// "4.2 s", "38 s", "3m05s", "2h07m".
inline void append_duration(Line& line, double seconds) {
  seconds = std::max(seconds, 0.0);
  if (seconds < 9.95) return line.append("%.1f s", seconds);
  if (seconds < 59.5) return line.append("%.0f s", seconds);
  const auto whole = static_cast<long long>(std::llround(seconds));
  if (whole < 3600) return line.append("%lldm%02llds", whole / 60, whole % 60);
  return line.append("%lldh%02lldm", whole / 3600, (whole % 3600) / 60);
}

// Three significant digits at most below 100: "0.42", "8.31", "42.5", "812".
inline void append_rate(Line& line, double rate) {
  if (rate < 9.995) return line.append("%.2f", rate);
  if (rate < 99.95) return line.append("%.1f", rate);
  return line.append("%.0f", rate);
}

// The text of a progress line (no carriage return, no clearing): done/total, the percentage
// (100 only when done reaches total), the mean rate since the start in units per second and the
// time left at that rate; with an unknown total, done and the rate only. A finished line says
// how long the work took instead of the time left.
inline Line describe(const Work& work, std::uint64_t done, double elapsed_seconds, bool finished) {
  Line line;
  if (!work.label.empty()) {
    line.append_view(work.label);
    line.append_view(": ");
  }
  if (work.total > 0) {
    unsigned percent = 100;
    if (done < work.total) {
      // Whole numbers, rounded down: 171 of 300 is 57% (the same in floating point, 100 * 0.57,
      // gives 56.99...).
      constexpr std::uint64_t exact_up_to = std::numeric_limits<std::uint64_t>::max() / 100;
      const std::uint64_t share =
          done <= exact_up_to
              ? done * 100 / work.total
              : static_cast<std::uint64_t>(static_cast<long double>(done) * 100 / work.total);
      percent = static_cast<unsigned>(std::min<std::uint64_t>(99, share));
    }
    line.append("%" PRIu64 "/%" PRIu64 " ", done, work.total);
    line.append_view(work.unit);
    line.append(" (%u%%)", percent);
  } else {
    line.append("%" PRIu64 " ", done);
    line.append_view(work.unit);
  }
  if (elapsed_seconds <= 0.0) return line;
  const double rate = static_cast<double>(done) / elapsed_seconds;
  line.append_view("  ");
  append_rate(line, rate);
  line.append_view(" ");
  line.append_view(work.unit);
  line.append_view("/s");
  if (finished) {
    line.append_view("  done in ");
    append_duration(line, elapsed_seconds);
  } else if (work.total > done && rate > 0.0) {
    line.append_view("  ");
    append_duration(line, static_cast<double>(work.total - done) / rate);
    line.append_view(" left");
  }
  return line;
}

// Writes all of `text` to `fd`, retrying after signals; errors are ignored (progress is never
// worth failing the work for).
inline void write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    text.remove_prefix(static_cast<std::size_t>(n));
  }
}

// Standard error: a terminal when isatty says so and TERM is not "dumb" (which cannot clear a
// line); its width from the terminal.
inline Terminal standard_error() {
  Terminal t;
  const char* term = std::getenv("TERM");
  t.is_terminal =
      ::isatty(STDERR_FILENO) == 1 && (term == nullptr || std::string_view(term) != "dumb");
  winsize size{};
  if (t.is_terminal && ::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0) t.columns = size.ws_col;
  t.write = [](std::string_view text) { write_all(STDERR_FILENO, text); };
  t.now = [] { return Clock::now(); };
  return t;
}

// Reports the progress of one piece of work. advance() and set() may be called from any
// thread, at any rate: when the line is not due they cost a clock read and an atomic load,
// and one caller at a time draws (the others skip). Inactive (quiet, or not a terminal), they
// return at once.
class Reporter {
 public:
  Reporter(Work work, bool quiet, Terminal terminal = standard_error(), Pacing pacing = {})
      : work_(work),
        active_(!quiet && terminal.is_terminal),
        terminal_(std::move(terminal)),
        pacing_(pacing),
        start_(active_ ? terminal_.now() : Clock::time_point{}),
        next_draw_((start_ + pacing.delay).time_since_epoch().count()) {}

  // A line left unfinished (the work stopped early: an error, an exception) gets its newline.
  ~Reporter() {
    try {
      const std::lock_guard lock(mutex_);
      if (drawn_ && !finished_) terminal_.write("\n");
    } catch (...) {
    }
  }

  Reporter(const Reporter&) = delete;
  Reporter& operator=(const Reporter&) = delete;

  bool active() const { return active_; }

  // `units` more are done.
  void advance(std::uint64_t units = 1) {
    if (!active_) return;
    done_.fetch_add(units, std::memory_order_relaxed);
    poll();
  }

  // `done` units are done in all.
  void set(std::uint64_t done) {
    if (!active_) return;
    done_.store(done, std::memory_order_relaxed);
    poll();
  }

  // The work is over: a line already on the screen is redrawn complete and ended with a
  // newline; if none was drawn (short work), nothing is. Later calls do nothing.
  void finish() {
    if (!active_) return;
    const std::lock_guard lock(mutex_);
    if (finished_) return;
    finished_ = true;
    if (drawn_) draw(terminal_.now(), true);
  }

 private:
  void poll() {
    const Clock::time_point now = terminal_.now();
    if (now.time_since_epoch().count() < next_draw_.load(std::memory_order_relaxed)) return;
    const std::unique_lock lock(mutex_, std::try_to_lock);
    if (!lock.owns_lock() || finished_) return;  // another thread is drawing
    if (now.time_since_epoch().count() < next_draw_.load(std::memory_order_relaxed)) return;
    next_draw_.store((now + pacing_.interval).time_since_epoch().count(),
                     std::memory_order_relaxed);
    draw(now, false);
  }

  // Under mutex_.
  void draw(Clock::time_point now, bool final) {
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const Line text = describe(work_, done_.load(std::memory_order_relaxed), elapsed, final);
    std::size_t size = text.size;
    if (terminal_.columns > 1)
      size = std::min(size, static_cast<std::size_t>(terminal_.columns) - 1);
    // One write per line, so that the terminal never shows half of one.
    constexpr std::string_view clear = "\x1b[K";
    std::array<char, sizeof(Line::text) + 8> out;
    std::size_t n = 0;
    out[n++] = '\r';
    n = std::copy_n(text.text.data(), size, out.data() + n) - out.data();
    n = std::copy(clear.begin(), clear.end(), out.data() + n) - out.data();
    if (final) out[n++] = '\n';
    terminal_.write({out.data(), n});
    drawn_ = true;
  }

  const Work work_;
  const bool active_;
  Terminal terminal_;
  const Pacing pacing_;
  const Clock::time_point start_;
  std::atomic<std::uint64_t> done_{0};
  std::atomic<Clock::rep> next_draw_;  // when the next line is due, in ticks of Clock
  std::mutex mutex_;
  bool drawn_ = false;  // a line is on the screen (under mutex_)
  bool finished_ = false;
};

}  // namespace vela::progress
