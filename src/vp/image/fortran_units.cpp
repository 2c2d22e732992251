// Fortran I/O units per rank (fortran_units.hpp): the statements' unit numbers translated, and
// libgfortran's file identity made per rank.
//
// The statements reach libgfortran with a parameter block that gfortran fills in: its first
// words are the flags and the unit, then (per statement) pointers and lengths of the specifiers
// given. The offsets below are gfortran's (GCC 8 and later: string lengths are size_t); the
// tests (tests/vp/mpi/fortran/units.f90) check each one that is used, with the values
// libgfortran gives back.
//
// Invariant: a (rank, unit) pair keeps its process unit for the life of the process, and a
// process unit belongs to one pair, so a rank finds its connections again wherever it runs in
// the process. The table lives on the process heap (HeapPause), never in a rank's memory.
#include "image/fortran_units.hpp"

#include <dlfcn.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "fibers/rank.hpp"
#include "memory/active_heap.hpp"
#include "vela/vp/vp.hpp"

namespace vela::vp::detail {
namespace {

// ---- gfortran's parameter blocks ----

constexpr std::size_t flags_at = 0;  // every block: st_parameter_common's flags, then unit
constexpr std::size_t unit_at = 4;
constexpr std::uint32_t returned_error = 3;  // the library's outcome bits in the flags

// OPEN: FILE= (length, then text), STATUS= and FORM= (text, then length).
constexpr std::size_t open_file_length_at = 56;
constexpr std::size_t open_file_at = 64;
constexpr std::size_t open_status_at = 72;
constexpr std::size_t open_status_length_at = 80;
constexpr std::size_t open_form_at = 104;
constexpr std::size_t open_form_length_at = 112;
constexpr std::uint32_t open_has_file = 1u << 8;
constexpr std::uint32_t open_has_status = 1u << 9;
constexpr std::uint32_t open_has_form = 1u << 11;
constexpr std::uint32_t open_has_newunit = 1u << 23;

// INQUIRE: OPENED= and NUMBER= (pointers to the program's default integers).
constexpr std::size_t inquire_opened_at = 56;
constexpr std::size_t inquire_number_at = 64;
constexpr std::uint32_t inquire_has_opened = 1u << 8;
constexpr std::uint32_t inquire_has_number = 1u << 9;
constexpr std::uint32_t inquire_has_file = 1u << 14;

// READ and WRITE.
constexpr std::uint32_t transfer_list = 1u << 7;
constexpr std::uint32_t transfer_has_rec = 1u << 9;
constexpr std::uint32_t transfer_has_format = 1u << 12;
constexpr std::uint32_t transfer_internal = 1u << 14;
constexpr std::uint32_t transfer_namelist = 1u << 15;
constexpr std::uint32_t transfer_has_pos = 1u << 17;

// Room for any block this file makes itself (gfortran's largest, a READ or WRITE, is under 600
// bytes); zeroed, as gfortran leaves what a statement does not give.
constexpr std::size_t block_bytes = 1024;

template <typename T>
T field(const void* block, std::size_t at) {
  T value;
  std::memcpy(&value, static_cast<const char*>(block) + at, sizeof value);
  return value;
}

template <typename T>
void set_field(void* block, std::size_t at, T value) {
  std::memcpy(static_cast<char*>(block) + at, &value, sizeof value);
}

std::uint32_t flags_of(const void* block) {
  return field<std::uint32_t>(block, flags_at);
}

// ---- the table ----

struct Units {
  std::mutex lock;
  std::map<std::pair<int, int>, int> of_rank;          // (rank, unit) -> process unit
  std::unordered_map<int, std::pair<int, int>> owner;  // process unit -> (rank, unit)
  int next = 1 << 30;
};

Units& units() {
  static Units* table = [] {
    const HeapPause process_heap;
    return new Units;  // never freed: statements may run until the process ends
  }();
  return *table;
}

bool shared_unit(std::int64_t unit) {
  return unit < 0 || unit == 0 || unit == 5 || unit == 6;
}

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "vela: Fortran units: %s\n", what);
  std::fflush(stderr);
  std::abort();
}

// The calling rank's process unit for its unit `unit` (itself outside ranks and for the
// shared and negative units).
std::int64_t process_unit(std::int64_t unit) {
  RankContext* rank = current();
  if (rank == nullptr || shared_unit(unit) || unit > INT_MAX) return unit;
  const std::pair<int, int> key{rank->rank, static_cast<int>(unit)};
  Units& table = units();
  const std::lock_guard<std::mutex> hold(table.lock);
  if (const auto it = table.of_rank.find(key); it != table.of_rank.end()) return it->second;
  const HeapPause process_heap;
  int mine = key.second;
  if (table.owner.contains(mine)) {
    while (table.owner.contains(table.next)) {
      if (table.next == INT_MAX) fail("more units than gfortran can number");
      ++table.next;
    }
    mine = table.next++;
  }
  table.of_rank.emplace(key, mine);
  table.owner.emplace(mine, key);
  return mine;
}

