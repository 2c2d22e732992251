// The C library's hidden state per rank (rank_libc.hpp): Vela's versions of the glibc functions
// whose state lives inside the library, each working on the running rank's RankLibc, or calling
// glibc's own function outside ranks.
//
// getopt is Vela's own: glibc has no reentrant getopt (its _getopt_internal_r is not exported),
// and its progress (the next character of an option group, the non-options to permute, whether
// it has started) is a hidden static shared by every rank of the process. Vela's follows GNU
// getopt exactly: permutation unless the option string starts with '+' or POSIXLY_CORRECT is set,
// '-' (non-options returned as 1), ':' (':' for a missing argument, no messages), optional
// arguments ("::"), "--", optind = 0 to restart, -W foo for --foo ("W;"), long options with
// abbreviations, and glibc's messages (translated by glibc's catalogue, "libc", as glibc's are).
//
// The rest call glibc's reentrant versions (random_r, drand48_r, strtok_r, localtime_r, ...) on
// the rank's state, except asctime, formatted here as glibc's asctime does: glibc's asctime_r
// refuses text over 26 bytes (a year past 9999) that asctime writes.
//
// Invariant: nothing here keeps state outside the RankLibc given (no statics but the thread's
// running pointer and the constant symbol table), so ranks never see each other's state.
#include "image/rank_libc.hpp"

#include <getopt.h>
#include <libintl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "privatization/thread_locals.hpp"

// glibc's getopt under POSIXLY_CORRECT semantics: what <unistd.h> binds getopt to for programs
// built for strict POSIX (bits/getopt_posix.h). Exported by glibc, declared only there.
extern "C" int __posix_getopt(int argc, char* const* argv, const char* optstring) noexcept;

