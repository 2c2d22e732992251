#include "strategy_options.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "option_rules.hpp"
#include "vela/lb/strategies/registry.hpp"

namespace vela::tools {

lb::RawParams parse_params(const std::vector<std::string>& settings) {
  lb::RawParams raw;
  for (const std::string& s : settings) lb::parse_param(s, raw);
  return raw;
}

std::map<std::string, lb::RawParams> parse_scoped_params(const std::vector<std::string>& settings,
                                                         const std::vector<std::string>& chosen) {
  std::map<std::string, lb::RawParams> by_strategy;
  for (const std::string& s : settings) {
    const auto colon = s.find(':');
    if (colon == std::string::npos || colon == 0) {
      throw lb::ParamError("--param '" + s + "': expected STRATEGY:key=value");
    }
    const std::string name = s.substr(0, colon);
    if (std::find(chosen.begin(), chosen.end(), name) == chosen.end()) {
      throw lb::ParamError("--param '" + s + "': strategy '" + name +
                           "' is not among those compared");
    }
    lb::parse_param(s.substr(colon + 1), by_strategy[name]);
  }
  return by_strategy;
}

std::vector<double> parse_number_list(const std::string& option, const std::string& text) {
  std::vector<double> values;
  std::size_t begin = 0;
  while (true) {
    const std::size_t comma = text.find(',', begin);
    const std::string part = text.substr(begin, comma == std::string::npos ? comma : comma - begin);
    const std::optional<double> value = lb::parse_decimal(part);
    if (!value) {
      throw std::invalid_argument(option + ": '" + part + "' in '" + text +
                                  "' is not a plain decimal number (such as 2, 0.05 or 1e-3)");
    }
    values.push_back(*value);
    if (comma == std::string::npos) return values;
    begin = comma + 1;
  }
}

PolicySpec parse_policy_spec(const std::string& option, const std::string& spec) {
  PolicySpec policy;
  const auto colon = spec.find(':');
  policy.name = spec.substr(0, colon);
  if (policy.name.empty()) {
    throw std::invalid_argument(option + " '" + spec +
                                "': expected POLICY or POLICY:key=value,...");
  }
  if (colon == std::string::npos) return policy;
  const std::string rest = spec.substr(colon + 1);
  std::size_t start = 0;
  for (;;) {
    const auto comma = rest.find(',', start);
    const std::string item = rest.substr(start, comma - start);
    try {
      lb::parse_param(item, policy.params);
    } catch (const lb::ParamError& e) {
      throw lb::ParamError(option + " '" + spec + "': " + e.what());
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return policy;
}

std::vector<LabeledPolicy> policies_to_run(const std::string& policy,
                                           const std::vector<std::string>& settings,
                                           const std::vector<std::string>& compare) {
  if (!compare.empty() && (!policy.empty() || !settings.empty())) {
    throw std::invalid_argument("give either --policy (with -P) or --compare, not both");
  }
  std::vector<LabeledPolicy> runs;
  if (compare.empty()) {
    LabeledPolicy run;
    run.name = policy.empty() ? "never" : policy;
    run.params = parse_params(settings);
    run.label = run.name;
    for (const std::string& p : settings) run.label += (run.label == run.name ? ":" : ",") + p;
    runs.push_back(std::move(run));
    return runs;
  }
  for (const std::string& spec : compare) {
    PolicySpec parsed = parse_policy_spec("--compare", spec);
    runs.push_back({spec, std::move(parsed.name), std::move(parsed.params)});
  }
  return runs;
}

namespace {

double parse_seconds(const std::string& text, const std::string& whole) {
  const std::optional<double> value = non_negative_number(text);
  if (!value) {
    throw std::invalid_argument(
        "--strategy-time: expected 'measured', SECONDS >= 0 or "
        "STRATEGY=SECONDS, got '" +
        whole + "'");
  }
  return *value;
}

}  // namespace

StrategyTimes parse_strategy_times(const std::vector<std::string>& values) {
  StrategyTimes times;
  for (const std::string& text : values) {
    const auto eq = text.find('=');
    if (eq == std::string::npos) {
      if (text == "measured") {
        times.all.reset();
      } else {
        times.all = parse_seconds(text, text);
      }
      continue;
    }
    const std::string name = text.substr(0, eq);
    lb::find_strategy(name);  // throws for an unknown name, listing the known ones
    times.by_name[name] = parse_seconds(text.substr(eq + 1), text);
  }
  return times;
}

}  // namespace vela::tools
