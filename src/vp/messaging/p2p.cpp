// Point-to-point messages between ranks: a send puts the data into a runtime message to the
// destination rank's element. A small one is copied (eager: the send completes at once); a large
// one is read where it lies, and the send completes once the receiving side has its copy (the
// matching receive's buffer, or a block of its own when no receive is posted yet: it never waits
// for the receiving program). Arrivals are put back in send order per sender and channel, then
// matched against posted receives in MPI's order (the first posted receive that matches; else
// kept, in arrival order, for a later receive or probe).
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>

#include "fibers/rank.hpp"
#include "memory/active_heap.hpp"
#include "messaging/spin.hpp"
#include "vela/rt/rank_seam.hpp"

namespace vela::vp::detail {

namespace {

std::uint64_t order_key(int peer, std::uint8_t channel) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(peer)) << 1) | channel;
}

bool matches(const RequestState& r, const Envelope& e) {
  return r.context == e.context && r.channel == e.channel() &&
         (r.source == any_source || r.source == e.source()) &&
         (r.tag == any_tag || r.tag == e.tag());
}

bool compatible(Type sent, Type received) {
  return sent == received || sent == Type::bytes || received == Type::bytes ||
         size_of(sent) == size_of(received);
}

// A synchronous send matched by `rank`: its sender is told (tag: the send's sequence number).
void acknowledge(RankContext& rank, const Envelope& e) {
  if (!e.synchronous()) return;
  const Delivery delivery = current() != nullptr ? Delivery::eager : Delivery::queued;
  post_message(rank, nullptr, 0, Type::bytes, e.source(), static_cast<int>(e.seq & 0x7fffffffu),
               {p2p_channel, sync_ack_context}, {delivery, false});
}

// Completes receive `r` with the message `e`, `data`, and lets go of the data (a lent buffer
// released); an error (truncation, type) is raised by the wait.
void fill(RankContext& rank, RequestState& r, const Envelope& e, Payload& data) {
  acknowledge(rank, e);
  r.complete = true;
  r.status.source = e.source();
  r.status.tag = e.tag();
  r.status.bytes = data.size();
  r.status.type = e.type();
  r.status.context = e.context;
  if (!compatible(e.type(), r.type)) {
    r.error = std::make_exception_ptr(
        TypeMismatch(std::string(r.call) + ": a message of " + name_of(e.type()) + " from rank " +
                     std::to_string(e.source()) + " (tag " + std::to_string(e.tag()) +
                     ") received as " + name_of(r.type) + ": the datatypes' sizes differ"));
    data = Payload{};
    return;
  }
  if (data.size() > r.capacity) {
    r.error = std::make_exception_ptr(Truncated(
        std::string(r.call) + ": the message from rank " + std::to_string(e.source()) + " (tag " +
        std::to_string(e.tag()) + ") has " + std::to_string(data.size()) +
        " bytes, the receive buffer holds " + std::to_string(r.capacity) + " (truncated)"));
    data = Payload{};
    return;
  }
  if (r.take != nullptr) {
    data.hand_to(r.take, r.taker);
  } else {
    data.copy_to(r.buffer);  // empties it
  }
}

// An in-order arrival: the first matching posted receive takes it, else it is kept.
void match_arrival(RankContext& rank, const Envelope& e, Payload&& data) {
  if (e.context == remote_context) [[unlikely]] {
    run_remote(rank, e, data);
    return;
  }
  for (auto it = rank.posted.begin(); it != rank.posted.end(); ++it) {
    if (matches(**it, e)) {
      RequestState* r = *it;
      rank.posted.erase(it);
      fill(rank, *r, e, data);
      return;
    }
  }
  // Kept: its bytes must not stay in the sender's buffer or on their way, unless the sender
  // waits for this receive (held).
  if (!data.held()) data.settle();
  rank.unexpected.push_back(Incoming{e, std::move(data)});
}