namespace vela::vp::detail {
namespace {

thread_local RankLibc* running = nullptr;

// ----- getopt ----------------------------------------------------------------------------------

enum Ordering : int { permute = 0, require_order = 1, return_in_order = 2 };

// What next_element and long_option_element answer when the element is to be read as short
// options.
constexpr int read_short = INT_MIN;

// One call of getopt: its arguments and the rank's state. argv is written when permuting, as
// glibc does (its documentation says so: the array, not the strings).
struct GetoptCall {
  int argc;
  char** argv;
  const char* optstring;   // past a leading '+' or '-'
  const option* longopts;  // nullptr for getopt
  int* longindex;
  bool long_only;
  bool print_errors;
  int& optind;
  RankLibc::GetoptProgress& p;
};

// glibc's messages, from its catalogue as glibc prints them.
const char* message(const char* text) noexcept {
  return dgettext("libc", text);
}

// Makes argv[first_nonopt, last_nonopt) (non-options skipped) and argv[last_nonopt, optind)
// (options read since) trade places, non-options last, each in its order.
void exchange(GetoptCall& c) noexcept {
  auto& p = c.p;
  std::rotate(c.argv + p.first_nonopt, c.argv + p.last_nonopt, c.argv + c.optind);
  p.first_nonopt += c.optind - p.last_nonopt;
  p.last_nonopt = c.optind;
}

// The first call, or optind = 0: reads the ordering from the option string (or the environment),
// returns the option string past its '+' or '-'.
const char* start_scan(GetoptCall& c, const char* optstring, bool posixly_correct) noexcept {
  auto& p = c.p;
  if (c.optind == 0) c.optind = 1;
  p.first_nonopt = p.last_nonopt = c.optind;
  p.next_char = nullptr;
  if (optstring[0] == '-') {
    p.ordering = return_in_order;
    ++optstring;
  } else if (optstring[0] == '+') {
    p.ordering = require_order;
    ++optstring;
  } else if (posixly_correct || std::getenv("POSIXLY_CORRECT") != nullptr) {
    p.ordering = require_order;
  } else {
    p.ordering = permute;
  }
  p.initialized = true;
  return optstring;
}

bool is_non_option(const GetoptCall& c) noexcept {
  const char* element = c.argv[c.optind];
  return element[0] != '-' || element[1] == '\0';
}

// Where a long option's name matched: the option, its index, and whether the name is an
// ambiguous abbreviation (then `option` is the first it abbreviates).
struct LongMatch {
  const option* found = nullptr;
  int index = -1;
  bool ambiguous = false;
};

bool abbreviates(const option& candidate, const char* name, std::size_t length) noexcept {
  return std::strncmp(candidate.name, name, length) == 0;
}

// Whether a second abbreviated match makes the name ambiguous: always for getopt_long_only,
// otherwise only when the two options differ in what they do.
bool conflicts(const option& first, const option& other, bool long_only) noexcept {
  return long_only || first.has_arg != other.has_arg || first.flag != other.flag ||
         first.val != other.val;
}

// An exact match first; otherwise the name as an abbreviation.
LongMatch find_long_option(const option* longopts, const char* name, std::size_t length,
                           bool long_only) noexcept {
  for (int i = 0; longopts[i].name != nullptr; ++i) {
    if (abbreviates(longopts[i], name, length) && std::strlen(longopts[i].name) == length) {
      return {&longopts[i], i, false};
    }
  }
  LongMatch match;
  for (int i = 0; longopts[i].name != nullptr; ++i) {
    if (!abbreviates(longopts[i], name, length)) continue;
    if (match.found == nullptr) {
      match = {&longopts[i], i, false};
    } else if (conflicts(*match.found, longopts[i], long_only)) {
      match.ambiguous = true;
    }
  }
  return match;
}

// The message of an ambiguous abbreviation, listing the first option matched and each later one
// in conflict with it, as glibc lists them.
void print_ambiguous(const GetoptCall& c, const char* prefix, const LongMatch& match,
                     std::size_t length, bool long_only) noexcept {
  flockfile(stderr);
  std::fprintf(stderr, message("%s: option '%s%s' is ambiguous; possibilities:"), c.argv[0], prefix,
               c.p.next_char);
  for (int i = match.index; c.longopts[i].name != nullptr; ++i) {
    const option& candidate = c.longopts[i];
    if (i == match.index || (abbreviates(candidate, c.p.next_char, length) &&
                             conflicts(*match.found, candidate, long_only))) {
      std::fprintf(stderr, " '%s%s'", prefix, candidate.name);
    }
  }
  std::fprintf(stderr, "\n");
  funlockfile(stderr);
}

int ambiguous_option(GetoptCall& c, const char* prefix, const LongMatch& match, std::size_t length,
                     bool long_only) noexcept {
  if (c.print_errors) print_ambiguous(c, prefix, match, length, long_only);
  c.p.next_char += std::strlen(c.p.next_char);
  ++c.optind;
  c.p.optopt = 0;
  return '?';
}

int unrecognized_option(GetoptCall& c, const char* prefix) noexcept {
  if (c.print_errors) {
    std::fprintf(stderr, message("%s: unrecognized option '%s%s'\n"), c.argv[0], prefix,
                 c.p.next_char);
  }
  c.p.next_char = nullptr;
  ++c.optind;
  c.p.optopt = 0;
  return '?';
}

// Consumes the long option found (and its argument: "=value" at `name_end`, or the next
// element when required).
int take_long_option(GetoptCall& c, const char* prefix, const option& found, int index,
                     char* name_end) noexcept {
  ++c.optind;
  c.p.next_char = nullptr;
  if (*name_end != '\0') {
    if (found.has_arg == no_argument) {
      if (c.print_errors) {
        std::fprintf(stderr, message("%s: option '%s%s' doesn't allow an argument\n"), c.argv[0],
                     prefix, found.name);
      }
      c.p.optopt = found.val;
      return '?';
    }
    c.p.optarg = name_end + 1;
  } else if (found.has_arg == required_argument) {
    if (c.optind >= c.argc) {
      if (c.print_errors) {
        std::fprintf(stderr, message("%s: option '%s%s' requires an argument\n"), c.argv[0], prefix,
                     found.name);
      }
      c.p.optopt = found.val;
      return c.optstring[0] == ':' ? ':' : '?';
    }
    c.p.optarg = c.argv[c.optind++];
  }
  if (c.longindex != nullptr) *c.longindex = index;
  if (found.flag == nullptr) return found.val;
  *found.flag = found.val;
  return 0;
}

// The element at optind, from p.next_char on, as a long option (its name written after
// `prefix`). Returns -1 when getopt_long_only is to read it as short options instead (it names
// no long option but starts with a short one), the state unchanged.
int long_option(GetoptCall& c, const char* prefix, bool long_only) noexcept {
  char* name = c.p.next_char;
  char* name_end = name + std::strcspn(name, "=");
  const auto length = static_cast<std::size_t>(name_end - name);
  const LongMatch match = find_long_option(c.longopts, name, length, long_only);
  if (match.ambiguous) return ambiguous_option(c, prefix, match, length, long_only);
  if (match.found != nullptr)
    return take_long_option(c, prefix, *match.found, match.index, name_end);
  if (!long_only || c.argv[c.optind][1] == '-' || std::strchr(c.optstring, *name) == nullptr) {
    return unrecognized_option(c, prefix);
  }
  return -1;
}

// An option element, with long options given: "--name", or for getopt_long_only "-name" unless
// it is a single short option ("-f").
int long_option_element(GetoptCall& c) noexcept {
  char* element = c.argv[c.optind];
  if (element[1] == '-') {
    c.p.next_char = element + 2;
    return long_option(c, "--", c.long_only);
  }
  if (c.long_only && (element[2] != '\0' || std::strchr(c.optstring, element[1]) == nullptr)) {
    c.p.next_char = element + 1;
    const int code = long_option(c, "-", true);
    if (code != -1) return code;
  }
  return read_short;
}

// Permuting: moves the options read since the last non-options before them, then skips the
// non-options that follow.
void skip_non_options(GetoptCall& c) noexcept {
  auto& p = c.p;
  if (p.first_nonopt != p.last_nonopt && p.last_nonopt != c.optind) {
    exchange(c);
  } else if (p.last_nonopt != c.optind) {
    p.first_nonopt = c.optind;
  }
  while (c.optind < c.argc && is_non_option(c)) ++c.optind;
  p.last_nonopt = c.optind;
}

// "--": skipped as an option, then everything after it as non-options.
void end_options(GetoptCall& c) noexcept {
  auto& p = c.p;
  ++c.optind;
  if (p.first_nonopt != p.last_nonopt && p.last_nonopt != c.optind) {
    exchange(c);
  } else if (p.first_nonopt == p.last_nonopt) {
    p.first_nonopt = c.optind;
  }
  p.last_nonopt = c.argc;
  c.optind = c.argc;
}

// Moves to the next element of argv: the end (-1, optind at the non-options permuted), a
// non-option (1 in order, or the end), a long option's code, or read_short.
int next_element(GetoptCall& c) noexcept {
  auto& p = c.p;
  // The program may have moved optind back (and changed argv).
  if (p.last_nonopt > c.optind) p.last_nonopt = c.optind;
  if (p.first_nonopt > c.optind) p.first_nonopt = c.optind;
  if (p.ordering == permute) skip_non_options(c);
  if (c.optind != c.argc && std::strcmp(c.argv[c.optind], "--") == 0) end_options(c);
  if (c.optind == c.argc) {
    if (p.first_nonopt != p.last_nonopt) c.optind = p.first_nonopt;
    return -1;
  }
  if (is_non_option(c)) {
    if (p.ordering == require_order) return -1;
    p.optarg = c.argv[c.optind++];
    return 1;
  }
  if (c.longopts != nullptr) {
    const int code = long_option_element(c);
    if (code != read_short) return code;
  }
  p.next_char = c.argv[c.optind] + 1;
  return read_short;
}

int missing_argument(GetoptCall& c, char option_char) noexcept {
  if (c.print_errors) {
    std::fprintf(stderr, message("%s: option requires an argument -- '%c'\n"), c.argv[0],
                 option_char);
  }
  c.p.optopt = option_char;
  return c.optstring[0] == ':' ? ':' : '?';
}

// "-W foo" (or "-Wfoo") as "--foo", where the option string has "W;".
int w_option(GetoptCall& c, char option_char) noexcept {
  auto& p = c.p;
  if (*p.next_char != '\0') {
    p.optarg = p.next_char;
  } else if (c.optind == c.argc) {
    return missing_argument(c, option_char);
  } else {
    p.optarg = c.argv[c.optind];
  }
  p.next_char = p.optarg;
  p.optarg = nullptr;
  return long_option(c, "-W ", false);
}

// The argument of a short option with one (`optional`: "::", only attached).
int short_argument(GetoptCall& c, char option_char, bool optional) noexcept {
  auto& p = c.p;
  int code = option_char;
  if (*p.next_char != '\0') {
    p.optarg = p.next_char;
    ++c.optind;
  } else if (optional) {
    p.optarg = nullptr;
  } else if (c.optind == c.argc) {
    code = missing_argument(c, option_char);
  } else {
    p.optarg = c.argv[c.optind++];
  }
  p.next_char = nullptr;
  return code;
}

// The next character of the short option group at p.next_char.
int short_option(GetoptCall& c) noexcept {
  auto& p = c.p;
  const char option_char = *p.next_char++;
  const char* spec = std::strchr(c.optstring, option_char);
  if (*p.next_char == '\0') ++c.optind;
  if (spec == nullptr || option_char == ':' || option_char == ';') {
    if (c.print_errors) {
      std::fprintf(stderr, message("%s: invalid option -- '%c'\n"), c.argv[0], option_char);
    }
    p.optopt = option_char;
    return '?';
  }
  if (spec[0] == 'W' && spec[1] == ';' && c.longopts != nullptr) return w_option(c, option_char);
  if (spec[1] != ':') return option_char;
  return short_argument(c, option_char, spec[2] == ':');
}

int scan(GetoptCall& c, bool posixly_correct) noexcept {
  auto& p = c.p;
  if (c.argc < 1) return -1;
  p.optarg = nullptr;
  if (c.optind == 0 || !p.initialized) {
    c.optstring = start_scan(c, c.optstring, posixly_correct);
  } else if (c.optstring[0] == '-' || c.optstring[0] == '+') {
    ++c.optstring;
  }
  if (c.optstring[0] == ':') c.print_errors = false;
  if (p.next_char == nullptr || *p.next_char == '\0') {
    const int code = next_element(c);
    if (code != read_short) return code;
  }
  return short_option(c);
}

// One call on the rank's state: reads optind and opterr, writes optind, optarg and optopt.
int getopt_in_rank(RankLibc& state, int argc, char* const* argv, const char* optstring,
                   const option* longopts, int* longindex, bool long_only,
                   bool posixly_correct) noexcept {
  GetoptCall call{argc,      const_cast<char**>(argv), optstring,    longopts,    longindex,
                  long_only, state.opterr != 0,        state.optind, state.getopt};
  const int code = scan(call, posixly_correct);
  state.optarg = state.getopt.optarg;
  state.optopt = state.getopt.optopt;
  return code;
}

int rank_getopt(int argc, char* const* argv, const char* optstring) noexcept {
  RankLibc* state = running;
  if (state == nullptr) return ::getopt(argc, argv, optstring);
  return getopt_in_rank(*state, argc, argv, optstring, nullptr, nullptr, false, false);
}

int rank_posix_getopt(int argc, char* const* argv, const char* optstring) noexcept {
  RankLibc* state = running;
  if (state == nullptr) return ::__posix_getopt(argc, argv, optstring);
  return getopt_in_rank(*state, argc, argv, optstring, nullptr, nullptr, false, true);
}

int rank_getopt_long(int argc, char* const* argv, const char* optstring, const option* longopts,
                     int* longindex) noexcept {
  RankLibc* state = running;
  if (state == nullptr) return ::getopt_long(argc, argv, optstring, longopts, longindex);
  return getopt_in_rank(*state, argc, argv, optstring, longopts, longindex, false, false);
}

int rank_getopt_long_only(int argc, char* const* argv, const char* optstring,
                          const option* longopts, int* longindex) noexcept {
  RankLibc* state = running;
  if (state == nullptr) return ::getopt_long_only(argc, argv, optstring, longopts, longindex);
  return getopt_in_rank(*state, argc, argv, optstring, longopts, longindex, true, false);
}

// ----- rand, random ----------------------------------------------------------------------------

// glibc's rand() is random() (the same table).
int rank_rand() noexcept {
  RankLibc* state = running;
  if (state == nullptr) return std::rand();
  std::int32_t value = 0;
  ::random_r(&state->random, &value);
  return value;
}

long rank_random() noexcept {
  RankLibc* state = running;
  if (state == nullptr) return ::random();
  std::int32_t value = 0;
  ::random_r(&state->random, &value);
  return value;
}

void rank_srandom(unsigned seed) noexcept {
  RankLibc* state = running;
  if (state == nullptr) return ::srandom(seed);
  ::srandom_r(seed, &state->random);
}

void rank_srand(unsigned seed) noexcept {
  RankLibc* state = running;
  if (state == nullptr) return std::srand(seed);
  ::srandom_r(seed, &state->random);
}

// initstate and setstate return the state buffer used until then, as glibc's do (its first word
// is the type and position glibc keeps there).
char* old_random_state(const RankLibc& state) noexcept {
  return reinterpret_cast<char*>(state.random.state - 1);
}

char* rank_initstate(unsigned seed, char* buffer, std::size_t bytes) noexcept {
  RankLibc* state = running;
  if (state == nullptr) return ::initstate(seed, buffer, bytes);
  char* old = old_random_state(*state);
  return ::initstate_r(seed, buffer, bytes, &state->random) == -1 ? nullptr : old;
}

char* rank_setstate(char* buffer) noexcept {
  RankLibc* state = running;
  if (state == nullptr) return ::setstate(buffer);
  char* old = old_random_state(*state);
  return ::setstate_r(buffer, &state->random) < 0 ? nullptr : old;
}

// ----- drand48 and family ----------------------------------------------------------------------

double rank_drand48() noexcept {
  RankLibc* state = running;
  if (state == nullptr) return ::drand48();
  double value = 0;
  ::drand48_r(&state->drand48, &value);
  return value;
}

double rank_erand48(unsigned short xsubi[3]) noexcept {
  RankLibc* state = running;
  if (state == nullptr) return ::erand48(xsubi);
  double value = 0;
  ::erand48_r(xsubi, &state->drand48, &value);
  return value;
}

long rank_lrand48() noexcept {
  RankLibc* state = running;
  if (state == nullptr) return ::lrand48();
  long value = 0;
  ::lrand48_r(&state->drand48, &value);
  return value;
}

long rank_nrand48(unsigned short xsubi[3]) noexcept {
  RankLibc* state = running;
  if (state == nullptr) return ::nrand48(xsubi);
  long value = 0;
  ::nrand48_r(xsubi, &state->drand48, &value);
  return value;
}

long rank_mrand48() noexcept {
  RankLibc* state = running;
  if (state == nullptr) return ::mrand48();
  long value = 0;
  ::mrand48_r(&state->drand48, &value);
  return value;
}

long rank_jrand48(unsigned short xsubi[3]) noexcept {
  RankLibc* state = running;
  if (state == nullptr) return ::jrand48(xsubi);
  long value = 0;
  ::jrand48_r(xsubi, &state->drand48, &value);
  return value;
}

void rank_srand48(long seed) noexcept {
  RankLibc* state = running;
  if (state == nullptr) return ::srand48(seed);
  ::srand48_r(seed, &state->drand48);
}

// Returns the seed replaced, kept in the rank's drand48_data as glibc keeps it in its own.
unsigned short* rank_seed48(unsigned short seed[3]) noexcept {
  RankLibc* state = running;
  if (state == nullptr) return ::seed48(seed);
  ::seed48_r(seed, &state->drand48);
  return state->drand48.__old_x;
}

void rank_lcong48(unsigned short parameters[7]) noexcept {
  RankLibc* state = running;
  if (state == nullptr) return ::lcong48(parameters);
  ::lcong48_r(parameters, &state->drand48);
}

// ----- strtok ----------------------------------------------------------------------------------

char* rank_strtok(char* text, const char* delimiters) noexcept {
  RankLibc* state = running;
  if (state == nullptr) return std::strtok(text, delimiters);
  return ::strtok_r(text, delimiters, &state->strtok_save);
}

// ----- localtime, gmtime, ctime, asctime -------------------------------------------------------

std::tm* rank_localtime(const std::time_t* time) noexcept {
  RankLibc* state = running;
  if (state == nullptr) return std::localtime(time);
  ::tzset();  // glibc's localtime reads TZ again at each call, its localtime_r need not
  return ::localtime_r(time, &state->time);
}

std::tm* rank_gmtime(const std::time_t* time) noexcept {
  RankLibc* state = running;
  if (state == nullptr) return std::gmtime(time);
  return ::gmtime_r(time, &state->time);
}

// glibc's asctime: C-locale names ("???" out of range), any int fields (its buffer fits them),
// EINVAL for no time, EOVERFLOW for a year past INT_MAX.
char* format_asctime(const std::tm* time, char* text, std::size_t bytes) noexcept {
  static constexpr const char* days[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr const char* months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                           "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  if (time == nullptr) {
    errno = EINVAL;
    return nullptr;
  }
  if (time->tm_year > INT_MAX - 1900) {
    errno = EOVERFLOW;
    return nullptr;
  }
  const bool day_known = time->tm_wday >= 0 && time->tm_wday < 7;
  const bool month_known = time->tm_mon >= 0 && time->tm_mon < 12;
  const int written = std::snprintf(
      text, bytes, "%.3s %.3s%3d %.2d:%.2d:%.2d %d\n", day_known ? days[time->tm_wday] : "???",
      month_known ? months[time->tm_mon] : "???", time->tm_mday, time->tm_hour, time->tm_min,
      time->tm_sec, 1900 + time->tm_year);
  if (written < 0) return nullptr;
  if (static_cast<std::size_t>(written) >= bytes) {
    errno = EOVERFLOW;
    return nullptr;
  }
  return text;
}

char* rank_asctime(const std::tm* time) noexcept {
  RankLibc* state = running;
  if (state == nullptr) return std::asctime(time);
  return format_asctime(time, state->time_text, sizeof state->time_text);
}

// glibc's ctime is asctime(localtime(t)): it writes the struct tm too.
char* rank_ctime(const std::time_t* time) noexcept {
  if (running == nullptr) return std::ctime(time);
  return rank_asctime(rank_localtime(time));
}

// ----- the symbols -----------------------------------------------------------------------------

template <class Function>
void* address(Function* function) noexcept {
  return reinterpret_cast<void*>(function);
}

LibcSymbol variable(const char* name, std::size_t offset) noexcept {
  return {name, nullptr, offset};
}

}  // namespace

void init_rank_libc(RankLibc& state) noexcept {
  state = RankLibc{};
  // random_data must be zero (no old state) for initstate_r; seed 1 and a 128-byte table are
  // glibc's default state.
  ::initstate_r(1, state.random_table, sizeof state.random_table, &state.random);
}

RankLibc* running_rank_libc() noexcept {
  return running;
}

void set_running_rank_libc(RankLibc* state) noexcept {
  running = state;
}

void carry_running_rank_libc() {
  carry_thread_local(&running, sizeof running);
}

std::span<const LibcSymbol> rank_libc_symbols() noexcept {
  // Sorted by name, strcmp order ('_' before the letters).
  static const LibcSymbol symbols[] = {
      {"__posix_getopt", address(rank_posix_getopt), 0},
      {"asctime", address(rank_asctime), 0},
      {"ctime", address(rank_ctime), 0},
      {"drand48", address(rank_drand48), 0},
      {"erand48", address(rank_erand48), 0},
      {"getopt", address(rank_getopt), 0},
      {"getopt_long", address(rank_getopt_long), 0},
      {"getopt_long_only", address(rank_getopt_long_only), 0},
      {"gmtime", address(rank_gmtime), 0},
      {"initstate", address(rank_initstate), 0},
      {"jrand48", address(rank_jrand48), 0},
      {"lcong48", address(rank_lcong48), 0},
      {"localtime", address(rank_localtime), 0},
      {"lrand48", address(rank_lrand48), 0},
      {"mrand48", address(rank_mrand48), 0},
      {"nrand48", address(rank_nrand48), 0},
      variable("optarg", offsetof(RankLibc, optarg)),
      variable("opterr", offsetof(RankLibc, opterr)),
      variable("optind", offsetof(RankLibc, optind)),
      variable("optopt", offsetof(RankLibc, optopt)),
      {"rand", address(rank_rand), 0},
      {"random", address(rank_random), 0},
      {"seed48", address(rank_seed48), 0},
      {"setstate", address(rank_setstate), 0},
      {"srand", address(rank_srand), 0},
      {"srand48", address(rank_srand48), 0},
      {"srandom", address(rank_srandom), 0},
      {"strtok", address(rank_strtok), 0},
  };
  return symbols;
}

}  // namespace vela::vp::detail
