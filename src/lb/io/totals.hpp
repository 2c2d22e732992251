// The sums the metrics take over an instance, kept in range: shared by the instance reader and
// writer and by the trace readers and writers (docs/instance-format.md, "Totals").
//
// A file whose every number is in range can still make the metrics meaningless: loads of 1e308
// add up to infinity, a subnormal speed turns a load into an infinite time, byte counts wrap
// past 2^64. The rules here keep every sum the metrics take finite (for any placement) or
// within 64 bits, so that λ, σ and the communication cut of a file that was read are numbers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vela/lb/model/instance.hpp"

namespace vela::lb::io_detail {

// What is wrong with the PEs' speeds ("" when nothing): every speed must be a normal positive
// number (a subnormal one makes load / speed overflow) and their sum finite.
std::string speeds_problem(const std::vector<Pe>& pes);

// Σ background + Σ load / (the slowest PE's speed): bounds every PE's time, and every sum of
// PE times, under any placement. The PEs must have passed speeds_problem.
class TimeTotal {
 public:
  explicit TimeTotal(const std::vector<Pe>& pes);

  // Adds one object's load; false once the total is no longer finite.
  bool add(double load) {
    loads_ += load;
    return finite();
  }
  bool finite() const;
  // "the total time ... is not finite ...", for a message.
  std::string problem() const;

 private:
  double background_ = 0.0;
  double slowest_ = 1.0;
  double loads_ = 0.0;
};

// A sum of 64-bit counts that remembers whether it went past 2^64 - 1.
class CountTotal {
 public:
  // Adds `n`; false once the sum no longer fits in 64 bits.
  bool add(std::uint64_t n) {
    if (n > UINT64_MAX - sum_) overflow_ = true;
    sum_ += n;
    return !overflow_;
  }
  bool fits() const { return !overflow_; }

 private:
  std::uint64_t sum_ = 0;
  bool overflow_ = false;
};

// What is wrong with the totals of a valid instance ("" when nothing), naming the element at
// which a sum goes out of range: the speeds (speeds_problem), the total time (TimeTotal), and
// the sums of edge bytes and messages, of object sizes (the bytes of migrating every object)
// and of hyperedge bytes times (pins − 1), which must fit in 64 bits.
std::string totals_problem(const Instance& instance);

}  // namespace vela::lb::io_detail
