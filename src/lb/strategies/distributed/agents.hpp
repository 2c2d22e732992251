// The agents of the distributed strategies (vela/lb/strategies/distributed.hpp), made by
// make_agent.
#pragma once

#include <cstddef>
#include <memory>

#include "vela/lb/strategies/distributed.hpp"

namespace vela::lb::builtin {

std::unique_ptr<DistributedAgent> make_hilbert_agent(LocalView view,
                                                     std::shared_ptr<const CurvePositions> curve);
std::unique_ptr<DistributedAgent> make_diffusion_agent(LocalView view, double tolerance,
                                                       std::size_t max_moves, Locator locate);

}  // namespace vela::lb::builtin
