// What the instance reader and writer share (docs/instance-format.md).
#pragma once

#include <string>
#include <string_view>
#include <system_error>

namespace vela::lb::io_detail {

inline constexpr std::string_view format_name = "vela-instance";

inline std::string errno_text(int error) {
  return std::generic_category().message(error);
}

}  // namespace vela::lb::io_detail
