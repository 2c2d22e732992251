// The simulation on SimGrid (docs/simulation.md, "Model"). One actor per PE, on the PE's host,
// runs its objects message-driven: an object's step s starts once the messages its
// in-neighbours sent after their step s - 1 have all reached it (none for step 0; with phases,
// those of lower phases after their step s), the PE takes ready objects first come first served
// (the runtime's queue; with a Grid Queue, border objects first), runs the object's load
// as flops on the host, then sends one message per out-edge of the step's graph: to an object
// on the same PE it is counted at once, to another PE it crosses the platform (a detached
// put to that PE's mailbox, whose permanent receiver lets it flow while the PE computes).
// Between two objects' steps the PE takes the messages that arrived meanwhile; while no object
// is ready it waits for one, so a PE with several objects overlaps one's wait with another's
// work. A controller actor on PE 0's host plans the steps up to the
// next balancing point by asking the policy step by step (it sees only the trace's loads and
// the placement, both known ahead), gathers a report from every PE there, runs the strategy
// (its time charged by sleeping), tells each PE its moves, waits until every moved object has
// arrived (the objects bound for one PE as one message of their sizes), and resumes the PEs.
// With a step reduction, each PE sends its part up a binary tree of the PEs once its objects
// finished the step, and an object's next step waits for the result as well as its inputs.
// Asynchronously (SimulateOptions::async_balancing) no PE stops: the PEs report the decision's
// step as they finish it, the controller runs the strategy while they go on, and each PE sends
// its departing objects away between two objects' steps when the orders reach it.
//
// Invariants: an object's counters change only on the PE it lives on (a message for an object
// that moved is forwarded, at the platform's cost, by the PE it reached); an object is in its
// PE's ready queue at most once, and only while present, within the planned steps and with all
// its inputs (and the previous step's reduction); no object runs step s + 1 before all its
// inputs of step s arrived; at most one asynchronous answer is pending, and none while objects
// it moved are in flight. PEs that have finished keep forwarding until the controller stops
// them (and, while an answer is pending, may still receive objects), so a late message is never
// lost.
//
// Costs: one simulated execution per object and step, one simulated communication per
// cross-PE edge and step (an edge's messages of a step travel as one), 4 control messages per
// PE per balancing point (asynchronously, 3 and a report) and one message per pair of PEs that
// exchange objects; memory O(objects + edges per epoch + steps * PEs).
#include "engine.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <simgrid/s4u.hpp>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "vela/lb/model/evaluate.hpp"
#include "vela/lb/policy/policy.hpp"
#include "vela/lb/strategies/registry.hpp"

namespace sg4 = simgrid::s4u;

namespace vela::sim::detail {

namespace {

enum class Kind : std::uint8_t {
  data,
  object,
  reduce_up,
  reduce_down,
  report,
  orders,
  done,
  resume,
  finished,
  moves,  // asynchronous balancing: the objects to send away at their next step boundary
  moved,  // asynchronous balancing: objects arriving, to go on here at once
  stop
};

struct Msg {
  Kind kind = Kind::data;
  std::uint32_t object = 0;
  std::uint32_t step = 0;
  std::uint64_t bytes = 0;
  std::vector<std::uint32_t> objects;  // Kind::object, Kind::moved: the objects moving together
};

// What a control message (report, orders, done, resume) weighs on the network.
constexpr double control_bytes = 64.0;

struct PeState {
  std::vector<std::uint32_t> objects;  // the objects living here, by position
  std::deque<std::uint32_t> ready;
  std::deque<std::uint32_t> grid;  // ready border objects (SimulateOptions::grid_queue_period)
  int grid_run = 0;                // border objects run in a row
  std::size_t left = 0;            // objects here whose next step is within the planned steps
  std::vector<std::uint32_t> departures;
  std::size_t expected_arrivals = 0;
  std::size_t arrivals = 0;
  std::size_t background_through = 0;  // steps whose background time was charged
  // The step reduction (SimulateOptions::step_reduction): the step being reduced, how many of
  // this PE's objects finished it, how many of its children in the tree contributed, whether
  // this PE sent its contribution up, and how many steps are reduced here.
  std::size_t rstep = 0;
  std::size_t local_done = 0;
  std::size_t children_in = 0;
  bool contributed = false;
  std::size_t reduced = 0;
  // Asynchronous balancing: how many of this PE's objects finished the decision's step.
  std::size_t measured = 0;
};

// A strategy's answer: where each object goes, the seconds it took, and the imbalance of the
// loads it saw before and after.
struct Answer {
  lb::Assignment assignment;
  double seconds = 0.0;
  double imbalance_before = 0.0;
  double imbalance_after = 0.0;
};

class Simulation {
 public:
  Simulation(const lb::Trace& trace, const SimulateOptions& options)
      : trace_(trace),
        options_(options),
        steps_(trace.steps.size()),
        objects_(trace.initial.objects.size()),
        pe_count_(trace.initial.pes.size()),
        epochs_(epochs_of(trace, options.phases)),
        cursor_(trace),
        policy_(lb::make_policy(options.policy, options.policy_params)),
        last_seconds_(options.strategy_seconds.value_or(0.0)),
        reducing_(options.step_reduction.has_value()) {}

