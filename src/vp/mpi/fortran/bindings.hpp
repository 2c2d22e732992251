// MPI's Fortran bindings (mpif.h and `use mpi`): what the binding files share.
//
// A Fortran call `call MPI_SEND(buf, count, type, dest, tag, comm, ierror)` reaches
// `mpi_send_` (gfortran's name: lower case, one underscore) with every argument by reference
// and a CHARACTER argument's length appended at the end (a size_t each, in order). Each binding
// converts its arguments, calls the C function of vela/mpi.h and stores the result in `ierror`:
//
// - Handles: a Fortran handle is the C handle's number (the conversions are the identity,
//   vela/mpi.h), except requests and messages, which are pointers in C and numbered per rank
//   (MPI_Request_c2f/f2c, MPI_Message_c2f/f2c).
// - Special buffers: MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE, ... are variables of
//   mpif.h's COMMON blocks, known by their address. The blocks are defined here, once per
//   process; a program loaded per rank (docs/architecture.md, "The program as a loaded image")
//   has its references to them bound here, not to its own copy (program_image.cpp,
//   `process_wide`), so that one comparison recognizes them on every rank.
// - Status: MPI_STATUS_SIZE integers holding the C status's bytes (MPI_SOURCE, MPI_TAG and
//   MPI_ERROR first): copied in and out, since a Fortran integer array is 4-byte aligned.
// - LOGICAL: gfortran's default LOGICAL is 4 bytes, 1 for true and 0 for false: an int.
//
// Every binding has its PMPI_ name, and the MPI_ name is a weak alias of it (the profiling
// interface, as in C). The cost of a binding over the C call: a few loads and stores, no
// allocation for scalars (arrays of requests or statuses use a small buffer on the stack up to
// 16 elements).
#ifndef VELA_SRC_VP_MPI_FORTRAN_BINDINGS_HPP
#define VELA_SRC_VP_MPI_FORTRAN_BINDINGS_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#define VELA_MPI_NO_MAIN 1  // the bindings are library code: no renamed main
#include "vela/mpi.h"

using F = MPI_Fint;

extern "C" {
// mpif.h's COMMON blocks (make_mpif.cpp writes their declarations).
extern F vmpi_fortran_bottom_;
extern F vmpi_fortran_in_place_;
extern F vmpi_fortran_status_ignore_[];
extern F vmpi_fortran_statuses_ignore_[];
extern F vmpi_fortran_errcodes_ignore_[];
extern F vmpi_fortran_unweighted_[];
extern F vmpi_fortran_weights_empty_[];
extern char vmpi_fortran_argv_null_[];
}

