#include "core/topology.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <fstream>
#include <map>
#include <stdexcept>

namespace vela::rt::detail {

namespace {

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t\r");
  return std::string(s.substr(b, e - b + 1));
}

// A non-negative decimal integer, all of `s`.
bool parse_count(std::string_view s, std::int64_t& out) {
  if (s.empty() || s.size() > 12) return false;
  for (const char c : s) {
    if (c < '0' || c > '9') return false;
  }
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc{} && r.ptr == s.data() + s.size();
}

std::vector<std::string> split(const std::string& s, char by) {
  std::vector<std::string> parts;
  std::size_t from = 0;
  for (;;) {
    const auto at = s.find(by, from);
    parts.push_back(trim(std::string_view(s).substr(from, at - from)));
    if (at == std::string::npos) return parts;
    from = at + 1;
  }
}

bool looks_like_counts(const std::string& spec) {
  return !spec.empty() && spec.find_first_not_of("0123456789, ") == std::string::npos;
}

std::vector<std::int32_t> from_counts(const std::string& spec, PeId pes) {
  std::vector<std::int64_t> counts;
  std::int64_t total = 0;
  for (const std::string& part : split(spec, ',')) {
    std::int64_t k = 0;
    if (!parse_count(part, k) || k < 1) {
      throw std::invalid_argument("--clusters " + spec + ": '" + part +
                                  "' is not a PE count (expected K1,K2,... with every K >= 1)");
    }
    counts.push_back(k);
    total += k;
  }
  if (total != pes) {
    throw std::invalid_argument("--clusters " + spec + ": the counts add up to " +
                                std::to_string(total) + " PEs but the run has " +
                                std::to_string(pes));
  }
  std::vector<std::int32_t> cluster;
  cluster.reserve(static_cast<std::size_t>(pes));
  for (std::size_t c = 0; c < counts.size(); ++c) {
    cluster.insert(cluster.end(), static_cast<std::size_t>(counts[c]),
                   static_cast<std::int32_t>(c));
  }
  return cluster;
}

std::vector<std::int32_t> from_file(const std::string& path, PeId pes) {
  std::ifstream in(path);
  if (!in) {
    throw std::invalid_argument("--clusters " + path +
                                ": cannot open (expected K1,K2,... PE counts, a cluster map "
                                "file, probe or node)");
  }
  std::vector<std::int64_t> cluster(static_cast<std::size_t>(pes), -1);
  std::vector<std::size_t> line_of(static_cast<std::size_t>(pes), 0);
  std::string line;
  std::size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    const std::string text = trim(line.substr(0, line.find('#')));
    if (text.empty()) continue;
    const auto gap = text.find_first_of(" \t");
    std::int64_t pe = 0, c = 0;
    if (gap == std::string::npos || !parse_count(text.substr(0, gap), pe) ||
        !parse_count(trim(text.substr(gap)), c) || c > 1'000'000) {
      throw std::invalid_argument("--clusters " + path + ": line " + std::to_string(number) +
                                  ": expected 'PE CLUSTER' (two non-negative integers, the "
                                  "cluster at most 1000000), got '" +
                                  text + "'");
    }
    if (pe >= pes) {
      throw std::invalid_argument("--clusters " + path + ": line " + std::to_string(number) +
                                  ": PE " + std::to_string(pe) + " does not exist (the run has " +
                                  std::to_string(pes) + " PEs, 0 to " + std::to_string(pes - 1) +
                                  ")");
    }
    const auto p = static_cast<std::size_t>(pe);
    if (cluster[p] >= 0) {
      throw std::invalid_argument("--clusters " + path + ": line " + std::to_string(number) +
                                  ": PE " + std::to_string(pe) + " is already placed on line " +
                                  std::to_string(line_of[p]));
    }
    cluster[p] = c;
    line_of[p] = number;
  }
  if (in.bad()) throw std::invalid_argument("--clusters " + path + ": read error");
  for (std::size_t p = 0; p < cluster.size(); ++p) {
    if (cluster[p] < 0) {
      throw std::invalid_argument("--clusters " + path + ": PE " + std::to_string(p) +
                                  " has no cluster (the map must name every PE of the run, 0 "
                                  "to " +
                                  std::to_string(pes - 1) + ")");
    }
  }
  std::map<std::int64_t, std::int32_t> dense;
  for (const std::int64_t c : cluster) dense.emplace(c, 0);
  std::int32_t next = 0;
  for (auto& [id, n] : dense) n = next++;
  std::vector<std::int32_t> out;
  out.reserve(cluster.size());
  for (const std::int64_t c : cluster) out.push_back(dense.at(c));
  return out;
}

}  // namespace

