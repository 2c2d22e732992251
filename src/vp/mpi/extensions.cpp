// Vela's own calls beyond the MPI standard, AMPI's extensions under MPI_ names: the balancing
// point (MPI_Migrate, and MPI_Migrate_info with AMPI's hints), letting the other ranks of the PE
// run (MPI_Yield), an explicit move (MPI_Migrate_to_pe), what the balancer sees of the rank's
// load (MPI_Load_set_value, MPI_Load_stop_measure / start), migration callbacks, and where the
// rank runs (MPI_My_pe, MPI_My_node, MPI_Num_pes, MPI_Num_nodes).
//
// The callbacks: "about to migrate" runs at every balancing point before the rank may move (the
// balancer decides there), "just migrated" after the point when the rank's PE or process
// changed. Each call is O(1) but the balancing points, which are collective.
#include <cmath>
#include <cstring>
#include <optional>
#include <string>

#include "internal.hpp"

namespace vela::mpi::detail {
namespace {

// A call without arguments that hands the rank to vp's `what`.
int rank_call(const char* call, void (*what)()) {
  return guarded(call, [&](const Label& label) {
    active(call, label);
    what();
  });
}

}  // namespace

// A balancing point with the rank's callbacks around it.
void balancing_point(Objects& objects, vp::MigrateHint hint) {
  const MPI_MigrateFn about = objects.about_to_migrate;
  const MPI_MigrateFn just = objects.just_migrated;
  // The program's functions allocate from the rank's heap, as its own code does.
  if (about != nullptr) {
    const InRankHeap heap;
    about();
  }
  const int pe = vp::pe();
  const int process = vp::process();
  vp::migrate(hint);
  if (just != nullptr && (vp::pe() != pe || vp::process() != process)) {
    const InRankHeap heap;
    just();
  }
}

void after_world_collective(Objects& objects, MPI_Comm comm, vp::BalanceAt call) {
  if (comm != MPI_COMM_WORLD) return;
  const RunState* state = current_run.load(std::memory_order_acquire);
  if (state == nullptr || state->balance_at != call) return;
  if (++objects.balanced_calls % state->balance_every == 0) {
    balancing_point(objects, vp::MigrateHint::as_run);
  }
}

namespace {

// How `hints` ask this point to balance (AMPI's "ampi_load_balance": "sync" or "true" inline,
// "async" asynchronously, "false" not at all: no point, nullopt; none: as the run says).
std::optional<vp::MigrateHint> hint_of(const char* call, Objects& objects, MPI_Info hints) {
  if (hints == MPI_INFO_NULL) return vp::MigrateHint::as_run;
  const auto value = reinterpret_cast<std::uintptr_t>(hints);
  const Info* info = nullptr;
  if ((value & ~std::uintptr_t{VMPI_INDEX_MASK}) == VMPI_INFO_BASE)
    info = objects.infos.find(static_cast<int>(value & VMPI_INDEX_MASK));
  if (info == nullptr) {
    fail(call, MPI_ERR_INFO, "hints " + handle_text(hints) + " is not an info object of this rank");
  }
  for (const auto& [key, text] : info->entries) {
    if (key != "ampi_load_balance") continue;
    if (text == "sync" || text == "true") return vp::MigrateHint::inline_step;
    if (text == "async") return vp::MigrateHint::asynchronous;
    if (text == "false") return std::nullopt;
    fail(call, MPI_ERR_INFO,
         "hint ampi_load_balance=" + text + ": expected sync, async, true or false");
  }
  return vp::MigrateHint::as_run;
}

int where(const char* call, int (*what)()) {
  int answer = -1;
  guarded(call, [&](const Label& label) {
    active(call, label);
    answer = what();
  });
  return answer;
}

}  // namespace
}  // namespace vela::mpi::detail

using namespace vela;
using namespace vela::mpi::detail;

extern "C" {

int VPMPI_Migrate(void) {
  constexpr const char* call = "MPI_Migrate";
  return guarded(call, [&](const Label& label) {
    balancing_point(active(call, label), vp::MigrateHint::as_run);
  });
}

int VPMPI_Migrate_info(MPI_Info hints) {
  constexpr const char* call = "MPI_Migrate_info";
  return guarded(call, [&](const Label& label) {
    Objects& objects = active(call, label);
    if (const std::optional<vp::MigrateHint> hint = hint_of(call, objects, hints)) {
      balancing_point(objects, *hint);
    }
  });
}

int VPMPI_Yield(void) {
  return rank_call("MPI_Yield", vp::yield);
}

int VPMPI_Migrate_to_pe(int pe) {
  constexpr const char* call = "MPI_Migrate_to_pe";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    if (pe < 0 || pe >= vp::pes()) {
      fail(call, MPI_ERR_ARG,
           "pe " + std::to_string(pe) + " is outside 0.." + std::to_string(vp::pes() - 1) +
               " (MPI_Num_pes)");
    }
    vp::move_to(pe);
  });
}

int VPMPI_Load_set_value(double value) {
  constexpr const char* call = "MPI_Load_set_value";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    if (!std::isfinite(value) || value < 0.0) {
      fail(call, MPI_ERR_ARG,
           "value " + std::to_string(value) + " is not a load (seconds, finite, not negative)");
    }
    vp::set_load(value);
  });
}

int VPMPI_Load_stop_measure(void) {
  constexpr const char* call = "MPI_Load_stop_measure";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    vp::set_measured(false);
  });
}

int VPMPI_Load_start_measure(void) {
  constexpr const char* call = "MPI_Load_start_measure";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    vp::set_measured(true);
  });
}

int VPMPI_Register_about_to_migrate(MPI_MigrateFn fn) {
  constexpr const char* call = "MPI_Register_about_to_migrate";
  return guarded(call, [&](const Label& label) { active(call, label).about_to_migrate = fn; });
}

int VPMPI_Register_just_migrated(MPI_MigrateFn fn) {
  constexpr const char* call = "MPI_Register_just_migrated";
  return guarded(call, [&](const Label& label) { active(call, label).just_migrated = fn; });
}

// These return the answer itself (AMPI's), -1 when called outside a rank between MPI_Init and
// MPI_Finalize (after the error handler ran).
int VPMPI_My_pe(void) {
  return where("MPI_My_pe", vp::pe);
}

int VPMPI_My_node(void) {
  return where("MPI_My_node", vp::process);
}

int VPMPI_Num_pes(void) {
  return where("MPI_Num_pes", vp::pes);
}

int VPMPI_Num_nodes(void) {
  return where("MPI_Num_nodes", vp::processes);
}

}  // extern "C"

// The MPI names, weak aliases of the profiling names (a tool's own MPI_x takes their place).
VMPI_PROFILED(Migrate);
VMPI_PROFILED(Migrate_info);
VMPI_PROFILED(Yield);
VMPI_PROFILED(Migrate_to_pe);
VMPI_PROFILED(Load_set_value);
VMPI_PROFILED(Load_start_measure);
VMPI_PROFILED(Load_stop_measure);
VMPI_PROFILED(Register_about_to_migrate);
VMPI_PROFILED(Register_just_migrated);
VMPI_PROFILED(My_pe);
VMPI_PROFILED(My_node);
VMPI_PROFILED(Num_pes);
VMPI_PROFILED(Num_nodes);
