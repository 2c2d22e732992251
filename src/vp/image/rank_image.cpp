// The per-rank side of a loaded program image and the choice of --vp-privatize
// (rank_image.hpp).
#include "image/rank_image.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "fibers/rank.hpp"
#include "image/program_image.hpp"
#include "image/rank_libc.hpp"
#include "vela/vp/privatized.hpp"

namespace vela::vp::detail {

namespace {

#if defined(VELA_SANITIZE_FIBERS) || defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool sanitized = true;
#else
constexpr bool sanitized = false;
#endif

// Where the shared instance sits in every process (ranks moving between processes keep their
// pointers into it): below the ranks' slots (memory/stacks.cpp).
constexpr std::uintptr_t shared_address = 0x590000000000ull;

Privatization parse(const std::string& name) {
  if (name == "auto") return Privatization::automatic;
  if (name == "tls") return Privatization::tls;
  if (name == "copy") return Privatization::copy;
  if (name == "none") return Privatization::none;
  throw Error("--vp-privatize '" + name + "': expected auto, tls, copy or none");
}

}  // namespace

Privatization choose_privatization(const Options& options) {
  const bool image = program_image() != nullptr;
  Privatization method = image ? Privatization::automatic : Privatization::none;
  if (!options.privatize.empty()) method = parse(options.privatize);
  if (options.tls_globals) {
    if (!options.privatize.empty() && method != Privatization::tls) {
      throw Error("--vp-tls-globals and --vp-privatize " + options.privatize +
                  " ask for two methods: give one (--vp-privatize tls is --vp-tls-globals)");
    }
    method = Privatization::tls;
  }
  if (method == Privatization::automatic && !image) {
    throw Error(std::string("--vp-privatize auto: ") +
                (sanitized ? "a sanitizer build does not load programs as images (the "
                             "sanitizers cannot follow a program copied per rank); use none, "
                             "tls or copy here"
                           : "this program was linked with its main, not built as a loaded "
                             "image by vela-mpicc or vela-mpicxx; rebuild it with them, or use "
                             "tls (thread_local globals), copy (vela::vp::register_global) or "
                             "vela::vp::privatized<T>"));
  }
  return method;
}

std::size_t rank_image_bytes(Privatization method) {
  const ProgramImage* image = program_image();
  if (image == nullptr) return 0;
  if (method == Privatization::automatic || method == Privatization::tls) {
    return image->instance_bytes();
  }
  return 0;
}

std::size_t rank_image_alignment() {
  const ProgramImage* image = program_image();
  return image != nullptr ? image->alignment() : 4096;
}

SharedImage::SharedImage(Privatization method) {
  ProgramImage* image = program_image();
  if (image == nullptr || method == Privatization::automatic) return;
  const std::size_t bytes = image->instance_bytes();
  void* p = mmap(reinterpret_cast<void*>(shared_address), bytes, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (p == MAP_FAILED || reinterpret_cast<std::uintptr_t>(p) % image->alignment() != 0) {
    throw Error("program image '" + image->name() + "': cannot reserve the shared instance's " +
                std::to_string(bytes) + " bytes at its fixed address: " + std::strerror(errno));
  }
  at_ = static_cast<std::byte*>(p);
  image->instantiate(at_, false);
  image->set_shared(at_);
  image->construct(at_, 0, nullptr);
  // copy: the instance's writable segments (every global of the program, constructed) are
  // copied in and out at each rank switch (privatized.hpp, register_global), each rank starting
  // from the constructed values.
  if (method == Privatization::copy) {
    vela::vp::register_global(at_ + image->writable_begin(), image->writable_bytes());
    registered_ = true;
  }
}

SharedImage::~SharedImage() {
  ProgramImage* image = program_image();
  if (at_ == nullptr || image == nullptr) return;
  if (registered_) vela::vp::unregister_globals();
  image->destruct(at_);
  image->set_shared(nullptr);
  image->release(at_);
  munmap(at_, image->instance_bytes());
}

void open_rank_image(RankContext& rank, std::byte* region, Privatization method) {
  const ProgramImage* image = program_image();
  if (image == nullptr || region == nullptr) return;
  rank.image = region;
  rank.image_whole = method == Privatization::automatic;
  if (rank.image_whole) {
    image->instantiate(region, true);
  } else {
    image->instantiate_tail(region);
  }
  rank.libc = image->libc(region);
}

void close_rank_image(RankContext& rank) noexcept {
  const ProgramImage* image = program_image();
  if (image == nullptr || rank.image == nullptr) return;
  if (rank.image_whole) {
    image->release(rank.image);
  } else {
    image->release_tail(rank.image);
  }
  rank.image = nullptr;
  rank.libc = nullptr;
}

void pup_rank_image(pup::Archive& ar, RankContext& rank, std::byte* region) {
  const ProgramImage* image = program_image();
  std::uint8_t kind = rank.image == nullptr ? 0 : (rank.image_whole ? 2 : 1);
  ar | kind;
  if (kind > 2) ar.fail("a rank's image kind is not 0, 1 or 2", ar.offset() - 1);
  if (kind == 0) return;
  if (image == nullptr || region == nullptr) {
    ar.fail("a rank of a loaded program image arrived in a process that runs none", ar.offset());
  }
  if (ar.unpacking()) {
    rank.image = region;
    rank.image_whole = kind == 2;
    rank.libc = image->libc(region);
  }
  if (rank.image_whole) {
    image->pup(ar, region);
  } else {
    image->pup_tail(ar, region);
  }
}

int run_image_main(int argc, char** argv) {
  RankContext& rank = current("main");
  const ProgramImage& image = *program_image();
  if (rank.image_whole) return image.run_main(rank.image, argc, argv);
  const int status = image.call_main(image.shared(), argc, argv);
  // What the rank registered (its thread-locals' destructors, atexit) went to its tail.
  if (rank.image != nullptr) image.run_exits(rank.image);
  return status;
}

}  // namespace vela::vp::detail
