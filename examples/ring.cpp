// A ring of elements on Vela's runtime: element i works (i + 1) time units per step, passes a
// token to element i + 1, and reaches a balancing point once it has done both. With
// `--lb snake` the strategy registered below places them after the first step; at the end
// every element reports whether it sits where snake puts it, and the tokens it received.
//   ./ring --pes 3 --lb snake
#include <time.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "snake_strategy.hpp"
#include "vela/rt/runtime.hpp"

namespace {

struct Setup {
  std::int32_t elements = 12;
  std::int32_t steps = 3;
  double unit_ms = 1.0;
  vela::rt::Callback done;
  void pup(vela::pup::Archive& ar) { ar | elements | steps | unit_ms | done; }
};

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// Busy for `seconds` of this thread's CPU time: the same work whoever shares the core.
void work(double seconds) {
  const double end = thread_cpu_seconds() + seconds;
  while (thread_cpu_seconds() < end) {
  }
}

class Worker : public vela::rt::ElementBase {
 public:
  Worker() = default;  // for migration
  explicit Worker(Setup setup) : setup_(setup) {}

  void pup(vela::pup::Archive& ar) override {
    ar | setup_ | step_ | computed_ | tokens_ | waiting_;
  }

  void start() { compute(); }

  void token(std::int32_t) {
    ++tokens_;
    maybe_sync();
  }

  void resume_from_sync() override {
    waiting_ = false;
    if (++step_ < setup_.steps) {
      compute();
      return;
    }
    // Where snake puts element i: loads grow with i, so it is rank elements - 1 - i.
    const auto rank = static_cast<std::size_t>(setup_.elements - 1 - index().x);
    const bool on_snake_pe = pe() == example::snake_pe(rank, static_cast<std::size_t>(pes()));
    contribute({1.0, on_snake_pe ? 1.0 : 0.0, static_cast<double>(tokens_)},
               vela::rt::ReduceOp::sum, setup_.done);
  }

 private:
  void compute() {
    work(1e-3 * setup_.unit_ms * (index().x + 1));
    ++computed_;
    send<&Worker::token>(vela::rt::Index{(index().x + 1) % setup_.elements}, step_);
    maybe_sync();
  }

  // A balancing point per step, once this step's work is done and its token has come.
  void maybe_sync() {
    if (waiting_ || computed_ <= step_ || tokens_ <= step_) return;
    waiting_ = true;
    at_sync();
  }

  Setup setup_;
  std::int32_t step_ = 0;
  std::int32_t computed_ = 0;  // steps whose work is done
  std::int32_t tokens_ = 0;    // tokens received
  bool waiting_ = false;       // at the balancing point of this step
};

}  // namespace

int main(int argc, char** argv) {
  // Registered before the options are parsed, so that --lb accepts the name.
  example::register_snake();

  CLI::App app{"ring: elements passing a token, balanced by a strategy of the program's own"};
  Setup setup;
  vela::rt::Options options;
  // The work is counted in CPU time, so the balancer measures CPU time too (--lb-cpu-time).
  options.measure_cpu = true;
  app.add_option("--elements", setup.elements, "Elements in the ring")
      ->check(CLI::Range(2, 1 << 20));
  app.add_option("--steps", setup.steps, "Steps, each ending at a balancing point")
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--unit-ms", setup.unit_ms, "Element i works (i + 1) units per step")
      ->check(CLI::Range(0.0, 1e3));
  vela::rt::add_runtime_options(app, options);
  CLI11_PARSE(app, argc, argv);

  vela::rt::Runtime runtime(options);
  std::vector<double> totals;
  const int code = runtime.run([&](vela::rt::Context& ctx) {
    setup.done = ctx.callback([&](const std::vector<double>& sum) { totals = sum; });
    auto ring = ctx.create<Worker>("ring", vela::rt::Shape::line(setup.elements),
                                   vela::rt::InitialMap::block, setup);
    ring.broadcast<&Worker::start>();
  });
  if (code != 0 || totals.size() != 3) return code != 0 ? code : 1;
  const vela::rt::RunStats& stats = runtime.stats();
  std::printf("ring: %d elements on %d PEs, %d steps, strategy %s\n", setup.elements, runtime.pes(),
              setup.steps, options.lb.empty() ? "none" : options.lb.c_str());
  std::printf("tokens received: %.0f of %d\n", totals[2], setup.elements * setup.steps);
  std::printf("elements on snake's PE: %.0f of %.0f\n", totals[1], totals[0]);
  std::printf("balancing steps: %llu, migrations: %llu\n",
              static_cast<unsigned long long>(stats.lb_steps),
              static_cast<unsigned long long>(stats.migrations));
  return 0;
}
