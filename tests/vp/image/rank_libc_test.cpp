// The C library's state per rank: Vela's getopt against glibc's on a table of cases (results,
// optarg, optind, optopt, longindex, flags, argv's final order, messages); two ranks' states
// interleaved give each what it gets alone; outside ranks every replacement is glibc's own; the
// symbol table. glibc's functions run in this process outside any rank, reset before each case.
#include <gtest/gtest.h>

#include <getopt.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iterator>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "image/rank_libc.hpp"

// glibc's getopt for strict POSIX programs (what <unistd.h> binds getopt to for them).
extern "C" int __posix_getopt(int argc, char* const* argv, const char* optstring) noexcept;

namespace {

using vela::vp::detail::init_rank_libc;
using vela::vp::detail::LibcSymbol;
using vela::vp::detail::rank_libc_symbols;
using vela::vp::detail::RankLibc;
using vela::vp::detail::running_rank_libc;
using vela::vp::detail::set_running_rank_libc;

const LibcSymbol* find_symbol(const char* name) {
  const auto symbols = rank_libc_symbols();
  const auto it = std::lower_bound(
      symbols.begin(), symbols.end(), name,
      [](const LibcSymbol& symbol, const char* key) { return std::strcmp(symbol.name, key) < 0; });
  if (it == symbols.end() || std::strcmp(it->name, name) != 0) return nullptr;
  return &*it;
}

// Vela's replacement for `name`, as the loaded program gets it: through the symbol table.
template <class Function>
Function* vela(const char* name) {
  const LibcSymbol* symbol = find_symbol(name);
  if (symbol == nullptr || symbol->function == nullptr) {
    ADD_FAILURE() << "no function " << name << " in rank_libc_symbols()";
    std::abort();
  }
  return reinterpret_cast<Function*>(symbol->function);
}

// A variable of `state`, as the loaded program's references are bound to it.
template <class T>
T* vela_variable(RankLibc& state, const char* name) {
  const LibcSymbol* symbol = find_symbol(name);
  if (symbol == nullptr || symbol->function != nullptr) {
    ADD_FAILURE() << "no variable " << name << " in rank_libc_symbols()";
    std::abort();
  }
  return reinterpret_cast<T*>(reinterpret_cast<char*>(&state) + symbol->field_offset);
}

// A fresh rank state, at its final (heap) address.
std::unique_ptr<RankLibc> fresh_state() {
  auto state = std::make_unique<RankLibc>();
  init_rank_libc(*state);
  return state;
}

// `state` as the running rank's for the scope.
class Running {
 public:
  explicit Running(RankLibc& state) { set_running_rank_libc(&state); }
  ~Running() { set_running_rank_libc(nullptr); }
  Running(const Running&) = delete;
  Running& operator=(const Running&) = delete;
};

// What is written to stderr (fd 2) while it lives.
class StderrCapture {
 public:
  StderrCapture() {
    std::fflush(stderr);
    file_ = std::tmpfile();
    saved_ = dup(2);
    dup2(fileno(file_), 2);
  }
  ~StderrCapture() {
    if (saved_ >= 0) take();
  }
  StderrCapture(const StderrCapture&) = delete;
  StderrCapture& operator=(const StderrCapture&) = delete;

  std::string take() {
    std::fflush(stderr);
    dup2(saved_, 2);
    close(saved_);
    saved_ = -1;
    std::string text;
    std::rewind(file_);
    for (int c = std::fgetc(file_); c != EOF; c = std::fgetc(file_)) text += static_cast<char>(c);
    std::fclose(file_);
    return text;
  }

 private:
  std::FILE* file_ = nullptr;
  int saved_ = -1;
};

// ----- getopt -----------------------------------------------------------------------------------

enum class Api { getopt, posix_getopt, getopt_long, getopt_long_only };

// One implementation's getopt functions and its four variables.
struct Getopt {
  int (*getopt)(int, char* const*, const char*);
  int (*posix_getopt)(int, char* const*, const char*);
  int (*getopt_long)(int, char* const*, const char*, const option*, int*);
  int (*getopt_long_only)(int, char* const*, const char*, const option*, int*);
  char** optarg;
  int* optind;
  int* opterr;
  int* optopt;

