#include "report_inputs.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "io/read_file.hpp"

namespace vela::tools::report {

namespace {

using nlohmann::json;

const char* const kKinds =
    "expected a step log (CSV with the header step,seconds[,migrate_seconds]), an instance file "
    "(--lb-dump), a Chrome trace (--trace), or the JSON of 'vela-lb compare --format json' or "
    "'vela-lb replay --format json'";

[[noreturn]] void bad(const std::string& path, const std::string& what) {
  throw std::invalid_argument(path + ": " + what);
}

// Binary data is refused from its first bytes, before a large file is read whole.
std::string binary_sniff(std::string_view first) {
  for (const char c : first) {
    if (c == '\0') return std::string("not a report input (binary data); ") + kKinds;
  }
  return "";
}

std::string_view trimmed(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // a UTF-8 byte order mark
  const auto begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) return {};
  const auto end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

double finite_number(const std::string& path, const json& value, const std::string& where) {
  if (!value.is_number()) bad(path, where + ": expected a number, got " + value.dump());
  const double x = value.get<double>();
  if (!std::isfinite(x)) bad(path, where + ": expected a finite number");
  return x;
}

double non_negative(const std::string& path, const json& value, const std::string& where) {
  const double x = finite_number(path, value, where);
  if (x < 0.0) bad(path, where + ": " + value.dump() + " is negative; expected a number >= 0");
  return x;
}

const json& field(const std::string& path, const json& object, const std::string& name,
                  const std::string& where) {
  const auto it = object.find(name);
  if (it == object.end()) bad(path, where + ": missing field \"" + name + "\"");
  return *it;
}

// A JSON document's kind, or nullopt-like empty text when it is none of ours.
std::string json_kind(const json& document) {
  if (document.is_object()) {
    const auto format = document.find("format");
    if (format != document.end() && format->is_string()) {
      if (*format == "vela-instance") return "instance";
      if (*format == "vela-replay") return "replay";
      return "format " + format->dump();
    }
    if (document.contains("traceEvents")) return "chrome_trace";
    return "";
  }
  if (document.is_array()) return "compare";
  return "";
}

std::vector<std::string> split(std::string_view line, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const auto at = line.find(separator, start);
    parts.emplace_back(line.substr(start, at - start));
    if (at == std::string_view::npos) return parts;
    start = at + 1;
  }
}

// The dumps of one collection: "DIR/NAME-stepK.json" groups by DIR/NAME and orders by K.
struct DumpName {
  std::string collection;
  long step = -1;  // -1: not a --lb-dump name
};

DumpName dump_name(const std::string& path) {
  const std::filesystem::path p(path);
  const std::string stem = p.stem().string();
  const auto at = stem.rfind("-step");
  DumpName name{(p.parent_path() / stem).string(), -1};
  if (at == std::string::npos || at + 5 >= stem.size()) return name;
  const std::string digits = stem.substr(at + 5);
  if (digits.size() > 9 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return name;
  }
  return {(p.parent_path() / stem.substr(0, at)).string(), std::stol(digits)};
}

}  // namespace

std::string kind_name(InputKind kind) {
  switch (kind) {
    case InputKind::step_log:
      return "step log";
    case InputKind::instance:
      return "instance";
    case InputKind::chrome_trace:
      return "Chrome trace";
    case InputKind::compare:
      return "strategy comparison";
    case InputKind::replay:
      return "replay";
  }
  return "unknown";
}