  SimulationResult run(sg4::Engine& engine) {
    lay_out(engine);
    init_state();
    plan_segment();
    lb_ = sg4::Mailbox::by_name("vela-lb");
    measured_ = sg4::Mailbox::by_name("vela-lb-measured");
    for (std::size_t p = 0; p < pe_count_; ++p) {
      data_.push_back(sg4::Mailbox::by_name(fmt::format("vela-pe-{}", p)));
      control_.push_back(sg4::Mailbox::by_name(fmt::format("vela-ctl-{}", p)));
    }
    sg4::Actor::create("vela-controller", host_of_pe_[0], [this] { controller(); });
    // Each PE's mailbox gets its receiver before any actor runs, so that every message flows
    // as soon as it is sent, the first ones too.
    for (std::size_t p = 0; p < pe_count_; ++p) {
      const sg4::ActorPtr pe = sg4::Actor::create(fmt::format("vela-pe-{}", p), host_of_pe_[p],
                                                  [this, p] { pe_main(p); });
      data_[p]->set_receiver(pe);
    }
    engine.run();
    return finish();
  }

 private:
  // --- layout and state -------------------------------------------------------------------

  void lay_out(sg4::Engine& engine) {
    std::vector<sg4::Host*> hosts = engine.get_all_hosts();
    std::sort(hosts.begin(), hosts.end(), [](const sg4::Host* a, const sg4::Host* b) {
      return host_name_less(a->get_name(), b->get_name());
    });
    std::size_t room = 0;
    for (sg4::Host* h : hosts) {
      const int k = options_.pes_per_host > 0 ? options_.pes_per_host : h->get_core_count();
      room += static_cast<std::size_t>(k);
      bool used = false;
      for (int i = 0; i < k && host_of_pe_.size() < pe_count_; ++i) {
        host_of_pe_.push_back(h);
        used = true;
      }
      if (used) ++hosts_used_;
    }
    if (host_of_pe_.size() < pe_count_) {
      throw SimulationError(
          fmt::format("platform '{}' has {} hosts with room for {} PEs ({}); the trace has {} PEs",
                      options_.platform, hosts.size(), room,
                      options_.pes_per_host > 0
                          ? fmt::format("{} per host, --pes-per-host", options_.pes_per_host)
                          : std::string("one per core"),
                      pe_count_));
    }
    reference_speed_ =
        options_.reference_speed > 0.0 ? options_.reference_speed : host_of_pe_[0]->get_speed();
  }

  void init_state() {
    epoch_of_step_.assign(steps_, 0);
    std::size_t e = 0;
    for (std::size_t s = 0; s < steps_; ++s) {
      while (e + 1 < epochs_.size() && epochs_[e + 1].first <= s) ++e;
      epoch_of_step_[s] = static_cast<std::uint32_t>(e);
    }
    pe_of_.resize(objects_);
    next_step_.assign(objects_, 0);
    arrived_.assign(objects_, std::deque<std::uint32_t>(1, 0));
    present_.assign(objects_, 1);
    moving_to_.assign(objects_, -1);
    pes_.resize(pe_count_);
    period_load_.assign(objects_, 0.0);
    for (std::size_t i = 0; i < objects_; ++i) {
      pe_of_[i] = trace_.initial.objects[i].pe;
      pes_[static_cast<std::size_t>(pe_of_[i])].objects.push_back(static_cast<std::uint32_t>(i));
    }
    busy_.assign(steps_ * pe_count_, 0.0);
    step_end_.assign(steps_, 0.0);
    balance_.assign(steps_, {});
  }

  // Asks the policy step by step from the cursor's position until it decides to balance (before
  // the last step: a balance after it would change nothing) or the trace ends.
  void plan_segment() {
    segment_balances_ = false;
    lb::Decision d;
    while (consult(d)) {
      const std::size_t s = cursor_.steps_done() - 1;
      if (d.balance() && s + 1 < steps_) {
        decision_ = std::move(d);
        if (options_.async_balancing) {
          start_async(s);
          return;
        }
        segment_end_ = s;
        segment_balances_ = true;
        return;
      }
    }
    segment_end_ = steps_ - 1;
  }

  // Moves the cursor one step on, adds that step's loads to the period's and asks the policy.
  // Returns false at the trace's end.
  bool consult(lb::Decision& d) {
    if (!cursor_.next()) return false;
    const std::vector<lb::Object>& objects = cursor_.instance().objects;
    for (std::size_t i = 0; i < objects.size(); ++i) period_load_[i] += objects[i].load;
    ++period_steps_;
    const lb::CostParameters costs{options_.migration_startup, options_.migration_per_byte,
                                   last_seconds_};
    d = policy_->decide({cursor_.steps_done() - 1, &cursor_.instance(), costs});
    return true;
  }

