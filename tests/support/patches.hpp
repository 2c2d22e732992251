// A 2-D grid of patches with a hot corner, exchanging halos with their grid neighbours at every
// step and balancing after each, for the runtime tests of the distributed strategies (in one
// process and across processes). Every patch notes its PE after each balancing step; at the end
// the notes are reduced into one placement per step, which the test compares with what the
// offline strategy makes of each step's --lb-dump instance.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "vela/lb/io/io.hpp"
#include "vela/lb/strategies/registry.hpp"
#include "vela/rt/runtime.hpp"

namespace vela::testing {

class Patch : public vela::rt::ElementBase {
 public:
  Patch() = default;
  Patch(std::int32_t steps, vela::rt::Callback done) : steps_(steps), done_(done) {}

  void pup(vela::pup::Archive& ar) override { ar | steps_ | done_ | step_ | got_ | pes_ | synced_; }

  void start() { run_step(); }

  void halo(std::int32_t step) {
    ++got_[step];
    maybe_sync();
  }

  void resume_from_sync() override {
    pes_.push_back(pe());
    ++step_;
    synced_ = false;
    if (step_ == steps_) {
      // Slot step * n + i holds 1 + the PE of patch i after balancing step `step`.
      const auto n = static_cast<std::size_t>(shape().size());
      std::vector<double> notes(n * pes_.size(), 0.0);
      for (std::size_t s = 0; s < pes_.size(); ++s) {
        notes[s * n + linear_index()] = 1.0 + static_cast<double>(pes_[s]);
      }
      contribute(std::move(notes), vela::rt::ReduceOp::sum, done_);
      return;
    }
    run_step();
  }

 private:
  std::vector<vela::rt::Index> neighbours() const {
    std::vector<vela::rt::Index> out;
    const vela::rt::Index at = index();
    for (const auto& [dx, dy] : {std::pair{-1, 0}, std::pair{1, 0}, std::pair{0, -1}, {0, 1}}) {
      const vela::rt::Index to{at.x + dx, at.y + dy, 0};
      if (shape().contains(to)) out.push_back(to);
    }
    return out;
  }

  // The hot corner's patches work eight times longer; the work changes a little with the step,
  // so every step's instance is a new one.
  void run_step() {
    const bool hot = index().x < shape().nx / 3 && index().y < shape().ny / 2;
    const auto micros = (hot ? 240 : 30) + 10 * ((index().x + step_) % 3);
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(micros);
    while (std::chrono::steady_clock::now() < until) {
    }
    for (const vela::rt::Index& to : neighbours()) send<&Patch::halo>(to, step_);
    maybe_sync();
  }

  // Once every neighbour's halo of this step is in (a halo of the next step may come first).
  void maybe_sync() {
    const auto it = got_.find(step_);
    if (synced_ || it == got_.end() ||
        it->second != static_cast<std::int32_t>(neighbours().size())) {
      return;
    }
    got_.erase(it);
    synced_ = true;
    at_sync();
  }

  std::int32_t steps_ = 0;
  vela::rt::Callback done_;
  std::int32_t step_ = 0;
  std::map<std::int32_t, std::int32_t> got_;  // halos by step
  std::vector<vela::rt::PeId> pes_;           // after each balancing step
  bool synced_ = false;
};

// Runs `steps` steps of an nx x ny grid of patches (2-D blocks) balanced by `options.lb` after
// each, dumping every instance; returns, in process 0, the placement after each step (empty in
// the other processes).
inline std::vector<std::vector<vela::rt::PeId>> run_patches(vela::rt::Runtime& runtime,
                                                            std::int32_t nx, std::int32_t ny,
                                                            std::int32_t steps) {
  std::vector<double> notes;
  runtime.run([&](vela::rt::Context& ctx) {
    const vela::rt::Callback done =
        ctx.callback([&](const std::vector<double>& values) { notes = values; });
    ctx.create<Patch>("patches", vela::rt::Shape::grid(nx, ny), vela::rt::InitialMap::block, steps,
                      done)
        .broadcast<&Patch::start>();
  });
  const auto n = static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny);
  std::vector<std::vector<vela::rt::PeId>> placements;
  if (runtime.process() != 0) return placements;
  EXPECT_EQ(notes.size(), n * static_cast<std::size_t>(steps));
  for (std::size_t s = 0; s * n < notes.size(); ++s) {
    placements.emplace_back();
    for (std::size_t i = 0; i < n; ++i) {
      placements.back().push_back(static_cast<vela::rt::PeId>(notes[s * n + i]) - 1);
    }
  }
  return placements;
}

// The offline strategy's assignment for every dumped step equals the runtime's placement after
// it; returns how many elements moved in all.
inline std::size_t expect_offline_placements(
    const std::string& dump, const std::string& strategy, const lb::RawParams& params,
    const std::vector<std::vector<vela::rt::PeId>>& placements) {
  std::size_t moved = 0;
  auto offline = lb::make_strategy(strategy, params);
  for (std::size_t s = 0; s < placements.size(); ++s) {
    const auto file =
        std::filesystem::path(dump) / ("patches-step" + std::to_string(s + 1) + ".json");
    const lb::Instance instance = lb::read_instance(file.string());
    const lb::Assignment expected = offline->solve(instance).assignment;
    EXPECT_EQ(placements[s], expected.pe) << strategy << " step " << s + 1;
    for (std::size_t i = 0; i < instance.objects.size(); ++i) {
      moved += instance.objects[i].pe != expected.pe[i] ? 1 : 0;
    }
  }
  return moved;
}

}  // namespace vela::testing
