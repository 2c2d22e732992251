// The distributed strategies' agents by name, and the curve positions hilbert-distributed's
// agents share.
#include "vela/lb/strategies/distributed.hpp"

#include <stdexcept>

#include "agents.hpp"
#include "vela/lb/strategies/hilbert.hpp"

namespace vela::lb {

CurvePositions curve_positions(const Instance& coordinates, int bits) {
  CurvePositions curve;
  curve.order = hilbert_order(coordinates, bits);
  curve.rank.resize(curve.order.size());
  for (std::size_t k = 0; k < curve.order.size(); ++k) {
    curve.rank[curve.order[k]] = static_cast<ObjectPosition>(k);
  }
  return curve;
}

bool has_distributed_form(const std::string& name) {
  return name == "hilbert-distributed" || name == "diffusion";
}

std::unique_ptr<DistributedAgent> make_agent(const std::string& name, const ParamValues& params,
                                             LocalView view,
                                             std::shared_ptr<const CurvePositions> curve,
                                             Locator locate) {
  if (name == "hilbert-distributed") {
    return builtin::make_hilbert_agent(std::move(view), std::move(curve));
  }
  if (name == "diffusion") {
    return builtin::make_diffusion_agent(std::move(view), params.get("tolerance"),
                                         static_cast<std::size_t>(params.get("max_moves_per_pe")),
                                         std::move(locate));
  }
  throw ParamError("strategy " + name + " has no distributed form");
}

}  // namespace vela::lb
