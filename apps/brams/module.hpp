/* Module-level state of the BRAMS proxy, the way a legacy model keeps it (Fortran modules:
 * scalars and pointers to allocated arrays at file scope), one declaration per module:
 *
 *   BRAMS_MODULE(GridModule, grid);   ...   grid->nx, fields->th[c]
 *
 * Ranks of one process would share such state; the macro gives each rank its own copy by the
 * method this copy of model.cpp is compiled for (docs/user-guide.md, "Privatized globals"):
 *   BRAMS_PRIVATIZE_PRIVATIZED  vela::vp::privatized<T>: one copy per rank, an O(1) switch;
 *                               works across processes and in sanitizer builds
 *   BRAMS_PRIVATIZE_TLS         a thread_local variable, per rank with --vp-tls-globals (the
 *                               seed's TLS method; one process, not under sanitizers)
 *   BRAMS_PRIVATIZE_COPY        a plain global registered with vela::vp::register_global,
 *                               copied in and out at every switch (the old GOT-swapping
 *                               baseline; --pes 1)
 *   (none, BRAMS_STANDALONE)    a plain global: one rank per process under real MPI
 * The source reads the same in every case (module->member). */
#ifndef BRAMS_MODULE_HPP
#define BRAMS_MODULE_HPP

#include <type_traits>

namespace brams {

/* A plain module variable, reached with -> like a privatized one. */
template <class T>
struct Plain {
  static_assert(std::is_trivially_copyable_v<T>, "module state is scalars and pointers");
  T value;
  T* operator->() { return &value; }
  T& operator*() { return value; }
};

}  // namespace brams

#if defined(BRAMS_PRIVATIZE_PRIVATIZED)
#include "vela/vp/privatized.hpp"
#define BRAMS_MODULE(T, name) static vela::vp::privatized<T> name
#elif defined(BRAMS_PRIVATIZE_TLS)
#define BRAMS_MODULE(T, name) static thread_local brams::Plain<T> name
#elif defined(BRAMS_PRIVATIZE_COPY)
#include "vela/vp/privatized.hpp" /* vela::vp::register_global */
#define BRAMS_MODULE(T, name) static brams::Plain<T> name
#else
#define BRAMS_MODULE(T, name) static brams::Plain<T> name
#endif

#endif