  // Asynchronous balancing decided after step b: the PEs run on (to the end unless the answer
  // comes back first); each reports once its objects finished step b, the strategy then runs on
  // the loads through b beside them (controller(), async_balance()).
  void start_async(std::size_t b) {
    async_pending_ = true;
    async_measured_ = false;
    async_step_ = b;
    async_instance_ = strategy_instance();
    segment_end_ = steps_ - 1;
    expected_measured_ = 0;
    for (PeState& pe : pes_) {
      pe.measured = 0;
      if (!pe.objects.empty()) ++expected_measured_;
    }
  }

  // The instance a strategy sees at a balancing point: each object's mean load since the last
  // balance (the runtime measures an element's time between balancing points), or the step's
  // with strategy_loads = step.
  lb::Instance strategy_instance() {
    lb::Instance instance = cursor_.instance();
    if (options_.strategy_loads == StrategyLoads::period) {
      for (std::size_t i = 0; i < instance.objects.size(); ++i) {
        instance.objects[i].load = period_load_[i] / static_cast<double>(period_steps_);
      }
    }
    std::fill(period_load_.begin(), period_load_.end(), 0.0);
    period_steps_ = 0;
    return instance;
  }

  // The inputs object o's step s waits for: from lower phases in step s, from the others in
  // step s - 1.
  std::uint32_t needed(std::uint32_t o, std::size_t s) const {
    return epochs_[epoch_of_step_[s]].in_same_step[o] +
           (s == 0 ? 0 : epochs_[epoch_of_step_[s - 1]].in_degree[o]);
  }

  // The step fed by what an object sends along `out` after its step s.
  std::size_t fed_step(const Out& out, std::size_t s) const { return out.same_step ? s : s + 1; }

  // Whether object o sends to a PE of another cluster in step s (a border object).
  bool border(std::uint32_t o, std::size_t s) const {
    const std::int32_t here = trace_.initial.pes[static_cast<std::size_t>(pe_of_[o])].cluster;
    for (const Out& out : epochs_[epoch_of_step_[s]].out[o]) {
      if (trace_.initial.pes[static_cast<std::size_t>(pe_of_[out.to])].cluster != here) {
        return true;
      }
    }
    return false;
  }

  void push_ready(std::size_t p, std::uint32_t o) {
    PeState& me = pes_[p];
    if (options_.grid_queue_period > 0 && border(o, next_step_[o])) {
      me.grid.push_back(o);
    } else {
      me.ready.push_back(o);
    }
  }

  // The next object PE p runs: border objects first, but one other after grid_queue_period of
  // them in a row (the runtime's next_local()).
  std::uint32_t pop_ready(std::size_t p) {
    PeState& me = pes_[p];
    std::deque<std::uint32_t>* from = &me.ready;
    if (!me.grid.empty()) {
      if (me.grid_run < options_.grid_queue_period || me.ready.empty()) {
        ++me.grid_run;
        from = &me.grid;
      } else {
        me.grid_run = 0;
      }
    }
    const std::uint32_t o = from->front();
    from->pop_front();
    return o;
  }

  bool ready(std::uint32_t o) const {
    const std::size_t s = next_step_[o];
    return present_[o] != 0 && s <= segment_end_ && arrived_[o].front() >= needed(o, s) &&
           (!reducing_ || pes_[static_cast<std::size_t>(pe_of_[o])].reduced >= s);
  }

  // --- the PEs -----------------------------------------------------------------------------

  void pe_main(std::size_t p) {
    PeState& me = pes_[p];
    for (;;) {
      me.left = 0;
      for (std::uint32_t o : me.objects) {
        if (next_step_[o] <= segment_end_) ++me.left;
        if (ready(o)) push_ready(p, o);
      }
      if (reducing_) try_contribute(p);
      for (;;) {
        // Messages that arrived while the PE computed come first: the runtime's scheduler polls
        // the network between entry methods, so an input can make its object ready (and a
        // border object jump the queue) before the next object is chosen.
        while (data_[p]->ready()) receive(p);
        if (me.left > 0 || (reducing_ && me.reduced <= segment_end_)) {
          if (!me.ready.empty() || !me.grid.empty()) {
            run_object(p, pop_ready(p));
          } else {
            receive(p);
          }
        } else if (async_pending_ && !segment_balances_) {
          receive(p);  // done for now, but an asynchronous answer may bring objects here
        } else {
          break;
        }
      }
      if (!segment_balances_) break;
      balance_point(p);
    }
    send_control(lb_, Kind::finished, p);
    while (receive(p) != Kind::stop) {
    }
  }