  int call(Api api, int argc, char** argv, const char* optstring, const option* longopts,
           int* longindex) const {
    switch (api) {
      case Api::getopt:
        return getopt(argc, argv, optstring);
      case Api::posix_getopt:
        return posix_getopt(argc, argv, optstring);
      case Api::getopt_long:
        return getopt_long(argc, argv, optstring, longopts, longindex);
      case Api::getopt_long_only:
        return getopt_long_only(argc, argv, optstring, longopts, longindex);
    }
    return -2;
  }
};

Getopt glibc_getopt() {
  return {::getopt,  ::__posix_getopt, ::getopt_long, ::getopt_long_only,
          &::optarg, &::optind,        &::opterr,     &::optopt};
}

using LongFunction = int(int, char* const*, const char*, const option*, int*);
using ShortFunction = int(int, char* const*, const char*);

Getopt vela_getopt(RankLibc& state) {
  return {vela<ShortFunction>("getopt"),         vela<ShortFunction>("__posix_getopt"),
          vela<LongFunction>("getopt_long"),     vela<LongFunction>("getopt_long_only"),
          vela_variable<char*>(state, "optarg"), vela_variable<int>(state, "optind"),
          vela_variable<int>(state, "opterr"),   vela_variable<int>(state, "optopt")};
}

// glibc's getopt as in a fresh process: restarted (optind = 0), and its hidden optopt back to 0
// (an unrecognized long option sets it so; a fresh process has 0 there).
void reset_glibc_getopt() {
  static const option none[] = {{"x", no_argument, nullptr, 'x'}, {}};
  char program[] = "reset";
  char unknown[] = "--unknown";
  char* argv[] = {program, unknown, nullptr};
  ::opterr = 0;
  ::optind = 0;
  ::getopt_long(2, argv, "", none, nullptr);
  ::optind = 0;
  ::opterr = 1;
}

// An argv of copies (permuting moves the pointers; the strings stay).
class Argv {
 public:
  explicit Argv(const std::vector<std::string>& arguments) {
    for (const auto& argument : arguments) {
      strings_.push_back(std::make_unique<char[]>(argument.size() + 1));
      std::memcpy(strings_.back().get(), argument.c_str(), argument.size() + 1);
      pointers_.push_back(strings_.back().get());
    }
    pointers_.push_back(nullptr);
  }
  int argc() const { return static_cast<int>(pointers_.size()) - 1; }
  char** argv() { return pointers_.data(); }
  std::vector<std::string> order() const {
    std::vector<std::string> order;
    for (int i = 0; i < argc(); ++i) order.emplace_back(pointers_[i]);
    return order;
  }

 private:
  std::vector<std::unique_ptr<char[]>> strings_;
  std::vector<char*> pointers_;
};

struct GetoptCase {
  const char* label;
  Api api;
  const char* optstring;
  std::vector<std::string> argv;  // after the program's name
  int opterr = 1;
  int restart_after = -1;  // calls before optind = restart_index
  const char* restart_optstring = nullptr;
  bool posixly_correct = false;  // POSIXLY_CORRECT set in the environment
  int restart_index = 0;         // 0 restarts; another index just moves optind (no restart)
};

// The long options of every case; `flag` is the run's.
struct LongOptions {
  int flag = 0;
  option table[11] = {
      {"verbose", no_argument, &flag, 'V'},
      {"verbatim", no_argument, nullptr, 'b'},
      {"output", required_argument, nullptr, 'o'},
      {"out", no_argument, nullptr, 'u'},
      {"color", optional_argument, nullptr, 'c'},
      {"colour", optional_argument, nullptr, 'c'},
      {"size", required_argument, nullptr, 's'},
      {"help", no_argument, nullptr, 'h'},
      {"alpha", no_argument, &flag, 'A'},
      {"quiet", no_argument, &flag, 0},
      {nullptr, 0, nullptr, 0},
  };
};

struct Outcome {
  std::vector<std::string> steps;  // each call: result, optarg, optind, optopt, longindex, flag
  std::vector<std::string> argv;   // argv's final order
  std::string messages;

  bool operator==(const Outcome&) const = default;
};

void PrintTo(const Outcome& outcome, std::ostream* out) {
  for (const auto& step : outcome.steps) *out << "\n  " << step;
  *out << "\n  argv:";
  for (const auto& argument : outcome.argv) *out << " " << argument;
  *out << "\n  stderr: " << outcome.messages;
}

std::string describe_step(int code, const char* optarg, int optind, int optopt, int longindex,
                          int flag) {
  return "return " + std::to_string(code) + " optarg " +
         (optarg ? "'" + std::string(optarg) + "'" : "null") + " optind " + std::to_string(optind) +
         " optopt " + std::to_string(optopt) + " longindex " + std::to_string(longindex) +
         " flag " + std::to_string(flag);
}

// POSIXLY_CORRECT set or not in the environment while it lives (whatever the test's).
class PosixlyCorrect {
 public:
  explicit PosixlyCorrect(bool set) {
    const char* value = std::getenv("POSIXLY_CORRECT");
    had_ = value != nullptr;
    if (had_) saved_ = value;
    if (set) {
      setenv("POSIXLY_CORRECT", "1", 1);
    } else {
      unsetenv("POSIXLY_CORRECT");
    }
  }
  ~PosixlyCorrect() {
    if (had_) {
      setenv("POSIXLY_CORRECT", saved_.c_str(), 1);
    } else {
      unsetenv("POSIXLY_CORRECT");
    }
  }
  PosixlyCorrect(const PosixlyCorrect&) = delete;
  PosixlyCorrect& operator=(const PosixlyCorrect&) = delete;

