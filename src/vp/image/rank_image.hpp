// How a run's ranks hold the program's globals (--vp-privatize), and the per-rank side of a
// loaded program image (program_image.hpp): which instance or tail a rank has, made when it
// starts, moved with it, and released when it ends.
//
//   auto  a loaded image only: every rank its own instance of the program (all its globals,
//         thread-locals and C library state); the default for such programs.
//   tls   the program's thread_local variables per rank: for a loaded image, one instance and
//         a tail per rank (its thread-locals and C library state); for a program linked with
//         its main, the TLS method (privatization/privatization.hpp).
//   copy  registered globals (vela::vp::register_global) copied in and out at each switch.
//   none  nothing per rank: one instance of the program for all.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "vela/vp/vp.hpp"

namespace vela::vp::detail {

struct RankContext;
class ProgramImage;
class StackRange;

enum class Privatization : std::uint8_t { none, tls, copy, automatic };

// The method of this run from --vp-privatize (and the older --vp-tls-globals) and whether the
// program is a loaded image. Throws Error naming the option, why it cannot work here and what
// to use instead.
Privatization choose_privatization(const Options& options);

// Address space each rank's slot needs for the image (0: none) and its alignment.
std::size_t rank_image_bytes(Privatization method);
std::size_t rank_image_alignment();

// The instance every rank shares (a loaded image under none, copy or tls): made, its
// constructors run, for the run's length; its exit functions and destructors at the end.
class SharedImage {
 public:
  explicit SharedImage(Privatization method);
  ~SharedImage();
  SharedImage(const SharedImage&) = delete;
  SharedImage& operator=(const SharedImage&) = delete;

 private:
  std::byte* at_ = nullptr;
  bool registered_ = false;  // its writable segments copied per rank (copy)
};

// When rank `rank` starts on its PE (before its fiber): its instance or tail in `region`.
void open_rank_image(RankContext& rank, std::byte* region, Privatization method);
// After it finished: its memory goes.
void close_rank_image(RankContext& rank) noexcept;
// Moving it: its instance's or tail's bytes (`region` is its slot's).
void pup_rank_image(pup::Archive& ar, RankContext& rank, std::byte* region);
// The ranks' body of a loaded image: the program's main in the running rank's instance.
int run_image_main(int argc, char** argv);

}  // namespace vela::vp::detail
