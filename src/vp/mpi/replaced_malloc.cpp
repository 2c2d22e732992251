// The allocation functions of programs linked with vela::vp_heap (vela::mpi_main links it;
// glibc lets a program
// replace malloc and its family): while a rank's own code runs, blocks come from the rank's
// slot heap, so the rank's data moves with it to another process (Charm++'s isomalloc heaps);
// everything else, and every block outside the slots, goes to glibc's allocator. Blocks asked
// for by process code (a library keeping per-process state: libgfortran, active_heap.hpp) are
// the process's, the caller told by the return address; strdup and strndup are replaced too,
// since the C library's allocate inside it, where their caller cannot be seen. Freeing a
// block of a rank that has left this process does nothing: its memory left with the rank.
// Sanitizer builds keep their own allocator (the sanitizers replace these functions).
#include <dlfcn.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "memory/active_heap.hpp"
#include "vela/vp/vp.hpp"

extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void __libc_free(void*);
void* __libc_memalign(std::size_t, std::size_t);
}

namespace {

using vela::vp::detail::active_heap;
using vela::vp::detail::heap_owning;
using vela::vp::detail::SlotHeap;

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
constexpr bool replaced = true;

void* from_heap(SlotHeap* heap, std::size_t bytes, std::size_t alignment) {
  void* p = heap->allocate(bytes, alignment);
  if (p == nullptr) {
    // Said once per failure: new then throws std::bad_alloc, malloc returns nullptr.
    char line[320] = "vela: ";
    heap->say_full(line + 6, sizeof line - 7, bytes);
    const std::size_t n = std::strlen(line);
    line[n] = '\n';
    fwrite(line, 1, n + 1, stderr);
    errno = ENOMEM;
  }
  return p;
}

// The rank's heap while its code runs, unless the caller is process code (active_heap.hpp).
SlotHeap* heap_for(const void* caller) noexcept {
  SlotHeap* heap = active_heap();
  return heap != nullptr && !vela::vp::detail::from_process_code(caller) ? heap : nullptr;
}

// A block for `caller`: malloc's, and an aligned one.
void* malloc_for(const void* caller, std::size_t bytes) {
  if (SlotHeap* heap = heap_for(caller)) return from_heap(heap, bytes, 16);
  return __libc_malloc(bytes);
}

void* aligned_for(const void* caller, std::size_t alignment, std::size_t bytes) {
  if (SlotHeap* heap = heap_for(caller)) return from_heap(heap, bytes, alignment);
  return __libc_memalign(alignment, bytes);
}

// A copy of the first `n` bytes of `s`, and a terminator, for `caller`.
char* copy_for(const void* caller, const char* s, std::size_t n) {
  auto* p = static_cast<char*>(malloc_for(caller, n + 1));
  if (p != nullptr) {
    std::memcpy(p, s, n);
    p[n] = '\0';
  }
  return p;
}
#else
constexpr bool replaced = false;
#endif

// A process started again through /proc/self/exe is named "exe" by the kernel (its name is
// the file name it was started by): it takes back its program's file name, as `ps`, `top` and
// `pkill` show and find it.
void keep_program_name() {
  char path[4096];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) return;
  path[n] = '\0';
  std::string_view name(path, static_cast<std::size_t>(n));
  constexpr std::string_view deleted = " (deleted)";  // the file replaced since the start
  if (name.ends_with(deleted)) name.remove_suffix(deleted.size());
  name = name.substr(name.rfind('/') + 1);
  const std::string comm(name.substr(0, 15));  // the kernel keeps 15 characters
  prctl(PR_SET_NAME, comm.c_str(), 0, 0, 0);
}

}  // namespace

