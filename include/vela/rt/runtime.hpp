// The runtime: PEs (one pinned worker thread each) running a message-driven scheduler over the
// elements of collections, with measured, strategy-driven balancing at sync points.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "vela/rt/element.hpp"
#include "vela/rt/options.hpp"

namespace vela::rt {

class Context;

namespace detail {
struct RuntimeState;

// What the runtime needs to make elements of one type: default-constructed ones for migration,
// and ones built from the creation arguments.
struct ElementFactory {
  std::unique_ptr<ElementBase> (*make_default)();
  std::unique_ptr<ElementBase> (*make_with_arguments)(std::span<const std::byte>);
  const char* type = "";  // the element type's mangled name (a checkpoint names its type)
};

// Factories are registered during static initialization, one per (element type, creation
// argument types) the program uses, so that a factory id means the same in every process of
// one binary (a collection made in process 0 is built from its id in the others).
using FactoryId = std::uint32_t;
FactoryId register_factory(ElementFactory factory);
const ElementFactory& factory(FactoryId id);
FactoryId factory_count();

template <class T, class... Args>
struct Factory {
  static std::unique_ptr<ElementBase> make_default() {
    return std::unique_ptr<ElementBase>(new T());
  }
  static std::unique_ptr<ElementBase> make_with_arguments(std::span<const std::byte> bytes) {
    std::tuple<Args...> unpacked;
    pup::unpack(bytes, unpacked);
    return std::apply(
        [](auto&... a) { return std::unique_ptr<ElementBase>(new T(std::move(a)...)); }, unpacked);
  }
};

template <class T, class... Args>
inline const FactoryId factory_id = register_factory({&Factory<T, Args...>::make_default,
                                                      &Factory<T, Args...>::make_with_arguments,
                                                      typeid(T).name()});

// dynamic: no element yet; they come with insert_element and leave with ElementBase::destroy.
CollectionId create_collection(RuntimeState& state, const std::string& name, const Shape& shape,
                               std::vector<PeId> placement, FactoryId factory,
                               std::vector<std::byte> arguments, bool dynamic = false);
// Proxy::insert: asks the root for a new element at `index` built by `factory` from
// `arguments` on PE `pe` (-1: its home). Throws std::logic_error for a collection that is not
// dynamic or off a PE, std::out_of_range for an index outside the shape or a PE outside -1..P-1.
void insert_element(CollectionId collection, const Index& index, PeId pe, FactoryId factory,
                    std::vector<std::byte> arguments);
// Whether the collection is dynamic (its broadcasts go through the root).
bool collection_dynamic(CollectionId collection);
// A broadcast to the elements of a dynamic collection present when it reaches the root.
void broadcast_packed(CollectionId collection, HandlerId handler, std::vector<std::byte> arguments);
std::vector<PeId> initial_placement(const Shape& shape, InitialMap map, PeId pes);
std::vector<PeId> initial_placement(const Shape& shape, const UserMap& map, PeId pes);
const Shape& collection_shape(CollectionId collection);
// From now on, in this process, the balancing strategies see element `linear` of `collection`
// at geometry.at(linear) instead of at its index: for a program that declares its grid after
// the collection exists (MPI_Cart_create over the ranks). `geometry` must have as many cells as
// the collection has elements (else std::invalid_argument). Thread-safe; O(1), and the next
// hilbert-distributed step recomputes its curve, O(elements).
void set_collection_geometry(CollectionId collection, const Shape& geometry);
void mark_periodic(RuntimeState& state, CollectionId collection);
}  // namespace detail

// One element of a collection, for sending.
template <class T>
class ElementProxy {
 public:
  ElementProxy(CollectionId collection, std::uint64_t linear)
      : collection_(collection), linear_(linear) {}

  template <auto Method, class... Args>
  void send(Args&&... args) const {
    detail::send_entry<Method>(collection_, linear_, 0, std::forward<Args>(args)...);
  }
  // Lower values run first; equal priorities keep their order. Default priority is 0.
  template <auto Method, class... Args>
  void send_with_priority(int priority, Args&&... args) const {
    detail::send_entry<Method>(collection_, linear_, priority, std::forward<Args>(args)...);
  }

 private:
  CollectionId collection_;
  std::uint64_t linear_;
};

// A whole collection of elements of type T.
template <class T>
class Proxy {
 public:
  Proxy() = default;
  Proxy(CollectionId id, Shape shape) : id_(id), shape_(shape) {}

  CollectionId id() const { return id_; }
  const Shape& shape() const { return shape_; }

  // Throws std::out_of_range for an index outside the shape.
  ElementProxy<T> operator[](const Index& index) const {
    if (!shape_.contains(index)) {
      throw std::out_of_range("collection " + std::to_string(id_) + ": index " +
                              to_string(index, shape_.dims) + " is outside its shape");
    }
    return {id_, shape_.linear(index)};
  }
  ElementProxy<T> operator[](std::int32_t x) const { return (*this)[Index{x, 0, 0}]; }

