// Fuzzes the program image reader (src/vp/image/elf_image.cpp: the ELF shared object vela-mpicc
// builds a program into). A rejected input must be a vela::vp::Error naming the file; an
// accepted one must keep what elf_image.hpp promises of a returned image (segments sorted, on
// pages of their own and inside the file, alignments up to 1 GiB, relocations writing inside
// writable segments with valid symbols, main, the init and fini arrays and the TLS image inside
// the segments). Anything else thrown, a crash or a sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>

#include "image/elf_image.hpp"
#include "vela/vp/vp.hpp"

namespace {

using vela::vp::detail::ElfImage;
using vela::vp::detail::ElfRelocation;
using vela::vp::detail::ElfSegment;

bool within(const ElfImage& image, std::uint64_t address, std::uint64_t size, bool writable) {
  for (const ElfSegment& s : image.segments) {
    if (address >= s.address && address - s.address <= s.memory_bytes &&
        s.memory_bytes - (address - s.address) >= size && (!writable || s.writable)) {
      return true;
    }
  }
  return false;
}

bool power_of_two(std::uint64_t n) {
  return n != 0 && (n & (n - 1)) == 0;
}

constexpr std::uint64_t max_alignment = std::uint64_t{1} << 30;

bool keeps_promises(const ElfImage& image, std::size_t file_size) {
  if (image.segments.empty() || image.segments.front().address != 0) return false;
  for (std::size_t i = 0; i < image.segments.size(); ++i) {
    const ElfSegment& s = image.segments[i];
    if (s.address % 4096 != s.file_offset % 4096 || s.file_bytes > s.memory_bytes) return false;
    if (s.file_offset > file_size || file_size - s.file_offset < s.file_bytes) return false;
    if (s.address + s.memory_bytes > image.span) return false;
    // Sorted, each on pages of its own.
    if (i > 0) {
      const ElfSegment& before = image.segments[i - 1];
      if ((before.address + before.memory_bytes + 4095) / 4096 > s.address / 4096) return false;
    }
  }
  if (image.span % 4096 != 0 || image.alignment < 4096 || !power_of_two(image.alignment) ||
      image.alignment > max_alignment) {
    return false;
  }
  if (image.symbols.empty() || !image.symbols[0].name.empty()) return false;
  for (const ElfRelocation& r : image.relocations) {
    if (r.symbol >= image.symbols.size() || !within(image, r.offset, 8, true)) return false;
  }
  if (!within(image, image.main, 1, false)) return false;
  if (image.init != 0 && !within(image, image.init, 1, false)) return false;
  if (image.fini != 0 && !within(image, image.fini, 1, false)) return false;
  if (image.init_count > 0 && !within(image, image.init_array, image.init_count * 8, false)) {
    return false;
  }
  if (image.fini_count > 0 && !within(image, image.fini_array, image.fini_count * 8, false)) {
    return false;
  }
  if (image.eh_frame != 0 && !within(image, image.eh_frame, 4, false)) return false;
  if (image.tls.memory_bytes > 0 &&
      (image.tls.file_bytes > image.tls.memory_bytes || !power_of_two(image.tls.alignment) ||
       image.tls.alignment > max_alignment ||
       !within(image, image.tls.address, image.tls.file_bytes, false))) {
    return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  ElfImage image;
  try {
    image = vela::vp::detail::read_elf_image(bytes, "fuzz-input.so");
  } catch (const vela::vp::Error& e) {
    // An error must name the file and say something after it.
    const std::string message = e.what();
    const std::string prefix = "program image 'fuzz-input.so': ";
    if (message.rfind(prefix, 0) != 0 || message.size() == prefix.size()) std::abort();
    return 0;
  }
  if (!keeps_promises(image, size)) std::abort();
  return 0;
}
