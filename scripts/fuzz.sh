#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, clang with ASan+UBSan, build-fuzz/) and runs each over its
# corpus: the seeds in fuzz/corpus/<target>/ (inputs the fuzzer found that reach the readers'
# rejections; for elf_image_reader, small real program images) and what the toolkit's
# generators make, written again for every run to build-fuzz/corpus/<target>/
# (fuzz/make_corpus.cpp, and the vt test fixtures). New inputs found go to a scratch directory,
# not the repository.
#   scripts/fuzz.sh                   each target for 20 s (CI gives each 15 s)
#   scripts/fuzz.sh --runs N          each target for N executions (docs/results/reliability.md)
#   scripts/fuzz.sh --seconds S       each target for S seconds
#   scripts/fuzz.sh --target NAME     one target only (instance_reader, trace_reader, vt_reader,
#                                     params, elf_image_reader, report_inputs)
# A crash, a sanitizer report, a leak or an input that takes over 10 s fails the run; the input
# that did it is left in out/fuzz/ to reproduce with build-fuzz/fuzz/fuzz_<target> FILE.
set -euo pipefail
cd "$(dirname "$0")/.."

limit=(-max_total_time=20)
only=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs|--seconds|--target)
      [[ $# -ge 2 ]] || { echo "fuzz.sh: $1 needs a value" >&2; exit 2; }
      case "$1" in
        --runs)
          [[ "$2" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: --runs '$2': expected a positive integer" >&2; exit 2; }
          limit=(-runs="$2") ;;
        --seconds)
          [[ "$2" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: --seconds '$2': expected a positive integer" >&2; exit 2; }
          limit=(-max_total_time="$2") ;;
        --target) only="$2" ;;
      esac
      shift 2 ;;
    *) echo "fuzz.sh: unknown argument '$1' (expected --runs N, --seconds S, --target NAME)" >&2; exit 2 ;;
  esac
done

targets=(instance_reader trace_reader vt_reader params elf_image_reader report_inputs)
if [[ -n $only ]]; then
  [[ " ${targets[*]} " == *" $only "* ]] || { echo "fuzz.sh: --target '$only': expected one of ${targets[*]}" >&2; exit 2; }
  targets=("$only")
fi

bash scripts/install-deps.sh
cmake -S . -B build-fuzz -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVELA_FUZZ=ON
cmake --build build-fuzz

# The generated corpus: valid files of every kind each reader takes, made by the toolkit itself.
generated=build-fuzz/corpus
build-fuzz/fuzz/make_corpus "$generated"
cp tests/lb/fixtures/vt/data.*.json "$generated"/vt_reader/
# The report reads every kind the toolkit writes: the instances and traces made above, as JSON.
mkdir -p "$generated"/report_inputs
cp "$generated"/instance_reader/* "$generated"/report_inputs/ 2>/dev/null || true

mkdir -p out/fuzz
for t in "${targets[@]}"; do
  scratch=$(mktemp -d)
  echo "fuzz.sh: $t"
  # The seeds and the generated corpus are read only; what the run adds goes to the scratch
  # directory (libFuzzer writes to the first directory it is given).
  status=0
  build-fuzz/fuzz/fuzz_"$t" "${limit[@]}" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix=out/fuzz/"$t"- "$scratch" fuzz/corpus/"$t" "$generated/$t" \
    > out/fuzz/"$t".log 2>&1 || status=$?
  grep -E "^(Done|stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb)|ERROR|SUMMARY|Test unit written" \
    out/fuzz/"$t".log || true
  rm -rf "$scratch"
  if [[ $status -ne 0 ]]; then
    tail -40 out/fuzz/"$t".log >&2
    echo "fuzz.sh: $t failed (status $status); the input is in out/fuzz/, the log in out/fuzz/$t.log" >&2
    exit 1
  fi
done
