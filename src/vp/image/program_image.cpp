// The loaded program and its instances (program_image.hpp): mapping, exact relocation,
// constructors and exit functions per instance, and moving an instance's bytes.
#include "image/program_image.hpp"

#include <dlfcn.h>
#include <link.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <string_view>

#include "image/fortran_units.hpp"
#include "image/rank_libc.hpp"
#include "memory/active_heap.hpp"
#include "memory/stacks.hpp"
#include "vela/rt/rank_seam.hpp"
#include "vela/vp/vp.hpp"

// libgcc's registration of unwind tables that no loaded object's headers describe.
extern "C" void __register_frame(void* begin);
extern "C" void __deregister_frame(void* begin);
extern "C" int __cxa_atexit(void (*function)(void*), void* argument, void* dso);

namespace vela::vp::detail {

// What the unwinder asks of _Unwind_Find_FDE besides the FDE (libgcc's layout).
struct dwarf_eh_bases {
  void* tbase;
  void* dbase;
  void* func;
};

namespace {

constexpr std::size_t page = 4096;
// Exit functions an instance can register (atexit, C++ static destructors, thread_local
// destructors): their array's pages are committed as they are used.
constexpr std::size_t max_exits = 1 << 16;

std::size_t round_up(std::size_t n, std::size_t to) {
  return (n + to - 1) / to * to;
}

struct ExitFunction {
  void (*function)(void*);
  void* argument;
};

// The start of an instance's tail: its C library state first (running_rank_libc() points
// here, which is how the replacements below find the running instance), then its counters.
struct Tail {
  RankLibc libc;
  std::byte* base = nullptr;  // the instance's start
  std::uint64_t exits = 0;    // ExitFunctions registered
  bool whole = false;         // a whole instance's tail (else a tail beside the shared one)
};

std::atomic<ProgramImage*> current_image{nullptr};
// Of the image this process runs: where an instance's thread-locals and exit functions sit.
std::size_t tls_block_offset = 0;
std::size_t exit_array_offset = 0;
// The instance shared by every rank (--vp-privatize none and copy), for exit functions
// registered outside ranks.
std::atomic<std::byte*> shared_instance{nullptr};

Tail* running_tail() noexcept {
  RankLibc* libc = running_rank_libc();
  if (libc != nullptr) return reinterpret_cast<Tail*>(libc);
  ProgramImage* image = current_image.load(std::memory_order_acquire);
  std::byte* shared = shared_instance.load(std::memory_order_acquire);
  if (image == nullptr || shared == nullptr) return nullptr;
  return reinterpret_cast<Tail*>(image->libc(shared));
}

bool record_exit(void (*function)(void*), void* argument) noexcept {
  Tail* tail = running_tail();
  if (tail == nullptr) return false;
  if (tail->exits == max_exits) {
    static const char message[] =
        "vela: a rank registered more than 65536 exit functions (atexit, static destructors)\n";
    (void)!write(STDERR_FILENO, message, sizeof message - 1);
    std::abort();
  }
  auto* exits = reinterpret_cast<ExitFunction*>(tail->base + exit_array_offset);
  exits[tail->exits++] = {function, argument};
  return true;
}

// Bound in place of the C library's: exit functions of image code belong to its instance.
extern "C" int vela_image_cxa_atexit(void (*function)(void*), void* argument, void* dso) {
  if (record_exit(function, argument)) return 0;
  return __cxa_atexit(function, argument, dso);
}

extern "C" int vela_image_atexit(void (*function)()) {
  auto* f = reinterpret_cast<void (*)(void*)>(function);  // called with one ignored argument
  if (record_exit(f, nullptr)) return 0;
  return __cxa_atexit(f, nullptr, nullptr);
}

// Bound in place of libstdc++'s __cxa_thread_atexit (what g++ calls for a thread_local object
// with a destructor) and the C library's __cxa_thread_atexit_impl: a rank is its instance's one
// thread, so the destructor runs at the rank's end, before the exit functions registered
// earlier (as a process's exit runs its thread's first). Left to the C library it would run when
// the PE thread exits, after the instance and its code are gone.
extern "C" int vela_image_thread_atexit(void (*function)(void*), void* object, void* /*dso*/) {
  if (record_exit(function, object)) return 0;
  return __cxa_atexit(function, object, nullptr);
}

// crtbegin's destructor calls this at the instance's end: its exit functions ran already.
extern "C" void vela_image_cxa_finalize(void* /*dso*/) {}

// Bound in place of the C library's exit: the first rank to call it ends the process, after
// its own exit functions and destructors (as its process's exit would run them); a rank
// calling it meanwhile on another PE waits (glibc's exit is not safe to run twice at once).
extern "C" [[noreturn]] void vela_image_exit(int status) {
  static std::mutex first;
  first.lock();  // never unlocked: the process ends
  Tail* tail = reinterpret_cast<Tail*>(running_rank_libc());
  const ProgramImage* image = current_image.load(std::memory_order_acquire);
  std::byte* shared = shared_instance.load(std::memory_order_acquire);
  if (tail == nullptr && image != nullptr && shared != nullptr) {
    image->destruct(shared);  // the instance every rank shares (none, copy)
  } else if (tail != nullptr && image != nullptr) {
    if (tail->whole) {
      image->destruct(tail->base);
    } else {
      image->run_exits(tail->base);
    }
  }
  std::exit(status);
}

struct TlsIndex {
  std::uint64_t module;  // the instance's start (Vela writes it so)
  std::uint64_t offset;
};

// Bound in place of the dynamic linker's: a thread_local variable of the image lives in its
// instance's thread-local block.
// The running rank's block when it has a tail of its own (auto: its instance; tls: its tail
// beside the shared instance), else the instance's that the module word names.
extern "C" void* vela_image_tls_get_addr(TlsIndex* index) {
  RankLibc* libc = running_rank_libc();
  std::byte* base = libc != nullptr ? reinterpret_cast<Tail*>(libc)->base
                                    : reinterpret_cast<std::byte*>(index->module);
  return base + tls_block_offset + index->offset;
}

// Bound in place of libgfortran's, which a Fortran main program calls first: it keeps the
// program's path, which the C library allocates (realpath), for the process.
extern "C" void vela_image_gfortran_set_args(int argc, char** argv) {
  using SetArgs = void (*)(int, char**);
  static const auto next = reinterpret_cast<SetArgs>(dlsym(RTLD_DEFAULT, "_gfortran_set_args"));
  const HeapPause process_heap;
  if (next != nullptr) next(argc, argv);
}

// A Fortran STOP in a rank ends that rank as a return from its main would, its status the
// stop code (0 without one); the process's other ranks go on. Thrown from the bound stop
// functions below through the program's frames (gfortran's code has unwind tables), caught
// around main (call_main).
struct RankStop {
  int status;
};

// What gfortran prints for a STOP with a code or a message (to stderr, as it does).
void say_stop(const char* what, const char* text, std::size_t length, bool quiet) {
  if (quiet || text == nullptr) return;
  std::fprintf(stderr, "%s %.*s\n", what, static_cast<int>(length), text);
}

// Bound in place of libgfortran's STOP and ERROR STOP. ERROR STOP ends the whole run with its
// code (1 with a message), as MPI_Abort does: an error termination of one process of an MPI
// program ends the job.
extern "C" [[noreturn]] void vela_image_stop_numeric(int code, bool quiet) {
  if (!quiet) std::fprintf(stderr, "STOP %d\n", code);
  throw RankStop{code};
}

extern "C" [[noreturn]] void vela_image_stop_string(const char* text, std::size_t length,
                                                    bool quiet) {
  say_stop("STOP", text, length, quiet);
  throw RankStop{0};
}

extern "C" [[noreturn]] void vela_image_error_stop_numeric(int code, bool quiet) {
  if (!quiet) std::fprintf(stderr, "ERROR STOP %d\n", code);
  std::fflush(stderr);
  vela::vp::abort(code);
}

extern "C" [[noreturn]] void vela_image_error_stop_string(const char* text, std::size_t length,
                                                          bool quiet) {
  say_stop("ERROR STOP", text, length, quiet);
  std::fflush(stderr);
  vela::vp::abort(1);
}

struct Special {
  const char* name;
  void* function;
};
const Special specials[] = {
    {"__cxa_atexit", reinterpret_cast<void*>(&vela_image_cxa_atexit)},
    {"__cxa_finalize", reinterpret_cast<void*>(&vela_image_cxa_finalize)},
    {"__cxa_thread_atexit", reinterpret_cast<void*>(&vela_image_thread_atexit)},
    {"__cxa_thread_atexit_impl", reinterpret_cast<void*>(&vela_image_thread_atexit)},
    {"__tls_get_addr", reinterpret_cast<void*>(&vela_image_tls_get_addr)},
    {"_gfortran_error_stop_numeric", reinterpret_cast<void*>(&vela_image_error_stop_numeric)},
    {"_gfortran_error_stop_string", reinterpret_cast<void*>(&vela_image_error_stop_string)},
    {"_gfortran_set_args", reinterpret_cast<void*>(&vela_image_gfortran_set_args)},
    {"_gfortran_stop_numeric", reinterpret_cast<void*>(&vela_image_stop_numeric)},
    {"_gfortran_stop_string", reinterpret_cast<void*>(&vela_image_stop_string)},
    {"atexit", reinterpret_cast<void*>(&vela_image_atexit)},
    {"exit", reinterpret_cast<void*>(&vela_image_exit)},
};

// Vela's function bound in place of `name` (above, and the Fortran I/O statements of
// fortran_units.hpp), or null.
void* special_for(const std::string& name) {
  for (const Special& x : specials) {
    if (name == x.name) return x.function;
  }
  if (!name.starts_with("_gfortran_")) return nullptr;
  int count = 0;
  const FortranSpecial* fortran = fortran_unit_specials(&count);
  for (int i = 0; i < count; ++i) {
    if (name == fortran[i].name) return fortran[i].function;
  }
  return nullptr;
}

const LibcSymbol* rank_libc_symbol(const std::string& name) {
  const auto symbols = rank_libc_symbols();
  const auto it = std::lower_bound(
      symbols.begin(), symbols.end(), name,
      [](const LibcSymbol& s, const std::string& n) { return std::strcmp(s.name, n.c_str()) < 0; });
  return it != symbols.end() && name == it->name ? &*it : nullptr;
}

void* map_fixed(std::byte* at, std::size_t bytes, int prot, int fd, std::size_t offset) {
  const int flags = MAP_PRIVATE | MAP_FIXED | (fd < 0 ? MAP_ANONYMOUS | MAP_NORESERVE : 0);
  void* p = mmap(at, bytes, prot, flags, fd, static_cast<off_t>(offset));
  if (p == MAP_FAILED) {
    throw Error("program image: cannot map " + std::to_string(bytes) + " bytes at " +
                std::to_string(reinterpret_cast<std::uintptr_t>(at)) + ": " + std::strerror(errno) +
                " (too many ranks for vm.max_map_count?)");
  }
  return p;
}

// Where this executable lies (this function is in it).
const void* executable_base() {
  Dl_info info{};
  dladdr(reinterpret_cast<void*>(&executable_base), &info);
  return info.dli_fbase;
}

// The address the dynamic linker would bind `s` to: the executable's definition first (it
// interposes, versioned reference or not: Vela's malloc family is the executable's), else the
// version asked for, else the default version.
void* lookup(const ElfSymbol& s) {
  void* first = dlsym(RTLD_DEFAULT, s.name.c_str());
  Dl_info info{};
  if (first != nullptr && dladdr(first, &info) != 0 && info.dli_fbase == executable_base()) {
    return first;
  }
  void* versioned =
      s.version.empty() ? nullptr : dlvsym(RTLD_DEFAULT, s.name.c_str(), s.version.c_str());
  return versioned != nullptr ? versioned : first;
}

// mpif.h's COMMON blocks (MPI_BOTTOM, MPI_STATUS_IGNORE, ...: src/vp/mpi/fortran/bindings.hpp)
// are known to the MPI calls by their address, so every instance's references are bound to the
// executable's one copy, although the image defines its own: the executable's address, or null
// for any other symbol.
void* process_wide(const ElfSymbol& s) {
  constexpr std::string_view prefix = "vmpi_fortran_";
  if (s.thread_local_ || !s.name.starts_with(prefix)) return nullptr;
  void* address = dlsym(RTLD_DEFAULT, s.name.c_str());
  Dl_info info{};
  if (address == nullptr || dladdr(address, &info) == 0 || info.dli_fbase != executable_base()) {
    return nullptr;
  }
  return address;
}

// Marks the executable segments of the loaded object at `base` as process code
// (active_heap.hpp): what it allocates while a rank runs is the process's, shared by the ranks
// that stay. libgfortran (its unit table, the formats it parses when a rank first writes) and the
// dynamic linker (a new thread's vector of thread-local blocks, which glibc keeps with the
// thread's cached stack for the process's next thread).
void mark_process_code_at(ElfW(Addr) base) {
  struct Search {
    ElfW(Addr) base;
  } search{base};
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) -> int {
        if (info->dlpi_addr != static_cast<Search*>(data)->base) return 0;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& h = info->dlpi_phdr[i];
          if (h.p_type != PT_LOAD || (h.p_flags & PF_X) == 0) continue;
          const auto* begin = reinterpret_cast<const char*>(info->dlpi_addr + h.p_vaddr);
          detail::add_process_code(begin, begin + h.p_memsz);
        }
        return 1;
      },
      &search);
}