// What a rank message of `bytes` bytes counts in the communication graph, as the runtime counts
// its arguments: a small one's SmallArrival, else its envelope and payload packed (the payload's
// length prefix is the packed size of an empty one).
std::size_t counted_bytes(std::size_t bytes) {
  static const std::size_t overhead = pup::packed_size(Envelope{}) + pup::packed_size(Payload{});
  return SmallArrival::fits(bytes) ? sizeof(SmallArrival) : overhead + bytes;
}

}  // namespace

void bad_peer(const char* call, const char* what, int peer, int size, bool any_allowed) {
  throw Error(std::string(call) + ": " + what + " " + std::to_string(peer) + " is outside 0.." +
              std::to_string(size - 1) + (any_allowed ? " (or any source)" : ""));
}

void bad_tag(const char* call, int tag, bool any_allowed) {
  throw Error(std::string(call) + ": tag " + std::to_string(tag) + " is outside 0.." +
              std::to_string(max_tag) + (any_allowed ? " (or any tag)" : ""));
}

void bad_buffer(const char* call, const void* buffer, std::size_t count, Type type) {
  if (static_cast<std::uint8_t>(type) > static_cast<std::uint8_t>(Type::pair_i32_i32)) {
    throw Error(std::string(call) + ": unknown datatype " + std::to_string(static_cast<int>(type)));
  }
  if (count >= (std::size_t{1} << 40) || count * size_of(type) > (std::size_t{1} << 40)) {
    throw Error(std::string(call) + ": count " + std::to_string(count) +
                " is negative or too large (at most 2^40 bytes per message)");
  }
  static_cast<void>(buffer);
  throw Error(std::string(call) + ": null buffer for " + std::to_string(count) + " elements");
}

namespace {

// Stack a rank must have left to wait in place: the runtime's wait (the transport's progress,
// MPI's included) and a delivery then run on it.
constexpr std::size_t in_place_stack_bytes = 64 * 1024;

// A blocked rank whose PE has nothing else to do waits on its own stack, and takes the message
// that arrives for it there, without two switches and the scheduler's pass between them
// (rt::detail::wait_in_place). Not under the TLS method (the runtime's code would run with the
// rank's thread-locals), nor on a rank whose stack is nearly used up (a small --vp-stack).
bool wait_here(RankContext& rank) {
  World& world = *rank.world;
  if (world.options->tls_globals || rank.cancelled) return false;
  const auto depth = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
  if (depth - reinterpret_cast<std::uintptr_t>(rank.stack) < in_place_stack_bytes) return false;
  if (world.here.empty()) return false;
  World::PeLocal& pe = world.here[static_cast<std::size_t>(rank.element->pe())];
  // A rank that a same-PE send made ready runs first.
  if (!pe.ready.empty()) return false;
  const HeapPause pause;  // what the runtime allocates meanwhile is not the rank's
  static const rt::HandlerId arrivals[] = {rt::detail::handler_id<&RankElement::deliver>,
                                           rt::detail::handler_id<&RankElement::deliver_small>};
  if (!rt::detail::wait_in_place(*rank.element, arrivals)) {
    return false;
  }
  ++pe.in_place;
  return true;
}

}  // namespace

void block(RankContext& rank, int source, int tag, bool collective, const char* call) {
  rank.waiting_source = source;
  rank.waiting_tag = tag;
  rank.waiting_collective = collective;
  if (wait_here(rank)) return;  // something came for it: the caller looks again
  suspend(rank, RankState::blocked, call);
}

bool accept(RankContext& rank, const Envelope& envelope, Payload&& data) {
  const std::uint64_t key = order_key(envelope.source(), envelope.channel());
  std::uint32_t& expected = rank.next_receive.counter(key);
  if (envelope.seq != expected) {
    // A later message overtook an earlier one (a migration forwarded the earlier): hold it.
    data.settle();
    rank.early.emplace(std::make_pair(key, envelope.seq), Incoming{envelope, std::move(data)});
    return false;
  }
  ++expected;
  match_arrival(rank, envelope, std::move(data));
  if (rank.early.empty()) return true;
  // Arrivals held for this one follow it.
  for (auto it = rank.early.find({key, expected}); it != rank.early.end();
       it = rank.early.find({key, expected})) {
    Incoming in = std::move(it->second);
    rank.early.erase(it);
    ++expected;
    match_arrival(rank, in.envelope, std::move(in.data));
  }
  return true;
}

