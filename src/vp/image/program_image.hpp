// The program as a loaded image, once per process, and its instances: one per rank under
// automatic privatization (--vp-privatize auto), one for all ranks otherwise
// (docs/architecture.md, "The program as a loaded image").
//
// vela-mpicc links the program (its objects, static libraries and main) into a position-
// independent shared object and embeds it in a small executable: Vela's runtime with a main
// that loads the image. Loading it here rather than with dlopen() is what lets a process hold
// one instance per rank: the dynamic linker allows one instance of a library per namespace and
// sixteen namespaces.
//
// An instance at address `at` is the image's segments mapped there from one in-memory file
// (code and read-only data are shared pages of that file in every instance; writable data is
// copy-on-write, .bss anonymous), then fixed up exactly from the image's dynamic relocations:
// words that hold image addresses get `at` added, references to other libraries get the
// addresses resolved once per process, and a short list of C library symbols whose state
// programs treat as their own (getopt, rand, strtok, ...: image/rank_libc.hpp) is bound to a
// per-instance version. No word is guessed to be a pointer. After the segments, the instance's
// tail holds its C library state, its thread-local block (the image's thread_local variables
// are per instance: __tls_get_addr is bound to Vela's) and the exit functions its code
// registered (atexit, C++ static destructors), run when its main returns.
//
// Costs: an instance costs the pages its rank writes (relocated words, data it changes, .bss
// it touches) plus its tail; making one is a few mmap calls and one pass over the relocations
// (O(relocations), microseconds for a small program). Moving one sends its writable pages that
// are not all zero.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "image/elf_image.hpp"
#include "vela/pup/pup.hpp"

namespace vela::vp::detail {

struct RankLibc;

struct dwarf_eh_bases;

class ProgramImage {
 public:
  // Reads the image in `bytes` (a copy is kept in an in-memory file), loads the libraries it
  // needs and resolves its symbols. Throws Error naming `name`, and every symbol nothing in the
  // process defines.
  ProgramImage(std::span<const std::byte> bytes, std::string name);
  ~ProgramImage();
  ProgramImage(const ProgramImage&) = delete;
  ProgramImage& operator=(const ProgramImage&) = delete;

  const std::string& name() const { return name_; }
  const ElfImage& elf() const { return elf_; }
  // Bytes an instance takes (segments and tail), and the alignment its start needs.
  std::size_t instance_bytes() const { return instance_bytes_; }
  std::size_t alignment() const { return elf_.alignment; }
  // Where the image's writable segments begin (an offset from an instance's start, page
  // aligned) and their bytes (what each instance owns of the program).
  std::size_t writable_begin() const { return writable_begin_; }
  std::size_t writable_bytes() const { return elf_.span - writable_begin_; }

  // Makes a fresh instance at `at` (instance_bytes() of address space, reserved or free):
  // maps, relocates, sets its C library state and thread-locals to their initial values, and
  // registers its unwind tables. Its constructors have not run (run_main runs them). With
  // `rank_libc`, the C library symbols of image/rank_libc.hpp are bound to the instance's own
  // state (a rank's instance); without, to the C library's (the instance the ranks share).
  void instantiate(std::byte* at, bool rank_libc) const;
  // Inside the rank owning the instance (or on the main thread for the shared one): its
  // constructors, its main with these arguments, its exit functions and destructors. Returns
  // main's value.
  int run_main(std::byte* at, int argc, char** argv) const;
  // Its main alone.
  int call_main(std::byte* at, int argc, char** argv) const;
  // The instance shared by every rank (none, copy, tls), or nullptr.
  std::byte* shared() const;
  void set_shared(std::byte* at) const;
  // The constructors alone / the exit functions and destructors alone (the shared instance's,
  // around a whole run).
  void construct(std::byte* at, int argc, char** argv) const;
  void destruct(std::byte* at) const;
  // The exit functions registered in the instance or tail at `at` alone, last first.
  void run_exits(std::byte* at) const;
  // Gives the instance's memory back and leaves the range reserved (inaccessible).
  void release(std::byte* at) const noexcept;
  // A tail alone at `at` (a rank's thread-locals and C library state beside a shared instance:
  // --vp-privatize tls), its release and its moving.
  void instantiate_tail(std::byte* at) const;
  void release_tail(std::byte* at) const noexcept;
  void pup_tail(pup::Archive& ar, std::byte* at) const;

  // The instance's C library state (its tail's).
  RankLibc* libc(std::byte* at) const;

  // Moving an instance to another process or into a checkpoint: its writable pages that are
  // not all zero, and its tail. Unpacking maps the image's code at `at` and copies them in.
  void pup(pup::Archive& ar, std::byte* at) const;

  // The frame description entry of code address `pc` of the instance at `at`, with its bases,
  // or nullptr (the unwinder's question: _Unwind_Find_FDE in program_image.cpp).
  const void* find_fde(std::byte* at, const void* pc, dwarf_eh_bases* bases) const;

  // The name of the image's function that `address` of the instance at `at` lies in, or
  // nullptr. No allocation: the fault reports call it in a signal handler.
  const char* function_at(const std::byte* at, const void* address) const noexcept;

 private:
  struct Binding;
  void map_segments(std::byte* at, bool with_file_data) const;
  void relocate(std::byte* at, bool rank_libc) const;
  void register_frames(std::byte* at) const;
  void make_tail(std::byte* at) const;
  void find_code_in_place();
  void read_fde_table(std::span<const std::byte> bytes);
  void pup_writable(pup::Archive& ar, std::byte* at) const;
  void resolve();

  std::string name_;
  ElfImage elf_;
  int fd_ = -1;
  std::size_t writable_begin_ = 0;  // the first writable segment's first page
  bool code_in_place_ = false;      // the non-writable segments map as one (map_segments)
  std::size_t code_end_ = 0;        // and end there
  std::size_t tail_offset_ = 0;     // = elf_.span
  std::size_t tls_offset_ = 0;      // the thread-local block's, in the tail
  std::size_t exits_offset_ = 0;    // the exit functions', in the tail
  std::size_t instance_bytes_ = 0;
  std::vector<Binding> bindings_;     // by symbol index
  std::vector<std::byte> tls_image_;  // the thread-locals' initial bytes
  // The FDEs by code range (image offsets), sorted; empty: instances register theirs instead.
  struct Fde {
    std::uint64_t start;
    std::uint64_t end;
    std::uint64_t fde;
  };
  std::vector<Fde> fdes_;
  std::vector<void*> needed_;  // dlopen handles
};

// The image this process runs (set by the main of image programs before ranks start), or
// nullptr for a program linked with its main.
ProgramImage* program_image() noexcept;
void set_program_image(ProgramImage* image) noexcept;

}  // namespace vela::vp::detail
