#include "vela/rt/entry.hpp"
#include "vela/rt/runtime.hpp"

#include <mutex>
#include <stdexcept>

namespace vela::rt::detail {

namespace {

struct HandlerEntry {
  Handler handler;
  std::string name;
  const ArgsOps* ops;
};

// Filled during static initialization (one entry per entry method of the program), read-only
// afterwards; a function-local static so that registration order does not depend on the
// order in which translation units are initialized relative to this one.
std::vector<HandlerEntry>& table() {
  static std::vector<HandlerEntry> entries;
  return entries;
}

// The ops of the first handlers again, in an array that needs no initialization guard (it is
// constant-initialized): handler_ops reads it for every compact message at each end of a PE
// ring (core/pe_ring.cpp, core/idle.cpp).
constexpr std::size_t quick_ops = 1024;
constinit const ArgsOps* ops_by_id[quick_ops] = {};

std::mutex& table_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace

HandlerId register_handler(Handler handler, std::string name, const ArgsOps* ops) {
  std::lock_guard lock(table_mutex());
  table().push_back({handler, std::move(name), ops});
  const std::size_t id = table().size() - 1;
  if (id < quick_ops) ops_by_id[id] = ops;
  return static_cast<HandlerId>(id);
}

Handler handler(HandlerId id) {
  if (id >= table().size()) throw std::logic_error("no entry method " + std::to_string(id));
  return table()[id].handler;
}

const ArgsOps* handler_ops(HandlerId id) {
  if (id < quick_ops) return ops_by_id[id];
  return id < table().size() ? table()[id].ops : nullptr;
}

const std::string& handler_name(HandlerId id) {
  if (id >= table().size()) throw std::logic_error("no entry method " + std::to_string(id));
  return table()[id].name;
}

HandlerId handler_count() {
  return static_cast<HandlerId>(table().size());
}

std::string method_name_from(std::string_view pretty) {
  // "... [with auto Method = &{anonymous}::Block::halo; ...]" -> "Block::halo"
  constexpr std::string_view marker = "Method = &";
  auto begin = pretty.find(marker);
  if (begin == std::string_view::npos) return std::string(pretty);
  begin += marker.size();
  const auto end = pretty.find_first_of(";]", begin);
  std::string name(pretty.substr(begin, end == std::string_view::npos ? end : end - begin));
  constexpr std::string_view anonymous = "{anonymous}::";
  for (auto at = name.find(anonymous); at != std::string::npos; at = name.find(anonymous)) {
    name.erase(at, anonymous.size());
  }
  return name;
}

std::vector<ElementFactory>& factories() {
  static std::vector<ElementFactory> all;
  return all;
}

FactoryId register_factory(ElementFactory factory) {
  std::lock_guard lock(table_mutex());
  factories().push_back(factory);
  return static_cast<FactoryId>(factories().size() - 1);
}

FactoryId factory_count() {
  return static_cast<FactoryId>(factories().size());
}

const ElementFactory& factory(FactoryId id) {
  if (id >= factories().size()) throw std::logic_error("no element factory " + std::to_string(id));
  return factories()[id];
}

}  // namespace vela::rt::detail