namespace {

SmallArrival small_arrival(const Envelope& e, const void* buffer, std::size_t bytes) {
  SmallArrival a{};  // every byte set: no stale stack bytes travel or go into a checkpoint
  std::memcpy(a.envelope, &e, sizeof e);
  a.size = static_cast<std::uint8_t>(bytes);
  if (bytes > 0) std::memcpy(a.bytes, buffer, bytes);
  return a;
}

SendLoan* new_loan(const RankContext& rank) {
  auto* loan = new SendLoan;
  loan->world = rank.world;
  loan->rank = rank.rank;
  return loan;
}

// Claims chunks of the loan's published copy and copies them until none is left; adds what it
// copied to `copied` (release: the bytes are in before the count says so) and returns it.
std::size_t copy_chunks(SendLoan& loan, std::byte* to) {
  const std::size_t chunks = (loan.size + share_chunk_bytes - 1) / share_chunk_bytes;
  std::size_t mine = 0;
  for (std::size_t c = loan.next.fetch_add(1, std::memory_order_relaxed); c < chunks;
       c = loan.next.fetch_add(1, std::memory_order_relaxed)) {
    const std::size_t at = c * share_chunk_bytes;
    const std::size_t n = std::min(share_chunk_bytes, loan.size - at);
    std::memcpy(to + at, loan.from + at, n);
    mine += n;
  }
  if (mine != 0) loan.copied.fetch_add(mine, std::memory_order_release);
  return mine;
}

// How long a sender with nothing else to run waits for its receiver to start the copy before it
// gives its PE back (a message between PEs takes about a microsecond), and for the receiver to
// finish after its own share.
constexpr auto publish_wait = std::chrono::microseconds(5);
constexpr auto finish_wait = std::chrono::milliseconds(1);

// The sender's share of a large copy to another PE of this process (copy_lent), taken when its
// PE has nothing else to run. True when the loan is done (the sender need not block).
bool help_copy(RankContext& rank, SendLoan& loan) {
  if (!loan.may_help || rank.world->here.empty()) return false;
  World::PeLocal& pe = rank.world->here[static_cast<std::size_t>(rank.element->pe())];
  if (!pe.ready.empty() || rt::detail::pe_has_waiting_messages()) return false;
  const auto start = std::chrono::steady_clock::now();
  for (unsigned spins = 1; loan.to.load(std::memory_order_relaxed) == nullptr; ++spins) {
    if (loan.done.load()) return true;
    if (spins % 64 == 0 && (std::chrono::steady_clock::now() - start > publish_wait ||
                            rt::detail::pe_has_waiting_messages())) {
      return false;
    }
    cpu_pause();
  }
  help_with_copy(pe, loan);
  // The receiver copies its last chunk, then lets go of the bytes.
  const auto copied = std::chrono::steady_clock::now();
  for (unsigned spins = 1; !loan.done.load(); ++spins) {
    if (spins % 64 == 0 && std::chrono::steady_clock::now() - copied > finish_wait) return false;
    cpu_pause();
  }
  return true;
}

}  // namespace

void help_with_copy(World::PeLocal& pe, SendLoan& loan) {
  std::byte* to = loan.to.load(std::memory_order_acquire);
  if (to != nullptr && copy_chunks(loan, to) != 0) ++pe.shared_copies;
}

