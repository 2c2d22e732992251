#!/usr/bin/env bash
# Installs what is missing, builds vela-lb, generates a BRAMS-like storm instance and compares
# every strategy on it.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
cmake -S . -B build -G Ninja
cmake --build build --target vela-lb

mkdir -p out
./build/tools/vela-lb/vela-lb generate brams -o out/storm.json
./build/tools/vela-lb/vela-lb compare out/storm.json
