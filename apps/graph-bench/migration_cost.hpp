// The cost of migrating units, measured at start-up on the runtime itself: a short run of
// parcels, each carrying a unit's bytes, that meet one balancing point where every parcel
// moves to another PE (the rotate strategy). The runtime times that migration phase
// (RunStats::lb_migrate_seconds); two runs, without data and with a unit's bytes, give the
// cost model's seconds per object (α) and per byte (β).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "vela/rt/runtime.hpp"

namespace graph_bench {

class Parcel : public vela::rt::ElementBase {
 public:
  Parcel() = default;
  Parcel(std::int64_t bytes, vela::rt::Callback done)
      : data_(static_cast<std::size_t>(bytes), 1), done_(done) {}
  void pup(vela::pup::Archive& ar) override { ar | data_ | done_; }
  void start() { at_sync(); }
  void resume_from_sync() override { contribute({1.0}, vela::rt::ReduceOp::sum, done_); }

 private:
  std::vector<std::uint8_t> data_;
  vela::rt::Callback done_;
};

struct MigrationCost {
  double per_object = 0.0;  // seconds
  double per_byte = 0.0;
};

// Seconds per migrated parcel of `bytes` bytes on the PEs of `options` (their transport and
// pinning), `parcels` of them moving at once.
inline double seconds_per_migration(vela::rt::Options options, std::int64_t bytes,
                                    std::int32_t parcels) {
  options.lb = "rotate";
  options.lb_policy.clear();
  options.lb_policy_params.clear();
  options.lb_params.clear();
  options.lb_dump.clear();
  options.trace.clear();
  options.checkpoint.clear();
  options.restart.clear();
  options.lb_period = 1;
  options.lb_interval = 0.0;
  vela::rt::Runtime runtime(options);
  runtime.run([&](vela::rt::Context& ctx) {
    const vela::rt::Callback done = ctx.callback([](const std::vector<double>&) {});
    auto all = ctx.create<Parcel>("parcels", vela::rt::Shape::line(parcels),
                                  vela::rt::InitialMap::block, bytes, done);
    all.template broadcast<&Parcel::start>();
  });
  const auto& s = runtime.stats();
  return s.migrations > 0 ? s.lb_migrate_seconds / static_cast<double>(s.migrations) : 0.0;
}

inline MigrationCost measure_migration(const vela::rt::Options& options, std::int64_t bytes) {
  constexpr std::int32_t parcels = 256;
  MigrationCost c;
  c.per_object = seconds_per_migration(options, 0, parcels);
  if (bytes > 0) {
    const double full = seconds_per_migration(options, bytes, parcels);
    c.per_byte = std::max(0.0, full - c.per_object) / static_cast<double>(bytes);
  }
  return c;
}

}  // namespace graph_bench
