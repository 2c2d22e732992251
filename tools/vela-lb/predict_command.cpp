// vela-lb predict: each load predictor's errors on a trace; vela-lb policies: what is registered.
#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "policy_commands.hpp"
#include "vela/lb/policy/prediction_errors.hpp"

namespace vela::tools {

namespace {

struct PredictOptions {
  std::string input;
  std::vector<std::string> predictors;
  std::vector<std::string> params;
  std::string format = "table";
};

void predict(PredictOptions o) {
  if (o.predictors.empty()) {
    for (const lb::PredictorInfo& info : lb::predictors()) o.predictors.push_back(info.name);
  }
  std::map<std::string, lb::RawParams> params;
  for (const std::string& s : o.params) {
    const auto colon = s.find(':');
    if (colon == std::string::npos || colon == 0) {
      throw lb::ParamError("--param '" + s + "': expected PREDICTOR:key=value");
    }
    const std::string name = s.substr(0, colon);
    if (std::find(o.predictors.begin(), o.predictors.end(), name) == o.predictors.end()) {
      throw lb::ParamError("--param '" + s + "': predictor '" + name +
                           "' is not among those scored");
    }
    lb::parse_param(s.substr(colon + 1), params[name]);
  }
  std::vector<std::unique_ptr<lb::Predictor>> chosen;
  for (const std::string& name : o.predictors) {
    const auto it = params.find(name);
    chosen.push_back(lb::make_predictor(name, it == params.end() ? lb::RawParams{} : it->second));
  }
  const lb::Trace trace = lb::read_trace(o.input);
  std::vector<lb::PredictionErrors> errors;
  for (auto& predictor : chosen) errors.push_back(lb::prediction_errors(*predictor, trace));

  if (o.format == "csv") {
    fmt::print(
        "predictor,predictions,compared,object_rmse,object_relative_rmse,object_rank_correlation,"
        "pe_rmse,pe_relative_rmse,pe_rank_correlation,max_pe_relative_error\n");
    for (std::size_t k = 0; k < errors.size(); ++k) {
      const lb::PredictionErrors& e = errors[k];
      fmt::print("{},{},{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g}\n", o.predictors[k],
                 e.predictions, e.compared, e.object_rmse, e.object_relative_rmse,
                 e.object_rank_correlation, e.pe_rmse, e.pe_relative_rmse, e.pe_rank_correlation,
                 e.max_pe_relative_error);
    }
    return;
  }
  fmt::print("{}: {} steps predicted, each from the steps before it\n\n", o.input,
             trace.steps.size());
  fmt::print("{:<12} {:>12} {:>9} {:>10} {:>12} {:>9} {:>10} {:>11}\n", "predictor", "object RMSE",
             "relative", "rank corr", "PE RMSE", "relative", "rank corr", "max PE err");
  for (std::size_t k = 0; k < errors.size(); ++k) {
    const lb::PredictionErrors& e = errors[k];
    fmt::print("{:<12} {:>12.6g} {:>8.3f}% {:>10.4f} {:>12.6g} {:>8.3f}% {:>10.4f} {:>10.3f}%\n",
               o.predictors[k], e.object_rmse, 100.0 * e.object_relative_rmse,
               e.object_rank_correlation, e.pe_rmse, 100.0 * e.pe_relative_rmse,
               e.pe_rank_correlation, 100.0 * e.max_pe_relative_error);
  }
}

void print_params(const std::vector<lb::ParamSpec>& params) {
  for (const lb::ParamSpec& p : params) {
    if (p.is_text()) {
      fmt::print("{:<18} {}={} ({}; one of {})\n", "", p.name, p.default_text, p.help,
                 lb::join_choices(p.choices()));
    } else {
      fmt::print("{:<18} {}={} ({}, range [{}, {}]{})\n", "", p.name, p.default_value, p.help,
                 p.min, p.max, p.integer ? ", integer" : "");
    }
  }
}

}  // namespace

void add_predict_command(CLI::App& app) {
  auto o = std::make_shared<PredictOptions>();
  CLI::App* cmd = app.add_subcommand(
      "predict", "Score the load predictors on a trace (RMSE, rank correlation)");
  cmd->add_option("trace", o->input, "Trace file (JSON or binary)")->required();
  cmd->add_option("--predictors", o->predictors, "Comma-separated predictor names (default: all)")
      ->delimiter(',')
      ->allow_extra_args(false);
  cmd->add_option("--param,-p", o->params,
                  "Parameter of one predictor, PREDICTOR:key=value (repeatable)");
  cmd->add_option("--format,-f", o->format, "Output format")
      ->check(CLI::IsMember({"table", "csv"}));
  cmd->callback([o] { predict(*o); });
}

void add_policies_command(CLI::App& app) {
  CLI::App* cmd =
      app.add_subcommand("policies", "List the policies and load predictors and their parameters");
  cmd->callback([] {
    fmt::print("Policies (replay --policy NAME -P key=value):\n");
    for (const lb::PolicyInfo& info : lb::policies()) {
      fmt::print("{:<16} {}\n", info.name, info.summary);
      print_params(info.params);
    }
    fmt::print("\nPredictors (replay --predictor NAME, predict --predictors NAME):\n");
    for (const lb::PredictorInfo& info : lb::predictors()) {
      fmt::print("{:<16} {}\n", info.name, info.summary);
      print_params(info.params);
    }
  });
}

}  // namespace vela::tools