 private:
  bool had_ = false;
  std::string saved_;
};

// Runs `test` on `api` from a fresh start (the caller's) to its end.
Outcome run_case(const GetoptCase& test, const Getopt& api) {
  std::vector<std::string> arguments{"prog"};
  arguments.insert(arguments.end(), test.argv.begin(), test.argv.end());
  Argv argv(arguments);
  LongOptions longs;
  const char* optstring = test.optstring;
  *api.opterr = test.opterr;
  PosixlyCorrect environment(test.posixly_correct);
  Outcome outcome;
  StderrCapture capture;
  for (int call = 0; call < 64; ++call) {
    if (call == test.restart_after) {
      *api.optind = test.restart_index;
      if (test.restart_optstring != nullptr) optstring = test.restart_optstring;
    }
    int longindex = -1;
    const int code =
        api.call(test.api, argv.argc(), argv.argv(), optstring, longs.table, &longindex);
    outcome.steps.push_back(
        describe_step(code, *api.optarg, *api.optind, *api.optopt, longindex, longs.flag));
    if (code == -1 && call >= test.restart_after) break;
  }
  outcome.messages = capture.take();
  *api.opterr = 1;
  outcome.argv = argv.order();
  return outcome;
}

Outcome run_glibc(const GetoptCase& test) {
  reset_glibc_getopt();
  return run_case(test, glibc_getopt());
}

Outcome run_vela(const GetoptCase& test) {
  const auto state = fresh_state();
  Running running(*state);
  return run_case(test, vela_getopt(*state));
}

const GetoptCase getopt_cases[] = {
    {"grouped flags", Api::getopt, "abc", {"-abc", "-c", "-ba"}},
    {"attached and separate arguments", Api::getopt, "ab:c:", {"-bfoo", "-c", "bar", "-ab", "baz"}},
    {"argument ending a group", Api::getopt, "ab:", {"-ab", "-a", "-abx"}},
    {"permutation", Api::getopt, "ab:", {"x", "-a", "y", "-b", "1", "z", "w", "-a", "v"}},
    {"non-options only", Api::getopt, "ab", {"x", "y"}},
    {"plus: stops at the first non-option", Api::getopt, "+ab", {"-a", "x", "-b"}},
    {"POSIXLY_CORRECT: stops at the first non-option",
     Api::getopt,
     "ab",
     {"-a", "x", "-b"},
     1,
     -1,
     nullptr,
     true},
    {"__posix_getopt: stops at the first non-option", Api::posix_getopt, "ab", {"-a", "x", "-b"}},
    {"minus: non-options as 1", Api::getopt, "-ab:", {"x", "-a", "y", "-b", "v", "z"}},
    {"colon: missing argument", Api::getopt, ":ab:", {"-a", "-b"}},
    {"missing argument, with messages", Api::getopt, "ab:", {"-a", "-b"}},
    {"plus and colon", Api::getopt, "+:a:", {"-a"}},
    {"unknown options", Api::getopt, "ab", {"-x", "-a", "-y", "-:", "-;"}},
    {"colon: unknown option silent", Api::getopt, ":ab", {"-x", "-a"}},
    {"opterr 0: no messages", Api::getopt, "ab:", {"-x", "-b"}, 0},
    {"optional arguments", Api::getopt, "a::b", {"-afoo", "-a", "bar", "-ba", "-ab"}},
    {"double dash ends options", Api::getopt, "ab", {"-a", "x", "--", "-b", "y"}},
    {"double dash after non-options", Api::getopt, "ab", {"x", "-a", "y", "--", "-b"}},
    {"double dash first", Api::getopt, "ab", {"--", "-a"}},
    {"a lone dash is a non-option", Api::getopt, "ab", {"-", "-a", "-"}},
    {"restart with optind = 0", Api::getopt, "ab", {"-a", "x", "-b"}, 1, 2},
    {"restart in a group, flags read again", Api::getopt, "abc", {"-abc", "x", "-a"}, 1, 1, "+abc"},
    {"restart after the end", Api::getopt, "ab", {"x", "-a", "-b"}, 1, 3, "-ab"},
    {"plain getopt: W; is a flag", Api::getopt, "W;a", {"-W", "x", "-a"}},
    {"long options, flag, longindex",
     Api::getopt_long,
     "ab:",
     {"--verbose", "--output=f", "--output", "g", "--size", "3", "-a", "--help", "--quiet"}},
    {"long options permuted", Api::getopt_long, "a", {"x", "--output", "f", "y", "--help", "z"}},
    {"long options in order (minus)", Api::getopt_long, "-a", {"x", "--help", "y", "-a"}},
    {"unique abbreviations", Api::getopt_long, "", {"--verbo", "--outp=x", "--he", "--si", "4"}},
    {"ambiguous abbreviations", Api::getopt_long, "", {"--ver", "--o", "x", "--h"}},
    {"ambiguous abbreviations, silent", Api::getopt_long, ":", {"--ver", "--o=1"}},
    {"exact match beats abbreviations", Api::getopt_long, "", {"--out", "--out=1", "--outp", "y"}},
    {"abbreviations of the same option", Api::getopt_long, "", {"--col=red", "--colo", "--co"}},
    {"=value on an option without an argument",
     Api::getopt_long,
     "",
     {"--help=yes", "--verbose=1", "--h="}},
    {"optional long arguments", Api::getopt_long, "", {"--color", "--color=", "--color", "blue"}},
    {"missing long argument", Api::getopt_long, "", {"--help", "--output"}},
    {"missing long argument, colon", Api::getopt_long, ":", {"--size"}},
    {"unrecognized long options", Api::getopt_long, "a", {"--nope", "--nope=3", "-a", "--"}},
    {"an empty long name", Api::getopt_long, "", {"--=x", "--"}},
    {"long options after a restart", Api::getopt_long, "a", {"--help", "-a", "x"}, 1, 2},
    {"W; with long options", Api::getopt_long, "W;a", {"-W", "verbose", "-Wout", "-Wnope", "-W"}},
    {"W; ambiguous and missing", Api::getopt_long, "aW;", {"-aWver", "-W", "help=1", "-W"}},
    {"W; left out", Api::getopt_long, "ab", {"-W", "verbose", "-a"}},
    {"long only: single-dash long options",
     Api::getopt_long_only,
     "ab:",
     {"-verbose", "-alp", "-a", "-help", "-h", "-output", "f"}},
    {"long only: short options and groups",
     Api::getopt_long_only,
     "abc",
     {"-abc", "-a", "-b", "-h"}},
    {"long only: unrecognized", Api::getopt_long_only, "ab", {"-x", "-xyz", "--xyz", "-ax"}},
    {"long only: any two abbreviations are ambiguous",
     Api::getopt_long_only,
     "",
     {"-colo", "--colo", "-ver", "-co=1"}},
    {"long only: double dash long options",
     Api::getopt_long_only,
     "a",
     {"--help", "--siz=3", "-s", "4"}},
    {"long only: missing argument, colon", Api::getopt_long_only, ":b:", {"-size=1", "-size"}},
    {"double dash as an option's argument", Api::getopt, "ab:", {"-b", "--", "-a", "--", "-b"}},
    {"optind moved back by the program",
     Api::getopt,
     "ab",
     {"x", "-a", "-b", "y"},
     1,
     1,
     nullptr,
     false,
     1},
    {"optind moved into a group's element",
     Api::getopt,
     "abc",
     {"-abc", "x", "-a"},
     1,
     2,
     nullptr,
     false,
     1},
};

TEST(RankLibcGetopt, MatchesGlibcOnEveryCase) {
  ASSERT_GE(std::size(getopt_cases), 25u);
  for (const auto& test : getopt_cases) {
    SCOPED_TRACE(test.label);
    const Outcome glibc = run_glibc(test);
    const Outcome own = run_vela(test);
    EXPECT_EQ(own, glibc);
  }
}

const GetoptCase& getopt_case(const char* label) {
  for (const auto& test : getopt_cases) {
    if (std::strcmp(test.label, label) == 0) return test;
  }
  std::abort();
}

// The cases exercise what they claim: messages and permutation where expected.
TEST(RankLibcGetopt, CasesCoverMessagesAndPermutation) {
  const Outcome permuted = run_glibc(getopt_case("permutation"));
  EXPECT_EQ(permuted.argv,
            (std::vector<std::string>{"prog", "-a", "-b", "1", "-a", "x", "y", "z", "w", "v"}));
  const Outcome ambiguous = run_glibc(getopt_case("ambiguous abbreviations"));
  EXPECT_EQ(ambiguous.messages,
            "prog: option '--ver' is ambiguous; possibilities: '--verbose' '--verbatim'\n"
            "prog: option '--o' is ambiguous; possibilities: '--output' '--out'\n");
  EXPECT_EQ(run_vela(getopt_case("ambiguous abbreviations")).messages, ambiguous.messages);
}

// Steps `test` on `api` one call at a time (for interleaving).
class Stepper {
 public:
  Stepper(const GetoptCase& test, Getopt api)
      : test_(test), api_(api), argv_([&] {
          std::vector<std::string> arguments{"prog"};
          arguments.insert(arguments.end(), test.argv.begin(), test.argv.end());
          return arguments;
        }()) {}