void mark_process_code(void* handle) {
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr)
    mark_process_code_at(map->l_addr);
}

// libgfortran's buffered units (PRINT and WRITE to a file or a pipe), written out before a
// forced end of the process (rank_seam.hpp, at_forced_exit): FLUSH with no unit flushes all.
void flush_fortran_units() {
  using Flush = void (*)(int*);
  static const auto flush = reinterpret_cast<Flush>(dlsym(RTLD_DEFAULT, "_gfortran_flush_i4"));
  if (flush != nullptr) flush(nullptr);
}

using FindFde = const void* (*)(void*, dwarf_eh_bases*);
// libgcc's own, for every frame outside the program's instances.
const FindFde next_find_fde = reinterpret_cast<FindFde>(dlsym(RTLD_NEXT, "_Unwind_Find_FDE"));

// The instance holding code address `pc`: a rank's (in its slot) or the shared one.
std::byte* instance_holding(const void* pc, const ProgramImage& image) noexcept {
  if (std::byte* region = image_region_holding(pc)) return region;
  std::byte* shared = shared_instance.load(std::memory_order_acquire);
  const auto a = reinterpret_cast<std::uintptr_t>(pc);
  const auto s = reinterpret_cast<std::uintptr_t>(shared);
  return shared != nullptr && a >= s && a < s + image.elf().span ? shared : nullptr;
}

}  // namespace

