// Reading the hyperedges of version 2 (docs/instance-format.md):
//   "hyperedges": {"pins": [[id, id, ...], ...], "bytes": [...]}
// Pins name objects by id, as edges do; they are mapped to positions once every object is known.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "parser.hpp"

namespace vela::lb::io_detail {

void Parser::hyperedge_pins(std::size_t h) {
  const Column& column = columns_[kPins];
  if (peek() != '[') {
    fail(element(column) + ": found " + describe_value() + "; " + std::string(column.expected));
  }
  ++pos_;
  grow(instance_.hyperedges, h);
  // One name per hyperedge, reusing its buffer, for the messages about its pins.
  pin_column_.name.assign(column.name).append("[").append(std::to_string(h)).append("]");
  pin_column_.expected = "expected an integer object id";
  pin_column_.count = 0;
  const std::size_t begin = pin_ids_.size();
  if (peek() == ']') {
    ++pos_;
  } else {
    for (;;) {
      pin_ids_.push_back(integer(pin_column_, std::numeric_limits<std::int64_t>::min(),
                                 std::numeric_limits<std::int64_t>::max()));
      ++pin_column_.count;
      const char c = peek();
      ++pos_;
      if (c == ',') continue;
      if (c == ']') break;
      --pos_;
      syntax_error("',' or ']' after " + pin_column_.name + "[" +
                   std::to_string(pin_column_.count - 1) + "]");
    }
  }
  const std::size_t pins = pin_ids_.size() - begin;
  if (pins < 2) {
    // A hyperedge with one pin can never be cut: most likely a truncated list.
    fail(element(column) + ": " + std::to_string(pins) + (pins == 1 ? " pin" : " pins") +
         "; a hyperedge needs at least 2");
  }
  pin_end_.push_back(pin_ids_.size());
}

void Parser::map_hyperedge_pins(const IdIndex& index) {
  auto& hyperedges = instance_.hyperedges;
  if (hyperedges.empty()) return;
  // seen[i] == h + 1 once hyperedge h has object i as a pin: repeats are found in O(pins).
  std::vector<std::size_t> seen(instance_.objects.size(), 0);
  std::size_t begin = 0;
  for (std::size_t h = 0; h < hyperedges.size(); ++h) {
    const std::size_t end = pin_end_[h];
    std::vector<std::uint32_t>& pins = hyperedges[h].pins;
    pins.resize(end - begin);
    for (std::size_t k = 0; k < pins.size(); ++k) {
      const std::int64_t id = pin_ids_[begin + k];
      const std::uint32_t position = index.find(id);
      const auto pin = [&] {
        return columns_[kPins].name + "[" + std::to_string(h) + "][" + std::to_string(k) + "]";
      };
      if (position == IdIndex::absent) fail(pin() + ": unknown object id " + std::to_string(id));
      if (seen[position] == h + 1) {
        fail(pin() + ": object id " + std::to_string(id) + " appears twice in the hyperedge");
      }
      seen[position] = h + 1;
      pins[k] = position;
    }
    begin = end;
  }
  pin_ids_ = {};
  pin_end_ = {};
}

}  // namespace vela::lb::io_detail
