// Balancing at sync points: when every element of a collection has called at_sync(), the root
// (PE 0) gathers each PE's measurements into an lb::Instance, runs the strategy, migrates the
// elements it moves, and resumes every element once they have all arrived. With --lb-policy
// the root gathers at every sync point and the policy decides, on the step's measurements,
// whether to balance and with which strategy. A strategy with a distributed form
// (hilbert-distributed, diffusion) runs without a policy on the PEs instead: nothing is
// gathered, each PE's agent (vela/lb/strategies/distributed.hpp) decides with the agents its
// algorithm names, and each PE migrates its own elements (docs/architecture.md, "Distributed
// strategies"). Asynchronously (--lb-async, or a point's SyncBalance) the root hands the
// instance to the balancing thread (services/lb_async.hpp) and resumes the elements at once; the
// answer is applied at the first sync point after it came back (periodic collections: when it
// comes), each PE moving its own elements as the answer says (docs/architecture.md,
// "Asynchronous balancing").
#include <deque>
#include <filesystem>
#include <utility>

#include "services/lb_manager.hpp"

#include "core/runtime_state.hpp"
#include "services/lb_async.hpp"
#include "services/timeline.hpp"
#include "vela/lb/io/io.hpp"
#include "vela/lb/model/evaluate.hpp"
#include "vela/lb/strategies/distributed.hpp"
#include "vela/lb/strategies/registry.hpp"

