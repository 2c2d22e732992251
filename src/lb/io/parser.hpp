// The instance reader's parser (docs/instance-format.md), shared by read.cpp (the JSON
// scanner and the version-1 schema) and read_hyperedges.cpp (the hyperedges of version 2).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "vela/lb/model/instance.hpp"

namespace vela::lb::io_detail {

inline bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// The columns, by group, in the order the writer emits them; "hyperedges" is version 2 only.
// clang-format off
enum ColumnId : std::size_t {
  kSpeed, kBackground, kCluster,
  kId, kLoad, kSize, kPe, kMigratable, kX, kY, kZ,
  kFrom, kTo, kMessages, kBytes,
  kPins, kHyperedgeBytes,
  kColumnCount
};
// clang-format on
enum Group : std::size_t { kPes, kObjects, kEdges, kHyperedges, kGroupCount };
inline constexpr std::array<std::string_view, kGroupCount> group_names = {"pes", "objects", "edges",
                                                                          "hyperedges"};
inline constexpr std::array<std::size_t, kGroupCount + 1> group_begin = {kSpeed, kId, kFrom, kPins,
                                                                         kColumnCount};

struct Column {
  std::string_view field;
  std::string_view expected;  // what an element must be, for messages
  std::string name;           // "objects.load"
  bool present = false;
  std::size_t count = 0;  // elements read
};

// A JSON number as written; `integral` when it has neither fraction nor exponent.
struct Number {
  std::string_view text;
  bool integral = true;
};

// Maps object ids to positions; ids in a compact range (the usual case) use a table.
class IdIndex {
 public:
  static constexpr std::uint32_t absent = std::numeric_limits<std::uint32_t>::max();

  explicit IdIndex(const std::vector<Object>& objects) {
    if (objects.empty()) return;
    const auto [lo, hi] =
        std::minmax_element(objects.begin(), objects.end(),
                            [](const Object& a, const Object& b) { return a.id < b.id; });
    min_ = lo->id;
    const std::uint64_t span = offset(hi->id);
    dense_ = span < 4 * static_cast<std::uint64_t>(objects.size());
    if (dense_) {
      table_.assign(span + 1, absent);
    } else {
      map_.reserve(objects.size());
    }
  }

  // Records `id` at `position`; false if it was recorded before.
  bool insert(std::int64_t id, std::uint32_t position) {
    if (!dense_) return map_.emplace(id, position).second;
    std::uint32_t& slot = table_[offset(id)];
    if (slot != absent) return false;
    slot = position;
    return true;
  }

  std::uint32_t find(std::int64_t id) const {
    if (!dense_) {
      const auto it = map_.find(id);
      return it == map_.end() ? absent : it->second;
    }
    return id >= min_ && offset(id) < table_.size() ? table_[offset(id)] : absent;
  }

 private:
  std::uint64_t offset(std::int64_t id) const {
    return static_cast<std::uint64_t>(id) - static_cast<std::uint64_t>(min_);
  }

  bool dense_ = true;
  std::int64_t min_ = 0;
  std::vector<std::uint32_t> table_;
  std::unordered_map<std::int64_t, std::uint32_t> map_;
};

class Parser {
 public:
  Parser(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  Instance parse();

 private:
  // --- lexical level
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\r' || text_[pos_] == '\t')) {
      ++pos_;
    }
  }
  char peek() {  // next significant character, '\0' at the end
    skip_space();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  [[noreturn]] void syntax_error(const std::string& expected) const;
  std::string string();
  Number number();
  bool literal(std::string_view word);
  std::string describe_value();

  // --- schema level
  [[noreturn]] void fail(const std::string& message) const;
  std::string element(const Column& column) const {
    return column.name + "[" + std::to_string(column.count) + "]";
  }
  template <class Member>
  void object(std::string_view what, Member member);
  template <class Element>
  void array(Column& column, Element element);
  void top_level_field(const std::string& key);
  void group(Group g);
  void column(ColumnId id);
  // Hyperedges (read_hyperedges.cpp): one element of hyperedges.pins, then the mapping of
  // the pins from ids to positions once every object is known.
  void hyperedge_pins(std::size_t h);
  void map_hyperedge_pins(const IdIndex& index);
  double real(const Column& column, bool positive, bool non_negative);
  std::int64_t integer(const Column& column, std::int64_t min, std::int64_t max);
  std::uint64_t count(const Column& column);
  bool flag(const Column& column);
  Instance finish();

  template <class T>
  static T& grow(std::vector<T>& items, std::size_t i) {
    if (i == items.size()) items.emplace_back();
    return items[i];
  }

  std::string_view text_;
  const std::string& source_;
  std::size_t pos_ = 0;
  std::array<Column, kColumnCount> columns_;
  std::array<bool, kGroupCount> group_present_{};
  bool format_seen_ = false;
  bool version_seen_ = false;
  int version_ = 0;  // once version_seen_: a version this build reads
  std::optional<int> dims_;
  Instance instance_;
  std::vector<std::int64_t> edge_from_;  // object ids, mapped to positions once all are known
  std::vector<std::int64_t> edge_to_;
  std::vector<std::int64_t> pin_ids_;  // object ids of every hyperedge's pins, one after another
  std::vector<std::size_t> pin_end_;   // where each hyperedge's pins end in pin_ids_
  Column pin_column_;                  // "hyperedges.pins[h]", for messages about one pin
};

template <class Member>
void Parser::object(std::string_view what, Member member) {  // at '{'
  ++pos_;
  if (peek() == '}') {
    ++pos_;
    return;
  }
  for (;;) {
    if (peek() != '"') syntax_error("a field name in " + std::string(what));
    const std::string key = string();
    if (peek() != ':') syntax_error("':' after the field name \"" + key + "\"");
    ++pos_;
    member(key);
    const char c = peek();
    ++pos_;
    if (c == ',') continue;
    if (c == '}') return;
    --pos_;
    syntax_error("',' or '}' in " + std::string(what));
  }
}

template <class Element>
void Parser::array(Column& column, Element element) {
  if (peek() != '[') fail(column.name + ": found " + describe_value() + "; expected an array");
  ++pos_;
  if (peek() == ']') {
    ++pos_;
    return;
  }
  for (;;) {
    skip_space();
    element(column.count);
    ++column.count;
    const char c = peek();
    ++pos_;
    if (c == ',') continue;
    if (c == ']') return;
    --pos_;
    syntax_error("',' or ']' after " + column.name + "[" + std::to_string(column.count - 1) + "]");
  }
}

}  // namespace vela::lb::io_detail
