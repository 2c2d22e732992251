#!/usr/bin/env bash
# Fetches the upstream sources of Debian source packages (real MPI programs for
# scripts/real-codes.py: hpcc, netpipe, hypre, ...) and unpacks each into DIR/PACKAGE.
#
#   scripts/fetch-sources.sh DIR PACKAGE...
#
# The package archive is the machine's own: a deb-src entry is derived from its Debian sources
# (/etc/apt/sources.list.d/*.sources in deb822 form, or /etc/apt/sources.list) and used through
# a private apt configuration under DIR/.apt, so the machine's apt setup is left as it is. Only
# the upstream tarball (PACKAGE_VERSION.orig.tar.*) is unpacked, without Debian's patches: the
# program as its authors publish it.
#
# Exit status: 0 when every package was fetched and unpacked (one already in DIR/PACKAGE is
# kept); 2 on a usage error; 3 when the archive cannot be reached or a package is not in it
# (the message says which), which callers may treat as "skip".
set -euo pipefail
me=fetch-sources

[[ $# -ge 2 ]] || { echo "$me: usage: $me DIR PACKAGE..." >&2; exit 2; }
dir=$1
shift
for p in "$@"; do
  [[ $p =~ ^[a-z0-9][a-z0-9.+-]*$ ]] || { echo "$me: '$p': not a Debian package name" >&2; exit 2; }
done
mkdir -p "$dir" || { echo "$me: $dir: cannot create it" >&2; exit 2; }
dir=$(cd "$dir" && pwd)
command -v apt-get > /dev/null || { echo "$me: apt-get not found (a Debian machine is needed)" >&2; exit 3; }

apt=$dir/.apt
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"

# The deb-src entries: the machine's deb entries with their type changed.
sources=""
for f in /etc/apt/sources.list.d/*.sources; do
  [[ -f $f ]] || continue
  sources+=$(sed -E 's/^Types:.*\bdeb\b.*$/Types: deb-src/' "$f")$'\n\n'
done
if [[ -n $sources ]]; then
  printf '%s' "$sources" > "$apt/vela.sources"
  list=$apt/vela.sources
else
  [[ -f /etc/apt/sources.list ]] || { echo "$me: no Debian sources on this machine (/etc/apt/sources.list.d/*.sources, /etc/apt/sources.list)" >&2; exit 3; }
  sed -n -E 's/^deb (.*)$/deb-src \1/p' /etc/apt/sources.list > "$apt/vela.list"
  list=$apt/vela.list
fi
options=(-o "Dir::Etc::SourceList=$list" -o "Dir::Etc::SourceParts=-"
  -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache"
  -o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache=" -o "Debug::NoLocking=1"
  -o "APT::Sandbox::User=$(id -un)")

missing=()
for p in "$@"; do [[ -d $dir/$p ]] || missing+=("$p"); done
[[ ${#missing[@]} -gt 0 ]] || { echo "$me: ${*} already in $dir"; exit 0; }

if ! apt-get "${options[@]}" -qq update > "$apt/update.log" 2>&1; then
  echo "$me: apt-get update failed (no network to the package archive?): $(grep -m1 -E '^(E|W):' "$apt/update.log")" >&2
  exit 3
fi
for p in "${missing[@]}"; do
  rm -rf "$dir/.download" && mkdir -p "$dir/.download"
  if ! (cd "$dir/.download" && apt-get "${options[@]}" -qq source --download-only "$p") > "$apt/$p.log" 2>&1; then
    # The Debian part may be gone from the archive while the upstream tarball is there.
    if ! ls "$dir/.download"/"$p"_*.orig.tar.* > /dev/null 2>&1; then
      echo "$me: $p: not fetched: $(grep -m1 -E '^E:' "$apt/$p.log" || tail -1 "$apt/$p.log")" >&2
      exit 3
    fi
  fi
  tarball=$(ls "$dir/.download"/"$p"_*.orig.tar.* | head -1)
  mkdir -p "$dir/$p.part"
  tar -xf "$tarball" -C "$dir/$p.part" --strip-components=1
  mv "$dir/$p.part" "$dir/$p"
  echo "$me: $p: $(basename "$tarball") unpacked in $dir/$p"
done
rm -rf "$dir/.download"
