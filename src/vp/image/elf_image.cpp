// Reading the program's ELF shared object (elf_image.hpp). Every offset, count and index taken
// from the file is checked against the file's size before it is used: a damaged or foreign
// file is an Error naming it and what was expected, never a read outside the bytes.
#include "image/elf_image.hpp"

#include <elf.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string>

#include "vela/vp/vp.hpp"

namespace vela::vp::detail {

namespace {

class Reader {
 public:
  Reader(std::span<const std::byte> bytes, std::string_view name) : bytes_(bytes), name_(name) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw Error("program image '" + std::string(name_) + "': " + what);
  }

  // A T at file offset `at`, checked.
  template <class T>
  T at(std::uint64_t offset, const char* what) const {
    if (offset > bytes_.size() || bytes_.size() - offset < sizeof(T)) {
      fail(std::string(what) + " lies outside the file (offset " + std::to_string(offset) + ")");
    }
    T value;
    std::memcpy(&value, bytes_.data() + offset, sizeof(T));
    return value;
  }

  void check_range(std::uint64_t offset, std::uint64_t size, const char* what) const {
    if (offset > bytes_.size() || bytes_.size() - offset < size) {
      fail(std::string(what) + " lies outside the file");
    }
  }

  // A NUL-terminated string at `offset` of a string table at [table, table + size).
  std::string string(std::uint64_t table, std::uint64_t size, std::uint64_t offset) const {
    if (offset >= size) fail("a name lies outside its string table");
    const auto* begin = reinterpret_cast<const char*>(bytes_.data() + table + offset);
    const auto* end = static_cast<const char*>(std::memchr(begin, 0, size - offset));
    if (end == nullptr) fail("a name in a string table is not terminated");
    return std::string(begin, end);
  }

  std::size_t size() const { return bytes_.size(); }

  bool starts_with(const char* prefix, std::size_t n) const {
    return bytes_.size() >= n && std::memcmp(bytes_.data(), prefix, n) == 0;
  }