void copy_lent(SendLoan& loan, std::byte* to, const std::byte* from, std::size_t size) {
  if (!loan.may_help || size < 2 * share_chunk_bytes) {
    if (size != 0) std::memcpy(to, from, size);
    return;
  }
  loan.from = from;
  loan.size = size;
  loan.to.store(to, std::memory_order_release);
  // A sender that blocked (its PE idle, or busy with other ranks) is asked to help; one still
  // spinning in help_copy sees `to` itself.
  if (loan.waiting.load() && rt::detail::this_pe() != nullptr) {
    try {
      rt::detail::send_entry<&RankElement::help>(loan.world->ranks.id(),
                                                 static_cast<std::uint64_t>(loan.rank), 0);
    } catch (...) {
      // The run is stopping: the receiver copies it all.
    }
  }
  copy_chunks(loan, to);
  // The sender's PE may still be copying its last chunk (yielding the core after a while: the
  // sender's thread may have been preempted).
  for (unsigned spins = 0; loan.copied.load(std::memory_order_acquire) != size; ++spins) {
    if (spins < 4096) {
      cpu_pause();
    } else {
      sched_yield();
    }
  }
}

SendLoan* post_message_lent(RankContext& rank, const void* buffer, std::size_t bytes, Type type,
                            int dest, int tag, Route route, SendMode mode) {
  const Delivery delivery = mode.delivery;
  const std::uint8_t channel = route.channel;
  const HeapPause pause;  // the payload and the receiver's queue entries are not this rank's
  Envelope e;
  e.set(rank.rank, type, tag, channel, mode.synchronous);
  e.seq = rank.next_send.counter(order_key(dest, channel))++;
  e.context = route.context;
  World& world = *rank.world;
  const auto to = static_cast<std::uint64_t>(dest);
  rt::ElementBase* here = nullptr;
  if (delivery != Delivery::queued) {
    here = rt::detail::local_send(world.ranks.id(), to, counted_bytes(bytes));
  }
  const std::size_t lend_from =
      mode.lend_from != 0 ? mode.lend_from : rt::detail::external_bytes_from;
  if (here != nullptr) {
    // The destination lives on this PE: matched now, without a message (the bytes copied once,
    // into the posted receive or else a payload of its own, unless held: then the receiver
    // copies them when it posts its receive, and the sender waits). A rank this makes ready
    // runs on this PE straight after the sender gives it back (run_on_pe).
    SendLoan* loan = nullptr;
    if (mode.held && bytes >= lend_from && delivery == Delivery::normal && dest != rank.rank)
      loan = new_loan(rank);
    RankContext& receiver = *static_cast<RankElement*>(here)->context();
    World::PeLocal& pe = world.here[static_cast<std::size_t>(here->pe())];
    ++pe.handoffs;
    if (accept(receiver, e, Payload::borrowed(buffer, bytes, loan, true)) &&
        receiver.state == RankState::blocked) {
      receiver.state = RankState::ready;
      pe.ready.push_back(&receiver);
    }
    return loan;
  }
  if (SmallArrival::fits(bytes)) {
    rt::detail::send_entry<&RankElement::deliver_small>(world.ranks.id(), to, 0,
                                                        small_arrival(e, buffer, bytes));
    return nullptr;
  }
  if (bytes < lend_from || delivery != Delivery::normal) {
    rt::detail::send_entry<&RankElement::deliver>(world.ranks.id(), to, 0, e,
                                                  Payload(buffer, bytes));
    return nullptr;
  }
  // A large message is read where it lies: the receiver copies it once (received straight into
  // its buffer from another process of this machine), and this rank waits until that is done.
  SendLoan* loan = new_loan(rank);
  loan->may_help = !mode.held && rt::detail::element_in_process(world.ranks.id(), to);
  try {
    rt::detail::send_entry<&RankElement::deliver>(
        world.ranks.id(), to, 0, e, Payload::borrowed(buffer, bytes, loan, mode.held));
  } catch (...) {
    let_go(loan);  // the rank's hold (the payload, if it was made, let go of its own)
    throw;
  }
  return loan;
}

void wait_loan(RankContext& rank, SendLoan* loan, int dest, int tag, bool collective) {
  if (help_copy(rank, *loan)) return;
  struct Waiting {  // what RankElement::help looks at, cleared however the wait ends
    RankContext& rank;
    ~Waiting() { rank.waiting_loan = nullptr; }
  } waiting{rank};
  rank.waiting_loan = loan;
  // release() stores done before it reads waiting: one of the two sees the other.
  loan->waiting.store(true);
  while (!loan->done.load()) block(rank, dest, tag, collective, "send");
}

