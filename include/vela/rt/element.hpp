// Elements of collections: user objects whose entry methods run on messages, that migrate by
// their pup() function, contribute to reductions and reach balancing points.
#pragma once

#include <cstdint>
#include <vector>

#include "vela/pup/pup.hpp"
#include "vela/rt/entry.hpp"
#include "vela/rt/index.hpp"
#include "vela/rt/reduction.hpp"

namespace vela::rt {

using CollectionId = std::uint32_t;

namespace detail {
struct PeState;
struct ElementAccess;
}  // namespace detail

class ElementBase {
 public:
  // Picks up its collection and index from the runtime that is constructing it.
  ElementBase();
  virtual ~ElementBase() = default;
  ElementBase(const ElementBase&) = delete;
  ElementBase& operator=(const ElementBase&) = delete;

  // The element's state for migration: sizing, packing and unpacking in one function. The
  // runtime default-constructs the element on its new PE and unpacks into it.
  virtual void pup(pup::Archive&) {}
  // Called on every element after a balancing point, once migrations are done.
  virtual void resume_from_sync() {}

  const Index& index() const { return index_; }
  std::uint64_t linear_index() const { return linear_; }
  const Shape& shape() const;
  PeId pe() const;
  PeId pes() const;

  // A balancing point: the collection balances once every element has reached it (every
  // `--lb-period` times), then resume_from_sync() runs on each element.
  void at_sync();

  // Adds `values` to reduction number k of this element's collection, where k counts this
  // element's contributions; when every element has contributed, `callback` receives the result.
  void contribute(std::vector<double> values, ReduceOp op, const Callback& callback,
                  Order order = Order::deterministic);
  // The same with a combining function of the user's (Context::reducer).
  void contribute(std::vector<double> values, const Reducer& reducer, const Callback& callback,
                  Order order = Order::deterministic);

 protected:
  // Sends to another element of this element's collection.
  template <auto Method, class... Args>
  void send(const Index& to, Args&&... args) {
    send_to(to, detail::handler_id<Method>, 0,
            detail::pack_arguments<Method>(std::forward<Args>(args)...));
  }

 private:
  friend struct detail::ElementAccess;
  void send_to(const Index& to, HandlerId handler, int priority, std::vector<std::byte> payload);

  CollectionId collection_ = 0;
  Index index_;
  std::uint64_t linear_ = 0;
  std::uint32_t reductions_ = 0;  // contributions made so far (numbers the reductions)
  std::uint32_t migrations_ = 0;  // moves so far (orders location updates)
  double cpu_seconds_ = 0.0;      // measured since the last balancing step
  double wall_seconds_ = 0.0;
  detail::PeState* pe_ = nullptr;  // where it lives now
};

}  // namespace vela::rt