// The calling rank's number for process unit `unit` (as INQUIRE's NUMBER= gives it back).
int rank_unit(int unit) {
  RankContext* rank = current();
  if (rank == nullptr || shared_unit(unit)) return unit;
  Units& table = units();
  const std::lock_guard<std::mutex> hold(table.lock);
  const auto it = table.owner.find(unit);
  return it != table.owner.end() && it->second.first == rank->rank ? it->second.second : unit;
}

// ---- libgfortran's own entry points ----

using Statement = void (*)(void*);

Statement libgfortran(const char* name) {
  void* function = dlsym(RTLD_DEFAULT, name);
  if (function == nullptr) fail("libgfortran's I/O entry points are not loaded");
  return reinterpret_cast<Statement>(function);
}

// The unit of `block` made the calling rank's; returns the program's unit.
std::int64_t translate(void* block) {
  const auto unit = field<std::int32_t>(block, unit_at);
  set_field<std::int32_t>(block, unit_at, static_cast<std::int32_t>(process_unit(unit)));
  return unit;
}

bool is_scratch(const void* block) {
  if ((flags_of(block) & open_has_status) == 0) return false;
  const auto* text = field<const char*>(block, open_status_at);
  auto length = field<std::size_t>(block, open_status_length_at);
  while (length > 0 && text[length - 1] == ' ') --length;
  constexpr std::string_view scratch = "scratch";
  if (length != scratch.size()) return false;
  for (std::size_t i = 0; i < length; ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) != scratch[i]) return false;
  }
  return true;
}

bool connected(int unit) {
  static const Statement inquire = libgfortran("_gfortran_st_inquire");
  alignas(8) char block[block_bytes] = {};
  std::int32_t opened = 0;
  set_field<std::uint32_t>(block, flags_at, inquire_has_opened);
  set_field<std::int32_t>(block, unit_at, unit);
  set_field<std::int32_t*>(block, inquire_opened_at, &opened);
  inquire(block);
  return opened != 0;
}

// Connects process unit `unit` to 'fort.<program_unit>', as gfortran connects an unconnected
// unit on its first READ or WRITE (sequential, the statement's form).
void open_by_number(int unit, std::int64_t program_unit, bool formatted) {
  static const Statement open = libgfortran("_gfortran_st_open");
  alignas(8) char block[block_bytes] = {};
  const std::string file = "fort." + std::to_string(program_unit);
  const char* form = formatted ? "formatted" : "unformatted";
  set_field<std::uint32_t>(block, flags_at, open_has_file | open_has_form);
  set_field<std::int32_t>(block, unit_at, unit);
  set_field<std::size_t>(block, open_file_length_at, file.size());
  set_field<const char*>(block, open_file_at, file.c_str());
  set_field<const char*>(block, open_form_at, form);
  set_field<std::size_t>(block, open_form_length_at, std::strlen(form));
  open(block);
}

void transfer(void* block, Statement next) {
  const std::uint32_t flags = flags_of(block);
  if ((flags & transfer_internal) == 0) {
    const std::int64_t unit = translate(block);
    const int mine = field<std::int32_t>(block, unit_at);
    if (mine != unit && (flags & (transfer_has_rec | transfer_has_pos)) == 0 && !connected(mine)) {
      open_by_number(mine, unit,
                     (flags & (transfer_list | transfer_has_format | transfer_namelist)) != 0);
    }
  }
  next(block);
}

// ---- file identity ----

ino_t rank_mix() {
  RankContext* rank = current();
  if (rank == nullptr) return 0;
  std::uint64_t x = static_cast<std::uint64_t>(rank->rank) + 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return static_cast<ino_t>(x ^ (x >> 31));
}

extern "C" int vela_gfortran_stat(const char* path, struct stat* buffer) {
  const int rc = ::stat(path, buffer);
  if (rc == 0) buffer->st_ino ^= rank_mix();
  return rc;
}

extern "C" int vela_gfortran_lstat(const char* path, struct stat* buffer) {
  const int rc = ::lstat(path, buffer);
  if (rc == 0) buffer->st_ino ^= rank_mix();
  return rc;
}

extern "C" int vela_gfortran_fstat(int fd, struct stat* buffer) {
  const int rc = ::fstat(fd, buffer);
  if (rc == 0) buffer->st_ino ^= rank_mix();
  return rc;
}

}  // namespace

// ---- the bound statements ----