  // One call; false once it has returned -1.
  bool step() {
    if (done_) return false;
    int longindex = -1;
    const int code =
        api_.call(test_.api, argv_.argc(), argv_.argv(), test_.optstring, longs_.table, &longindex);
    outcome_.steps.push_back(
        describe_step(code, *api_.optarg, *api_.optind, *api_.optopt, longindex, longs_.flag));
    done_ = code == -1;
    return !done_;
  }
  Outcome outcome() const {
    Outcome outcome = outcome_;
    outcome.argv = argv_.order();
    return outcome;
  }

 private:
  GetoptCase test_;
  Getopt api_;
  Argv argv_;
  LongOptions longs_;
  Outcome outcome_;
  bool done_ = false;
};

TEST(RankLibcGetopt, TwoRanksInterleavedEachAsAlone) {
  const GetoptCase first{"first", Api::getopt, "ab:c", {"x", "-ab", "1", "-c", "y", "-ca", "z"}};
  const GetoptCase second{
      "second", Api::getopt_long, "-a", {"--verbose", "u", "--output", "f", "-a", "v", "--he"}};
  Outcome alone[2] = {run_glibc(first), run_glibc(second)};
  PosixlyCorrect environment(false);
  const auto state_a = fresh_state();
  const auto state_b = fresh_state();
  Stepper a(first, vela_getopt(*state_a));
  Stepper b(second, vela_getopt(*state_b));
  bool going = true;
  while (going) {
    going = false;
    {
      Running running(*state_a);
      going |= a.step();
    }
    {
      Running running(*state_b);
      going |= b.step();
    }
  }
  EXPECT_EQ(a.outcome(), (Outcome{alone[0].steps, alone[0].argv, ""}));
  EXPECT_EQ(b.outcome(), (Outcome{alone[1].steps, alone[1].argv, ""}));
}

TEST(RankLibcGetopt, OutsideRanksIsGlibcs) {
  ASSERT_EQ(running_rank_libc(), nullptr);
  reset_glibc_getopt();
  char program[] = "prog";
  char flag[] = "-a";
  char value[] = "-bv";
  char* argv[] = {program, flag, value, nullptr};
  EXPECT_EQ(vela<ShortFunction>("getopt")(3, argv, "ab:"), 'a');
  EXPECT_EQ(::optind, 2);                    // glibc's own variable moved
  EXPECT_EQ(::getopt(3, argv, "ab:"), 'b');  // and glibc's progress
  EXPECT_STREQ(::optarg, "v");
  reset_glibc_getopt();
  EXPECT_EQ(vela<ShortFunction>("__posix_getopt")(3, argv, "ab:"), 'a');
  EXPECT_EQ(::optind, 2);
  static const option longs[] = {{"all", no_argument, nullptr, 'l'}, {}};
  char all[] = "--all";
  char all_only[] = "-all";
  char* long_argv[] = {program, all, all_only, nullptr};
  reset_glibc_getopt();
  EXPECT_EQ(vela<LongFunction>("getopt_long")(3, long_argv, "", longs, nullptr), 'l');
  EXPECT_EQ(::optind, 2);
  EXPECT_EQ(vela<LongFunction>("getopt_long_only")(3, long_argv, "", longs, nullptr), 'l');
  EXPECT_EQ(::optind, 3);
  reset_glibc_getopt();
}

// ----- rand, random, drand48 and family ---------------------------------------------------------

using IntFunction = int();
using LongNoArgument = long();
using SeedFunction = void(unsigned);

std::vector<long> glibc_rand_after(unsigned seed, int count) {
  std::srand(seed);
  std::vector<long> values;
  for (int i = 0; i < count; ++i) values.push_back(i % 2 == 0 ? std::rand() : ::random());
  return values;
}

TEST(RankLibcRandom, TwoRanksInterleavedEachAsAFreshProcess) {
  const auto a = fresh_state();
  const auto b = fresh_state();
  auto* rand = vela<IntFunction>("rand");
  auto* random = vela<LongNoArgument>("random");
  auto* srand = vela<SeedFunction>("srand");
  auto* srandom = vela<SeedFunction>("srandom");
  {
    Running running(*b);
    srand(7);
  }
  std::vector<long> seen_a;
  std::vector<long> seen_b;
  for (int i = 0; i < 40; ++i) {
    {
      Running running(*a);
      seen_a.push_back(i % 2 == 0 ? rand() : random());
    }
    {
      Running running(*b);
      seen_b.push_back(i % 2 == 0 ? rand() : random());
    }
  }
  // A fresh process's rand() is as after srand(1).
  EXPECT_EQ(seen_a, glibc_rand_after(1, 40));
  EXPECT_EQ(seen_b, glibc_rand_after(7, 40));
  {
    Running running(*a);
    srandom(7);
    std::vector<long> again;
    for (int i = 0; i < 40; ++i) again.push_back(i % 2 == 0 ? rand() : random());
    EXPECT_EQ(again, seen_b);
  }
}

TEST(RankLibcRandom, StateStaysInsideTheRank) {
  const auto state = fresh_state();
  const auto* begin = reinterpret_cast<const char*>(state.get());
  const auto* end = begin + sizeof(RankLibc);
  for (const void* pointer :
       {static_cast<const void*>(state->random.fptr), static_cast<const void*>(state->random.rptr),
        static_cast<const void*>(state->random.state),
        static_cast<const void*>(state->random.end_ptr)}) {
    const auto* address = static_cast<const char*>(pointer);
    EXPECT_TRUE(address >= begin && address <= end);
  }
}

TEST(RankLibcRandom, InitstateAndSetstateAsGlibcs) {
  using Initstate = char*(unsigned, char*, std::size_t);
  using Setstate = char*(char*);
  std::srand(1);
  std::vector<long> expected;
  for (int i = 0; i < 3; ++i) expected.push_back(std::rand());
  alignas(std::int32_t) static char glibc_buffer[256];
  char* glibc_old = ::initstate(5, glibc_buffer, sizeof glibc_buffer);
  for (int i = 0; i < 3; ++i) expected.push_back(::random());
  EXPECT_EQ(::setstate(glibc_old), glibc_buffer);
  for (int i = 0; i < 3; ++i) expected.push_back(std::rand());
  // The same in a rank, whose table it is.
  const auto state = fresh_state();
  Running running(*state);
  alignas(std::int32_t) char buffer[256];
  std::vector<long> seen;
  for (int i = 0; i < 3; ++i) seen.push_back(vela<IntFunction>("rand")());
  char* old = vela<Initstate>("initstate")(5, buffer, sizeof buffer);
  EXPECT_EQ(old, state->random_table);
  for (int i = 0; i < 3; ++i) seen.push_back(vela<LongNoArgument>("random")());
  EXPECT_EQ(vela<Setstate>("setstate")(old), buffer);
  for (int i = 0; i < 3; ++i) seen.push_back(vela<IntFunction>("rand")());
  EXPECT_EQ(seen, expected);
  EXPECT_EQ(vela<Initstate>("initstate")(5, buffer, 4), nullptr);  // too small, as glibc's
}

using DoubleFunction = double();
using DoubleXsubi = double(unsigned short*);
using LongXsubi = long(unsigned short*);
using Seed48 = unsigned short*(unsigned short*);

// Each drand48 function once, in turn: what both implementations are asked.
struct Rand48 {
  DoubleFunction* drand48;
  LongNoArgument* lrand48;
  LongNoArgument* mrand48;
  DoubleXsubi* erand48;
  LongXsubi* nrand48;
  LongXsubi* jrand48;

