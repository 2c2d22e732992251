/* Builds Vela's plain-MPI programs (apps/brams/model.cpp) with AMPI's ampicxx, for side-by-side
 * runs (bench/ampi_recovery.py): Vela's balancing point MPI_Migrate() becomes AMPI_Migrate, which
 * at every VELA_AMPI_CHECKPOINT_EVERY-th call (an environment variable; 0 or unset: never) also
 * checkpoints, to the directory VELA_AMPI_CHECKPOINT names or, when it says in_memory, into a
 * buddy process's memory (a Charm++ build with syncft). Force-included: ampicxx -include FILE.
 * Its state is one counter, the same on every rank (every rank calls MPI_Migrate at the same
 * steps), thread-local so that AMPI's -tlsglobals makes it each rank's own (a counter shared by
 * the ranks of a process would checkpoint some ranks and not others: a hang). */
#ifndef VELA_BENCH_AMPI_MIGRATE_SHIM_H
#define VELA_BENCH_AMPI_MIGRATE_SHIM_H
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static __thread long vela_shim_calls = 0;

static inline void vela_shim_migrate(void) {
  const char* where = getenv("VELA_AMPI_CHECKPOINT");
  const char* every_text = getenv("VELA_AMPI_CHECKPOINT_EVERY");
  const long every = every_text != NULL ? atol(every_text) : 0;
  ++vela_shim_calls;
  if (where != NULL && every > 0 && vela_shim_calls % every == 0) {
    MPI_Info info;
    MPI_Info_create(&info);
    char value[4096];
    if (strcmp(where, "in_memory") == 0) {
      snprintf(value, sizeof value, "in_memory");
    } else {
      snprintf(value, sizeof value, "to_file=%s", where);
    }
    MPI_Info_set(info, "ampi_checkpoint", value);
    AMPI_Migrate(info);
    MPI_Info_free(&info);
    return;
  }
  AMPI_Migrate(AMPI_INFO_LB_SYNC);
}
#define MPI_Migrate() vela_shim_migrate()
#endif
