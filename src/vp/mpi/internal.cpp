// The errors the MPI calls share (internal.hpp): the words of each failed argument check, and
// the translation of vp's errors into errors that name the MPI call.
#include "internal.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <exception>

namespace vela::mpi::detail {

std::string handle_text(const void* handle) {
  char text[32];
  std::snprintf(text, sizeof text, "%#jx",
                static_cast<std::uintmax_t>(reinterpret_cast<std::uintptr_t>(handle)));
  return text;
}

void fail(const char* call, const std::string& what) {
  throw Error(std::string(call) + ": " + what);
}

void rethrow_named(const char* call) {
  try {
    throw;
  } catch (const Error& e) {
    const std::string what = e.what();
    if (what.rfind(std::string(call) + ": ", 0) == 0) throw;
    std::size_t skip = 0;
    const std::size_t colon = what.find(": ");
    if (colon != std::string::npos &&
        std::all_of(what.begin(), what.begin() + static_cast<std::ptrdiff_t>(colon), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':';
        })) {
      skip = colon + 2;
    }
    throw Error(std::string(call) + ": " + what.substr(skip));
  } catch (const std::exception& e) {
    throw Error(std::string(call) + ": " + e.what());
  }
}

void fail_outside(const char* call) {
  fail(call,
       "called outside a rank (the file that defines main must include vela/mpi.h, and the "
       "program link vela::mpi_main)");
}

void fail_not_started(const char* call) {
  fail(call, "called in a rank that vela::mpi::run did not start");
}

void fail_rank(const char* call, int rank) {
  fail(call, "rank " + std::to_string(rank) + " is unknown to vela::mpi::run");
}

void fail_inactive(const char* call, bool initialized) {
  fail(call, initialized ? "called after MPI_Finalize" : "called before MPI_Init");
}

void fail_comm(const char* call, MPI_Comm comm) {
  fail(call, "communicator " +
                 std::string(comm == MPI_COMM_NULL ? "MPI_COMM_NULL" : handle_text(comm)) +
                 " is not MPI_COMM_WORLD (the only communicator)");
}

void fail_datatype(const char* call, MPI_Datatype datatype, const char* what) {
  fail(call, std::string(what) + " " +
                 (datatype == MPI_DATATYPE_NULL ? "MPI_DATATYPE_NULL" : handle_text(datatype)) +
                 " is not one of vela/mpi.h's datatypes");
}

void fail_count(const char* call, int count, const char* what) {
  fail(call, std::string(what) + " " + std::to_string(count) + " is negative");
}

void fail_buffer(const char* call, const void* buffer, std::size_t count, const Datatype& type,
                 const char* what) {
  if (buffer == MPI_IN_PLACE) fail(call, std::string(what) + " cannot be MPI_IN_PLACE here");
  fail(call,
       std::string(what) + " is NULL for " + std::to_string(count) + " elements of " + type.name);
}

void fail_out(const char* call, const char* what) {
  fail(call, std::string(what) + " is NULL");
}

void fail_peer(const char* call, const char* what, int peer, int size, bool proc_null, bool any) {
  std::string also;
  if (any) also = "MPI_ANY_SOURCE";
  if (proc_null) also += also.empty() ? "MPI_PROC_NULL" : ", MPI_PROC_NULL";
  fail(call, std::string(what) + " " + std::to_string(peer) + " is outside 0.." +
                 std::to_string(size - 1) + (also.empty() ? "" : " (or " + also + ")"));
}

void fail_tag(const char* call, const char* what, int tag, bool any) {
  fail(call, std::string(what) + " " + std::to_string(tag) + " is outside 0.." +
                 std::to_string(vp::max_tag) + (any ? " (or MPI_ANY_TAG)" : ""));
}

}  // namespace vela::mpi::detail
