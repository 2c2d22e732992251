// The stdio streams a rank opened in its own heap (runs whose ranks have heaps: --vp-heap, or
// ranks over several processes). fopen allocates the FILE and its buffer with malloc, so while
// the rank's code runs they come from the rank's heap, and glibc links the FILE into the
// process's list of open streams. A stream the rank leaves open when its main returns must be
// closed before its heap goes: exit() would flush and close it, but by then the heap is unmapped
// and exit's walk over the list faults (HPC Challenge leaves its output file open).
#pragma once

#include <cstddef>

namespace vela::vp::detail {

// Flushes and closes every open stream whose FILE lies in [begin, begin + bytes). O(open
// streams); takes glibc's lock of the list while it looks.
void close_streams_in(const void* begin, std::size_t bytes);

}  // namespace vela::vp::detail
