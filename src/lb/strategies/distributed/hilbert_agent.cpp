// The hilbert-distributed agent (seed 000 §3.11.1 and §4.5): hilbert_distributed_cut's
// sums, run by the PEs. Every PE is a holder (of its own objects) and the owner of one curve
// segment (hilbert_segment_begin):
//  1. a holder sends each object's curve position and load to the owner of its segment;
//  2. an owner with all of its segment sums it left to right, then runs the exclusive scan of
//     the segment totals by recursive doubling (owner s sends to s + 2^r and hears from
//     s - 2^r in round r);
//  3. the last owner's window is the total, passed down a binomial tree rooted at it (owner s
//     hears from s + 2^k, the highest bit of its distance P - 1 - s, and passes on to s - 2^k
//     for every larger power of two);
//  4. the owner places each object of its segment alone (hilbert_destination) and tells each
//     holder where its objects go.
// So a PE exchanges with the owners of its objects' segments, the holders of its segment's
// objects and the owners s +- 2^k; each sum is the one hilbert_distributed_cut makes, in the
// same order, so the answer is that function's bit for bit.
#include <bit>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "agents.hpp"
#include "vela/lb/strategies/hilbert.hpp"

namespace vela::lb::builtin {

namespace {

class HilbertAgent final : public DistributedAgent {
 public:
  HilbertAgent(LocalView view, std::shared_ptr<const CurvePositions> curve)
      : view_(std::move(view)), curve_(std::move(curve)) {
    const std::uint64_t n = view_.objects_total;
    if (!curve_ || curve_->order.size() != n || curve_->rank.size() != n) {
      throw std::invalid_argument("hilbert-distributed agent: the curve does not cover the " +
                                  std::to_string(n) + " objects");
    }
    if (view_.pe < 0 || view_.pe >= view_.pes) {
      throw std::invalid_argument("hilbert-distributed agent: PE " + std::to_string(view_.pe) +
                                  " of " + std::to_string(view_.pes));
    }
    const auto pes = static_cast<std::uint64_t>(view_.pes);
    const auto self = static_cast<std::uint64_t>(view_.pe);
    begin_ = hilbert_segment_begin(n, pes, self);
    const std::uint64_t size = hilbert_segment_begin(n, pes, self + 1) - begin_;
    load_.resize(size);
    migratable_.resize(size);
    prefix_load_.resize(size);
    prefix_count_.resize(size);
    holder_.assign(size, -1);
  }

  void start(std::vector<AgentMessage>& out) override {
    const std::uint64_t n = view_.objects_total;
    const auto pes = static_cast<std::uint64_t>(view_.pes);
    std::map<PeId, AgentMessage> by_owner;
    for (const LocalObject& o : view_.objects) {
      if (o.id >= n) {
        throw std::invalid_argument("hilbert-distributed agent: object " + std::to_string(o.id) +
                                    " of " + std::to_string(n));
      }
      const ObjectPosition position = curve_->rank[o.id];
      const auto owner = static_cast<PeId>(hilbert_segment_of(position, n, pes));
      AgentMessage& m = by_owner[owner];
      m.ints.push_back(position);
      m.ints.push_back(o.migratable ? 1 : 0);
      m.reals.push_back(o.load);
    }
    for (auto& [owner, m] : by_owner) send(out, owner, kHilbertLoads, std::move(m));
    advance(out);
  }

  void receive(const AgentMessage& m, std::vector<AgentMessage>& out) override {
    switch (m.tag) {
      case kHilbertLoads:
        take_loads(m);
        break;
      case kHilbertScan:
        if (m.ints.size() != 1 || m.reals.size() != 2 || !scan_in_.emplace(m.ints[0], m).second) {
          fail("a malformed or repeated scan message", m);
        }
        break;
      case kHilbertTotal:
        if (have_total_ || m.reals.size() != 2) fail("a malformed or repeated total", m);
        total_load_ = m.reals[0];
        total_count_ = m.reals[1];
        have_total_ = true;
        break;
      case kHilbertAnswer:
        take_answer(m);
        break;
      default:
        fail("an unknown tag", m);
    }
    advance(out);
  }

  bool done() const override { return answered_ && answers_ == view_.objects.size(); }

  const std::vector<std::pair<ObjectPosition, PeId>>& moves() const override { return moves_; }

 private:
  [[noreturn]] void fail(const std::string& what, const AgentMessage& m) const {
    throw std::logic_error("hilbert-distributed agent on PE " + std::to_string(view_.pe) + ": " +
                           what + " (tag " + std::to_string(m.tag) + ") from PE " +
                           std::to_string(m.from));
  }

  void send(std::vector<AgentMessage>& out, PeId to, AgentTag tag, AgentMessage m) const {
    m.from = view_.pe;
    m.to = to;
    m.tag = tag;
    out.push_back(std::move(m));
  }

  void take_loads(const AgentMessage& m) {
    if (m.ints.size() != 2 * m.reals.size()) fail("malformed loads", m);
    for (std::size_t i = 0; i < m.reals.size(); ++i) {
      const std::uint64_t position = m.ints[2 * i];
      if (position < begin_ || position - begin_ >= holder_.size() ||
          holder_[position - begin_] >= 0) {
        fail("a curve position outside this segment, or twice", m);
      }
      const std::size_t k = position - begin_;
      migratable_[k] = m.ints[2 * i + 1] != 0 ? 1 : 0;
      load_[k] = m.reals[i];
      holder_[k] = m.from;
      ++arrived_;
    }
  }