namespace vela::vp {

void prepare_ranks_across_processes(int argc, char** argv) {
  // Ranks moving between processes need the code at the same addresses in every process.
  // Under mpirun with several processes, a process started with address-space randomization
  // on starts itself again without it, before anything else (MPI included) has run. Where the
  // system refuses, the run goes on and vp::run says what to do.
  // A checkpoint of ranks resumes in a later process: the same holds between the run that
  // writes it and the one that restarts.
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  bool checkpoints = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    for (const std::string_view option : {"--checkpoint", "--restart"}) {
      if (a == option || (a.size() > option.size() && a.substr(0, option.size()) == option &&
                          a[option.size()] == '=')) {
        checkpoints = true;
      }
    }
  }
  const char* tried = std::getenv("VELA_NO_ASLR_TRIED");
  if (tried != nullptr) keep_program_name();  // started again (or told not to): its own name
  if (argc > 0 && ((size != nullptr && std::atoi(size) > 1) || checkpoints) && tried == nullptr) {
    const int current = personality(0xffffffff);
    if (current != -1 && (current & ADDR_NO_RANDOMIZE) == 0 &&
        personality(static_cast<unsigned long>(current) | ADDR_NO_RANDOMIZE) != -1) {
      setenv("VELA_NO_ASLR_TRIED", "1", 1);
      execv("/proc/self/exe", argv);
      personality(static_cast<unsigned long>(current));  // exec failed: carry on as we are
    }
  }
  if (replaced) detail::make_heap_routing_available();
}

}  // namespace vela::vp

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
extern "C" {

void* malloc(std::size_t bytes) {
  return malloc_for(__builtin_return_address(0), bytes);
}

void free(void* p) {
  if (p == nullptr) return;
  const auto owner = heap_owning(p);
  if (!owner.in_slots) {
    __libc_free(p);
  } else if (owner.heap != nullptr) {
    owner.heap->release(p);
  }
}

void* calloc(std::size_t count, std::size_t size) {
  SlotHeap* heap = heap_for(__builtin_return_address(0));
  if (heap == nullptr) return __libc_calloc(count, size);
  if (size != 0 && count > SIZE_MAX / size) {
    errno = ENOMEM;
    return nullptr;
  }
  void* p = from_heap(heap, count * size, 16);
  if (p != nullptr) std::memset(p, 0, count * size);
  return p;
}

void* realloc(void* p, std::size_t bytes) {
  if (p == nullptr) return malloc_for(__builtin_return_address(0), bytes);
  const auto owner = heap_owning(p);
  if (!owner.in_slots) return __libc_realloc(p, bytes);
  if (owner.heap == nullptr) return nullptr;
  const std::size_t usable = owner.heap->usable_size(p);
  if (bytes <= usable && bytes > usable / 4) return p;
  // A rank's block stays in its rank's heap, whoever resizes it.
  void* q = from_heap(owner.heap, bytes, 16);
  if (q == nullptr) return nullptr;
  std::memcpy(q, p, bytes < usable ? bytes : usable);
  owner.heap->release(p);
  return q;
}

void* reallocarray(void* p, std::size_t count, std::size_t size) {
  if (size != 0 && count > SIZE_MAX / size) {
    errno = ENOMEM;
    return nullptr;
  }
  return realloc(p, count * size);
}

void* memalign(std::size_t alignment, std::size_t bytes) {
  return aligned_for(__builtin_return_address(0), alignment, bytes);
}

void* aligned_alloc(std::size_t alignment, std::size_t bytes) {
  return aligned_for(__builtin_return_address(0), alignment, bytes);
}

int posix_memalign(void** out, std::size_t alignment, std::size_t bytes) {
  if (alignment < sizeof(void*) || (alignment & (alignment - 1)) != 0) return EINVAL;
  void* p = aligned_for(__builtin_return_address(0), alignment, bytes);
  if (p == nullptr) return ENOMEM;
  *out = p;
  return 0;
}

void* valloc(std::size_t bytes) {
  return aligned_for(__builtin_return_address(0), 4096, bytes);
}

void* pvalloc(std::size_t bytes) {
  return aligned_for(__builtin_return_address(0), 4096, (bytes + 4095) / 4096 * 4096);
}

// The C library's copies allocate inside it, where the caller cannot be seen: here they are
// allocated for the caller (process code such as libgfortran copies every format string).
char* strdup(const char* s) {
  return copy_for(__builtin_return_address(0), s, std::strlen(s));
}

char* strndup(const char* s, std::size_t most) {
  return copy_for(__builtin_return_address(0), s, strnlen(s, most));
}

std::size_t malloc_usable_size(void* p) {
  if (p == nullptr) return 0;
  const auto owner = heap_owning(p);
  if (owner.in_slots) return owner.heap != nullptr ? owner.heap->usable_size(p) : 0;
  // glibc's own, found past this definition.
  using Usable = std::size_t (*)(void*);
  static Usable next = reinterpret_cast<Usable>(dlsym(RTLD_NEXT, "malloc_usable_size"));
  return next != nullptr ? next(p) : 0;
}

}  // extern "C"
#endif