bool clusters_found_at_start(const std::string& spec) {
  return spec == "probe" || spec == "node";
}

std::vector<std::int32_t> parse_clusters(const std::string& spec, PeId pes) {
  if (spec.empty()) return std::vector<std::int32_t>(static_cast<std::size_t>(pes), 0);
  if (looks_like_counts(spec)) return from_counts(spec, pes);
  return from_file(spec, pes);
}

std::vector<double> parse_speeds(const std::string& spec,
                                 const std::vector<std::int32_t>& cluster) {
  const std::size_t pes = cluster.size();
  const std::size_t clusters =
      cluster.empty()
          ? 0
          : static_cast<std::size_t>(*std::max_element(cluster.begin(), cluster.end())) + 1;
  std::vector<double> given;
  for (const std::string& part : split(spec, ',')) {
    double v = 0.0;
    const bool decimal =
        !part.empty() && part.find_first_not_of("0123456789.eE+-") == std::string::npos;
    const auto r = std::from_chars(part.data(), part.data() + part.size(), v);
    if (!decimal || r.ec != std::errc{} || r.ptr != part.data() + part.size() ||
        !std::isfinite(v) || v <= 0.0 || v > 1e6) {
      throw std::invalid_argument("--pe-speed " + spec + ": '" + part +
                                  "' is not a speed (expected a decimal number in (0, 1e6], or "
                                  "'measure')");
    }
    given.push_back(v);
  }
  std::vector<double> speed(pes);
  if (given.size() == 1) {
    std::fill(speed.begin(), speed.end(), given[0]);
  } else if (given.size() == pes) {
    speed = given;
  } else if (given.size() == clusters) {
    for (std::size_t p = 0; p < pes; ++p) speed[p] = given[static_cast<std::size_t>(cluster[p])];
  } else {
    throw std::invalid_argument("--pe-speed " + spec + ": " + std::to_string(given.size()) +
                                " speeds, expected 1 (every PE), " + std::to_string(clusters) +
                                " (one per cluster) or " + std::to_string(pes) + " (one per PE)");
  }
  const double fastest = *std::max_element(speed.begin(), speed.end());
  for (double& s : speed) s /= fastest;
  return speed;
}

double calibration_seconds() {
  // A dependent chain of multiply-adds over a small array that stays in L1: the core's speed,
  // not the memory system's. About a millisecond at 3 GHz; the least of five runs.
  constexpr int n = 256;
  constexpr int rounds = 1200;
  std::vector<double> a(n);
  for (int i = 0; i < n; ++i) a[static_cast<std::size_t>(i)] = 1.0 + 1e-3 * i;
  double best = 1e30;
  volatile double sink = 0.0;
  for (int run = 0; run < 5; ++run) {
    const auto from = std::chrono::steady_clock::now();
    double s = 0.0;
    for (int r = 0; r < rounds; ++r) {
      for (double& x : a) {
        x = x * 0.999999 + 1e-6;
        s = s * 0.5 + x;
      }
    }
    sink = sink + s;
    const auto to = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double>(to - from).count());
  }
  return best;
}

std::vector<double> speeds_from_seconds(const std::vector<double>& seconds) {
  const double fastest = *std::min_element(seconds.begin(), seconds.end());
  std::vector<double> speed;
  speed.reserve(seconds.size());
  for (const double s : seconds) {
    const double relative = s > 0.0 ? fastest / s : 1.0;
    speed.push_back(std::max(0.05, std::round(relative * 20.0) / 20.0));
  }
  return speed;
}

}  // namespace vela::rt::detail
