// Leaves every object where it is: the baseline of "no balancing".
#include "strategies.hpp"

namespace vela::lb::builtin {

namespace {

class DummyStrategy final : public Strategy {
 public:
  Solution solve(const Instance& instance) override { return {current_assignment(instance), {}}; }
};

}  // namespace

StrategyInfo dummy() {
  return {"dummy", "moves nothing (baseline)", {}, [](const ParamValues&) {
            return std::make_unique<DummyStrategy>();
          }};
}

}  // namespace vela::lb::builtin
