// A work unit of the graph benchmark: one element of the "units" collection (see main.cpp).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "graph.hpp"
#include "vela/progress/reporter.hpp"
#include "vela/rt/runtime.hpp"

namespace graph_bench {

// The graph of this process, built in every process before the runtime starts: a unit made
// here (at creation) reads its weight and edges from it, so the creation arguments stay small.
inline const Graph* the_graph = nullptr;
// The progress line (process 0 only; see leanmd's), when drawn: unit 0 reports its step.
inline vela::progress::Reporter* step_progress = nullptr;

struct Problem {
  std::int32_t steps = 100;
  std::int32_t sync_every = 1;
  bool warmup_sync = false;  // a balancing point before step 0 (see main.cpp)
  double drift = 0.0;
  std::uint64_t seed = 1;
  double iterations_per_unit = 0.0;
  std::int64_t unit_bytes = 16384;
  std::int64_t message_bytes = 64;
  vela::rt::Callback step_done;  // once per step: every unit finished it
  vela::rt::Callback done;       // the checksum's lanes
  void pup(vela::pup::Archive& ar) {
    ar | steps | sync_every | warmup_sync | drift | seed | iterations_per_unit | unit_bytes |
        message_bytes | step_done | done;
  }
};

class Unit : public vela::rt::ElementBase {
 public:
  Unit() = default;
  explicit Unit(Problem p) : p_(p) {
    const std::size_t i = linear_index();
    weight_ = the_graph->weight[i];
    to_ = the_graph->to[i];
    from_ = the_graph->from[i];
    value_ = graph_bench::mix(i + 1);
    state_.assign(static_cast<std::size_t>(p_.unit_bytes), static_cast<std::uint8_t>(i));
    for (auto& in : inbox_) in.assign(from_.size(), 0);
  }

  void pup(vela::pup::Archive& ar) override {
    ar | p_ | weight_ | to_ | from_ | value_ | sink_ | step_ | sent_ | inbox_ | received_ | state_;
  }

  void start() {
    if (p_.warmup_sync) {
      at_sync();
      return;
    }
    send_values();
  }

  void receive(std::int32_t step, std::uint32_t sender, std::uint64_t value,
               std::vector<std::uint8_t> payload) {
    const auto par = static_cast<std::size_t>(step % 2);
    const auto slot = static_cast<std::size_t>(
        std::lower_bound(from_.begin(), from_.end(), sender) - from_.begin());
    if (slot == from_.size() || from_[slot] != sender ||
        payload.size() != static_cast<std::size_t>(p_.message_bytes)) {
      throw std::logic_error("graph-bench: a message from a unit that is not a neighbour");
    }
    inbox_[par][slot] = value;
    ++received_[par];
    try_step();
  }

  void resume_from_sync() override { send_values(); }

 private:
  void send_values() {
    sent_ = step_;
    const auto self = static_cast<std::uint32_t>(linear_index());
    const std::vector<std::uint8_t> payload(static_cast<std::size_t>(p_.message_bytes),
                                            static_cast<std::uint8_t>(value_));
    for (const std::uint32_t u : to_) {
      send<&Unit::receive>(vela::rt::Index{static_cast<std::int32_t>(u), 0, 0}, step_, self, value_,
                           payload);
    }
    try_step();
  }

  void try_step() {
    const auto par = static_cast<std::size_t>(step_ % 2);
    if (sent_ != step_ || received_[par] < from_.size()) return;
    received_[par] = 0;
    const auto iterations =
        static_cast<std::uint64_t>(std::llround(weight_ * p_.iterations_per_unit));
    sink_ = graph_bench::do_work(iterations, sink_ | 1);
    std::uint64_t h = graph_bench::mix(value_ ^ static_cast<std::uint64_t>(step_));
    h = graph_bench::mix(h ^ std::bit_cast<std::uint64_t>(weight_));
    for (const std::uint64_t v : inbox_[par]) h = graph_bench::mix(h ^ v);
    value_ = h;
    weight_ = graph_bench::drifted(weight_, p_.drift, p_.seed, linear_index(), step_);
    ++step_;
    if (step_progress != nullptr && linear_index() == 0) {
      step_progress->set(static_cast<std::uint64_t>(step_));
    }
    contribute({1.0}, vela::rt::ReduceOp::sum, p_.step_done, vela::rt::Order::arrival);
    if (step_ == p_.steps) {
      // Four 16-bit lanes of the unit's hash, summed exactly.
      const std::uint64_t u = graph_bench::mix(linear_index() ^ value_);
      std::vector<double> lanes(4);
      for (std::size_t l = 0; l < 4; ++l) lanes[l] = static_cast<double>((u >> (16 * l)) & 0xffff);
      contribute(std::move(lanes), vela::rt::ReduceOp::sum, p_.done);
      return;
    }
    if (p_.sync_every > 0 && step_ % p_.sync_every == 0) {
      at_sync();
      return;
    }
    send_values();
  }

  Problem p_;
  double weight_ = 0.0;
  std::vector<std::uint32_t> to_, from_;
  std::uint64_t value_ = 0;
  std::uint64_t sink_ = 0;  // do_work's result: kept so the work is done, not in the checksum
  std::int32_t step_ = 0;
  std::int32_t sent_ = -1;                           // the last step whose values this unit sent
  std::array<std::vector<std::uint64_t>, 2> inbox_;  // by parity of the step, in `from_` order
  std::array<std::uint64_t, 2> received_{};
  std::vector<std::uint8_t> state_;  // the unit's data: migrates with it
};

}  // namespace graph_bench
