// Counts this thread's heap allocations by replacing the global operator new family (the
// standard's way to observe them). Include from exactly one source file of a program; read
// vela::testing::allocations(). Every form of the plain `new` family goes to malloc and free,
// so a sanitizer never sees its own operator new paired with this free. GCC takes the free()
// in the replaced delete for a mismatch with operator new, which it is not.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace vela::testing {
inline thread_local std::uint64_t allocation_count = 0;
inline std::uint64_t allocations() {
  return allocation_count;
}
inline void* counted_malloc(std::size_t size) noexcept {
  ++allocation_count;
  return std::malloc(size == 0 ? 1 : size);
}
}  // namespace vela::testing

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t size) {
  if (void* p = vela::testing::counted_malloc(size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) {
  if (void* p = vela::testing::counted_malloc(size)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  return vela::testing::counted_malloc(size);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return vela::testing::counted_malloc(size);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
#pragma GCC diagnostic pop