// The unwinder's search for the frame description of `pc` (libgcc calls it through its PLT,
// and the wrappers export it from the executable, so this one is called): in an instance of
// the program, a binary search of the image's own sorted table (.eh_frame_hdr), O(log FDEs)
// and nothing registered per instance; anywhere else, libgcc's.
extern "C" const void* _Unwind_Find_FDE(void* pc, dwarf_eh_bases* bases) {
  if (const ProgramImage* image = current_image.load(std::memory_order_acquire)) {
    if (std::byte* at = instance_holding(pc, *image)) {
      if (const void* fde = image->find_fde(at, pc, bases)) return fde;
    }
  }
  return next_find_fde != nullptr ? next_find_fde(pc, bases) : nullptr;
}

// How a symbol a relocation names is bound, resolved once per process.
struct ProgramImage::Binding {
  enum Kind : std::uint8_t { none, in_image, address, libc_function, libc_field, thread_local_ };
  Kind kind = none;
  std::uint64_t value = 0;  // image offset, absolute address or field offset
  std::uint64_t own = 0;    // C library symbols: the library's own (for a shared instance)
};

ProgramImage* program_image() noexcept {
  return current_image.load(std::memory_order_acquire);
}

void set_program_image(ProgramImage* image) noexcept {
  current_image.store(image, std::memory_order_release);
}

