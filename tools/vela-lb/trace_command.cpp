// vela-lb trace generate | info | convert | import-vt | export-vt: load traces
// (docs/trace-format.md) from the command line.
#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "commands.hpp"
#include "output_files.hpp"
#include "strategy_options.hpp"
#include "vela/lb/model/metrics.hpp"
#include "vela/lb/trace/generate.hpp"
#include "vela/lb/trace/trace.hpp"
#include "vela/lb/trace/vt.hpp"
#include "vela/progress/reporter.hpp"

namespace vela::tools {

namespace {

namespace fs = std::filesystem;

// ---- formats

bool is_json_format(const std::string& path, const std::string& format) {
  if (format == "json") return true;
  if (format == "binary") return false;
  const std::string extension = fs::path(path).extension().string();
  if (extension == ".json") return true;
  if (extension == ".trace" || extension == ".bin") return false;
  throw std::invalid_argument("cannot tell the format of '" + path +
                              "' from its extension (.json for JSON, .trace or .bin for binary); "
                              "give --format json or --format binary");
}

// Writes `trace` to `path` as --format or the extension says; returns the format's name.
std::string write(const lb::Trace& trace, const std::string& path, const std::string& format) {
  if (is_json_format(path, format)) {
    lb::write_trace_json(trace, path);
    return "JSON";
  }
  lb::write_trace_binary(trace, path);
  return "binary";
}

void add_format_option(CLI::App& command, std::string& format) {
  command
      .add_option("--format", format,
                  "Output format: json or binary [default: from the extension: .json is JSON, "
                  ".trace or .bin binary]")
      ->check(CLI::IsMember({"json", "binary"}));
}

std::size_t created_count(const lb::Trace& trace) {
  std::size_t n = 0;
  for (const lb::TraceStep& s : trace.steps) n += s.created.size();
  return n;
}

std::size_t deleted_count(const lb::Trace& trace) {
  std::size_t n = 0;
  for (const lb::TraceStep& s : trace.steps) n += s.deleted.size();
  return n;
}

// ---- generate

// Parses "CX,CY,RADIUS,FACTOR" or "CX,CY,RADIUS,FACTOR,VX,VY".
lb::MovingStorm parse_storm(const std::string& text) {
  const std::vector<double> values = parse_number_list("--storm", text);
  if (values.size() != 4 && values.size() != 6) {
    throw std::invalid_argument(
        "--storm: expected CX,CY,RADIUS,FACTOR or CX,CY,RADIUS,FACTOR,VX,VY, got '" + text + "'");
  }
  lb::MovingStorm storm;
  storm.start = {values[0], values[1], values[2], values[3]};
  if (values.size() == 6) {
    storm.vx = values[4];
    storm.vy = values[5];
  }
  return storm;
}

// The generator names its options as in TraceOptions; the user typed flags.
std::string with_flag_names(std::string message) {
  static const std::vector<std::pair<std::string, std::string>> names = {
      {"trace: radiation.period", "--radiation-period"},
      {"trace: radiation.offset", "--radiation-offset"},
      {"trace: radiation.factor", "--radiation-factor"},
      {"trace: drift.fraction", "--drift-fraction"},
      {"trace: drift.rate", "--drift-rate"},
      {"trace: churn.created_per_step", "--create-rate"},
      {"trace: churn.deleted_per_step", "--delete-rate"},
      {"trace: churn.where", "--create-where"},
      {"trace: base_load", "--base-load"},
      {"trace: noise", "--noise"},
      {"trace: steps", "--steps"},
      {"trace: pes", "--pes"},
      {"trace: nx * ny", "--nx * --ny"},
      {"trace: nx", "--nx"},
      {"trace: ny", "--ny"},
      {"trace: storm", "--storm"},
      {"trace: size",
       "the trace's size ((--steps + 1) x --nx x --ny, plus what --create-rate adds)"},
  };
  for (const auto& [from, to] : names) {
    if (message.starts_with(from)) return to + message.substr(from.size());
  }
  return message;
}

void add_generate(CLI::App& trace) {
  struct State {
    std::string output;
    std::string format;
    lb::TraceOptions options;
    std::vector<std::string> storms;
    bool no_storm = false;
    std::string where = "uniform";
    std::uint64_t halo_bytes = 0;
    std::uint64_t object_bytes = 0;
    bool quiet = false;
  };
  auto s = std::make_shared<State>();
  lb::TraceOptions& o = s->options;
  CLI::App* command = trace.add_subcommand(
      "generate",
      "Write a seeded trace of a BRAMS-like grid: a moving storm, radiation spikes, drift, "
      "objects created and deleted (effects compose). Limits, checked before anything is made: "
      "at most " +
          std::to_string(lb::max_trace_loads) +
          " loads (2^28: the objects alive summed over the initial instance and every step, "
          "(--steps + 1) x --nx x --ny plus what --create-rate adds) and " +
          std::to_string(lb::max_trace_pes) + " PEs (2^24)");
  command->option_defaults()->always_capture_default();
  command->add_option("-o,--output", s->output, "Trace file to write")->required();
  add_format_option(*command, s->format);
  command->add_option("--seed", o.seed,
                      "Random seed; the same options and seed give the same file");
  command->add_option("--steps", o.steps,
                      "Steps after the initial instance (the trace holds at most 2^28 loads)");
  command->add_option("--nx", o.nx, "Objects (column blocks) along x");
  command->add_option("--ny", o.ny, "Objects (column blocks) along y");
  command->add_option("--pes", o.pes, "Number of PEs (2-D block placement)");
  command->add_option("--base-load", o.base_load, "Seconds per step of a block outside storms");
  command->add_option("--noise", o.noise, "Relative noise of the base loads, drawn once");
  CLI::Option* halo_bytes =
      command->add_option("--halo-bytes", s->halo_bytes, "Bytes per halo message")->default_str("");
  CLI::Option* object_bytes =
      command->add_option("--object-bytes", s->object_bytes, "Bytes of an object's state")
          ->default_str("");
  CLI::Option* storm =
      command
          ->add_option("--storm", s->storms,
                       "Storm CX,CY,RADIUS,FACTOR[,VX,VY] (repeatable): centre at the start, "
                       "radius and peak factor in grid units, velocity in grid units per step "
                       "[default: 0.3nx,0.4ny,0.15min(nx,ny),4,0.4nx/steps,0]")
          ->allow_extra_args(false)
          ->default_str("");
  command->add_flag("--no-storm", s->no_storm, "No storm")->excludes(storm);
  command->add_option("--radiation-period", o.radiation.period,
                      "Radiation every K steps: all loads times --radiation-factor (0: off)");
  command->add_option("--radiation-offset", o.radiation.offset,
                      "Radiation at the steps whose time t = step + 1 has t % K == offset");
  command->add_option("--radiation-factor", o.radiation.factor, "Load multiplier of radiation");
  command->add_option("--drift-fraction", o.drift.fraction,
                      "Fraction of the objects whose load drifts (Pearce: 0.5)");
  command->add_option("--drift-rate", o.drift.rate,
                      "Largest relative change of a drifting load per step");
  command->add_option("--create-rate", o.churn.created_per_step,
                      "Objects created per step (fractions accumulate: 0.25 is one every 4 steps)");
  command->add_option("--delete-rate", o.churn.deleted_per_step, "Objects deleted per step");
  command
      ->add_option("--create-where", s->where,
                   "Where objects appear: uniform (anywhere) or storm (inside a storm)")
      ->check(CLI::IsMember({"uniform", "storm"}));
  add_quiet_flag(*command, s->quiet);
  command->callback([s, storm, halo_bytes, object_bytes] {
    lb::TraceOptions options = s->options;
    if (s->no_storm) options.storms = std::vector<lb::MovingStorm>{};
    if (storm->count() > 0) {
      options.storms = std::vector<lb::MovingStorm>{};
      for (const std::string& text : s->storms) options.storms->push_back(parse_storm(text));
    }
    if (halo_bytes->count() > 0) options.halo_bytes = s->halo_bytes;
    if (object_bytes->count() > 0) options.object_bytes = s->object_bytes;
    options.churn.where = s->where == "storm" ? lb::Appear::storm : lb::Appear::uniform;
    is_json_format(s->output, s->format);  // a bad name fails before the work
    lb::Trace trace;
    std::string format;
    try {
      progress::Reporter progress(
          {"trace generate", "steps",
           static_cast<std::uint64_t>(std::max<std::int64_t>(options.steps, 0))},
          s->quiet);
      trace = lb::generate_trace(options, [&progress](std::int64_t) { progress.advance(); });
      progress.finish();
      format = write(trace, s->output, s->format);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(with_flag_names(e.what()));
    } catch (const std::bad_alloc&) {
      throw std::runtime_error("trace generate: out of memory making the trace of " +
                               std::to_string(options.nx) + " x " + std::to_string(options.ny) +
                               " objects over " + std::to_string(options.steps) + " steps for " +
                               s->output + "; ask for fewer steps or objects");
    }
    fmt::print("wrote {} ({}): {} steps, {} objects on {} PEs, {} created, {} deleted, seed {}\n",
               s->output, format, trace.steps.size(), trace.initial.objects.size(),
               trace.initial.pes.size(), created_count(trace), deleted_count(trace), options.seed);
  });
}

// ---- info

struct Extremes {
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();
  double sum = 0.0;
  std::size_t min_at = 0;
  std::size_t max_at = 0;
  std::size_t count = 0;

