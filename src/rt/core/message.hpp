// Messages and the per-PE pools they come from. Only src/rt sees them.
//
// A message is one 128-byte block: a header and room for small arguments inline (larger ones
// get a separate allocation). Blocks come from the sending PE's pool and go back to it when
// the receiver is done: the owner reuses its own free list without synchronization, and other
// PEs hand blocks back through a lock-free list the owner takes whole when its own runs dry.
// In steady state no message allocates.
#pragma once

#include <atomic>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <span>
#include <vector>

#include "vela/rt/entry.hpp"
#include "vela/rt/index.hpp"

namespace vela::rt::detail {

enum class Kind : std::uint8_t {
  entry,               // an entry method of one element
  create,              // build this PE's elements of a new collection
  call,                // run a function on this PE (main, at start-up)
  migrate_order,       // LB root -> source PE: send these elements away
  migrate_in,          // source PE -> destination PE: an element's state
  location,            // an element now lives on a PE (to its home and to senders)
  at_sync,             // element -> LB root: reached a balancing point
  lb_collect,          // LB root -> every PE: report your measurements
  lb_report,           // PE -> LB root: measurements
  migrated,            // destination PE -> LB root: an element arrived
  resume,              // LB root -> every PE: call resume_from_sync
  contribution,        // element -> root: one reduction contribution
  lb_agent,            // PE -> PE: a distributed strategy's message between two PEs' agents
  lb_ready,            // PE -> LB root: this PE's agent waits at its barrier
  lb_proceed,          // LB root -> every PE: every agent waits there, go on
  lb_done,             // PE -> LB root: this PE's agent is done, its moves ordered
  checkpoint_collect,  // root -> every PE: pack your elements of the collection
  checkpoint_part,     // PE -> root: its elements, packed
  restore,             // root -> PE: build these elements from a checkpoint
  layer,               // PE -> PE: the rank layer's own (rank_seam.hpp, post_to_pe)
  lb_answer,           // balancing thread -> LB root: an asynchronous strategy's answer
  lb_apply,            // LB root -> every PE: move your elements where the answer says
  lb_applied,          // PE -> LB root: its part of the answer's moves is ordered
  insert,              // any PE -> root: a new element for a dynamic collection
  construct,           // root -> PE: build that element here
  destroy,             // element's PE -> itself: delete the element (ElementBase::destroy)
  member_left,         // PE -> root: an element of a dynamic collection was deleted
  broadcast,           // any PE -> root: an entry message for every element of a dynamic one
};

// Runtime messages overtake entry methods queued on the same PE, whatever their priority.
inline constexpr int system_priority = INT32_MIN;

class MessagePool;

// Arguments that are packed bytes: runtime messages, and entry messages whose arguments
// arrived packed (a reduction's result). `args` is a std::vector<std::byte>.
extern const ArgsOps packed_args;
// An element's state on its way (migrate_in): `args` is a RawBytes, filled without first
// zeroing it.
extern const ArgsOps raw_args;
// A function to run (Kind::call): `args` is a CallArgs.
extern const ArgsOps call_args;
// Packed bytes held in the message itself (a small arrival from another process, built without
// an allocation): `args` is an InlineBytes.
extern const ArgsOps inline_args;
// Whether a message's arguments are packed bytes (read through Message::payload()).
inline bool packed(const ArgsOps* ops) {
  return ops == &packed_args || ops == &inline_args || ops == &raw_args;
}

struct RawBytes {
  std::unique_ptr<std::byte[]> data;
  std::size_t size = 0;
};

struct InlineBytes {
  static constexpr std::size_t capacity = 56;  // Message::inline_bytes less the size
  std::uint32_t size = 0;
  alignas(8) std::byte data[capacity];
};

struct CallArgs {
  void (*function)(void* context);
  void* context;
};

struct alignas(16) Message {
  Message* next = nullptr;       // inbox and local queues
  MessagePool* pool = nullptr;   // where it goes back; null: it came from the heap
  const ArgsOps* ops = nullptr;  // how to treat the arguments; null: none
  std::uint64_t element = 0;     // linear index in the collection
  std::int64_t sender = -1;      // sending element (same collection), for the communication graph
  CollectionId collection = 0;
  HandlerId handler = 0;
  int priority = 0;
  PeId origin = -1;        // PE that first sent it, told where the element is if it moved
  std::uint32_t hops = 0;  // times forwarded
  Kind kind = Kind::entry;
  bool args_on_heap = false;
  bool wan = false;  // crossed clusters and not yet through the receiver's delay device
  // One of a dynamic collection's broadcast's messages: dropped, not held, where it finds its
  // element destroyed (it was meant for the elements there are).
  bool broadcast = false;

