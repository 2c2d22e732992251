#include "core/message.hpp"

#include <cstring>
#include <new>

#include "core/runtime_state.hpp"

namespace vela::rt::detail {

namespace {

// Arguments too large for a message's inline room, or aligned beyond 8, get their own block.
constexpr std::align_val_t heap_args_alignment{64};

template <class T>
void destroy_as(void* args) noexcept {
  static_cast<T*>(args)->~T();
}

[[noreturn]] void no_invoke(ElementBase&, void*) {
  throw std::logic_error("a runtime message was delivered as an entry method");
}

// The runtime's byte payloads: a packed vector, raw bytes, bytes inline in the message.
std::span<const std::byte> bytes_of(const std::vector<std::byte>& bytes) {
  return bytes;
}
std::span<const std::byte> bytes_of(const RawBytes& raw) {
  return {raw.data.get(), raw.size};
}
std::span<const std::byte> bytes_of(const InlineBytes& bytes) {
  return {bytes.data, bytes.size};
}
template <class T>
std::size_t payload_size(void* args) {
  return bytes_of(*static_cast<T*>(args)).size();
}
template <class T>
void payload_pack(void* args, std::vector<std::byte>& out) {
  const std::span<const std::byte> bytes = bytes_of(*static_cast<T*>(args));
  out.insert(out.end(), bytes.begin(), bytes.end());
}
template <class T>
void payload_pack_to(void* args, std::span<std::byte> out) {
  const std::span<const std::byte> bytes = bytes_of(*static_cast<T*>(args));
  if (!bytes.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
}
std::size_t call_size(void*) {
  return 0;
}
[[noreturn]] void call_pack(void*, std::vector<std::byte>&) {
  throw std::logic_error("a function call cannot leave its process");
}
[[noreturn]] void call_pack_to(void*, std::span<std::byte>) {
  throw std::logic_error("a function call cannot leave its process");
}

template <class T>
constexpr ArgsOps payload_ops{&no_invoke, &destroy_as<T>, &payload_size<T>, &payload_pack<T>,
                              &payload_pack_to<T>};

}  // namespace

const ArgsOps packed_args = payload_ops<std::vector<std::byte>>;
const ArgsOps raw_args = payload_ops<RawBytes>;
const ArgsOps inline_args = payload_ops<InlineBytes>;
const ArgsOps call_args{&no_invoke, &destroy_as<CallArgs>, &call_size, &call_pack, &call_pack_to};

std::span<const std::byte> Message::payload() {
  if (ops == &packed_args) return bytes_of(*static_cast<std::vector<std::byte>*>(args()));
  if (ops == &raw_args) return bytes_of(*static_cast<RawBytes*>(args()));
  if (ops == &inline_args) return bytes_of(*static_cast<InlineBytes*>(args()));
  return {};
}

void MessagePool::refill() {
  free_ = returned_.exchange(nullptr, std::memory_order_acquire);
  if (free_ != nullptr) return;
  auto slab = std::make_unique<Message[]>(slab_messages);
  for (std::size_t i = 0; i < slab_messages; ++i) {
    slab[i].pool = this;
    slab[i].next = i + 1 < slab_messages ? &slab[i + 1] : nullptr;
  }
  free_ = &slab[0];
  slabs_.push_back(std::move(slab));
}

Message* new_message() {
  PeState* pe = this_pe();
  Message* m = pe != nullptr ? pe->pool.take() : new Message;
  // Reset the header; the pool pointer stays.
  m->next = nullptr;
  m->ops = nullptr;
  m->element = 0;
  m->sender = -1;
  m->collection = 0;
  m->handler = 0;
  m->priority = 0;
  m->origin = pe != nullptr ? pe->id : -1;
  m->hops = 0;
  m->kind = Kind::entry;
  m->args_on_heap = false;
  m->broadcast = false;
  return m;
}

void free_message(Message* m) noexcept {
  if (m->ops != nullptr) {
    void* args = m->args();
    m->ops->destroy(args);
    if (m->args_on_heap) ::operator delete(args, heap_args_alignment);
  }
  forget_message(m);
}

void forget_message(Message* m) noexcept {
  MessagePool* pool = m->pool;
  if (pool == nullptr) {
    delete m;
    return;
  }
  PeState* pe = this_pe();
  if (pe != nullptr && &pe->pool == pool) {
    pool->give_back_local(m);
  } else {
    pool->give_back_remote(m);
  }
}

Message* new_system_message(Kind kind, CollectionId collection, std::uint64_t element,
                            std::vector<std::byte> payload) {
  static_assert(sizeof(std::vector<std::byte>) <= Message::inline_bytes);
  Message* m = new_message();
  m->kind = kind;
  m->priority = system_priority;
  m->collection = collection;
  m->element = element;
  ::new (m->storage) std::vector<std::byte>(std::move(payload));
  m->ops = &packed_args;
  return m;
}

Outgoing new_entry_message(const ArgsOps& ops, std::size_t size, std::size_t align) {
  Message* m = new_message();
  void* args = m->storage;
  if (align > static_cast<std::size_t>(heap_args_alignment)) {
    throw std::invalid_argument("entry method arguments aligned beyond 64 bytes");
  }
  if (size > Message::inline_bytes || align > 8) {
    try {
      args = ::operator new(size, heap_args_alignment);
    } catch (...) {
      free_message(m);
      throw;
    }
    *reinterpret_cast<void**>(m->storage) = args;
    m->args_on_heap = true;
  }
  m->ops = &ops;
  return {m, args};
}

void discard_message(const Outgoing& out) noexcept {
  if (out.message->args_on_heap) ::operator delete(out.args, heap_args_alignment);
  out.message->ops = nullptr;
  out.message->args_on_heap = false;
  free_message(out.message);
}

}  // namespace vela::rt::detail