  void run_object(std::size_t p, std::uint32_t o) {
    const std::size_t s = next_step_[o];
    const lb::Pe& pe = trace_.initial.pes[p];
    const double start = sg4::Engine::get_clock();
    PeState& me = pes_[p];
    for (; me.background_through <= s; ++me.background_through) {
      if (pe.background > 0.0) sg4::this_actor::execute(pe.background * reference_speed_);
    }
    // The object's work, then the runtime's own: scheduling the object and sending its messages
    // (a message to an object here is received here too), in one execution.
    const double work = trace_.steps[s].loads[o] / pe.speed;
    double own = options_.object_overhead;
    if (options_.message_overhead > 0.0) {
      for (const Out& out : epochs_[epoch_of_step_[s]].out[o]) {
        if (fed_step(out, s) >= steps_) continue;
        own += options_.message_overhead * (pe_of_[out.to] == pe_of_[o] ? 2.0 : 1.0);
      }
    }
    const double after_background = sg4::Engine::get_clock();
    if (work + own > 0.0) sg4::this_actor::execute((work + own) * reference_speed_);
    const double end = sg4::Engine::get_clock();
    const double ran = end - after_background;
    busy_[s * pe_count_ + p] +=
        (after_background - start) + (work + own > 0.0 ? ran * work / (work + own) : 0.0);
    overhead_ += work + own > 0.0 ? ran * own / (work + own) : 0.0;
    step_end_[s] = std::max(step_end_[s], end);
    for (const Out& out : epochs_[epoch_of_step_[s]].out[o]) {
      const std::size_t fed = fed_step(out, s);
      if (fed >= steps_) continue;
      const auto dest = static_cast<std::size_t>(pe_of_[out.to]);
      if (dest == p) {
        count_input(p, out.to, static_cast<std::uint32_t>(fed));
      } else {
        send_data(p, dest, out.to, static_cast<std::uint32_t>(fed), out.bytes);
      }
    }
    ++next_step_[o];
    if (async_pending_ && !async_measured_ && next_step_[o] == async_step_ + 1 &&
        ++me.measured == me.objects.size()) {
      measured_
          ->put_init(new Msg{Kind::report, static_cast<std::uint32_t>(p), 0, 0, {}}, control_bytes)
          ->detach();
    }
    arrived_[o].pop_front();
    if (arrived_[o].empty()) arrived_[o].push_back(0);
    if (next_step_[o] > segment_end_) {
      --me.left;
    } else if (!reducing_ && ready(o)) {
      push_ready(p, o);
    }
    if (reducing_) {
      ++me.local_done;
      try_contribute(p);
    }
  }

  // --- the step reduction: a binary tree over the PEs, PE 0 at its root ------------------

  std::size_t children(std::size_t p) const {
    return (2 * p + 1 < pe_count_ ? 1 : 0) + (2 * p + 2 < pe_count_ ? 1 : 0);
  }

  // Sends PE p's contribution up once its objects and its children are in (the root starts the
  // way down instead). Never beyond the planned steps: a balance comes first.
  void try_contribute(std::size_t p) {
    PeState& me = pes_[p];
    if (me.contributed || me.rstep > segment_end_ || me.local_done < me.objects.size() ||
        me.children_in < children(p)) {
      return;
    }
    me.contributed = true;
    if (p == 0) {
      reduced(p);
    } else {
      send_reduction(Kind::reduce_up, (p - 1) / 2, me.rstep);
    }
  }

  void send_reduction(Kind kind, std::size_t dest, std::size_t step) {
    auto* m = new Msg{kind, 0, static_cast<std::uint32_t>(step), *options_.step_reduction, {}};
    data_[dest]->put_init(m, static_cast<double>(std::max<std::uint64_t>(m->bytes, 1)))->detach();
  }

  // The result of the reduction of step rstep reached PE p: on to its children, and the
  // objects waiting for it may run.
  void reduced(std::size_t p) {
    PeState& me = pes_[p];
    for (std::size_t c = 2 * p + 1; c <= 2 * p + 2 && c < pe_count_; ++c) {
      send_reduction(Kind::reduce_down, c, me.rstep);
    }
    step_end_[me.rstep] = std::max(step_end_[me.rstep], sg4::Engine::get_clock());
    me.reduced = ++me.rstep;
    me.local_done = 0;
    me.children_in = 0;
    me.contributed = false;
    for (std::uint32_t o : me.objects) {
      if (ready(o)) push_ready(p, o);
    }
    try_contribute(p);  // a PE without objects may go on at once
  }

  // A message weighs at least a byte: SimGrid delivers a weightless message sent to a mailbox
  // whose receiver is not yet waiting at once, without the route's latency.
  void send_data(std::size_t from, std::size_t dest, std::uint32_t o, std::uint32_t step,
                 std::uint64_t bytes) {
    auto* m = new Msg{Kind::data, o, step, bytes, {}};
    data_[dest]->put_init(m, static_cast<double>(std::max<std::uint64_t>(bytes, 1)))->detach();
    ++messages_;
    bytes_sent_ += bytes;
    if (trace_.initial.pes[from].cluster != trace_.initial.pes[dest].cluster) {
      cluster_bytes_ += bytes;
    }
  }

