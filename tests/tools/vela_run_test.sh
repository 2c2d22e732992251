#!/usr/bin/env bash
# vela-run (tools/vela-run): bad command lines are refused with status 2 naming what is wrong;
# a job's own failure is returned at once, not relaunched; a job that loses a process is
# relaunched from its last checkpoint and ends with the uninterrupted checksum, for a process
# killed (kill -9) and for one stopped (SIGSTOP, caught by the runtime's --peer-timeout or by
# vela-run's --stall), for the objects of
# Jacobi2D and the ranks of the BRAMS proxy (bench/relaunch.py, 2 processes); with no relaunch
# left it gives up with the job's status; the job runs with mpirun's SIGTERM-to-SIGKILL wait at 0.
#   tests/tools/vela_run_test.sh BUILD_DIR
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=$1
run=$build/bin/vela-run
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failures=0
if [[ $(id -u) -eq 0 ]]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

# shellcheck source=../support/expect.sh
source "$repo/tests/support/expect.sh"

expect 2 "no command" "$run"
expect 2 "no command after --" "$run" --
expect 2 "--retries 'x': expected an integer" "$run" --retries x -- true
expect 2 "--stall '0': expected seconds > 0" "$run" --stall 0 -- true
expect 2 "unknown option '--bogus'" "$run" --bogus -- true
expect 2 "the command has no --checkpoint DIR" "$run" -- true
expect 2 "cannot start 'no-such-program'" "$run" -- no-such-program --checkpoint "$scratch/c"
expect 0 "relaunch" "$run" --help
# The job's own failure (a bad option: status 1) is not relaunched.
out=$("$run" -- "$build/apps/brams/brams" --bogus --checkpoint "$scratch/c" --checkpoint-every 2 2>&1)
status=$?
if [[ $status -ne 1 || $out == *"relaunch"* ]]; then
  echo "FAIL: a bad option: status $status (expected 1, no relaunch): $out"
  failures=$((failures + 1))
fi
# A job killed by a signal with no relaunch left: the status says so, and vela-run gives up.
expect 137 "0 relaunch(es) were used; giving up" "$run" --retries 0 -- bash -c 'kill -9 $$' \
  --checkpoint "$scratch/c"
# The job runs with mpirun's wait between SIGTERM and SIGKILL at 0 (a lost process's survivors
# end at once), unless the environment sets it.
expect 0 "wait=0." "$run" -- bash -c 'echo "wait=$OMPI_MCA_odls_base_sigkill_timeout."' \
  --checkpoint "$scratch/c"
expect 0 "wait=3." env OMPI_MCA_odls_base_sigkill_timeout=3 "$run" -- \
  bash -c 'echo "wait=$OMPI_MCA_odls_base_sigkill_timeout."' --checkpoint "$scratch/c"
# Lost processes, relaunched: every trial ends with the uninterrupted checksum.
if ! out=$(python3 "$repo/bench/relaunch.py" --build "$build" --trials 2 2>&1); then
  echo "FAIL: bench/relaunch.py --trials 2: $out"
  failures=$((failures + 1))
fi
for found in peer-timeout stall; do
  if ! out=$(python3 "$repo/bench/relaunch.py" --build "$build" --trials 1 --stop --found-by $found 2>&1); then
    echo "FAIL: bench/relaunch.py --trials 1 --stop --found-by $found: $out"
    failures=$((failures + 1))
  fi
done
# The runtime's --peer-timeout: a process stopped (SIGSTOP) ends the job within seconds, status
# 143, naming the process; a process whose every PE computes for seconds (here about 6, three
# timeouts) without polling is not taken for a silent one.
jacobi=$build/apps/jacobi2d/jacobi2d
mpirun -np 2 "$jacobi" --mesh 512 --objects 8 --steps 100000 --sync-every 10 --no-pin \
  --peer-timeout 2 >"$scratch/stopped.txt" 2>&1 &
job=$!
victim=""
for _ in $(seq 100); do
  victim=$(pgrep -P "$job" | head -1)
  [[ -n $victim ]] && break
  sleep 0.05
done
sleep 1
[[ -n $victim ]] && kill -STOP "$victim"
started=$SECONDS
wait "$job"
status=$?
if [[ $status -ne 143 || $((SECONDS - started)) -gt 20 ]] ||
  ! grep -q "has not answered for .* (--peer-timeout 2: stopped, hung" "$scratch/stopped.txt"; then
  echo "FAIL: a stopped process: status $status after $((SECONDS - started)) s: $(cat "$scratch/stopped.txt")"
  failures=$((failures + 1))
fi
[[ -n $victim ]] && kill -KILL "$victim" 2>/dev/null
out=$(mpirun -np 2 --bind-to core "$jacobi" --mesh 2048 --objects 2 --heavy 6000 --steps 1 \
  --sync-every 0 --pes-per-process 1 --peer-timeout 2 2>&1)
if [[ $? -ne 0 || $out != *"checksum: "* || $out == *"has not answered"* ]]; then
  echo "FAIL: PEs computing without polling were taken for silent: $out"
  failures=$((failures + 1))
fi

[[ $failures -eq 0 ]] && echo "all passed"
exit $((failures > 0))
