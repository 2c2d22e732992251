// What the instance reader and writer share (docs/instance-format.md).
#pragma once

#include <string>
#include <string_view>
#include <system_error>

namespace vela::lb::io_detail {

inline constexpr std::string_view format_name = "vela-instance";

// A UTF-8 byte order mark, which some editors put at the start of a text file: the JSON readers
// skip it (RFC 8259 lets a parser ignore it).
inline constexpr std::string_view utf8_bom = "\xEF\xBB\xBF";

inline std::string errno_text(int error) {
  return std::generic_category().message(error);
}

}  // namespace vela::lb::io_detail
