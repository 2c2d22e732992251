// Moves every migratable object to the next PE: exercises migration, balances nothing.
#include "strategies.hpp"

namespace vela::lb::builtin {

namespace {

class RotateStrategy final : public Strategy {
 public:
  Solution solve(const Instance& instance) override {
    Assignment a = current_assignment(instance);
    const auto pes = static_cast<PeId>(instance.pes.size());
    for (std::size_t i = 0; i < a.pe.size(); ++i) {
      if (instance.objects[i].migratable) a.pe[i] = (a.pe[i] + 1) % pes;
    }
    return {std::move(a), {}};
  }
};

}  // namespace

StrategyInfo rotate() {
  return {"rotate",
          "moves every migratable object to the next PE (migration test)",
          {},
          [](const ParamValues&) { return std::make_unique<RotateStrategy>(); }};
}

}  // namespace vela::lb::builtin
