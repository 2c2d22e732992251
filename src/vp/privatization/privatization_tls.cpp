// The TLS method (--vp-tls-globals): each rank has its own static TLS area, and switching a
// rank in points the thread pointer (the FS base on x86-64) at it. The executable's and the
// shared libraries' thread_local variables there start from their initialization images; the C
// library's block (errno, malloc's per-thread cache, the locale) and the thread descriptor are
// the PE thread's, copied in at switch-in and back at switch-out (a constant size), so the
// program's thread_local variables cost nothing per switch whatever their number.
#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "privatization/privatization_detail.hpp"
#include "privatization/thread_locals.hpp"
#include "vela/rt/rank_seam.hpp"
#include "vela/vp/vp.hpp"

#if defined(VELA_SANITIZE_FIBERS) || defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define VELA_TLS_SANITIZED 1
#elif defined(__x86_64__) && defined(__linux__) && defined(__GLIBC__)
#define VELA_TLS_SWITCH 1
#include <asm/prctl.h>
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>
#if __has_include(<sys/rseq.h>)
#include <sys/rseq.h>
#define VELA_HAVE_RSEQ 1
#endif
#endif

namespace vela::vp::detail {

namespace {

constexpr const char* option = "--vp-tls-globals";

#if defined(VELA_TLS_SWITCH)

// Thread-locals of the executable that keep the PE thread's value in a rank (the runtime's):
// at most max_carried ranges, appended under the mutex and read by the switch without a lock.
struct Carried {
  std::size_t offset = 0;  // the range starts at tp - offset
  std::size_t bytes = 0;
};
constexpr std::size_t max_carried = 32;
std::array<Carried, max_carried> carried;
std::atomic<std::size_t> carried_count{0};
std::mutex carried_mutex;

constexpr unsigned long hwcap2_fsgsbase = 1UL << 1;  // HWCAP2_FSGSBASE
std::atomic<bool> use_fsgsbase{true};                // and the kernel allows it

void write_thread_pointer(bool fsgsbase, std::byte* tp) noexcept {
  if (fsgsbase && use_fsgsbase.load(std::memory_order_relaxed)) {
    asm volatile("wrfsbase %0" : : "r"(tp) : "memory");
  } else {
    syscall(SYS_arch_prctl, ARCH_SET_FS, tp);
  }
}

// A module's static TLS block on the calling thread.
struct Module {
  std::size_t offset = 0;  // the block starts at tp - offset
  std::size_t bytes = 0;   // p_memsz
  const std::byte* image = nullptr;
  std::size_t image_bytes = 0;  // p_filesz
  bool executable = false;
};

struct Scan {
  std::byte* tp = nullptr;
  std::size_t static_bytes = 0;
  bool first = true;
  std::vector<Module> modules;
};

// Each object's PT_TLS segment whose block lies in the static TLS area; the executable is the
// first object dl_iterate_phdr reports. Blocks elsewhere are dynamic TLS, which stays the
// thread's.
int scan_module(dl_phdr_info* info, std::size_t, void* data) {
  Scan& scan = *static_cast<Scan*>(data);
  const bool executable = scan.first;
  scan.first = false;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    if (segment.p_type != PT_TLS) continue;
    auto* block = static_cast<std::byte*>(info->dlpi_tls_data);
    if (block == nullptr || block < scan.tp - scan.static_bytes || block >= scan.tp) return 0;
    scan.modules.push_back({static_cast<std::size_t>(scan.tp - block), segment.p_memsz,
                            reinterpret_cast<const std::byte*>(info->dlpi_addr + segment.p_vaddr),
                            segment.p_filesz, executable});
  }
  return 0;
}

std::vector<Module> scan_modules(std::size_t static_bytes) {
  Scan scan;
  scan.tp = thread_pointer();
  scan.static_bytes = static_bytes;
  dl_iterate_phdr(&scan_module, &scan);
  return std::move(scan.modules);
}

// What the layout could not be, or empty.
std::string measure(TlsLayout& layout) {
  using StaticInfo = void (*)(std::size_t*, std::size_t*);
  auto* static_info = reinterpret_cast<StaticInfo>(dlsym(RTLD_DEFAULT, "_dl_get_tls_static_info"));
  const auto* descriptor =
      static_cast<const std::uint32_t*>(dlsym(RTLD_DEFAULT, "_thread_db_sizeof_pthread"));
  if (static_info == nullptr || descriptor == nullptr) {
    return "the C library does not tell the size of its static TLS and thread descriptor";
  }
  std::size_t static_size = 0;
  std::size_t alignment = 0;
  static_info(&static_size, &alignment);
  layout.descriptor_bytes = *descriptor;
  layout.alignment = std::max<std::size_t>(alignment, 64);
  if (layout.descriptor_bytes < 64 || static_size <= layout.descriptor_bytes) {
    return "the C library's static TLS is laid out in an unexpected way";
  }
  // glibc counts the descriptor (TLS_TCB_SIZE) in the static TLS size.
  layout.static_bytes = static_size - layout.descriptor_bytes;

  std::byte* tp = thread_pointer();
  void* self = nullptr;
  std::memcpy(&self, tp + 16, sizeof self);  // tcbhead_t::self
  if (self != reinterpret_cast<void*>(pthread_self())) {
    return "the thread pointer does not point at the C library's thread descriptor";
  }
  // The C library's block is the one holding errno.
  const auto* errno_address = reinterpret_cast<const std::byte*>(&errno);
  for (const Module& m : scan_modules(layout.static_bytes)) {
    const std::byte* block = tp - m.offset;
    if (m.executable) {
      layout.executable_offset = m.offset;
      layout.executable_bytes = m.bytes;
    }
    if (errno_address >= block && errno_address < block + m.bytes) {
      layout.c_library_offset = m.offset;
      layout.c_library_bytes = m.bytes;
    }
  }
  if (layout.c_library_bytes == 0) return "the C library's static TLS block was not found";
#if defined(VELA_HAVE_RSEQ)
  if (__rseq_size > 0) {
    // The kernel's struct rseq is 32 bytes even where glibc reports fewer used.
    layout.rseq_begin = __rseq_offset;
    layout.rseq_end = __rseq_offset + std::max<std::ptrdiff_t>(__rseq_size, 32);
  }
#endif
  layout.fsgsbase = (getauxval(AT_HWCAP2) & hwcap2_fsgsbase) != 0;
  return {};
}

struct Measured {
  TlsLayout layout;
  std::string error;
};

const Measured& measured() {
  static const Measured m = [] {
    Measured result;
    result.error = measure(result.layout);
    return result;
  }();
  return m;
}

// A carried thread-local: mostly one pointer, copied without a call to memcpy.
inline void copy_small(std::byte* to, const std::byte* from, std::size_t bytes) noexcept {
  if (bytes == 8) {
    std::memcpy(to, from, 8);
  } else {
    std::memcpy(to, from, bytes);
  }
}

// Copies [tp + begin, tp + end) of a rank's block back to the thread's (at home), around the
// rseq area the kernel writes; with `compare`, only when it differs.
void copy_back(const TlsLayout& layout, std::byte* home, const std::byte* tp, std::ptrdiff_t begin,
               std::ptrdiff_t end, bool compare) noexcept {
  const auto part = [&](std::ptrdiff_t b, std::ptrdiff_t e) {
    if (b >= e) return;
    const auto bytes = static_cast<std::size_t>(e - b);
    if (compare && std::memcmp(home + b, tp + b, bytes) == 0) return;
    std::memcpy(home + b, tp + b, bytes);
  };
  if (layout.rseq_end <= begin || layout.rseq_begin >= end) {
    part(begin, end);
  } else {
    part(begin, layout.rseq_begin);
    part(layout.rseq_end, end);
  }
}

void carry_runtime_thread_locals() {
  carry_thread_local(&rt::detail::current_pe, sizeof rt::detail::current_pe);
  carry_private_block();
}

#endif

}  // namespace

