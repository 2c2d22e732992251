// The program image reader (image/elf_image.hpp) on shared objects the system compiler builds
// here, as vela-mpicc does (cc -fPIC -shared): what it reads is compared with readelf's and nm's
// account of the same file (segments, dynamic entries, every relocation, every dynamic symbol and
// its version, the TLS segment, .eh_frame, main); what it must refuse (an empty file, another
// kind of file, 32-bit or big-endian ELF, an executable, no main, text relocations, the
// initial-exec TLS model, damaged tables) is an Error naming the file and what was expected; and
// every prefix of a real image, and thousands of deterministic byte changes in its headers and
// tables, either read into an image that keeps the header's invariants or throw Error.
#include "image/elf_image.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <elf.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "support/program.hpp"
#include "vela/vp/vp.hpp"

namespace {

using ::testing::HasSubstr;
using vela::vp::Error;
using vela::vp::detail::ElfImage;
using vela::vp::detail::ElfRelocation;
using vela::vp::detail::ElfSegment;
using vela::vp::detail::ElfSymbol;
using vela::vp::detail::read_elf_image;
using vela::vp::detail::RelocationKind;

using Bytes = std::vector<std::byte>;

Bytes read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<char> chars((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  Bytes bytes(chars.size());
  if (!chars.empty()) std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

std::uint64_t hex(const std::string& text) {
  return std::stoull(text, nullptr, 16);
}

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::vector<std::string> lines(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// The message of the Error that reading `bytes` throws, or "" (a test failure) when it reads.
std::string error_of(const Bytes& bytes, const std::string& name) {
  try {
    read_elf_image(bytes, name);
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << name << " was read, expected an Error";
  return "";
}

// What elf_image.hpp promises of a returned image, for a file of `file_size` bytes: "" when it
// holds, else the first promise broken.
std::string broken_invariant(const ElfImage& image, std::size_t file_size) {
  const auto within = [&](std::uint64_t address, std::uint64_t size, bool writable) {
    return std::any_of(image.segments.begin(), image.segments.end(), [&](const ElfSegment& s) {
      return address >= s.address && address - s.address <= s.memory_bytes &&
             s.memory_bytes - (address - s.address) >= size && (!writable || s.writable);
    });
  };
  if (image.segments.empty()) return "no segment";
  if (image.segments.front().address != 0) return "the first segment does not start at 0";
  for (std::size_t i = 0; i < image.segments.size(); ++i) {
    const ElfSegment& s = image.segments[i];
    if (i > 0 && s.address < image.segments[i - 1].address) return "segments not sorted";
    if (s.address % 4096 != s.file_offset % 4096) return "a segment not aligned as in the file";
    if (s.file_bytes > s.memory_bytes) return "a segment's file bytes exceed its memory";
    if (s.file_offset > file_size || file_size - s.file_offset < s.file_bytes) {
      return "a segment's file bytes lie outside the file";
    }
    if (s.address + s.memory_bytes > image.span) return "a segment ends past the span";
    if (i > 0) {
      const ElfSegment& before = image.segments[i - 1];
      if ((before.address + before.memory_bytes + 4095) / 4096 > s.address / 4096) {
        return "segments share a page";
      }
    }
  }
  if (image.span % 4096 != 0) return "the span is not whole pages";
  if (image.alignment < 4096 || (image.alignment & (image.alignment - 1)) != 0 ||
      image.alignment > (std::uint64_t{1} << 30)) {
    return "the alignment is not a power of two from a page to 1 GiB";
  }
  if (image.symbols.empty() || !image.symbols[0].name.empty()) return "no null symbol 0";
  for (const ElfRelocation& r : image.relocations) {
    if (r.symbol >= image.symbols.size()) return "a relocation's symbol index is invalid";
    if (!within(r.offset, 8, true)) return "a relocation writes outside the writable segments";
  }
  if (!within(image.main, 1, false)) return "main lies outside the segments";
  if (image.init != 0 && !within(image.init, 1, false)) return "DT_INIT outside the segments";
  if (image.fini != 0 && !within(image.fini, 1, false)) return "DT_FINI outside the segments";
  if (image.init_count > 0 && !within(image.init_array, image.init_count * 8, false)) {
    return "the init array lies outside the segments";
  }
  if (image.fini_count > 0 && !within(image.fini_array, image.fini_count * 8, false)) {
    return "the fini array lies outside the segments";
  }
  if (image.eh_frame != 0 && !within(image.eh_frame, 4, false)) return ".eh_frame outside";
  if (image.tls.memory_bytes > 0) {
    if (image.tls.file_bytes > image.tls.memory_bytes) return "TLS file bytes exceed memory";
    if (image.tls.alignment == 0 || (image.tls.alignment & (image.tls.alignment - 1)) != 0 ||
        image.tls.alignment > (std::uint64_t{1} << 30)) {
      return "the TLS alignment is not a power of two up to 1 GiB";
    }
    if (!within(image.tls.address, image.tls.file_bytes, false)) return "the TLS image outside";
  }
  return "";
}

// A program with what the reader must find: a global counter (GOT entry), a static local that
// holds the counter's address (an absolute relocation), a table of function pointers (relative
// relocations), an initialized and a zeroed thread-local (the TLS segment, its module and offset
// relocations), a constructor and a destructor (init and fini arrays), calls into the C library
// (PLT slots with versions: memcpy asks for GLIBC_2.14 on x86-64), and main.
constexpr const char* program_source = R"(
#include <stdio.h>
#include <string.h>
int counter = 1;
static int twice(int x) { return 2 * x; }
static int thrice(int x) { return 3 * x; }
int (*table[])(int) = {twice, thrice};
__thread int per_thread = 7;
__thread int zeroed_per_thread;
static __attribute__((constructor)) void start(void) { counter += 1; }
static __attribute__((destructor)) void stop(void) { counter -= 1; }
int* where(void) { static int* at = &counter; return at; }
int next(void) { static int calls; return ++calls; }
int main(int argc, char** argv) {
  char buffer[64];
  memcpy(buffer, argv[0], (size_t)argc);
  per_thread += table[argc & 1](argc) + zeroed_per_thread;
  printf("%d %d %d %s\n", counter, next(), *where(), buffer);
  return 0;
}
)";

class ElfImageTest : public vela::testing::ScratchDirTest {
 protected:
  // Compiles C `source` with `flags` into `name` in the scratch directory: the file's path, or
  // "" (a test failure naming the compiler's output).
  std::string build(const std::string& name, const std::string& source, const std::string& flags) {
    const std::string c_file = path(name + ".c");
    std::ofstream(c_file) << source;
    const std::string out = path(name);
    const auto r =
        vela::testing::run_command("/usr/bin/cc " + flags + " -o " + out + " " + c_file + " 2>&1");
    if (r.status != 0) {
      ADD_FAILURE() << "cc " << flags << " failed:\n" << r.out;
      return "";
    }
    return out;
  }
};

// The output of a binary tool (readelf, nm) run on `file`.
std::string tool(const std::string& command, const std::string& file) {
  const auto r = vela::testing::run_command(command + " " + file + " 2>&1");
  EXPECT_EQ(r.status, 0) << command << " " << file << "\n" << r.out;
  return r.out;
}

// nm's address of `symbol` in `file` (local symbols too), or nullopt.
std::optional<std::uint64_t> nm_address(const std::string& file, const std::string& symbol) {
  for (const std::string& line : lines(tool("nm", file))) {
    const auto w = words(line);
    if (w.size() == 3 && w[2] == symbol) return hex(w[0]);
  }
  return std::nullopt;
}

// ---- What the reader finds, against readelf and nm ----

struct ReadelfSegment {
  std::uint64_t offset, address, file_bytes, memory_bytes, alignment;
  bool writable, executable;
};

// readelf -lW's lines of `type` (LOAD, TLS).
std::vector<ReadelfSegment> readelf_segments(const std::string& out, const std::string& type) {
  std::vector<ReadelfSegment> found;
  for (const std::string& line : lines(out)) {
    const auto w = words(line);
    if (w.size() < 8 || w[0] != type) continue;
    std::string flags;
    for (std::size_t i = 6; i + 1 < w.size(); ++i) flags += w[i];
    found.push_back({hex(w[1]), hex(w[2]), hex(w[4]), hex(w[5]), hex(w.back()),
                     flags.find('W') != std::string::npos, flags.find('E') != std::string::npos});
  }
  return found;
}

// readelf -dW: the value of each tag (the last one seen), and the NEEDED names in order.
struct ReadelfDynamic {
  std::map<std::string, std::uint64_t> values;
  std::vector<std::string> needed;
};

ReadelfDynamic readelf_dynamic(const std::string& out) {
  ReadelfDynamic d;
  for (const std::string& line : lines(out)) {
    const auto open = line.find('(');
    const auto close = line.find(')');
    if (line.rfind(" 0x", 0) != 0 || open == std::string::npos || close == std::string::npos) {
      continue;
    }
    const std::string tag = line.substr(open + 1, close - open - 1);
    const auto w = words(line.substr(close + 1));
    if (w.empty()) continue;
    if (tag == "NEEDED") {
      const auto l = line.find('['), r = line.find(']');
      d.needed.push_back(line.substr(l + 1, r - l - 1));
    } else if (w[0].rfind("0x", 0) == 0) {
      d.values[tag] = hex(w[0]);
    } else if (std::isdigit(static_cast<unsigned char>(w[0][0]))) {
      d.values[tag] = std::stoull(w[0]);
    }
  }
  return d;
}

struct ReadelfRelocation {
  std::uint64_t offset;
  std::uint32_t symbol;
  std::uint32_t type;
  std::int64_t addend;
};

// readelf -rW's relocations in file order (.rela.dyn, then .rela.plt).
std::vector<ReadelfRelocation> readelf_relocations(const std::string& out) {
  std::vector<ReadelfRelocation> found;
  for (const std::string& line : lines(out)) {
    const auto w = words(line);
    if (w.size() < 4 || w[0].size() != 16 || w[1].size() != 16 ||
        w[0].find_first_not_of("0123456789abcdef") != std::string::npos) {
      continue;
    }
    const std::uint64_t info = hex(w[1]);
    std::int64_t addend = static_cast<std::int64_t>(hex(w.back()));
    if (w.size() >= 3 && w[w.size() - 2] == "-") addend = -addend;
    found.push_back({hex(w[0]), static_cast<std::uint32_t>(info >> 32),
                     static_cast<std::uint32_t>(info & 0xffffffff), addend});
  }
  return found;
}

struct ReadelfSymbol {
  std::string name, version;
  std::uint64_t value;
  bool defined, weak, tls;
};

// readelf --dyn-syms -W's symbols by index.
std::vector<ReadelfSymbol> readelf_symbols(const std::string& out) {
  std::vector<ReadelfSymbol> found;
  for (const std::string& line : lines(out)) {
    const auto w = words(line);
    if (w.size() < 7 || w[0].back() != ':' ||
        w[0].find_first_not_of("0123456789:") != std::string::npos) {
      continue;
    }
    ReadelfSymbol s{"", "", hex(w[1]), w[6] != "UND", w[4] == "WEAK", w[3] == "TLS"};
    if (w.size() >= 8) {
      const std::string& full = w[7];
      const auto at = full.find('@');
      s.name = full.substr(0, at);
      if (at != std::string::npos) s.version = full.substr(full.find_first_not_of('@', at));
    }
    found.push_back(s);
  }
  return found;
}

// readelf -SW: a section's address by name, or nullopt.
std::optional<std::uint64_t> readelf_section(const std::string& out, const std::string& name) {
  for (const std::string& line : lines(out)) {
    const auto close = line.find(']');
    if (line.find('[') == std::string::npos || close == std::string::npos) continue;
    const auto w = words(line.substr(close + 1));
    if (w.size() >= 3 && w[0] == name) return hex(w[2]);
  }
  return std::nullopt;
}

std::optional<RelocationKind> kind_of(std::uint32_t type) {
  switch (type) {
    case R_X86_64_RELATIVE:
      return RelocationKind::relative;
    case R_X86_64_64:
      return RelocationKind::absolute;
    case R_X86_64_GLOB_DAT:
      return RelocationKind::global_data;
    case R_X86_64_JUMP_SLOT:
      return RelocationKind::jump_slot;
    case R_X86_64_DTPMOD64:
      return RelocationKind::tls_module;
    case R_X86_64_DTPOFF64:
      return RelocationKind::tls_offset;
    case R_X86_64_IRELATIVE:
      return RelocationKind::irelative;
    default:
      return std::nullopt;
  }
}

// The relocations of `kind` whose symbol is named `name` ("" for none).
std::vector<ElfRelocation> relocations(const ElfImage& image, RelocationKind kind,
                                       const std::string& name) {
  std::vector<ElfRelocation> out;
  for (const ElfRelocation& r : image.relocations) {
    if (r.kind == kind && image.symbols[r.symbol].name == name) out.push_back(r);
  }
  return out;
}

const ElfSymbol* symbol(const ElfImage& image, const std::string& name) {
  for (const ElfSymbol& s : image.symbols) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

// Everything the reader found in `so`, against readelf's account of it: the loadable segments,
// the span and alignment, the TLS segment, the libraries needed, the init and fini arrays,
// DT_INIT and DT_FINI, .eh_frame, every dynamic symbol with its version, every relocation.
void expect_as_readelf_reads(const std::string& so, const ElfImage& image) {
  const std::string program_headers = tool("readelf -lW", so);
  const auto loads = readelf_segments(program_headers, "LOAD");
  ASSERT_EQ(image.segments.size(), loads.size()) << so;
  std::uint64_t end = 0, alignment = 0;
  for (std::size_t i = 0; i < loads.size(); ++i) {
    const ElfSegment& s = image.segments[i];
    EXPECT_EQ(s.address, loads[i].address) << so << " " << i;
    EXPECT_EQ(s.file_offset, loads[i].offset) << so << " " << i;
    EXPECT_EQ(s.file_bytes, loads[i].file_bytes) << so << " " << i;
    EXPECT_EQ(s.memory_bytes, loads[i].memory_bytes) << so << " " << i;
    EXPECT_EQ(s.writable, loads[i].writable) << so << " " << i;
    EXPECT_EQ(s.executable, loads[i].executable) << so << " " << i;
    end = std::max(end, loads[i].address + loads[i].memory_bytes);
    alignment = std::max(alignment, loads[i].alignment);
  }
  EXPECT_EQ(image.span, (end + 4095) / 4096 * 4096) << so;
  EXPECT_EQ(image.alignment, std::max<std::uint64_t>(alignment, 4096)) << so;

  const auto tls = readelf_segments(program_headers, "TLS");
  if (tls.empty()) {
    EXPECT_EQ(image.tls.memory_bytes, 0u) << so;
  } else {
    EXPECT_EQ(image.tls.address, tls[0].address) << so;
    EXPECT_EQ(image.tls.file_bytes, tls[0].file_bytes) << so;
    EXPECT_EQ(image.tls.memory_bytes, tls[0].memory_bytes) << so;
    EXPECT_EQ(image.tls.alignment, tls[0].alignment) << so;
  }

  const ReadelfDynamic dynamic = readelf_dynamic(tool("readelf -dW", so));
  const auto value = [&](const char* tag) {
    return dynamic.values.count(tag) ? dynamic.values.at(tag) : 0;
  };
  EXPECT_EQ(image.needed, dynamic.needed) << so;
  EXPECT_EQ(image.init_count, value("INIT_ARRAYSZ") / 8) << so;
  EXPECT_EQ(image.fini_count, value("FINI_ARRAYSZ") / 8) << so;
  if (image.init_count > 0) {
    EXPECT_EQ(image.init_array, value("INIT_ARRAY")) << so;
  }
  if (image.fini_count > 0) {
    EXPECT_EQ(image.fini_array, value("FINI_ARRAY")) << so;
  }
  EXPECT_EQ(image.init, value("INIT")) << so;
  EXPECT_EQ(image.fini, value("FINI")) << so;

  EXPECT_EQ(image.eh_frame, readelf_section(tool("readelf -SW", so), ".eh_frame").value_or(0))
      << so;

  const auto symbols = readelf_symbols(tool("readelf --dyn-syms -W", so));
  ASSERT_EQ(image.symbols.size(), symbols.size()) << so;
  for (std::size_t i = 0; i < symbols.size(); ++i) {
    const ElfSymbol& s = image.symbols[i];
    EXPECT_EQ(s.name, symbols[i].name) << so << " " << i;
    EXPECT_EQ(s.value, symbols[i].value) << so << " " << s.name;
    EXPECT_EQ(s.defined, symbols[i].defined) << so << " " << s.name;
    EXPECT_EQ(s.weak, symbols[i].weak) << so << " " << s.name;
    EXPECT_EQ(s.thread_local_, symbols[i].tls) << so << " " << s.name;
    EXPECT_EQ(s.version, s.defined ? "" : symbols[i].version) << so << " " << s.name;
  }

  // In order: .rela.dyn's, then .rela.plt's.
  const auto expected = readelf_relocations(tool("readelf -rW", so));
  ASSERT_EQ(image.relocations.size(), expected.size()) << so;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const ElfRelocation& r = image.relocations[i];
    EXPECT_EQ(r.offset, expected[i].offset) << so << " " << i;
    EXPECT_EQ(r.symbol, expected[i].symbol) << so << " " << i;
    EXPECT_EQ(r.addend, expected[i].addend) << so << " " << i;
    EXPECT_EQ(std::optional(r.kind), kind_of(expected[i].type)) << so << " " << i;
  }
}

TEST_F(ElfImageTest, ReadsWhatReadelfAndNmSeeInACProgram) {
  const std::string so = build("program.so", program_source, "-fPIC -shared");
  ASSERT_FALSE(so.empty());
  const Bytes bytes = read_bytes(so);
  const ElfImage image = read_elf_image(bytes, "program.so");
  EXPECT_EQ(broken_invariant(image, bytes.size()), "");
  expect_as_readelf_reads(so, image);

  // main, from nm.
  EXPECT_EQ(image.main, nm_address(so, "main").value_or(0));
  EXPECT_NE(image.main, 0u);
  // Code, and data the program writes, in segments of their own.
  EXPECT_TRUE(std::any_of(image.segments.begin(), image.segments.end(),
                          [](const ElfSegment& s) { return s.writable && !s.executable; }));
  EXPECT_TRUE(std::any_of(image.segments.begin(), image.segments.end(),
                          [](const ElfSegment& s) { return s.executable && !s.writable; }));
  // The TLS segment: 4 initialized bytes, 8 in all (the zeroed one after them).
  EXPECT_EQ(image.tls.file_bytes, 4u);
  EXPECT_EQ(image.tls.memory_bytes, 8u);
  EXPECT_EQ(image.tls.alignment, 4u);
  // The C library, frame_dummy and the constructor, __do_global_dtors_aux and the destructor,
  // the unwinder's table.
  EXPECT_THAT(image.needed, ::testing::Contains("libc.so.6"));
  EXPECT_GE(image.init_count, 2u);
  EXPECT_GE(image.fini_count, 2u);
  EXPECT_NE(image.eh_frame, 0u);

  // The kinds the program's constructs make, independently of readelf's -r.
  // The table: two relative relocations, its entries, to twice and thrice.
  const std::uint64_t table = nm_address(so, "table").value_or(0);
  std::map<std::uint64_t, std::int64_t> relative;
  for (const ElfRelocation& r : relocations(image, RelocationKind::relative, "")) {
    relative[r.offset] = r.addend;
  }
  ASSERT_TRUE(relative.count(table) && relative.count(table + 8));
  EXPECT_EQ(static_cast<std::uint64_t>(relative[table]), nm_address(so, "twice").value_or(1));
  EXPECT_EQ(static_cast<std::uint64_t>(relative[table + 8]), nm_address(so, "thrice").value_or(1));
  // The init array's entries are relocated to functions, one of them the constructor.
  bool constructor = false, destructor = false;
  for (std::uint64_t i = 0; i < image.init_count; ++i) {
    ASSERT_TRUE(relative.count(image.init_array + 8 * i)) << i;
    constructor |= static_cast<std::uint64_t>(relative[image.init_array + 8 * i]) ==
                   nm_address(so, "start").value_or(1);
  }
  for (std::uint64_t i = 0; i < image.fini_count; ++i) {
    ASSERT_TRUE(relative.count(image.fini_array + 8 * i)) << i;
    destructor |= static_cast<std::uint64_t>(relative[image.fini_array + 8 * i]) ==
                  nm_address(so, "stop").value_or(1);
  }
  EXPECT_TRUE(constructor);
  EXPECT_TRUE(destructor);
  // The static local's address of the (preemptible) counter; the counter's GOT entry.
  EXPECT_EQ(relocations(image, RelocationKind::absolute, "counter").size(), 1u);
  EXPECT_EQ(relocations(image, RelocationKind::global_data, "counter").size(), 1u);
  // The C library's calls through the PLT.
  EXPECT_EQ(relocations(image, RelocationKind::jump_slot, "memcpy").size(), 1u);
  EXPECT_EQ(relocations(image, RelocationKind::jump_slot, "printf").size(), 1u);
  // The thread-local's module and offset.
  EXPECT_EQ(relocations(image, RelocationKind::tls_module, "per_thread").size(), 1u);
  EXPECT_EQ(relocations(image, RelocationKind::tls_offset, "per_thread").size(), 1u);
  ASSERT_NE(symbol(image, "per_thread"), nullptr);
  EXPECT_TRUE(symbol(image, "per_thread")->thread_local_);
  EXPECT_TRUE(symbol(image, "per_thread")->defined);
}

TEST_F(ElfImageTest, ReadsTheVersionAnUndefinedSymbolAsksFor) {
  const std::string so = build("versions.so", program_source, "-fPIC -shared");
  ASSERT_FALSE(so.empty());
  const ElfImage image = read_elf_image(read_bytes(so), "versions.so");
  const ElfSymbol* memcpy_symbol = symbol(image, "memcpy");
  ASSERT_NE(memcpy_symbol, nullptr);
  EXPECT_FALSE(memcpy_symbol->defined);
  EXPECT_THAT(memcpy_symbol->version, ::testing::StartsWith("GLIBC_2."));
  // readelf's: memcpy@GLIBC_2.14 on x86-64 glibc.
  for (const ReadelfSymbol& s : readelf_symbols(tool("readelf --dyn-syms -W", so))) {
    if (s.name == "memcpy") {
      EXPECT_EQ(memcpy_symbol->version, s.version);
    }
  }
  const ElfSymbol* printf_symbol = symbol(image, "printf");
  ASSERT_NE(printf_symbol, nullptr);
  EXPECT_THAT(printf_symbol->version, ::testing::StartsWith("GLIBC_2."));
  // A defined symbol asks for no version.
  ASSERT_NE(symbol(image, "main"), nullptr);
  EXPECT_EQ(symbol(image, "main")->version, "");
}

TEST_F(ElfImageTest, ReadsAnIfuncAsIrelative) {
  const std::string so = build("ifunc.so", R"(
static int impl(void) { return 1; }
static void* resolve(void) { return (void*)impl; }
__attribute__((visibility("hidden"))) int chosen(void) __attribute__((ifunc("resolve")));
int main(void) { return chosen(); }
)",
                               "-fPIC -shared");
  ASSERT_FALSE(so.empty());
  const Bytes bytes = read_bytes(so);
  const ElfImage image = read_elf_image(bytes, "ifunc.so");
  EXPECT_EQ(broken_invariant(image, bytes.size()), "");
  expect_as_readelf_reads(so, image);
  const auto irelative = relocations(image, RelocationKind::irelative, "");
  ASSERT_EQ(irelative.size(), 1u);
  EXPECT_EQ(static_cast<std::uint64_t>(irelative[0].addend), nm_address(so, "resolve").value_or(1));
  EXPECT_EQ(image.tls.memory_bytes, 0u);  // no thread-locals
}

TEST_F(ElfImageTest, ReadsAStrippedImageWithoutTheCLibrary) {
  const std::string so =
      build("tiny.so", "int counter;\nint main(void) { return counter; }\n",
            "-Os -nostdlib -shared -fPIC -Wl,-z,noseparate-code -Wl,--build-id=none -s");
  ASSERT_FALSE(so.empty());
  const Bytes bytes = read_bytes(so);
  const ElfImage image = read_elf_image(bytes, "tiny.so");
  EXPECT_EQ(broken_invariant(image, bytes.size()), "");
  expect_as_readelf_reads(so, image);
  EXPECT_TRUE(image.needed.empty());
  EXPECT_EQ(image.init_count, 0u);
  EXPECT_EQ(image.fini_count, 0u);
  ASSERT_NE(symbol(image, "main"), nullptr);
  EXPECT_EQ(image.main, symbol(image, "main")->value);
  EXPECT_EQ(relocations(image, RelocationKind::global_data, "counter").size(), 1u);
}

// The program linked by each linker the compiler can use here (GNU ld, gold, lld), with the
// layouts they are asked for most, and a C++ program (as vela-mpicxx builds): each reads as
// readelf reads it. The page-sharing and alignment checks must refuse none of them.
TEST_F(ElfImageTest, ReadsWhatEveryLinkerLaysOut) {
  int linked = 0;
  for (const std::string linker : {"bfd", "gold", "lld"}) {
    for (const std::string layout : {"", "-Wl,-z,noseparate-code", "-Wl,-z,norelro",
                                     "-Wl,-z,max-page-size=0x200000", "-O2 -Wl,-z,now"}) {
      const std::string flags = "-fPIC -shared -fuse-ld=" + linker + " " + layout;
      const std::string so = path("linked.so");
      std::ofstream(path("linked.c")) << program_source;
      if (vela::testing::run_command("/usr/bin/cc " + flags + " -o " + so + " " + path("linked.c") +
                                     " >/dev/null 2>&1")
              .status != 0) {
        continue;  // a linker, or a layout of it, this system lacks
      }
      ++linked;
      const Bytes bytes = read_bytes(so);
      try {
        const ElfImage image = read_elf_image(bytes, "linked.so");
        EXPECT_EQ(broken_invariant(image, bytes.size()), "") << flags;
        expect_as_readelf_reads(so, image);
      } catch (const Error& e) {
        ADD_FAILURE() << flags << ": " << e.what();
      }
    }
  }
  EXPECT_GE(linked, 5);  // GNU ld's at least

  // gold types .eh_frame SHT_X86_64_UNWIND (the psABI's type), GNU ld PROGBITS: the same image
  // with GNU ld's section retyped, wherever gold is missing.
  const std::string so = build("retyped.so", program_source, "-fPIC -shared -fuse-ld=bfd");
  ASSERT_FALSE(so.empty());
  Bytes retyped = read_bytes(so);
  const std::uint64_t eh_frame = readelf_section(tool("readelf -SW", so), ".eh_frame").value_or(0);
  ASSERT_NE(eh_frame, 0u);
  Elf64_Ehdr h;
  std::memcpy(&h, retyped.data(), sizeof h);
  int changed = 0;
  for (std::uint64_t i = 0; i < h.e_shnum; ++i) {
    Elf64_Shdr sh;
    const std::uint64_t at = h.e_shoff + i * sizeof sh;
    std::memcpy(&sh, retyped.data() + at, sizeof sh);
    if (sh.sh_type != SHT_PROGBITS || sh.sh_addr != eh_frame) continue;
    sh.sh_type = SHT_X86_64_UNWIND;
    std::memcpy(retyped.data() + at, &sh, sizeof sh);
    ++changed;
  }
  ASSERT_EQ(changed, 1);
  EXPECT_EQ(read_elf_image(retyped, "retyped.so").eh_frame, eh_frame);

  const std::string cxx = path("program-cxx.so");
  std::ofstream(path("program.cpp")) << R"(
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>
struct Noisy { ~Noisy() { std::cout << "bye\n"; } };
thread_local std::string name = "rank";
thread_local Noisy noisy;
static std::vector<int> values{1, 2, 3};
int main() {
  try {
    throw std::runtime_error("thrown");
  } catch (const std::exception& e) {
    std::cout << e.what();
  }
  (void)noisy;
  std::cout << name << values.size() << "\n";
}
)";
  const auto r = vela::testing::run_command("/usr/bin/c++ -fPIC -shared -o " + cxx + " " +
                                            path("program.cpp") + " 2>&1");
  ASSERT_EQ(r.status, 0) << r.out;
  const Bytes bytes = read_bytes(cxx);
  const ElfImage image = read_elf_image(bytes, "program-cxx.so");
  EXPECT_EQ(broken_invariant(image, bytes.size()), "");
  expect_as_readelf_reads(cxx, image);
  EXPECT_THAT(image.needed, ::testing::Contains(::testing::StartsWith("libstdc++.so")));
  EXPECT_GT(image.tls.memory_bytes, 0u);
  EXPECT_FALSE(relocations(image, RelocationKind::tls_module, "").empty() &&
               relocations(image, RelocationKind::tls_module, "name").empty());
}

// ---- What it refuses ----

TEST_F(ElfImageTest, RefusesAnEmptyFile) {
  const std::string message = error_of({}, "empty.so");
  EXPECT_THAT(message, HasSubstr("'empty.so'"));
  EXPECT_THAT(message, HasSubstr("empty"));
  EXPECT_THAT(message, HasSubstr("expected an x86-64 ELF shared object"));
}

TEST_F(ElfImageTest, RefusesWhatIsNotAnElfFile) {
  for (const std::string& text : {std::string("#!/bin/sh\necho hello\n"), std::string("\x7f"),
                                  std::string("\x7f"
                                              "EL"),
                                  std::string(4096, 'x')}) {
    Bytes bytes(text.size());
    std::memcpy(bytes.data(), text.data(), text.size());
    const std::string message = error_of(bytes, "script.sh");
    EXPECT_THAT(message, HasSubstr("'script.sh'"));
    EXPECT_THAT(message, HasSubstr("not an ELF file"));
    EXPECT_THAT(message, HasSubstr("expected an x86-64 ELF shared object"));
  }
}

TEST_F(ElfImageTest, RefusesOtherClassesByteOrdersAndMachines) {
  const std::string so = build("program.so", program_source, "-fPIC -shared");
  ASSERT_FALSE(so.empty());
  const Bytes good = read_bytes(so);
  const auto patched = [&](std::size_t at, std::byte value) {
    Bytes b = good;
    b[at] = value;
    return b;
  };
  const std::string expected = "expected a 64-bit little-endian x86-64 ELF file";
  EXPECT_THAT(error_of(patched(EI_CLASS, std::byte{ELFCLASS32}), "a.so"), HasSubstr(expected));
  EXPECT_THAT(error_of(patched(EI_DATA, std::byte{ELFDATA2MSB}), "a.so"), HasSubstr(expected));
  Bytes arm = good;
  const std::uint16_t aarch64 = EM_AARCH64;
  std::memcpy(arm.data() + offsetof(Elf64_Ehdr, e_machine), &aarch64, 2);
  EXPECT_THAT(error_of(arm, "a.so"), HasSubstr(expected));
  // A 32-bit shared object as the compiler makes it (-m32), where it can; and a bare 32-bit
  // header, shorter than a 64-bit one.
  const auto r = vela::testing::run_command("/usr/bin/cc -m32 -fPIC -shared -nostdlib -o " +
                                            path("x32.so") + " -x c - </dev/null 2>&1");
  if (r.status == 0) {
    const std::string message = error_of(read_bytes(path("x32.so")), "x32.so");
    EXPECT_THAT(message, HasSubstr("'x32.so'"));
    EXPECT_THAT(message, HasSubstr(expected));
  }
  Elf32_Ehdr header{};
  std::memcpy(header.e_ident, ELFMAG, SELFMAG);
  header.e_ident[EI_CLASS] = ELFCLASS32;
  header.e_ident[EI_DATA] = ELFDATA2LSB;
  header.e_type = ET_DYN;
  header.e_machine = EM_386;
  Bytes bare(sizeof header);
  std::memcpy(bare.data(), &header, sizeof header);
  EXPECT_THAT(error_of(bare, "bare32.so"), HasSubstr(expected));
}

TEST_F(ElfImageTest, RefusesAnExecutable) {
  const std::string exe = build("program", program_source, "-no-pie");
  ASSERT_FALSE(exe.empty());
  const std::string message = error_of(read_bytes(exe), "program");
  EXPECT_THAT(message, HasSubstr("'program'"));
  EXPECT_THAT(message, HasSubstr("expected a shared object (ET_DYN)"));
  // A position-independent executable is ET_DYN, but its main is not exported.
  const std::string pie = build("program-pie", program_source, "-fPIE -pie");
  ASSERT_FALSE(pie.empty());
  EXPECT_THAT(error_of(read_bytes(pie), "program-pie"), HasSubstr("exports no main"));
}

TEST_F(ElfImageTest, RefusesAnImageWithoutMain) {
  const std::string so =
      build("library.so", "int counter;\nint get(void) { return counter; }\n", "-fPIC -shared");
  ASSERT_FALSE(so.empty());
  const std::string message = error_of(read_bytes(so), "library.so");
  EXPECT_THAT(message, HasSubstr("'library.so'"));
  EXPECT_THAT(message, HasSubstr("exports no main"));
  // main as a thread-local or undefined is no main either.
  const std::string tls = build("tls-main.so", "__thread int main = 1;\n", "-fPIC -shared");
  ASSERT_FALSE(tls.empty());
  EXPECT_THAT(error_of(read_bytes(tls), "tls-main.so"), HasSubstr("exports no main"));
  const std::string undefined =
      build("undefined-main.so", "extern int main(void);\nint call(void) { return main(); }\n",
            "-fPIC -shared");
  ASSERT_FALSE(undefined.empty());
  EXPECT_THAT(error_of(read_bytes(undefined), "undefined-main.so"), HasSubstr("exports no main"));
}

TEST_F(ElfImageTest, RefusesTextRelocations) {
  // Code compiled without -fPIC (the large model: absolute addresses in the code) linked with
  // its text relocations.
  const std::string so = build("text.so", "int value = 3;\nint main(void) { return value; }\n",
                               "-fno-pic -mcmodel=large -shared -Wl,-z,notext");
  ASSERT_FALSE(so.empty());
  const std::string message = error_of(read_bytes(so), "text.so");
  EXPECT_THAT(message, HasSubstr("'text.so'"));
  EXPECT_THAT(message, HasSubstr("text relocations"));
  EXPECT_THAT(message, HasSubstr("position-independent code"));
}

TEST_F(ElfImageTest, RefusesTheInitialExecTlsModel) {
  const std::string so = build(
      "initial-exec.so", "__thread int per_thread = 7;\nint main(void) { return per_thread; }\n",
      "-fPIC -shared -ftls-model=initial-exec");
  ASSERT_FALSE(so.empty());
  const Bytes bytes = read_bytes(so);
  const std::string message = error_of(bytes, "initial-exec.so");
  EXPECT_THAT(message, HasSubstr("'initial-exec.so'"));
  EXPECT_THAT(message, HasSubstr("initial-exec thread-local model (-ftls-model=initial-exec)"));
  // Without the DF_STATIC_TLS flag, its R_X86_64_TPOFF64 relocation says the same.
  const auto dynamic = readelf_segments(tool("readelf -lW", so), "DYNAMIC");
  ASSERT_EQ(dynamic.size(), 1u);
  Bytes unflagged = bytes;
  for (std::uint64_t at = dynamic[0].offset;
       at + sizeof(Elf64_Dyn) <= dynamic[0].offset + dynamic[0].file_bytes;
       at += sizeof(Elf64_Dyn)) {
    Elf64_Dyn e;
    std::memcpy(&e, unflagged.data() + at, sizeof e);
    if (e.d_tag == DT_FLAGS) e.d_un.d_val &= ~std::uint64_t{DF_STATIC_TLS};
    std::memcpy(unflagged.data() + at, &e, sizeof e);
  }
  EXPECT_THAT(error_of(unflagged, "initial-exec.so"),
              HasSubstr("initial-exec thread-local model (R_X86_64_TPOFF64)"));
}

// Damaged tables of a real image, each change at a place readelf names.
TEST_F(ElfImageTest, RefusesDamagedTables) {
  const std::string so = build("program.so", program_source, "-fPIC -shared");
  ASSERT_FALSE(so.empty());
  const Bytes good = read_bytes(so);
  const auto sections = tool("readelf -SW", so);
  // .rela.dyn's file offset (its address and offset agree in the first segment).
  const std::uint64_t rela = readelf_section(sections, ".rela.dyn").value_or(0);
  ASSERT_NE(rela, 0u);
  const auto with_relocation = [&](const std::function<void(Elf64_Rela&)>& change) {
    Bytes b = good;
    Elf64_Rela r;
    std::memcpy(&r, b.data() + rela, sizeof r);
    change(r);
    std::memcpy(b.data() + rela, &r, sizeof r);
    return b;
  };
  EXPECT_THAT(error_of(with_relocation([](Elf64_Rela& r) {
                         r.r_info = ELF64_R_INFO(ELF64_R_SYM(r.r_info), R_X86_64_PC32);
                       }),
                       "p.so"),
              HasSubstr("relocation type 2 is not one a position-independent x86-64 shared "
                        "object carries"));
  EXPECT_THAT(error_of(with_relocation([](Elf64_Rela& r) { r.r_offset = 0x10; }), "p.so"),
              HasSubstr("a relocation writes outside the writable segments"));
  EXPECT_THAT(error_of(with_relocation([](Elf64_Rela& r) {
                         r.r_info = ELF64_R_INFO(100000, ELF64_R_TYPE(r.r_info));
                       }),
                       "p.so"),
              HasSubstr("a relocation names no symbol of the image"));
  // A relocation of type NONE is skipped.
  const ElfImage none = read_elf_image(
      with_relocation([](Elf64_Rela& r) { r.r_info = ELF64_R_INFO(0, R_X86_64_NONE); }), "p.so");
  EXPECT_EQ(none.relocations.size() + 1, read_elf_image(good, "p.so").relocations.size());

  // Dynamic entries changed one at a time.
  const auto dynamic = readelf_segments(tool("readelf -lW", so), "DYNAMIC");
  ASSERT_EQ(dynamic.size(), 1u);
  const auto with_dynamic = [&](std::int64_t tag, std::int64_t new_tag, std::uint64_t value) {
    Bytes b = good;
    for (std::uint64_t at = dynamic[0].offset;
         at + sizeof(Elf64_Dyn) <= dynamic[0].offset + dynamic[0].file_bytes;
         at += sizeof(Elf64_Dyn)) {
      Elf64_Dyn e;
      std::memcpy(&e, b.data() + at, sizeof e);
      if (e.d_tag != tag) continue;
      e.d_tag = new_tag;
      e.d_un.d_val = value;
      std::memcpy(b.data() + at, &e, sizeof e);
      return b;
    }
    ADD_FAILURE() << "no dynamic tag " << tag;
    return b;
  };
  EXPECT_THAT(error_of(with_dynamic(DT_PLTREL, DT_PLTREL, DT_REL), "p.so"),
              HasSubstr("PLT relocations are not RELA"));
  EXPECT_THAT(error_of(with_dynamic(DT_RELA, DT_REL, 0), "p.so"), HasSubstr("REL relocations"));
  EXPECT_THAT(error_of(with_dynamic(DT_INIT_ARRAY, DT_INIT_ARRAY, std::uint64_t{1} << 50), "p.so"),
              HasSubstr("DT_INIT_ARRAY lies outside the segments"));
  EXPECT_THAT(
      error_of(with_dynamic(DT_FINI_ARRAYSZ, DT_FINI_ARRAYSZ, std::uint64_t{1} << 40), "p.so"),
      HasSubstr("DT_FINI_ARRAY lies outside the segments"));
  EXPECT_THAT(error_of(with_dynamic(DT_STRSZ, DT_STRSZ, 0), "p.so"),
              HasSubstr("no dynamic string table"));
  EXPECT_THAT(error_of(with_dynamic(DT_STRSZ, DT_STRSZ, std::uint64_t{1} << 30), "p.so"),
              HasSubstr("the dynamic string table lies outside the segments' file bytes"));
  EXPECT_THAT(error_of(with_dynamic(DT_RELASZ, DT_RELASZ, std::uint64_t{1} << 30), "p.so"),
              HasSubstr("a relocation table lies outside the segments' file bytes"));
  EXPECT_THAT(error_of(with_dynamic(DT_RELACOUNT, DT_TEXTREL, 0), "p.so"),
              HasSubstr("position-independent code"));
  EXPECT_THAT(error_of(with_dynamic(DT_RELACOUNT, DT_FLAGS, DF_TEXTREL), "p.so"),
              HasSubstr("position-independent code"));
  EXPECT_THAT(error_of(with_dynamic(DT_RELACOUNT, DT_FLAGS, DF_STATIC_TLS), "p.so"),
              HasSubstr("initial-exec thread-local model (-ftls-model=initial-exec)"));

  // Program headers changed one at a time: the `nth` of `type`.
  Elf64_Ehdr h;
  std::memcpy(&h, good.data(), sizeof h);
  const auto with_program_header = [&](std::uint32_t type, int nth,
                                       const std::function<void(Elf64_Phdr&)>& change) {
    Bytes b = good;
    for (std::uint64_t i = 0; i < h.e_phnum; ++i) {
      Elf64_Phdr p;
      const std::uint64_t at = h.e_phoff + i * sizeof p;
      std::memcpy(&p, b.data() + at, sizeof p);
      if (p.p_type != type || nth-- > 0) continue;
      change(p);
      std::memcpy(b.data() + at, &p, sizeof p);
      return b;
    }
    ADD_FAILURE() << "no program header of type " << type;
    return b;
  };
  // Alignments the loader rounds an instance's offsets up to: at most 1 GiB.
  EXPECT_THAT(error_of(with_program_header(
                           PT_LOAD, 0, [](Elf64_Phdr& p) { p.p_align = std::uint64_t{1} << 63; }),
                       "p.so"),
              HasSubstr("a loadable segment is malformed"));
  EXPECT_THAT(error_of(with_program_header(
                           PT_TLS, 0, [](Elf64_Phdr& p) { p.p_align = std::uint64_t{1} << 63; }),
                       "p.so"),
              HasSubstr("the thread-local segment is malformed"));
  const ElfImage gigabyte = read_elf_image(
      with_program_header(PT_LOAD, 0, [](Elf64_Phdr& p) { p.p_align = std::uint64_t{1} << 30; }),
      "p.so");
  EXPECT_EQ(gigabyte.alignment, std::uint64_t{1} << 30);
  // Segments on pages of their own: the first may grow to the second's page, not into it.
  Elf64_Phdr second;
  std::memcpy(&second, good.data() + h.e_phoff + sizeof second, sizeof second);
  ASSERT_EQ(second.p_type, PT_LOAD);
  ASSERT_EQ(second.p_vaddr % 4096, 0u);
  EXPECT_NO_THROW(read_elf_image(
      with_program_header(PT_LOAD, 0, [&](Elf64_Phdr& p) { p.p_memsz = second.p_vaddr; }), "p.so"));
  EXPECT_THAT(error_of(with_program_header(PT_LOAD, 0,
                                           [&](Elf64_Phdr& p) { p.p_memsz = second.p_vaddr + 1; }),
                       "p.so"),
              HasSubstr("loadable segments share a page"));
  EXPECT_THAT(
      error_of(with_program_header(PT_LOAD, 1, [](Elf64_Phdr& p) { p.p_vaddr = 0; }), "p.so"),
      HasSubstr("loadable segments share a page"));
  // The ELF header's tables.
  Bytes no_sections = good;
  const std::uint16_t zero = 0;
  std::memcpy(no_sections.data() + offsetof(Elf64_Ehdr, e_shnum), &zero, 2);
  EXPECT_THAT(error_of(no_sections, "p.so"), HasSubstr("no usable section headers"));
  Bytes no_segments = good;
  std::memcpy(no_segments.data() + offsetof(Elf64_Ehdr, e_phnum), &zero, 2);
  EXPECT_THAT(error_of(no_segments, "p.so"), HasSubstr("no program headers"));
}

// ---- Damaged files never crash ----

TEST_F(ElfImageTest, EveryTruncationThrowsError) {
  const std::vector<std::pair<std::string, std::string>> images = {
      {"program.so", "-fPIC -shared"},
      {"tiny.so", "-Os -nostdlib -shared -fPIC -Wl,-z,noseparate-code -s"}};
  for (const auto& [name, flags] : images) {
    const std::string so = build(name, program_source, flags);
    ASSERT_FALSE(so.empty());
    const Bytes good = read_bytes(so);
    ASSERT_NO_THROW(read_elf_image(good, name));
    // Section headers come last in the file: every proper prefix lacks something. Every cut
    // point of the first 4 KiB and the last 4 KiB, and every 7th between.
    int tried = 0, refused = 0;
    for (std::size_t cut = 0; cut < good.size();
         cut += (cut < 4096 || good.size() - cut < 4096) ? 1 : 7) {
      ++tried;
      const Bytes prefix(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(cut));
      try {
        read_elf_image(prefix, name);
        ADD_FAILURE() << name << " cut at " << cut << " of " << good.size() << " was read";
      } catch (const Error& e) {
        ASSERT_THAT(e.what(), HasSubstr("'" + name + "'")) << cut;
        ++refused;
      }
    }
    EXPECT_EQ(refused, tried);
    EXPECT_GT(tried, 1000);
  }
}

// The file ranges of the tables the reader walks, from the section and program headers.
struct Region {
  std::string what;
  std::uint64_t offset, bytes;
};

TEST_F(ElfImageTest, ByteChangesReadOrThrowErrorNeverCrash) {
  const std::string so = build("program.so", program_source, "-fPIC -shared");
  ASSERT_FALSE(so.empty());
  const Bytes good = read_bytes(so);
  Elf64_Ehdr h;
  std::memcpy(&h, good.data(), sizeof h);
  std::vector<Region> regions = {
      {"ELF header", 0, sizeof(Elf64_Ehdr)},
      {"program headers", h.e_phoff, std::uint64_t{h.e_phnum} * sizeof(Elf64_Phdr)},
      {"section headers", h.e_shoff, std::uint64_t{h.e_shnum} * sizeof(Elf64_Shdr)}};
  const auto dynamic = readelf_segments(tool("readelf -lW", so), "DYNAMIC");
  ASSERT_EQ(dynamic.size(), 1u);
  regions.push_back({"dynamic section", dynamic[0].offset, dynamic[0].file_bytes});
  // Sections at their file offsets (the first segment's: address = offset).
  const std::string sections = tool("readelf -SW", so);
  for (const char* name :
       {".dynsym", ".dynstr", ".gnu.version", ".gnu.version_r", ".rela.dyn", ".rela.plt"}) {
    for (const std::string& line : lines(sections)) {
      const auto close = line.find(']');
      if (close == std::string::npos) continue;
      const auto w = words(line.substr(close + 1));
      if (w.size() >= 5 && w[0] == name) regions.push_back({name, hex(w[3]), hex(w[4])});
    }
  }
  ASSERT_EQ(regions.size(), 10u);

  std::mt19937_64 random(20240611);  // deterministic
  const std::uint8_t interesting[] = {0x00, 0x01, 0x07, 0x08, 0x10, 0x40, 0x7f, 0x80, 0xfe, 0xff};
  int read = 0, refused = 0;
  for (const Region& region : regions) {
    ASSERT_GT(region.bytes, 0u) << region.what;
    ASSERT_LE(region.offset + region.bytes, good.size()) << region.what;
    for (int trial = 0; trial < 600; ++trial) {
      Bytes b = good;
      const int changes = 1 + static_cast<int>(random() % 3);
      std::string described;
      for (int c = 0; c < changes; ++c) {
        const std::uint64_t at = region.offset + random() % region.bytes;
        const std::uint64_t choice = random();
        if (choice % 2 == 0) {
          b[at] ^= std::byte{static_cast<std::uint8_t>(1u << (choice / 2 % 8))};
        } else {
          b[at] = std::byte{interesting[choice / 2 % sizeof interesting]};
        }
        described += " " + std::to_string(at) + "=" + std::to_string(static_cast<int>(b[at]));
      }
      try {
        const ElfImage image = read_elf_image(b, "flipped.so");
        ++read;
        ASSERT_EQ(broken_invariant(image, b.size()), "") << region.what << ":" << described;
      } catch (const Error& e) {
        ++refused;
        ASSERT_THAT(e.what(), HasSubstr("'flipped.so'")) << region.what << ":" << described;
      }
    }
  }
  // Both outcomes happen: the changes reach fields that matter and fields that do not.
  EXPECT_GT(read, 100);
  EXPECT_GT(refused, 100);
}

}  // namespace
