// Privatized globals: state that legacy MPI code keeps in globals, one copy per
// rank when ranks share a process. Two of the three methods are declared here (the third,
// per-rank thread_local variables, is Options::tls_globals / --vp-tls-globals):
//
//   privatized<T>: a namespace-scope variable with one copy per rank, reached through the
//     running rank. At static initialization each one registers and gets a place in a
//     per-rank block; a rank's block is made from copies of the variables' main copies when
//     the rank starts, and switching ranks sets one pointer (O(1) whatever their number).
//     Outside a rank (before vp::run, after it, on a thread that runs no rank) an access
//     reaches the main copy, which is also what each rank starts from.
//
//   register_global(): plain globals registered before vp::run; each rank gets a save area
//     made from the globals' values when the first rank of a run starts, the switch copies
//     save -> globals in and globals -> save out (O(number of globals), the old "GOT
//     swapping"). Needs --pes 1: ranks on two PE threads would write the same globals at once.
//     When the last rank ends the globals get back the values they had before the run.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace vela::vp {

namespace detail {

using CopyFunction = void (*)(void* destination, const void* source);
using DestroyFunction = void (*)(void* object) noexcept;

// Registers a privatized variable (its main copy at `initial`); returns its offset in the
// per-rank block. Throws vela::vp::Error while ranks are alive (their blocks are laid out).
std::size_t register_privatized(std::size_t bytes, std::size_t alignment, const void* initial,
                                CopyFunction copy, DestroyFunction destroy);

// Forgets the variable at `offset` (its destructor: ranks made later no longer copy it). A
// variable destroyed while ranks are alive stays registered (their blocks hold its copies).
void unregister_privatized(std::size_t offset) noexcept;

// What a privatized<T> may be made or assigned from (not another privatized, which would
// otherwise look like a value).
template <class U, class T, class Self>
concept Initializer =
    !std::is_same_v<std::remove_cvref_t<U>, Self> &&
    !std::is_same_v<std::remove_cvref_t<U>, std::in_place_t> && std::is_constructible_v<T, U&&>;
template <class E, class T>
concept ListElement = (std::is_constructible_v<T, std::initializer_list<E>&>);
template <class U, class T, class Self>
concept AssignableTo =
    !std::is_same_v<std::remove_cvref_t<U>, Self> && std::is_assignable_v<T&, U&&>;

// The running rank's block, or nullptr outside a rank. Defined out of line and never inlined:
// a rank's fiber may resume on another thread, and an inline thread_local read could reuse the
// address of the first thread's variable computed before the suspension.
std::byte* private_block() noexcept;

}  // namespace detail

template <class T>
class privatized {
  static_assert(std::is_copy_constructible_v<T>, "each rank's copy is made from the main copy");
  static_assert(!std::is_reference_v<T> && !std::is_array_v<T>, "use a struct or std::array");

 public:
  privatized() : privatized(std::in_place) {}

  template <detail::Initializer<T, privatized> U>
  privatized(U&& value) : privatized(std::in_place, std::forward<U>(value)) {}

  template <detail::ListElement<T> E>
  privatized(std::initializer_list<E> values) : privatized(std::in_place, values) {}

  template <class... Args>
  explicit privatized(std::in_place_t, Args&&... args)
      : initial_(std::forward<Args>(args)...),
        offset_(detail::register_privatized(sizeof(T), alignof(T), std::addressof(initial_),
                                            &copy_construct, &destroy)) {}

  ~privatized() { detail::unregister_privatized(offset_); }

  // Registered by address: copies and moves would leave the registration behind.
  privatized(const privatized&) = delete;
  privatized& operator=(const privatized&) = delete;

  // The running rank's copy, or the main copy outside a rank.
  T& get() noexcept { return *address(); }
  const T& get() const noexcept { return *address(); }
  T& operator*() noexcept { return get(); }
  const T& operator*() const noexcept { return get(); }
  T* operator->() noexcept { return address(); }
  const T* operator->() const noexcept { return address(); }
  operator T&() noexcept { return get(); }
  operator const T&() const noexcept { return get(); }

  template <detail::AssignableTo<T, privatized> U>
  privatized& operator=(U&& value) {
    get() = std::forward<U>(value);
    return *this;
  }

  // The main copy, whichever rank runs: what ranks that start from now on begin with.
  T& main_copy() noexcept { return initial_; }
  const T& main_copy() const noexcept { return initial_; }

 private:
  T* address() const noexcept {
    std::byte* block = detail::private_block();
    if (block == nullptr) return const_cast<T*>(std::addressof(initial_));
    return std::launder(reinterpret_cast<T*>(block + offset_));
  }
  static void copy_construct(void* destination, const void* source) {
    ::new (destination) T(*static_cast<const T*>(source));
  }
  static void destroy(void* object) noexcept { static_cast<T*>(object)->~T(); }

  T initial_;
  std::size_t offset_;
};

// Registers `bytes` at `address` as a global to copy per rank (method (c) above). Call before
// vp::run; throws vela::vp::Error while ranks are alive or when the range overlaps another
// registered one (registering the same range again does nothing).
void register_global(void* address, std::size_t bytes);

template <class T>
void register_global(T& variable) {
  static_assert(std::is_trivially_copyable_v<T>, "registered globals are copied as bytes");
  register_global(static_cast<void*>(std::addressof(variable)), sizeof(T));
}

// Forgets every registered global (between runs); throws vela::vp::Error while ranks are alive.
void unregister_globals();

}  // namespace vela::vp