namespace vela::rt::detail {

namespace {

// Where element `linear` sits in `geometry`, as a strategy's coordinates.
std::array<double, 3> coordinates_of(const Shape& geometry, std::uint64_t linear) {
  const Index index = geometry.at(linear);
  return {static_cast<double>(index.x), static_cast<double>(index.y), static_cast<double>(index.z)};
}

// Whether steps run --lb's distributed form. Not with a policy: it decides at the root on a
// gathered instance, and the root then runs whichever strategy it names offline (the same
// answer as the distributed form's, as that instance is there anyway).
// Nor for a dynamic collection: its agents would need every index of the shape present; the
// central form balances the elements there are.
bool distributed_strategy(const RuntimeState& state, const CollectionInfo& info) {
  return state.options.lb_policy.empty() && !info.dynamic &&
         lb::has_distributed_form(state.options.lb);
}

// The root's request for measurements: the step, and whether the PEs' agents balance it
// (a distributed strategy's inline step).
struct CollectRequest {
  std::uint64_t step = 0;
  std::uint8_t distributed = 0;
  void pup(pup::Archive& ar) { ar | step | distributed; }
};

// An agent's message on the wire, with the step it belongs to.
struct AgentWire {
  std::uint64_t step = 0;
  PeId from = 0;
  std::uint32_t tag = 0;
  std::vector<std::uint64_t> ints;
  std::vector<double> reals;
  void pup(pup::Archive& ar) { ar | step | from | tag | ints | reals; }
};

// The end of a step: sync-point collections resume; periodic ones just carry on.
void finish_step(RuntimeState& state, CollectionInfo& info) {
  if (info.lb.periodic) {
    info.lb.in_progress = false;
    return;
  }
  for (PeId p = 0; p < state.pes; ++p) post_system(state, p, Kind::resume, info.id, 0, {});
  info.lb.at_point = false;
  admit_after_point(state, info);
}

// The step ends once its moves are decided, --lb-dump is written and every migration arrived.
void finish_when_settled(RuntimeState& state, CollectionInfo& info) {
  LbRound& round = info.lb;
  if (round.decided && !round.dump_pending && round.awaited_migrations == 0) {
    if (round.applying) {  // an asynchronous answer, applied: its span on the root's track
      round.applying = false;
      if (state.timeline) {
        state.timeline->complete(0, trace::Category::lb, "apply " + round.answer_name,
                                 round.apply_from, Clock::now(), info.name);
      }
    }
    finish_step(state, info);
  }
}

// Orders the moves in `moves` (per PE of origin) and ends the step once they all arrived.
void order_moves(RuntimeState& state, CollectionInfo& info,
                 const std::vector<std::vector<std::pair<std::uint64_t, PeId>>>& moves,
                 std::uint64_t count) {
  LbRound& round = info.lb;
  round.awaited_migrations = static_cast<std::int64_t>(count);
  round.decided = true;
  round.migrate_from = Clock::now();
  if (count == 0) {
    finish_step(state, info);
    return;
  }
  for (PeId p = 0; p < state.pes; ++p) {
    const auto& list = moves[static_cast<std::size_t>(p)];
    if (!list.empty()) post_system(state, p, Kind::migrate_order, info.id, 0, pup::pack(list));
  }
}

// The answer waiting (round.answer) applied: every PE moves its elements that the answer puts
// elsewhere (where each element is now, whatever moved since the answer's instance), requested
// moves winning; the step ends when every PE has ordered its part and the moves arrived.
void apply_answer(RuntimeState& state, CollectionInfo& info) {
  LbRound& round = info.lb;
  std::vector<PeId> placement = std::move(*round.answer);
  round.answer.reset();
  for (const LbRound::Request& r : round.requested) {
    if (r.element < placement.size()) placement[static_cast<std::size_t>(r.element)] = r.to;
  }
  round.requested.clear();
  round.distributed = false;
  round.dump_pending = false;
  round.decided = false;
  round.awaited_migrations = 0;
  round.applying = true;
  round.applied = 0;
  round.apply_from = Clock::now();
  round.migrate_from = round.apply_from;
  const std::vector<std::byte> bytes = pup::pack(placement);
  for (PeId p = 0; p < state.pes; ++p) post_system(state, p, Kind::lb_apply, info.id, 0, bytes);
}

// A sync point with requested moves and no strategy step: only those moves.
void move_requested(RuntimeState& state, CollectionInfo& info) {
  LbRound& round = info.lb;
  round.distributed = false;
  round.dump_pending = false;
  std::vector<std::vector<std::pair<std::uint64_t, PeId>>> moves(
      static_cast<std::size_t>(state.pes));
  std::uint64_t count = 0;
  for (const LbRound::Request& r : round.requested) {
    if (r.from == r.to) continue;
    moves[static_cast<std::size_t>(r.from)].emplace_back(r.element, r.to);
    ++count;
  }
  round.requested.clear();
  order_moves(state, info, moves, count);
}

// A sync point that runs no strategy: an answer that is ready is applied, else requested moves
// are made, else the elements resume.
void apply_or_finish(RuntimeState& state, CollectionInfo& info) {
  if (info.lb.answer) {
    apply_answer(state, info);
    return;
  }
  if (!info.lb.requested.empty()) {
    move_requested(state, info);
    return;
  }
  finish_step(state, info);
}

void start_step(RuntimeState& state, CollectionInfo& info) {
  LbRound& round = info.lb;
  round.collect_start = tick_clock::now();
  round.strategy_from = Clock::now();
  // Asynchronously, a distributed strategy runs its central form on the balancing thread (the
  // same answer).
  round.distributed = distributed_strategy(state, info) && !round.async_point;
  round.decided = false;
  round.awaited_migrations = 0;
  round.ready = 0;
  round.done = 0;
  round.dump_pending = round.distributed && !state.options.lb_dump.empty();
  round.instance = {};
  {
    const std::lock_guard lock(info.geometry_mutex);
    round.geometry = info.geometry;
  }
  round.instance.dims = round.geometry.dims;
  round.instance.pes.assign(static_cast<std::size_t>(state.pes), lb::Pe{});
  // Strategies see each PE's speed and cluster (the grid strategies need clusters).
  for (std::size_t p = 0; p < round.instance.pes.size(); ++p) {
    round.instance.pes[p].speed = state.topology.speed[p];
    round.instance.pes[p].cluster = state.topology.cluster[p];
  }
  const std::vector<std::byte> step =
      pup::pack(CollectRequest{round.syncs, static_cast<std::uint8_t>(round.distributed)});
  for (PeId p = 0; p < state.pes; ++p) post_system(state, p, Kind::lb_collect, info.id, 0, step);
}

void dump(const RuntimeState& state, const CollectionInfo& info, const lb::Instance& instance) {
  const std::filesystem::path dir(state.options.lb_dump);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    throw std::runtime_error("--lb-dump " + dir.string() + ": cannot create: " + ec.message());
  }
  const auto file = dir / (info.name + "-step" + std::to_string(info.lb.syncs) + ".json");
  lb::write_instance(instance, file.string());
}

// The strategy a policy's decision names: --lb's own object when it is --lb's strategy with no
// parameters of its own, else one made on first use (with --lb-param too when it is --lb's
// strategy, the decision's parameters over them) and kept, so strategies with state (curve
// caches, invocation counts) keep it between calls. The balancing thread's come from
// `async_named` instead, never --lb's own object: an inline step may run that one meanwhile.
lb::Strategy* named_strategy(const RuntimeState& state, LbRound& round,
                             const lb::Decision& decision, bool asynchronous) {
  if (!asynchronous && decision.strategy == state.options.lb && decision.params.empty()) {
    return round.strategy.get();
  }
  lb::RawParams params;
  if (decision.strategy == state.options.lb) params = state.lb.settings.strategy_params;
  for (const auto& [key, value] : decision.params) params[key] = value;
  std::string key = decision.strategy;
  for (const auto& [k, v] : params) key += " " + k + "=" + v;
  auto& kept = asynchronous ? round.async_named : round.named;
  auto it = kept.find(key);
  if (it == kept.end()) {
    it = kept.emplace(key, lb::make_strategy(decision.strategy, params)).first;
  }
  return it->second.get();
}

// An asynchronous step decided: the instance goes to the balancing thread, unless an answer is
// still being computed (then this decision is skipped, as the replay drops it). Whether it went.
bool hand_over(PeState& pe, CollectionInfo& info, const lb::Decision& decision) {
  RuntimeState& state = *pe.runtime;
  LbRound& round = info.lb;
  lb::Instance instance = std::exchange(round.instance, {});
  if (round.in_flight) {
    state.stats.lb_async_skipped += 1;
    return false;
  }
  if (!state.lb_async) state.lb_async = std::make_unique<AsyncBalancer>(state);
  AsyncJob job;
  job.collection = info.id;
  job.step = round.syncs;
  job.name = decision.strategy;
  job.strategy = named_strategy(state, round, decision, true);
  job.elements = info.shape.size();
  job.instance = std::move(instance);
  round.in_flight = true;
  state.stats.lb_async_started += 1;
  if (state.timeline) {
    state.timeline->instant(pe.id, trace::Category::lb, "lb handed over", Clock::now(), info.name);
  }
  state.lb_async->submit(std::move(job));
  return true;
}

// The gathered instance in element order, checked, its edges' ends (linear indices, as the PEs
// report them) turned into positions in it. A fixed collection reported every element once; a
// dynamic one the elements there were, and an edge to an element gone since is dropped.
void order_instance(CollectionInfo& info) {
  lb::Instance& instance = info.lb.instance;
  std::sort(instance.objects.begin(), instance.objects.end(),
            [](const lb::Object& a, const lb::Object& b) { return a.id < b.id; });
  const std::uint64_t n = info.shape.size();
  bool once = info.dynamic || instance.objects.size() == n;
  for (std::size_t i = 0; once && i < instance.objects.size(); ++i) {
    const lb::ObjectId id = instance.objects[i].id;
    once = id >= 0 && static_cast<std::uint64_t>(id) < n &&
           (i == 0 || instance.objects[i - 1].id < id);
  }
  if (!once) {
    throw std::logic_error("balance: collection " + info.name + " has " +
                           std::to_string(members(info)) + " elements but the PEs reported " +
                           std::to_string(instance.objects.size()) +
                           " objects, or one of them twice");
  }
  std::vector<std::int64_t> position(n, -1);
  for (std::size_t i = 0; i < instance.objects.size(); ++i) {
    position[static_cast<std::size_t>(instance.objects[i].id)] = static_cast<std::int64_t>(i);
  }
  std::erase_if(instance.edges, [&](lb::Edge& e) {
    if (e.from >= n || e.to >= n) {
      throw std::logic_error("balance: an edge names an element outside the collection");
    }
    if (position[e.from] < 0 || position[e.to] < 0) return true;
    e.from = static_cast<std::uint32_t>(position[e.from]);
    e.to = static_cast<std::uint32_t>(position[e.to]);
    return false;
  });
}

// A strategy's answer counted: statistics, the policy told, the timeline's span (on the
// root's track inline, on the balancing thread's otherwise).
void record_answer(PeState& pe, CollectionInfo& info, const StrategyAnswer& answer,
                   bool asynchronous) {
  RuntimeState& state = *pe.runtime;
  LbRound& round = info.lb;
  state.stats.lb_steps += 1;
  state.stats.lb_seconds += answer.seconds;
  round.last_strategy_seconds = answer.seconds;
  if (state.timeline) {
    const Clock::time_point from{Clock::duration(answer.from_ns)};
    const Clock::time_point to{Clock::duration(answer.to_ns)};
    const int track = asynchronous ? state.timeline->balancer_track() : pe.id;
    state.timeline->complete(track, trace::Category::lb, answer.name, from, to, info.name);
  }
  if (round.policy) {
    lb::BalanceOutcome outcome;
    outcome.step = static_cast<std::size_t>(answer.step - 1);
    outcome.strategy = answer.name;
    outcome.strategy_seconds = answer.seconds;
    outcome.migrations = static_cast<std::size_t>(answer.moved);
    outcome.migration_seconds = state.options.lb_startup * static_cast<double>(answer.moved) +
                                state.options.lb_per_byte * static_cast<double>(answer.moved_bytes);
    outcome.imbalance_before = answer.imbalance_before;
    outcome.imbalance_after = answer.imbalance_after;
    round.policy->balanced(outcome);
  }
}

void balance(PeState& pe, CollectionInfo& info) {
  RuntimeState& state = *pe.runtime;
  LbRound& round = info.lb;
  lb::Instance& instance = round.instance;
  order_instance(info);
  lb::Decision decision{state.options.lb, {}};
  if (round.policy) {
    lb::PolicyInput input;
    input.step = static_cast<std::size_t>(round.syncs - 1);
    input.instance = &instance;
    input.costs = {state.options.lb_startup, state.options.lb_per_byte,
                   round.last_strategy_seconds};
    decision = round.policy->decide(input);
    if (!decision.balance()) {
      instance = {};
      apply_or_finish(state, info);
      return;
    }
  }
  if (!state.options.lb_dump.empty()) dump(state, info, instance);
  if (round.async_point) {
    // A collection balanced periodically goes on with its step until the answer is applied.
    if (!hand_over(pe, info, decision) || !round.periodic) apply_or_finish(state, info);
    return;
  }
  // Inline: an answer computed asynchronously and not yet applied is superseded by this one.
  if (round.answer) {
    round.answer.reset();
    state.stats.lb_async_unapplied += 1;
  }
  lb::Strategy& strategy = *named_strategy(state, round, decision, false);
  StrategyAnswer answer = solve(strategy, decision.strategy, instance,
                                state.options.lb_strategy_time, info.shape.size());
  answer.step = round.syncs;
  record_answer(pe, info, answer, false);

  // Requested moves win over the strategy's.
  std::vector<PeId>& placement = answer.placement;
  for (const LbRound::Request& r : round.requested) {
    placement[static_cast<std::size_t>(r.element)] = r.to;
  }
  round.requested.clear();
  std::vector<std::vector<std::pair<std::uint64_t, PeId>>> moves(
      static_cast<std::size_t>(state.pes));
  std::uint64_t count = 0;
  for (const lb::Object& object : instance.objects) {
    const PeId next = placement[static_cast<std::size_t>(object.id)];
    if (object.pe == next) continue;
    moves[static_cast<std::size_t>(object.pe)].emplace_back(object.id, next);
    ++count;
  }
  instance = {};
  order_moves(state, info, moves, count);
}

// The elements' places on the Hilbert curve, made once per process from the collection's shape
// (every PE knows it): the coordinates the root's instance gives its objects, so the same order.
std::shared_ptr<const lb::CurvePositions> curve_of(CollectionInfo& info, int bits) {
  const std::lock_guard lock(info.geometry_mutex);
  if (info.curve != nullptr && info.curve_bits == bits) return info.curve;
  lb::Instance coordinates;
  coordinates.dims = info.geometry.dims;
  coordinates.objects.resize(info.geometry.size());
  for (std::uint64_t i = 0; i < info.geometry.size(); ++i) {
    coordinates.objects[i].coords = coordinates_of(info.geometry, i);
  }
  info.curve = std::make_shared<const lb::CurvePositions>(lb::curve_positions(coordinates, bits));
  info.curve_bits = bits;
  return info.curve;
}

// Sends what the agent of `collection` on `pe` has to say: to other PEs as runtime messages, to
// itself straight back (not a message: nothing crosses); then tells the root when the agent
// reaches its barrier, and once it is done orders its moves and reports how many.
void pump(PeState& pe, CollectionId collection, AgentStep& step,
          std::vector<lb::AgentMessage>& out) {
  RuntimeState& state = *pe.runtime;
  std::deque<lb::AgentMessage> own;
  for (;;) {
    for (lb::AgentMessage& m : out) {
      if (m.to == pe.id) {
        own.push_back(std::move(m));
        continue;
      }
      if (const AgentObserver observe = agent_observer.load(std::memory_order_relaxed)) {
        observe(pe.id, m.to, m.tag);
      }
      AgentWire wire{step.step, pe.id, m.tag, std::move(m.ints), std::move(m.reals)};
      post_system(state, m.to, Kind::lb_agent, collection, 0, pup::pack(wire));
    }
    out.clear();
    if (own.empty()) break;
    const lb::AgentMessage next = std::move(own.front());
    own.pop_front();
    step.agent->receive(next, out);
  }
  if (step.agent->at_barrier() && !step.ready_sent) {
    step.ready_sent = true;
    post_system(state, 0, Kind::lb_ready, collection, 0, {});
  }
  if (!step.agent->done()) return;
  std::vector<std::pair<std::uint64_t, PeId>> moves;
  for (const auto& [object, to] : step.agent->moves()) moves.emplace_back(object, to);
  pe.lb.agents.erase(collection);  // `step` with it
  if (!moves.empty())
    post_system(state, pe.id, Kind::migrate_order, collection, 0, pup::pack(moves));
  post_system(state, 0, Kind::lb_done, collection, 0,
              pup::pack(static_cast<std::uint64_t>(moves.size())));
}

// This PE's agent for the step, from its own measurements; messages that came before it are
// handed to it now.
void start_agent(PeState& pe, CollectionId collection, std::uint64_t number, const Report& report) {
  RuntimeState& state = *pe.runtime;
  CollectionInfo& info = state.collection(collection);
  const std::string& name = state.options.lb;
  const lb::ParamValues& params = state.lb.settings.strategy_values;
  lb::LocalView view;
  view.pe = pe.id;
  view.pes = state.pes;
  view.objects_total = info.shape.size();
  view.background = report.background;
  view.speeds = state.topology.speed;
  view.objects.reserve(report.objects.size());
  for (const ObjectRecord& o : report.objects) {
    view.objects.push_back({static_cast<lb::ObjectPosition>(o.linear), o.load, true});
  }
  view.edges.reserve(report.edges.size());
  for (const EdgeRecord& e : report.edges) {
    view.edges.emplace_back(static_cast<lb::ObjectPosition>(e.from),
                            static_cast<lb::ObjectPosition>(e.to));
  }
  std::shared_ptr<const lb::CurvePositions> curve;
  if (name == "hilbert-distributed") curve = curve_of(info, static_cast<int>(params.get("bits")));
  // Where this PE would send a message for the element: the location manager's belief.
  lb::Locator locate = [&pe, &info](lb::ObjectPosition x) {
    const Location& known = pe.table(info.id).slots[x].location;
    return known.pe >= 0 ? known.pe : info.home[x];
  };
  AgentStep& step = pe.lb.agents[collection];
  if (step.agent || (!step.early.empty() && step.step != number)) {
    throw std::logic_error("balance: collection " + info.name + ": PE " + std::to_string(pe.id) +
                           " got a distributed strategy's messages of another step");
  }
  step.step = number;
  step.agent = lb::make_agent(name, params, std::move(view), std::move(curve), std::move(locate));
  std::vector<lb::AgentMessage> out;
  step.agent->start(out);
  for (const lb::AgentMessage& m : std::exchange(step.early, {})) step.agent->receive(m, out);
  pump(pe, collection, step, out);
}

// The root: every PE's report is in; the instance is made from them.
void add_to_instance(CollectionInfo& info, const Report& report) {
  lb::Instance& instance = info.lb.instance;
  instance.pes[static_cast<std::size_t>(report.pe)].background = report.background;
  for (const ObjectRecord& o : report.objects) {
    lb::Object object;
    object.id = static_cast<lb::ObjectId>(o.linear);
    object.load = o.load;
    object.size = o.size;
    object.coords = coordinates_of(info.lb.geometry, o.linear);
    object.pe = report.pe;
    instance.objects.push_back(object);
  }
  for (const EdgeRecord& e : report.edges) {
    instance.edges.push_back({static_cast<std::uint32_t>(e.from), static_cast<std::uint32_t>(e.to),
                              e.messages, e.bytes});
  }
}

// The measurement tree: PE p's parent is (p - 1) / fan-in, its children p * fan-in + 1 ...
// (fan-in 0: every PE reports straight to the root). A PE sends one bundle up once it has its
// own report and one bundle from each child; the root makes the instance and balances.
void gather_reports(PeState& pe, CollectionId collection, std::vector<Report> bundle) {
  RuntimeState& state = *pe.runtime;
  const auto fan_in = static_cast<std::int64_t>(state.options.lb_fan_in);
  const std::int64_t id = pe.id;
  std::int64_t children = 0;
  if (fan_in == 0) {
    children = id == 0 ? state.pes - 1 : 0;
  } else {
    const std::int64_t first = id * fan_in + 1;
    children = std::clamp<std::int64_t>(state.pes - first, 0, fan_in);
  }
  ReportGather& g = pe.lb.gathers[collection];
  for (Report& r : bundle) g.reports.push_back(std::move(r));
  if (++g.parts < children + 1) return;
  std::vector<Report> all = std::move(g.reports);
  pe.lb.gathers.erase(collection);
  if (id != 0) {
    const PeId parent = fan_in == 0 ? 0 : static_cast<PeId>((id - 1) / fan_in);
    post_system(state, parent, Kind::lb_report, collection, 0, pup::pack(all));
    return;
  }
  CollectionInfo& info = state.collection(collection);
  if (all.size() != static_cast<std::size_t>(state.pes)) {
    throw std::logic_error("balance: " + std::to_string(all.size()) + " PE reports for " +
                           std::to_string(state.pes) + " PEs");
  }
  for (const Report& r : all) add_to_instance(info, r);
  if (info.lb.distributed) {
    // Gathered for --lb-dump only: the PEs balance on their own.
    order_instance(info);
    dump(state, info, info.lb.instance);
    info.lb.instance = {};
    info.lb.dump_pending = false;
    finish_when_settled(state, info);
    return;
  }
  state.stats.lb_collect_seconds += tick_clock::seconds(tick_clock::now() - info.lb.collect_start);
  balance(pe, info);
}

// Every element there is has reached the sync point: it balances (or checkpoints first).
void sync_point_reached(PeState& pe, CollectionInfo& info) {
  RuntimeState& state = *pe.runtime;
  LbRound& round = info.lb;
  const std::uint64_t arrived = std::exchange(round.arrived, 0);
  round.at_point = true;
  if (round.how_given != 0 && round.how_given != arrived) {
    throw std::logic_error("collection " + info.name + ": " + std::to_string(round.how_given) +
                           " of its " + std::to_string(arrived) +
                           " elements asked how a balancing point balances, the others did not "
                           "(every element must ask the same)");
  }
  round.async_point = round.how == SyncBalance::asynchronous ||
                      (round.how == SyncBalance::as_run && state.lb.settings.asynchronous);
  round.how = SyncBalance::as_run;
  round.how_given = 0;
  ++round.syncs;
  if (state.timeline) state.timeline->instant(pe.id, trace::Category::lb, "at_sync", Clock::now());
  if (start_checkpoint(state, info)) return;
  continue_sync(state, info);
}

}  // namespace

