// See heap_streams.hpp. glibc exports its iterator over the open streams (_IO_iter_*, with
// _IO_list_lock), which <stdio.h> does not declare.
#include "memory/heap_streams.hpp"

#include <cstdint>
#include <cstdio>
#include <vector>

extern "C" {
FILE* _IO_iter_begin(void);
FILE* _IO_iter_end(void);
FILE* _IO_iter_next(FILE* iterator);
FILE* _IO_iter_file(FILE* iterator);
void _IO_list_lock(void);
void _IO_list_unlock(void);
}

namespace vela::vp::detail {

void close_streams_in(const void* begin, std::size_t bytes) {
  const auto low = reinterpret_cast<std::uintptr_t>(begin);
  const std::uintptr_t high = low + bytes;
  std::vector<FILE*> inside;
  _IO_list_lock();
  for (FILE* i = _IO_iter_begin(); i != _IO_iter_end(); i = _IO_iter_next(i)) {
    const auto at = reinterpret_cast<std::uintptr_t>(_IO_iter_file(i));
    if (at >= low && at < high) inside.push_back(_IO_iter_file(i));
  }
  _IO_list_unlock();
  for (FILE* f : inside) std::fclose(f);  // flushes, closes its descriptor, unlinks and frees
}

}  // namespace vela::vp::detail
