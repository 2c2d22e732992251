// The archive's cold paths: growing a packer's vector and the error messages. Kept out of the
// header so the inlined hot path stays small.
#include <string>

#include "vela/pup/pup.hpp"

namespace vela::pup {
namespace {

const char* verb(Mode mode) {
  switch (mode) {
    case Mode::sizing:
      return "size";
    case Mode::packing:
      return "pack";
    case Mode::unpacking:
      return "unpack";
  }
  return "pup";
}

}  // namespace

void Archive::bytes_slow(void* data, std::size_t n) {
  if (n == 0) return;
  if (mode_ == Mode::packing && sink_ != nullptr) {
    append(data, n);  // copied once, not zero-filled first
    return;
  }
  fail_room(n);
}

void Archive::fail_room(std::size_t n) const {
  fail("needs " + std::to_string(n) + " more bytes", offset_);
}

void Archive::append(const void* data, std::size_t n) {
  const auto* first = static_cast<const std::byte*>(data);
  sink_->insert(sink_->end(), first, first + n);
  out_ = sink_->data() + sink_start_;
  offset_ += n;
  capacity_ = offset_;
}

void Archive::fail(std::string_view what, std::size_t at) const {
  std::string message = verb(mode_);
  message += ": ";
  message += what;
  message += " at offset " + std::to_string(at);
  // Sizing and appending to a vector have no fixed end to report.
  if (mode_ == Mode::unpacking || (mode_ == Mode::packing && sink_ == nullptr)) {
    message += " of " + std::to_string(capacity_);
  }
  throw PupError(message);
}

void Archive::fail_length(std::uint64_t count, std::size_t bytes_each) const {
  fail("length " + std::to_string(count) + " of " + std::to_string(bytes_each) +
           "-byte elements exceeds the " + std::to_string(capacity_ - offset_) + " bytes left",
       offset_ - sizeof(std::uint64_t));
}

void Unpacker::expect_end() const {
  if (remaining() == 0) return;
  fail(std::to_string(remaining()) +
           " bytes left unread (the buffer holds more than the object: a format mismatch)",
       offset());
}

namespace detail {

void fail_size_mismatch(std::size_t sized, std::size_t packed) {
  throw PupError("pack: pup wrote " + std::to_string(packed) + " bytes but sizing counted " +
                 std::to_string(sized) + "; a pup must put the same fields in every mode");
}

}  // namespace detail
}  // namespace vela::pup
