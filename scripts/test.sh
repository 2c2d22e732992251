#!/usr/bin/env bash
# Installs what is missing, builds everything and runs every test.
#   scripts/test.sh                      the normal build (build/, Release)
#   scripts/test.sh --sanitize address   ASan+UBSan build (build-asan/)
#   scripts/test.sh --sanitize thread    TSan build (build-tsan/)
#   scripts/test.sh --long               also the long tests (the 10^7-message soak)
#   scripts/test.sh --sanitize address --core
#                                        only the runtime core's tests (messaging, migration,
#                                        runtime, inbox, serialization): what CI runs under ASan
set -euo pipefail
cd "$(dirname "$0")/.."

sanitize=""
core=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --sanitize)
      [[ $# -ge 2 ]] || { echo "test.sh: --sanitize needs 'address' or 'thread'" >&2; exit 2; }
      case "$2" in
        address) sanitize="address;undefined" ;;
        thread) sanitize="thread" ;;
        *) echo "test.sh: --sanitize '$2': expected 'address' or 'thread'" >&2; exit 2 ;;
      esac
      shift 2 ;;
    --core) core=1; shift ;;
    --long) export VELA_LONG=1; shift ;;
    *) echo "test.sh: unknown argument '$1' (expected --sanitize address|thread, --core, --long)" >&2; exit 2 ;;
  esac
done

bash scripts/install-deps.sh

build=build
case "$sanitize" in
  "address;undefined") build=build-asan ;;
  thread) build=build-tsan ;;
esac

# The normal build is Release (what users build for speed, -O3), sanitizer builds keep their
# debug information for the reports; warnings are errors in both.
build_type=Release
[[ -z $sanitize ]] || build_type=RelWithDebInfo
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE="$build_type" -DVELA_WERROR=ON \
  -DVELA_SANITIZE="$sanitize" -DVELA_BUILD_BENCH="$([[ -z $sanitize ]] && echo ON || echo OFF)"
if [[ $core -eq 1 ]]; then
  # The message-driven core, where a memory or threading error would hide: a few minutes to
  # build and run, where the whole suite under a sanitizer takes most of an hour on 2 cores.
  core_tests=(inbox_test messaging_test migration_test lb_async_test dynamic_test runtime_test pup_test trace_test checkpoint_test shm_ring_test wire_header_test)
  cmake --build "$build" --target "${core_tests[@]}" distributed_test
  for t in "${core_tests[@]}"; do
    echo "test.sh: $build/tests/$t"
    "$build/tests/$t" --gtest_brief=1
  done
  # The transport between processes (shared-memory rings, MPI), under mpirun in every layout.
  echo "test.sh: $build/tests/distributed_test under mpirun"
  ctest --test-dir "$build" -R '^distributed_test_np' --output-on-failure
  exit 0
fi
cmake --build "$build"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
