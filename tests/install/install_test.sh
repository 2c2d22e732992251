#!/usr/bin/env bash
# The installed package used from outside the tree: `cmake --install` into a temporary prefix
# (then moved, so nothing may depend on where it was installed), examples/ configured with
# find_package(Vela) and built against it, its two programs run and their output checked, a
# pkg-config compile, an MPI program built with the installed vela-mpicc, and the licence.
# Arguments: build dir, source dir, cmake, generator, C++ compiler [, compiler launcher].
set -euo pipefail

build=$1
source=$2
cmake=$3
generator=$4
cxx=$5
launcher=${6:-}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
  echo "install_test: $*" >&2
  exit 1
}

"$cmake" --install "$build" --prefix "$work/staged" >"$work/install.log"
mv "$work/staged" "$work/prefix"
prefix=$work/prefix

for f in bin/vela-lb bin/vela-mpicc bin/vela-mpicxx share/vela/vela_report.py include/vela/lb/strategies/registry.hpp \
  include/vela/rt/runtime.hpp include/vela/mpi/compat/mpi.h lib/cmake/Vela/VelaConfig.cmake \
  lib/cmake/Vela/VelaConfigVersion.cmake lib/cmake/Vela/modules/FindZoltan.cmake \
  share/doc/vela/LICENSE; do
  [[ -e $prefix/$f ]] || fail "not installed: $f"
done
# The licence as installed is the repository's LICENSE; its Debian name is the package's only.
cmp -s "$source/LICENSE" "$prefix/share/doc/vela/LICENSE" || fail "share/doc/vela/LICENSE is not LICENSE"
[[ ! -e $prefix/share/doc/vela/copyright ]] || fail "cmake --install installed the Debian copyright file"
for library in pup lb rt vp mpi vp_heap mpi_main; do
  [[ -e $prefix/lib/libvela_$library.a ]] || fail "not installed: lib/libvela_$library.a"
done
for pc in vela-pup vela-lb vela-rt vela-vp vela-mpi vela-mpi-main; do
  [[ -e $prefix/lib/pkgconfig/$pc.pc ]] || fail "not installed: lib/pkgconfig/$pc.pc"
done
# The installed text files name neither the build tree nor the sources.
if grep -rlF -e "$build" -e "$source" "$prefix/bin/vela-mpicc" "$prefix/bin/vela-mpicxx" \
  "$prefix/lib/cmake" "$prefix/lib/pkgconfig"; then
  fail "installed files above refer to the build or source tree"
fi

# The installed vela-lb finds its plotting tool in share/vela (not beside itself, as in the
# build tree), unless matplotlib is missing, which it names.
"$prefix/bin/vela-lb" generate gamma --objects 200 --pes 4 -o "$work/g.json" >/dev/null ||
  fail "the installed vela-lb cannot generate an instance"
if ! "$prefix/bin/vela-lb" report "$work/g.json" --strategy greedy -o "$work/report.html" \
  >"$work/report.log" 2>&1; then
  grep -qF python3-matplotlib "$work/report.log" || fail "the installed vela-lb report failed: $(cat "$work/report.log")"
  echo "install_test: matplotlib missing, the installed report not drawn"
else
  grep -qF "<svg" "$work/report.html" || fail "the installed vela-lb report drew no picture"
fi

# ---- examples/ against the installed package ----
launcher_option=()
[[ -n $launcher ]] && launcher_option=("-DCMAKE_CXX_COMPILER_LAUNCHER=$launcher")
"$cmake" -S "$source/examples" -B "$work/examples" -G "$generator" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_PREFIX_PATH="$prefix" "${launcher_option[@]}" \
  >"$work/configure.log" || {
  cat "$work/configure.log"
  fail "examples/ did not configure against the installed package"
}
"$cmake" --build "$work/examples" -j2 >"$work/build.log" || {
  cat "$work/build.log"
  fail "examples/ did not build against the installed package"
}

# The custom strategy, run through the registry by name: it improves the balance, reports its
# own statistic (rounds = ceil(1000 / 16)), and places the heaviest objects in snake order.
out=$("$work/examples/custom_strategy")
echo "$out"
read -r name before after migrations rounds <<<"$(grep '^snake ' <<<"$out")"
[[ $name == snake ]] || fail "no result line for the strategy snake"
awk -v b="$before" -v a="$after" 'BEGIN { exit !(a < b && a < 0.05) }' ||
  fail "snake left lambda at $after (before: $before)"