void on_at_sync(PeState& pe, Message& message) {
  RuntimeState& state = *pe.runtime;
  CollectionInfo& info = state.collection(message.collection);
  LbRound& round = info.lb;
  if (round.periodic) {
    throw std::logic_error("collection " + info.name +
                           " is balanced periodically: its elements must not call at_sync()");
  }
  if (!message.payload().empty()) {
    SyncArrival arrival;
    pup::unpack(message.payload(), arrival);
    if (arrival.to >= 0) round.requested.push_back({message.element, arrival.from, arrival.to});
    const auto how = static_cast<SyncBalance>(arrival.how);
    if (how != SyncBalance::as_run) {
      if (round.how_given > 0 && how != round.how) {
        throw std::logic_error("collection " + info.name +
                               ": its elements asked one balancing point to balance both inline "
                               "and asynchronously (every element must ask the same)");
      }
      round.how = how;
      ++round.how_given;
    }
  }
  if (++round.arrived < members(info)) return;
  sync_point_reached(pe, info);
}

void sync_point_if_complete(PeState& pe, CollectionInfo& info) {
  const LbRound& round = info.lb;
  if (!round.periodic && round.arrived > 0 && round.arrived >= members(info)) {
    sync_point_reached(pe, info);
  }
}

void continue_sync(RuntimeState& state, CollectionInfo& info) {
  LbRound& round = info.lb;
  // A policy decides at every sync point, on the measurements of the step; otherwise every
  // lb_period-th sync point balances. Requested moves happen at every sync point: alone where
  // no strategy runs (or a distributed one would inline: its agents know nothing of them).
  const bool due =
      round.strategy &&
      (round.policy || round.syncs % static_cast<std::uint64_t>(state.options.lb_period) == 0);
  if (round.async_point) {
    // Measured where the policy decides (at every point: it sees every step) or where a step is
    // due and the balancing thread is free; a due step while it is busy is skipped (counted).
    if (due && (round.policy || !round.in_flight)) {
      start_step(state, info);
      return;
    }
    if (due) state.stats.lb_async_skipped += 1;
    apply_or_finish(state, info);
    return;
  }
  if (!due || (!round.requested.empty() && !round.policy && distributed_strategy(state, info))) {
    apply_or_finish(state, info);
    return;
  }
  start_step(state, info);
}

