#include "totals.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>

namespace vela::lb::io_detail {

namespace {

std::string show(double value) {
  std::array<char, 32> digits;
  const auto result = std::to_chars(digits.data(), digits.data() + digits.size(), value);
  return std::string(digits.data(), static_cast<std::size_t>(result.ptr - digits.data()));
}

}  // namespace

std::string speeds_problem(const std::vector<Pe>& pes) {
  double sum = 0.0;
  for (std::size_t p = 0; p < pes.size(); ++p) {
    const double speed = pes[p].speed;
    if (!std::isnormal(speed) || speed < 0.0) {
      return "PE " + std::to_string(p) + ": speed " + show(speed) +
             " is not a normal positive number (at least " +
             show(std::numeric_limits<double>::min()) +
             "); times are loads divided by speeds, and would overflow";
    }
    sum += speed;
  }
  if (!std::isfinite(sum)) {
    return "the PEs' speeds add up to more than the largest double; their sum must be finite";
  }
  return "";
}

TimeTotal::TimeTotal(const std::vector<Pe>& pes) {
  if (pes.empty()) return;
  slowest_ = std::numeric_limits<double>::infinity();
  for (const Pe& pe : pes) {
    background_ += pe.background;
    slowest_ = std::min(slowest_, pe.speed);
  }
}

bool TimeTotal::finite() const {
  return std::isfinite(background_ + loads_ / slowest_);
}

std::string TimeTotal::problem() const {
  return "the total time is not finite (the PEs' backgrounds plus the loads divided by the "
         "slowest speed, " +
         show(slowest_) +
         ", exceed the largest double): every PE time and every sum of PE times must be finite";
}

std::string totals_problem(const Instance& instance) {
  if (std::string problem = speeds_problem(instance.pes); !problem.empty()) return problem;
  TimeTotal time(instance.pes);
  if (!time.finite()) return time.problem();
  for (std::size_t i = 0; i < instance.objects.size(); ++i) {
    if (!time.add(instance.objects[i].load)) {
      return "objects.load[" + std::to_string(i) + "]: " + time.problem();
    }
  }
  CountTotal sizes;
  for (std::size_t i = 0; i < instance.objects.size(); ++i) {
    if (!sizes.add(instance.objects[i].size)) {
      return "objects.size[" + std::to_string(i) +
             "]: the objects' sizes add up to more than 2^64 - 1 bytes (the bytes of a "
             "migration must fit in 64 bits)";
    }
  }
  CountTotal bytes;
  CountTotal messages;
  for (std::size_t e = 0; e < instance.edges.size(); ++e) {
    if (!bytes.add(instance.edges[e].bytes)) {
      return "edges.bytes[" + std::to_string(e) +
             "]: the edges' bytes add up to more than 2^64 - 1 (the bytes of a communication "
             "cut must fit in 64 bits)";
    }
    if (!messages.add(instance.edges[e].messages)) {
      return "edges.messages[" + std::to_string(e) +
             "]: the edges' messages add up to more than 2^64 - 1 (the messages of a "
             "communication cut must fit in 64 bits)";
    }
  }
  CountTotal cut;
  const std::uint64_t pes = instance.pes.size();
  for (std::size_t h = 0; h < instance.hyperedges.size(); ++h) {
    const Hyperedge& hyperedge = instance.hyperedges[h];
    const std::uint64_t spread = std::min<std::uint64_t>(hyperedge.pins.size(), pes);
    const std::uint64_t cost = hyperedge.bytes;
    const bool product_fits = spread <= 1 || cost <= UINT64_MAX / (spread - 1);
    if (!product_fits || (spread > 1 && !cut.add(cost * (spread - 1)))) {
      return "hyperedges.bytes[" + std::to_string(h) +
             "]: the hyperedges' bytes times (PEs spanned - 1) add up to more than 2^64 - 1 "
             "(the largest hypergraph cut must fit in 64 bits)";
    }
  }
  return "";
}

}  // namespace vela::lb::io_detail
