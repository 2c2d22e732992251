// Recording into per-PE buffers, and streaming them out as Chrome Trace Event Format JSON
// (a DOM of millions of events would cost more memory than the trace itself).
#include "services/timeline.hpp"

#include <algorithm>
#include <array>
#include <cassert>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <system_error>

namespace vela::rt::trace {
namespace {

// Collects text in a large buffer and writes it to the file chunk by chunk.
class JsonFile {
 public:
  explicit JsonFile(const std::string& path) : path_(path), file_(std::fopen(path.c_str(), "wb")) {
    if (file_ == nullptr) fail(errno);
    buffer_.reserve(chunk + 256);
  }

  JsonFile(const JsonFile&) = delete;
  JsonFile& operator=(const JsonFile&) = delete;

  ~JsonFile() {
    if (file_ != nullptr) std::fclose(file_);  // only after a failure: close() took it otherwise
  }

  void text(std::string_view s) {
    buffer_.append(s);
    if (buffer_.size() >= chunk) flush();
  }

  void integer(std::int64_t value) {
    std::array<char, 24> digits;
    const auto result = std::to_chars(digits.data(), digits.data() + digits.size(), value);
    buffer_.append(digits.data(), result.ptr);
  }

  // Nanoseconds as exact decimal microseconds ("12.345"), the unit the format expects.
  void microseconds(std::int64_t ns) {
    assert(ns >= 0);
    integer(ns / 1000);
    const auto fraction = static_cast<int>(ns % 1000);
    const char digits[] = {'.', static_cast<char>('0' + fraction / 100),
                           static_cast<char>('0' + fraction / 10 % 10),
                           static_cast<char>('0' + fraction % 10)};
    buffer_.append(digits, sizeof digits);
  }

  // A JSON string literal; bytes that are not valid UTF-8 become U+FFFD so the file stays
  // valid JSON whatever a name or element text holds.
  void string(std::string_view s) {
    buffer_.push_back('"');
    std::size_t i = 0;
    while (i < s.size()) {
      const auto byte = static_cast<unsigned char>(s[i]);
      if (byte == '"' || byte == '\\') {
        buffer_.push_back('\\');
        buffer_.push_back(static_cast<char>(byte));
        ++i;
      } else if (byte < 0x20) {
        static constexpr char hex[] = "0123456789abcdef";
        const char escaped[] = {'\\', 'u', '0', '0', hex[byte >> 4], hex[byte & 0xf]};
        buffer_.append(escaped, sizeof escaped);
        ++i;
      } else if (byte < 0x80) {
        buffer_.push_back(static_cast<char>(byte));
        ++i;
      } else if (const std::size_t length = utf8_sequence_length(s.substr(i)); length > 0) {
        buffer_.append(s.substr(i, length));
        i += length;
      } else {
        buffer_.append("\\ufffd");
        ++i;
      }
    }
    buffer_.push_back('"');
  }

  void close() {
    flush();
    const int error = std::fclose(file_) != 0 ? errno : 0;
    file_ = nullptr;
    if (error != 0) fail(error);
  }

 private:
  static constexpr std::size_t chunk = std::size_t{1} << 20;

  // Length of the well-formed UTF-8 sequence starting `s` (which starts with a byte >= 0x80),
  // or 0 if it is not one (stray continuation byte, overlong form, surrogate, > U+10FFFF).
  static std::size_t utf8_sequence_length(std::string_view s) {
    const auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char lead = at(0);
    std::size_t length = 0;
    unsigned char second_low = 0x80, second_high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) {
      length = 2;
    } else if (lead >= 0xe0 && lead <= 0xef) {
      length = 3;
      if (lead == 0xe0) second_low = 0xa0;   // overlong
      if (lead == 0xed) second_high = 0x9f;  // surrogates
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      length = 4;
      if (lead == 0xf0) second_low = 0x90;   // overlong
      if (lead == 0xf4) second_high = 0x8f;  // beyond U+10FFFF
    } else {
      return 0;
    }
    if (s.size() < length) return 0;
    if (at(1) < second_low || at(1) > second_high) return 0;
    for (std::size_t k = 2; k < length; ++k) {
      if (at(k) < 0x80 || at(k) > 0xbf) return 0;
    }
    return length;
  }

