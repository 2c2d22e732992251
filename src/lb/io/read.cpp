// Reading instances from JSON (docs/instance-format.md).
//
// The reader is a strict JSON parser driven by the format's schema: each number is checked and
// stored straight into the Instance as it is scanned (std::from_chars). nlohmann::json, even
// through its SAX interface with an empty handler, needs ~2.1 s for the 130 MB of a
// 10^6-object file on the 2-core build machine, most of the 3 s budget; this parser reads and
// checks it in a fraction of that (see bench/io_bench.cpp).
#include "vela/lb/io/io.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <new>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "format.hpp"
#include "parser.hpp"
#include "read_file.hpp"
#include "totals.hpp"

namespace vela::lb {
namespace {

using io_detail::format_name;

// A string from the file, shortened, for a message.
std::string the_string(std::string_view s) {
  constexpr std::size_t shown = 40;
  return "the string \"" + std::string(s.substr(0, shown)) + (s.size() > shown ? "...\"" : "\"");
}

// ---------------------------------------------------------------------------------------------
// Reading

// from_chars leaves the value alone when the number is beyond double's range; its order of
// magnitude tells overflow (infinity) from underflow (zero).
double out_of_range_value(std::string_view text) {
  const bool negative = text.front() == '-';
  // The value lies in [10^(m-1), 10^m) * 10^exponent: m is 3 for "123.4", -2 for "0.001".
  long long m = 0;
  bool significant = false;
  bool fraction = false;
  std::size_t i = negative ? 1 : 0;
  for (; i < text.size() && text[i] != 'e' && text[i] != 'E'; ++i) {
    if (text[i] == '.') {
      fraction = true;
      continue;
    }
    significant = significant || text[i] != '0';
    if (significant && !fraction) ++m;
    if (!significant && fraction) --m;
  }
  long long exponent = 0;
  if (i < text.size()) {
    std::string_view digits = text.substr(i + 1);
    const bool down = !digits.empty() && digits.front() == '-';
    if (!digits.empty() && (digits.front() == '-' || digits.front() == '+')) {
      digits.remove_prefix(1);
    }
    const auto [end, error] =
        std::from_chars(digits.data(), digits.data() + digits.size(), exponent);
    if (error != std::errc()) exponent = std::numeric_limits<long long>::max() / 4;
    if (down) exponent = -exponent;
  }
  const double value = m + exponent > 0 ? std::numeric_limits<double>::infinity() : 0.0;
  return negative ? -value : value;
}

double to_double(std::string_view text) {
  double value = 0.0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error == std::errc::result_out_of_range) value = out_of_range_value(text);
  return value;
}

// The "version" a document declares, found by a lenient scan that skips everything else. Used
// when an error comes before "version" was read, so that a file of another version is reported
// as such rather than by its first symptom.
std::optional<std::string_view> declared_version(std::string_view text) {
  int depth = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') --depth;
    if (c != '"') continue;
    const std::size_t start = ++i;
    while (i < text.size() && text[i] != '"') i += text[i] == '\\' ? 2 : 1;
    if (i >= text.size()) return std::nullopt;
    if (depth != 1 || text.substr(start, i - start) != "version") continue;
    std::size_t j = text.find_first_not_of(" \t\r\n", i + 1);
    if (j == std::string_view::npos || text[j] != ':') continue;
    j = text.find_first_not_of(" \t\r\n", j + 1);
    if (j == std::string_view::npos) return std::nullopt;
    const std::size_t end = text.find_first_not_of("-+.eE0123456789", j);
    if (end == j) return std::nullopt;
    return text.substr(j, end == std::string_view::npos ? std::string_view::npos : end - j);
  }
  return std::nullopt;
}

// The version a document declares, when this build reads it.
std::optional<int> supported_version(std::string_view text) {
  for (int v = oldest_instance_format_version; v <= instance_format_version; ++v) {
    if (text == std::to_string(v)) return v;
  }
  return std::nullopt;
}

std::string unsupported(std::string_view version) {
  std::string known = "version " + std::to_string(oldest_instance_format_version);
  if (instance_format_version > oldest_instance_format_version) {
    known = "versions " + std::to_string(oldest_instance_format_version) +
            (instance_format_version == oldest_instance_format_version + 1 ? " and " : " to ") +
            std::to_string(instance_format_version);
  }
  return "version " + std::string(version) + " is not supported (this build reads " + known + ")";
}

}  // namespace

