#include "output_files.hpp"

#include <filesystem>
#include <stdexcept>
#include <system_error>

namespace vela::tools {

void refuse_overwriting_inputs(const std::string& output, const std::vector<std::string>& inputs) {
  for (const std::string& input : inputs) {
    std::error_code ec;
    if (std::filesystem::equivalent(output, input, ec)) {
      throw std::invalid_argument(output + ": is the input " + input +
                                  "; writing it would replace the input (choose another output)");
    }
  }
}

}  // namespace vela::tools