ProgramImage::ProgramImage(std::span<const std::byte> bytes, std::string name)
    : name_(std::move(name)), elf_(read_elf_image(bytes, name_)) {
  writable_begin_ = elf_.span;
  for (const ElfSegment& s : elf_.segments) {
    if (s.writable) writable_begin_ = std::min(writable_begin_, s.address / page * page);
  }
  find_code_in_place();
  tail_offset_ = elf_.span;
  tls_offset_ =
      round_up(tail_offset_ + sizeof(Tail), std::max<std::size_t>(elf_.tls.alignment, 64));
  exits_offset_ = round_up(tls_offset_ + elf_.tls.memory_bytes, page);
  instance_bytes_ = round_up(exits_offset_ + max_exits * sizeof(ExitFunction), elf_.alignment);
  tls_block_offset = tls_offset_;
  exit_array_offset = exits_offset_;
  fd_ = memfd_create(name_.c_str(), MFD_CLOEXEC);
  if (fd_ < 0 || write(fd_, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size())) {
    throw Error("program image '" + name_ + "': cannot keep it in memory: " + std::strerror(errno));
  }
  if (elf_.tls.file_bytes > 0) {
    const ElfSegment* s = nullptr;
    for (const ElfSegment& x : elf_.segments) {
      if (elf_.tls.address >= x.address &&
          elf_.tls.address + elf_.tls.file_bytes <= x.address + x.file_bytes)
        s = &x;
    }
    if (s == nullptr)
      throw Error("program image '" + name_ +
                  "': its thread-locals' initial bytes lie outside the file");
    const std::size_t at = s->file_offset + (elf_.tls.address - s->address);
    tls_image_.assign(bytes.begin() + static_cast<std::ptrdiff_t>(at),
                      bytes.begin() + static_cast<std::ptrdiff_t>(at + elf_.tls.file_bytes));
  }
  read_fde_table(bytes);
  resolve();
}

