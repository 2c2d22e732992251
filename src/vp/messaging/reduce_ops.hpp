// Reduction operators over typed buffers.
#pragma once

#include <cstddef>

#include "vela/vp/vp.hpp"

namespace vela::vp {
const char* name_of(Op op);
}

namespace vela::vp::detail {

// acc[i] = acc[i] op in[i] for n elements of `type`; throws Error naming `call` for an operator
// that does not apply to the type.
void combine(Op op, Type type, void* acc, const void* in, std::size_t n, const char* call);
// Throws Error naming `call` unless `op` applies to `type`.
void check_op(const char* call, Type type, Op op);

}  // namespace vela::vp::detail