void balance_periodic_collections(PeState& pe) {
  RuntimeState& state = *pe.runtime;
  const std::size_t count = state.collection_count.load(std::memory_order_acquire);
  for (std::size_t c = 0; c < count; ++c) {
    CollectionInfo& info = *state.collections[c];
    if (!info.lb.periodic || !info.lb.strategy || info.lb.in_progress) continue;
    info.lb.in_progress = true;
    info.lb.async_point = state.lb.settings.asynchronous;
    ++info.lb.syncs;
    start_step(state, info);
  }
}

void on_lb_collect(PeState& pe, Message& message) {
  RuntimeState& state = *pe.runtime;
  const Ticks now = tick_clock::now();
  Report report;
  report.pe = pe.id;
  Ticks collection_ticks = 0;
  CollectionTable& table = pe.table(message.collection);
  report.objects.reserve(table.local);
  for (std::uint64_t i = 0; i < table.slots.size(); ++i) {
    ElementBase* element = table.slots[i].element;
    if (element == nullptr) continue;
    double& cpu = ElementAccess::cpu_seconds(*element);
    Ticks& wall = ElementAccess::wall_ticks(*element);
    // Work in seconds on a PE of speed 1: what it took here times this PE's speed.
    const double seconds = state.options.measure_cpu ? cpu : tick_clock::seconds(wall);
    double& declared = ElementAccess::declared_load(*element);
    const double load = declared >= 0.0
                            ? declared
                            : seconds * state.topology.speed[static_cast<std::size_t>(pe.id)];
    declared = -1.0;
    report.objects.push_back({i, load, pup::packed_size(*element)});
    collection_ticks += wall;
    cpu = 0.0;
    wall = 0;
    CommTable& comm = ElementAccess::comm(*element);
    for (const CommTable::Edge& e : comm.edges()) {
      report.edges.push_back({i, e.to, e.messages, e.bytes});
    }
    comm.clear();
  }
  report.background =
      std::max(0.0, tick_clock::seconds(now - pe.period_start - pe.idle_ticks - collection_ticks));
  pe.idle_ticks = 0;
  pe.period_start = now;
  CollectRequest request;
  pup::unpack(message.payload(), request);
  std::vector<Report> own;
  if (request.distributed != 0) {
    if (!state.options.lb_dump.empty()) {
      own.push_back(report);
      gather_reports(pe, message.collection, std::move(own));
    }
    start_agent(pe, message.collection, request.step, report);
    return;
  }
  own.push_back(std::move(report));
  gather_reports(pe, message.collection, std::move(own));
}