namespace {

// A little-endian integer of `n` bytes at `p`.
std::int64_t read_signed(const std::byte* p, int n) {
  std::int64_t v = 0;
  std::memcpy(&v, p, static_cast<std::size_t>(n));
  if (n == 4) v = static_cast<std::int32_t>(v);
  return v;
}

// The pointer encoding of a CIE's FDEs ('R' in its augmentation), or -1 when it has none or
// one this reader does not take.
int fde_encoding(std::span<const std::byte> bytes, std::size_t cie) {
  if (cie + 9 > bytes.size()) return -1;
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data()) + cie + 8;  // version
  const auto* end = reinterpret_cast<const unsigned char*>(bytes.data()) + bytes.size();
  const unsigned char* augmentation = p + 1;
  const unsigned char* q = augmentation;
  while (q < end && *q != 0) ++q;
  if (q >= end || *augmentation != 'z') return -1;
  ++q;
  const auto uleb = [&] {
    std::uint64_t v = 0;
    for (int shift = 0; q < end && shift < 64; shift += 7) {
      const unsigned char b = *q++;
      v |= std::uint64_t{b & 0x7fu} << shift;
      if ((b & 0x80) == 0) break;
    }
    return v;
  };
  uleb();  // code alignment
  uleb();  // data alignment (the sign does not matter here)
  if (*p == 1) {
    ++q;  // return register, a byte in version 1
  } else {
    uleb();
  }
  uleb();  // augmentation data length
  for (const unsigned char* a = augmentation + 1; a < end && *a != 0 && q < end; ++a) {
    if (*a == 'R') return *q;
    if (*a == 'L') {
      ++q;
    } else if (*a == 'P') {
      const unsigned char e = *q++;
      const int size = (e & 0x0f) == 0x0b || (e & 0x0f) == 0x03 ? 4 : 8;
      q += size;
    } else if (*a != 'S' && *a != 'B') {
      return -1;
    }
  }
  return -1;
}

}  // namespace

// The image's sorted table of FDEs from .eh_frame_hdr, with each FDE's code range, when it is in
// the form GCC and ld write on x86-64 (pc-relative 4-byte pointers, a table of 4-byte offsets
// from the header); otherwise left empty, and the instances' tables are registered with libgcc.
void ProgramImage::read_fde_table(std::span<const std::byte> bytes) {
  if (elf_.eh_frame_hdr == 0 || elf_.eh_frame_hdr_bytes < 12) return;
  const ElfSegment* segment = nullptr;
  for (const ElfSegment& x : elf_.segments) {
    if (!x.writable && elf_.eh_frame_hdr >= x.address &&
        elf_.eh_frame_hdr + elf_.eh_frame_hdr_bytes <= x.address + x.file_bytes) {
      segment = &x;
    }
  }
  if (segment == nullptr || segment->file_offset != segment->address) return;
  const std::byte* hdr = bytes.data() + elf_.eh_frame_hdr;
  const auto u8 = [&](std::size_t i) { return std::to_integer<unsigned>(hdr[i]); };
  if (u8(0) != 1 || u8(1) != 0x1b || u8(2) != 0x03 || u8(3) != 0x3b) return;
  const std::uint64_t count = static_cast<std::uint32_t>(read_signed(hdr + 8, 4));
  if (12 + count * 8 > elf_.eh_frame_hdr_bytes) return;
  std::vector<Fde> table;
  table.reserve(count);
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::int64_t start =
        static_cast<std::int64_t>(elf_.eh_frame_hdr) + read_signed(hdr + 12 + i * 8, 4);
    const std::int64_t fde =
        static_cast<std::int64_t>(elf_.eh_frame_hdr) + read_signed(hdr + 16 + i * 8, 4);
    if (fde < 0 || static_cast<std::uint64_t>(fde) + 16 > segment->file_bytes + segment->address)
      return;
    const std::byte* f = bytes.data() + fde;
    const std::int64_t cie_pointer = read_signed(f + 4, 4);
    const std::int64_t cie = fde + 4 - cie_pointer;
    if (read_signed(f, 4) == -1 || cie < 0 ||
        fde_encoding(bytes, static_cast<std::size_t>(cie)) != 0x1b)
      return;
    if (fde + 8 + read_signed(f + 8, 4) != start) return;  // pc_begin, pc-relative
    const auto range = static_cast<std::uint32_t>(read_signed(f + 12, 4));
    table.push_back({static_cast<std::uint64_t>(start), static_cast<std::uint64_t>(start) + range,
                     static_cast<std::uint64_t>(fde)});
  }
  if (!std::is_sorted(table.begin(), table.end(),
                      [](const Fde& a, const Fde& b) { return a.start < b.start; })) {
    return;
  }
  fdes_ = std::move(table);
}

const void* ProgramImage::find_fde(std::byte* at, const void* pc, dwarf_eh_bases* bases) const {
  const std::uint64_t offset = static_cast<std::uint64_t>(static_cast<const std::byte*>(pc) - at);
  auto it = std::upper_bound(fdes_.begin(), fdes_.end(), offset,
                             [](std::uint64_t o, const Fde& f) { return o < f.start; });
  if (it == fdes_.begin()) return nullptr;
  --it;
  if (offset >= it->end) return nullptr;
  bases->tbase = nullptr;
  bases->dbase = nullptr;
  bases->func = at + it->start;
  return at + it->fde;
}

