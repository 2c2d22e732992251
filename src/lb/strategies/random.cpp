// Sends every migratable object to a uniformly random PE (seeded): a migration stress test.
#include <random>

#include "strategies.hpp"

namespace vela::lb::builtin {

namespace {

class RandomStrategy final : public Strategy {
 public:
  explicit RandomStrategy(std::uint64_t seed) : engine_(seed) {}

  // Each call draws fresh PEs, so repeated calls keep moving objects.
  Solution solve(const Instance& instance) override {
    Assignment a = current_assignment(instance);
    std::uniform_int_distribution<PeId> pick(0, static_cast<PeId>(instance.pes.size()) - 1);
    for (std::size_t i = 0; i < a.pe.size(); ++i) {
      if (instance.objects[i].migratable) a.pe[i] = pick(engine_);
    }
    return {std::move(a), {}};
  }

 private:
  std::mt19937_64 engine_;
};

}  // namespace

StrategyInfo random() {
  return {"random",
          "sends every migratable object to a random PE (migration test)",
          {{"seed", "random seed", 1.0, 0.0, 9.0e15, true}},
          [](const ParamValues& p) {
            return std::make_unique<RandomStrategy>(static_cast<std::uint64_t>(p.get("seed")));
          }};
}

}  // namespace vela::lb::builtin