extern "C" void vela_image_st_open(void* block) {
  static const Statement next = libgfortran("_gfortran_st_open");
  std::string file;
  if ((flags_of(block) & open_has_newunit) == 0) {
    const std::int64_t unit = translate(block);
    if (field<std::int32_t>(block, unit_at) != unit && (flags_of(block) & open_has_file) == 0 &&
        !is_scratch(block)) {
      // gfortran would name the file after the process unit: it is the program's unit's.
      file = "fort." + std::to_string(unit);
      set_field<std::uint32_t>(block, flags_at, flags_of(block) | open_has_file);
      set_field<std::size_t>(block, open_file_length_at, file.size());
      set_field<const char*>(block, open_file_at, file.c_str());
    }
  }
  next(block);
}

extern "C" void vela_image_st_inquire(void* block) {
  static const Statement next = libgfortran("_gfortran_st_inquire");
  const std::uint32_t flags = flags_of(block);
  if ((flags & inquire_has_file) == 0) translate(block);
  next(block);
  if ((flags & inquire_has_number) != 0 && (flags_of(block) & returned_error) == 0) {
    auto* number = field<std::int32_t*>(block, inquire_number_at);
    if (number != nullptr) *number = rank_unit(*number);
  }
}

extern "C" void vela_image_st_read(void* block) {
  static const Statement next = libgfortran("_gfortran_st_read");
  transfer(block, next);
}

extern "C" void vela_image_st_write(void* block) {
  static const Statement next = libgfortran("_gfortran_st_write");
  transfer(block, next);
}

#define VELA_UNIT_STATEMENT(name)                                  \
  extern "C" void vela_image_##name(void* block) {                 \
    static const Statement next = libgfortran("_gfortran_" #name); \
    translate(block);                                              \
    next(block);                                                   \
  }
VELA_UNIT_STATEMENT(st_close)
VELA_UNIT_STATEMENT(st_rewind)
VELA_UNIT_STATEMENT(st_backspace)
VELA_UNIT_STATEMENT(st_endfile)
VELA_UNIT_STATEMENT(st_flush)
VELA_UNIT_STATEMENT(st_wait)
VELA_UNIT_STATEMENT(st_wait_async)
#undef VELA_UNIT_STATEMENT

// CALL FLUSH(unit): the unit by reference (absent: every unit).
extern "C" void vela_image_flush_i4(const std::int32_t* unit) {
  using Flush = void (*)(const std::int32_t*);
  static const auto next = reinterpret_cast<Flush>(libgfortran("_gfortran_flush_i4"));
  if (unit == nullptr) return next(nullptr);
  const auto mine = static_cast<std::int32_t>(process_unit(*unit));
  next(&mine);
}

extern "C" void vela_image_flush_i8(const std::int64_t* unit) {
  using Flush = void (*)(const std::int64_t*);
  static const auto next = reinterpret_cast<Flush>(libgfortran("_gfortran_flush_i8"));
  if (unit == nullptr) return next(nullptr);
  const std::int64_t mine = process_unit(*unit);
  next(&mine);
}

namespace {

const FortranSpecial bound[] = {
    {"_gfortran_flush_i4", reinterpret_cast<void*>(&vela_image_flush_i4)},
    {"_gfortran_flush_i8", reinterpret_cast<void*>(&vela_image_flush_i8)},
    {"_gfortran_st_backspace", reinterpret_cast<void*>(&vela_image_st_backspace)},
    {"_gfortran_st_close", reinterpret_cast<void*>(&vela_image_st_close)},
    {"_gfortran_st_endfile", reinterpret_cast<void*>(&vela_image_st_endfile)},
    {"_gfortran_st_flush", reinterpret_cast<void*>(&vela_image_st_flush)},
    {"_gfortran_st_inquire", reinterpret_cast<void*>(&vela_image_st_inquire)},
    {"_gfortran_st_open", reinterpret_cast<void*>(&vela_image_st_open)},
    {"_gfortran_st_read", reinterpret_cast<void*>(&vela_image_st_read)},
    {"_gfortran_st_rewind", reinterpret_cast<void*>(&vela_image_st_rewind)},
    {"_gfortran_st_wait", reinterpret_cast<void*>(&vela_image_st_wait)},
    {"_gfortran_st_wait_async", reinterpret_cast<void*>(&vela_image_st_wait_async)},
    {"_gfortran_st_write", reinterpret_cast<void*>(&vela_image_st_write)},
};

#if defined(__x86_64__)
constexpr unsigned jump_slot = R_X86_64_JUMP_SLOT;
constexpr unsigned global_data = R_X86_64_GLOB_DAT;
#elif defined(__aarch64__)
constexpr unsigned jump_slot = R_AARCH64_JUMP_SLOT;
constexpr unsigned global_data = R_AARCH64_GLOB_DAT;
#endif

// The library's read-only-after-relocation range (PT_GNU_RELRO), to put back after a write.
std::pair<std::uintptr_t, std::uintptr_t> relro_of(ElfW(Addr) base) {
  struct Search {
    ElfW(Addr) base;
    std::uintptr_t begin = 0;
    std::uintptr_t end = 0;
  } search{base};
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) -> int {
        auto* s = static_cast<Search*>(data);
        if (info->dlpi_addr != s->base) return 0;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& h = info->dlpi_phdr[i];
          if (h.p_type != PT_GNU_RELRO) continue;
          s->begin = info->dlpi_addr + h.p_vaddr;
          s->end = s->begin + h.p_memsz;
        }
        return 1;
      },
      &search);
  return {search.begin, search.end};
}