  // Finishing and stopping stand for the runtime's quiescence detection, which is not charged:
  // they weigh nothing, so they take no bandwidth from the last messages of the run.
  void send_control(sg4::Mailbox* box, Kind kind, std::size_t p) {
    auto* m = new Msg{kind, static_cast<std::uint32_t>(p), 0, 0, {}};
    const bool weightless = kind == Kind::finished || kind == Kind::stop;
    box->put_init(m, weightless ? 0.0 : control_bytes)->detach();
  }

  // An input of object o's step `step` reached PE p, where o lives.
  void count_input(std::size_t p, std::uint32_t o, std::uint32_t step) {
    const std::size_t k = step - next_step_[o];
    std::deque<std::uint32_t>& counts = arrived_[o];
    if (counts.size() <= k) counts.resize(k + 1, 0);
    ++counts[k];
    // Queued when this input completes it; one that completes before the step's reduction
    // is queued by the reduction instead (reduced()).
    if (k == 0 && counts[0] == needed(o, step) && ready(o)) push_ready(p, o);
  }

  // Takes one message from PE p's mailbox and handles it; returns its kind.
  Kind receive(std::size_t p) {
    std::unique_ptr<Msg> m(data_[p]->get<Msg>());
    switch (m->kind) {
      case Kind::data:
        if (options_.message_overhead > 0.0) {
          const double start = sg4::Engine::get_clock();
          sg4::this_actor::execute(options_.message_overhead * reference_speed_);
          overhead_ += sg4::Engine::get_clock() - start;
        }
        if (static_cast<std::size_t>(pe_of_[m->object]) == p) {
          count_input(p, m->object, m->step);
        } else {  // the object moved: on to where it lives now
          send_data(p, static_cast<std::size_t>(pe_of_[m->object]), m->object, m->step, m->bytes);
        }
        break;
      case Kind::object:
        for (std::uint32_t o : m->objects) present_[o] = 1;
        pes_[p].arrivals += m->objects.size();
        break;
      case Kind::moves:
        depart(p);
        break;
      case Kind::moved:
        arrive(p, m->objects);
        break;
      case Kind::reduce_up:
        ++pes_[p].children_in;
        try_contribute(p);
        break;
      case Kind::reduce_down:
        reduced(p);
        break;
      default:
        break;
    }
    return m->kind;
  }

  void balance_point(std::size_t p) {
    PeState& me = pes_[p];
    const std::size_t b = segment_end_;
    send_control(lb_, Kind::report, p);
    delete control_[p]->get<Msg>();  // the orders: departures and arrivals are in me
    // The objects bound for one PE travel as one message of their summed sizes: the same bytes
    // on the same route, one flow rather than one per object (a balance of 10^4 objects would
    // otherwise have the network model share every link among 10^4 flows).
    std::map<std::size_t, Msg*> batches;
    for (std::uint32_t o : me.departures) {
      Msg*& m = batches[static_cast<std::size_t>(pe_of_[o])];
      if (m == nullptr) m = new Msg{Kind::object, 0, 0, 0, {}};
      m->objects.push_back(o);
      m->bytes += trace_.initial.objects[o].size;
    }
    for (const auto& [dest, m] : batches) {
      data_[dest]->put_init(m, static_cast<double>(std::max<std::uint64_t>(m->bytes, 1)))->detach();
    }
    me.departures.clear();
    while (me.arrivals < me.expected_arrivals) receive(p);
    me.arrivals = 0;
    me.expected_arrivals = 0;
    send_control(lb_, Kind::done, p);
    delete control_[p]->get<Msg>();  // resume
    BalanceRecord& rec = balance_[b];
    rec.resumed = std::max(rec.resumed, sg4::Engine::get_clock());
  }

  // --- the controller ----------------------------------------------------------------------

  void gather() {
    for (std::size_t k = 0; k < pe_count_; ++k) delete lb_->get<Msg>();
  }

  void controller() {
    for (;;) {
      if (async_pending_) {
        if (!async_balance()) break;
        continue;
      }
      if (!segment_balances_) break;
      gather();  // reports
      const double reported = sg4::Engine::get_clock();
      const std::size_t b = segment_end_;
      const Answer answer = solve(strategy_instance());
      last_seconds_ = answer.seconds;
      if (answer.seconds > 0.0) sg4::this_actor::sleep_for(answer.seconds);
      balance_[b].strategy_seconds = answer.seconds;
      migrate(b, answer);
      const double migrated = sg4::Engine::get_clock() - reported - answer.seconds;
      finish_balance(b, migrated);
    }
    gather();  // finished
    for (std::size_t p = 0; p < pe_count_; ++p) send_control(data_[p], Kind::stop, p);
    stopped_ = true;
  }