// The read-only and executable segments are mapped as one when they sit in the file at their
// own addresses (the reader has checked that no two segments share a page).
void ProgramImage::find_code_in_place() {
  code_in_place_ = true;
  for (const ElfSegment& s : elf_.segments) {
    if (s.writable) continue;
    if (s.file_offset != s.address || s.file_bytes != s.memory_bytes || s.address < code_end_) {
      code_in_place_ = false;
    }
    code_end_ = std::max(code_end_, round_up(s.address + s.file_bytes, page));
  }
  for (const ElfSegment& s : elf_.segments) {
    if (s.writable && s.address < code_end_) code_in_place_ = false;
  }
}

ProgramImage::~ProgramImage() {
  if (fd_ >= 0) close(fd_);
}

// Every symbol the relocations name: the image's own (bound per instance), Vela's versions of
// the per-instance C library state, or an address in the process's libraries (the image's
// DT_NEEDED ones are loaded first). Missing strong symbols are one error naming them.
void ProgramImage::resolve() {
  // A library's constructors (libgfortran's preconnects its units) allocate for the process,
  // whichever rank first makes an instance.
  const HeapPause process_heap;
  static const bool linker_marked = [] {
    mark_process_code_at(static_cast<ElfW(Addr)>(getauxval(AT_BASE)));
    return true;
  }();
  static_cast<void>(linker_marked);
  for (const std::string& library : elf_.needed) {
    void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (handle == nullptr) {
      throw Error("program image '" + name_ + "': cannot load the library it needs, " + library +
                  ": " + dlerror());
    }
    needed_.push_back(handle);
    if (library.starts_with("libgfortran.")) {
      mark_process_code(handle);
      bind_fortran_file_identity(handle);
      rt::detail::at_forced_exit(&flush_fortran_units);
    }
  }
  bindings_.assign(elf_.symbols.size(), Binding{});
  std::vector<bool> used(elf_.symbols.size());
  for (const ElfRelocation& r : elf_.relocations) used[r.symbol] = true;
  std::string missing;
  int missing_count = 0;
  for (std::size_t i = 1; i < elf_.symbols.size(); ++i) {
    if (!used[i]) continue;
    const ElfSymbol& s = elf_.symbols[i];
    Binding& b = bindings_[i];
    if (void* wide = process_wide(s)) {
      b = {Binding::address, reinterpret_cast<std::uint64_t>(wide)};
      continue;
    }
    if (s.defined) {
      b = {s.thread_local_ ? Binding::thread_local_ : Binding::in_image, s.value};
      continue;
    }
    if (s.thread_local_) {
      throw Error("program image '" + name_ + "': it uses the thread-local variable " + s.name +
                  " of another library, which a loaded image cannot reach");
    }
    if (void* function = special_for(s.name)) {
      b = {Binding::address, reinterpret_cast<std::uint64_t>(function)};
      continue;
    }
    void* address = lookup(s);
    if (const LibcSymbol* libc = rank_libc_symbol(s.name)) {
      b = libc->function != nullptr
              ? Binding{Binding::libc_function, reinterpret_cast<std::uint64_t>(libc->function)}
              : Binding{Binding::libc_field, libc->field_offset};
      b.own = reinterpret_cast<std::uint64_t>(address);
      continue;
    }
    if (address == nullptr && !s.weak) {
      if (missing_count++ < 8) missing += (missing.empty() ? "" : ", ") + s.name;
      continue;
    }
    b = {Binding::address, reinterpret_cast<std::uint64_t>(address)};
  }
  if (missing_count > 0) {
    throw Error("program image '" + name_ + "': " + std::to_string(missing_count) +
                " symbol(s) it uses are defined nowhere in the process: " + missing +
                (missing_count > 8 ? ", ..." : "") +
                " (link the libraries that define them, or use MPI calls Vela provides)");
  }
}