[[ $rounds == 63 ]] || fail "snake's rounds statistic is $rounds, not 63"
((migrations > 0)) || fail "snake moved nothing"
expected="snake PEs of the heaviest objects: $(seq -s ' ' 0 15) $(seq -s ' ' 15 -1 0)"
grep -qxF "$expected" <<<"$out" || fail "snake's placement is not the snake order"
grep -q '^greedy ' <<<"$out" || fail "the built-in greedy is no longer found by name"

# The ring on the runtime, balanced by --lb snake: every element ends where snake puts it and
# no token is lost; without balancing, fewer do (the block placement differs).
# Snake follows the measured CPU loads (element i works i + 1 ms); a host that takes the VM's
# CPU away for milliseconds can reorder two of them, so one such run is repeated, and a second
# misplacement fails with the loads the balancer saw.
for attempt in 1 2; do
  rm -rf "$work/ring-dump"
  out=$("$work/examples/ring" --pes 3 --no-pin --lb snake --lb-dump "$work/ring-dump")
  echo "$out"
  grep -qxF "ring: 12 elements on 3 PEs, 3 steps, strategy snake" <<<"$out" || fail "ring header"
  grep -qxF "tokens received: 36 of 36" <<<"$out" || fail "ring lost or duplicated tokens"
  grep -qxF "elements on snake's PE: 12 of 12" <<<"$out" && break
  if ((attempt == 2)); then
    grep -h '"load"' "$work"/ring-dump/*.json >&2 || true
    fail "--lb snake did not place the ring (measured loads above, one line per step)"
  fi
  echo "install_test: the ring was misplaced; running it again" >&2
done
migrated=$(sed -n 's/^balancing steps: [0-9]*, migrations: \([0-9]*\)$/\1/p' <<<"$out")
((migrated > 0)) || fail "--lb snake moved no element"
out=$("$work/examples/ring" --pes 3 --no-pin)
grep -qxF "elements on snake's PE: 5 of 12" <<<"$out" ||
  fail "without balancing the ring should keep its block placement: $out"
if "$work/examples/ring" --lb snak >"$work/err.log" 2>&1; then fail "--lb snak was accepted"; fi
grep -q "snake" "$work/err.log" || fail "the error for --lb snak does not list snake"

# ---- pkg-config ----
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
for pc in vela-pup vela-lb vela-rt vela-vp vela-mpi vela-mpi-main; do
  pkg-config --exists --print-errors "$pc" || fail "pkg-config cannot resolve $pc"
done
cat >"$work/pc.cpp" <<'CPP'
#include <cstdio>
#include <memory>

#include "vela/lb/strategies/registry.hpp"

int main() {
  vela::lb::Instance instance;
  instance.pes.resize(2);
  for (int i = 0; i < 4; ++i) instance.objects.push_back({i, 1.0 + i, 0, {}, 0, true});
  auto solution = vela::lb::make_strategy("greedy")->solve(instance);
  int on_pe1 = 0;
  for (auto pe : solution.assignment.pe) on_pe1 += pe == 1;
  std::printf("on pe 1: %d\n", on_pe1);
}
CPP
# shellcheck disable=SC2046
"$cxx" -std=c++20 "$work/pc.cpp" -o "$work/pc" $(pkg-config --cflags --libs vela-lb) ||
  fail "a pkg-config compile against vela-lb failed"
[[ $("$work/pc") == "on pe 1: 2" ]] || fail "the pkg-config program gave $("$work/pc")"

# ---- the installed MPI wrapper ----
cat >"$work/hello.c" <<'C'
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank = 0, size = 0, sum = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("ranks %d sum %d\n", size, sum);
  MPI_Finalize();
  return 0;
}
C
"$prefix/bin/vela-mpicc" --showme "$work/hello.c" -o "$work/hello" | grep -qF "$prefix/lib/libvela_mpi.a" ||
  fail "vela-mpicc does not link the installed libraries"
"$prefix/bin/vela-mpicc" "$work/hello.c" -o "$work/hello" || fail "vela-mpicc failed"
[[ $("$work/hello" --vp 4 --pes 2 --no-pin) == "ranks 4 sum 6" ]] ||
  fail "the MPI program built by the installed vela-mpicc gave $("$work/hello" --vp 4 --pes 2 --no-pin)"
echo "install_test: passed"
