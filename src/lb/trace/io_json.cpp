// The JSON trace format (docs/trace-format.md, "JSON"). The writer streams numbers through
// std::to_chars (shortest form that reads back as the same double); the reader is
// nlohmann::json plus a schema walk that names every bad element, and the embedded initial
// instance goes through the instance reader (vela/lb/io/io.hpp), so that it obeys the instance
// format.
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "io_common.hpp"
#include "json_schema.hpp"
#include "vela/lb/io/io.hpp"

namespace vela::lb {

namespace {

using json = nlohmann::json;
using trace_detail::json_format_name;

// ---- writing

class Text {
 public:
  void text(std::string_view s) { out_.append(s); }

  template <class Integer>
  void integer(Integer value) {
    std::array<char, 24> digits;
    const auto result = std::to_chars(digits.data(), digits.data() + digits.size(), value);
    // A length, not an end pointer: GCC 12 at -O3 misreads the (first, last) overload as an
    // overlapping copy (-Wrestrict, GCC bug 105651).
    out_.append(digits.data(), static_cast<std::size_t>(result.ptr - digits.data()));
  }

  void real(double value) {
    if (value == 0.0 && std::signbit(value)) {
      out_.append("-0.0");  // "-0" reads back as the integer 0, which has no sign
      return;
    }
    std::array<char, 32> digits;
    const auto result = std::to_chars(digits.data(), digits.data() + digits.size(), value);
    // A length, not an end pointer: GCC 12 at -O3 misreads the (first, last) overload as an
    // overlapping copy (-Wrestrict, GCC bug 105651).
    out_.append(digits.data(), static_cast<std::size_t>(result.ptr - digits.data()));
  }

  template <class Range, class Write>
  void array(const Range& values, Write write) {
    out_.push_back('[');
    bool first = true;
    for (const auto& v : values) {
      if (!first) out_.push_back(',');
      first = false;
      write(v);
    }
    out_.push_back(']');
  }

  std::string& contents() { return out_; }

