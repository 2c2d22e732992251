// The hypergraph strategy's last step: a partitioner that bisects recursively can miss its
// tolerance when a few objects each carry a large part of a PE's share. This moves (or swaps)
// objects off PEs above it, each time the change that adds least to the hypergraph cut.
#pragma once

#include <cstddef>
#include <vector>

#include "vela/lb/model/instance.hpp"

namespace vela::lb::builtin {

// While the busiest PE's time exceeds `tolerance` * ideal_time(instance), moves one of its
// migratable objects to a PE that stays within that bound: among the PEs that share a net with
// the object (and the least busy PE), the move that raises the cut of `nets` least; ties go to
// the heavier object, then to the lower object index and PE. When no single move helps, swaps
// one of its objects with a lighter one of such a PE (or of one of the least busy PEs), by the
// same rules. Stops when the busiest PE is within the bound or has neither. Returns the number
// of objects moved (a swap moves two).
std::size_t repair_balance(const Instance& instance, const std::vector<Hyperedge>& nets,
                           double tolerance, Assignment& assignment);

}  // namespace vela::lb::builtin