void on_lb_report(PeState& pe, Message& message) {
  std::vector<Report> bundle;
  pup::unpack(message.payload(), bundle);
  gather_reports(pe, message.collection, std::move(bundle));
}

void on_migrated(PeState& pe, Message& message) {
  RuntimeState& state = *pe.runtime;
  CollectionInfo& info = state.collection(message.collection);
  // The last arrival of a central strategy's moves ends the migration phase the step waits for.
  if (--info.lb.awaited_migrations == 0 && info.lb.decided && !info.lb.distributed) {
    state.stats.lb_migrate_seconds +=
        std::chrono::duration<double>(Clock::now() - info.lb.migrate_from).count();
  }
  finish_when_settled(state, info);
}

void on_lb_agent(PeState& pe, Message& message) {
  AgentWire wire;
  pup::unpack(message.payload(), wire);
  lb::AgentMessage m{wire.from, pe.id, wire.tag, std::move(wire.ints), std::move(wire.reals)};
  AgentStep& step = pe.lb.agents[message.collection];
  if (!step.agent) {  // this PE has not measured yet
    if (!step.early.empty() && step.step != wire.step) {
      throw std::logic_error("balance: a distributed strategy's messages of two steps at once");
    }
    step.step = wire.step;
    step.early.push_back(std::move(m));
    return;
  }
  if (wire.step != step.step) {
    throw std::logic_error("balance: a distributed strategy's message of step " +
                           std::to_string(wire.step) + " during step " + std::to_string(step.step));
  }
  std::vector<lb::AgentMessage> out;
  step.agent->receive(m, out);
  pump(pe, message.collection, step, out);
}