  // The asynchronous balance decided after step async_step_: waits for every PE's report of that
  // step, runs the strategy (its time passes while the PEs run on), then tells each PE the
  // objects it is to send away; a PE sends them as it gets the order, between two objects'
  // steps (no PE stops), and the objects go on where they arrive. Decisions the policy takes
  // meanwhile are dropped (one answer at a time): once every object has arrived the policy is
  // asked again from the furthest step any object has reached. Returns false when the answer
  // came after the last object's last step (not applied).
  bool async_balance() {
    for (std::size_t k = 0; k < expected_measured_; ++k) delete measured_->get<Msg>();
    async_measured_ = true;
    const Answer answer = solve(async_instance_);
    last_seconds_ = answer.seconds;
    overlapped_ += answer.seconds;
    if (answer.seconds > 0.0) sg4::this_actor::sleep_for(answer.seconds);
    const std::size_t b = async_step_;
    if (*std::min_element(next_step_.begin(), next_step_.end()) >= steps_) {
      ++unapplied_;
      async_pending_ = false;
      for (std::size_t p = 0; p < pe_count_; ++p) send_control(data_[p], Kind::moves, p);
      return false;
    }
    const double ordered = sg4::Engine::get_clock();
    BalanceRecord& rec = balance_[b];
    rec.balanced = true;
    rec.asynchronous = true;
    rec.strategy = decision_.strategy;
    imbalance_before_ = answer.imbalance_before;
    imbalance_after_ = answer.imbalance_after;
    std::size_t destinations = 0;
    for (std::uint32_t o = 0; o < objects_; ++o) {
      const lb::PeId to = answer.assignment.pe[o];
      if (to == pe_of_[o]) continue;
      moving_to_[o] = to;
      if (pes_[static_cast<std::size_t>(to)].expected_arrivals++ == 0) ++destinations;
      ++rec.migrations;
      rec.bytes_moved += trace_.initial.objects[o].size;
    }
    for (std::size_t p = 0; p < pe_count_; ++p) send_control(data_[p], Kind::moves, p);
    for (std::size_t k = 0; k < destinations; ++k) delete measured_->get<Msg>();  // arrived
    async_pending_ = false;
    cursor_.assign(answer.assignment);
    // The steps some object went past meanwhile: their decisions are dropped.
    const std::size_t furthest = *std::max_element(next_step_.begin(), next_step_.end());
    lb::Decision dropped;
    while (cursor_.steps_done() < furthest && consult(dropped)) {
    }
    tell_policy(b, answer.seconds, sg4::Engine::get_clock() - ordered);
    plan_segment();
    // PEs that waited for this answer with nothing left to run look again: the next segment
    // may stop them at a balancing point, or they are done.
    for (std::size_t p = 0; p < pe_count_; ++p) send_control(data_[p], Kind::moves, p);
    return true;
  }

  // PE p got its orders (Kind::moves): sends away its objects bound elsewhere, those bound for
  // one PE as one message; they take their counters along.
  void depart(std::size_t p) {
    PeState& me = pes_[p];
    std::map<std::size_t, Msg*> batches;
    std::vector<std::uint32_t> staying;
    for (std::uint32_t o : me.objects) {
      if (moving_to_[o] < 0) {
        staying.push_back(o);
        continue;
      }
      const auto dest = static_cast<std::size_t>(moving_to_[o]);
      if (next_step_[o] <= segment_end_) --me.left;
      std::erase(me.ready, o);
      std::erase(me.grid, o);
      present_[o] = 0;
      pe_of_[o] = static_cast<lb::PeId>(dest);
      Msg*& m = batches[dest];
      if (m == nullptr) m = new Msg{Kind::moved, 0, 0, 0, {}};
      m->objects.push_back(o);
      m->bytes += trace_.initial.objects[o].size;
    }
    me.objects = std::move(staying);
    for (const auto& [dest, m] : batches) {
      data_[dest]->put_init(m, static_cast<double>(std::max<std::uint64_t>(m->bytes, 1)))->detach();
    }
  }

  // Objects an asynchronous answer sent reached PE p: they join its objects, and once all it
  // expects are here the controller hears of it.
  void arrive(std::size_t p, const std::vector<std::uint32_t>& objects) {
    PeState& me = pes_[p];
    for (std::uint32_t o : objects) {
      present_[o] = 1;
      moving_to_[o] = -1;
      me.objects.push_back(o);
      if (next_step_[o] <= segment_end_) ++me.left;
      if (ready(o)) push_ready(p, o);
    }
    me.arrivals += objects.size();
    if (me.arrivals == me.expected_arrivals) {
      me.arrivals = 0;
      me.expected_arrivals = 0;
      measured_
          ->put_init(new Msg{Kind::done, static_cast<std::uint32_t>(p), 0, 0, {}}, control_bytes)
          ->detach();
    }
  }

