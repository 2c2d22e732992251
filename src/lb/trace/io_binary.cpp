// The binary trace format (docs/trace-format.md, "Binary"): little-endian fixed-width fields,
// loads as raw IEEE-754 doubles, so that reading a step is one bounds check and one copy.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "io_common.hpp"

namespace vela::lb {

namespace {

using trace_detail::binary_magic;

constexpr bool little_endian = std::endian::native == std::endian::little;

// Sizes of the fixed-width records, for bounds checks before anything is allocated.
constexpr std::size_t pe_bytes = 8 + 8 + 4;
constexpr std::size_t edge_bytes = 4 + 4 + 8 + 8;
constexpr std::size_t trace_edge_bytes = 8 + 8 + 8 + 8;
std::size_t object_bytes(int dims) {
  return 8 + 8 + 8 + 4 + 1 + 8 * static_cast<std::size_t>(dims);
}
std::size_t created_bytes(int dims) {
  return 8 + 8 + 4 + 1 + 8 * static_cast<std::size_t>(dims);
}

// ---- writing

class Writer {
 public:
  template <class T>
  void put(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    std::array<char, sizeof(T)> bytes;
    std::memcpy(bytes.data(), &value, sizeof(T));
    if constexpr (!little_endian) std::reverse(bytes.begin(), bytes.end());
    out_.append(bytes.data(), bytes.size());
  }

  void count(std::size_t n) { put(static_cast<std::uint64_t>(n)); }

  void doubles(const std::vector<double>& values) {
    count(values.size());
    // An empty vector's data() may be null, which no copy may be given (not even for 0 bytes).
    if (values.empty()) return;
    if constexpr (little_endian) {
      out_.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(double));
    } else {
      for (const double v : values) put(v);
    }
  }

  void raw(std::string_view bytes) { out_.append(bytes); }
  std::string& contents() { return out_; }

 private:
  std::string out_;
};

void write_binary(const Trace& trace, Writer& out) {
  const Instance& in = trace.initial;
  const auto dims = static_cast<std::size_t>(in.dims);
  out.raw(std::string_view(binary_magic.data(), binary_magic.size()));
  out.put(static_cast<std::uint32_t>(trace_format_version));
  out.put(static_cast<std::int32_t>(in.dims));
  out.count(in.pes.size());
  for (const Pe& pe : in.pes) {
    out.put(pe.speed);
    out.put(pe.background);
    out.put(pe.cluster);
  }
  out.count(in.objects.size());
  for (const Object& o : in.objects) {
    out.put(o.id);
    out.put(o.load);
    out.put(o.size);
    out.put(o.pe);
    out.put(static_cast<std::uint8_t>(o.migratable ? 1 : 0));
    for (std::size_t d = 0; d < dims; ++d) out.put(o.coords[d]);
  }
  out.count(in.edges.size());
  for (const Edge& e : in.edges) {
    out.put(e.from);
    out.put(e.to);
    out.put(e.messages);
    out.put(e.bytes);
  }
  out.count(trace.steps.size());
  for (const TraceStep& step : trace.steps) {
    out.count(step.deleted.size());
    for (const ObjectId id : step.deleted) out.put(id);
    out.count(step.created.size());
    for (const Object& o : step.created) {
      out.put(o.id);
      out.put(o.size);
      out.put(o.pe);
      out.put(static_cast<std::uint8_t>(o.migratable ? 1 : 0));
      for (std::size_t d = 0; d < dims; ++d) out.put(o.coords[d]);
    }
    out.put(static_cast<std::uint8_t>(step.replaces_edges ? 1 : 0));
    if (step.replaces_edges) {
      out.count(step.edges.size());
      for (const TraceEdge& e : step.edges) {
        out.put(e.from);
        out.put(e.to);
        out.put(e.messages);
        out.put(e.bytes);
      }
    }
    out.doubles(step.loads);
  }
}

// ---- reading

class Reader {
 public:
  Reader(std::string_view bytes, const std::string& path) : bytes_(bytes), path_(path) {}

  // Where the reader is, for messages: "initial instance", "step 12".
  void context(std::string where) { context_ = std::move(where); }

  template <class T>
  T get(const char* what) {
    require(sizeof(T), what);
    std::array<char, sizeof(T)> raw;
    std::memcpy(raw.data(), bytes_.data() + pos_, sizeof(T));
    if constexpr (!little_endian) std::reverse(raw.begin(), raw.end());
    pos_ += sizeof(T);
    T value;
    std::memcpy(&value, raw.data(), sizeof(T));
    return value;
  }

  bool flag(const char* what) {
    const auto value = get<std::uint8_t>(what);
    if (value > 1) fail(std::string(what) + " is " + std::to_string(value) + ", expected 0 or 1");
    return value == 1;
  }

  // A count of records of `record` bytes each, checked against what is left of the file.
  std::size_t count(const char* what, std::size_t record, std::uint64_t limit) {
    const auto n = get<std::uint64_t>(what);
    if (n > limit) {
      fail(std::string(what) + " is " + std::to_string(n) + ", more than " + std::to_string(limit) +
           " (corrupt file?)");
    }
    if (n > (bytes_.size() - pos_) / record) {
      fail_truncated(std::string(what) + " " + std::to_string(n) + " needs " +
                     std::to_string(n * record) + " bytes");
    }
    return static_cast<std::size_t>(n);
  }

  void doubles(std::vector<double>& out, const char* what) {
    const std::size_t n = count(what, sizeof(double), std::numeric_limits<std::uint32_t>::max());
    out.resize(n);
    // A step with no alive object has no loads, and out.data() may then be null: memcpy must not
    // see it, even for 0 bytes.
    if (n == 0) return;
    if constexpr (little_endian) {
      std::memcpy(out.data(), bytes_.data() + pos_, n * sizeof(double));
      pos_ += n * sizeof(double);
    } else {
      for (double& v : out) v = get<double>(what);
    }
  }

