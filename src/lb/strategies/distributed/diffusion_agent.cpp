// The diffusion agent (seed 000 §3.11.2): one invocation of diffusion.cpp's sweep, each
// PE running its own local step with what its neighbour PEs tell it.
//
// Finding the neighbours. A PE knows what its own objects sent (its out-edges) but not who sent
// to them, nor where the objects its objects sent to live. So it sends each out-edge to the PE
// it believes holds the far end (Locator: its location table, else the object's home), which
// passes it on if it does not hold it (as messages are forwarded) and, when it does, records
// the edge as one of its own objects' in-edges and acknowledges to the sender. Once every
// agent has all its acknowledgements, every edge touching its objects is known to it, with the
// PE each far end started on; but an agent cannot know by itself that no more in-edges are on
// their way, so the transport runs a barrier here (at_barrier). The neighbour PEs are then those
// holding an object adjacent to one of the PE's objects, a symmetric relation.
//
// The sweep. Offline, PE i's step sees the PE times left by every step of a lower id, and only
// a neighbour's step can move objects to i (an object only goes to a PE it talks to). So each
// agent walks its neighbours and itself in id order: on reaching neighbour j it tells j its
// work and background (its time before j's turn: every step of lower id that could touch it
// is applied), then waits for j's result if j is another PE; on reaching itself it waits for
// every neighbour's time, runs the step, and sends every neighbour a result: the objects it
// moved that neighbour talks to, and those it gave that neighbour with their loads and edges
// (the receiver's later connectivity checks walk them). Step i then waits only on steps of lower
// id, so the sweep cannot deadlock, and every PE applies the loads it receives in sweep order:
// each sum is the offline one, in the same order, and so is every decision.
#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "agents.hpp"
#include "kernels/pe_times.hpp"

namespace vela::lb::builtin {

namespace {

class DiffusionAgent final : public DistributedAgent {
 public:
  DiffusionAgent(LocalView view, double tolerance, std::size_t max_moves, Locator locate)
      : view_(std::move(view)),
        tolerance_(tolerance),
        max_moves_(max_moves),
        locate_(std::move(locate)) {
    if (view_.pe < 0 || view_.pe >= view_.pes ||
        view_.speeds.size() != static_cast<std::size_t>(view_.pes)) {
      throw std::invalid_argument("diffusion agent: PE " + std::to_string(view_.pe) + " of " +
                                  std::to_string(view_.pes) + " with " +
                                  std::to_string(view_.speeds.size()) + " speeds");
    }
    if (!locate_) throw std::invalid_argument("diffusion agent: no locator");
  }

  void start(std::vector<AgentMessage>& out) override {
    const std::size_t n = view_.objects.size();
    adjacency_.resize(n);
    moved_own_.assign(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
      own_.emplace(view_.objects[i].id, static_cast<std::uint32_t>(i));
      start_pe_.emplace(view_.objects[i].id, view_.pe);
    }
    // Undirected, self-loops dropped, duplicates kept, as diffusion.cpp's Adjacency.
    std::map<ObjectPosition, std::vector<ObjectPosition>> remote;  // far end -> senders here
    for (const auto& [from, to] : view_.edges) {
      const auto at = own_.find(from);
      if (at == own_.end()) {
        throw std::invalid_argument("diffusion agent: an edge from object " + std::to_string(from) +
                                    ", not one of PE " + std::to_string(view_.pe) + "'s");
      }
      if (from == to) continue;
      adjacency_[at->second].push_back(to);
      const auto other = own_.find(to);
      if (other != own_.end()) {
        adjacency_[other->second].push_back(from);
      } else {
        remote[to].push_back(from);
      }
    }
    awaited_acks_ = remote.size();
    std::map<PeId, std::vector<std::uint64_t>> by_pe;
    for (const auto& [x, senders] : remote) append_entry(by_pe[where(x)], x, senders);
    for (auto& [pe, entries] : by_pe) send_edges(out, pe, view_.pe, std::move(entries));
  }

  void receive(const AgentMessage& m, std::vector<AgentMessage>& out) override {
    switch (m.tag) {
      case kDiffusionEdges:
        take_edges(m, out);
        return;
      case kDiffusionAck:
        for (const std::uint64_t x : m.ints) {
          // The object may be known already, as the sender of an in-edge.
          const auto [at, fresh] = start_pe_.emplace(static_cast<ObjectPosition>(x), m.from);
          if (awaited_acks_ == 0 || (!fresh && at->second != m.from)) {
            fail("an acknowledgement not asked for", m);
          }
          --awaited_acks_;
        }
        return;
      case kDiffusionTime:
        if (m.reals.size() != 2 ||
            !times_.emplace(m.from, Neighbour{m.reals[0], m.reals[1]}).second) {
          fail("a malformed or repeated time", m);
        }
        break;
      case kDiffusionResult:
        if (!results_.emplace(m.from, m).second) fail("a repeated result", m);
        break;
      default:
        fail("an unknown tag", m);
    }
    if (passed_) advance(out);
  }