  void flush() {
    if (!buffer_.empty() && std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size())
      fail(errno);
    buffer_.clear();
  }

  [[noreturn]] void fail(int error) const {
    throw std::runtime_error("cannot write trace file '" + path_ +
                             "': " + std::generic_category().message(error));
  }

  std::string path_;
  std::FILE* file_;
  std::string buffer_;
};

// Opens one event object with the fields every event has.
void begin_event(JsonFile& out, std::string_view name, std::string_view phase, int process,
                 int pe) {
  out.text("{\"name\":");
  out.string(name);
  out.text(",\"ph\":\"");
  out.text(phase);
  out.text("\",\"pid\":");
  out.integer(process);
  out.text(",\"tid\":");
  out.integer(pe);
}

}  // namespace

std::string_view category_name(Category category) {
  switch (category) {
    case Category::entry:
      return "entry";
    case Category::idle:
      return "idle";
    case Category::lb:
      return "lb";
    case Category::migration:
      return "migration";
    case Category::runtime:
      return "runtime";
  }
  return "unknown";
}

Timeline::Timeline(int pes, TimePoint start, int process)
    : start_(start), process_(process), tracks_(static_cast<std::size_t>(std::max(pes, 0)) + 1) {
  if (pes <= 0) {
    throw std::invalid_argument("trace timeline: the number of PEs must be positive, got " +
                                std::to_string(pes));
  }
}

Timeline::Track::Track() {
  recent.fill(no_name);
}

Timeline::Track& Timeline::track(int pe) {
  assert(pe >= 0 && pe <= balancer_track() && "PE index out of range");
  return tracks_[static_cast<std::size_t>(pe)];
}

std::uint32_t Timeline::intern(Track& track, std::string_view name) {
  // The slot is only a guess: the text is compared, so a reused address cannot mislead it.
  const auto address = reinterpret_cast<std::uintptr_t>(name.data());
  std::uint32_t& slot = track.recent[(address >> 3) % recent_slots];
  if (slot != no_name && track.names[slot] == name) return slot;

  if (const auto found = track.name_ids.find(name); found != track.name_ids.end()) {
    slot = found->second;
    return slot;
  }
  const auto id = static_cast<std::uint32_t>(track.names.size());
  track.names.emplace_back(name);
  track.name_ids.emplace(track.names.back(), id);
  slot = id;
  return id;
}

void Timeline::record(int pe, Category category, std::string_view name, TimePoint begin,
                      std::int64_t duration_ns, std::string_view element, std::int64_t bytes) {
  constexpr std::size_t events_per_block = std::size_t{1} << 14;
  constexpr std::size_t element_block_bytes = std::size_t{1} << 16;

  Track& own = track(pe);
  const std::int64_t begin_ns = (begin - start_) / std::chrono::nanoseconds(1);
  assert(begin_ns >= 0 && "event before the run's start");

  // Element texts are index strings; anything longer than the record can hold is cut.
  element = element.substr(0, std::numeric_limits<std::uint16_t>::max());
  if (own.elements.empty() ||
      own.elements.back().size() + element.size() > own.elements.back().capacity()) {
    own.elements.emplace_back().reserve(element_block_bytes);
  }
  std::string& text = own.elements.back();

  if (own.events.empty() || own.events.back().size() == events_per_block) {
    own.events.emplace_back().reserve(events_per_block);
  }
  own.events.back().push_back(Event{
      .begin_ns = std::max<std::int64_t>(begin_ns, 0),
      .duration_ns = duration_ns,
      .bytes = bytes,
      .name = intern(own, name),
      .element_block = static_cast<std::uint32_t>(own.elements.size() - 1),
      .element_offset = static_cast<std::uint32_t>(text.size()),
      .element_length = static_cast<std::uint16_t>(element.size()),
      .category = category,
  });
  text.append(element);
}