// `call MPI_X(...)` reaches pmpi_x_ or its weak alias mpi_x_; `body` uses the parameters.
#define VELA_FORTRAN(lower, parameters, ...)                                                       \
  extern "C" void pmpi_##lower##_ parameters __VA_ARGS__ extern "C" void mpi_##lower##_ parameters \
      __attribute__((weak, alias("pmpi_" #lower "_")));

// The same for a Fortran function returning `type` (MPI_WTIME).
#define VELA_FORTRAN_FUNCTION(type, lower, parameters, ...)                                        \
  extern "C" type pmpi_##lower##_ parameters __VA_ARGS__ extern "C" type mpi_##lower##_ parameters \
      __attribute__((weak, alias("pmpi_" #lower "_")));

namespace vela::mpi::fortran {

constexpr int status_size = (sizeof(MPI_Status) + sizeof(F) - 1) / sizeof(F);

// A handle of kind T from its Fortran number (the identity on the number; requests and
// messages, which are pointers, are numbered by the rank: MPI_Request_f2c, MPI_Message_f2c),
// and back.
template <typename T>
T handle(const F* f) {
  return reinterpret_cast<T>(static_cast<std::uintptr_t>(static_cast<std::uint32_t>(*f)));
}
template <>
inline MPI_Request handle<MPI_Request>(const F* f) {
  return MPI_Request_f2c(*f);
}
template <typename T>
F number(T h) {
  return static_cast<F>(static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(h)));
}
template <>
inline F number<MPI_Request>(MPI_Request r) {
  return MPI_Request_c2f(r);
}
template <>
inline MPI_Message handle<MPI_Message>(const F* f) {
  return MPI_Message_f2c(*f);
}
template <>
inline F number<MPI_Message>(MPI_Message m) {
  return MPI_Message_c2f(m);
}
inline MPI_Comm comm(const F* f) {
  return handle<MPI_Comm>(f);
}
inline MPI_Datatype type(const F* f) {
  return handle<MPI_Datatype>(f);
}
inline MPI_Op op(const F* f) {
  return handle<MPI_Op>(f);
}
inline MPI_Group group(const F* f) {
  return handle<MPI_Group>(f);
}
inline MPI_Info info(const F* f) {
  return handle<MPI_Info>(f);
}
inline MPI_Errhandler errhandler(const F* f) {
  return handle<MPI_Errhandler>(f);
}
inline MPI_Win win(const F* f) {
  return handle<MPI_Win>(f);
}

// A buffer argument: MPI_BOTTOM and MPI_IN_PLACE become C's.
inline void* buffer(void* b) {
  if (b == &vmpi_fortran_bottom_) return MPI_BOTTOM;
  if (b == &vmpi_fortran_in_place_) return MPI_IN_PLACE;
  return b;
}

inline bool status_ignored(const F* f) {
  return f == vmpi_fortran_status_ignore_ || f == vmpi_fortran_statuses_ignore_;
}

// A status the call writes: the C status, copied into the Fortran array when destroyed.
class StatusOut {
 public:
  explicit StatusOut(F* f) : f_(status_ignored(f) ? nullptr : f) {}
  StatusOut(const StatusOut&) = delete;
  StatusOut& operator=(const StatusOut&) = delete;
  ~StatusOut() {
    if (f_ != nullptr) std::memcpy(f_, &status_, sizeof status_);
  }
  MPI_Status* get() { return f_ != nullptr ? &status_ : MPI_STATUS_IGNORE; }

 private:
  F* f_;
  MPI_Status status_{};
};

// A status the call reads (MPI_Get_count).
inline MPI_Status status_in(const F* f) {
  MPI_Status s{};
  std::memcpy(&s, f, sizeof s);
  return s;
}

// A small array on the stack up to 16 elements, else on the heap.
template <typename T>
class Scratch {
 public:
  explicit Scratch(int n) : n_(std::max(n, 0)) {
    if (n_ > 16) heap_.resize(static_cast<std::size_t>(n_));
  }
  T* data() { return n_ > 16 ? heap_.data() : local_; }
  T& operator[](int i) { return data()[i]; }
  int size() const { return n_; }

 private:
  int n_;
  T local_[16]{};
  std::vector<T> heap_;
};

// `count` handles of a Fortran array as C handles, written back when destroyed (a completed
// request becomes MPI_REQUEST_NULL, 0).
template <typename T>
class HandlesInOut {
 public:
  HandlesInOut(int count, F* f) : f_(f), c_(count) {
    for (int i = 0; i < c_.size(); ++i) c_[i] = handle<T>(f + i);
  }
  HandlesInOut(const HandlesInOut&) = delete;
  HandlesInOut& operator=(const HandlesInOut&) = delete;
  ~HandlesInOut() {
    for (int i = 0; i < c_.size(); ++i) f_[i] = number(c_[i]);
  }
  T* get() { return c_.data(); }

 private:
  F* f_;
  Scratch<T> c_;
};

// `count` statuses the call writes, copied into the Fortran array (MPI_STATUS_SIZE each).
class Statuses {
 public:
  Statuses(int count, F* f) : f_(status_ignored(f) ? nullptr : f), c_(f_ != nullptr ? count : 0) {}
  Statuses(const Statuses&) = delete;
  Statuses& operator=(const Statuses&) = delete;
  ~Statuses() {
    for (int i = 0; i < c_.size(); ++i) {
      std::memcpy(f_ + static_cast<std::ptrdiff_t>(i) * status_size, &c_[i], sizeof(MPI_Status));
    }
  }
  MPI_Status* get() { return f_ != nullptr ? c_.data() : MPI_STATUSES_IGNORE; }

 private:
  F* f_;
  Scratch<MPI_Status> c_;
};

// A handle of kind T the call writes, stored as its number.
template <typename T>
class HandleOut {
 public:
  explicit HandleOut(F* f) : f_(f) {}
  HandleOut(const HandleOut&) = delete;
  HandleOut& operator=(const HandleOut&) = delete;
  ~HandleOut() { *f_ = number(h_); }
  T* get() { return &h_; }

 private:
  F* f_;
  T h_{};
};

// A handle the call reads and rewrites (MPI_Comm_free sets it to the null handle).
template <typename T>
class HandleInOut {
 public:
  explicit HandleInOut(F* f) : f_(f), h_(handle<T>(f)) {}
  HandleInOut(const HandleInOut&) = delete;
  HandleInOut& operator=(const HandleInOut&) = delete;
  ~HandleInOut() { *f_ = number(h_); }
  T* get() { return &h_; }

 private:
  F* f_;
  T h_;
};

// Requests: made by the call (MPI_Isend), read and completed by it (MPI_Wait), arrays of them.
using RequestOut = HandleOut<MPI_Request>;
using RequestInOut = HandleInOut<MPI_Request>;
using Requests = HandlesInOut<MPI_Request>;

// `count` handles of a Fortran array as C handles (MPI_Type_create_struct's types).
template <typename T>
class HandlesIn {
 public:
  HandlesIn(int count, const F* f) : c_(count) {
    for (int i = 0; i < c_.size(); ++i) c_[i] = handle<T>(f + i);
  }
  T* get() { return c_.data(); }

 private:
  Scratch<T> c_;
};

// A CHARACTER argument the call reads: its text without Fortran's trailing blanks.
inline std::string text_in(const char* s, std::size_t length) {
  while (length > 0 && s[length - 1] == ' ') --length;
  return std::string(s, length);
}

// A CHARACTER argument the call writes: the C string blank-padded to the Fortran length.
inline void text_out(const char* c, char* f, std::size_t length) {
  const std::size_t n = std::min(std::strlen(c), length);
  std::memcpy(f, c, n);
  std::memset(f + n, ' ', length - n);
}

// A CHARACTER argument the call writes, through a C buffer of `capacity` bytes.
class TextOut {
 public:
  TextOut(char* f, std::size_t length, std::size_t capacity)
      : f_(f), length_(length), c_(capacity + 1, '\0') {}
  TextOut(const TextOut&) = delete;
  TextOut& operator=(const TextOut&) = delete;
  ~TextOut() { text_out(c_.data(), f_, length_); }
  char* get() { return c_.data(); }

 private:
  char* f_;
  std::size_t length_;
  std::vector<char> c_;
};

}  // namespace vela::mpi::fortran

#endif  // VELA_SRC_VP_MPI_FORTRAN_BINDINGS_HPP