std::byte* thread_pointer() noexcept {
#if defined(__x86_64__)
  std::byte* tp;
  asm volatile("mov %%fs:0, %0" : "=r"(tp));
  return tp;
#else
  return nullptr;
#endif
}

#if defined(VELA_TLS_SWITCH)

const TlsLayout& tls_layout() {
  const Measured& m = measured();
  if (!m.error.empty()) {
    throw Error(std::string(option) +
                " cannot give ranks their own thread_local variables: " + m.error);
  }
  static std::once_flag carried_runtime;
  std::call_once(carried_runtime, carry_runtime_thread_locals);
  return m.layout;
}

bool tls_use_fsgsbase(bool wanted) {
  use_fsgsbase.store(wanted, std::memory_order_relaxed);
  return wanted && tls_layout().fsgsbase;
}

void carry_thread_local(void* address_on_this_thread, std::size_t bytes) {
  const Measured& m = measured();
  if (!m.error.empty() || bytes == 0) return;
  auto* address = static_cast<std::byte*>(address_on_this_thread);
  std::byte* tp = thread_pointer();
  std::byte* executable = tp - m.layout.executable_offset;
  if (address < executable || address + bytes > executable + m.layout.executable_bytes) return;
  const Carried range{static_cast<std::size_t>(tp - address), bytes};
  std::lock_guard lock(carried_mutex);
  const std::size_t count = carried_count.load(std::memory_order_relaxed);
  for (std::size_t i = 0; i < count; ++i) {
    const Carried& c = carried[i];
    if (range.offset <= c.offset && range.offset - range.bytes >= c.offset - c.bytes) return;
  }
  if (count == max_carried) {
    throw Error("vela::vp::detail::carry_thread_local: more than " + std::to_string(max_carried) +
                " carried thread-local ranges");
  }
  carried[count] = range;
  carried_count.store(count + 1, std::memory_order_release);
}