  bool at_barrier() const override { return !passed_ && awaited_acks_ == 0; }

  void pass_barrier(std::vector<AgentMessage>& out) override {
    if (!at_barrier()) throw std::logic_error("diffusion agent: barrier passed too early");
    passed_ = true;
    std::set<PeId> neighbours;
    for (std::size_t i = 0; i < view_.objects.size(); ++i) {
      bool boundary = false;
      for (const ObjectPosition x : adjacency_[i]) {
        const PeId p = start_pe_.at(x);
        if (p == view_.pe) continue;
        boundary = true;
        neighbours.insert(p);
      }
      if (boundary) boundary_.push_back(static_cast<std::uint32_t>(i));
    }
    neighbours_.assign(neighbours.begin(), neighbours.end());
    turns_ = neighbours_;
    turns_.insert(std::upper_bound(turns_.begin(), turns_.end(), view_.pe), view_.pe);
    // In index order from 0.0, as pe_work sums.
    for (const LocalObject& o : view_.objects) work_ += o.load;
    advance(out);
  }

  bool done() const override { return passed_ && next_ == turns_.size(); }

  const std::vector<std::pair<ObjectPosition, PeId>>& moves() const override { return moves_; }

 private:
  struct Neighbour {
    double work = 0.0;
    double background = 0.0;
  };
  struct Arrival {  // an object another PE's step gave this one
    double load = 0.0;
    std::vector<ObjectPosition> adjacency;
  };

  [[noreturn]] void fail(const std::string& what, const AgentMessage& m) const {
    throw std::logic_error("diffusion agent on PE " + std::to_string(view_.pe) + ": " + what +
                           " (tag " + std::to_string(m.tag) + ") from PE " +
                           std::to_string(m.from));
  }

  PeId where(ObjectPosition x) const {
    const PeId p = locate_(x);
    if (p == view_.pe || p < 0 || p >= view_.pes) {
      throw std::logic_error("diffusion agent on PE " + std::to_string(view_.pe) + ": object " +
                             std::to_string(x) + " is not here and its location names PE " +
                             std::to_string(p));
    }
    return p;
  }

  static void append_entry(std::vector<std::uint64_t>& entries, ObjectPosition x,
                           const std::vector<ObjectPosition>& senders) {
    entries.push_back(x);
    entries.push_back(senders.size());
    entries.insert(entries.end(), senders.begin(), senders.end());
  }

  void send(std::vector<AgentMessage>& out, PeId to, AgentTag tag, AgentMessage m) const {
    m.from = view_.pe;
    m.to = to;
    m.tag = tag;
    out.push_back(std::move(m));
  }

  // Edges to objects: [origin, then per far end x: x, count, the senders on the origin].
  void send_edges(std::vector<AgentMessage>& out, PeId to, PeId origin,
                  std::vector<std::uint64_t> entries) const {
    AgentMessage m;
    m.ints.reserve(entries.size() + 1);
    m.ints.push_back(static_cast<std::uint64_t>(origin));
    m.ints.insert(m.ints.end(), entries.begin(), entries.end());
    send(out, to, kDiffusionEdges, std::move(m));
  }

  void take_edges(const AgentMessage& m, std::vector<AgentMessage>& out) {
    if (passed_ || m.ints.empty()) fail("edges after the barrier, or none", m);
    const auto origin = static_cast<PeId>(m.ints[0]);
    AgentMessage ack;
    std::map<PeId, std::vector<std::uint64_t>> onward;
    for (std::size_t at = 1; at < m.ints.size();) {
      if (at + 2 > m.ints.size() || at + 2 + m.ints[at + 1] > m.ints.size()) {
        fail("malformed edges", m);
      }
      const auto x = static_cast<ObjectPosition>(m.ints[at]);
      const auto count = static_cast<std::size_t>(m.ints[at + 1]);
      const auto first = m.ints.begin() + static_cast<std::ptrdiff_t>(at + 2);
      const auto own = own_.find(x);
      if (own == own_.end()) {
        append_entry(onward[where(x)], x, {first, first + static_cast<std::ptrdiff_t>(count)});
      } else {
        for (std::size_t k = 0; k < count; ++k) {
          const auto v = static_cast<ObjectPosition>(first[static_cast<std::ptrdiff_t>(k)]);
          adjacency_[own->second].push_back(v);
          start_pe_.emplace(v, origin);
        }
        ack.ints.push_back(x);
      }
      at += 2 + count;
    }
    if (!ack.ints.empty()) send(out, origin, kDiffusionAck, std::move(ack));
    for (auto& [pe, entries] : onward) send_edges(out, pe, origin, std::move(entries));
  }

