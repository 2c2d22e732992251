#!/usr/bin/env bash
# Installs what is missing, builds everything and runs every test.
#   scripts/test.sh                      the normal build (build/)
#   scripts/test.sh --sanitize address   ASan+UBSan build (build-asan/)
#   scripts/test.sh --sanitize thread    TSan build (build-tsan/)
set -euo pipefail
cd "$(dirname "$0")/.."

sanitize=""
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
    *) echo "test.sh: unknown argument '$1' (expected --sanitize address|thread)" >&2; exit 2 ;;
  esac
done

bash scripts/install-deps.sh

build=build
case "$sanitize" in
  "address;undefined") build=build-asan ;;
  thread) build=build-tsan ;;
esac

cmake -S . -B "$build" -G Ninja -DVELA_SANITIZE="$sanitize" \
  -DVELA_BUILD_BENCH="$([[ -z $sanitize ]] && echo ON || echo OFF)"
cmake --build "$build"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
