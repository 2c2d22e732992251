// Rules for the files vela-lb writes, shared by the commands that take inputs and an output.
#pragma once

#include <string>
#include <vector>

namespace vela::tools {

// An output never replaces an input: throws std::invalid_argument when `output` is one of
// `inputs`, under any name (a link, "./x").
void refuse_overwriting_inputs(const std::string& output, const std::vector<std::string>& inputs);

}  // namespace vela::tools