  // Runs the decided strategy on `instance` (without charging its time).
  Answer solve(const lb::Instance& instance) {
    lb::Strategy& strategy = strategy_for(decision_);
    const auto t0 = std::chrono::steady_clock::now();
    lb::Solution solution = strategy.solve(instance);
    const auto t1 = std::chrono::steady_clock::now();
    lb::check_strategy_contract(decision_.strategy, instance, solution.assignment);
    const auto named = options_.strategy_seconds_by_name.find(decision_.strategy);
    Answer answer;
    answer.seconds =
        named != options_.strategy_seconds_by_name.end()
            ? named->second
            : options_.strategy_seconds.value_or(std::chrono::duration<double>(t1 - t0).count());
    answer.imbalance_before =
        lb::load_stats(lb::pe_loads(instance, lb::current_assignment(instance))).imbalance;
    answer.imbalance_after = lb::load_stats(lb::pe_loads(instance, solution.assignment)).imbalance;
    answer.assignment = std::move(solution.assignment);
    return answer;
  }

  // The PEs wait at the end of step b (their reports are in): records the answer's moves in the
  // PEs' states, sends the orders, waits until every object arrived, plans the next segment and
  // resumes the PEs.
  void migrate(std::size_t b, const Answer& answer) {
    BalanceRecord& rec = balance_[b];
    rec.balanced = true;
    rec.strategy = decision_.strategy;
    imbalance_before_ = answer.imbalance_before;
    imbalance_after_ = answer.imbalance_after;
    for (std::uint32_t o = 0; o < objects_; ++o) {
      const lb::PeId to = answer.assignment.pe[o];
      const lb::PeId from = pe_of_[o];
      if (to == from) continue;
      pes_[static_cast<std::size_t>(from)].departures.push_back(o);
      ++pes_[static_cast<std::size_t>(to)].expected_arrivals;
      pe_of_[o] = to;
      present_[o] = 0;
      ++rec.migrations;
      rec.bytes_moved += trace_.initial.objects[o].size;
    }
    for (PeState& pe : pes_) pe.objects.clear();
    for (std::uint32_t o = 0; o < objects_; ++o) {
      pes_[static_cast<std::size_t>(pe_of_[o])].objects.push_back(o);
    }
    cursor_.assign(answer.assignment);
    for (std::size_t p = 0; p < pe_count_; ++p) send_control(control_[p], Kind::orders, p);
    gather();  // done
  }

  // Tells the policy how the balance after step b went.
  void tell_policy(std::size_t b, double strategy_seconds, double migration_seconds) {
    const BalanceRecord& rec = balance_[b];
    lb::BalanceOutcome outcome;
    outcome.step = b;
    outcome.strategy = rec.strategy;
    outcome.strategy_seconds = strategy_seconds;
    outcome.migration_seconds = migration_seconds;
    outcome.migrations = rec.migrations;
    outcome.imbalance_before = imbalance_before_;
    outcome.imbalance_after = imbalance_after_;
    policy_->balanced(outcome);
  }

  // Tells the policy how the balance went, plans the next segment and resumes the PEs.
  void finish_balance(std::size_t b, double migration_seconds) {
    tell_policy(b, balance_[b].strategy_seconds, migration_seconds);
    plan_segment();
    for (std::size_t p = 0; p < pe_count_; ++p) send_control(control_[p], Kind::resume, p);
  }

  lb::Strategy& strategy_for(const lb::Decision& d) {
    std::string key = d.strategy;
    for (const auto& [k, v] : d.params) key += "\n" + k + "=" + v;
    auto it = strategies_.find(key);
    if (it == strategies_.end()) {
      it = strategies_.emplace(key, lb::make_strategy(d.strategy, d.params)).first;
    }
    return *it->second;
  }

  // --- the result --------------------------------------------------------------------------

  SimulationResult finish() {
    if (!stopped_) {
      throw std::logic_error(
          "the simulation deadlocked: the PEs stopped waiting for messages that never came "
          "(SimGrid's list of the waiting actors is above)");
    }
    for (std::size_t o = 0; o < objects_; ++o) {
      if (next_step_[o] != steps_) {
        throw std::logic_error(fmt::format("the simulation stopped with object {} at step {} of {}",
                                           o, next_step_[o], steps_));
      }
    }
    SimulationResult r;
    r.steps = steps_;
    r.pes = pe_count_;
    r.hosts = hosts_used_;
    r.total = steps_ > 0 ? step_end_.back() : 0.0;
    r.messages = messages_;
    r.overhead = overhead_;
    r.bytes_sent = bytes_sent_;
    r.cluster_bytes = cluster_bytes_;
    r.strategy_overlapped = overlapped_;
    r.answers_unapplied = unapplied_;
    double previous_end = 0.0;
    for (std::size_t s = 0; s < steps_; ++s) {
      SimulatedStep step;
      step.end = step_end_[s];
      step.time = step_end_[s] - previous_end;
      for (std::size_t p = 0; p < pe_count_; ++p) {
        step.compute = std::max(step.compute, busy_[s * pe_count_ + p]);
        r.busy += busy_[s * pe_count_ + p];
      }
      const BalanceRecord& rec = balance_[s];
      step.balanced = rec.balanced;
      step.strategy = rec.strategy;
      step.migrations = rec.migrations;
      step.bytes_moved = rec.bytes_moved;
      step.strategy_seconds = rec.strategy_seconds;
      step.balance_seconds = rec.balanced && !rec.asynchronous ? rec.resumed - step_end_[s] : 0.0;
      previous_end = step_end_[s] + step.balance_seconds;
      r.compute += step.compute;
      r.strategy += rec.strategy_seconds;
      r.balancing += step.balance_seconds;
      if (rec.balanced) ++r.balances;
      r.migrations += rec.migrations;
      r.bytes_moved += rec.bytes_moved;
      if (options_.keep_series) r.series.push_back(std::move(step));
    }
    r.efficiency = r.total > 0.0 ? r.busy / (static_cast<double>(pe_count_) * r.total) : 0.0;
    return r;
  }

