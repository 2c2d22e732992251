// Running a rank body from tests: a runtime of the layout's PEs (unpinned) and its ranks.
#pragma once

#include <functional>
#include <string>
#include <utility>

#include "vela/rt/runtime.hpp"
#include "vela/vp/vp.hpp"

namespace vela::testing {

struct Layout {
  Layout(int r, int p, std::string balancer = "", std::string placement = "block")
      : ranks(r), pes(p), lb(std::move(balancer)), map(std::move(placement)) {}
  int ranks;
  int pes;
  std::string lb;
  std::string map;
};

// Runs `body` on the layout's ranks; `stats` (when given) receives the runtime's statistics.
inline int run(const Layout& s, const std::function<void()>& body,
               vela::rt::RunStats* stats = nullptr) {
  vela::rt::Options options;
  options.pes = s.pes;
  options.pin = false;
  options.lb = s.lb;
  vela::rt::Runtime runtime(options);
  vela::vp::Options v;
  v.ranks = s.ranks;
  v.map = s.map;
  const int code = vela::vp::run(runtime, v, body);
  if (stats != nullptr) *stats = runtime.stats();
  return code;
}

}  // namespace vela::testing
