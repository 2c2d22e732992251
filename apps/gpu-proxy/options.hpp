// The GPU proxy's own options, in one table read by both sides: main.cpp registers them with
// CLI11 (--help, checks) and model.cpp, the MPI program, parses the same names from its argv
// (it must, to run as a plain Open MPI program too).
#pragma once

#include "numerics.hpp"

namespace gpu_proxy {

struct IntOption {
  const char* name;
  const char* help;
  int fallback, min, max;
};
inline constexpr IntOption int_options[] = {
    {"--nx", "Columns along x", 64, 1, 1 << 20},
    {"--ny", "Columns along y", 64, 1, 1 << 20},
    {"--nz", "Levels per column", 40, 1, 4096},
    {"--fields", "Fields (3-D arrays) updated by the Jacobi and the column physics", 8, 1,
     max_fields},
    {"--steps", "Time steps", 40, 1, 1 << 30},
    {"--lb-every",
     "Steps between MPI_Migrate() calls (0: never); the runtime's --lb or --lb-policy decides "
     "what happens there",
     10, 0, 1 << 30},
    {"--measure-steps",
     "With --launch measured: how many steps before each MPI_Migrate() run their kernels "
     "synchronously, so that their time is measured",
     2, 0, 1 << 30},
    {"--physics-work", "Newton steps per level and pass of the column physics", 8, 1, 1 << 20},
};

struct ChoiceOption {
  const char* name;
  const char* help;
  const char* values[3];  // the first is the default
  int count;
};
inline constexpr ChoiceOption choice_options[] = {
    {"--backend",
     "Where the kernels run: cpu (inline in the rank) or cuda (a CUDA device)",
     {"cpu", "cuda", nullptr},
     2},
    {"--load",
     "The heavy region (two physics passes per column): moving (a quarter of the domain "
     "crossing it diagonally over the run), fixed (the left half of the columns) or none",
     {"moving", "fixed", "none"},
     3},
    {"--launch",
     "How steps wait for their kernels: measured (synchronously in the --measure-steps steps "
     "before each MPI_Migrate(), else asynchronously, yielding), sync (always) or async "
     "(always)",
     {"measured", "sync", "async"},
     3},
};

inline constexpr const char* step_log_option = "--step-log";
inline constexpr const char* step_log_help =
    "Write rank 0's time per step (CSV: step,seconds,mode,migrate_seconds) to FILE";

}  // namespace gpu_proxy
