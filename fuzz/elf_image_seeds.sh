#!/usr/bin/env bash
# Makes the seed corpus of the program image reader's fuzz target (fuzz/elf_image_reader.cpp):
# small real images, each of one thing the reader handles, built as vela-mpicc builds a program
# (-fPIC -shared) but without the C runtime's start files, stripped, and with the segments sharing
# file pages, so that each is 1-3 KB. The images are committed in fuzz/corpus/elf_image_reader/;
# run this again (from anywhere) to remake them with another compiler.
#   counter.so  a global through the GOT (global_data), linked by gold (its .eh_frame typed
#               X86_64_UNWIND, the others' PROGBITS)
#   tls.so      an initialized thread-local (the TLS segment, its module and offset)
#   table.so    a table of function pointers and a constructor (relative, the init array)
#   libc.so     calls into the C library (NEEDED, jump slots, the versions they ask for)
#   ifunc.so    a function chosen at load time (irelative)
set -euo pipefail
cd "$(dirname "$0")/.."
out=fuzz/corpus/elf_image_reader
mkdir -p "$out"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

cat > "$scratch"/counter.c <<'C'
int counter;
int main(void) { return counter; }
C
cat > "$scratch"/tls.c <<'C'
__thread int per_thread = 7;
int main(void) { return per_thread; }
C
cat > "$scratch"/table.c <<'C'
static int one(void) { return 1; }
int (*table[])(void) = {one};
static __attribute__((constructor)) void start(void) { table[0] = one; }
int main(void) { return table[0](); }
C
cat > "$scratch"/libc.c <<'C'
#include <string.h>
char b[256];
int main(int argc, char** argv) { memcpy(b, argv[0], (size_t)argc); return (int)strlen(b); }
C
cat > "$scratch"/ifunc.c <<'C'
static int impl(void) { return 1; }
static void* resolve(void) { return (void*)impl; }
__attribute__((visibility("hidden"))) int chosen(void) __attribute__((ifunc("resolve")));
int main(void) { return chosen(); }
C

flags=(-Os -fPIC -shared -nostdlib -s -Wl,-z,norelro -Wl,--build-id=none)
for name in counter tls table libc ifunc; do
  extra=(-Wl,-z,noseparate-code)
  libs=()
  [[ $name == counter ]] && extra=(-fuse-ld=gold)  # compact already (no -z noseparate-code)
  [[ $name == libc ]] && extra+=(-fno-builtin) && libs=(-lc)  # the calls kept as calls
  cc "${flags[@]}" "${extra[@]}" -o "$out/$name.so" "$scratch/$name.c" "${libs[@]}"
done
ls -l "$out"
