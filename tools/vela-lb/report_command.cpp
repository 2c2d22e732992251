// vela-lb report: one self-contained HTML page with the pictures of a run. The inputs are read
// and summarized here (report_inputs.hpp); tools/report/vela_report.py draws the summary with
// matplotlib as inline SVG (docs/architecture.md, "Reports").
#include <fmt/core.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "commands.hpp"
#include "io/replace_file.hpp"
#include "option_rules.hpp"
#include "output_files.hpp"
#include "report_inputs.hpp"
#include "strategy_options.hpp"
#include "vela/lb/strategies/registry.hpp"

extern char** environ;

namespace vela::tools {

namespace {

namespace fs = std::filesystem;

struct ReportOptions {
  std::vector<std::string> inputs;
  std::string output;
  std::string title = "Vela run report";
  std::string strategy;
  std::vector<std::string> params;
  std::string summary;  // also write the summary JSON here
  std::size_t bins = 100;
};

// The exit status vela_report.py gives when it cannot import matplotlib.
constexpr int kNoMatplotlib = 3;

std::string python_interpreter() {
  if (const char* chosen = std::getenv("VELA_PYTHON"); chosen != nullptr && *chosen != '\0') {
    return chosen;
  }
  return VELA_DEFAULT_PYTHON;
}

// The plotting tool: $VELA_REPORT_TOOL, else beside this program (the build tree), else in the
// install's share/vela.
std::string plotting_tool() {
  if (const char* chosen = std::getenv("VELA_REPORT_TOOL"); chosen != nullptr && *chosen != '\0') {
    return chosen;
  }
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (const fs::path& candidate :
         {self.parent_path() / "vela_report.py",
          self.parent_path().parent_path() / "share" / "vela" / "vela_report.py"}) {
      if (fs::is_regular_file(candidate, ec)) return candidate.string();
    }
  }
  throw std::runtime_error(
      "cannot find the plotting tool vela_report.py beside vela-lb or in share/vela; set "
      "VELA_REPORT_TOOL to tools/report/vela_report.py");
}

// Runs `argv` and returns its exit status; -1 when it did not exit normally.
int run(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int error = posix_spawnp(&pid, args[0], nullptr, nullptr, args.data(), environ);
  if (error != 0) {
    throw std::runtime_error("cannot run the Python interpreter '" + argv[0] +
                             "': " + std::strerror(error) +
                             "; install Debian's python3 and python3-matplotlib (apt-get "
                             "install python3-matplotlib) or set VELA_PYTHON to a Python 3 "
                             "that has matplotlib");
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error("waiting for the plotting tool failed");
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// A temporary file removed when it goes out of scope.
struct TemporaryFile {
  fs::path path;
  TemporaryFile() {
    path = fs::temp_directory_path() / ("vela-report-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(std::random_device{}()) + ".json");
  }
  ~TemporaryFile() {
    std::error_code ec;
    fs::remove(path, ec);
  }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
};

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) throw std::runtime_error(path + ": cannot write");
}

void report_command(const ReportOptions& o) {
  std::vector<std::string> outputs = {o.output};
  if (!o.summary.empty()) outputs.push_back(o.summary);
  for (const std::string& output : outputs) refuse_overwriting_inputs(output, o.inputs);
  if (!o.summary.empty()) refuse_overwriting_inputs(o.summary, {o.output});
  const fs::path folder = fs::path(o.output).parent_path();
  std::error_code ec;
  if (!folder.empty() && !fs::is_directory(folder, ec)) {
    throw std::invalid_argument(o.output + ": the folder " + folder.string() + " does not exist");
  }
  report::SummaryOptions options;
  options.strategy = o.strategy;
  options.params = parse_params(o.params);
  options.time_bins = o.bins;
  if (!o.strategy.empty()) lb::make_strategy(o.strategy, options.params);  // fails fast
  nlohmann::json summary = report::summarize(o.inputs, options);
  summary["title"] = o.title;
  const std::string text = summary.dump();
  if (!o.summary.empty()) {
    lb::io_detail::replace_file<std::runtime_error>(
        o.summary, [&](const std::string& target) { write_text(target, text); });
  }

  const std::string python = python_interpreter();
  const std::string tool = plotting_tool();
  TemporaryFile summary_file;
  write_text(summary_file.path.string(), text);
  lb::io_detail::replace_file<std::runtime_error>(o.output, [&](const std::string& target) {
    const int status = run({python, tool, "--summary", summary_file.path.string(), "--output",
                            target, "--name", o.output});
    if (status == kNoMatplotlib) {
      throw std::runtime_error(
          "the Python interpreter '" + python +
          "' cannot import matplotlib; install Debian's python3-matplotlib (apt-get install "
          "python3-matplotlib) or set VELA_PYTHON to a Python 3 that has matplotlib");
    }
    if (status != 0) {
      throw std::runtime_error("the plotting tool " + tool + " failed (exit status " +
                               std::to_string(status) + ") drawing " + o.output);
    }
  });
  fmt::print("wrote:         {}\n", o.output);
}

}  // namespace

void add_report_command(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "report",
      "Write one self-contained HTML page with the pictures of a run, from any of its outputs");
  cmd->add_option("inputs", o->inputs,
                  "Step logs (CSV step,seconds[,migrate_seconds]), --lb-dump instances, a Chrome "
                  "trace (--trace), 'vela-lb compare --format json' and 'vela-lb replay --format "
                  "json' results; the kind is told from the contents")
      ->required();
  cmd->add_option("-o,--output", o->output, "The HTML file to write")->required();
  cmd->add_option("--title", o->title, "The page's title");
  cmd->add_option("--strategy", o->strategy,
                  "Balance each instance with this strategy to show 'after' (default: the "
                  "placement in the collection's next dump)");
  cmd->add_option("--param,-p", o->params, "Parameter of --strategy, key=value (repeatable)");
  cmd->add_option("--summary", o->summary,
                  "Also write the summary the pictures are drawn from (JSON) to this file");
  cmd->add_option("--bins", o->bins, "Time intervals of the utilization timeline")
      ->check(CLI::Range(1, 100000));
  cmd->callback([o] { report_command(*o); });
}

}  // namespace vela::tools
