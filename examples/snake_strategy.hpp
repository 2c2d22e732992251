// "snake": heaviest object first, dealt to the PEs in the order 0, 1, ..., P-1, P-1, ..., 0,
// 0, 1, ... (a boustrophedon), so that every PE gets the same number of objects, give or take
// one, and heavy and light ones alternate. Objects that cannot migrate stay where they are.
// A strategy of the program's own, registered at run time: see register_snake().
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <numeric>
#include <vector>

#include "vela/lb/strategies/registry.hpp"

namespace example {

// The PE the object of rank `rank` (0 = heaviest) goes to, with `pes` PEs.
inline vela::lb::PeId snake_pe(std::size_t rank, std::size_t pes) {
  const std::size_t round = rank / pes;
  const std::size_t position = rank % pes;
  return static_cast<vela::lb::PeId>(round % 2 == 0 ? position : pes - 1 - position);
}

class SnakeStrategy final : public vela::lb::Strategy {
 public:
  vela::lb::Solution solve(const vela::lb::Instance& instance) override {
    const auto& objects = instance.objects;
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < objects.size(); ++i) {
      if (objects[i].migratable) order.push_back(i);
    }
    // Heaviest first; equal loads by id, so that the answer does not depend on the input order.
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      if (objects[a].load != objects[b].load) return objects[a].load > objects[b].load;
      return objects[a].id < objects[b].id;
    });
    vela::lb::Solution solution;
    solution.assignment = vela::lb::current_assignment(instance);
    for (std::size_t rank = 0; rank < order.size(); ++rank) {
      solution.assignment.pe[order[rank]] = snake_pe(rank, instance.pes.size());
    }
    const std::size_t pes = instance.pes.size();
    solution.stats = {{"rounds", static_cast<double>((order.size() + pes - 1) / pes)}};
    return solution;
  }
};

// Adds "snake" to Vela's strategies: from then on it is found by name like a built-in one
// (make_strategy, the runtime's --lb, policies).
inline void register_snake() {
  vela::lb::register_strategy(
      {"snake",
       "heaviest first, dealt to PEs 0..P-1, then P-1..0, and so on",
       {},
       [](const vela::lb::ParamValues&) { return std::make_unique<SnakeStrategy>(); }});
}

}  // namespace example
