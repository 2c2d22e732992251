// simulate(): checks the inputs here, then runs the engine (engine.cpp) in a child process,
// because SimGrid's engine cannot be made twice in one process, and reads its result back as
// JSON through a pipe (doubles printed to round-trip exactly). An error in the child comes back
// as its kind and message and is raised again here as the same kind.
#include "vela/sim/simulate.hpp"

#include <fmt/core.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "engine.hpp"
#include "vela/lb/policy/policy.hpp"

namespace vela::sim {

namespace {

using nlohmann::json;

void check_inputs(const lb::Trace& trace, const SimulateOptions& options) {
  if (trace.steps.empty()) throw SimulationError("the trace has no steps to simulate");
  for (std::size_t s = 0; s < trace.steps.size(); ++s) {
    const lb::TraceStep& step = trace.steps[s];
    if (!step.created.empty() || !step.deleted.empty()) {
      throw SimulationError(fmt::format(
          "step {} of the trace creates or deletes objects; the simulation takes traces whose "
          "objects are fixed (docs/simulation.md, \"What it leaves out\")",
          s));
    }
  }
  if (options.platform.empty()) throw SimulationError("no platform file given");
  if (!std::ifstream(options.platform)) {
    throw SimulationError(fmt::format("cannot read the platform file '{}': {}", options.platform,
                                      std::strerror(errno)));
  }
  if (!(options.reference_speed >= 0.0)) {
    throw SimulationError(fmt::format("reference speed {}: expected flop/s >= 0 (0: PE 0's host)",
                                      options.reference_speed));
  }
  for (const double overhead : {options.object_overhead, options.message_overhead}) {
    if (!(overhead >= 0.0) || overhead > 1e6) {
      throw SimulationError(fmt::format("overhead {}: expected seconds >= 0", overhead));
    }
  }
  if (!options.phases.empty() && options.phases.size() != trace.initial.objects.size()) {
    throw SimulationError(
        fmt::format("{} phases given for the trace's {} objects: expected one "
                    "per object, or none",
                    options.phases.size(), trace.initial.objects.size()));
  }
  if (options.grid_queue_period < 0) {
    throw SimulationError(fmt::format("grid queue period {}: expected >= 0 (0: no Grid Queue)",
                                      options.grid_queue_period));
  }
  if (options.async_balancing && options.step_reduction) {
    throw SimulationError(
        "asynchronous balancing with a step reduction: not simulated (objects move between PEs "
        "in the middle of a reduction); drop one of the two");
  }
  if (options.pes_per_host < 0) {
    throw SimulationError(
        fmt::format("PEs per host {}: expected >= 0 (0: each host's cores)", options.pes_per_host));
  }
  for (const std::string& item : options.config) {
    const auto colon = item.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == item.size()) {
      throw SimulationError(fmt::format(
          "SimGrid option '{}': expected NAME:VALUE, such as network/model:CM02", item));
    }
  }
  for (const auto& [name, seconds] : options.link_latencies) {
    if (name.empty() || !(seconds >= 0.0) || seconds > 1e6) {
      throw SimulationError(
          fmt::format("link latency {}={}: expected NAME=SECONDS, seconds >= 0", name, seconds));
    }
  }
  // The policy and the strategies it may name are checked here, where the error is raised.
  lb::make_policy(options.policy, options.policy_params);
}

json to_json(const SimulationResult& r) {
  json series = json::array();
  for (const SimulatedStep& s : r.series) {
    series.push_back({s.end, s.time, s.compute, s.balanced, s.strategy, s.migrations, s.bytes_moved,
                      s.strategy_seconds, s.balance_seconds});
  }
  return {{"total", r.total},
          {"compute", r.compute},
          {"busy", r.busy},
          {"overhead", r.overhead},
          {"efficiency", r.efficiency},
          {"strategy", r.strategy},
          {"balancing", r.balancing},
          {"steps", r.steps},
          {"pes", r.pes},
          {"hosts", r.hosts},
          {"balances", r.balances},
          {"migrations", r.migrations},
          {"bytes_moved", r.bytes_moved},
          {"messages", r.messages},
          {"bytes_sent", r.bytes_sent},
          {"cluster_bytes", r.cluster_bytes},
          {"strategy_overlapped", r.strategy_overlapped},
          {"answers_unapplied", r.answers_unapplied},
          {"series", std::move(series)}};
}

SimulationResult from_json(const json& j) {
  SimulationResult r;
  j.at("total").get_to(r.total);
  j.at("compute").get_to(r.compute);
  j.at("busy").get_to(r.busy);
  j.at("overhead").get_to(r.overhead);
  j.at("efficiency").get_to(r.efficiency);
  j.at("strategy").get_to(r.strategy);
  j.at("balancing").get_to(r.balancing);
  j.at("steps").get_to(r.steps);
  j.at("pes").get_to(r.pes);
  j.at("hosts").get_to(r.hosts);
  j.at("balances").get_to(r.balances);
  j.at("migrations").get_to(r.migrations);
  j.at("bytes_moved").get_to(r.bytes_moved);
  j.at("messages").get_to(r.messages);
  j.at("bytes_sent").get_to(r.bytes_sent);
  j.at("cluster_bytes").get_to(r.cluster_bytes);
  j.at("strategy_overlapped").get_to(r.strategy_overlapped);
  j.at("answers_unapplied").get_to(r.answers_unapplied);
  for (const json& row : j.at("series")) {
    SimulatedStep s;
    row.at(0).get_to(s.end);
    row.at(1).get_to(s.time);
    row.at(2).get_to(s.compute);
    row.at(3).get_to(s.balanced);
    row.at(4).get_to(s.strategy);
    row.at(5).get_to(s.migrations);
    row.at(6).get_to(s.bytes_moved);
    row.at(7).get_to(s.strategy_seconds);
    row.at(8).get_to(s.balance_seconds);
    r.series.push_back(std::move(s));
  }
  return r;
}

void write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

std::string read_all(int fd) {
  std::string text;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  return text;
}

// The child: runs the engine and writes the result, or the error's kind and message.
[[noreturn]] void child(int fd, const lb::Trace& trace, const SimulateOptions& options) {
  json answer;
  try {
    answer = {{"result", to_json(detail::run_engine(trace, options))}};
  } catch (const SimulationError& e) {
    answer = {{"error", "simulation"}, {"message", e.what()}};
  } catch (const lb::ParamError& e) {
    answer = {{"error", "param"}, {"message", e.what()}};
  } catch (const std::exception& e) {
    answer = {{"error", "other"}, {"message", e.what()}};
  }
  write_all(fd, answer.dump());
  ::close(fd);
  std::fflush(stdout);
  std::fflush(stderr);
  ::_exit(0);
}

}  // namespace

