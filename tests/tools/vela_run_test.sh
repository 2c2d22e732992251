#!/usr/bin/env bash
# vela-run (tools/vela-run): bad command lines are refused with status 2 naming what is wrong;
# a job's own failure is returned at once, not relaunched; a job that loses a process is
# relaunched from its last checkpoint and ends with the uninterrupted checksum, for a process
# killed (kill -9) and for one stopped (SIGSTOP, caught by --stall), for the objects of
# Jacobi2D and the ranks of the BRAMS proxy (bench/relaunch.py, 2 processes); with no relaunch
# left it gives up with the job's status.
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

expect() { # status text command...
  local want=$1 text=$2; shift 2
  local out status
  out=$("$@" 2>&1)
  status=$?
  if [[ $status -ne $want || $out != *"$text"* ]]; then
    echo "FAIL: $* -> status $status (expected $want), output: $out (expected to contain: $text)"
    failures=$((failures + 1))
  fi
}

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
# Lost processes, relaunched: every trial ends with the uninterrupted checksum.
if ! out=$(python3 "$repo/bench/relaunch.py" --build "$build" --trials 2 2>&1); then
  echo "FAIL: bench/relaunch.py --trials 2: $out"
  failures=$((failures + 1))
fi
if ! out=$(python3 "$repo/bench/relaunch.py" --build "$build" --trials 1 --stop 2>&1); then
  echo "FAIL: bench/relaunch.py --trials 1 --stop: $out"
  failures=$((failures + 1))
fi

[[ $failures -eq 0 ]] && echo "all passed"
exit $((failures > 0))
