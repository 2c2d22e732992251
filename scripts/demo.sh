#!/usr/bin/env bash
# The main job: installs what is missing, builds the BRAMS proxy and runs the seed-000
# experiments on all local cores (apps/brams/experiments.py), and its Fortran twin's
# (apps/brams-fortran) beside it: virtualization, balancing
# strategies, interval x threshold and the automatic threshold, privatization; the tables in the
# seed's shapes, the results in out/brams/ (runs.csv, results.json, per-step logs), and the
# pictures in one page, out/brams/report.html (vela-lb report), whose path it prints last.
#   scripts/demo.sh [experiments.py options...]     e.g. --repeats 3, --steps 480, --tables 4.5
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
cmake -S . -B build -G Ninja
cmake --build build --target brams vela-lb brams_fortran_program

python3 apps/brams/experiments.py --binary build/apps/brams/brams --vela-lb build/tools/vela-lb/vela-lb \
  --fortran build/apps/brams-fortran --out out/brams --repeats 3 "$@"
