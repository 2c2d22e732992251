// A strategy decides where objects go: a pure function Instance -> Assignment.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "vela/lb/model/instance.hpp"
#include "vela/lb/model/params.hpp"

namespace vela::lb {

// Named figures a strategy reports about one run (e.g. "curve_ms", "iterations").
using StrategyStats = std::vector<std::pair<std::string, double>>;

struct Solution {
  Assignment assignment;
  StrategyStats stats;
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  // Must return an assignment of every object to a valid PE; non-migratable objects keep
  // their current PE.
  virtual Solution solve(const Instance& instance) = 0;
};

struct StrategyInfo {
  std::string name;
  std::string summary;
  std::vector<ParamSpec> params;
  std::function<std::unique_ptr<Strategy>(const ParamValues&)> make;
  // An exact reference for small instances only: left out when no strategy is named.
  bool reference_only = false;
};

}  // namespace vela::lb
