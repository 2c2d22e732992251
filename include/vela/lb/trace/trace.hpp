// Load traces: the per-step loads of a set of objects over many steps, with the objects created
// and deleted along the way and the instance they belong to. Formats in docs/trace-format.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "vela/lb/model/instance.hpp"

namespace vela::lb {

// Communication between two objects named by id (positions change as objects come and go).
struct TraceEdge {
  ObjectId from = 0;
  ObjectId to = 0;
  std::uint64_t messages = 0;
  std::uint64_t bytes = 0;

  friend bool operator==(const TraceEdge&, const TraceEdge&) = default;
};

// One step. Applied in this order to the objects alive after the previous step:
//  1. `deleted`: these objects (by id, each alive) disappear;
//  2. `created`: these objects appear (ids never used before in the trace), appended in this
//     order; Object::pe is where the application creates them, Object::load is ignored;
//  3. `edges`, when `replaces_edges` is true: the communication from this step on (by id, both
//     ends alive); otherwise the edges carry on, less those touching a deleted object (and
//     `edges` must be empty);
//  4. `loads`: one load per alive object, in alive order (the initial objects in instance
//     order, less the deleted ones, then the created ones in creation order).
struct TraceStep {
  std::vector<ObjectId> deleted;
  std::vector<Object> created;
  bool replaces_edges = false;
  std::vector<TraceEdge> edges;
  std::vector<double> loads;

  friend bool operator==(const TraceStep&, const TraceStep&) = default;
};

struct Trace {
  // The objects alive before step 0 (ids, sizes, coords, initial PEs, migratable; their loads
  // are the loads of the step before the trace starts), the PEs, and the edges before step 0
  // (by position, as in any instance).
  Instance initial;
  std::vector<TraceStep> steps;
};

// Raised for a trace that breaks the rules above or a file that cannot be read; the message
// names the file, the step and the element.
class TraceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Checks every rule (the initial instance's, plus those of each step above); throws TraceError
// naming the first offending step and element.
void validate(const Trace& trace);

// Walks a trace step by step, keeping the placement of the objects that are alive. The trace must
// outlive the cursor. A step that breaks the rules above (an unvalidated trace) throws TraceError.
class TraceCursor {
 public:
  explicit TraceCursor(const Trace& trace);

  // Applies the next step; false when there is none left. Before the first call, instance()
  // is the trace's initial instance.
  bool next();
  // Steps applied so far (the current step is steps_done() - 1).
  std::size_t steps_done() const { return done_; }

  // The alive objects in alive order with the current step's loads and their current PEs,
  // the PEs, and the current edges by position.
  const Instance& instance() const { return instance_; }

  // Places the alive objects as `assignment` says (one PE per alive object, alive order).
  void assign(const Assignment& assignment);
  // Places the objects named by id; ids no longer alive are skipped and alive objects not
  // named keep their PE (an assignment computed on an older step). Returns how many
  // objects it moved. A PE out of range throws InstanceError and places nothing.
  std::size_t assign_by_id(const std::vector<std::pair<ObjectId, PeId>>& placement);

 private:
  // Each object takes the next slot when it appears, so alive order is slot order and a deletion
  // only renumbers positions, without hashing every alive id again.
  static constexpr std::uint32_t dead = UINT32_MAX;
  std::uint32_t position(ObjectId id) const;  // `dead` when the id is not alive
  void remove(const TraceStep& step);
  void replace_edges(const std::vector<TraceEdge>& edges);

  const Trace* trace_;
  std::size_t done_ = 0;
  Instance instance_;
  std::vector<TraceEdge> edges_;                      // current edges by id, as instance_.edges
  std::unordered_map<ObjectId, std::uint32_t> slot_;  // alive id -> its slot
  std::vector<std::uint32_t> slots_;                  // slot of each alive object, alive order
  std::vector<std::uint32_t> position_of_slot_;       // slot -> index in instance_, or dead
};

// The most loads (objects alive, summed over the initial instance and every step: 2 GiB of
// doubles) and PEs that generate_trace makes and import_vt reads: checked before anything is
// allocated, so that a mistyped size is an error rather than a run that ends out of memory.
inline constexpr std::uint64_t max_trace_loads = std::uint64_t{1} << 28;
inline constexpr std::int64_t max_trace_pes = std::int64_t{1} << 24;

// Formats. JSON for reading and editing, binary (little-endian, documented) for size and speed;
// read_trace tells them apart by the binary magic. Both round-trip exactly. Both writers refuse
// an invalid trace, and replace an existing file only once the new one is complete. Traces carry
// no hyperedges: validate rejects an initial instance that has some.
inline constexpr int trace_format_version = 1;

Trace read_trace(const std::string& path);
void write_trace_json(const Trace& trace, const std::string& path);
void write_trace_binary(const Trace& trace, const std::string& path);

}  // namespace vela::lb
