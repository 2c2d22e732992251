// Entry methods: member functions of collection elements invoked by messages. Each method used
// as an entry gets a handler id at program start-up (static initialization, in the same order in
// every process of one binary), so a message names its entry method by a number.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "vela/pup/pup.hpp"

namespace vela::rt {

class ElementBase;
using HandlerId = std::uint32_t;

namespace detail {

using Handler = void (*)(ElementBase&, pup::Unpacker&);

HandlerId register_handler(Handler handler, std::string name);
Handler handler(HandlerId id);
const std::string& handler_name(HandlerId id);

template <class Method>
struct MethodTraits;

template <class C, class R, class... A>
struct MethodTraits<R (C::*)(A...)> {
  using Class = C;
  using Parameters = std::tuple<std::decay_t<A>...>;
};

// "Block::halo" from the compiler's spelling of the template argument.
std::string method_name_from(std::string_view pretty_function);

template <auto Method>
std::string method_name() {
  return method_name_from(__PRETTY_FUNCTION__);
}

template <auto Method, class Tuple, std::size_t... I>
void call_with(ElementBase& element, pup::Unpacker& in, Tuple& args, std::index_sequence<I...>) {
  static_cast<void>((in | ... | std::get<I>(args)));
  using Class = typename MethodTraits<decltype(Method)>::Class;
  (static_cast<Class&>(element).*Method)(std::move(std::get<I>(args))...);
}

template <auto Method>
void invoke(ElementBase& element, pup::Unpacker& in) {
  using Parameters = typename MethodTraits<decltype(Method)>::Parameters;
  Parameters args;
  call_with<Method>(element, in, args, std::make_index_sequence<std::tuple_size_v<Parameters>>{});
}

template <auto Method>
inline const HandlerId handler_id = register_handler(&invoke<Method>, method_name<Method>());

// The arguments of `Method`, converted to its parameter types and packed.
template <auto Method, class... Args>
std::vector<std::byte> pack_arguments(Args&&... args) {
  using Traits = MethodTraits<decltype(Method)>;
  static_assert(std::tuple_size_v<typename Traits::Parameters> == sizeof...(Args),
                "wrong number of arguments for this entry method");
  typename Traits::Parameters values(std::forward<Args>(args)...);
  return pup::pack(values);
}

}  // namespace detail
}  // namespace vela::rt
