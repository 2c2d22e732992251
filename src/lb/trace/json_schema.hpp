// Checking a document parsed by nlohmann::json against a schema, with messages that name the
// file and the element: shared by the JSON trace reader and the vt LB data reader.
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "vela/lb/trace/trace.hpp"

namespace vela::lb::trace_detail {

inline constexpr std::int64_t int64_min = std::numeric_limits<std::int64_t>::min();
inline constexpr std::int64_t int64_max = std::numeric_limits<std::int64_t>::max();

// "line L, column C" of the byte at offset `at` (from 0) of `text`.
inline std::string line_and_column(std::string_view text, std::size_t at) {
  at = std::min(at, text.size());
  const std::string_view before = text.substr(0, at);
  const auto line = std::count(before.begin(), before.end(), '\n') + 1;
  const std::size_t line_start = before.rfind('\n');
  const std::size_t column = line_start == std::string_view::npos ? at + 1 : at - line_start;
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// Where the number token `token` first stands on its own outside a string of `text`, or npos.
inline std::size_t find_number_token(std::string_view text, std::string_view token) {
  const auto in_number = [](char c) {
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
  };
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
      continue;
    }
    if (text.substr(i).starts_with(token) && (i == 0 || !in_number(text[i - 1])) &&
        (i + token.size() == text.size() || !in_number(text[i + token.size()]))) {
      return i;
    }
  }
  return std::string_view::npos;
}

// What went wrong, in words, when nlohmann::json threw `e` while parsing `text`: the message
// after "PATH: ", with the line and column where they are known.
inline std::string json_error_message(const nlohmann::json::exception& e, std::string_view text) {
  std::string what = e.what();
  // "[json.exception.parse_error.101] parse error at line 3, ..." -> "parse error at line 3, ..."
  if (const auto close = what.find("] "); close != std::string::npos) what.erase(0, close + 2);
  if (dynamic_cast<const nlohmann::json::parse_error*>(&e) != nullptr) {
    constexpr std::string_view prefix = "parse error ";
    if (what.starts_with(prefix)) what.erase(0, prefix.size());
    return "not JSON: " + what;
  }
  // 406: "number overflow parsing '1e999'", without a position: found again in the text.
  constexpr std::string_view overflow = "number overflow parsing '";
  if (e.id == 406 && what.starts_with(overflow) && what.ends_with("'")) {
    const std::string token = what.substr(overflow.size(), what.size() - overflow.size() - 1);
    const std::size_t at = find_number_token(text, token);
    return (at == std::string_view::npos ? std::string() : line_and_column(text, at) + ": ") +
           "the number " + token +
           " is too large for a double (JSON numbers are read as doubles, which reach about "
           "1.8e308)";
  }
  return "cannot read the JSON: " + what;
}

// Walks the parsed document; every error names the file and the element.
class Schema {
 public:
  using json = nlohmann::json;

  explicit Schema(const std::string& path) : path_(path) {}

  [[noreturn]] void fail(const std::string& where, const std::string& message) const {
    throw TraceError(path_ + ": " + where + ": " + message);
  }

  static std::string describe(const json& v) {
    if (v.is_string()) {
      const auto& s = v.get_ref<const std::string&>();
      return "the string \"" + s.substr(0, 40) + (s.size() > 40 ? "...\"" : "\"");
    }
    if (v.is_number() || v.is_boolean()) return v.dump();
    if (v.is_object()) return "an object";
    if (v.is_array()) return "an array";
    return "null";
  }

  void only(const json& object, const std::string& where,
            std::initializer_list<std::string_view> known) const {
    for (const auto& item : object.items()) {
      bool ok = false;
      for (const std::string_view k : known) ok = ok || item.key() == k;
      if (!ok) {
        fail(where.empty() ? "\"" + item.key() + "\"" : where + "." + item.key(),
             "unknown field (a typo? a file of a newer version?)");
      }
    }
  }

  const json& field(const json& object, const std::string& where, const char* key) const {
    const auto it = object.find(key);
    if (it == object.end()) {
      throw TraceError(path_ + ": missing field \"" + (where.empty() ? "" : where + ".") + key +
                       "\"");
    }
    return *it;
  }

  const json& array(const json& v, const std::string& where, const char* of) const {
    if (!v.is_array())
      fail(where, "expected an array of " + std::string(of) + ", got " + describe(v));
    return v;
  }

  const json& object(const json& v, const std::string& where) const {
    if (!v.is_object()) fail(where, "expected an object, got " + describe(v));
    return v;
  }

  static std::string at(const std::string& where, std::size_t i) {
    return where + "[" + std::to_string(i) + "]";
  }

  std::int64_t signed_integer(const json& v, const std::string& where, std::int64_t min,
                              std::int64_t max, const char* expected) const {
    if (v.is_number_unsigned()) {
      const auto u = v.get<std::uint64_t>();
      if (u <= static_cast<std::uint64_t>(max)) return static_cast<std::int64_t>(u);
    } else if (v.is_number_integer()) {
      const auto i = v.get<std::int64_t>();
      if (i >= min && i <= max) return i;
    }
    fail(where, "expected " + std::string(expected) + ", got " + describe(v));
  }

  std::uint64_t unsigned_integer(const json& v, const std::string& where) const {
    if (v.is_number_unsigned()) return v.get<std::uint64_t>();
    fail(where, "expected an integer >= 0, got " + describe(v));
  }

  double number(const json& v, const std::string& where) const {
    if (!v.is_number()) fail(where, "expected a number, got " + describe(v));
    return v.get<double>();
  }

  bool boolean(const json& v, const std::string& where) const {
    if (!v.is_boolean()) fail(where, "expected true or false, got " + describe(v));
    return v.get<bool>();
  }

  const std::string& string(const json& v, const std::string& where) const {
    if (!v.is_string()) fail(where, "expected a string, got " + describe(v));
    return v.get_ref<const std::string&>();
  }

  // The field, or nullptr when it is absent.
  static const json* optional(const json& object, const char* key) {
    const auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
  }

 private:
  const std::string& path_;
};

}  // namespace vela::lb::trace_detail