namespace io_detail {

void Parser::syntax_error(const std::string& expected) const {
  const std::size_t line_start = text_.rfind('\n', pos_ == 0 ? 0 : pos_ - 1);
  const auto line =
      std::count(text_.begin(), text_.begin() + static_cast<std::ptrdiff_t>(pos_), '\n') + 1;
  const std::size_t column =
      line_start == std::string_view::npos || pos_ == 0 ? pos_ + 1 : pos_ - line_start;
  std::string found = "the end of the text";
  if (pos_ < text_.size()) {
    const auto c = static_cast<unsigned char>(text_[pos_]);
    std::array<char, 16> shown{};
    std::snprintf(shown.data(), shown.size(), c >= 0x20 && c < 0x7f ? "'%c'" : "byte 0x%02x", c);
    found = shown.data();
  }
  throw InstanceError(source_ + ": not JSON: at byte offset " + std::to_string(pos_) + " (line " +
                      std::to_string(line) + ", column " + std::to_string(column) + "): expected " +
                      expected + ", found " + found);
}

void Parser::fail(const std::string& message) const {
  if (!version_seen_) {
    const auto version = declared_version(text_);
    if (version && !supported_version(*version)) {
      throw InstanceError(source_ + ": " + unsupported(*version));
    }
  }
  throw InstanceError(source_ + ": " + message);
}

std::string Parser::string() {  // at '"'
  std::string out;
  ++pos_;
  for (;;) {
    if (pos_ >= text_.size()) syntax_error("'\"' to end the string");
    const char c = text_[pos_];
    if (static_cast<unsigned char>(c) < 0x20) {
      syntax_error("a character that is not a control character");
    }
    ++pos_;
    if (c == '"') return out;
    if (c != '\\') {
      out += c;
      continue;
    }
    const char escape = pos_ < text_.size() ? text_[pos_] : '\0';
    constexpr std::string_view simple = "\"\\/bfnrt";
    constexpr std::string_view meaning = "\"\\/\b\f\n\r\t";
    if (const auto k = simple.find(escape); k != std::string_view::npos) {
      out += meaning[k];
      ++pos_;
      continue;
    }
    if (escape != 'u') {
      syntax_error("an escape sequence (one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)");
    }
    ++pos_;
    unsigned code = 0;
    const auto [end, error] = std::from_chars(
        text_.data() + pos_, text_.data() + std::min(pos_ + 4, text_.size()), code, 16);
    if (error != std::errc() || end != text_.data() + pos_ + 4) {
      syntax_error("four hex digits after \\u");
    }
    pos_ += 4;
    // UTF-8 of the code unit; surrogates are kept as they are: only ASCII names are ever valid.
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xc0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3f));
    } else {
      out += static_cast<char>(0xe0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (code & 0x3f));
    }
  }
}

Number Parser::number() {  // at '-' or a digit
  const std::size_t start = pos_;
  const auto digits = [&] {
    if (pos_ >= text_.size() || !is_digit(text_[pos_])) syntax_error("a digit");
    while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
  };
  Number n;
  if (text_[pos_] == '-') ++pos_;
  if (pos_ < text_.size() && text_[pos_] == '0') {
    ++pos_;
  } else {
    digits();
  }
  if (pos_ < text_.size() && text_[pos_] == '.') {
    ++pos_;
    digits();
    n.integral = false;
  }
  if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
    ++pos_;
    if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
    digits();
    n.integral = false;
  }
  n.text = text_.substr(start, pos_ - start);
  return n;
}

bool Parser::literal(std::string_view word) {
  if (text_.substr(pos_, word.size()) != word) return false;
  pos_ += word.size();
  return true;
}

// Reads the value at the cursor and names it for a message ("the string \"abc\"").
std::string Parser::describe_value() {
  const char c = peek();
  if (c == '{') return "an object";
  if (c == '[') return "an array";
  if (c == '"') return the_string(string());
  if (c == '-' || is_digit(c)) return "the number " + std::string(number().text);
  if (literal("true")) return "the boolean true";
  if (literal("false")) return "the boolean false";
  if (literal("null")) return "null";
  syntax_error("a value");
}