// Few mappings per instance, since each is a kernel memory area and vm.max_map_count (65,530 by
// default) bounds a process's: the read-only and executable segments as one read+execute
// mapping of the file when they lie in it at their own addresses (ld's layout), each writable
// segment's file bytes as one, and one anonymous mapping for the last segment's .bss and the
// tail together.
void ProgramImage::map_segments(std::byte* at, bool with_file_data) const {
  if (code_in_place_) map_fixed(at, code_end_, PROT_READ | PROT_EXEC, fd_, 0);
  std::size_t anonymous_from = tail_offset_;
  for (const ElfSegment& s : elf_.segments) {
    if (!s.writable && code_in_place_) continue;
    const std::size_t start = s.address / page * page;
    const std::size_t file_end = round_up(s.address + s.file_bytes, page);
    const std::size_t end = round_up(s.address + s.memory_bytes, page);
    const int prot = PROT_READ | (s.executable ? PROT_EXEC : 0) | (s.writable ? PROT_WRITE : 0);
    if (s.writable && !with_file_data) {
      // Filled by the caller.
      if (end == elf_.span) {
        anonymous_from = start;
      } else {
        map_fixed(at + start, end - start, prot, -1, 0);
      }
      continue;
    }
    if (s.file_bytes > 0) {
      map_fixed(at + start, file_end - start, prot, fd_, s.file_offset / page * page);
    }
    if (s.memory_bytes > s.file_bytes) {
      // .bss: the rest of the last file page is zeroed, the pages after it are anonymous.
      std::memset(at + s.address + s.file_bytes, 0, file_end - (s.address + s.file_bytes));
      if (end > file_end && end == elf_.span) {
        anonymous_from = file_end;
      } else if (end > file_end) {
        map_fixed(at + file_end, end - file_end, prot, -1, 0);
      }
    }
  }
  map_fixed(at + anonymous_from, instance_bytes_ - anonymous_from, PROT_READ | PROT_WRITE, -1, 0);
}

void ProgramImage::relocate(std::byte* at, bool rank_libc) const {
  const auto base = reinterpret_cast<std::uint64_t>(at);
  const auto symbol = [&](std::uint32_t index) -> std::uint64_t {
    const Binding& b = bindings_[index];
    switch (b.kind) {
      case Binding::in_image:
        return base + b.value;
      case Binding::libc_function:
        return rank_libc ? b.value : b.own;
      case Binding::libc_field:
        return rank_libc ? base + tail_offset_ + b.value : b.own;
      case Binding::thread_local_:
        return b.value;
      default:
        return b.value;
    }
  };
  for (const ElfRelocation& r : elf_.relocations) {
    std::uint64_t value = 0;
    switch (r.kind) {
      case RelocationKind::relative:
        value = base + static_cast<std::uint64_t>(r.addend);
        break;
      case RelocationKind::absolute:
      case RelocationKind::global_data:
      case RelocationKind::jump_slot:
        value = symbol(r.symbol) + static_cast<std::uint64_t>(r.addend);
        break;
      case RelocationKind::tls_module:
        value = base;
        break;
      case RelocationKind::tls_offset:
        value =
            (r.symbol != 0 ? bindings_[r.symbol].value : 0) + static_cast<std::uint64_t>(r.addend);
        break;
      case RelocationKind::irelative:
        continue;  // below, once everything else is in place
    }
    std::memcpy(at + r.offset, &value, sizeof value);
  }
  for (const ElfRelocation& r : elf_.relocations) {
    if (r.kind != RelocationKind::irelative) continue;
    using Resolver = std::uint64_t (*)();
    const std::uint64_t value = reinterpret_cast<Resolver>(at + r.addend)();
    std::memcpy(at + r.offset, &value, sizeof value);
  }
}

// The unwinder sorts a registered table on the first search after it, allocating; a search
// made here, outside the rank, makes that allocation come from the process's heap rather than
// the rank's (whose memory leaves with the rank).
void ProgramImage::register_frames(std::byte* at) const {
  if (elf_.eh_frame == 0 || !fdes_.empty()) return;
  __register_frame(at + elf_.eh_frame);
  dwarf_eh_bases bases{};
  _Unwind_Find_FDE(at + elf_.main, &bases);
}

void ProgramImage::instantiate(std::byte* at, bool rank_libc) const {
  map_segments(at, true);
  relocate(at, rank_libc);
  make_tail(at);
  reinterpret_cast<Tail*>(at + tail_offset_)->whole = true;
  register_frames(at);
}

void ProgramImage::make_tail(std::byte* at) const {
  auto* tail = ::new (at + tail_offset_) Tail;
  tail->base = at;
  init_rank_libc(tail->libc);
  if (!tls_image_.empty()) std::memcpy(at + tls_offset_, tls_image_.data(), tls_image_.size());
}

void ProgramImage::instantiate_tail(std::byte* at) const {
  map_fixed(at + tail_offset_, instance_bytes_ - tail_offset_, PROT_READ | PROT_WRITE, -1, 0);
  make_tail(at);
}

