// How well a load predictor foresees a trace: each step t + 1 is predicted from the steps
// up to t and compared with what the trace measured (rank correlation, and RMSE).
#pragma once

#include <cstddef>

#include "vela/lb/policy/policy.hpp"
#include "vela/lb/trace/trace.hpp"

namespace vela::lb {

// Errors over every predicted step. An object created in step t + 1 has no prediction and is
// left out of that step's comparison, per object and per PE alike; PE loads are those of the
// trace's own placement (background + work / speed).
struct PredictionErrors {
  std::size_t predictions = 0;           // steps predicted (the trace's steps)
  std::size_t compared = 0;              // (object, step) pairs compared
  double object_rmse = 0.0;              // seconds
  double object_relative_rmse = 0.0;     // object_rmse / mean measured object load
  double object_rank_correlation = 0.0;  // mean over steps with at least 2 objects
  double pe_rmse = 0.0;
  double pe_relative_rmse = 0.0;  // pe_rmse / mean measured PE load
  double pe_rank_correlation = 0.0;
  double max_pe_relative_error = 0.0;  // mean over steps of |predicted - measured| / measured
                                       // of the most loaded PE's load (what λ depends on)
};

// Feeds `predictor` the trace's initial instance and then every step, predicting each step from
// those before it. The predictor should be fresh.
PredictionErrors prediction_errors(Predictor& predictor, const Trace& trace);

}  // namespace vela::lb