void write_slot(std::uintptr_t slot, void* function,
                std::pair<std::uintptr_t, std::uintptr_t> relro) {
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  void* start = reinterpret_cast<void*>(slot & ~(page - 1));
  if (mprotect(start, page, PROT_READ | PROT_WRITE) != 0) {
    throw Error(std::string("Fortran units: cannot make libgfortran's imports writable: ") +
                std::strerror(errno));
  }
  std::memcpy(reinterpret_cast<void*>(slot), &function, sizeof function);
  if (slot >= relro.first && slot < relro.second) mprotect(start, page, PROT_READ);
}

}  // namespace

const FortranSpecial* fortran_unit_specials(int* count) noexcept {
  *count = static_cast<int>(std::size(bound));
  return bound;
}

void bind_fortran_file_identity(void* handle) {
#if defined(__x86_64__) || defined(__aarch64__)
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr) {
    throw Error("Fortran units: libgfortran's link map is not available");
  }
  const auto absolute = [&](ElfW(Addr) a) { return a < map->l_addr ? a + map->l_addr : a; };
  const ElfW(Sym)* symbols = nullptr;
  const char* names = nullptr;
  const ElfW(Rela) * tables[2] = {nullptr, nullptr};
  std::size_t sizes[2] = {0, 0};
  for (const ElfW(Dyn)* d = map->l_ld; d->d_tag != DT_NULL; ++d) {
    switch (d->d_tag) {
      case DT_SYMTAB:
        symbols = reinterpret_cast<const ElfW(Sym)*>(absolute(d->d_un.d_ptr));
        break;
      case DT_STRTAB:
        names = reinterpret_cast<const char*>(absolute(d->d_un.d_ptr));
        break;
      case DT_JMPREL:
        tables[0] = reinterpret_cast<const ElfW(Rela)*>(absolute(d->d_un.d_ptr));
        break;
      case DT_PLTRELSZ:
        sizes[0] = d->d_un.d_val;
        break;
      case DT_RELA:
        tables[1] = reinterpret_cast<const ElfW(Rela)*>(absolute(d->d_un.d_ptr));
        break;
      case DT_RELASZ:
        sizes[1] = d->d_un.d_val;
        break;
      default:
        break;
    }
  }
  if (symbols == nullptr || names == nullptr) {
    throw Error("Fortran units: libgfortran has no dynamic symbol table");
  }
  const std::pair<const char*, void*> ours[] = {
      {"stat", reinterpret_cast<void*>(&vela_gfortran_stat)},
      {"fstat", reinterpret_cast<void*>(&vela_gfortran_fstat)},
      {"lstat", reinterpret_cast<void*>(&vela_gfortran_lstat)}};
  const auto relro = relro_of(map->l_addr);
  int patched = 0;
  for (int t = 0; t < 2; ++t) {
    for (std::size_t i = 0; tables[t] != nullptr && i < sizes[t] / sizeof(ElfW(Rela)); ++i) {
      const ElfW(Rela)& r = tables[t][i];
      const auto type = ELF64_R_TYPE(r.r_info);
      if (type != jump_slot && type != global_data) continue;
      const char* name = names + symbols[ELF64_R_SYM(r.r_info)].st_name;
      for (const auto& [wanted, function] : ours) {
        if (std::strcmp(name, wanted) != 0) continue;
        write_slot(map->l_addr + r.r_offset, function, relro);
        ++patched;
      }
    }
  }
  if (patched == 0) {
    throw Error(
        "Fortran units: libgfortran imports none of stat, fstat and lstat (a libgfortran "
        "Vela does not know: ranks of one process could not open the same file)");
  }
#else
  (void)handle;
  throw Error("Fortran units: per-rank file identity is implemented for x86-64 and AArch64 only");
#endif
}

}  // namespace vela::vp::detail