json read_step_log(const std::string& path, const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.size() >= 3 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);
  const std::vector<std::string> header = split(line, ',');
  const bool with_migrate = header.size() == 3 && header[2] == "migrate_seconds";
  if (header.size() < 2 || header[0] != "step" || header[1] != "seconds" ||
      (header.size() == 3 && !with_migrate) || header.size() > 3) {
    bad(path, "line 1: the header '" + line + "' is not step,seconds[,migrate_seconds]; " + kKinds);
  }
  json steps = json::array(), seconds = json::array(), migrate = json::array();
  double previous = 0.0;
  for (int number = 2; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (trimmed(line).empty()) continue;
    const std::vector<std::string> cells = split(line, ',');
    const std::string where = fmt::format("line {}", number);
    if (cells.size() != header.size()) {
      bad(path, where + ": expected " + std::to_string(header.size()) + " values (" +
                    (with_migrate ? "step,seconds,migrate_seconds" : "step,seconds") + "), got '" +
                    line + "'");
    }
    const auto step = lb::parse_decimal_unsigned(cells[0]);
    if (!step || *step == 0 || static_cast<double>(*step) <= previous) {
      bad(path, where + ": step '" + cells[0] +
                    "': expected a whole number >= 1, larger than the step before");
    }
    previous = static_cast<double>(*step);
    std::vector<double> values;
    for (std::size_t c = 1; c < cells.size(); ++c) {
      const auto value = lb::parse_decimal(cells[c]);
      if (!value || *value < 0.0) {
        bad(path, where + ": " + header[c] + " '" + cells[c] + "': expected seconds >= 0");
      }
      values.push_back(*value);
    }
    steps.push_back(*step);
    seconds.push_back(values[0]);
    migrate.push_back(with_migrate ? values[1] : 0.0);
  }
  if (steps.empty()) bad(path, "no steps: expected at least one row after the header");
  return {{"path", path},
          {"step", std::move(steps)},
          {"seconds", std::move(seconds)},
          {"migrate_seconds", std::move(migrate)},
          {"has_migrate", with_migrate}};
}

json read_compare(const std::string& path, const json& document) {
  if (document.empty()) bad(path, "no strategies: the comparison is an empty array");
  json rows = json::array();
  for (std::size_t i = 0; i < document.size(); ++i) {
    const json& row = document[i];
    const std::string where = fmt::format("[{}]", i);
    if (!row.is_object()) {
      bad(path, where + ": expected an object of 'vela-lb compare --format json'; " + kKinds);
    }
    const json& name = field(path, row, "strategy", where);
    if (!name.is_string()) bad(path, where + ".strategy: expected a strategy name");
    json out = {{"strategy", name}};
    for (const char* key : {"lambda_before", "lambda_after", "migrations", "bytes_moved",
                            "comm_cut_bytes", "time_ms"}) {
      out[key] = non_negative(path, field(path, row, key, where), where + "." + key);
    }
    rows.push_back(std::move(out));
  }
  return {{"path", path}, {"strategies", std::move(rows)}};
}

json read_replay(const std::string& path, const json& document) {
  const json& version = field(path, document, "version", "the replay");
  if (version != 1) {
    bad(path, "replay version " + version.dump() + " is not supported (this build reads 1)");
  }
  const json& policies = field(path, document, "policies", "the replay");
  if (!policies.is_array() || policies.empty()) {
    bad(path, "policies: expected a non-empty array of replayed policies");
  }
  json out = json::array();
  for (std::size_t k = 0; k < policies.size(); ++k) {
    const std::string where = fmt::format("policies[{}]", k);
    const json& policy = policies[k];
    if (!policy.is_object()) bad(path, where + ": expected an object");
    const json& label = field(path, policy, "policy", where);
    const json& series = field(path, policy, "series", where);
    if (!series.is_object()) bad(path, where + ".series: expected an object of columns");
    json columns;
    std::size_t steps = 0;
    bool first = true;
    for (const char* key : {"time", "imbalance", "applied", "migrations", "bytes_moved"}) {
      const json& column = field(path, series, key, where + ".series");
      const std::string at = where + ".series." + key;
      if (!column.is_array()) bad(path, at + ": expected an array");
      if (!first && column.size() != steps) {
        bad(path, at + ": " + std::to_string(column.size()) + " values, but time has " +
                      std::to_string(steps) + "; every column has one per step");
      }
      steps = column.size();
      first = false;
      json values = json::array();
      for (std::size_t s = 0; s < column.size(); ++s) {
        const std::string cell = fmt::format("{}[{}]", at, s);
        if (std::string(key) == "applied") {
          if (!column[s].is_boolean()) bad(path, cell + ": expected true or false");
          values.push_back(column[s]);
        } else {
          values.push_back(non_negative(path, column[s], cell));
        }
      }
      columns[key] = std::move(values);
    }
    if (steps == 0) bad(path, where + ".series: no steps");
    out.push_back({{"policy", label.is_string() ? label.get<std::string>() : label.dump()},
                   {"series", std::move(columns)}});
  }
  return {{"path", path}, {"policies", std::move(out)}};
}

