#!/usr/bin/env bash
# The GPU proxy's time per step: every step synchronous and every step asynchronous, on the CPU
# back end and, when a CUDA device answers, the CUDA one; the best of REPEATS runs of STEPS
# steps of the default grid with 4 ranks per PE, and each row's ratio to cpu sync in the same
# run (on the CPU back end the two modes are the same work: a gap is a regression in yield).
#   bench/gpu_proxy_steps.sh [PES] [STEPS] [REPEATS]      defaults: all cores, 10, 3
set -euo pipefail
cd "$(dirname "$0")/.."
pes=${1:-$(nproc)}
steps=${2:-10}
repeats=${3:-3}
bin=build/apps/gpu-proxy/gpu-proxy
[[ -x $bin ]] || { echo "gpu_proxy_steps.sh: build first (cmake --build build --target gpu-proxy)" >&2; exit 2; }

source bench/best_step.sh

backends=(cpu)
if "$bin" --backend cuda --ranks 1 --pes 1 --steps 1 --nx 4 --ny 4 --nz 2 --no-pin >/dev/null 2>&1; then
  backends+=(cuda)
fi
echo "GPU proxy, default grid, $steps steps, $pes PEs, $((4 * pes)) ranks, best of $repeats"
printf '| %-7s | %-6s | %12s | %11s |\n' "backend" "launch" "ms per step" "vs cpu sync"
printf '|---|---|---:|---:|\n'
base=""
for backend in "${backends[@]}"; do
  for launch in sync async; do
    s=$(best_step "$bin" "$repeats" --pes "$pes" --no-pin --steps "$steps" --lb-every 0 \
      --ranks $((4 * pes)) --load none --backend "$backend" --launch "$launch")
    [[ -z $base ]] && base=$s
    awk -v b2="$backend" -v l="$launch" -v s="$s" -v b="$base" \
      'BEGIN { printf "| %-7s | %-6s | %12.3f | %11.2f |\n", b2, l, 1000 * s, s / b }'
  done
done
[[ ${#backends[@]} -gt 1 ]] || echo "(no CUDA device answered: the cuda rows are left out)"