 private:
  std::string out_;
};

constexpr std::array<std::string_view, 3> axes = {"x", "y", "z"};

void write_created(Text& out, const std::vector<Object>& created, int dims) {
  out.text("\"created\": {\"id\": ");
  out.array(created, [&](const Object& o) { out.integer(o.id); });
  out.text(", \"size\": ");
  out.array(created, [&](const Object& o) { out.integer(o.size); });
  out.text(", \"pe\": ");
  out.array(created, [&](const Object& o) { out.integer(o.pe); });
  out.text(", \"migratable\": ");
  out.array(created, [&](const Object& o) { out.text(o.migratable ? "true" : "false"); });
  for (std::size_t axis = 0; axis < static_cast<std::size_t>(dims); ++axis) {
    out.text(", \"");
    out.text(axes[axis]);
    out.text("\": ");
    out.array(created, [&](const Object& o) { out.real(o.coords[axis]); });
  }
  out.text("}, ");
}

void write_edges(Text& out, const std::vector<TraceEdge>& edges) {
  out.text("\"edges\": {\"from\": ");
  out.array(edges, [&](const TraceEdge& e) { out.integer(e.from); });
  out.text(", \"to\": ");
  out.array(edges, [&](const TraceEdge& e) { out.integer(e.to); });
  out.text(", \"messages\": ");
  out.array(edges, [&](const TraceEdge& e) { out.integer(e.messages); });
  out.text(", \"bytes\": ");
  out.array(edges, [&](const TraceEdge& e) { out.integer(e.bytes); });
  out.text("}, ");
}

void write_json(const Trace& trace, Text& out) {
  out.text("{\n  \"format\": \"");
  out.text(json_format_name);
  out.text("\",\n  \"version\": ");
  out.integer(trace_format_version);
  out.text(",\n  \"initial\": ");
  std::ostringstream instance;
  write_instance(trace.initial, instance);
  std::string text = instance.str();
  while (!text.empty() && text.back() == '\n') text.pop_back();
  // Indented one level deeper than at the top of an instance file.
  for (const char c : text) {
    out.contents().push_back(c);
    if (c == '\n') out.text("  ");
  }
  out.text(",\n  \"steps\": [");
  for (std::size_t s = 0; s < trace.steps.size(); ++s) {
    const TraceStep& step = trace.steps[s];
    out.text(s == 0 ? "\n    {" : ",\n    {");
    if (!step.deleted.empty()) {
      out.text("\"deleted\": ");
      out.array(step.deleted, [&](ObjectId id) { out.integer(id); });
      out.text(", ");
    }
    if (!step.created.empty()) write_created(out, step.created, trace.initial.dims);
    if (step.replaces_edges) write_edges(out, step.edges);
    out.text("\"loads\": ");
    out.array(step.loads, [&](double load) { out.real(load); });
    out.text("}");
  }
  out.text(trace.steps.empty() ? "]\n}\n" : "\n  ]\n}\n");
}

// ---- reading

using trace_detail::int64_max;
using trace_detail::int64_min;
using trace_detail::Schema;

// The columns of a group must have the same length; returns it.
std::size_t same_length(const Schema& schema, const json& group, const std::string& where,
                        std::initializer_list<const char*> columns) {
  std::size_t n = 0;
  const char* first = nullptr;
  for (const char* c : columns) {
    const json& column = schema.array(schema.field(group, where, c), where + "." + c, "values");
    if (first == nullptr) {
      first = c;
      n = column.size();
    } else if (column.size() != n) {
      schema.fail(where + "." + c, "has " + std::to_string(column.size()) + " elements but " +
                                       where + "." + first + " has " + std::to_string(n) +
                                       "; all columns of \"" + where +
                                       "\" must have the same length");
    }
  }
  return n;
}

std::vector<Object> read_created(const Schema& schema, const json& v, const std::string& where,
                                 int dims) {
  schema.object(v, where);
  schema.only(v, where, {"id", "size", "pe", "migratable", "x", "y", "z"});
  for (int axis = dims; axis < 3; ++axis) {
    if (v.contains(axes[static_cast<std::size_t>(axis)])) {
      schema.fail(where + "." + std::string(axes[static_cast<std::size_t>(axis)]),
                  "present, but the trace has dims " + std::to_string(dims));
    }
  }
  const std::size_t n = same_length(schema, v, where, {"id", "size", "pe", "migratable"});
  std::vector<Object> created(n);
  for (std::size_t i = 0; i < n; ++i) {
    Object& o = created[i];
    o.id = schema.signed_integer(v["id"][i], schema.at(where + ".id", i), int64_min, int64_max,
                                 "a 64-bit integer");
    o.size = schema.unsigned_integer(v["size"][i], schema.at(where + ".size", i));
    o.pe = static_cast<PeId>(schema.signed_integer(v["pe"][i], schema.at(where + ".pe", i), 0,
                                                   std::numeric_limits<PeId>::max(),
                                                   "a PE index (an integer >= 0)"));
    o.migratable = schema.boolean(v["migratable"][i], schema.at(where + ".migratable", i));
  }
  for (std::size_t axis = 0; axis < static_cast<std::size_t>(dims); ++axis) {
    const std::string name = where + "." + std::string(axes[axis]);
    const json& column = schema.array(schema.field(v, where, axes[axis].data()), name, "numbers");
    if (column.size() != n) {
      schema.fail(name, "has " + std::to_string(column.size()) + " elements but " + where +
                            ".id has " + std::to_string(n));
    }
    for (std::size_t i = 0; i < n; ++i) {
      created[i].coords[axis] = schema.number(column[i], schema.at(name, i));
    }
  }
  return created;
}

std::vector<TraceEdge> read_edges(const Schema& schema, const json& v, const std::string& where) {
  schema.object(v, where);
  schema.only(v, where, {"from", "to", "messages", "bytes"});
  const std::size_t n = same_length(schema, v, where, {"from", "to", "messages", "bytes"});
  std::vector<TraceEdge> edges(n);
  for (std::size_t i = 0; i < n; ++i) {
    TraceEdge& e = edges[i];
    e.from = schema.signed_integer(v["from"][i], schema.at(where + ".from", i), int64_min,
                                   int64_max, "an object id (a 64-bit integer)");
    e.to = schema.signed_integer(v["to"][i], schema.at(where + ".to", i), int64_min, int64_max,
                                 "an object id (a 64-bit integer)");
    e.messages = schema.unsigned_integer(v["messages"][i], schema.at(where + ".messages", i));
    e.bytes = schema.unsigned_integer(v["bytes"][i], schema.at(where + ".bytes", i));
  }
  return edges;
}

TraceStep read_step(const Schema& schema, const json& v, const std::string& where, int dims) {
  schema.object(v, where);
  schema.only(v, where, {"deleted", "created", "edges", "loads"});
  TraceStep step;
  if (const auto it = v.find("deleted"); it != v.end()) {
    const json& deleted = schema.array(*it, where + ".deleted", "object ids");
    step.deleted.reserve(deleted.size());
    for (std::size_t i = 0; i < deleted.size(); ++i) {
      step.deleted.push_back(schema.signed_integer(deleted[i], schema.at(where + ".deleted", i),
                                                   int64_min, int64_max,
                                                   "an object id (a 64-bit integer)"));
    }
  }
  if (const auto it = v.find("created"); it != v.end()) {
    step.created = read_created(schema, *it, where + ".created", dims);
  }
  if (const auto it = v.find("edges"); it != v.end()) {
    step.replaces_edges = true;
    step.edges = read_edges(schema, *it, where + ".edges");
  }
  const json& loads = schema.array(schema.field(v, where, "loads"), where + ".loads", "numbers");
  step.loads.reserve(loads.size());
  for (const json& load : loads) {
    if (!load.is_number()) {
      schema.fail(schema.at(where + ".loads", step.loads.size()),
                  "expected a number, got " + Schema::describe(load));
    }
    step.loads.push_back(load.get<double>());
  }
  return step;
}

}  // namespace

namespace trace_detail {

Trace parse_trace_json(std::string_view text, const std::string& path) {
  json doc;
  // nlohmann keeps the last of repeated keys; a repeat is an error here, as in the instance format.
  std::vector<std::set<std::string>> keys;
  const json::parser_callback_t no_repeats = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) keys.emplace_back();
    if (event == json::parse_event_t::object_end) keys.pop_back();
    if (event == json::parse_event_t::key &&
        !keys.back().insert(parsed.get<std::string>()).second) {
      throw TraceError(path + ": field \"" + parsed.get<std::string>() +
                       "\" appears twice in one object");
    }
    return true;
  };
  try {
    doc = json::parse(text, no_repeats);
  } catch (const json::exception& e) {
    throw TraceError(path + ": " + trace_detail::json_error_message(e, text));
  }
  const Schema schema(path);
  if (!doc.is_object()) {
    throw TraceError(path + ": expected a JSON object at the top, got " + Schema::describe(doc));
  }
  // The version decides how to read everything else, so it is checked first.
  const json& version = schema.field(doc, "", "version");
  if (!version.is_number_integer()) {
    schema.fail("version", "expected an integer, got " + Schema::describe(version));
  }
  if (version.get<std::int64_t>() != trace_format_version) {
    throw TraceError(path + ": version " + version.dump() +
                     " is not supported (this build reads version " +
                     std::to_string(trace_format_version) + ")");
  }
  const json& format = schema.field(doc, "", "format");
  if (!format.is_string() || format.get_ref<const std::string&>() != json_format_name) {
    schema.fail("format", "expected \"" + std::string(json_format_name) + "\", got " +
                              Schema::describe(format));
  }
  schema.only(doc, "", {"format", "version", "initial", "steps"});
  Trace trace;
  const json& initial = schema.object(schema.field(doc, "", "initial"), "initial");
  try {
    trace.initial = parse_instance(initial.dump(), path + ": initial");
  } catch (const InstanceError& e) {
    throw TraceError(e.what());
  }
  const json& steps = schema.array(schema.field(doc, "", "steps"), "steps", "steps");
  trace.steps.reserve(steps.size());
  for (std::size_t s = 0; s < steps.size(); ++s) {
    trace.steps.push_back(read_step(schema, steps[s], Schema::at("steps", s), trace.initial.dims));
  }
  return trace;
}

}  // namespace trace_detail

void write_trace_json(const Trace& trace, const std::string& path) {
  trace_detail::check_writable(trace, path);
  Text out;
  write_json(trace, out);
  trace_detail::write_file(path, out.contents());
}

}  // namespace vela::lb