Instance Parser::parse() {
  for (std::size_t g = 0; g < kGroupCount; ++g) {
    for (std::size_t c = group_begin[g]; c < group_begin[g + 1]; ++c) {
      static constexpr std::array<std::string_view, kColumnCount> fields = {
          "speed", "background", "cluster", "id", "load",     "size",  "pe",   "migratable", "x",
          "y",     "z",          "from",    "to", "messages", "bytes", "pins", "bytes"};
      columns_[c].field = fields[c];
      columns_[c].name = std::string(group_names[g]) + "." + std::string(fields[c]);
    }
  }
  if (text_.starts_with(utf8_bom)) pos_ = utf8_bom.size();  // a byte order mark is not content
  const char first = peek();
  if (first == '\0' && pos_ == text_.size()) syntax_error("a JSON value");
  if (first != '{') fail("the document is " + describe_value() + "; expected an object");
  object("the document", [&](const std::string& key) { top_level_field(key); });
  skip_space();
  if (pos_ != text_.size()) syntax_error("the end of the text after the document");
  return finish();
}

void Parser::top_level_field(const std::string& key) {
  const auto duplicate = [&] { fail("duplicate field \"" + key + "\""); };
  for (std::size_t g = 0; g < kGroupCount; ++g) {
    if (key != group_names[g]) continue;
    if (group_present_[g]) duplicate();
    group_present_[g] = true;
    if (g == kHyperedges && version_seen_ && version_ < 2) {
      fail("field \"hyperedges\" needs version 2 (this file is version " +
           std::to_string(version_) + ")");
    }
    group(static_cast<Group>(g));
    return;
  }
  if (key == "format") {
    if (format_seen_) duplicate();
    format_seen_ = true;
    const bool is_string = peek() == '"';
    const std::string value = is_string ? string() : std::string();
    if (is_string && value == format_name) return;
    fail("format: found " + (is_string ? the_string(value) : describe_value()) + "; expected " +
         the_string(format_name));
  }
  if (key == "version") {
    if (version_seen_) duplicate();
    const char c = peek();
    if (c != '-' && !is_digit(c)) {
      fail("version: found " + describe_value() + "; expected an integer");
    }
    const Number n = number();
    version_seen_ = true;
    if (!n.integral) fail("version: " + std::string(n.text) + " is not an integer");
    const std::optional<int> version = supported_version(n.text);
    if (!version) fail(unsupported(n.text));
    version_ = *version;
    return;
  }
  if (key == "dims") {
    if (dims_) duplicate();
    const char c = peek();
    if (c != '-' && !is_digit(c)) {
      fail("dims: found " + describe_value() + "; expected 0, 1, 2 or 3");
    }
    const Number n = number();
    if (!n.integral || n.text.size() != 1 || n.text[0] > '3') {
      fail("dims: " + std::string(n.text) + " is not 0, 1, 2 or 3");
    }
    dims_ = n.text[0] - '0';
    return;
  }
  fail("unknown field \"" + key +
       "\" (the fields are format, version, dims, pes, objects, edges and, from version 2, "
       "hyperedges)");
}

void Parser::group(Group g) {
  const std::string name(group_names[g]);
  if (peek() != '{') fail(name + ": found " + describe_value() + "; expected an object of columns");
  object(name, [&](const std::string& key) {
    for (std::size_t c = group_begin[g]; c < group_begin[g + 1]; ++c) {
      if (key != columns_[c].field) continue;
      if (columns_[c].present) fail("duplicate field \"" + columns_[c].name + "\"");
      columns_[c].present = true;
      column(static_cast<ColumnId>(c));
      return;
    }
    fail("unknown field \"" + name + "." + key + "\"");
  });
}

