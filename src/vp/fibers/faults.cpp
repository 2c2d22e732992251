// Fault reports of ranks (fibers/faults.hpp). The message is formatted by hand into a buffer
// on the signal stack (no allocation, no stdio: the fault may have struck inside malloc or
// printf) and written with one write(2).
#include "fibers/faults.hpp"

#include <dlfcn.h>
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

#include "fibers/rank.hpp"
#include "image/program_image.hpp"

namespace vela::vp::detail {

namespace {

struct Installed {
  std::size_t stack_bytes = 0;
  int process = 0;
  struct sigaction old_segv {};
  struct sigaction old_bus {};
};
Installed installed;
bool active = false;  // written by the run's thread before the PEs run ranks, then only read

// Bytes below a rank's stack in which a fault counts as its stack overflowing: the guard page,
// and the frames a deep call may skip over it with.
constexpr std::uintptr_t overflow_reach = 64 * 1024;

// A message under construction in a fixed buffer (characters past its end are dropped).
struct Line {
  char text[512];
  std::size_t size = 0;
  Line& operator<<(const char* s) {
    while (*s != '\0' && size < sizeof text) text[size++] = *s++;
    return *this;
  }
  Line& operator<<(std::uint64_t v) {
    char digits[24];
    int n = 0;
    do {
      digits[n++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v != 0);
    while (n > 0 && size < sizeof text) text[size++] = digits[--n];
    return *this;
  }
  Line& hex(std::uintptr_t v) {
    *this << "0x";
    char digits[20];
    int n = 0;
    do {
      digits[n++] = "0123456789abcdef"[v & 15];
      v >>= 4;
    } while (v != 0);
    while (n > 0 && size < sizeof text) text[size++] = digits[--n];
    return *this;
  }
};

std::uintptr_t faulting_pc(void* context) {
#if defined(__x86_64__)
  return static_cast<std::uintptr_t>(static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return static_cast<std::uintptr_t>(static_cast<ucontext_t*>(context)->uc_mcontext.pc);
#else
  (void)context;
  return 0;
#endif
}

void report(int signal, siginfo_t* info, void* context) {
  const RankContext* rank = current();
  if (rank == nullptr || rank->stack == nullptr) return;  // not rank code: nothing to add
  const auto at = reinterpret_cast<std::uintptr_t>(info->si_addr);
  const auto bottom = reinterpret_cast<std::uintptr_t>(rank->stack);
  Line line;
  line << "rank " << static_cast<std::uint64_t>(rank->rank) << " on PE "
       << static_cast<std::uint64_t>(rank->element != nullptr ? rank->element->pe() : 0)
       << " (process " << static_cast<std::uint64_t>(installed.process) << "): ";
  if (signal == SIGSEGV && at < bottom && bottom - at <= overflow_reach) {
    line << "stack overflow in its " << static_cast<std::uint64_t>(installed.stack_bytes)
         << "-byte stack (use --vp-stack)\n";
  } else {
    line << (signal == SIGSEGV ? "segmentation fault" : "bus error") << " at ";
    line.hex(at) << " while running ";
    const std::uintptr_t pc = faulting_pc(context);
    Dl_info where{};
    const ProgramImage* image = program_image();
    const char* in_image =
        image == nullptr ? nullptr
                         : image->function_at(rank->image_whole ? rank->image : image->shared(),
                                              reinterpret_cast<void*>(pc));
    if (in_image != nullptr) {
      line << in_image;
    } else if (pc != 0 && dladdr(reinterpret_cast<void*>(pc), &where) != 0 &&
               where.dli_sname != nullptr) {
      line << where.dli_sname;
    } else {
      line << "code at ";
      line.hex(pc);
    }
    line << "\n";
  }
  [[maybe_unused]] const ssize_t written = write(STDERR_FILENO, line.text, line.size);
}

// Reports, then puts back the handler there was before and returns: the faulting instruction
// runs again and faults into it (the default: the process dies of the signal).
[[maybe_unused]] void on_fault(int signal, siginfo_t* info, void* context) {
  report(signal, info, context);
  sigaction(signal, signal == SIGSEGV ? &installed.old_segv : &installed.old_bus, nullptr);
}

}  // namespace

FaultReports::FaultReports(std::size_t stack_bytes, int process) {
#if !defined(VELA_SANITIZE_FIBERS)
  if (active) return;  // a run of ranks inside another's: the outer one reports
  installed.stack_bytes = stack_bytes;
  installed.process = process;
  struct sigaction action {};
  action.sa_sigaction = on_fault;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  sigaction(SIGSEGV, &action, &installed.old_segv);
  sigaction(SIGBUS, &action, &installed.old_bus);
  active = installed_ = true;
#else
  (void)stack_bytes;
  (void)process;
#endif
}

FaultReports::~FaultReports() {
  if (!installed_) return;
  sigaction(SIGSEGV, &installed.old_segv, nullptr);
  sigaction(SIGBUS, &installed.old_bus, nullptr);
  active = false;
}

void ensure_signal_stack() {
#if !defined(VELA_SANITIZE_FIBERS)
  thread_local bool made = false;
  if (made) [[likely]]
    return;
  made = true;
  // Never freed: a PE thread keeps it until it ends (the system takes it back with the
  // process), and a later run on the same thread finds it made.
  constexpr std::size_t bytes = 64 * 1024;
  void* memory = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) return;  // no report then, the fault still ends the process
  stack_t stack{};
  stack.ss_sp = memory;
  stack.ss_size = bytes;
  sigaltstack(&stack, nullptr);
#endif
}

}  // namespace vela::vp::detail
