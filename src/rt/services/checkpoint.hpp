// Checkpoint/restart's state and handlers (services/checkpoint.cpp; the format is in
// docs/file-formats.md).
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "core/message.hpp"
#include "vela/pup/pup.hpp"

namespace vela::rt::detail {

struct PeState;
struct RuntimeState;
struct CollectionInfo;

// One element in a checkpoint: what the runtime keeps of it, then its own state (its pup()).
struct SavedElement {
  std::uint64_t linear = 0;
  std::uint32_t reductions = 0;
  std::vector<std::byte> state;
  void pup(pup::Archive& ar) { ar | linear | reductions | state; }
};
// A PE's part of a checkpoint: its elements and its message counts for the collection.
struct CheckpointPart {
  std::uint64_t sent = 0;
  std::uint64_t delivered = 0;
  std::vector<SavedElement> elements;
  void pup(pup::Archive& ar) { ar | sent | delivered | elements; }
};
// A checkpoint under way, kept by the root (PE 0) per collection.
struct CheckpointRound {
  bool active = false;
  PeId parts = 0;
  CheckpointPart all;
  std::chrono::steady_clock::time_point from;
};
// A PE's part: whether its elements are being packed for a checkpoint (an element whose state
// is only valid in its own process refuses, or packs it whole).
struct PeCheckpoint {
  bool packing = false;
};

SystemHandler on_checkpoint_collect;  // the root asks for this PE's elements
SystemHandler on_checkpoint_part;     // a PE's elements, to the root
// On the root, once every element of `info` reached a sync point: whether a checkpoint is due
// there; if so it is started, and continue_sync() runs once it is written.
bool start_checkpoint(RuntimeState& state, CollectionInfo& info);
// With --restart: instead of building the new collection's elements, restores them from the
// checkpoint and resumes them (called by create_collection, on the root).
void restore_collection(RuntimeState& state, CollectionInfo& info);

}  // namespace vela::rt::detail
