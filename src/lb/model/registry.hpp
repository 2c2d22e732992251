// The store behind the strategy, policy and predictor registries: the built-in entries (one
// explicit list per kind) followed by those registered at run time, found by name.
#pragma once

#include <cstddef>
#include <deque>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

#include "vela/lb/model/params.hpp"
#include "vela/lb/model/registration.hpp"

namespace vela::lb::registry_detail {

// A name must be usable wherever names are typed: options (so not starting with '-'),
// key=value parameters, comma-separated lists.
inline bool valid_name(const std::string& name) {
  const auto alphanumeric = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  };
  if (name.empty() || !alphanumeric(name.front())) return false;
  for (char c : name) {
    if (!alphanumeric(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

// `Info` has `name` and `make` (a std::function). Entries are never removed and live in a
// deque, so a reference to one stays valid while others are added; the lock guards the deque.
template <typename Info>
class Registry {
 public:
  Registry(std::string kind, std::vector<Info> builtins) : kind_(std::move(kind)) {
    for (Info& info : builtins) entries_.push_back(std::move(info));
    builtin_count_ = entries_.size();
  }

  std::vector<Info> all() const {
    std::shared_lock lock(mutex_);
    return {entries_.begin(), entries_.end()};
  }

  // Throws ParamError for an unknown name, listing the known ones.
  const Info& find(const std::string& name) const {
    std::shared_lock lock(mutex_);
    for (const Info& info : entries_) {
      if (info.name == name) return info;
    }
    std::string known;
    for (const Info& info : entries_) known += (known.empty() ? "" : ", ") + info.name;
    throw ParamError("unknown " + kind_ + " '" + name + "' (known: " + known + ")");
  }

  void add(Info info) {
    const std::string what = "register_" + kind_ + ": ";
    if (info.name.empty()) throw RegistrationError(what + "the " + kind_ + " has no name");
    if (!valid_name(info.name)) {
      throw RegistrationError(
          what + "'" + info.name +
          "' is not a valid name (a letter or digit, then letters, digits, '-', '_' and '.')");
    }
    if (!info.make) {
      throw RegistrationError(what + "'" + info.name + "' has no factory (`make` is empty)");
    }
    std::unique_lock lock(mutex_);
    for (std::size_t i = 0; i < entries_.size(); ++i) {
      if (entries_[i].name != info.name) continue;
      throw RegistrationError(what + "'" + info.name + "' is " +
                              (i < builtin_count_ ? "a built-in " + kind_ : "already registered") +
                              "; choose another name");
    }
    entries_.push_back(std::move(info));
  }

 private:
  std::string kind_;
  mutable std::shared_mutex mutex_;
  std::deque<Info> entries_;
  std::size_t builtin_count_ = 0;
};

}  // namespace vela::lb::registry_detail
