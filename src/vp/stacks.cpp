#include "stacks.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "vela/vp/vp.hpp"

namespace vela::vp::detail {

namespace {

// Where every process asks for the range: high in the 47-bit user address space, far from
// where the kernel puts heaps, libraries and thread stacks.
constexpr std::uintptr_t fixed_address = 0x5a0000000000ull;

std::size_t round_up(std::size_t n, std::size_t to) {
  return (n + to - 1) / to * to;
}

}  // namespace

StackRange::StackRange(std::size_t slots, std::size_t stack_bytes)
    : slots_(slots), page_(static_cast<std::size_t>(sysconf(_SC_PAGESIZE))) {
  if (stack_bytes < 16 * 1024) {
    throw Error("--vp-stack " + std::to_string(stack_bytes) +
                ": a rank's stack needs at least 16384 bytes");
  }
  stack_bytes_ = round_up(stack_bytes, page_);
  slot_bytes_ = stack_bytes_ + page_;
  if (slots != 0 && slot_bytes_ > SIZE_MAX / slots) {
    throw Error("--vp " + std::to_string(slots) + " ranks of --vp-stack " +
                std::to_string(stack_bytes) + " bytes: more than the address space");
  }
  const std::size_t total = slots * slot_bytes_;
  if (total == 0) return;
  constexpr int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
#if defined(__SANITIZE_THREAD__)
  // ThreadSanitizer keeps its shadow memory where the fixed address lies.
  void* p = MAP_FAILED;
#else
  void* p = mmap(reinterpret_cast<void*>(fixed_address), total, PROT_NONE,
                 flags | MAP_FIXED_NOREPLACE, -1, 0);
#endif
  if (p == MAP_FAILED || p != reinterpret_cast<void*>(fixed_address)) {
    // Taken (another run in this process still holds it) or refused: anywhere will do within
    // one process.
    if (p != MAP_FAILED) munmap(p, total);
    p = mmap(nullptr, total, PROT_NONE, flags, -1, 0);
    if (p == MAP_FAILED) {
      throw Error("--vp " + std::to_string(slots) + " ranks of " + std::to_string(stack_bytes_) +
                  "-byte stacks: cannot reserve " + std::to_string(total) +
                  " bytes of address space: " + std::strerror(errno));
    }
  } else {
    fixed_ = true;
  }
  base_ = static_cast<std::byte*>(p);
}

StackRange::~StackRange() {
  if (base_ != nullptr) munmap(base_, slots_ * slot_bytes_);
}

std::byte* StackRange::slot_base(std::size_t slot) const {
  return base_ + slot * slot_bytes_;
}

void* StackRange::open(std::size_t slot) {
  std::byte* bottom = slot_base(slot) + page_;  // above the guard page
  if (mprotect(bottom, stack_bytes_, PROT_READ | PROT_WRITE) != 0) {
    throw Error("rank " + std::to_string(slot) + ": cannot commit its " +
                std::to_string(stack_bytes_) + "-byte stack: " + std::strerror(errno));
  }
  return bottom;
}

void StackRange::close(std::size_t slot) noexcept {
  std::byte* bottom = slot_base(slot) + page_;
  madvise(bottom, stack_bytes_, MADV_DONTNEED);
  mprotect(bottom, stack_bytes_, PROT_NONE);
}

std::size_t StackRange::resident(std::size_t slot) const {
  const std::size_t pages = stack_bytes_ / page_;
  std::vector<unsigned char> in(pages);
  if (mincore(slot_base(slot) + page_, stack_bytes_, in.data()) != 0) return 0;
  std::size_t n = 0;
  for (unsigned char c : in) n += c & 1u;
  return n * page_;
}

}  // namespace vela::vp::detail
