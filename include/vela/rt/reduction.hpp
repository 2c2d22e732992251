// Reductions over a collection's elements, and where their results go.
#pragma once

#include <cstdint>

#include "vela/pup/pup.hpp"
#include "vela/rt/entry.hpp"

namespace vela::rt {

enum class ReduceOp : std::uint8_t { sum, min, max, custom };

// A combining function registered with Context::reducer: folds `next` into `into`
// (element-wise or otherwise); with Order::deterministic it sees contributions in element-index
// order, so it need not be associative or commutative to give the same answer on any PE count.
struct Reducer {
  std::uint32_t id = 0;
  void pup(pup::Archive& ar) { ar | id; }
};

// deterministic: combine contributions in element-index order, so the result is bitwise
// the same for any number of PEs and any placement; arrival: combine as they come (faster).
enum class Order : std::uint8_t { deterministic, arrival };

// Where a reduction's result goes: a function registered with Context::callback (run on PE 0),
// or an entry method taking std::vector<double> on every element of a collection.
struct Callback {
  enum class Kind : std::uint8_t { none, function, broadcast };
  Kind kind = Kind::none;
  std::uint32_t function = 0;
  std::uint32_t collection = 0;
  HandlerId handler = 0;

  void pup(pup::Archive& ar) { ar | kind | function | collection | handler; }
};

}  // namespace vela::rt
