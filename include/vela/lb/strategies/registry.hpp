// Strategies by name.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "vela/lb/model/strategy.hpp"

namespace vela::lb {

// Every registered strategy, in a fixed order.
const std::vector<StrategyInfo>& strategies();

// Throws ParamError for an unknown name (listing the known ones) or bad parameters.
const StrategyInfo& find_strategy(const std::string& name);
std::unique_ptr<Strategy> make_strategy(const std::string& name, const RawParams& params = {});

}  // namespace vela::lb
