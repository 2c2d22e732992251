// Rank stacks from one reserved range of virtual memory, a fixed slot per rank (isomalloc, as
// Charm++ does it): slot r always sits at the same address, so that a later transport can map a
// migrating rank's stack at the same address in another process and resume it unchanged.
// Each slot is a guard page (never accessible: a stack overflow faults instead of corrupting the
// next rank) below the stack.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vela::vp::detail {

class StackRange {
 public:
  // Reserves `slots` slots of `stack_bytes` (rounded up to whole pages) each, plus their guard
  // pages; no memory is committed until a slot is opened. Throws Error when the range cannot be
  // reserved, naming the sizes.
  StackRange(std::size_t slots, std::size_t stack_bytes);
  ~StackRange();
  StackRange(const StackRange&) = delete;
  StackRange& operator=(const StackRange&) = delete;

  // Makes slot `slot`'s stack writable; returns its lowest address (the stack grows down from
  // bottom + stack_bytes()).
  void* open(std::size_t slot);
  // Gives the slot's pages back to the system and makes it inaccessible again.
  void close(std::size_t slot) noexcept;
  // Bytes of the slot's stack that have been written (resident pages).
  std::size_t resident(std::size_t slot) const;

  std::size_t stack_bytes() const { return stack_bytes_; }
  // Whether the range sits at the fixed address every process of one build asks for (then a
  // rank's stack can live at the same address in another process).
  bool at_fixed_address() const { return fixed_; }

 private:
  std::byte* slot_base(std::size_t slot) const;

  std::byte* base_ = nullptr;
  std::size_t slots_ = 0;
  std::size_t page_ = 0;
  std::size_t stack_bytes_ = 0;
  std::size_t slot_bytes_ = 0;
  bool fixed_ = false;
};

}  // namespace vela::vp::detail