void Parser::column(ColumnId id) {
  Column& c = columns_[id];
  constexpr auto int32_max = std::numeric_limits<std::int32_t>::max();
  constexpr auto int64_min = std::numeric_limits<std::int64_t>::min();
  constexpr auto int64_max = std::numeric_limits<std::int64_t>::max();
  auto& pes = instance_.pes;
  auto& objects = instance_.objects;
  auto& edges = instance_.edges;
  switch (id) {
    case kSpeed:
      c.expected = "expected a finite number > 0";
      return array(c, [&](std::size_t i) { grow(pes, i).speed = real(c, true, true); });
    case kBackground:
      c.expected = "expected a finite number >= 0";
      return array(c, [&](std::size_t i) { grow(pes, i).background = real(c, false, true); });
    case kCluster:
      c.expected = "expected an integer >= 0";
      return array(c, [&](std::size_t i) {
        grow(pes, i).cluster = static_cast<std::int32_t>(integer(c, 0, int32_max));
      });
    case kId:
      c.expected = "expected an integer object id";
      return array(c,
                   [&](std::size_t i) { grow(objects, i).id = integer(c, int64_min, int64_max); });
    case kLoad:
      c.expected = "expected a finite number >= 0";
      return array(c, [&](std::size_t i) { grow(objects, i).load = real(c, false, true); });
    case kSize:
      c.expected = "expected an integer >= 0";
      return array(c, [&](std::size_t i) { grow(objects, i).size = count(c); });
    case kPe:
      c.expected = "expected a PE index (an integer >= 0)";
      return array(c, [&](std::size_t i) {
        grow(objects, i).pe = static_cast<PeId>(integer(c, 0, int32_max));
      });
    case kMigratable:
      c.expected = "expected true or false";
      return array(c, [&](std::size_t i) { grow(objects, i).migratable = flag(c); });
    case kX:
    case kY:
    case kZ:
      c.expected = "expected a finite number";
      return array(
          c, [&](std::size_t i) { grow(objects, i).coords[id - kX] = real(c, false, false); });
    case kFrom:
    case kTo:
      c.expected = "expected an integer object id";
      return array(c, [&](std::size_t) {
        (id == kFrom ? edge_from_ : edge_to_).push_back(integer(c, int64_min, int64_max));
      });
    case kMessages:
      c.expected = "expected an integer >= 0";
      return array(c, [&](std::size_t i) { grow(edges, i).messages = count(c); });
    case kBytes:
      c.expected = "expected an integer >= 0";
      return array(c, [&](std::size_t i) { grow(edges, i).bytes = count(c); });
    case kPins:
      c.expected = "expected an array of at least 2 object ids";
      return array(c, [&](std::size_t h) { hyperedge_pins(h); });
    case kHyperedgeBytes:
      c.expected = "expected an integer >= 0";
      return array(c, [&](std::size_t h) { grow(instance_.hyperedges, h).bytes = count(c); });
    case kColumnCount:
      break;
  }
}

double Parser::real(const Column& column, bool positive, bool non_negative) {
  const char c = peek();
  if (c != '-' && !is_digit(c)) {
    fail(element(column) + ": found " + describe_value() + "; " + std::string(column.expected));
  }
  const Number n = number();
  const double value = to_double(n.text);
  std::string_view problem;
  if (!std::isfinite(value)) {
    problem = " is not finite (too large for a double); ";
  } else if (positive && value <= 0.0) {
    problem = " is not positive; ";
  } else if (non_negative && value < 0.0) {
    problem = " is negative; ";
  }
  if (!problem.empty()) {
    fail(element(column) + ": " + std::string(n.text) + std::string(problem) +
         std::string(column.expected));
  }
  return value;
}

std::int64_t Parser::integer(const Column& column, std::int64_t min, std::int64_t max) {
  const char c = peek();
  if (c != '-' && !is_digit(c)) {
    fail(element(column) + ": found " + describe_value() + "; " + std::string(column.expected));
  }
  const Number n = number();
  std::int64_t value = 0;
  std::string_view problem;
  if (!n.integral) {
    problem = " is not an integer; ";
  } else if (std::from_chars(n.text.data(), n.text.data() + n.text.size(), value).ec !=
                 std::errc() ||
             value > max) {
    problem = " is out of range; ";
  } else if (value < min) {
    problem = min == 0 ? " is negative; " : " is out of range; ";
  }
  if (!problem.empty()) {
    fail(element(column) + ": " + std::string(n.text) + std::string(problem) +
         std::string(column.expected));
  }
  return value;
}

std::uint64_t Parser::count(const Column& column) {
  const char c = peek();
  if (c != '-' && !is_digit(c)) {
    fail(element(column) + ": found " + describe_value() + "; " + std::string(column.expected));
  }
  const Number n = number();
  std::uint64_t value = 0;
  std::string_view problem;
  if (!n.integral) {
    problem = " is not an integer; ";
  } else if (n.text.front() == '-') {
    if (n.text != "-0") problem = " is negative; ";
  } else if (std::from_chars(n.text.data(), n.text.data() + n.text.size(), value).ec !=
             std::errc()) {
    problem = " is out of range; ";
  }
  if (!problem.empty()) {
    fail(element(column) + ": " + std::string(n.text) + std::string(problem) +
         std::string(column.expected));
  }
  return value;
}

bool Parser::flag(const Column& column) {
  if (literal("true")) return true;
  if (literal("false")) return false;
  fail(element(column) + ": found " + describe_value() + "; " + std::string(column.expected));
}