void ProgramImage::release_tail(std::byte* at) const noexcept {
  mmap(at + tail_offset_, instance_bytes_ - tail_offset_, PROT_NONE,
       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
}

RankLibc* ProgramImage::libc(std::byte* at) const {
  return &reinterpret_cast<Tail*>(at + tail_offset_)->libc;
}

void ProgramImage::construct(std::byte* at, int argc, char** argv) const {
  using Init = void (*)(int, char**, char**);
  if (elf_.init != 0) reinterpret_cast<Init>(at + elf_.init)(argc, argv, environ);
  for (std::uint64_t i = 0; i < elf_.init_count; ++i) {
    Init f = nullptr;
    std::memcpy(&f, at + elf_.init_array + i * 8, sizeof f);
    if (f != nullptr && reinterpret_cast<std::uintptr_t>(f) != ~std::uintptr_t{0})
      f(argc, argv, environ);
  }
}

void ProgramImage::run_exits(std::byte* at) const {
  auto* tail = reinterpret_cast<Tail*>(at + tail_offset_);
  auto* exits = reinterpret_cast<ExitFunction*>(at + exits_offset_);
  // Last registered first, including those registered by exit functions themselves.
  while (tail->exits > 0) {
    const ExitFunction e = exits[--tail->exits];
    e.function(e.argument);
  }
}

void ProgramImage::destruct(std::byte* at) const {
  run_exits(at);
  using Fini = void (*)();
  for (std::uint64_t i = elf_.fini_count; i > 0; --i) {
    Fini f = nullptr;
    std::memcpy(&f, at + elf_.fini_array + (i - 1) * 8, sizeof f);
    if (f != nullptr && reinterpret_cast<std::uintptr_t>(f) != ~std::uintptr_t{0}) f();
  }
  if (elf_.fini != 0) reinterpret_cast<Fini>(at + elf_.fini)();
}

int ProgramImage::call_main(std::byte* at, int argc, char** argv) const {
  using Main = int (*)(int, char**, char**);
  try {
    return reinterpret_cast<Main>(at + elf_.main)(argc, argv, environ);
  } catch (const RankStop& stop) {
    return stop.status;
  }
}

int ProgramImage::run_main(std::byte* at, int argc, char** argv) const {
  construct(at, argc, argv);
  const int status = call_main(at, argc, argv);
  destruct(at);
  return status;
}

std::byte* ProgramImage::shared() const {
  return shared_instance.load(std::memory_order_acquire);
}

void ProgramImage::set_shared(std::byte* at) const {
  shared_instance.store(at, std::memory_order_release);
}

void ProgramImage::release(std::byte* at) const noexcept {
  if (elf_.eh_frame != 0 && fdes_.empty()) __deregister_frame(at + elf_.eh_frame);
  mmap(at, instance_bytes_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1,
       0);
}

// The writable pages go as a bitmap of those not all zero and their bytes; then the tail up
// to the last exit function registered.
void ProgramImage::pup(pup::Archive& ar, std::byte* at) const {
  if (ar.unpacking()) map_segments(at, false);
  pup_writable(ar, at);
  pup_tail(ar, at);
  if (ar.unpacking()) register_frames(at);
}

void ProgramImage::pup_writable(pup::Archive& ar, std::byte* at) const {
  const std::size_t pages = (elf_.span - writable_begin_) / page;
  std::vector<std::uint8_t> present(pages);
  if (!ar.unpacking()) {
    static const std::byte zeros[page] = {};
    for (std::size_t p = 0; p < pages; ++p) {
      present[p] = std::memcmp(at + writable_begin_ + p * page, zeros, page) != 0 ? 1 : 0;
    }
  }
  ar.bytes(present.data(), pages);
  for (std::size_t p = 0; p < pages; ++p) {
    if (present[p] > 1) ar.fail("a program image page's mark is not 0 or 1", ar.offset());
    if (present[p] != 0) ar.bytes(at + writable_begin_ + p * page, page);
  }
}

void ProgramImage::pup_tail(pup::Archive& ar, std::byte* at) const {
  if (ar.unpacking()) {
    map_fixed(at + tail_offset_, instance_bytes_ - tail_offset_, PROT_READ | PROT_WRITE, -1, 0);
  }
  auto* tail = reinterpret_cast<Tail*>(at + tail_offset_);
  std::uint64_t exits = ar.unpacking() ? 0 : tail->exits;
  ar | exits;
  if (exits > max_exits) ar.fail("a program image's exit functions are too many", ar.offset());
  ar.bytes(at + tail_offset_, exits_offset_ - tail_offset_);
  ar.bytes(at + exits_offset_, exits * sizeof(ExitFunction));
  if (ar.unpacking()) {
    if (tail->base != at) ar.fail("a program image arrived for another address", ar.offset());
  }
}

const char* ProgramImage::function_at(const std::byte* at, const void* address) const noexcept {
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  const auto base = reinterpret_cast<std::uintptr_t>(at);
  if (at == nullptr || a < base || a >= base + elf_.span) return nullptr;
  const std::uint64_t offset = a - base;
  const ElfSymbol* best = nullptr;
  for (const ElfSymbol& s : elf_.symbols) {
    if (s.defined && !s.thread_local_ && s.value <= offset &&
        (best == nullptr || s.value > best->value))
      best = &s;
  }
  return best != nullptr ? best->name.c_str() : nullptr;
}

}  // namespace vela::vp::detail