  void expect_end() {
    if (pos_ != bytes_.size()) {
      throw TraceError(path_ + ": " + std::to_string(bytes_.size() - pos_) +
                       " unexpected bytes after the last step, at byte offset " +
                       std::to_string(pos_));
    }
  }

  [[noreturn]] void fail(const std::string& message) const {
    throw TraceError(path_ + ": " + context_ + ": " + message + " (byte offset " +
                     std::to_string(pos_) + ")");
  }

 private:
  void require(std::size_t n, const char* what) {
    if (n > bytes_.size() - pos_)
      fail_truncated(std::string(what) + " needs " + std::to_string(n) + " bytes");
  }
  [[noreturn]] void fail_truncated(const std::string& what) const {
    throw TraceError(path_ + ": truncated: " + context_ + ": " + what + " at byte offset " +
                     std::to_string(pos_) + ", but the file ends at " +
                     std::to_string(bytes_.size()));
  }

  std::string_view bytes_;
  const std::string& path_;
  std::string context_ = "header";
  std::size_t pos_ = 0;
};

constexpr std::uint64_t max_objects = std::numeric_limits<std::uint32_t>::max();

Instance read_initial(Reader& in) {
  Instance instance;
  in.context("initial instance");
  instance.dims = in.get<std::int32_t>("dims");
  if (instance.dims < 0 || instance.dims > 3) {
    in.fail("dims is " + std::to_string(instance.dims) + ", expected 0 to 3");
  }
  const auto dims = static_cast<std::size_t>(instance.dims);
  instance.pes.resize(in.count("PE count", pe_bytes, std::numeric_limits<PeId>::max()));
  for (Pe& pe : instance.pes) {
    pe.speed = in.get<double>("PE speed");
    pe.background = in.get<double>("PE background");
    pe.cluster = in.get<std::int32_t>("PE cluster");
  }
  instance.objects.resize(in.count("object count", object_bytes(instance.dims), max_objects));
  for (Object& o : instance.objects) {
    o.id = in.get<ObjectId>("object id");
    o.load = in.get<double>("object load");
    o.size = in.get<std::uint64_t>("object size");
    o.pe = in.get<PeId>("object PE");
    o.migratable = in.flag("object migratable");
    for (std::size_t d = 0; d < dims; ++d) o.coords[d] = in.get<double>("object coordinate");
  }
  instance.edges.resize(
      in.count("edge count", edge_bytes, std::numeric_limits<std::uint64_t>::max()));
  for (Edge& e : instance.edges) {
    e.from = in.get<std::uint32_t>("edge from");
    e.to = in.get<std::uint32_t>("edge to");
    e.messages = in.get<std::uint64_t>("edge messages");
    e.bytes = in.get<std::uint64_t>("edge bytes");
  }
  return instance;
}

void read_step(Reader& in, int dims, TraceStep& step) {
  step.deleted.resize(in.count("deleted count", sizeof(ObjectId), max_objects));
  for (ObjectId& id : step.deleted) id = in.get<ObjectId>("deleted id");
  step.created.resize(in.count("created count", created_bytes(dims), max_objects));
  for (Object& o : step.created) {
    o.id = in.get<ObjectId>("created id");
    o.size = in.get<std::uint64_t>("created size");
    o.pe = in.get<PeId>("created PE");
    o.migratable = in.flag("created migratable");
    for (std::size_t d = 0; d < static_cast<std::size_t>(dims); ++d) {
      o.coords[d] = in.get<double>("created coordinate");
    }
  }
  step.replaces_edges = in.flag("replaces-edges flag");
  if (step.replaces_edges) {
    step.edges.resize(
        in.count("edge count", trace_edge_bytes, std::numeric_limits<std::uint64_t>::max()));
    for (TraceEdge& e : step.edges) {
      e.from = in.get<ObjectId>("edge from");
      e.to = in.get<ObjectId>("edge to");
      e.messages = in.get<std::uint64_t>("edge messages");
      e.bytes = in.get<std::uint64_t>("edge bytes");
    }
  }
  in.doubles(step.loads, "load count");
}

}  // namespace

namespace trace_detail {

Trace parse_trace_binary(std::string_view bytes, const std::string& path) {
  Reader in(bytes, path);
  for (const char expected : binary_magic) {
    if (in.get<char>("magic") != expected) {
      throw TraceError(path +
                       ": wrong magic: the first 8 bytes are not those of a binary vela trace");
    }
  }
  const auto version = in.get<std::uint32_t>("version");
  if (version != static_cast<std::uint32_t>(trace_format_version)) {
    throw TraceError(path + ": version " + std::to_string(version) +
                     " is not supported (this build reads version " +
                     std::to_string(trace_format_version) + ")");
  }
  Trace trace;
  trace.initial = read_initial(in);
  in.context("header");
  // A step takes at least its four counts and its flag.
  trace.steps.resize(in.count("step count", 8 * 3 + 1, std::numeric_limits<std::uint64_t>::max()));
  for (std::size_t s = 0; s < trace.steps.size(); ++s) {
    in.context("step " + std::to_string(s));
    read_step(in, trace.initial.dims, trace.steps[s]);
  }
  in.expect_end();
  return trace;
}

std::string encode_trace_binary(const Trace& trace) {
  Writer out;
  write_binary(trace, out);
  return std::move(out.contents());
}

}  // namespace trace_detail

void write_trace_binary(const Trace& trace, const std::string& path) {
  trace_detail::check_writable(trace, path);
  trace_detail::write_file(path, trace_detail::encode_trace_binary(trace));
}

}  // namespace vela::lb