  static constexpr std::size_t header_bytes = 64;
  static constexpr std::size_t inline_bytes = 128 - header_bytes;
  alignas(8) std::byte storage[inline_bytes];

  void* args() {
    return args_on_heap ? *reinterpret_cast<void**>(storage) : static_cast<void*>(storage);
  }
  // Runtime messages: their packed payload.
  std::span<const std::byte> payload();
};
static_assert(sizeof(Message) == 128, "a message is two cache lines");

// The fields that name a message's target, sender and priority, from a header that carries them
// under these names (a record from another process, a PE ring's compact slot), whatever their
// widths there.
template <class Header>
void set_address(Message& m, const Header& h) {
  m.collection = h.collection;
  m.element = h.element;
  m.sender = h.sender;
  m.handler = h.handler;
  m.priority = h.priority;
  m.origin = h.origin;
}

// Makes `size` packed bytes (at most InlineBytes::capacity) the message's arguments, held in
// the message itself (inline_args): a small arrival from another process or a PE ring's
// compact slot.
inline void set_inline_args(Message& m, const std::byte* bytes, std::size_t size) {
  auto* args = ::new (m.storage) InlineBytes;
  args->size = static_cast<std::uint32_t>(size);
  if (size != 0) std::memcpy(args->data, bytes, size);
  m.ops = &inline_args;
}
static_assert(offsetof(Message, storage) == Message::header_bytes);
static_assert(sizeof(InlineBytes) <= Message::inline_bytes);

struct PeState;
// What the PE that takes a runtime message of a kind runs (one per Kind but entry, each in the
// service that owns the kind: services/*.hpp; dispatched by core/dispatch.cpp).
using SystemHandler = void(PeState& pe, Message& message);

class MessagePool {
 public:
  MessagePool() = default;
  MessagePool(const MessagePool&) = delete;
  MessagePool& operator=(const MessagePool&) = delete;

  // Owner thread only.
  Message* take() {
    if (free_ == nullptr) refill();
    Message* m = free_;
    free_ = m->next;
    return m;
  }
  // Owner thread only.
  void give_back_local(Message* m) {
    m->next = free_;
    free_ = m;
  }
  // Any other thread.
  void give_back_remote(Message* m) {
    Message* old = returned_.load(std::memory_order_relaxed);
    do {
      m->next = old;
    } while (!returned_.compare_exchange_weak(old, m, std::memory_order_release,
                                              std::memory_order_relaxed));
  }
  std::size_t blocks() const { return slabs_.size() * slab_messages; }

 private:
  static constexpr std::size_t slab_messages = 256;
  void refill();

  Message* free_ = nullptr;
  std::vector<std::unique_ptr<Message[]>> slabs_;
  alignas(64) std::atomic<Message*> returned_{nullptr};
};

// A FIFO of messages linked through `next`.
struct MessageList {
  Message* first = nullptr;
  Message* last = nullptr;

  bool empty() const { return first == nullptr; }
  void push(Message* m) {
    m->next = nullptr;
    if (last == nullptr) {
      first = m;
    } else {
      last->next = m;
    }
    last = m;
  }
  Message* pop() {
    Message* m = first;
    first = m->next;
    if (first == nullptr) last = nullptr;
    return m;
  }
  // Appends the chain `from` .. `to` (linked by `next`, `to`'s next null); null appends nothing.
  void append(Message* from, Message* to) {
    if (from == nullptr) return;
    if (last == nullptr) {
      first = from;
    } else {
      last->next = from;
    }
    last = to;
  }
};

// A message from the calling PE's pool (the heap outside the PEs), header reset.
Message* new_message();
// Destroys its arguments and gives it back to its pool.
void free_message(Message* m) noexcept;
// Gives it back to its pool without destroying its arguments (their bytes moved elsewhere).
void forget_message(Message* m) noexcept;
// Frees a message when it goes out of scope (its handler may throw).
struct MessageRelease {
  Message* message;
  ~MessageRelease() { free_message(message); }
};
// A runtime message carrying `payload`.
Message* new_system_message(Kind kind, CollectionId collection, std::uint64_t element,
                            std::vector<std::byte> payload);

}  // namespace vela::rt::detail