void let_go(SendLoan* loan) noexcept {
  if (loan->holders.fetch_sub(1, std::memory_order_acq_rel) == 1) delete loan;
}

void post_message(RankContext& rank, const void* buffer, std::size_t bytes, Type type, int dest,
                  int tag, Route route, SendMode mode) {
  SendLoan* loan = post_message_lent(rank, buffer, bytes, type, dest, tag, route, mode);
  if (loan == nullptr) return;
  struct Leave {  // the rank's hold, let go even when it is unwound while it waits
    SendLoan* loan;
    ~Leave() { let_go(loan); }
  } leave{loan};
  wait_loan(rank, loan, dest, tag, route.channel == collective_channel);
}

void release(SendLoan* loan) noexcept {
  loan->done.store(true);
  if (loan->waiting.load() && rt::detail::this_pe() != nullptr) {
    try {
      rt::detail::send_entry<&RankElement::sent>(loan->world->ranks.id(),
                                                 static_cast<std::uint64_t>(loan->rank), 0);
    } catch (...) {
      // The run is stopping: nothing resumes the rank any more.
    }
  }
  let_go(loan);
}

namespace {

// Fills `r` as a receive and matches it with what already arrived, else posts it.
void start_receive(RankContext& rank, RequestState* r, void* buffer, std::size_t count, Type type,
                   int source, int tag, Route route, const char* call) {
  r->receive = true;
  r->call = call;
  r->buffer = buffer;
  r->capacity = count * size_of(type);
  r->type = type;
  r->source = source;
  r->tag = tag;
  r->context = route.context;
  r->channel = route.channel;
  for (auto it = rank.unexpected.begin(); it != rank.unexpected.end(); ++it) {
    if (matches(*r, it->envelope)) {
      Incoming in = std::move(*it);
      rank.unexpected.erase(it);
      fill(rank, *r, in.envelope, in.data);
      return;
    }
  }
  rank.posted.push_back(r);
}

}  // namespace

RequestState* post_receive(RankContext& rank, void* buffer, std::size_t count, Type type,
                           int source, int tag, Route route, const char* call) {
  RequestState* r = rank.new_request();
  start_receive(rank, r, buffer, count, type, source, tag, route, call);
  return r;
}

namespace {

// A blocking receive into `r`, filled in by the caller (or its take).
Status receive_into(RankContext& rank, RequestState& r, void* buffer, std::size_t count, Type type,
                    int source, int tag, Route route, const char* call) {
  start_receive(rank, &r, buffer, count, type, source, tag, route, call);
  struct Unpost {  // a rank unwound while it waits leaves no pointer to its stack behind
    RankContext& rank;
    RequestState& r;
    ~Unpost() {
      if (!r.complete) std::erase(rank.posted, &r);
    }
  } unpost{rank, r};
  while (!r.complete) {
    block(rank, source, tag, route.channel == collective_channel, call);
  }
  if (r.error) std::rethrow_exception(r.error);
  return r.status;
}

}  // namespace

Status receive_now(RankContext& rank, void* buffer, std::size_t count, Type type, int source,
                   int tag, Route route, const char* call) {
  RequestState r;  // on the rank's stack: a blocking receive needs no request from the pool
  return receive_into(rank, r, buffer, count, type, source, tag, route, call);
}

Status receive_taken(RankContext& rank, void (*take)(void*, const std::byte*, std::size_t),
                     void* taker, std::size_t capacity, int source, int tag, Route route,
                     const char* call) {
  RequestState r;
  r.take = take;
  r.taker = taker;
  return receive_into(rank, r, nullptr, capacity, Type::bytes, source, tag, route, call);
}

Status complete(RankContext& rank, RequestState* request) {
  while (!request->complete) {
    block(rank, request->source, request->tag, request->channel == collective_channel,
          request->call);
  }
  const Status status = request->status;
  std::exception_ptr error = request->error;
  rank.release(request);
  if (error) std::rethrow_exception(error);
  return status;
}

}  // namespace vela::vp::detail

