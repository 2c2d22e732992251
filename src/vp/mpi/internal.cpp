// The errors the MPI calls share (internal.hpp): the words of each failed argument check, the
// translation of vp's errors into errors that name the MPI call, and the error handlers.
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

void fail(const char* call, int error_class, const std::string& what) {
  throw MpiError(error_class, std::string(call) + ": " + what);
}

namespace {

// The class of vp's error `e`.
int class_of(const std::exception& e) {
  if (const auto* m = dynamic_cast<const MpiError*>(&e)) return m->error_class();
  if (dynamic_cast<const vp::Truncated*>(&e) != nullptr) return MPI_ERR_TRUNCATE;
  if (dynamic_cast<const vp::TypeMismatch*>(&e) != nullptr) return MPI_ERR_TYPE;
  if (dynamic_cast<const std::bad_alloc*>(&e) != nullptr) return MPI_ERR_NO_MEM;
  return MPI_ERR_OTHER;
}

// `what` with its first word replaced by `call` when that word is vp's own call ("recv: ...").
std::string named(const char* call, const std::string& what) {
  if (what.rfind(std::string(call) + ": ", 0) == 0) return what;
  std::size_t skip = 0;
  const std::size_t colon = what.find(": ");
  if (colon != std::string::npos &&
      std::all_of(what.begin(), what.begin() + static_cast<std::ptrdiff_t>(colon), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':';
      })) {
    skip = colon + 2;
  }
  return std::string(call) + ": " + what.substr(skip);
}

// The error handler of `comm`, or MPI_COMM_WORLD's, or nullptr before MPI_Init.
const Errhandler* handler_of(MPI_Comm comm) {
  const RankMpi& mine = rank_mpi.get();
  if (mine.objects == nullptr || !vp::in_rank()) return nullptr;
  Objects& objects = *mine.objects;
  const auto value = reinterpret_cast<std::uintptr_t>(comm);
  const Communicator* c = nullptr;
  if ((value & ~std::uintptr_t{VMPI_INDEX_MASK}) == VMPI_COMM_BASE)
    c = objects.comms.find(static_cast<int>(value & VMPI_INDEX_MASK));
  if (c == nullptr) c = objects.comms.find(world_index);
  if (c == nullptr) return nullptr;
  return objects.errhandlers.find(c->errhandler);
}

}  // namespace

void rethrow_named(const char* call) {
  try {
    throw;
  } catch (const std::exception& e) {
    throw MpiError(class_of(e), named(call, e.what()));
  }
}

int raise(const char* call, MPI_Comm comm) {
  int error_class = MPI_ERR_OTHER;
  try {
    throw;
  } catch (const std::exception& e) {
    error_class = class_of(e);
  }
  const Errhandler* handler = handler_of(comm);
  if (handler == nullptr || handler->kind == Errhandler::Kind::fatal) rethrow_named(call);
  if (handler->kind == Errhandler::Kind::function) {
    MPI_Comm c = comm;
    int code = error_class;
    handler->function(&c, &code);
  }
  return error_class;
}

void fail_outside(const char* call) {
  fail(call, MPI_ERR_OTHER,
       "called outside a rank (the file that defines main must include vela/mpi.h, and the "
       "program link vela::mpi_main)");
}

void fail_not_started(const char* call) {
  fail(call, MPI_ERR_OTHER, "called in a rank that vela::mpi::run did not start");
}

void fail_rank(const char* call, int rank) {
  fail(call, MPI_ERR_OTHER, "rank " + std::to_string(rank) + " is unknown to vela::mpi::run");
}

void fail_inactive(const char* call, bool initialized) {
  fail(call, MPI_ERR_OTHER, initialized ? "called after MPI_Finalize" : "called before MPI_Init");
}

void fail_comm(const char* call, MPI_Comm comm, const char* what) {
  fail(call, MPI_ERR_COMM,
       std::string(what) + " " + (comm == MPI_COMM_NULL ? "MPI_COMM_NULL" : handle_text(comm)) +
           " is not a communicator of this rank (never made, or freed)");
}

void fail_datatype(const char* call, MPI_Datatype datatype, const char* what) {
  fail(call, MPI_ERR_TYPE,
       std::string(what) + " " +
           (datatype == MPI_DATATYPE_NULL ? "MPI_DATATYPE_NULL" : handle_text(datatype)) +
           " is not a datatype (a predefined one, or one made and committed)");
}

void fail_count(const char* call, int count, const char* what) {
  fail(call, MPI_ERR_COUNT, std::string(what) + " " + std::to_string(count) + " is negative");
}

void fail_buffer(const char* call, const void* buffer, std::size_t count, const Datatype& type,
                 const char* what) {
  if (buffer == MPI_IN_PLACE)
    fail(call, MPI_ERR_BUFFER, std::string(what) + " cannot be MPI_IN_PLACE here");
  fail(call, MPI_ERR_BUFFER,
       std::string(what) + " is NULL for " + std::to_string(count) + " elements of " + type.name);
}

void fail_out(const char* call, const char* what) {
  fail(call, MPI_ERR_ARG, std::string(what) + " is NULL");
}

void fail_peer(const char* call, const char* what, int peer, int size, bool proc_null, bool any) {
  std::string also;
  if (any) also = "MPI_ANY_SOURCE";
  if (proc_null) also += also.empty() ? "MPI_PROC_NULL" : ", MPI_PROC_NULL";
  const bool root = std::string(what) == "root";
  fail(call, root ? MPI_ERR_ROOT : MPI_ERR_RANK,
       std::string(what) + " " + std::to_string(peer) + " is outside 0.." +
           std::to_string(size - 1) + (also.empty() ? "" : " (or " + also + ")"));
}

void fail_tag(const char* call, const char* what, int tag, bool any) {
  fail(call, MPI_ERR_TAG,
       std::string(what) + " " + std::to_string(tag) + " is outside 0.." +
           std::to_string(vp::max_tag) + (any ? " (or MPI_ANY_TAG)" : ""));
}

}  // namespace vela::mpi::detail
