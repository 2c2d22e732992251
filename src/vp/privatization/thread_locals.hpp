// The runtime's own thread-locals under the TLS method (--vp-tls-globals): while a rank is
// switched in, the thread pointer points at the rank's TLS block, so a thread_local of the
// executable is the rank's copy. Those registered here instead keep the PE thread's value: the
// switch copies them into the rank's block and back out. Without the TLS method it does nothing.
#pragma once

#include <cstddef>

namespace vela::vp::detail {

// Registers the `bytes` at `address_on_this_thread`, a thread_local of the calling thread, as
// carried. The place is kept relative to the thread pointer (the same on every thread), so
// calling it on one thread covers all; calling it again for the same range does nothing. A
// thread_local outside the executable's TLS block (a shared library's) is already the thread's
// and is ignored. Throws vela::vp::Error past a small fixed number of ranges.
void carry_thread_local(void* address_on_this_thread, std::size_t bytes);

}  // namespace vela::vp::detail