bool available() {
  return VELA_HAVE_SIMGRID != 0;
}

SimulationResult simulate(const lb::Trace& trace, const SimulateOptions& options) {
  if (!available()) return detail::run_engine(trace, options);  // says what is missing
  check_inputs(trace, options);
  int fds[2];
  if (::pipe(fds) != 0) {
    throw SimulationError(
        fmt::format("cannot start the simulation: pipe: {}", std::strerror(errno)));
  }
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw SimulationError(
        fmt::format("cannot start the simulation: fork: {}", std::strerror(errno)));
  }
  if (pid == 0) {
    ::close(fds[0]);
    child(fds[1], trace, options);
  }
  ::close(fds[1]);
  const std::string text = read_all(fds[0]);
  ::close(fds[0]);
  int status = 0;
  struct rusage usage {};
  while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  if (text.empty()) {
    throw SimulationError(
        WIFSIGNALED(status)
            ? fmt::format("the simulation ended on signal {} (SimGrid's message, if any, is above)",
                          WTERMSIG(status))
            : fmt::format("the simulation ended with status {} and no result",
                          WIFEXITED(status) ? WEXITSTATUS(status) : -1));
  }
  const json answer = json::parse(text);
  if (answer.contains("result")) {
    SimulationResult r = from_json(answer.at("result"));
    r.peak_memory = static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;  // Linux: kilobytes
    return r;
  }
  const std::string kind = answer.at("error").get<std::string>();
  const std::string message = answer.at("message").get<std::string>();
  if (kind == "simulation") throw SimulationError(message);
  if (kind == "param") throw lb::ParamError(message);
  throw std::runtime_error(message);
}

}  // namespace vela::sim
