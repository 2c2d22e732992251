// The C library's hidden state, per rank. Some functions of glibc keep state inside the library
// (getopt's progress and its four variables, rand()/random()'s table, drand48's seed, strtok's
// position, the struct tm and text that localtime/gmtime/ctime/asctime return), which a program
// uses as if it were its own. A program loaded per rank has those symbols bound to Vela's
// versions here instead, which keep that state in the running rank's RankLibc.
//
// Invariants: a RankLibc lives at a fixed address in its rank's memory and moves with it as raw
// bytes to the same address in another process, so it holds pointers only into itself or into
// the rank's own memory (a buffer given to initstate, strtok's string, getopt's argv), never into
// the process. Outside ranks (running_rank_libc() == nullptr) every replacement calls glibc's own
// function. The replacements have their own names: none is a global symbol named as glibc's
// (the executable is linked with -rdynamic and would replace glibc's for the whole process).
//
// Costs: each call is glibc's reentrant version (or Vela's getopt) plus one thread_local read;
// a RankLibc is about 0.5 KiB.
#pragma once

#include <stdlib.h>  // struct random_data, struct drand48_data (glibc)

#include <cstddef>
#include <cstdint>
#include <ctime>
#include <span>

namespace vela::vp::detail {

// Everything a rank owns of the C library's hidden state.
struct RankLibc {
  // getopt's public variables: a program's references to optarg, optind, opterr and optopt are
  // bound to these four (by address), so they must stay plain fields of these types.
  char* optarg = nullptr;
  int optind = 1;
  int opterr = 1;
  int optopt = '?';

  // getopt's progress, as glibc keeps it in its hidden static: each call reads optind and opterr
  // from the variables above and writes optind, and optarg and optopt from these copies, back
  // (so a program's own writes to optarg or optopt last until the next call only, as in glibc).
  struct GetoptProgress {
    char* optarg = nullptr;
    int optopt = 0;
    bool initialized = false;
    int ordering = 0;           // permute, require order or return in order (rank_libc.cpp)
    char* next_char = nullptr;  // the rest of the option group being read (-abc)
    int first_nonopt = 1;       // [first_nonopt, last_nonopt): non-options skipped, to permute
    int last_nonopt = 1;
  } getopt;

  // rand()/random(): the state table (TYPE_3, as glibc's default) and random_r's view of it,
  // which points into the table (or into a buffer of the rank given to initstate).
  alignas(std::int32_t) char random_table[128] = {};
  struct random_data random = {};

  // drand48 and family: seed, multiplier and addend; seed48 returns its __old_x.
  struct drand48_data drand48 = {};

  // strtok's place in its string.
  char* strtok_save = nullptr;

  // localtime/gmtime's struct tm (shared by both, as in glibc) and asctime/ctime's text (the
  // size of glibc's buffer: any int fields fit).
  std::tm time = {};
  char time_text[114] = {};
};

// Makes `state` what a fresh process has (rand() as after srand(1), drand48 unseeded as glibc's,
// getopt at its start). `state` must be at its final address (random_data points into it).
void init_rank_libc(RankLibc& state) noexcept;

// The state of the rank running on this PE thread, or nullptr outside ranks. Set by the rank
// switch (at every switch in and out).
RankLibc* running_rank_libc() noexcept;
void set_running_rank_libc(RankLibc* state) noexcept;  // a thread_local pointer

// Under the TLS method (--vp-tls-globals) the thread_local above must keep the PE thread's value
// while a rank's TLS block is switched in: registers it as carried (see
// privatization/thread_locals.hpp). Does nothing without that method.
void carry_running_rank_libc();

// A symbol of the C library that the loaded program gets bound to Vela's per-rank version:
// a function (`function` set) or one of the four getopt variables (`field_offset` into RankLibc).
struct LibcSymbol {
  const char* name;
  void* function;            // nullptr for a variable
  std::size_t field_offset;  // offsetof(RankLibc, optind) etc., for a variable
};

// Every such symbol, sorted by name (strcmp order).
std::span<const LibcSymbol> rank_libc_symbols() noexcept;

}  // namespace vela::vp::detail
