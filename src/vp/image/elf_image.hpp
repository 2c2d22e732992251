// The program as a loaded image: what Vela reads of the ELF shared object that vela-mpicc and
// vela-mpicxx build a program into (docs/architecture.md, "The program as a loaded image"). The
// reader takes the file's bytes, checks everything it will rely on (an x86-64 ELF64 shared
// object, segments, dynamic entries, relocations and symbols inside the file), and returns
// plain offsets and names: nothing points into the bytes afterwards.
//
// Invariants of a returned ElfImage: segments are sorted, each on pages of its own, page-aligned
// in the same way in file and memory, and lie within `span`; alignments (the image's, the TLS
// segment's) are powers of two of at most 1 GiB; every relocation's target and every address
// the image names (init arrays, main, the TLS image) lies within a segment; every relocation's
// symbol index is valid. Cost: one pass over the program and section headers, the dynamic
// section, the relocations and the dynamic symbols: O(file size).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vela::vp::detail {

struct ElfSegment {
  std::uint64_t address = 0;  // from the image's start
  std::uint64_t memory_bytes = 0;
  std::uint64_t file_offset = 0;
  std::uint64_t file_bytes = 0;
  bool writable = false;
  bool executable = false;
};

// The relocation types a position-independent x86-64 shared object carries.
enum class RelocationKind : std::uint8_t {
  relative,     // base + addend
  absolute,     // symbol + addend (R_X86_64_64)
  global_data,  // symbol (GOT entry, R_X86_64_GLOB_DAT)
  jump_slot,    // symbol (PLT's GOT entry)
  tls_module,   // the module of a thread-local symbol (R_X86_64_DTPMOD64)
  tls_offset,   // a thread-local symbol's offset in its module's block (R_X86_64_DTPOFF64)
  irelative,    // the address an ifunc resolver at base + addend returns
};

struct ElfRelocation {
  std::uint64_t offset = 0;  // of the 8-byte word it writes, from the image's start
  std::int64_t addend = 0;
  std::uint32_t symbol = 0;  // index into ElfImage::symbols (0: none)
  RelocationKind kind = RelocationKind::relative;
};

struct ElfSymbol {
  std::string name;
  std::string version;  // the version asked for (an undefined symbol), or empty
  std::uint64_t value = 0;
  bool defined = false;
  bool weak = false;
  bool thread_local_ = false;
};

struct ElfTls {
  std::uint64_t address = 0;  // of its initialization image, from the image's start
  std::uint64_t file_bytes = 0;
  std::uint64_t memory_bytes = 0;
  std::uint64_t alignment = 1;
};

struct ElfImage {
  std::vector<ElfSegment> segments;
  std::uint64_t span = 0;       // bytes from the image's start to its last segment's end (paged)
  std::uint64_t alignment = 0;  // the largest segment alignment (the image's start must keep it)
  std::vector<ElfRelocation> relocations;
  std::vector<ElfSymbol> symbols;  // the dynamic symbols, index 0 the null one
  std::vector<std::string> needed;
  std::uint64_t init = 0;  // DT_INIT's function, 0 if none
  std::uint64_t fini = 0;
  std::uint64_t init_array = 0;  // address of the array, relocated in a copy before use
  std::uint64_t init_count = 0;
  std::uint64_t fini_array = 0;
  std::uint64_t fini_count = 0;
  std::uint64_t eh_frame = 0;      // .eh_frame's address (0: none), for the unwinder
  std::uint64_t eh_frame_hdr = 0;  // PT_GNU_EH_FRAME's (0: none): the sorted FDE table
  std::uint64_t eh_frame_hdr_bytes = 0;
  std::uint64_t main = 0;  // the program's main
  ElfTls tls;              // memory_bytes 0: no thread-locals
};

// Reads `bytes` (the whole file). Throws vela::vp::Error naming `name` and what is wrong.
ElfImage read_elf_image(std::span<const std::byte> bytes, std::string_view name);

}  // namespace vela::vp::detail
