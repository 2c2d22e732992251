// vela-lb report, first half: the run's outputs read, checked and reduced to one summary (JSON)
// that tools/report/vela_report.py draws. Every input is read here, so that a bad one is named
// before anything is plotted, and every figure uses the toolkit's own metrics (λ, migrations).
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "vela/lb/model/params.hpp"

namespace vela::tools::report {

// What a file is, told from its contents (the extension does not matter).
enum class InputKind {
  step_log,      // an application's per-step CSV: step,seconds[,migrate_seconds]
  instance,      // an instance file (--lb-dump writes one per balancing step)
  chrome_trace,  // the runtime's --trace
  compare,       // vela-lb compare --format json
  replay,        // vela-lb replay --format json
};

std::string kind_name(InputKind kind);

struct SummaryOptions {
  // The strategy whose answer on each instance is "after balancing"; empty: the placement of the
  // collection's next dump.
  std::string strategy;
  lb::RawParams params;
  std::size_t time_bins = 100;  // of the utilization timeline
};

// Reads every input; throws std::invalid_argument (or the toolkit's InstanceError) naming the
// file and what was expected when one is missing, of an unknown kind, malformed or empty.
nlohmann::json summarize(const std::vector<std::string>& inputs, const SummaryOptions& options);

// The pieces of summarize, each for one kind of input whose text has been read.
nlohmann::json read_step_log(const std::string& path, const std::string& text);
nlohmann::json read_compare(const std::string& path, const nlohmann::json& document);
nlohmann::json read_replay(const std::string& path, const nlohmann::json& document);
nlohmann::json read_chrome_trace(const std::string& path, const nlohmann::json& document,
                                 std::size_t bins);
// Instance files (one collection's dumps: the balancing step's number and the file, in step
// order) as balancing steps: PE loads, λ, migrations and the domain before and after.
nlohmann::json read_balancing_steps(const std::vector<std::pair<long, std::string>>& steps,
                                    const SummaryOptions& options);

}  // namespace vela::tools::report