// The root: every agent waits at its barrier (no message between them is in flight then).
void on_lb_ready(PeState& pe, Message& message) {
  RuntimeState& state = *pe.runtime;
  CollectionInfo& info = state.collection(message.collection);
  if (++info.lb.ready < state.pes) return;
  for (PeId p = 0; p < state.pes; ++p) {
    post_system(state, p, Kind::lb_proceed, message.collection, 0, {});
  }
}

void on_lb_proceed(PeState& pe, Message& message) {
  const auto at = pe.lb.agents.find(message.collection);
  if (at == pe.lb.agents.end() || !at->second.agent) {
    throw std::logic_error("balance: a barrier passed on PE " + std::to_string(pe.id) +
                           " without its agent");
  }
  std::vector<lb::AgentMessage> out;
  at->second.agent->pass_barrier(out);
  pump(pe, message.collection, at->second, out);
}

// The root: a PE says how many moves it ordered (lb_done, lb_applied); they are awaited. Whether
// every PE has now said it (`reported` counts them).
bool count_ordered_moves(const RuntimeState& state, LbRound& round, PeId& reported,
                         Message& message) {
  std::uint64_t moves = 0;
  pup::unpack(message.payload(), moves);
  round.awaited_migrations += static_cast<std::int64_t>(moves);
  return ++reported == state.pes;
}