  double time_of(PeId p) const {
    const auto i = static_cast<std::size_t>(p);
    if (p == view_.pe) return view_.background + work_ / view_.speeds[i];
    const Neighbour& n = times_.at(p);
    return n.background + n.work / view_.speeds[i];
  }

  // Walks the turns in id order as far as what has arrived allows.
  void advance(std::vector<AgentMessage>& out) {
    for (; next_ < turns_.size(); ++next_, told_ = false) {
      const PeId turn = turns_[next_];
      if (turn != view_.pe && !told_) {
        AgentMessage m;
        m.reals = {work_, view_.background};
        send(out, turn, kDiffusionTime, std::move(m));
        told_ = true;
      }
      if (turn == view_.pe) {
        if (times_.size() < neighbours_.size()) return;
        step(out);
        continue;
      }
      const auto result = results_.find(turn);
      if (result == results_.end()) return;
      apply(result->second);
      results_.erase(result);
    }
  }

  // Another PE's step: what it moved that this PE talks to, and what it gave this PE.
  // Result layout: ints [gone count, gone..., then per arrival: object, edge count, edges...],
  // reals [each arrival's load].
  void apply(const AgentMessage& m) {
    if (m.ints.empty() || 1 + m.ints[0] > m.ints.size()) fail("a malformed result", m);
    const std::size_t gone = m.ints[0];
    for (std::size_t k = 1; k <= gone; ++k)
      moved_away_.insert(static_cast<ObjectPosition>(m.ints[k]));
    std::size_t arrival = 0;
    for (std::size_t at = 1 + gone; at < m.ints.size(); ++arrival) {
      if (at + 2 > m.ints.size() || at + 2 + m.ints[at + 1] > m.ints.size() ||
          arrival >= m.reals.size()) {
        fail("a malformed result", m);
      }
      const auto x = static_cast<ObjectPosition>(m.ints[at]);
      const auto first = m.ints.begin() + static_cast<std::ptrdiff_t>(at + 2);
      Arrival a{m.reals[arrival], {first, first + static_cast<std::ptrdiff_t>(m.ints[at + 1])}};
      work_ += a.load;  // in the giver's move order, as the offline sweep adds
      moved_away_.insert(x);
      arrived_.emplace(x, std::move(a));
      at += 2 + m.ints[at + 1];
    }
    if (arrival != m.reals.size()) fail("a malformed result", m);
  }

  // diffusion.cpp's balance_pe, on what this PE knows.
  void step(std::vector<AgentMessage>& out) {
    std::vector<PeId> lower;
    for (const PeId j : neighbours_) {
      if (time_of(j) < time_of(view_.pe)) lower.push_back(j);
    }
    std::sort(lower.begin(), lower.end(), [&](PeId a, PeId b) {
      return time_of(a) < time_of(b) || (time_of(a) == time_of(b) && a < b);
    });
    std::size_t moves = 0;
    for (const PeId j : lower) {
      if (max_moves_ != 0 && moves >= max_moves_) break;
      moves += balance_pair(j, max_moves_ == 0 ? 0 : max_moves_ - moves);
    }
    send_results(out);
  }

  // An object of another PE that is still where it started, on `pe`.
  bool unmoved_on(ObjectPosition x, PeId pe) const {
    return start_pe_.at(x) == pe && !moved_away_.contains(x);
  }

  // An object on this PE now: one of its own not given away, or one it was given.
  bool here(ObjectPosition x) const {
    const auto own = own_.find(x);
    if (own != own_.end()) return moved_own_[own->second] == 0;
    return arrived_.contains(x);
  }

  const std::vector<ObjectPosition>& adjacency_of(ObjectPosition x) const {
    const auto own = own_.find(x);
    if (own != own_.end()) return adjacency_[own->second];
    return arrived_.at(x).adjacency;
  }