namespace vela::vp {

using namespace detail;

std::size_t Status::count(Type t) const {
  const std::size_t element = size_of(t);
  if (bytes % element != 0) {
    throw Error("Status::count: " + std::to_string(bytes) + " bytes are not a whole number of " +
                name_of(t));
  }
  return bytes / element;
}

namespace {

// The checks of one send's arguments, named after `call`; returns the message's bytes.
std::size_t check_send(const char* call, const RankContext& rank, const void* buffer,
                       std::size_t count, Type type, int dest, int tag) {
  const std::size_t bytes = check_buffer(call, buffer, count, type);
  check_peer(call, "dest", dest, rank.world->size, false);
  check_tag(call, tag, false);
  return bytes;
}

// The checks of one receive's arguments, named after `call`.
void check_receive(const char* call, const RankContext& rank, const void* buffer, std::size_t count,
                   Type type, int source, int tag) {
  check_buffer(call, buffer, count, type);
  check_peer(call, "source", source, rank.world->size, true);
  check_tag(call, tag, true);
}

}  // namespace

void send(const void* buffer, std::size_t count, Type type, int dest, int tag,
          std::uint32_t context) {
  constexpr const char* call = "send";
  RankContext& rank = current(call);
  const std::size_t bytes = check_send(call, rank, buffer, count, type, dest, tag);
  post_message(rank, buffer, bytes, type, dest, tag, {p2p_channel, context});
}

namespace {

// Posts the receive of the acknowledgement of the synchronous send `rank` is about to make to
// `dest` on `channel` (its sequence number is the next one there), then sends.
RequestState* send_synchronously(RankContext& rank, const void* buffer, std::size_t bytes,
                                 Type type, int dest, int tag, Route route, const char* call) {
  const std::uint32_t seq = rank.next_send.counter(order_key(dest, route.channel));
  RequestState* ack =
      post_receive(rank, nullptr, 0, Type::bytes, dest, static_cast<int>(seq & 0x7fffffffu),
                   {p2p_channel, sync_ack_context}, call);
  post_message(rank, buffer, bytes, type, dest, tag, route, {Delivery::normal, true});
  return ack;
}

// A send request complete at once (the data copied).
Request completed_send(RankContext& rank, const char* call, int dest, int tag, std::size_t bytes,
                       Type type) {
  RequestState* r = rank.new_request();
  r->call = call;
  r->complete = true;
  r->status.source = dest;
  r->status.tag = tag;
  r->status.bytes = bytes;
  r->status.type = type;
  return Request(r);
}

}  // namespace

Request isend(const void* buffer, std::size_t count, Type type, int dest, int tag,
              std::uint32_t context) {
  constexpr const char* call = "isend";
  RankContext& rank = current(call);
  const std::size_t bytes = check_send(call, rank, buffer, count, type, dest, tag);
  post_message(rank, buffer, bytes, type, dest, tag, {p2p_channel, context});
  // The data was copied, or delivered: the request is complete.
  return completed_send(rank, call, dest, tag, bytes, type);
}

void ssend(const void* buffer, std::size_t count, Type type, int dest, int tag,
           std::uint32_t context) {
  constexpr const char* call = "ssend";
  RankContext& rank = current(call);
  const std::size_t bytes = check_send(call, rank, buffer, count, type, dest, tag);
  complete(rank,
           send_synchronously(rank, buffer, bytes, type, dest, tag, {p2p_channel, context}, call));
}

Request issend(const void* buffer, std::size_t count, Type type, int dest, int tag,
               std::uint32_t context) {
  constexpr const char* call = "issend";
  RankContext& rank = current(call);
  const std::size_t bytes = check_send(call, rank, buffer, count, type, dest, tag);
  return Request(
      send_synchronously(rank, buffer, bytes, type, dest, tag, {p2p_channel, context}, call));
}

Request bsend(const void* buffer, std::size_t count, Type type, int dest, int tag,
              std::uint32_t context) {
  constexpr const char* call = "bsend";
  RankContext& rank = current(call);
  const std::size_t bytes = check_send(call, rank, buffer, count, type, dest, tag);
  post_message(rank, buffer, bytes, type, dest, tag, {p2p_channel, context},
               {Delivery::eager, false});
  return completed_send(rank, call, dest, tag, bytes, type);
}

Request irecv(void* buffer, std::size_t count, Type type, int source, int tag,
              std::uint32_t context) {
  constexpr const char* call = "irecv";
  RankContext& rank = current(call);
  check_receive(call, rank, buffer, count, type, source, tag);
  return Request(
      post_receive(rank, buffer, count, type, source, tag, {p2p_channel, context}, call));
}

Status recv(void* buffer, std::size_t count, Type type, int source, int tag,
            std::uint32_t context) {
  constexpr const char* call = "recv";
  RankContext& rank = current(call);
  check_receive(call, rank, buffer, count, type, source, tag);
  return receive_now(rank, buffer, count, type, source, tag, {p2p_channel, context}, call);
}

Status sendrecv(const void* send_buffer, std::size_t send_count, Type send_type, int dest,
                int send_tag, void* recv_buffer, std::size_t recv_count, Type recv_type, int source,
                int recv_tag, std::uint32_t context) {
  constexpr const char* call = "sendrecv";
  RankContext& rank = current(call);
  check_receive(call, rank, recv_buffer, recv_count, recv_type, source, recv_tag);
  const std::size_t bytes =
      check_send(call, rank, send_buffer, send_count, send_type, dest, send_tag);
  const Route route{p2p_channel, context};
  RequestState* r =
      post_receive(rank, recv_buffer, recv_count, recv_type, source, recv_tag, route, call);
  post_message(rank, send_buffer, bytes, send_type, dest, send_tag, route);
  return complete(rank, r);
}

namespace {

RequestState* owned(const Request& request, const char* call) {
  RequestState* r = request.state();
  if (r == nullptr) return nullptr;
  if (!r->in_use) throw Error(std::string(call) + ": the request was already completed or freed");
  return r;
}

}  // namespace

Status wait(Request& request) {
  constexpr const char* call = "wait";
  RankContext& rank = current(call);
  RequestState* r = owned(request, call);
  request.reset();
  if (r == nullptr) return Status{};
  return complete(rank, r);
}

void waitall(std::span<Request> requests, std::span<Status> statuses) {
  constexpr const char* call = "waitall";
  RankContext& rank = current(call);
  if (!statuses.empty() && statuses.size() != requests.size()) {
    throw Error(std::string(call) + ": " + std::to_string(statuses.size()) + " statuses for " +
                std::to_string(requests.size()) + " requests");
  }
  for (Request& q : requests) owned(q, call);
  // Wait for all, then free all: an error in one does not leave the others in flight.
  for (;;) {
    bool all = true;
    for (Request& q : requests) {
      if (q.state() != nullptr && !q.state()->complete) all = false;
    }
    if (all) break;
    block(rank, any_source, any_tag, false, call);
  }
  std::exception_ptr first;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    RequestState* r = requests[i].state();
    requests[i].reset();
    Status s;
    if (r != nullptr) {
      s = r->status;
      if (r->error && !first) first = r->error;
      rank.release(r);
    }
    if (!statuses.empty()) statuses[i] = s;
  }
  if (first) std::rethrow_exception(first);
}