// The root: a PE's agent is done and its moves ordered. Once every PE's is, the step is
// decided: its time (from the request for measurements, as nothing is gathered) is the
// strategy's, as the central path counts its strategy's run.
void on_lb_done(PeState& pe, Message& message) {
  RuntimeState& state = *pe.runtime;
  CollectionInfo& info = state.collection(message.collection);
  LbRound& round = info.lb;
  if (count_ordered_moves(state, round, round.done, message)) {
    const auto to = Clock::now();
    const double seconds = std::chrono::duration<double>(to - round.strategy_from).count();
    state.stats.lb_steps += 1;
    state.stats.lb_seconds += seconds;
    round.last_strategy_seconds = seconds;
    if (state.timeline) {
      state.timeline->complete(pe.id, trace::Category::lb, state.options.lb.c_str(),
                               round.strategy_from, to, info.name);
    }
    round.decided = true;
  }
  finish_when_settled(state, info);
}

// The root: the balancing thread's answer. Kept for the next sync point; a collection balanced
// periodically applies it at once (its elements never stop).
void on_lb_answer(PeState& pe, Message& message) {
  RuntimeState& state = *pe.runtime;
  CollectionInfo& info = state.collection(message.collection);
  LbRound& round = info.lb;
  StrategyAnswer answer;
  pup::unpack(message.payload(), answer);
  round.in_flight = false;
  if (!answer.error.empty()) {
    throw std::runtime_error("balance: collection " + info.name + ": strategy " + answer.name +
                             " (on the balancing thread) failed: " + answer.error);
  }
  if (answer.placement.size() != info.shape.size()) {
    throw std::logic_error("balance: collection " + info.name + ": an answer for " +
                           std::to_string(answer.placement.size()) + " elements, expected " +
                           std::to_string(info.shape.size()));
  }
  record_answer(pe, info, answer, true);
  state.stats.lb_async_answers += 1;
  if (state.timeline) {
    state.timeline->instant(pe.id, trace::Category::lb, "lb answer ready", Clock::now(), info.name);
  }
  if (round.answer) state.stats.lb_async_unapplied += 1;  // an older one never applied
  round.answer = std::move(answer.placement);
  round.answer_name = answer.name;
  if (round.periodic) apply_answer(state, info);
}

