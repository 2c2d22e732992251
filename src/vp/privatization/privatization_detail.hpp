// Pieces of the privatization shared by its sources (privatization*.cpp), its tests and its
// benchmark: the TLS method's layout and blocks, and what each method copies per switch.
#pragma once

#include <cstddef>

namespace vela::vp::detail {

// Where the x86-64 glibc static TLS lies around the thread pointer tp (TLS variant II), found
// once: [tp - static_bytes, tp) holds every module's static TLS block, the executable's on top
// (tp - executable_offset ...), the shared libraries' below it (the C library's among them);
// [tp, tp + descriptor_bytes) is glibc's thread descriptor, the TCB header first.
struct TlsLayout {
  std::size_t static_bytes = 0;
  std::size_t descriptor_bytes = 0;  // sizeof(struct pthread)
  std::size_t alignment = 0;         // of tp
  std::size_t executable_offset = 0;
  std::size_t executable_bytes = 0;  // the executable's PT_TLS p_memsz
  std::size_t c_library_offset = 0;  // the C library's block (errno, malloc's cache, locale)
  std::size_t c_library_bytes = 0;
  // The rseq area the kernel writes (relative to tp; empty when rseq is off): never copied back.
  std::ptrdiff_t rseq_begin = 0;
  std::ptrdiff_t rseq_end = 0;
  bool fsgsbase = false;  // the kernel lets user code write the FS base (wrfsbase)
};

// The layout; throws Error naming --vp-tls-globals where the method cannot work (another
// architecture or C library, a sanitizer build, a C library laid out otherwise).
const TlsLayout& tls_layout();

// Whether switches write the FS base with wrfsbase (where the kernel allows it) or with the
// arch_prctl system call; returns the one used from now on. For the benchmark's comparison.
bool tls_use_fsgsbase(bool wanted);

// One rank's TLS: its copy of the static TLS area and of the thread descriptor.
class TlsBlock {
 public:
  TlsBlock();
  ~TlsBlock();
  TlsBlock(const TlsBlock&) = delete;
  TlsBlock& operator=(const TlsBlock&) = delete;

  // Points the thread at this block (copying the C library's block, the descriptor and the
  // carried thread-locals in), then back at the thread's own block (copying them out).
  void switch_in() noexcept;
  void switch_out() noexcept;

  // The block's thread pointer: the same on every thread it runs on.
  std::byte* tp() const noexcept { return tp_; }
  // Bytes read or written per switch_in + switch_out pair (descriptor, the C library's block,
  // carried thread-locals): independent of the program's own thread_local variables.
  std::size_t bytes_per_switch() const noexcept;

 private:
  std::byte* memory_ = nullptr;
  std::byte* tp_ = nullptr;
  std::byte* home_ = nullptr;  // the thread's own tp while switched in
};

// The thread pointer of the calling thread as the CPU sees it now (the TCB's self-pointer).
std::byte* thread_pointer() noexcept;

// Registered globals now: how many, and bytes copied each way per switch.
std::size_t registered_globals();
std::size_t registered_global_bytes();
// Privatized variables now.
std::size_t privatized_variables();

// Sets the calling thread's current privatized block (what private_block() returns).
void set_private_block(std::byte* block) noexcept;
// Registers that thread_local with carry_thread_local (it is the PE thread's, not the rank's).
void carry_private_block();

}  // namespace vela::vp::detail