int waitany(std::span<Request> requests, Status* status) {
  constexpr const char* call = "waitany";
  RankContext& rank = current(call);
  for (Request& q : requests) owned(q, call);
  for (;;) {
    bool any_active = false;
    for (std::size_t i = 0; i < requests.size(); ++i) {
      RequestState* r = requests[i].state();
      if (r == nullptr) continue;
      any_active = true;
      if (r->complete) {
        requests[i].reset();
        const Status s = complete(rank, r);
        if (status != nullptr) *status = s;
        return static_cast<int>(i);
      }
    }
    if (!any_active) {
      if (status != nullptr) *status = Status{};
      return -1;
    }
    block(rank, any_source, any_tag, false, call);
  }
}

bool test(Request& request, Status* status) {
  constexpr const char* call = "test";
  RankContext& rank = current(call);
  RequestState* r = owned(request, call);
  if (r == nullptr) {
    if (status != nullptr) *status = Status{};
    return true;
  }
  if (!r->complete) return false;
  request.reset();
  const Status s = complete(rank, r);
  if (status != nullptr) *status = s;
  return true;
}

bool ready(const Request& request) {
  const RequestState* r = owned(request, "ready");
  return r == nullptr || r->complete;
}

std::optional<Status> status_of(const Request& request) {
  const RequestState* r = owned(request, "status_of");
  if (r == nullptr) return Status{};
  if (!r->complete) return std::nullopt;
  return r->status;
}

