// The distributed strategies as they run on the PEs themselves (hilbert-distributed and
// diffusion): one agent per PE that knows only its own PE's objects and what they sent, and
// exchanges messages only with the PEs its algorithm names. A transport (the runtime's system
// messages, or a simulation) carries the messages; the agents reach the same assignment as the
// offline strategy of the same name on the instance made of every agent's view.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "vela/lb/model/instance.hpp"
#include "vela/lb/model/params.hpp"

namespace vela::lb {

// Objects are named by their position in the instance (the runtime's linear index).
using ObjectPosition = std::uint32_t;

// What one agent sends another: a tag and numbers, so a transport carries it without knowing
// what it means. Messages between two agents may arrive in any order.
struct AgentMessage {
  PeId from = 0;
  PeId to = 0;
  std::uint32_t tag = 0;
  std::vector<std::uint64_t> ints;
  std::vector<double> reals;
};

// The tags, for transports and tests that count messages by kind.
enum AgentTag : std::uint32_t {
  // hilbert-distributed
  kHilbertLoads = 1,   // holder -> segment owner: its objects' curve positions and loads
  kHilbertScan = 2,    // owner s -> owner s + 2^k: the scan's window after round k - 1
  kHilbertTotal = 3,   // owner -> owner: the total, down a binomial tree rooted at owner P - 1
  kHilbertAnswer = 4,  // owner -> holder: where each of the holder's objects goes
  // diffusion
  kDiffusionEdges = 11,  // origin -> the PE it believes holds an object: edges to that object
  kDiffusionAck = 12,    // holder -> origin: "these objects are mine"
  kDiffusionTime = 13,   // PE -> neighbour PE: its work and background before the other's turn
  kDiffusionResult = 14  // PE -> neighbour PE: what its local step moved (after its turn)
};

// What one PE knows at a balancing step.
struct LocalObject {
  ObjectPosition id = 0;
  double load = 0.0;  // work on a PE of speed 1
  bool migratable = true;
};
struct LocalView {
  PeId pe = 0;
  PeId pes = 1;                                                  // of the whole run
  std::uint64_t objects_total = 0;                               // every PE's objects together
  double background = 0.0;                                       // this PE's
  std::vector<double> speeds;                                    // every PE's
  std::vector<LocalObject> objects;                              // this PE's, ascending id
  std::vector<std::pair<ObjectPosition, ObjectPosition>> edges;  // from one of this PE's objects
};

// Every object's place on the Hilbert curve: `order` as hilbert_order gives it, `rank` its
// inverse (the position on the curve of each object). The same in every agent.
struct CurvePositions {
  std::vector<ObjectPosition> order;
  std::vector<ObjectPosition> rank;
};
// From an instance that needs only its dims and its objects' coordinates.
CurvePositions curve_positions(const Instance& coordinates, int bits);

// Where a PE believes object `x` lives (its location table, else the object's home); the
// diffusion agent sends edges there, and a PE that does not hold `x` passes them on to its own
// belief, as the runtime forwards messages. Must not name the asking PE for an object it does
// not hold.
using Locator = std::function<PeId(ObjectPosition x)>;

class DistributedAgent {
 public:
  virtual ~DistributedAgent() = default;
  // Starts the step; the messages to send are appended to `out`.
  virtual void start(std::vector<AgentMessage>& out) = 0;
  virtual void receive(const AgentMessage& message, std::vector<AgentMessage>& out) = 0;
  // Waiting at a barrier: the transport calls pass_barrier() on every agent once all of them
  // wait there (diffusion, between finding its neighbours and its sweep).
  virtual bool at_barrier() const { return false; }
  virtual void pass_barrier(std::vector<AgentMessage>& /*out*/) {}
  // Done: every message for this agent has arrived and moves() is final.
  virtual bool done() const = 0;
  // This PE's objects that leave it, and where to, in the order decided.
  virtual const std::vector<std::pair<ObjectPosition, PeId>>& moves() const = 0;
};

// Whether strategy `name` has an agent form.
bool has_distributed_form(const std::string& name);

// The agent of strategy `name` for one PE. `curve` is needed by hilbert-distributed (made with
// the strategy's "bits"), `locate` by diffusion. Throws ParamError for a strategy without an
// agent form.
std::unique_ptr<DistributedAgent> make_agent(const std::string& name, const ParamValues& params,
                                             LocalView view,
                                             std::shared_ptr<const CurvePositions> curve,
                                             Locator locate);

}  // namespace vela::lb
