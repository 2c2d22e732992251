// Reduction operators (the standard's §5.9): the predefined ones on every predefined datatype
// they apply to, and the program's own (MPI_Op_create). A reduction's Operation is what vp's
// collectives combine with; it names the operator and the datatype in errors.
#pragma once

#include "internal.hpp"

namespace vela::mpi::detail {

struct UserOp {
  MPI_User_function* function = nullptr;
  bool commute = true;
};

// How one reduction combines `element`-byte elements of `datatype` under `op`.
struct Operation {
  void (*function)(const void* in, void* inout, std::size_t count, const void* self) = nullptr;
  MPI_User_function* user = nullptr;  // a program's operator, called by `function`
  MPI_Datatype datatype = MPI_DATATYPE_NULL;
  // A program's operator on a derived datatype of several basic types: the type, whose packed
  // elements are laid out as the program lays them out before each call (call_user_laid_out).
  const Datatype* layout = nullptr;
  std::size_t element = 0;
  // A predefined operator, or the program's on a basic datatype: elementwise, so vp may combine
  // runs of elements apart (a program's operator on a derived datatype is called with its basic
  // elements, which a run could cut in the middle of one of the program's).
  bool splittable = false;
  // A predefined operator whose operands may swap without changing a bit (vp::Combine).
  bool symmetric = false;
  // A predefined operator whose operands may be grouped and ordered in any way without changing
  // a bit (vp::Combine::exact).
  bool exact = false;

  vp::Combine combine() const {
    return {function, this, splittable, symmetric, exact, user == nullptr};
  }
};

// Indices of MPI_REPLACE and MPI_NO_OP among the predefined operators (MPI_Accumulate's only).
inline constexpr int replace_index = 12;
inline constexpr int no_op_index = 13;
using CombineFunction = void (*)(const void* in, void* inout, std::size_t count, const void* self);
// The function of predefined operator number `op` on the predefined datatype `type`, or nullptr
// where it does not apply (and for MPI_REPLACE and MPI_NO_OP, which have none).
CombineFunction predefined_function(const Datatype& type, int op);
// The index of a predefined operator (MPI_ERR_OP for a program's or an invalid one).
int predefined_index(const char* call, MPI_Op op);

// The operation of `op` on `datatype` (a predefined one), checked: MPI_ERR_OP when `op` is not an
// operator of this rank or does not apply to the datatype.
Operation operation_of(const char* call, Objects& objects, MPI_Op op, MPI_Datatype datatype,
                       const Datatype& type);

// A reduction's arguments, checked: what the program gave (`count` of `type`) and what is
// combined (`elements` of the basic type `element`, with `operation`).
struct Reduction {
  const Datatype& type;
  std::size_t count;
  const Datatype& element;
  std::size_t elements;
  Operation operation;
  std::size_t bytes() const { return elements * element.size; }
};

// The checked arguments of a reduction of `count` elements of `datatype` under `op`: under a
// predefined operator a derived type must be made of one basic type (other than a {value,
// index} pair), which is reduced; a program's operator takes any datatype, and gets the
// elements as the datatype lays them out.
Reduction reduction_of(const char* call, Objects& objects, int count, MPI_Datatype datatype,
                       MPI_Op op);

// The communicator of a call the standard defines on intracommunicators only (the scans, the
// windows' constructors): MPI_ERR_COMM on an intercommunicator.
Communicator& collective_comm(const char* call, const Label& label, MPI_Comm comm);

}  // namespace vela::mpi::detail