void wait_any_ready(std::span<const Request> requests) {
  constexpr const char* call = "wait_any_ready";
  RankContext& rank = current(call);
  for (;;) {
    for (const Request& q : requests) {
      if (ready(q)) return;
    }
    if (requests.empty()) return;
    block(rank, any_source, any_tag, false, call);
  }
}

void wait_all_ready(std::span<const Request> requests) {
  constexpr const char* call = "wait_all_ready";
  RankContext& rank = current(call);
  for (const Request& q : requests) {
    while (!ready(q)) block(rank, any_source, any_tag, false, call);
  }
}

std::optional<Status> iprobe(int source, int tag, std::uint32_t context) {
  constexpr const char* call = "iprobe";
  RankContext& rank = current(call);
  check_peer(call, "source", source, rank.world->size, true);
  check_tag(call, tag, true);
  RequestState probe;
  probe.source = source;
  probe.tag = tag;
  probe.context = context;
  for (const Incoming& in : rank.unexpected) {
    if (matches(probe, in.envelope)) {
      return Status{in.envelope.source(), in.envelope.tag(), in.data.size(), in.envelope.type(),
                    in.envelope.context};
    }
  }
  return std::nullopt;
}

std::optional<Status> take(int source, int tag, std::uint32_t context,
                           std::vector<std::byte>& data) {
  constexpr const char* call = "take";
  RankContext& rank = current(call);
  check_peer(call, "source", source, rank.world->size, true);
  check_tag(call, tag, true);
  RequestState probe;
  probe.source = source;
  probe.tag = tag;
  probe.context = context;
  for (auto it = rank.unexpected.begin(); it != rank.unexpected.end(); ++it) {
    if (!matches(probe, it->envelope)) continue;
    Incoming in = std::move(*it);
    rank.unexpected.erase(it);
    acknowledge(rank, in.envelope);
    const std::size_t at = data.size();
    data.resize(at + in.data.size());
    in.data.copy_to(data.data() + at);
    return Status{in.envelope.source(), in.envelope.tag(), data.size() - at, in.envelope.type(),
                  in.envelope.context};
  }
  return std::nullopt;
}

Status take_waiting(int source, int tag, std::uint32_t context, std::vector<std::byte>& data) {
  constexpr const char* call = "take_waiting";
  RankContext& rank = current(call);
  for (;;) {
    if (auto s = take(source, tag, context, data)) return *s;
    block(rank, source, tag, false, call);
  }
}

bool cancel(Request& request) {
  constexpr const char* call = "cancel";
  RankContext& rank = current(call);
  RequestState* r = owned(request, call);
  if (r == nullptr || !r->receive || r->complete) return false;
  std::erase(rank.posted, r);
  r->complete = true;
  r->status = Status{};
  r->status.cancelled = true;
  return true;
}

Status probe(int source, int tag, std::uint32_t context) {
  constexpr const char* call = "probe";
  RankContext& rank = current(call);
  for (;;) {
    if (auto s = iprobe(source, tag, context)) return *s;
    block(rank, source, tag, false, call);
  }
}

}  // namespace vela::vp
