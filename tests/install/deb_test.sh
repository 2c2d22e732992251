#!/usr/bin/env bash
# The Debian package: `cpack -G DEB` from the build tree, then its control fields and contents.
# Depends must name the -dev packages a program built against Vela needs (the libraries are
# static), each a package this machine knows; the files must sit under /usr; the wrapper in
# the unpacked tree must use that tree; the licence must be /usr/share/doc/vela/copyright.
# Arguments: build dir, cpack.
set -euo pipefail

build=$1
cpack=$2

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
  echo "deb_test: $*" >&2
  exit 1
}

"$cpack" -G DEB --config "$build/CPackConfig.cmake" -B "$work" >"$work/cpack.log" || {
  cat "$work/cpack.log"
  fail "cpack -G DEB failed"
}
debs=("$work"/*.deb)
[[ ${#debs[@]} == 1 && -f ${debs[0]} ]] || fail "expected one .deb in $work"
deb=${debs[0]}

[[ $(dpkg-deb -f "$deb" Package) == vela ]] || fail "the package is not named vela"
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
for needed in libmetis-dev libscotch-dev libglpk-dev libtrilinos-zoltan-dev libopenmpi-dev \
  libhwloc-dev libbrotli-dev libboost-context-dev libfmt-dev nlohmann-json3-dev libcli11-dev; do
  grep -qE "(^|, )$needed( |,|$)" <<<"$depends" || fail "Depends lacks $needed"
done
# Every package named is one Debian has (installed here, where the project was built).
IFS=',' read -ra entries <<<"$depends"
for entry in "${entries[@]}"; do
  package=$(awk '{ print $1 }' <<<"$entry")
  dpkg-query -W "$package" >/dev/null 2>&1 || fail "Depends names $package, not installed here"
done

contents=$(dpkg-deb -c "$deb" | awk '{ print $6 }')
for f in ./usr/bin/vela-lb ./usr/bin/vela-mpicc ./usr/bin/vela-mpicxx ./usr/lib/libvela_lb.a \
  ./usr/lib/libvela_rt.a ./usr/lib/libvela_mpi_main.a ./usr/lib/cmake/Vela/VelaConfig.cmake \
  ./usr/lib/cmake/Vela/VelaTargets.cmake ./usr/lib/pkgconfig/vela-rt.pc \
  ./usr/include/vela/lb/strategies/registry.hpp ./usr/include/vela/mpi/compat/mpi.h \
  ./usr/share/doc/vela/copyright ./usr/share/doc/vela/LICENSE; do
  grep -qxF "$f" <<<"$contents" || fail "the package lacks $f"
done

dpkg-deb -x "$deb" "$work/root"
# The licence where Debian keeps it: the MIT licence of the Vela developers.
grep -qF "Copyright (c) 2026 The Vela developers" "$work/root/usr/share/doc/vela/copyright" &&
  grep -qF "Permission is hereby granted, free of charge" "$work/root/usr/share/doc/vela/copyright" ||
  fail "/usr/share/doc/vela/copyright is not the MIT licence of the Vela developers"
"$work/root/usr/bin/vela-mpicc" --showme hello.c | grep -qF "$work/root/usr/lib/libvela_mpi.a" ||
  fail "the packaged vela-mpicc does not use the tree it lies in"
echo "deb_test: passed"
