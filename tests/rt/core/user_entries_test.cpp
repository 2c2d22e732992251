// Strategies and policies a program registers at run time drive the runtime's balancing like
// the built-in ones: --lb and --lb-policy accept their names once registered, and the
// runtime places the elements where they say.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "vela/lb/policy/policy.hpp"
#include "vela/lb/strategies/registry.hpp"
#include "vela/rt/runtime.hpp"

namespace {

using namespace vela;

// Every migratable object to the last PE.
class LastPe final : public lb::Strategy {
 public:
  lb::Solution solve(const lb::Instance& instance) override {
    lb::Solution s;
    s.assignment = lb::current_assignment(instance);
    for (std::size_t i = 0; i < instance.objects.size(); ++i) {
      if (instance.objects[i].migratable) {
        s.assignment.pe[i] = static_cast<lb::PeId>(instance.pes.size() - 1);
      }
    }
    return s;
  }
};

void register_last_pe() {
  static std::once_flag once;
  std::call_once(once, [] {
    lb::register_strategy(
        {"test-rt-last-pe", "every object to the last PE", {}, [](const lb::ParamValues&) {
           return std::make_unique<LastPe>();
         }});
  });
}

// Balances at the second sync point only, with its `strategy` parameter.
class SecondSyncPolicy final : public lb::Policy {
 public:
  explicit SecondSyncPolicy(std::string strategy) : strategy_(std::move(strategy)) {}
  lb::Decision decide(const lb::PolicyInput& input) override {
    if (input.step != 1) return {};
    return {strategy_, {}};
  }

 private:
  std::string strategy_;
};

// The PE of each element after each sync point: pes[round][element].
constexpr int kElements = 6;
constexpr int kRounds = 2;
std::atomic<int> pes_after[kRounds][kElements];

class Element : public rt::ElementBase {
 public:
  void pup(pup::Archive& ar) override { ar | round_; }
  void start() { at_sync(); }
  void resume_from_sync() override {
    pes_after[round_][index().x] = pe();
    if (++round_ < kRounds) at_sync();
  }

 private:
  std::int32_t round_ = 0;
};

std::vector<int> run(rt::Options options) {
  for (auto& round : pes_after) {
    for (auto& pe : round) pe = -1;
  }
  options.pes = 3;
  options.pin = false;
  rt::Runtime runtime(options);
  EXPECT_EQ(runtime.run([](rt::Context& ctx) {
    ctx.create<Element>("elements", rt::Shape::line(kElements), rt::InitialMap::round_robin)
        .broadcast<&Element::start>();
  }),
            0);
  std::vector<int> pes;
  for (auto& round : pes_after) {
    for (auto& pe : round) pes.push_back(pe);
  }
  return pes;
}

// `--lb name` parsed as a runtime program parses it; false when CLI11 rejects it.
bool lb_option_accepted(const std::string& name) {
  CLI::App app;
  rt::Options options;
  rt::add_runtime_options(app, options);
  std::vector<std::string> args = {name, "--lb"};  // CLI11 takes them in reverse order
  try {
    app.parse(args);
  } catch (const CLI::ParseError&) {
    return false;
  }
  return options.lb == name;
}

TEST(UserEntries, LbOptionAcceptsAUserStrategyOnceRegistered) {
  EXPECT_FALSE(lb_option_accepted("test-rt-not-yet"));
  lb::register_strategy({"test-rt-not-yet", "registered late", {}, [](const lb::ParamValues&) {
                           return std::make_unique<LastPe>();
                         }});
  EXPECT_TRUE(lb_option_accepted("test-rt-not-yet"));
}

TEST(UserEntries, RuntimeBalancesWithAUserStrategy) {
  register_last_pe();
  rt::Options options;
  options.lb = "test-rt-last-pe";
  const std::vector<int> pes = run(options);
  // Round robin put them on 0, 1, 2, 0, 1, 2; the strategy moves all of them to PE 2.
  EXPECT_EQ(pes, std::vector<int>(kRounds * kElements, 2));
}

TEST(UserEntries, RuntimeAsksAUserPolicyWhichRunsAUserStrategy) {
  register_last_pe();
  lb::register_policy({"test-rt-second-sync",
                       "balances at the second sync point only",
                       {lb::text_param("strategy", "the strategy", "greedy",
                                       [] {
                                         std::vector<std::string> names;
                                         for (const auto& s : lb::strategies())
                                           names.push_back(s.name);
                                         return names;
                                       })},
                       [](const lb::ParamValues& p) {
                         return std::make_unique<SecondSyncPolicy>(p.text("strategy"));
                       }});
  rt::Options options;
  options.lb = "test-rt-last-pe";  // the policy's `strategy` defaults to --lb
  options.lb_policy = "test-rt-second-sync";
  const std::vector<int> pes = run(options);
  const std::vector<int> round_robin = {0, 1, 2, 0, 1, 2};
  EXPECT_EQ(std::vector<int>(pes.begin(), pes.begin() + kElements), round_robin);
  EXPECT_EQ(std::vector<int>(pes.begin() + kElements, pes.end()), std::vector<int>(kElements, 2));
}

}  // namespace