  std::size_t balance_pair(PeId j, std::size_t budget) {
    const double speed_j = view_.speeds[static_cast<std::size_t>(j)];
    std::vector<LoadedObject> candidates;
    for (const std::uint32_t i : boundary_) {
      const LocalObject& o = view_.objects[i];
      if (moved_own_[i] != 0 || !o.migratable || !(o.load > 0.0)) continue;
      for (const ObjectPosition x : adjacency_[i]) {
        if (unmoved_on(x, j)) {
          candidates.push_back({o.load, o.id});
          break;
        }
      }
    }
    sort_heaviest_first(candidates);
    std::size_t moves = 0;
    for (const LoadedObject& c : candidates) {
      if (budget != 0 && moves >= budget) break;
      if (time_of(view_.pe) <= (1.0 + tolerance_) * time_of(j)) break;
      if (!(c.load / speed_j < time_of(view_.pe) - time_of(j))) continue;
      if (!keeps_connected(c.index)) continue;
      const std::uint32_t i = own_.at(c.index);
      moved_own_[i] = 1;
      work_ -= c.load;
      times_.at(j).work += c.load;
      moves_.emplace_back(c.index, j);
      ++moves;
    }
    return moves;
  }

  // Whether giving away `o` keeps its neighbours here mutually reachable (diffusion.cpp's
  // keeps_connected, over the objects here now: a search that stops once all are reached).
  bool keeps_connected(ObjectPosition o) const {
    std::unordered_set<ObjectPosition> targets;
    ObjectPosition first = 0;
    for (const ObjectPosition x : adjacency_of(o)) {
      if (!here(x) || !targets.insert(x).second) continue;
      if (targets.size() == 1) first = x;
    }
    if (targets.size() <= 1) return true;
    std::unordered_set<ObjectPosition> seen = {first, o};
    std::vector<ObjectPosition> queue = {first};
    std::size_t reached = 1;
    for (std::size_t head = 0; head < queue.size(); ++head) {
      for (const ObjectPosition x : adjacency_of(queue[head])) {
        if (!here(x) || !seen.insert(x).second) continue;
        if (targets.contains(x) && ++reached == targets.size()) return true;
        queue.push_back(x);
      }
    }
    return false;
  }

  void send_results(std::vector<AgentMessage>& out) {
    std::map<PeId, std::vector<std::uint64_t>> gone;
    std::map<PeId, AgentMessage> given;
    for (const auto& [object, to] : moves_) {
      const std::uint32_t i = own_.at(object);
      AgentMessage& m = given[to];
      m.ints.push_back(object);
      m.ints.push_back(adjacency_[i].size());
      m.ints.insert(m.ints.end(), adjacency_[i].begin(), adjacency_[i].end());
      m.reals.push_back(view_.objects[i].load);
      // Every other neighbour this object talks to must learn that it is gone.
      std::set<PeId> told;
      for (const ObjectPosition x : adjacency_[i]) {
        const PeId p = start_pe_.at(x);
        if (p != view_.pe && p != to && told.insert(p).second) gone[p].push_back(object);
      }
    }
    for (const PeId j : neighbours_) {
      AgentMessage m;
      const std::vector<std::uint64_t>& g = gone[j];
      m.ints.push_back(g.size());
      m.ints.insert(m.ints.end(), g.begin(), g.end());
      const auto it = given.find(j);
      if (it != given.end()) {
        m.ints.insert(m.ints.end(), it->second.ints.begin(), it->second.ints.end());
        m.reals = std::move(it->second.reals);
      }
      send(out, j, kDiffusionResult, std::move(m));
    }
  }

  LocalView view_;
  double tolerance_;
  std::size_t max_moves_;
  Locator locate_;
  std::unordered_map<ObjectPosition, std::uint32_t> own_;  // object -> index in view_.objects
  std::vector<std::vector<ObjectPosition>> adjacency_;     // of each own object
  std::unordered_map<ObjectPosition, PeId> start_pe_;      // own objects and every object adjacent
  std::size_t awaited_acks_ = 0;
  bool passed_ = false;
  std::vector<std::uint32_t> boundary_;  // own objects talking to another PE, index order
  std::vector<PeId> neighbours_;         // ascending
  std::vector<PeId> turns_;              // the neighbours and this PE, ascending
  std::size_t next_ = 0;                 // the turn under way
  bool told_ = false;                    // its PE has this PE's time
  double work_ = 0.0;
  std::map<PeId, Neighbour> times_;                      // each neighbour's, before this turn
  std::map<PeId, AgentMessage> results_;                 // steps not yet applied
  std::unordered_set<ObjectPosition> moved_away_;        // other PEs' objects their step moved
  std::unordered_map<ObjectPosition, Arrival> arrived_;  // objects given to this PE
  std::vector<char> moved_own_;
  std::vector<std::pair<ObjectPosition, PeId>> moves_;
};

}  // namespace

std::unique_ptr<DistributedAgent> make_diffusion_agent(LocalView view, double tolerance,
                                                       std::size_t max_moves, Locator locate) {
  return std::make_unique<DiffusionAgent>(std::move(view), tolerance, max_moves, std::move(locate));
}

}  // namespace vela::lb::builtin