json read_chrome_trace(const std::string& path, const json& document, std::size_t bins) {
  const json& events = document["traceEvents"];
  if (!events.is_array()) bad(path, "traceEvents: expected an array of trace events");
  struct Span {
    double begin, end;
    std::string category;
    long pe;
  };
  std::vector<Span> spans;
  std::vector<std::pair<double, double>> balancing;  // the lb spans, to mark on the timeline
  // Asynchronous balancing: the balancing thread's track (the thread named "balancer") is no PE;
  // each of its spans is a placement decided at the span's end.
  std::set<std::pair<long, long>> balancer;  // (pid, tid)
  // A field that is a text equal to `text` (events are checked below: anything else, of any
  // type, is simply not this metadata).
  const auto is_text = [](const json& object, const char* key, const char* text) {
    const auto it = object.find(key);
    return it != object.end() && it->is_string() && it->get<std::string>() == text;
  };
  const auto integer = [](const json& object, const char* key) -> std::optional<long> {
    const auto it = object.find(key);
    if (it == object.end() || !it->is_number_integer()) return std::nullopt;
    return it->get<long>();
  };
  for (const json& e : events) {
    if (!e.is_object() || !is_text(e, "ph", "M") || !is_text(e, "name", "thread_name")) continue;
    const auto args = e.find("args");
    if (args == e.end() || !args->is_object() || !is_text(*args, "name", "balancer")) continue;
    if (const std::optional<long> tid = integer(e, "tid")) {
      balancer.emplace(integer(e, "pid").value_or(0), *tid);
    }
  }
  std::vector<double> decided;
  double first = 0.0, last = 0.0;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const json& e = events[i];
    const std::string where = fmt::format("traceEvents[{}]", i);
    if (!e.is_object()) bad(path, where + ": expected an event object");
    const auto phase = e.find("ph");
    if (phase == e.end() || !phase->is_string()) bad(path, where + ".ph: expected a phase text");
    if (*phase != "X") continue;  // metadata and instants
    const double ts = finite_number(path, field(path, e, "ts", where), where + ".ts");
    const double dur = non_negative(path, field(path, e, "dur", where), where + ".dur");
    const json& tid = field(path, e, "tid", where);
    if (!tid.is_number_integer() || tid.get<long>() < 0 || tid.get<long>() > (1L << 24)) {
      bad(path, where + ".tid: expected a PE number >= 0");
    }
    if (balancer.count({integer(e, "pid").value_or(0), tid.get<long>()}) != 0) {
      decided.push_back(ts + dur);
      continue;
    }
    const auto category = e.find("cat");
    spans.push_back(
        {ts, ts + dur,
         category != e.end() && category->is_string() ? category->get<std::string>() : "entry",
         tid.get<long>()});
    if (spans.size() == 1) first = ts, last = ts + dur;
    first = std::min(first, ts);
    last = std::max(last, ts + dur);
    if (spans.back().category == "lb") balancing.emplace_back(ts, ts + dur);
  }
  if (spans.empty()) bad(path, "no complete events (\"ph\": \"X\"): nothing to draw a timeline of");
  if (!(last > first)) bad(path, "every event has length 0: nothing to draw a timeline of");

  std::map<long, std::size_t> row_of;  // PE → row, in PE order
  for (const Span& s : spans) row_of.emplace(s.pe, 0);
  std::size_t rows = 0;
  for (auto& [pe, row] : row_of) row = rows++;
  const std::vector<std::string> kinds = {"entry", "lb", "migration", "idle", "runtime"};
  const double width = (last - first) / static_cast<double>(bins);
  // share[kind][row][bin]: the fraction of the bin the PE spent in events of that kind.
  std::vector<std::vector<std::vector<double>>> share(
      kinds.size(), std::vector<std::vector<double>>(rows, std::vector<double>(bins, 0.0)));
  for (const Span& s : spans) {
    const auto kind = std::find(kinds.begin(), kinds.end(), s.category);
    auto& row = share[static_cast<std::size_t>(kind == kinds.end() ? 4 : kind - kinds.begin())]
                     [row_of[s.pe]];
    auto bin = static_cast<std::size_t>((s.begin - first) / width);
    for (; bin < bins; ++bin) {
      const double lo = first + width * static_cast<double>(bin);
      const double hi = lo + width;
      if (s.end <= lo) break;
      const double overlap = std::min(s.end, hi) - std::max(s.begin, lo);
      if (overlap > 0.0) row[bin] += overlap / width;
    }
  }
  json pes = json::array();
  for (const auto& [pe, row] : row_of) pes.push_back(pe);
  json shares = json::object();
  for (std::size_t k = 0; k < kinds.size(); ++k) {
    for (auto& row : share[k]) {
      for (double& x : row) x = std::min(x, 1.0);  // nested spans would count twice
    }
    shares[kinds[k]] = share[k];
  }
  json marks = json::array();
  for (const auto& [b, e] : balancing) marks.push_back({(b - first) * 1e-6, (e - first) * 1e-6});
  json decisions = json::array();
  for (const double at : decided) decisions.push_back((at - first) * 1e-6);
  return {{"path", path},
          {"pes", std::move(pes)},
          {"seconds", (last - first) * 1e-6},
          {"bins", bins},
          {"share", std::move(shares)},
          {"balancing", std::move(marks)},
          {"decided", std::move(decisions)},
          {"events", spans.size()}};
}