void Timeline::complete(int pe, Category category, std::string_view name, TimePoint begin,
                        TimePoint end, std::string_view element, std::int64_t bytes) {
  if (!enabled()) return;
  assert(end >= begin && "event ends before it begins");
  const std::int64_t duration_ns =
      std::max<std::int64_t>((end - begin) / std::chrono::nanoseconds(1), 0);
  record(pe, category, name, begin, duration_ns, element, bytes);
}

void Timeline::instant(int pe, Category category, std::string_view name, TimePoint at,
                       std::string_view element) {
  if (!enabled()) return;
  record(pe, category, name, at, -1, element, no_bytes);
}

std::size_t Timeline::event_count() const {
  std::size_t count = 0;
  for (const Track& track : tracks_) {
    for (const std::vector<Event>& block : track.events) count += block.size();
  }
  return count;
}

void Timeline::write(const std::string& path) const {
  JsonFile out(path);
  out.text("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n");

  // Metadata first: the process name, then every PE's track name and its place in the list.
  begin_event(out, "process_name", "M", process_, 0);
  out.text(",\"args\":{\"name\":\"vela\"}}");
  const int first = first_local_;
  const int last = local_count_ < 0 ? pes() : std::min(pes(), first_local_ + local_count_);
  for (int pe = first; pe < last; ++pe) {
    out.text(",\n");
    begin_event(out, "thread_name", "M", process_, pe);
    out.text(",\"args\":{\"name\":\"PE ");
    out.integer(pe);
    out.text("\"}},\n");
    begin_event(out, "thread_sort_index", "M", process_, pe);
    out.text(",\"args\":{\"sort_index\":");
    out.integer(pe);
    out.text("}}");
  }
  if (!tracks_.back().events.empty()) {
    out.text(",\n");
    begin_event(out, "thread_name", "M", process_, balancer_track());
    out.text(",\"args\":{\"name\":\"balancer\"}},\n");
    begin_event(out, "thread_sort_index", "M", process_, balancer_track());
    out.text(",\"args\":{\"sort_index\":");
    out.integer(balancer_track());
    out.text("}}");
  }

  const auto write_event = [&](int pe, const Track& track, const Event& event) {
    const bool is_instant = event.duration_ns < 0;
    out.text(",\n");
    begin_event(out, track.names[event.name], is_instant ? "i" : "X", process_, pe);
    out.text(",\"cat\":\"");
    out.text(category_name(event.category));
    out.text("\",\"ts\":");
    out.microseconds(event.begin_ns);
    if (is_instant) {
      out.text(",\"s\":\"t\"");
    } else {
      out.text(",\"dur\":");
      out.microseconds(event.duration_ns);
    }
    const bool has_element = event.element_length > 0;
    const bool has_bytes = event.bytes != no_bytes;
    if (has_element || has_bytes) {
      out.text(",\"args\":{");
      if (has_element) {
        out.text("\"element\":");
        const std::string_view text = track.elements[event.element_block];
        out.string(text.substr(event.element_offset, event.element_length));
      }
      if (has_bytes) {
        out.text(has_element ? ",\"bytes\":" : "\"bytes\":");
        out.integer(event.bytes);
      }
      out.text("}");
    }
    out.text("}");
  };
  for (int pe = 0; pe <= balancer_track(); ++pe) {
    const Track& track = tracks_[static_cast<std::size_t>(pe)];
    for (const std::vector<Event>& block : track.events) {
      for (const Event& event : block) write_event(pe, track, event);
    }
  }
  out.text("\n]}\n");
  out.close();
}

}  // namespace vela::rt::trace