  // One message to every element (each finds its element wherever it is). A dynamic
  // collection's goes to the elements there are when it reaches PE 0.
  template <auto Method, class... Args>
  void broadcast(const Args&... args) const {
    using Parameters = typename detail::MethodTraits<decltype(Method)>::Parameters;
    static_assert(std::tuple_size_v<Parameters> == sizeof...(Args),
                  "wrong number of arguments for this entry method");
    const Parameters values(args...);
    if (detail::collection_dynamic(id_)) {
      detail::broadcast_packed(id_, detail::handler_id<Method>, pup::pack(values));
      return;
    }
    for (std::uint64_t i = 0; i < shape_.size(); ++i) {
      detail::send_entry_tuple<Method>(id_, i, 0, values);
    }
  }

  // A dynamic collection's (Context::create_dynamic) new element at `index`, constructed as
  // T(args...) on its home PE (the collection's map's PE for the index) or on PE `pe`. It exists
  // once the request has reached PE 0 and the PE has built it; messages sent to it before then
  // wait for it. It takes part in the sync points that complete after that, and in reductions
  // from the first one not complete when the request reached PE 0. An insertion at an index
  // whose element has called destroy() waits for that element to be gone; at one whose element
  // lives on it fails the run at its end. Throws std::logic_error for a collection that is not
  // dynamic, std::out_of_range for an index outside the shape or a PE outside -1..pes()-1.
  template <class... Args>
  void insert(const Index& index, const Args&... args) const {
    insert_on(index, -1, args...);
  }
  template <class... Args>
  void insert_on(const Index& index, PeId pe, const Args&... args) const {
    static_assert(std::is_base_of_v<ElementBase, T>, "collection elements derive ElementBase");
    std::tuple<Args...> values(args...);
    detail::insert_element(id_, index, pe, detail::factory_id<T, Args...>, pup::pack(values));
  }

  // A callback that delivers a reduction's result to `Method(std::vector<double>)` of every
  // element.
  template <auto Method>
  Callback reduce_to() const {
    return {Callback::Kind::broadcast, 0, id_, detail::handler_id<Method>};
  }

 private:
  CollectionId id_ = 0;
  Shape shape_;
};

// What the main function (run on PE 0) uses to set up the computation.
class Context {
 public:
  explicit Context(detail::RuntimeState& state) : state_(state) {}

  PeId pes() const;

  // Whether this run resumes from a checkpoint (--restart DIR): create() then restores each
  // collection's elements from DIR as they were at the checkpoint's sync point, on this run's
  // PEs, and calls their resume_from_sync() once all of them exist, so main must not start them
  // again. main must make its callbacks and reducers in the same order as the run that wrote the
  // checkpoint (elements hold them by number), and create() each collection with the same
  // arguments (checked).
  bool restarted() const;

  // Creates a collection: every element is constructed as T(args...) on its initial PE (its
  // index() is known in the constructor). T must also be default-constructible for migration.
  template <class T, class... Args>
  Proxy<T> create(const std::string& name, const Shape& shape, InitialMap map,
                  const Args&... args) {
    return create_with<T>(name, shape, detail::initial_placement(shape, map, pes()), args...);
  }
  template <class T, class... Args>
  Proxy<T> create(const std::string& name, const Shape& shape, const UserMap& map,
                  const Args&... args) {
    return create_with<T>(name, shape, detail::initial_placement(shape, map, pes()), args...);
  }

  // Creates a dynamic collection: no element yet. Proxy::insert adds elements at indices of
  // `shape`, ElementBase::destroy removes them; the map gives each index its home PE (which
  // knows where its element is, and where an insertion builds it by default). Its sync points
  // wait for the elements there are, its reductions for those that take part in them, and a
  // balancing answer computed asynchronously is applied to the elements still there, those
  // inserted since staying where they are (docs/architecture.md, "Dynamic collections").
  template <class T>
  Proxy<T> create_dynamic(const std::string& name, const Shape& shape, InitialMap map) {
    return create_dynamic_with<T>(name, shape, detail::initial_placement(shape, map, pes()));
  }
  template <class T>
  Proxy<T> create_dynamic(const std::string& name, const Shape& shape, const UserMap& map) {
    return create_dynamic_with<T>(name, shape, detail::initial_placement(shape, map, pes()));
  }

  // Lets the runtime balance `proxy`'s collection every --lb-interval seconds while it runs:
  // elements move between two entry methods, and messages follow them. Such a collection has
  // no sync points (its elements must not call at_sync()).
  template <class T>
  void balance_periodically(const Proxy<T>& proxy) {
    detail::mark_periodic(state_, proxy.id());
  }

  // A combining function for contribute(values, reducer, …); it runs on PE 0.
  Reducer reducer(
      std::function<void(std::vector<double>& into, const std::vector<double>& next)> combine);

  // A function that receives reductions' results, on PE 0.
  Callback callback(std::function<void(const std::vector<double>&)> function);