TlsBlock::TlsBlock() {
  const TlsLayout& layout = tls_layout();
  // [static TLS][descriptor], tp aligned as the C library aligns it.
  const std::size_t below_tp =
      (layout.static_bytes + layout.alignment - 1) / layout.alignment * layout.alignment;
  memory_ = static_cast<std::byte*>(
      ::operator new (below_tp + layout.descriptor_bytes, std::align_val_t{layout.alignment}));
  std::memset(memory_, 0, below_tp + layout.descriptor_bytes);
  tp_ = memory_ + below_tp;
  // Fresh copies of every module's thread_local variables (.tdata's image, .tbss zero), but
  // the C library's, which the switch brings from the thread. Modules loaded later get zeros.
  for (const Module& m : scan_modules(layout.static_bytes)) {
    if (m.offset == layout.c_library_offset) continue;
    std::memcpy(tp_ - m.offset, m.image, std::min(m.image_bytes, m.bytes));
  }
}

TlsBlock::~TlsBlock() {
  ::operator delete (memory_, std::align_val_t{tls_layout().alignment});
}

void TlsBlock::switch_in() noexcept {
  const TlsLayout& layout = measured().layout;
  std::byte* home = thread_pointer();
  std::byte* tp = tp_;
  home_ = home;
  const std::size_t library = layout.c_library_offset;
  std::memcpy(tp - library, home - library, layout.c_library_bytes);
  std::memcpy(tp, home, layout.descriptor_bytes);
  // The TCB's self-pointer is what code reads to find TLS (%fs:0): the block's own.
  std::memcpy(tp, &tp, sizeof tp);
  const std::size_t count = carried_count.load(std::memory_order_acquire);
  for (std::size_t i = 0; i < count; ++i) {
    copy_small(tp - carried[i].offset, home - carried[i].offset, carried[i].bytes);
  }
  write_thread_pointer(layout.fsgsbase, tp);
}

void TlsBlock::switch_out() noexcept {
  const TlsLayout& layout = measured().layout;
  std::byte* home = home_;
  std::byte* tp = tp_;
  const std::size_t count = carried_count.load(std::memory_order_acquire);
  for (std::size_t i = 0; i < count; ++i) {
    copy_small(home - carried[i].offset, tp - carried[i].offset, carried[i].bytes);
  }
  const auto library = static_cast<std::ptrdiff_t>(layout.c_library_offset);
  copy_back(layout, home, tp, -library,
            -library + static_cast<std::ptrdiff_t>(layout.c_library_bytes), false);
  // The descriptor goes back when the rank changed it (rarely: a new thread-specific key, a
  // robust mutex), all but the TCB's self-pointer and the rseq area. Other threads must not
  // change it meanwhile (pthread_cancel, the setuid family, dlclose): documented.
  copy_back(layout, home, tp, sizeof(void*), static_cast<std::ptrdiff_t>(layout.descriptor_bytes),
            true);
  write_thread_pointer(layout.fsgsbase, home);
  home_ = nullptr;
}

std::size_t TlsBlock::bytes_per_switch() const noexcept {
  const TlsLayout& layout = measured().layout;
  std::size_t carried_bytes = 0;
  const std::size_t count = carried_count.load(std::memory_order_acquire);
  for (std::size_t i = 0; i < count; ++i) carried_bytes += carried[i].bytes;
  // In: the C library's block, the descriptor, the carried ranges; out: the same, the
  // descriptor compared with the thread's (both read).
  return 2 * layout.c_library_bytes + 3 * layout.descriptor_bytes + 2 * carried_bytes;
}

#else

const TlsLayout& tls_layout() {
#if defined(VELA_TLS_SANITIZED)
  throw Error(std::string(option) +
              " is not available in sanitizer builds: the sanitizer runtimes keep per-thread "
              "state in static TLS, which a rank's own TLS block would lack");
#else
  throw Error(std::string(option) + " needs x86-64 Linux with the GNU C library");
#endif
}

bool tls_use_fsgsbase(bool) {
  return false;
}

void carry_thread_local(void*, std::size_t) {}

TlsBlock::TlsBlock() {
  tls_layout();  // throws
}
TlsBlock::~TlsBlock() = default;
void TlsBlock::switch_in() noexcept {}
void TlsBlock::switch_out() noexcept {}
std::size_t TlsBlock::bytes_per_switch() const noexcept {
  return 0;
}

#endif

}  // namespace vela::vp::detail
