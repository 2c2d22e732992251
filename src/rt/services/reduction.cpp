// Reductions: every contribution goes to the root (PE 0), which combines them in element-index
// order (deterministic) or as they come (arrival), then hands the result to the callback.
#include <algorithm>
#include <stdexcept>

#include "core/runtime_state.hpp"

namespace vela::rt::detail {

namespace {

void combine(RuntimeState& state, const ReductionRound& round, std::vector<double>& into,
             const std::vector<double>& values, std::uint64_t element) {
  if (round.op == ReduceOp::custom) {
    state.reduction.reducers.at(round.reducer)(into, values);
    return;
  }
  if (into.size() != values.size()) {
    throw std::invalid_argument("contribute: element " + std::to_string(element) + " gave " +
                                std::to_string(values.size()) + " values, others " +
                                std::to_string(into.size()));
  }
  for (std::size_t i = 0; i < into.size(); ++i) {
    switch (round.op) {
      case ReduceOp::sum:
        into[i] += values[i];
        break;
      case ReduceOp::min:
        into[i] = std::min(into[i], values[i]);
        break;
      case ReduceOp::max:
        into[i] = std::max(into[i], values[i]);
        break;
      case ReduceOp::custom:  // handled above
        break;
    }
  }
}

void deliver_result(RuntimeState& state, const Callback& callback, std::vector<double> result) {
  switch (callback.kind) {
    case Callback::Kind::none:
      return;
    case Callback::Kind::function:
      state.reduction.callbacks.at(callback.function)(result);
      return;
    case Callback::Kind::broadcast: {
      const std::vector<double> copy = std::move(result);
      std::tuple<std::vector<double>> args(copy);
      const std::vector<std::byte> payload = pup::pack(args);
      for (const std::uint64_t i : member_indices(state.collection(callback.collection))) {
        send_packed_entry(callback.collection, i, callback.handler, 0, payload,
                          state.collection(callback.collection).dynamic);
      }
      return;
    }
  }
}

// Reduction `number` has every contribution: combined (by element index when deterministic) and
// handed to its callback.
void finish_round(RuntimeState& state, CollectionInfo& info, std::uint32_t number) {
  ReductionRound& round = info.reductions.at(number);
  std::vector<double> result = std::move(round.combined);
  if (!round.by_element.empty()) {
    auto it = round.by_element.begin();
    result = std::move(it->second);
    for (++it; it != round.by_element.end(); ++it) {
      combine(state, round, result, it->second, it->first);
    }
  }
  const Callback callback = round.callback;
  info.reductions.erase(number);
  deliver_result(state, callback, std::move(result));
}

}  // namespace

void on_contribution(PeState& pe, Message& message) {
  RuntimeState& state = *pe.runtime;
  Contribution c;
  pup::unpack(message.payload(), c);
  CollectionInfo& info = state.collection(message.collection);
  ReductionRound& round = info.reductions[c.number];
  if (round.count == 0) {
    round.op = c.op;
    round.reducer = c.reducer;
    round.order = c.order;
    round.callback = c.callback;
  } else if (round.op != c.op || round.reducer != c.reducer || round.order != c.order) {
    throw std::invalid_argument("contribute: element " + std::to_string(message.element) +
                                " uses another reduction operation or order than the others");
  }
  if (c.order == Order::deterministic) {
    round.by_element.emplace(message.element, std::move(c.values));
  } else if (round.count == 0) {
    round.combined = std::move(c.values);
  } else {
    combine(state, round, round.combined, c.values, message.element);
  }
  if (info.dynamic) {
    info.membership.next_reduction = std::max(info.membership.next_reduction, c.number + 1);
  }
  ++round.count;
  if (round.count < expected_contributions(info, c.number)) return;
  finish_round(state, info, c.number);
}

void finish_complete_reductions(RuntimeState& state, CollectionInfo& info) {
  std::vector<std::uint32_t> complete;
  for (const auto& [number, round] : info.reductions) {
    if (round.count >= expected_contributions(info, number)) complete.push_back(number);
  }
  for (const std::uint32_t number : complete) finish_round(state, info, number);
}

}  // namespace vela::rt::detail
