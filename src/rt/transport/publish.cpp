// Publishing collections: process 0, where main runs and every collection is created, sends
// each other process the new collection's description (id, name, shape, initial placement,
// factory, creation arguments, whether it is dynamic) before any message about it; a process learns
// it and releases the messages held for it (router.hpp). Both ends of the description's format are
// here.
//
// Invariants: descriptions come in id order from process 0 alone (its outbox keeps their order),
// so a process learns collection ids one after another; a message about a collection can
// overtake its description only when it comes from a third process, and then it is held.
//
// Costs: once per collection and process, a control message of the description's size (the
// creation arguments included).
#include <memory>

#include "impl.hpp"

namespace vela::rt::detail {

void Transport::publish_collection(const CollectionInfo& info) {
  std::vector<std::byte> bytes;
  pup::pack_values(bytes, info.id, info.name, info.shape.nx, info.shape.ny, info.shape.nz,
                   info.shape.dims, info.home, info.factory, info.arguments, info.dynamic);
  impl_->queue_all(mpi_transport::tag_collection, bytes);
}

void mpi_transport::Router::learn_collection(const std::vector<std::byte>& bytes) {
  pup::Unpacker in(bytes);
  auto info = std::make_unique<CollectionInfo>();
  in | info->id | info->name | info->shape.nx | info->shape.ny | info->shape.nz | info->shape.dims |
      info->home | info->factory | info->arguments | info->dynamic;
  in.expect_end();
  info->geometry = info->shape;  // until a program declares another (set_collection_geometry)
  const CollectionId id = info->id;
  if (id != state.collection_count.load(std::memory_order_relaxed) ||
      id >= RuntimeState::max_collections) {
    return;  // out of order: cannot happen (one sender, ordered)
  }
  state.collections[id] = std::move(info);
  state.collection_count.store(id + 1, std::memory_order_release);
  auto it = held.find(id);
  if (it == held.end()) return;
  for (auto [m, local] : it->second) state.pe[static_cast<std::size_t>(local)]->inbox.push(m);
  held.erase(it);
}

}  // namespace vela::rt::detail