  // Ends the run: each PE stops after the message it is running, messages still queued are
  // dropped, and run() returns `code`.
  void exit(int code = 0);

 private:
  template <class T, class... Args>
  Proxy<T> create_with(const std::string& name, const Shape& shape, std::vector<PeId> placement,
                       const Args&... args) {
    static_assert(std::is_base_of_v<ElementBase, T>, "collection elements derive ElementBase");
    static_assert(std::is_default_constructible_v<T>, "elements need a default constructor");
    std::tuple<Args...> values(args...);
    const CollectionId id =
        detail::create_collection(state_, name, shape, std::move(placement),
                                  detail::factory_id<T, Args...>, pup::pack(values));
    return Proxy<T>(id, shape);
  }

  template <class T>
  Proxy<T> create_dynamic_with(const std::string& name, const Shape& shape,
                               std::vector<PeId> placement) {
    static_assert(std::is_base_of_v<ElementBase, T>, "collection elements derive ElementBase");
    static_assert(std::is_default_constructible_v<T>, "elements need a default constructor");
    const CollectionId id = detail::create_collection(state_, name, shape, std::move(placement),
                                                      detail::factory_id<T>, {}, true);
    return Proxy<T>(id, shape);
  }

  detail::RuntimeState& state_;
};

// What a run did, for reports and tests.
struct RunStats {
  std::uint64_t messages = 0;    // entry-method messages delivered
  std::uint64_t forwarded = 0;   // of those, forwarded by a PE the element had left
  std::uint64_t lb_steps = 0;    // balancing steps that ran a strategy
  std::uint64_t migrations = 0;  // elements moved
  std::uint64_t migrated_bytes = 0;
  double lb_seconds = 0.0;          // strategy time, summed
  double lb_collect_seconds = 0.0;  // from asking for measurements to the instance, summed
  double lb_migrate_seconds = 0.0;  // from the central strategy's moves to their last arrival
  // Asynchronous balancing: instances handed to the balancing thread, answers that came back,
  // answers applied; steps skipped (due while the thread was busy: the replay's dropped
  // decisions); answers never applied (superseded by an inline step, or still being computed or
  // waiting for a sync point when the run ended).
  std::uint64_t lb_async_started = 0;
  std::uint64_t lb_async_answers = 0;
  std::uint64_t lb_async_applied = 0;
  std::uint64_t lb_async_skipped = 0;
  std::uint64_t lb_async_unapplied = 0;
  std::uint64_t wan_messages = 0;      // messages between PEs of different clusters
  std::uint64_t wan_bytes = 0;         // their argument bytes
  std::uint64_t grid_messages = 0;     // messages run from a Grid Queue (to border elements)
  std::uint64_t shared_cores = 0;      // pinned PEs whose core another busy process shared
  std::uint64_t parks = 0;             // times an idle PE slept until woken (after polling)
  std::uint64_t compact_in_place = 0;  // small messages a waiting entry ran from their ring slot
  std::uint64_t checkpoints = 0;       // checkpoint files written (--checkpoint)
  std::uint64_t checkpoint_bytes = 0;  // their size
  double checkpoint_seconds = 0.0;     // from asking the PEs for their elements to the rename
  std::uint64_t restored = 0;          // elements restored from a checkpoint (--restart)
  std::uint64_t restored_sync = 0;     // the sync point they were saved at (the last one's)

  // "lb: C ms collecting, S ms in the strategy per step, M ms migrating per step\n" (per
  // balancing step), or "" when no step balanced: the line the applications print. With
  // asynchronous steps a second line: "lb async: H handed over, A applied, S skipped while
  // busy, U never applied\n".
  std::string balancing_line() const;
};

class Runtime {
 public:
  // Throws std::invalid_argument for bad options (naming the option).
  explicit Runtime(Options options);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  PeId pes() const;  // of the whole run (every process)
  // Under mpirun: this process's rank and the number of processes (0 and 1 otherwise). main
  // runs in process 0 only; print results there.
  int process() const;
  int processes() const;
  // Before run(), in every process (a collective): whether every process passed the same value.
  bool same_on_every_process(std::uint64_t value);
  // Before run(), in every process: whether the program's code (executable and the libraries
  // loaded with it) sits at the same addresses in every process, as it was when this runtime
  // was made; a rank's stack moves to another process only then.
  bool same_code_on_every_process();

  // Starts the PEs, runs `main` on PE 0 and schedules messages until quiescence (no message
  // queued, in flight or running) or Context::exit; writes the trace if asked; returns the
  // exit code (0 at quiescence). An exception escaping an entry method ends the run and is
  // rethrown here.
  int run(const std::function<void(Context&)>& main);

  const RunStats& stats() const;
  // The options it runs with (--pes resolved to the run's PE count).
  const Options& options() const;

 private:
  std::unique_ptr<detail::RuntimeState> state_;
};

}  // namespace vela::rt
