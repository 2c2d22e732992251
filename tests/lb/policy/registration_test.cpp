// Strategies, policies and predictors a program registers at run time: found by name wherever
// the built-in ones are, listed after them, and rejected when the name is empty, malformed or
// taken. The registries are process-wide, so every test registers names of its own.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "lb/policy/policy_support.hpp"
#include "vela/lb/model/evaluate.hpp"
#include "vela/lb/policy/replay.hpp"
#include "vela/lb/strategies/registry.hpp"

namespace {

using namespace vela::lb;
using vela::testing::object_at;

// Every object to the PE given by the `pe` parameter: an answer no built-in strategy gives.
class AllOnOnePe final : public Strategy {
 public:
  explicit AllOnOnePe(PeId pe) : pe_(pe) {}
  Solution solve(const Instance& instance) override {
    Solution s;
    s.assignment.pe.assign(instance.objects.size(), pe_);
    s.stats = {{"target_pe", static_cast<double>(pe_)}};
    return s;
  }

 private:
  PeId pe_;
};

StrategyInfo all_on_one_pe(std::string name) {
  return {std::move(name),
          "every object to PE `pe`",
          {{"pe", "the PE that gets every object", 0.0, 0.0, 1e6, true}},
          [](const ParamValues& p) { return std::make_unique<AllOnOnePe>(PeId(p.get("pe"))); }};
}

Instance four_objects_on_two_pes() {
  Instance in;
  in.dims = 1;
  in.pes = {Pe{}, Pe{}, Pe{}};
  in.objects = {object_at(1, 1.0, 0), object_at(2, 2.0, 0), object_at(3, 1.0, 1),
                object_at(4, 3.0, 1)};
  return in;
}

template <typename Info>
std::vector<std::string> names_of(const std::vector<Info>& infos) {
  std::vector<std::string> names;
  for (const Info& info : infos) names.push_back(info.name);
  return names;
}

// The RegistrationError `register_call` throws; fails the test if it throws none.
template <typename F>
std::string registration_error(F register_call) {
  try {
    register_call();
  } catch (const RegistrationError& e) {
    return e.what();
  }
  ADD_FAILURE() << "the registration was accepted";
  return {};
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(Registration, UserStrategyIsListedAfterTheBuiltInsAndMadeByName) {
  const std::vector<std::string> before = names_of(strategies());
  register_strategy(all_on_one_pe("test-all-on-one"));
  const std::vector<std::string> after = names_of(strategies());
  ASSERT_EQ(after.size(), before.size() + 1);
  EXPECT_TRUE(std::equal(before.begin(), before.end(), after.begin()));
  EXPECT_EQ(after.back(), "test-all-on-one");
  EXPECT_EQ(find_strategy("test-all-on-one").summary, "every object to PE `pe`");

  const Instance in = four_objects_on_two_pes();
  auto strategy = make_strategy("test-all-on-one", {{"pe", "2"}});
  const StrategyReport report = run_strategy(*strategy, "test-all-on-one", in);
  EXPECT_EQ(report.assignment.pe, (std::vector<PeId>{2, 2, 2, 2}));
  EXPECT_EQ(report.moved.count, 4u);
  // Its parameters are checked like a built-in's.
  EXPECT_THROW(make_strategy("test-all-on-one", {{"pe", "-1"}}), ParamError);
  EXPECT_THROW(make_strategy("test-all-on-one", {{"pes", "1"}}), ParamError);
}

TEST(Registration, StrategyNamesThatAreTakenEmptyOrMalformedAreRejected) {
  const std::string builtin =
      registration_error([] { register_strategy(all_on_one_pe("greedy")); });
  EXPECT_TRUE(contains(builtin, "'greedy'")) << builtin;
  EXPECT_TRUE(contains(builtin, "built-in strategy")) << builtin;

  register_strategy(all_on_one_pe("test-twice"));
  const std::string twice =
      registration_error([] { register_strategy(all_on_one_pe("test-twice")); });
  EXPECT_TRUE(contains(twice, "'test-twice' is already registered")) << twice;

  EXPECT_TRUE(
      contains(registration_error([] { register_strategy(all_on_one_pe("")); }), "has no name"));
  for (const char* bad : {"a b", "k=v", "x,y", "tab\there", "-leading", ".hidden"}) {
    const std::string e = registration_error([&] { register_strategy(all_on_one_pe(bad)); });
    EXPECT_TRUE(contains(e, std::string("'") + bad + "' is not a valid name")) << e;
  }
  StrategyInfo no_factory = all_on_one_pe("test-no-factory");
  no_factory.make = nullptr;
  EXPECT_TRUE(contains(registration_error([&] { register_strategy(no_factory); }),
                       "'test-no-factory' has no factory"));

  // A rejected entry is not listed, and the one registered first is still the one found.
  const std::vector<std::string> names = names_of(strategies());
  EXPECT_EQ(std::count(names.begin(), names.end(), "test-twice"), 1);
  EXPECT_EQ(std::count(names.begin(), names.end(), "greedy"), 1);
  EXPECT_EQ(std::find(names.begin(), names.end(), "test-no-factory"), names.end());
  try {
    make_strategy("test-unknown");
    FAIL() << "an unknown strategy was made";
  } catch (const ParamError& e) {
    EXPECT_TRUE(contains(e.what(), "test-twice")) << e.what();  // listed among the known
  }
}

TEST(Registration, PoliciesNameUserStrategiesAndReplayRunsThem) {
  register_strategy(all_on_one_pe("test-replayed"));
  auto policy = make_policy("periodic", {{"strategy", "test-replayed"}, {"every", "2"}});
  const Instance in = four_objects_on_two_pes();
  const Decision d = policy->decide({1, &in, {}});
  EXPECT_EQ(d.strategy, "test-replayed");

  Trace trace = vela::testing::static_objects_trace(
      3, in.objects, {}, {{1.0, 2.0, 1.0, 3.0}, {1.0, 2.0, 1.0, 3.0}, {1.0, 2.0, 1.0, 3.0}});
  auto replayed = make_policy("periodic", {{"strategy", "test-replayed"}, {"every", "2"}});
  ReplayOptions options;
  options.strategy_seconds = 0.0;
  const ReplayResult result = replay(trace, *replayed, options);
  ASSERT_EQ(result.balances, 1u);
  EXPECT_EQ(result.series[1].strategy, "test-replayed");
  // Everything on PE 0 afterwards: the last step's time is the sum of all loads.
  EXPECT_DOUBLE_EQ(result.series[2].compute, 7.0);
}

// Balances with `strategy` at the end of every step: a policy of the program's own.
class EveryStepPolicy final : public Policy {
 public:
  explicit EveryStepPolicy(std::string strategy) : strategy_(std::move(strategy)) {}
  Decision decide(const PolicyInput&) override { return {strategy_, {}}; }

 private:
  std::string strategy_;
};

TEST(Registration, UserPolicyIsListedMadeByNameAndRejectedWhenTaken) {
  register_policy(
      {"test-every-step",
       "balances after every step",
       {text_param("strategy", "the strategy", "greedy", [] { return names_of(strategies()); })},
       [](const ParamValues& p) { return std::make_unique<EveryStepPolicy>(p.text("strategy")); }});
  const std::vector<std::string> names = names_of(policies());
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.back(), "test-every-step");
  EXPECT_EQ(names.front(), "never");

  auto policy = make_policy("test-every-step", {{"strategy", "refine"}});
  const Instance in = four_objects_on_two_pes();
  EXPECT_EQ(policy->decide({0, &in, {}}).strategy, "refine");
  EXPECT_THROW(make_policy("test-every-step", {{"strategy", "no-such"}}), ParamError);

  const PolicyInfo copy = policies().back();
  const std::string twice = registration_error([&] { register_policy(copy); });
  EXPECT_TRUE(contains(twice, "register_policy: 'test-every-step' is already registered")) << twice;
  PolicyInfo periodic = copy;
  periodic.name = "periodic";
  EXPECT_TRUE(contains(registration_error([&] { register_policy(periodic); }),
                       "'periodic' is a built-in policy"));
}

// Predicts every object's load as twice its current one.
class DoublingPredictor final : public Predictor {
 public:
  void observe(const Instance&) override {}
  std::vector<double> predict(const Instance& instance) const override {
    std::vector<double> loads;
    for (const Object& o : instance.objects) loads.push_back(2.0 * o.load);
    return loads;
  }
};

TEST(Registration, UserPredictorIsListedMadeByNameAndRejectedWhenTaken) {
  const PredictorInfo doubling{
      "test-doubling", "twice the current load", {}, [](const ParamValues&) {
        return std::make_unique<DoublingPredictor>();
      }};
  register_predictor(doubling);
  EXPECT_EQ(names_of(predictors()).back(), "test-doubling");
  const Instance in = four_objects_on_two_pes();
  EXPECT_EQ(make_predictor("test-doubling")->predict(in), (std::vector<double>{2, 4, 2, 6}));
  EXPECT_TRUE(contains(registration_error([&] { register_predictor(doubling); }),
                       "register_predictor: 'test-doubling' is already registered"));
  PredictorInfo trend = doubling;
  trend.name = "trend";
  EXPECT_TRUE(contains(registration_error([&] { register_predictor(trend); }),
                       "'trend' is a built-in predictor"));
}

// Many threads registering at once, each name twice: every name lands exactly once, and lookups
// made meanwhile always find the built-ins.
TEST(Registration, ConcurrentRegistrationAcceptsEachNameOnce) {
  constexpr int kThreads = 8;
  constexpr int kNames = 50;
  std::atomic<int> accepted{0};
  std::atomic<int> rejected{0};
  std::atomic<int> lookups_failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kNames; ++i) {
        // Threads t and t + kThreads / 2 register the same names.
        const std::string name =
            "test-concurrent-" + std::to_string(t % (kThreads / 2)) + "-" + std::to_string(i);
        try {
          register_strategy(all_on_one_pe(name));
          ++accepted;
        } catch (const RegistrationError&) {
          ++rejected;
        }
        if (find_strategy("greedy").name != "greedy") ++lookups_failed;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(accepted.load(), kThreads / 2 * kNames);
  EXPECT_EQ(rejected.load(), kThreads / 2 * kNames);
  EXPECT_EQ(lookups_failed.load(), 0);
  const std::vector<std::string> names = names_of(strategies());
  const auto concurrent = std::count_if(names.begin(), names.end(), [](const std::string& n) {
    return n.rfind("test-concurrent-", 0) == 0;
  });
  EXPECT_EQ(concurrent, kThreads / 2 * kNames);
}

}  // namespace