  void take_answer(const AgentMessage& m) {
    if (m.ints.size() % 2 != 0) fail("a malformed answer", m);
    for (std::size_t i = 0; i < m.ints.size(); i += 2) {
      const auto to = static_cast<PeId>(m.ints[i + 1]);
      if (to != view_.pe) moves_.emplace_back(static_cast<ObjectPosition>(m.ints[i]), to);
      ++answers_;
    }
    if (answers_ > view_.objects.size()) fail("more answers than objects", m);
  }

  // Runs the owner's part as far as what has arrived allows.
  void advance(std::vector<AgentMessage>& out) {
    if (answered_) return;
    const PeId pes = view_.pes;
    const PeId self = view_.pe;
    if (!summed_) {
      if (arrived_ < holder_.size()) return;
      // Left to right from 0.0: hilbert_distributed_cut's local prefixes; the window starts as
      // the segment's total.
      double load = 0.0, count = 0.0;
      for (std::size_t k = 0; k < holder_.size(); ++k) {
        load += migratable_[k] != 0 ? load_[k] : 0.0;
        count += migratable_[k] != 0 ? 1.0 : 0.0;
        prefix_load_[k] = load;
        prefix_count_[k] = count;
      }
      window_load_ = load;
      window_count_ = count;
      summed_ = true;
    }
    // Round r of the scan: send the window held after round r - 1 up, then wait for the one
    // coming from below.
    for (; (std::int64_t{1} << round_) < pes; ++round_, round_sent_ = false) {
      const auto d = static_cast<PeId>(std::int64_t{1} << round_);
      if (!round_sent_) {
        if (self + d < pes) {
          AgentMessage m;
          m.ints = {round_};
          m.reals = {window_load_, window_count_};
          send(out, self + d, kHilbertScan, std::move(m));
        }
        round_sent_ = true;
      }
      if (self < d) continue;
      const auto in = scan_in_.find(round_);
      if (in == scan_in_.end()) return;
      offset_load_ = in->second.reals[0] + offset_load_;
      offset_count_ = in->second.reals[1] + offset_count_;
      window_load_ = in->second.reals[0] + window_load_;
      window_count_ = in->second.reals[1] + window_count_;
      scan_in_.erase(in);
    }
    if (self == pes - 1 && !have_total_) {
      total_load_ = window_load_;
      total_count_ = window_count_;
      have_total_ = true;
    }
    if (!have_total_) return;
    // Down the binomial tree rooted at the last owner, by distance from it: a node at distance
    // r passes the total to r + 2^k for every 2^k above r.
    const auto distance = static_cast<std::uint64_t>(pes - 1 - self);
    for (std::uint64_t step = distance == 0 ? 1 : std::bit_floor(distance) << 1;
         distance + step < static_cast<std::uint64_t>(pes); step <<= 1) {
      AgentMessage m;
      m.reals = {total_load_, total_count_};
      send(out, self - static_cast<PeId>(step), kHilbertTotal, std::move(m));
    }
    // The local rule; every holder hears about each of its objects (those staying too), so it
    // knows when it has all its answers.
    const bool by_count = !(total_load_ > 0.0);
    const double total = by_count ? total_count_ : total_load_;
    std::map<PeId, AgentMessage> by_holder;
    for (std::size_t k = 0; k < holder_.size(); ++k) {
      const ObjectPosition object = curve_->order[begin_ + k];
      PeId to = holder_[k];
      if (migratable_[k] != 0) {
        const double prefix =
            by_count ? offset_count_ + prefix_count_[k] : offset_load_ + prefix_load_[k];
        to = hilbert_destination(prefix, by_count ? 1.0 : load_[k], total, pes);
      }
      AgentMessage& m = by_holder[holder_[k]];
      m.ints.push_back(object);
      m.ints.push_back(static_cast<std::uint64_t>(to));
    }
    for (auto& [holder, m] : by_holder) send(out, holder, kHilbertAnswer, std::move(m));
    answered_ = true;
  }

  LocalView view_;
  std::shared_ptr<const CurvePositions> curve_;
  // Owner: its segment [begin_, begin_ + size), per position the object's load, whether it may
  // move, its holder (-1 until heard of) and the local inclusive prefixes of load and count.
  std::uint64_t begin_ = 0;
  std::vector<double> load_;
  std::vector<char> migratable_;
  std::vector<PeId> holder_;
  std::vector<double> prefix_load_;
  std::vector<double> prefix_count_;
  std::size_t arrived_ = 0;
  bool summed_ = false;
  std::uint64_t round_ = 0;
  bool round_sent_ = false;
  std::map<std::uint64_t, AgentMessage> scan_in_;  // by round, until its turn
  double window_load_ = 0.0, window_count_ = 0.0;
  double offset_load_ = 0.0, offset_count_ = 0.0;
  bool have_total_ = false;
  double total_load_ = 0.0, total_count_ = 0.0;
  bool answered_ = false;
  // Holder.
  std::size_t answers_ = 0;
  std::vector<std::pair<ObjectPosition, PeId>> moves_;
};

}  // namespace

std::unique_ptr<DistributedAgent> make_hilbert_agent(LocalView view,
                                                     std::shared_ptr<const CurvePositions> curve) {
  return std::make_unique<HilbertAgent>(std::move(view), std::move(curve));
}

}  // namespace vela::lb::builtin