json summarize(const std::vector<std::string>& inputs, const SummaryOptions& options) {
  if (inputs.empty()) throw std::invalid_argument("no inputs; " + std::string(kKinds));
  json summary = {{"format", "vela-report-summary"}, {"version", 1},
                  {"inputs", json::array()},         {"step_logs", json::array()},
                  {"replays", json::array()},        {"comparisons", json::array()},
                  {"traces", json::array()},         {"balancing", json::array()}};
  std::map<std::string, std::map<long, std::string>> dumps;  // collection → step → path
  long unnamed = 0;
  for (const std::string& path : inputs) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
      bad(path, "is a directory; give its files (for --lb-dump: DIR/*.json)");
    }
    const std::string text = lb::io_detail::read_input_or_throw<std::invalid_argument>(
        path, [](std::string_view first) { return binary_sniff(first); });
    const std::string_view body = trimmed(text);
    if (body.empty()) bad(path, "empty file; " + std::string(kKinds));
    InputKind kind = InputKind::step_log;
    json document;
    if (body.front() == '{' || body.front() == '[') {
      try {
        document = json::parse(body);
      } catch (const json::parse_error& e) {
        bad(path, std::string("not JSON: ") + e.what());
      } catch (const json::out_of_range& e) {  // a number beyond a double's range
        bad(path, std::string("a number out of range: ") + e.what());
      }
      const std::string found = json_kind(document);
      if (found == "instance") {
        kind = InputKind::instance;
      } else if (found == "replay") {
        kind = InputKind::replay;
      } else if (found == "chrome_trace") {
        kind = InputKind::chrome_trace;
      } else if (found == "compare") {
        kind = InputKind::compare;
      } else if (found.empty()) {
        bad(path, std::string("a JSON document of unknown kind; ") + kKinds);
      } else {
        bad(path, "a JSON document of " + found +
                      ", not a report input (a load trace: replay it with 'vela-lb replay "
                      "--format json' first); " +
                      kKinds);
      }
    }
    switch (kind) {
      case InputKind::step_log:
        summary["step_logs"].push_back(read_step_log(path, text));
        break;
      case InputKind::compare:
        summary["comparisons"].push_back(read_compare(path, document));
        break;
      case InputKind::replay:
        summary["replays"].push_back(read_replay(path, document));
        break;
      case InputKind::chrome_trace:
        summary["traces"].push_back(read_chrome_trace(path, document, options.time_bins));
        break;
      case InputKind::instance: {
        DumpName name = dump_name(path);
        if (name.step < 0) name = {path, ++unnamed};  // a collection of its own
        auto& steps = dumps[name.collection];
        if (!steps.emplace(name.step, path).second) {
          bad(path, "is the same balancing step as " + steps[name.step] + " (both -step" +
                        std::to_string(name.step) + " of one collection)");
        }
        break;
      }
    }
    summary["inputs"].push_back({{"path", path}, {"kind", kind_name(kind)}});
  }
  for (const auto& [collection, steps] : dumps) {
    json series = read_balancing_steps({steps.begin(), steps.end()}, options);
    series["collection"] = std::filesystem::path(collection).filename().string();
    summary["balancing"].push_back(std::move(series));
  }
  return summary;
}

}  // namespace vela::tools::report
