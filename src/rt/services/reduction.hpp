// Reductions' state and handlers (services/reduction.cpp): every contribution goes to the root
// (PE 0), which combines them in element-index order (deterministic) or as they come (arrival),
// then hands the result to the callback.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "core/message.hpp"
#include "vela/pup/pup.hpp"
#include "vela/rt/reduction.hpp"

namespace vela::rt::detail {

struct PeState;
struct RuntimeState;
struct CollectionInfo;

struct Contribution {
  std::uint32_t number = 0;  // the element's contribution count: which reduction
  ReduceOp op = ReduceOp::sum;
  std::uint32_t reducer = 0;  // with ReduceOp::custom
  Order order = Order::deterministic;
  Callback callback;
  std::vector<double> values;
  void pup(pup::Archive& ar) { ar | number | op | reducer | order | callback | values; }
};

// One reduction under way, kept by the root per collection and contribution number.
struct ReductionRound {
  std::uint64_t count = 0;
  ReduceOp op = ReduceOp::sum;
  std::uint32_t reducer = 0;
  Order order = Order::deterministic;
  Callback callback;
  // Deterministic order: by element index (a dynamic collection's index may contribute twice
  // to one reduction: an element that left and the one inserted there after it).
  std::multimap<std::uint64_t, std::vector<double>> by_element;
  std::vector<double> combined;  // arrival order
};

// The run's callbacks and custom reducers, registered by main (Context) and called on PE 0.
struct Reductions {
  std::vector<std::function<void(const std::vector<double>&)>> callbacks;
  std::vector<std::function<void(std::vector<double>&, const std::vector<double>&)>> reducers;
};

SystemHandler on_contribution;  // an element's contribution, to the root
// The root: delivers every reduction of the collection that has all the contributions it now
// waits for (an element of a dynamic collection left: services/membership.hpp).
void finish_complete_reductions(RuntimeState& state, CollectionInfo& info);

}  // namespace vela::rt::detail
