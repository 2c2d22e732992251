// Elements of collections: user objects whose entry methods run on messages, that migrate by
// their pup() function, contribute to reductions and reach balancing points.
#pragma once

#include <array>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "vela/pup/pup.hpp"
#include "vela/rt/entry.hpp"
#include "vela/rt/index.hpp"
#include "vela/rt/reduction.hpp"

namespace vela::rt {

namespace detail {
struct PeState;
struct ElementAccess;

// What an element sent to each element of its collection since the last balancing step. A
// small table per sender, found through a direct-mapped slot for the destination, so counting
// a message costs no hash-map insert.
class CommTable {
 public:
  struct Edge {
    std::uint64_t to = 0;
    std::uint64_t messages = 0;
    std::uint64_t bytes = 0;
    void pup(pup::Archive& ar) { ar | to | messages | bytes; }
  };

  void count(std::uint64_t to, std::uint64_t bytes) {
    const std::uint32_t at = recent_[to % recent_.size()];
    if (at != 0 && edges_[at - 1].to == to) {
      ++edges_[at - 1].messages;
      edges_[at - 1].bytes += bytes;
      return;
    }
    count_slow(to, bytes);
  }
  const std::vector<Edge>& edges() const { return edges_; }
  void clear();
  // Adds another table's counts (an element's counts follow it when it migrates).
  void merge(const std::vector<Edge>& edges);

 private:
  void count_slow(std::uint64_t to, std::uint64_t bytes);

  std::vector<Edge> edges_;
  std::array<std::uint32_t, 8> recent_{};  // destination % 8 -> position in edges_ + 1
  std::unordered_map<std::uint64_t, std::uint32_t> positions_;  // filled past a few edges
};
}  // namespace detail

// How a balancing point balances (ElementBase::at_sync): as the run says (--lb-async or not);
// inline (the elements wait for the strategy's answer and resume where it put them); or
// asynchronously (the elements resume once measured, the strategy runs on the balancing thread
// and its answer is applied at a later balancing point: docs/architecture.md, "Asynchronous
// balancing"). Every element of the collection names the same at one point.
enum class SyncBalance : std::uint8_t { as_run, inline_step, asynchronous };

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
  const Shape& shape() const { return *shape_; }
  PeId pe() const;
  PeId pes() const;

  // A balancing point: the collection balances once every element has reached it (every
  // `--lb-period` times), then resume_from_sync() runs on each element. Once per point: a
  // second call before resume_from_sync() throws std::logic_error. `how`: as the run says, or
  // this point inline or asynchronously (SyncBalance).
  void at_sync(SyncBalance how = SyncBalance::as_run);

  // What the next balancing step sees of this element (AMPI's MPI_Migrate_to_pe and load calls).
  // request_pe: at the next balancing point the element moves to PE `pe`, whatever the strategy
  // decides, and also where no strategy runs (no --lb, or not a balancing step of --lb-period);
  // -1 withdraws the request. Throws std::out_of_range outside -1..pes()-1.
  void request_pe(PeId pe);
  // The load the next balancing step takes for this element instead of the measured one: seconds
  // of work on a PE of speed 1. Throws std::invalid_argument for a negative or non-finite value.
  void declare_load(double seconds);
  // While off, what this element runs is not measured (its entries' time is not its load); called
  // from one of its own entries, it takes effect from the call on. Whether it is on.
  void set_measured(bool on);
  bool measured() const { return !unmeasured_; }

  // Adds `values` to reduction number k of this element's collection, where k counts this
  // element's contributions; when every element has contributed, `callback` receives the result.
  void contribute(std::vector<double> values, ReduceOp op, const Callback& callback,
                  Order order = Order::deterministic);
  // The same with a combining function of the user's (Context::reducer).
  void contribute(std::vector<double> values, const Reducer& reducer, const Callback& callback,
                  Order order = Order::deterministic);

  // Leaves a dynamic collection (Context::create_dynamic): called from one of this element's own
  // entry methods, the element is deleted once that entry returns, wherever it is by then; the
  // collection's sync points and reductions stop waiting for it (reductions from the first it
  // did not contribute to). Messages sent to it afterwards wait at its home PE for an element
  // inserted at its index (Proxy::insert); if none comes the run ends with an error at
  // quiescence. Throws std::logic_error outside its own entry, in a collection that is not
  // dynamic, at a balancing point (between at_sync() and resume_from_sync()) or a second time.
  void destroy();

 protected:
  // Sends to another element of this element's collection.
  template <auto Method, class... Args>
  void send(const Index& to, Args&&... args) {
    detail::send_entry<Method>(collection_, linear_of(to), 0, std::forward<Args>(args)...);
  }
  // Lower values run first; equal priorities keep their order. Default priority is 0.
  template <auto Method, class... Args>
  void send_with_priority(const Index& to, int priority, Args&&... args) {
    detail::send_entry<Method>(collection_, linear_of(to), priority, std::forward<Args>(args)...);
  }

 private:
  friend struct detail::ElementAccess;
  // The linear index of `to` in this element's collection; throws std::out_of_range outside it.
  std::uint64_t linear_of(const Index& to) const {
    if (!shape_->contains(to)) [[unlikely]]
      outside(to);
    return shape_->linear(to);
  }
  [[noreturn]] void outside(const Index& to) const;
  [[noreturn]] void refuse_after_destroy(const char* what) const;

  CollectionId collection_ = 0;
  Index index_;
  std::uint64_t linear_ = 0;
  std::uint32_t reductions_ = 0;   // contributions made so far (numbers the reductions)
  std::uint32_t migrations_ = 0;   // moves so far (orders location updates)
  bool border_ = false;            // sent to another cluster from this PE (border priority)
  bool at_sync_ = false;           // reached a balancing point, not yet resumed
  bool unmeasured_ = false;        // set_measured(false): its entries' time is not counted
  bool destroying_ = false;        // destroy() was called: deleted after the entry
  std::uint32_t incarnation_ = 0;  // elements inserted at its index before it (orders locations)
  PeId requested_pe_ = -1;         // request_pe's, until the next at_sync()
  double declared_load_ = -1.0;    // declare_load's, until the next balancing step (< 0: none)
  double cpu_seconds_ = 0.0;       // measured since the last balancing step
  std::int64_t wall_ticks_ = 0;    // likewise, in the runtime's clock ticks
  detail::CommTable comm_;         // likewise
  detail::PeState* pe_ = nullptr;  // where it lives now
  const Shape* shape_ = nullptr;   // its collection's
};

}  // namespace vela::rt