 private:
  std::span<const std::byte> bytes_;
  std::string_view name_;
};

struct Dynamic {
  std::uint64_t rela = 0, rela_bytes = 0, jmprel = 0, jmprel_bytes = 0;
  std::uint64_t strtab = 0, strtab_bytes = 0, strtab_file = 0;  // address, size, file offset
  std::uint64_t flags = 0, flags_1 = 0;
  std::vector<std::uint64_t> needed;  // string table offsets
  bool textrel = false;
};

std::uint64_t page_round(std::uint64_t n) {
  return (n + 4095) / 4096 * 4096;
}

// The largest segment or TLS alignment taken (GCC aligns nothing beyond 2^28 bytes): the loader
// rounds an instance's offsets up to these, which must stay far from overflowing.
constexpr std::uint64_t max_alignment = std::uint64_t{1} << 30;

// The magic number and the class first: a short file of another kind, or a 32-bit ELF file
// (whose header is shorter than a 64-bit one), is told so rather than that its header is cut.
Elf64_Ehdr read_header(const Reader& r) {
  const std::string expected = " (expected an x86-64 ELF shared object, as vela-mpicc builds)";
  if (r.size() == 0) r.fail("the file is empty" + expected);
  if (!r.starts_with(ELFMAG, SELFMAG)) r.fail("not an ELF file" + expected);
  const char* const other = "expected a 64-bit little-endian x86-64 ELF file";
  const auto ident = r.at<std::array<unsigned char, EI_NIDENT>>(0, "the ELF header");
  if (ident[EI_CLASS] != ELFCLASS64 || ident[EI_DATA] != ELFDATA2LSB) r.fail(other);
  const auto h = r.at<Elf64_Ehdr>(0, "the ELF header");
  if (h.e_machine != EM_X86_64) r.fail(other);
  if (h.e_type != ET_DYN) r.fail("expected a shared object (ET_DYN), as vela-mpicc builds");
  if (h.e_phentsize != sizeof(Elf64_Phdr) || h.e_phnum == 0) r.fail("no program headers");
  return h;
}

// The file offset of image address `address`, which must lie in a segment's file bytes with
// `size` bytes after it.
std::uint64_t file_offset(const Reader& r, const ElfImage& image, std::uint64_t address,
                          std::uint64_t size, const char* what) {
  for (const ElfSegment& s : image.segments) {
    if (address >= s.address && address - s.address <= s.file_bytes &&
        s.file_bytes - (address - s.address) >= size) {
      return s.file_offset + (address - s.address);
    }
  }
  r.fail(std::string(what) + " lies outside the segments' file bytes");
}

bool in_memory(const ElfImage& image, std::uint64_t address, std::uint64_t size, bool writable) {
  return std::any_of(image.segments.begin(), image.segments.end(), [&](const ElfSegment& s) {
    return address >= s.address && address - s.address <= s.memory_bytes &&
           s.memory_bytes - (address - s.address) >= size && (!writable || s.writable);
  });
}

void read_segments(const Reader& r, const Elf64_Ehdr& h, ElfImage& image, Elf64_Phdr& dynamic) {
  bool have_dynamic = false;
  for (std::uint64_t i = 0; i < h.e_phnum; ++i) {
    const auto p = r.at<Elf64_Phdr>(h.e_phoff + i * sizeof(Elf64_Phdr), "a program header");
    if (p.p_type == PT_LOAD) {
      if (p.p_filesz > p.p_memsz || (p.p_align > 1 && (p.p_align & (p.p_align - 1)) != 0) ||
          p.p_align > max_alignment || p.p_vaddr % 4096 != p.p_offset % 4096 ||
          p.p_memsz > (std::uint64_t{1} << 40) || p.p_vaddr > (std::uint64_t{1} << 40)) {
        r.fail("a loadable segment is malformed");
      }
      r.check_range(p.p_offset, p.p_filesz, "a loadable segment");
      image.segments.push_back({p.p_vaddr, p.p_memsz, p.p_offset, p.p_filesz,
                                (p.p_flags & PF_W) != 0, (p.p_flags & PF_X) != 0});
      image.alignment =
          std::max<std::uint64_t>(image.alignment, std::max<std::uint64_t>(p.p_align, 4096));
      image.span = std::max(image.span, page_round(p.p_vaddr + p.p_memsz));
    } else if (p.p_type == PT_DYNAMIC) {
      dynamic = p;
      have_dynamic = true;
    } else if (p.p_type == PT_GNU_EH_FRAME) {
      image.eh_frame_hdr = p.p_vaddr;
      image.eh_frame_hdr_bytes = p.p_filesz;
    } else if (p.p_type == PT_TLS) {
      if (p.p_filesz > p.p_memsz || p.p_align == 0 || (p.p_align & (p.p_align - 1)) != 0 ||
          p.p_align > max_alignment || p.p_memsz > (std::uint64_t{1} << 32)) {
        r.fail("the thread-local segment is malformed");
      }
      image.tls = {p.p_vaddr, p.p_filesz, p.p_memsz, p.p_align};
    }
  }
  if (image.segments.empty()) r.fail("no loadable segment");
  if (!have_dynamic) r.fail("no dynamic section (expected a shared object)");
  std::sort(image.segments.begin(), image.segments.end(),
            [](const ElfSegment& a, const ElfSegment& b) { return a.address < b.address; });
  if (image.segments.front().address != 0) r.fail("the first segment does not start at 0");
  // The loader maps each segment's pages with its own protection: a page shared with the next
  // segment would take the next one's (a relocation then writes to a read-only page).
  for (std::size_t i = 1; i < image.segments.size(); ++i) {
    const ElfSegment& before = image.segments[i - 1];
    if (page_round(before.address + before.memory_bytes) >
        image.segments[i].address / 4096 * 4096) {
      r.fail("loadable segments share a page (expected each on pages of its own)");
    }
  }
  if (image.tls.memory_bytes > 0 &&
      !in_memory(image, image.tls.address, image.tls.file_bytes, false)) {
    r.fail("the thread-local image lies outside the segments");
  }
}

Dynamic read_dynamic(const Reader& r, const Elf64_Phdr& p, ElfImage& image) {
  Dynamic d;
  r.check_range(p.p_offset, p.p_filesz, "the dynamic section");
  for (std::uint64_t at = p.p_offset; at + sizeof(Elf64_Dyn) <= p.p_offset + p.p_filesz;
       at += sizeof(Elf64_Dyn)) {
    const auto e = r.at<Elf64_Dyn>(at, "a dynamic entry");
    const std::uint64_t v = e.d_un.d_val;
    switch (e.d_tag) {
      case DT_NULL:
        return d;
      case DT_NEEDED:
        d.needed.push_back(v);
        break;
      case DT_RELA:
        d.rela = v;
        break;
      case DT_RELASZ:
        d.rela_bytes = v;
        break;
      case DT_JMPREL:
        d.jmprel = v;
        break;
      case DT_PLTRELSZ:
        d.jmprel_bytes = v;
        break;
      case DT_PLTREL:
        if (v != DT_RELA) r.fail("PLT relocations are not RELA (expected x86-64's)");
        break;
      case DT_REL:
        r.fail("REL relocations (expected x86-64's RELA)");
      case DT_STRTAB:
        d.strtab = v;
        break;
      case DT_STRSZ:
        d.strtab_bytes = v;
        break;
      case DT_INIT:
        image.init = v;
        break;
      case DT_FINI:
        image.fini = v;
        break;
      case DT_INIT_ARRAY:
        image.init_array = v;
        break;
      case DT_INIT_ARRAYSZ:
        image.init_count = v / 8;
        break;
      case DT_FINI_ARRAY:
        image.fini_array = v;
        break;
      case DT_FINI_ARRAYSZ:
        image.fini_count = v / 8;
        break;
      case DT_TEXTREL:
        d.textrel = true;
        break;
      case DT_FLAGS:
        d.flags = v;
        break;
      case DT_FLAGS_1:
        d.flags_1 = v;
        break;
      default:
        break;
    }
  }
  return d;
}

void check_dynamic(const Reader& r, const Dynamic& d, const ElfImage& image) {
  if (d.textrel || (d.flags & DF_TEXTREL) != 0) {
    r.fail(
        "its code needs relocating (text relocations): compile every file of the program "
        "as position-independent code (vela-mpicc does; add -fPIC to other compilers)");
  }
  if ((d.flags & DF_STATIC_TLS) != 0) {
    r.fail(
        "it uses the initial-exec thread-local model (-ftls-model=initial-exec), which a "
        "loaded image cannot: compile without it");
  }
  const auto inside = [&](std::uint64_t address, std::uint64_t count, const char* what) {
    if (count > (std::uint64_t{1} << 32) || !in_memory(image, address, count * 8, false)) {
      r.fail(std::string(what) + " lies outside the segments");
    }
  };
  if (image.init != 0) inside(image.init, 1, "DT_INIT");
  if (image.fini != 0) inside(image.fini, 1, "DT_FINI");
  if (image.init_count > 0) inside(image.init_array, image.init_count, "DT_INIT_ARRAY");
  if (image.fini_count > 0) inside(image.fini_array, image.fini_count, "DT_FINI_ARRAY");
}

// The section headers' dynamic symbol table, its versions and .eh_frame.
struct Sections {
  Elf64_Shdr dynsym{}, versym{}, verneed{};
  bool have_dynsym = false, have_versym = false, have_verneed = false;
};

Sections read_sections(const Reader& r, const Elf64_Ehdr& h, ElfImage& image) {
  Sections s;
  if (h.e_shnum == 0 || h.e_shentsize != sizeof(Elf64_Shdr) || h.e_shstrndx >= h.e_shnum) {
    r.fail("no usable section headers (a stripped image is fine, a missing table is not)");
  }
  const auto names =
      r.at<Elf64_Shdr>(h.e_shoff + h.e_shstrndx * sizeof(Elf64_Shdr), "the section names' header");
  r.check_range(names.sh_offset, names.sh_size, "the section names");
  for (std::uint64_t i = 0; i < h.e_shnum; ++i) {
    const auto sh = r.at<Elf64_Shdr>(h.e_shoff + i * sizeof(Elf64_Shdr), "a section header");
    if (sh.sh_type == SHT_DYNSYM) {
      s.dynsym = sh;
      s.have_dynsym = true;
    } else if (sh.sh_type == SHT_GNU_versym) {
      s.versym = sh;
      s.have_versym = true;
    } else if (sh.sh_type == SHT_GNU_verneed) {
      s.verneed = sh;
      s.have_verneed = true;
    } else if ((sh.sh_type == SHT_PROGBITS || sh.sh_type == SHT_X86_64_UNWIND) &&
               r.string(names.sh_offset, names.sh_size, sh.sh_name) == ".eh_frame") {
      // GNU ld and lld type it PROGBITS; gold, as the x86-64 psABI says, X86_64_UNWIND.
      image.eh_frame = sh.sh_addr;
    }
  }
  if (!s.have_dynsym) r.fail("no dynamic symbol table");
  return s;
}

// Version names by version index, from .gnu.version_r.
std::vector<std::string> read_versions(const Reader& r, const Sections& s, const Dynamic& d) {
  std::vector<std::string> names;
  if (!s.have_verneed) return names;
  std::uint64_t at = s.verneed.sh_offset;
  for (std::uint64_t n = 0; n < s.verneed.sh_info; ++n) {
    const auto need = r.at<Elf64_Verneed>(at, "a version need");
    std::uint64_t aux_at = at + need.vn_aux;
    for (std::uint64_t a = 0; a < need.vn_cnt; ++a) {
      const auto aux = r.at<Elf64_Vernaux>(aux_at, "a version need's entry");
      const std::uint16_t index = aux.vna_other & 0x7fff;
      if (index >= names.size()) names.resize(index + 1u);
      names[index] = r.string(d.strtab_file, d.strtab_bytes, aux.vna_name);
      if (aux.vna_next == 0) break;
      aux_at += aux.vna_next;
    }
    if (need.vn_next == 0) break;
    at += need.vn_next;
  }
  return names;
}

std::vector<ElfSymbol> read_symbols(const Reader& r, const Sections& s, const Dynamic& d) {
  if (s.dynsym.sh_entsize != sizeof(Elf64_Sym)) r.fail("the dynamic symbols are malformed");
  r.check_range(s.dynsym.sh_offset, s.dynsym.sh_size, "the dynamic symbol table");
  const std::uint64_t count = s.dynsym.sh_size / sizeof(Elf64_Sym);
  const std::vector<std::string> versions = read_versions(r, s, d);
  std::vector<ElfSymbol> symbols(count);
  for (std::uint64_t i = 1; i < count; ++i) {
    const auto sym = r.at<Elf64_Sym>(s.dynsym.sh_offset + i * sizeof(Elf64_Sym), "a symbol");
    ElfSymbol& out = symbols[i];
    out.name = r.string(d.strtab_file, d.strtab_bytes, sym.st_name);
    out.value = sym.st_value;
    out.defined = sym.st_shndx != SHN_UNDEF;
    out.weak = ELF64_ST_BIND(sym.st_info) == STB_WEAK;
    out.thread_local_ = ELF64_ST_TYPE(sym.st_info) == STT_TLS;
    if (s.have_versym && !out.defined) {
      const auto v = r.at<std::uint16_t>(s.versym.sh_offset + i * 2, "a symbol's version");
      const std::uint16_t index = v & 0x7fff;
      if (index >= 2 && index < versions.size()) out.version = versions[index];
    }
  }
  return symbols;
}

void read_relocations(const Reader& r, ElfImage& image, std::uint64_t address,
                      std::uint64_t bytes) {
  if (bytes == 0) return;
  const std::uint64_t at = file_offset(r, image, address, bytes, "a relocation table");
  for (std::uint64_t i = 0; i < bytes / sizeof(Elf64_Rela); ++i) {
    const auto rela = r.at<Elf64_Rela>(at + i * sizeof(Elf64_Rela), "a relocation");
    ElfRelocation out;
    out.offset = rela.r_offset;
    out.addend = rela.r_addend;
    out.symbol = static_cast<std::uint32_t>(ELF64_R_SYM(rela.r_info));
    switch (ELF64_R_TYPE(rela.r_info)) {
      case R_X86_64_NONE:
        continue;
      case R_X86_64_RELATIVE:
        out.kind = RelocationKind::relative;
        break;
      case R_X86_64_64:
        out.kind = RelocationKind::absolute;
        break;
      case R_X86_64_GLOB_DAT:
        out.kind = RelocationKind::global_data;
        break;
      case R_X86_64_JUMP_SLOT:
        out.kind = RelocationKind::jump_slot;
        break;
      case R_X86_64_DTPMOD64:
        out.kind = RelocationKind::tls_module;
        break;
      case R_X86_64_DTPOFF64:
        out.kind = RelocationKind::tls_offset;
        break;
      case R_X86_64_IRELATIVE:
        out.kind = RelocationKind::irelative;
        break;
      case R_X86_64_TPOFF64:
        r.fail(
            "it uses the initial-exec thread-local model (R_X86_64_TPOFF64), which a loaded "
            "image cannot: compile without -ftls-model=initial-exec");
      default:
        r.fail("relocation type " + std::to_string(ELF64_R_TYPE(rela.r_info)) +
               " is not one a position-independent x86-64 shared object carries");
    }
    if (out.symbol >= image.symbols.size()) r.fail("a relocation names no symbol of the image");
    if (!in_memory(image, out.offset, 8, true)) {
      r.fail("a relocation writes outside the writable segments");
    }
    image.relocations.push_back(out);
  }
}

void find_main(const Reader& r, ElfImage& image) {
  for (const ElfSymbol& s : image.symbols) {
    if (s.name == "main" && s.defined && !s.thread_local_) {
      if (!in_memory(image, s.value, 1, false)) r.fail("main lies outside the segments");
      image.main = s.value;
      return;
    }
  }
  r.fail("it exports no main (vela-mpicc links the program's main into the image)");
}

}  // namespace