  void add(double value, std::size_t at) {
    if (value < min) std::tie(min, min_at) = std::pair{value, at};
    if (value > max) std::tie(max, max_at) = std::pair{value, at};
    sum += value;
    ++count;
  }
  double mean() const { return count == 0 ? 0.0 : sum / static_cast<double>(count); }
};

// "initial" for the initial instance (time 0), "step s" for time s + 1.
std::string time_name(std::size_t t) {
  return t == 0 ? "initial" : "step " + std::to_string(t - 1);
}

void info(const std::string& path) {
  const lb::Trace trace = lb::read_trace(path);
  lb::TraceCursor cursor(trace);
  Extremes lambda;
  Extremes total;
  Extremes alive;
  std::size_t replaced = 0;
  for (std::size_t t = 0;; ++t) {
    const lb::Instance& in = cursor.instance();
    const auto loads = lb::pe_loads(in, lb::current_assignment(in));
    lambda.add(lb::load_stats(loads).imbalance, t);
    double work = 0.0;
    for (const lb::Object& o : in.objects) work += o.load;
    total.add(work, t);
    alive.add(static_cast<double>(in.objects.size()), t);
    if (!cursor.next()) break;
    if (trace.steps[cursor.steps_done() - 1].replaces_edges) ++replaced;
  }
  std::error_code ec;
  const auto bytes = fs::file_size(path, ec);
  fmt::print("trace: {} ({} bytes)\n", path, ec ? 0 : bytes);
  fmt::print("steps: {}\n", trace.steps.size());
  fmt::print("PEs: {}\n", trace.initial.pes.size());
  fmt::print("objects: {} initially, {} at the end, {} to {} alive; {} created, {} deleted\n",
             trace.initial.objects.size(), cursor.instance().objects.size(), alive.min, alive.max,
             created_count(trace), deleted_count(trace));
  fmt::print("edges: {} initially, {} at the end; {} steps replace them\n",
             trace.initial.edges.size(), cursor.instance().edges.size(), replaced);
  fmt::print(
      "imbalance λ under the initial placement: min {:.2f}% ({}), mean {:.2f}%, max {:.2f}% "
      "({})\n",
      100.0 * lambda.min, time_name(lambda.min_at), 100.0 * lambda.mean(), 100.0 * lambda.max,
      time_name(lambda.max_at));
  fmt::print("total load per step: min {:.6g} ({}), mean {:.6g}, max {:.6g} ({})\n", total.min,
             time_name(total.min_at), total.mean(), total.max, time_name(total.max_at));
}

void add_info(CLI::App& trace) {
  auto path = std::make_shared<std::string>();
  CLI::App* command = trace.add_subcommand(
      "info", "Summarize a trace: steps, objects, creations, deletions, imbalance over time");
  command->add_option("trace", *path, "Trace file (JSON or binary)")->required();
  command->callback([path] { info(*path); });
}

// ---- convert

void add_convert(CLI::App& trace) {
  struct State {
    std::string input;
    std::string output;
    std::string format;
  };
  auto s = std::make_shared<State>();
  CLI::App* command = trace.add_subcommand("convert", "Rewrite a trace in the other format");
  command->add_option("input", s->input, "Trace to read (JSON or binary)")->required();
  command->add_option("output", s->output, "Trace to write")->required();
  add_format_option(*command, s->format);
  command->callback([s] {
    is_json_format(s->output, s->format);
    refuse_overwriting_inputs(s->output, {s->input});
    const lb::Trace trace = lb::read_trace(s->input);
    const std::string format = write(trace, s->output, s->format);
    fmt::print("wrote {} ({}): {} steps, {} objects\n", s->output, format, trace.steps.size(),
               trace.initial.objects.size());
  });
}

// ---- DARMA vt

// vt's LB data files: data.<rank>.json, or data.<rank>.json.br when compressed.
bool is_vt_name(const fs::path& path) {
  const std::string name = path.filename().string();
  return name.ends_with(".json") || name.ends_with(".json.br");
}

// The files named, with each directory replaced by the vt files in it (*.json, *.json.br),
// sorted.
std::vector<std::string> vt_files(const std::vector<std::string>& names) {
  std::vector<std::string> files;
  for (const std::string& name : names) {
    std::error_code ec;
    if (!fs::is_directory(name, ec)) {
      files.push_back(name);
      continue;
    }
    std::vector<std::string> found;
    for (const auto& entry : fs::directory_iterator(name, ec)) {
      if (entry.is_regular_file() && is_vt_name(entry.path())) {
        found.push_back(entry.path().string());
      }
    }
    if (ec) throw std::invalid_argument(name + ": cannot list the directory: " + ec.message());
    if (found.empty()) {
      throw std::invalid_argument(name + ": no .json or .json.br files in the directory");
    }
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

void add_import_vt(CLI::App& trace) {
  struct State {
    std::vector<std::string> inputs;
    std::string output;
    std::string format;
  };
  auto s = std::make_shared<State>();
  CLI::App* command = trace.add_subcommand(
      "import-vt",
      "Read DARMA vt LB data files (one JSON file per rank, plain or brotli-compressed) into a "
      "trace; the files must be a whole set (ranks 0 to N - 1)");
  command
      ->add_option("files", s->inputs,
                   "vt LB data files, or directories of them (*.json, and *.json.br compressed)")
      ->required();
  command->add_option("-o,--output", s->output, "Trace file to write")->required();
  add_format_option(*command, s->format);
  command->callback([s] {
    is_json_format(s->output, s->format);
    const std::vector<std::string> files = vt_files(s->inputs);
    refuse_overwriting_inputs(s->output, files);
    lb::VtImportSummary summary;
    const lb::Trace trace = lb::import_vt(files, &summary);
    const std::string format = write(trace, s->output, s->format);
    fmt::print("read {} files: {} phases, {} tasks on {} PEs\n", summary.files, summary.phases,
               summary.tasks, trace.initial.pes.size());
    fmt::print(
        "skipped {} tasks (vt placeholders, non-object entities) and {} communications "
        "(with a node, or with an object without a task in the phase)\n",
        summary.skipped_tasks, summary.skipped_communications);
    if (summary.moved_tasks > 0) {
      fmt::print(
          "ignored {} task placements where vt had moved the object (a trace keeps loads, "
          "the replay decides placements)\n",
          summary.moved_tasks);
    }
    fmt::print("wrote {} ({}): {} steps, {} objects initially, {} created, {} deleted\n", s->output,
               format, trace.steps.size(), trace.initial.objects.size(), created_count(trace),
               deleted_count(trace));
  });
}

void add_export_vt(CLI::App& trace) {
  struct State {
    std::string input;
    std::string directory;
  };
  auto s = std::make_shared<State>();
  CLI::App* command = trace.add_subcommand(
      "export-vt",
      "Write a trace as DARMA vt LB data files, DIR/data.<PE>.json: all of them or, on an "
      "error, none (the directory is left as it was); rank files data.<N>.json beyond the "
      "trace's PEs, left from an older export, are removed");
  command->add_option("input", s->input, "Trace to read (JSON or binary)")->required();
  command->add_option("--output-dir", s->directory, "Directory for the files (created if needed)")
      ->required();
  command->callback([s] {
    const lb::Trace trace = lb::read_trace(s->input);
    const std::vector<std::string> files = lb::export_vt(trace, s->directory, {s->input});
    fmt::print("wrote {} vt LB data files to {}: phases 0 to {}\n", files.size(), s->directory,
               trace.steps.size());
  });
}

}  // namespace

void add_trace_command(CLI::App& app) {
  CLI::App* trace = app.add_subcommand(
      "trace", "Load traces: generate, info, convert, import-vt, export-vt (see --help of each)");
  trace->require_subcommand(1, 1);
  add_generate(*trace);
  add_info(*trace);
  add_convert(*trace);
  add_import_vt(*trace);
  add_export_vt(*trace);
}

}  // namespace vela::tools