  struct BalanceRecord {
    bool balanced = false;
    bool asynchronous = false;  // the PEs did not stop: no balance time
    std::string strategy;
    double strategy_seconds = 0.0;
    double resumed = 0.0;  // when the last PE resumed
    std::size_t migrations = 0;
    std::uint64_t bytes_moved = 0;
  };

  const lb::Trace& trace_;
  const SimulateOptions& options_;
  std::size_t steps_;
  std::size_t objects_;
  std::size_t pe_count_;
  std::vector<Epoch> epochs_;
  std::vector<std::uint32_t> epoch_of_step_;
  lb::TraceCursor cursor_;
  std::unique_ptr<lb::Policy> policy_;
  std::map<std::string, std::unique_ptr<lb::Strategy>> strategies_;
  double last_seconds_;
  lb::Decision decision_;
  std::size_t segment_end_ = 0;
  bool segment_balances_ = false;
  bool reducing_ = false;  // options_.step_reduction is set
  // Asynchronous balancing: a strategy runs beside the PEs for the decision after async_step_,
  // on async_instance_, once expected_measured_ PEs reported that step.
  bool async_pending_ = false;
  bool async_measured_ = false;          // the reports of async_step_ are in
  std::vector<std::int32_t> moving_to_;  // each object's destination while an answer moves it
  std::size_t async_step_ = 0;
  lb::Instance async_instance_;
  std::size_t expected_measured_ = 0;
  double overlapped_ = 0.0;  // strategy seconds that ran beside the PEs
  std::size_t unapplied_ = 0;
  bool stopped_ = false;             // the controller stopped every PE: the run ended cleanly
  std::vector<double> period_load_;  // each object's loads summed since the last balance
  std::size_t period_steps_ = 0;
  double imbalance_before_ = 0.0;
  double imbalance_after_ = 0.0;

  std::vector<sg4::Host*> host_of_pe_;
  std::size_t hosts_used_ = 0;
  double reference_speed_ = 1.0;
  sg4::Mailbox* lb_ = nullptr;
  sg4::Mailbox* measured_ = nullptr;  // asynchronous balancing's reports and arrival notices
  std::vector<sg4::Mailbox*> data_;
  std::vector<sg4::Mailbox*> control_;

  std::vector<lb::PeId> pe_of_;
  std::vector<std::uint32_t> next_step_;
  std::vector<std::deque<std::uint32_t>> arrived_;
  std::vector<char> present_;
  std::vector<PeState> pes_;

  std::vector<double> busy_;  // [step * PEs + PE]
  std::vector<double> step_end_;
  std::vector<BalanceRecord> balance_;
  std::uint64_t messages_ = 0;
  std::uint64_t bytes_sent_ = 0;
  std::uint64_t cluster_bytes_ = 0;
  double overhead_ = 0.0;  // the runtime's own seconds (object_overhead, message_overhead)
};

}  // namespace

SimulationResult run_engine(const lb::Trace& trace, const SimulateOptions& options) {
  std::vector<std::string> args = {"vela-lb", "--log=root.thresh:warning"};
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  // Under a sanitizer the actors run as threads: SimGrid's own stack switching (its default
  // contexts, on stacks it allocates) is invisible to the sanitizers, which then warn when an
  // actor ends (SimGrid unwinds it with an exception) and may report false errors. Threads run
  // one at a time all the same: the same simulated times.
  args.emplace_back("--cfg=contexts/factory:thread");
#endif
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int argc = static_cast<int>(args.size());
  sg4::Engine engine(&argc, argv.data());
  for (const std::string& item : options.config) {
    try {
      sg4::Engine::set_config(item);
    } catch (const std::exception& e) {
      throw SimulationError(fmt::format("SimGrid option '{}': {}", item, e.what()));
    }
  }
  try {
    engine.load_platform(options.platform);
  } catch (const std::exception& e) {
    throw SimulationError(fmt::format("platform '{}': {}", options.platform, e.what()));
  }
  for (const auto& [name, seconds] : options.link_latencies) {
    sg4::Link* link = engine.link_by_name_or_null(name);
    if (link == nullptr) {
      throw SimulationError(fmt::format(
          "platform '{}' has no link named '{}' to set the latency of", options.platform, name));
    }
    link->set_latency(seconds);
  }
  Simulation simulation(trace, options);
  return simulation.run(engine);
}

}  // namespace vela::sim::detail