ElfImage read_elf_image(std::span<const std::byte> bytes, std::string_view name) {
  const Reader r(bytes, name);
  const Elf64_Ehdr h = read_header(r);
  ElfImage image;
  Elf64_Phdr dynamic_header{};
  read_segments(r, h, image, dynamic_header);
  Dynamic d = read_dynamic(r, dynamic_header, image);
  check_dynamic(r, d, image);
  if (d.strtab_bytes == 0) r.fail("no dynamic string table");
  d.strtab_file = file_offset(r, image, d.strtab, d.strtab_bytes, "the dynamic string table");
  for (std::uint64_t n : d.needed)
    image.needed.push_back(r.string(d.strtab_file, d.strtab_bytes, n));
  const Sections s = read_sections(r, h, image);
  image.symbols = read_symbols(r, s, d);
  read_relocations(r, image, d.rela, d.rela_bytes);
  read_relocations(r, image, d.jmprel, d.jmprel_bytes);
  if (image.eh_frame != 0 && !in_memory(image, image.eh_frame, 4, false)) image.eh_frame = 0;
  if (image.eh_frame_hdr != 0 &&
      !in_memory(image, image.eh_frame_hdr, image.eh_frame_hdr_bytes, false)) {
    image.eh_frame_hdr = image.eh_frame_hdr_bytes = 0;
  }
  find_main(r, image);
  return image;
}

}  // namespace vela::vp::detail