// Checks what needs the whole document, then maps edge ends from ids to positions.
Instance Parser::finish() {
  if (!format_seen_) fail("missing field \"format\"");
  if (!version_seen_) fail("missing field \"version\"");
  if (!dims_) fail("missing field \"dims\"");
  instance_.dims = *dims_;
  if (group_present_[kHyperedges] && version_ < 2) {
    fail("field \"hyperedges\" needs version 2 (this file is version " + std::to_string(version_) +
         ")");
  }
  for (std::size_t g = 0; g < kGroupCount; ++g) {
    if (g == kHyperedges && !group_present_[g]) continue;  // optional
    if (!group_present_[g]) fail("missing field \"" + std::string(group_names[g]) + "\"");
    const Column& first = columns_[group_begin[g]];
    for (std::size_t c = group_begin[g]; c < group_begin[g + 1]; ++c) {
      const Column& column = columns_[c];
      const bool beyond_dims = c >= kX && c <= kZ && static_cast<int>(c - kX) >= *dims_;
      if (beyond_dims && column.present) {
        fail("field \"" + column.name + "\" is present but dims is " + std::to_string(*dims_) +
             "; coordinates beyond dims are not allowed");
      }
      if (beyond_dims) continue;
      if (!column.present) fail("missing field \"" + column.name + "\"");
      if (column.count != first.count) {
        fail(column.name + " has " + std::to_string(column.count) + " elements but " + first.name +
             " has " + std::to_string(first.count) + "; all columns of \"" +
             std::string(group_names[g]) + "\" must have the same length");
      }
    }
  }
  const std::size_t pe_count = instance_.pes.size();
  if (pe_count == 0) fail("pes: no PEs; an instance needs at least one");

  auto& objects = instance_.objects;
  if (objects.size() >= IdIndex::absent) fail("more than 2^32-2 objects are not supported");
  IdIndex index(objects);
  for (std::size_t i = 0; i < objects.size(); ++i) {
    if (!index.insert(objects[i].id, static_cast<std::uint32_t>(i))) {
      fail("objects.id[" + std::to_string(i) + "]: duplicate object id " +
           std::to_string(objects[i].id));
    }
    if (objects[i].pe >= static_cast<PeId>(pe_count)) {
      fail("objects.pe[" + std::to_string(i) + "]: PE " + std::to_string(objects[i].pe) +
           " does not exist (" + std::to_string(pe_count) + " PEs)");
    }
  }
  auto& edges = instance_.edges;
  for (std::size_t e = 0; e < edges.size(); ++e) {
    for (const ColumnId c : {kFrom, kTo}) {
      const std::int64_t id = (c == kFrom ? edge_from_ : edge_to_)[e];
      const std::uint32_t position = index.find(id);
      if (position == IdIndex::absent) {
        fail(columns_[c].name + "[" + std::to_string(e) + "]: unknown object id " +
             std::to_string(id));
      }
      (c == kFrom ? edges[e].from : edges[e].to) = position;
    }
  }
  map_hyperedge_pins(index);
  return std::move(instance_);
}

}  // namespace io_detail

Instance parse_instance(std::string_view text, const std::string& source) {
  Instance instance = io_detail::Parser(text, source).parse();
  try {
    validate(instance);
  } catch (const InstanceError& e) {
    throw InstanceError(source + ": " + e.what());
  }
  if (const std::string problem = io_detail::totals_problem(instance); !problem.empty()) {
    throw InstanceError(source + ": " + problem);
  }
  return instance;
}

Instance read_instance(const std::string& path) {
  // Binary data (such as /dev/zero) is refused from its first bytes, before the rest is read.
  const auto sniff = [](std::string_view first) -> std::string {
    if (first.starts_with(io_detail::utf8_bom)) first.remove_prefix(io_detail::utf8_bom.size());
    const std::size_t at = first.find_first_not_of(" \t\r\n");
    if (at == std::string_view::npos) return "";
    const auto c = static_cast<unsigned char>(first[at]);
    if (c >= 0x20 && c < 0x7f) return "";  // text: the parser says what is wrong, if anything
    std::array<char, 8> shown{};
    std::snprintf(shown.data(), shown.size(), "0x%02x", c);
    return "not JSON: the instance should start with '{', but byte " + std::to_string(at) + " is " +
           shown.data() + " (binary data?)";
  };
  try {
    return parse_instance(io_detail::read_input_or_throw<InstanceError>(path, sniff), path);
  } catch (const std::bad_alloc&) {
    throw InstanceError(path + ": out of memory while reading the instance");
  }
}

}  // namespace vela::lb