  std::vector<double> draw(unsigned short xsubi[3]) const {
    return {
        drand48(),      static_cast<double>(lrand48()),      static_cast<double>(mrand48()),
        erand48(xsubi), static_cast<double>(nrand48(xsubi)), static_cast<double>(jrand48(xsubi))};
  }
};

const Rand48 glibc_rand48{::drand48, ::lrand48, ::mrand48, ::erand48, ::nrand48, ::jrand48};

Rand48 vela_rand48() {
  return {vela<DoubleFunction>("drand48"), vela<LongNoArgument>("lrand48"),
          vela<LongNoArgument>("mrand48"), vela<DoubleXsubi>("erand48"),
          vela<LongXsubi>("nrand48"),      vela<LongXsubi>("jrand48")};
}

TEST(RankLibcRand48, TwoRanksInterleavedEachAsAFreshProcess) {
  // glibc's, unseeded as in a fresh process (seed48 of zeros: its seed, multiplier and addend),
  // then after srand48(42).
  unsigned short zeros[3] = {0, 0, 0};
  ::seed48(zeros);
  unsigned short glibc_x[3] = {1, 2, 3};
  std::vector<double> expected_a;
  for (int i = 0; i < 5; ++i) {
    const auto draw = glibc_rand48.draw(glibc_x);
    expected_a.insert(expected_a.end(), draw.begin(), draw.end());
  }
  ::srand48(42);
  unsigned short glibc_y[3] = {4, 5, 6};
  std::vector<double> expected_b;
  for (int i = 0; i < 5; ++i) {
    const auto draw = glibc_rand48.draw(glibc_y);
    expected_b.insert(expected_b.end(), draw.begin(), draw.end());
  }
  const auto a = fresh_state();
  const auto b = fresh_state();
  const Rand48 own = vela_rand48();
  {
    Running running(*b);
    vela<void(long)>("srand48")(42);
  }
  unsigned short x[3] = {1, 2, 3};
  unsigned short y[3] = {4, 5, 6};
  std::vector<double> seen_a;
  std::vector<double> seen_b;
  for (int i = 0; i < 5; ++i) {
    {
      Running running(*a);
      const auto draw = own.draw(x);
      seen_a.insert(seen_a.end(), draw.begin(), draw.end());
    }
    {
      Running running(*b);
      const auto draw = own.draw(y);
      seen_b.insert(seen_b.end(), draw.begin(), draw.end());
    }
  }
  EXPECT_EQ(seen_a, expected_a);
  EXPECT_EQ(seen_b, expected_b);
}

TEST(RankLibcRand48, Seed48AndLcong48OnTheRanksState) {
  unsigned short parameters[7] = {1, 2, 3, 0x1234, 0x5678, 0x9abc, 17};
  unsigned short seed[3] = {7, 8, 9};
  ::lcong48(parameters);
  unsigned short glibc_x[3] = {3, 2, 1};
  const std::vector<double> expected = glibc_rand48.draw(glibc_x);
  unsigned short* glibc_old = ::seed48(seed);
  const std::vector<unsigned short> expected_old(glibc_old, glibc_old + 3);
  const std::vector<double> expected_after = glibc_rand48.draw(glibc_x);

  const auto a = fresh_state();
  const auto b = fresh_state();
  Running running(*a);
  vela<void(unsigned short*)>("lcong48")(parameters);
  unsigned short x[3] = {3, 2, 1};
  EXPECT_EQ(vela_rand48().draw(x), expected);  // erand48 & co use the rank's multiplier
  {
    set_running_rank_libc(b.get());  // another rank's seed48 leaves a's alone
    unsigned short other[3] = {100, 100, 100};
    EXPECT_EQ(vela<Seed48>("seed48")(other), b->drand48.__old_x);
    set_running_rank_libc(a.get());
  }
  unsigned short* old = vela<Seed48>("seed48")(seed);
  EXPECT_EQ(old, a->drand48.__old_x);
  EXPECT_EQ(std::vector<unsigned short>(old, old + 3), expected_old);
  EXPECT_EQ(vela_rand48().draw(x), expected_after);
}

// ----- strtok -----------------------------------------------------------------------------------

using Strtok = char*(char*, const char*);

std::vector<std::string> glibc_tokens(std::string text, const char* delimiters) {
  std::vector<std::string> tokens;
  for (char* token = std::strtok(text.data(), delimiters); token != nullptr;
       token = std::strtok(nullptr, delimiters)) {
    tokens.emplace_back(token);
  }
  return tokens;
}

TEST(RankLibcStrtok, TwoRanksInterleavedEachAsAlone) {
  auto* strtok = vela<Strtok>("strtok");
  const auto a = fresh_state();
  const auto b = fresh_state();
  std::string text_a = "  one two   three four ";
  std::string text_b = "x,,y,z";
  std::vector<std::string> seen_a;
  std::vector<std::string> seen_b;
  char* next_a = text_a.data();
  char* next_b = text_b.data();
  bool going = true;
  while (going) {
    going = false;
    {
      Running running(*a);
      if (char* token = strtok(next_a, " "); token != nullptr) {
        seen_a.emplace_back(token);
        going = true;
      }
      next_a = nullptr;
    }
    {
      Running running(*b);
      if (char* token = strtok(next_b, ","); token != nullptr) {
        seen_b.emplace_back(token);
        going = true;
      }
      next_b = nullptr;
    }
  }
  EXPECT_EQ(seen_a, glibc_tokens("  one two   three four ", " "));
  EXPECT_EQ(seen_b, glibc_tokens("x,,y,z", ","));
  EXPECT_EQ(seen_a.size(), 4u);
}

// ----- localtime, gmtime, ctime, asctime --------------------------------------------------------

using TimeFunction = std::tm*(const std::time_t*);
using Ctime = char*(const std::time_t*);
using Asctime = char*(const std::tm*);

bool same_tm(const std::tm& a, const std::tm& b) {
  return a.tm_sec == b.tm_sec && a.tm_min == b.tm_min && a.tm_hour == b.tm_hour &&
         a.tm_mday == b.tm_mday && a.tm_mon == b.tm_mon && a.tm_year == b.tm_year &&
         a.tm_wday == b.tm_wday && a.tm_yday == b.tm_yday && a.tm_isdst == b.tm_isdst &&
         a.tm_gmtoff == b.tm_gmtoff && std::strcmp(a.tm_zone, b.tm_zone) == 0;
}

TEST(RankLibcTime, EachRankHasItsOwnBuffers) {
  const std::time_t first = 1700000000;
  const std::time_t second = 86400 * 365;
  const std::tm glibc_local = *std::localtime(&first);
  const std::tm glibc_gm = *std::gmtime(&second);
  const std::string glibc_ctime = std::ctime(&first);
  const std::string glibc_asctime = std::asctime(&glibc_gm);
  const auto a = fresh_state();
  const auto b = fresh_state();
  std::tm* local = nullptr;
  {
    Running running(*a);
    local = vela<TimeFunction>("localtime")(&first);
    EXPECT_EQ(local, &a->time);
    EXPECT_TRUE(same_tm(*local, glibc_local));
  }
  {
    Running running(*b);
    std::tm* gm = vela<TimeFunction>("gmtime")(&second);
    EXPECT_EQ(gm, &b->time);
    EXPECT_TRUE(same_tm(*gm, glibc_gm));
    char* text = vela<Asctime>("asctime")(gm);
    EXPECT_EQ(text, b->time_text);
    EXPECT_EQ(std::string(text), glibc_asctime);
  }
  EXPECT_TRUE(same_tm(*local, glibc_local));  // b's calls left a's alone
  {
    Running running(*a);
    char* text = vela<Ctime>("ctime")(&first);
    EXPECT_EQ(text, a->time_text);
    EXPECT_EQ(std::string(text), glibc_ctime);
    EXPECT_EQ(vela<TimeFunction>("gmtime")(&second), local);  // shared with localtime, as glibc's
  }
  EXPECT_EQ(b->time_text, glibc_asctime);
}

// glibc's localtime reads TZ again at each call (its localtime_r does not): so does the rank's.
TEST(RankLibcTime, LocaltimeReadsTzAtEachCallAsGlibcs) {
  const char* saved = std::getenv("TZ");
  const std::string saved_tz = saved != nullptr ? saved : "";
  const std::time_t time = 1700000000;
  const auto change_tz = [] {
    setenv("TZ", "AAA3", 1);
    tzset();
    setenv("TZ", "BBB-5", 1);  // no tzset
  };
  change_tz();
  EXPECT_EQ(std::localtime(&time)->tm_gmtoff, 5 * 3600);
  change_tz();
  const auto state = fresh_state();
  {
    Running running(*state);
    EXPECT_EQ(vela<TimeFunction>("localtime")(&time)->tm_gmtoff, 5 * 3600);
  }
  if (saved != nullptr) {
    setenv("TZ", saved_tz.c_str(), 1);
  } else {
    unsetenv("TZ");
  }
  tzset();
}

TEST(RankLibcTime, AsctimeAsGlibcsOnAnyFields) {
  std::vector<std::tm> times(7);
  times[0].tm_year = 12000;  // past asctime_r's 26 bytes
  times[0].tm_wday = 9;
  times[0].tm_mon = -1;
  times[0].tm_mday = 123456;
  times[1].tm_year = INT_MAX - 1900;
  times[1].tm_wday = 6;
  times[1].tm_mon = 11;
  times[2].tm_year = -3000;
  times[2].tm_hour = -5;
  times[2].tm_sec = 61;
  times[3].tm_year = 70;
  times[3].tm_mon = 12;
  times[3].tm_wday = -1;
  times[4].tm_year = INT_MAX - 1899;  // EOVERFLOW
  times[5].tm_mday = INT_MIN;
  times[5].tm_min = INT_MAX;
  times[6].tm_year = 123;
  times[6].tm_mday = 5;
  times[6].tm_mon = 4;
  times[6].tm_wday = 3;
  const auto state = fresh_state();
  for (const auto& time : times) {
    errno = 0;
    const char* glibc = std::asctime(&time);
    const std::string expected = glibc != nullptr ? glibc : "null";
    const int expected_errno = errno;
    Running running(*state);
    errno = 0;
    const char* own = vela<Asctime>("asctime")(&time);
    EXPECT_EQ(own != nullptr ? std::string(own) : "null", expected);
    EXPECT_EQ(errno, expected_errno);
  }
  Running running(*state);
  errno = 0;
  EXPECT_EQ(vela<Asctime>("asctime")(nullptr), nullptr);
  EXPECT_EQ(errno, EINVAL);
}

// ----- outside ranks ----------------------------------------------------------------------------

TEST(RankLibcOutsideRanks, EveryFunctionIsGlibcs) {
  ASSERT_EQ(running_rank_libc(), nullptr);
  // rand, srand, random, srandom: glibc's table.
  vela<SeedFunction>("srand")(9);
  const int first = vela<IntFunction>("rand")();
  const long second = vela<LongNoArgument>("random")();
  std::srand(9);
  EXPECT_EQ(first, std::rand());
  EXPECT_EQ(second, ::random());
  vela<SeedFunction>("srandom")(9);
  EXPECT_EQ(std::rand(), first);
  // initstate, setstate: glibc's buffers.
  alignas(std::int32_t) static char buffer[64];
  char* old = vela<char*(unsigned, char*, std::size_t)>("initstate")(3, buffer, sizeof buffer);
  EXPECT_NE(old, nullptr);
  EXPECT_EQ(::setstate(old), buffer);
  EXPECT_EQ(vela<char*(char*)>("setstate")(buffer), old);
  ::setstate(old);
  // drand48 and family: glibc's seed.
  vela<void(long)>("srand48")(5);
  const double drawn = vela<DoubleFunction>("drand48")();
  ::srand48(5);
  EXPECT_EQ(drawn, ::drand48());
  unsigned short seed[3] = {1, 2, 3};
  unsigned short* seed_buffer = vela<Seed48>("seed48")(seed);
  EXPECT_EQ(seed_buffer, ::seed48(seed));
  EXPECT_EQ(seed_buffer[0], 1);
  unsigned short parameters[7] = {1, 2, 3, 5, 0, 0, 11};
  vela<void(unsigned short*)>("lcong48")(parameters);
  unsigned short x[3] = {1, 0, 0};
  unsigned short x_again[3] = {1, 0, 0};
  EXPECT_EQ(vela<LongXsubi>("jrand48")(x), ::jrand48(x_again));  // the multiplier 5, addend 11
  EXPECT_EQ(x[0], 16);
  ::lcong48(parameters);
  const long l = vela<LongNoArgument>("lrand48")();
  const long m = vela<LongNoArgument>("mrand48")();
  ::lcong48(parameters);
  EXPECT_EQ(l, ::lrand48());
  EXPECT_EQ(m, ::mrand48());
  unsigned short y[3] = {9, 9, 9};
  unsigned short y_again[3] = {9, 9, 9};
  EXPECT_EQ(vela<DoubleXsubi>("erand48")(y), ::erand48(y_again));
  EXPECT_EQ(vela<LongXsubi>("nrand48")(y), ::nrand48(y_again));
  unsigned short zeros[3] = {0, 0, 0};
  ::seed48(zeros);
  // strtok: glibc's place.
  char text[] = "a b c";
  EXPECT_STREQ(vela<Strtok>("strtok")(text, " "), "a");
  EXPECT_STREQ(std::strtok(nullptr, " "), "b");
  EXPECT_STREQ(vela<Strtok>("strtok")(nullptr, " "), "c");
  // localtime, gmtime, ctime, asctime: glibc's buffers.
  const std::time_t time = 1000000000;
  EXPECT_EQ(vela<TimeFunction>("localtime")(&time), std::localtime(&time));
  EXPECT_EQ(vela<TimeFunction>("gmtime")(&time), std::gmtime(&time));
  EXPECT_EQ(vela<Ctime>("ctime")(&time), std::ctime(&time));
  EXPECT_EQ(vela<Asctime>("asctime")(std::gmtime(&time)), std::asctime(std::gmtime(&time)));
}

// ----- the symbols ------------------------------------------------------------------------------

TEST(RankLibcSymbols, SortedCompleteAndBound) {
  const auto symbols = rank_libc_symbols();
  for (std::size_t i = 1; i < symbols.size(); ++i) {
    EXPECT_LT(std::strcmp(symbols[i - 1].name, symbols[i].name), 0)
        << symbols[i - 1].name << " before " << symbols[i].name;
  }
  const char* functions[] = {
      "getopt",  "getopt_long", "getopt_long_only", "__posix_getopt", "rand",    "srand",
      "random",  "srandom",     "initstate",        "setstate",       "drand48", "erand48",
      "lrand48", "nrand48",     "mrand48",          "jrand48",        "srand48", "seed48",
      "lcong48", "strtok",      "localtime",        "gmtime",         "ctime",   "asctime"};
  for (const char* name : functions) {
    const LibcSymbol* symbol = find_symbol(name);
    ASSERT_NE(symbol, nullptr) << name;
    EXPECT_NE(symbol->function, nullptr) << name;
  }
  struct Variable {
    const char* name;
    std::size_t offset;
  };
  const Variable variables[] = {{"optarg", offsetof(RankLibc, optarg)},
                                {"optind", offsetof(RankLibc, optind)},
                                {"opterr", offsetof(RankLibc, opterr)},
                                {"optopt", offsetof(RankLibc, optopt)}};
  for (const auto& variable : variables) {
    const LibcSymbol* symbol = find_symbol(variable.name);
    ASSERT_NE(symbol, nullptr) << variable.name;
    EXPECT_EQ(symbol->function, nullptr) << variable.name;
    EXPECT_EQ(symbol->field_offset, variable.offset) << variable.name;
  }
  EXPECT_EQ(symbols.size(), std::size(functions) + std::size(variables));
}

TEST(RankLibcSymbols, FreshStateIsAFreshProcesss) {
  const auto state = fresh_state();
  EXPECT_EQ(state->optarg, nullptr);
  EXPECT_EQ(state->optind, 1);
  EXPECT_EQ(state->opterr, 1);
  EXPECT_EQ(state->optopt, '?');
  EXPECT_EQ(running_rank_libc(), nullptr);
  set_running_rank_libc(state.get());
  EXPECT_EQ(running_rank_libc(), state.get());
  set_running_rank_libc(nullptr);
}

}  // namespace
