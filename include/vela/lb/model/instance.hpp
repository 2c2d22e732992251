// The load-balancing problem as one value: objects, PEs and the communication between objects.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace vela::lb {

using ObjectId = std::int64_t;
using PeId = std::int32_t;

// A migratable unit of work. `load` is work in seconds on a PE of speed 1.
struct Object {
  ObjectId id = 0;
  double load = 0.0;
  std::uint64_t size = 0;  // bytes moved when the object migrates
  std::array<double, 3> coords{};
  PeId pe = 0;  // where the object is now
  bool migratable = true;

  friend bool operator==(const Object&, const Object&) = default;
};

// A processing element. A PE of speed s runs work w in w / s seconds; `background` is
// seconds per step already spent on the PE by non-object work (its own time, not scaled).
struct Pe {
  double speed = 1.0;
  double background = 0.0;
  std::int32_t cluster = 0;
};

// Directed communication between two objects, by position in Instance::objects.
struct Edge {
  std::uint32_t from = 0;
  std::uint32_t to = 0;
  std::uint64_t messages = 0;
  std::uint64_t bytes = 0;
};

// Data shared by several objects each step, such as a particle that the work units around it
// all read: a PE that holds any of the pins but not the data's owner needs a copy. `pins` are
// positions in Instance::objects (at least 2, no repeats); `bytes` is the data's size per step.
// Placing the pins on k distinct PEs costs bytes * (k - 1) (the hypergraph cut, metrics.hpp).
struct Hyperedge {
  std::vector<std::uint32_t> pins;
  std::uint64_t bytes = 0;

  friend bool operator==(const Hyperedge&, const Hyperedge&) = default;
};

struct Instance {
  int dims = 0;  // how many of Object::coords are meaningful (0 to 3)
  std::vector<Object> objects;
  std::vector<Pe> pes;
  std::vector<Edge> edges;
  std::vector<Hyperedge> hyperedges;  // may be empty; independent of `edges`
};

// Where each object goes: pe[i] is the PE of Instance::objects[i].
struct Assignment {
  std::vector<PeId> pe;

  friend bool operator==(const Assignment&, const Assignment&) = default;
};

// The placement the instance describes now.
Assignment current_assignment(const Instance& instance);

// Raised for an instance or input that breaks the model's rules; the message names the
// element and the problem.
class InstanceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Checks every rule of the model (ids unique, loads finite and >= 0, PEs valid, edges in range,
// speeds > 0, dims in 0..3, hyperedges with at least 2 pins, all in range and none repeated);
// throws InstanceError naming the first offending element.
void validate(const Instance& instance);

// The communication as hyperedges: `instance.hyperedges` when there are any. Otherwise one net
// per object that sends on an edge: the object and every other object it sends to (the
// column-net model: the object's data goes to each PE holding a receiver), in index order with
// the sender first; its bytes are the mean bytes per receiver, rounded up. Self edges are
// ignored. O(edges log edges).
std::vector<Hyperedge> communication_nets(const Instance& instance);

// Checks that `assignment` gives every object of `instance` a valid PE.
void validate(const Instance& instance, const Assignment& assignment);

}  // namespace vela::lb