// Every PE: its elements that the answer puts on another PE go there.
void on_lb_apply(PeState& pe, Message& message) {
  RuntimeState& state = *pe.runtime;
  std::vector<PeId> placement;
  pup::unpack(message.payload(), placement);
  const CollectionTable& table = pe.table(message.collection);
  std::vector<std::pair<std::uint64_t, PeId>> moves;
  for (std::uint64_t i = 0; i < table.slots.size() && i < placement.size(); ++i) {
    const PeId to = placement[static_cast<std::size_t>(i)];
    // Not here, or not in the answer's instance (inserted since): it stays.
    if (table.slots[i].element == nullptr || to == pe.id || to == -1) continue;
    if (to < 0 || to >= state.pes) {
      throw std::logic_error("balance: an answer puts element " + std::to_string(i) + " on PE " +
                             std::to_string(to) + " of " + std::to_string(state.pes));
    }
    moves.emplace_back(i, to);
  }
  if (!moves.empty()) {
    post_system(state, pe.id, Kind::migrate_order, message.collection, 0, pup::pack(moves));
  }
  post_system(state, 0, Kind::lb_applied, message.collection, 0,
              pup::pack(static_cast<std::uint64_t>(moves.size())));
}

// The root: a PE ordered its moves; once every PE has, the step waits for their arrivals only.
void on_lb_applied(PeState& pe, Message& message) {
  RuntimeState& state = *pe.runtime;
  CollectionInfo& info = state.collection(message.collection);
  LbRound& round = info.lb;
  if (count_ordered_moves(state, round, round.applied, message)) {
    round.decided = true;
    state.stats.lb_async_applied += 1;
  }
  finish_when_settled(state, info);
}

void on_resume(PeState& pe, Message& message) {
  std::vector<ElementBase*> local;
  const CollectionTable& table = pe.table(message.collection);
  local.reserve(table.local);
  // In index order, so that what the resumed elements send is queued deterministically.
  // Only those at the point: an element of a dynamic collection inserted since was not.
  for (const Slot& slot : table.slots) {
    if (slot.element != nullptr && ElementAccess::at_sync(*slot.element)) {
      local.push_back(slot.element);
    }
  }
  for (ElementBase* element : local) {
    ElementAccess::at_sync(*element) = false;
    run_entry(
        pe, *element, [] { return "resume_from_sync"; },
        [element] { element->resume_from_sync(); });
  }
}

}  // namespace vela::rt::detail
