// A derived datatype of a rank (MPI_Type_vector, ...): its type map (typemap.hpp) and the
// Datatype record the calls read, kept in the rank's table (Objects::types).
#pragma once

#include <string>

#include "internal.hpp"
#include "typemap.hpp"

namespace vela::mpi::detail {

struct DerivedType {
  explicit DerivedType(Typemap m) : map(std::move(m)) {}
  Typemap map;
  std::string name;
  Datatype view{};  // its name points into `name`, its map to `map`
};

}  // namespace vela::mpi::detail
