// Remote messages (vp.hpp): a rank's message that runs a layer's handler for the destination rank
// instead of being matched by a receive. It travels as a point-to-point message of the reserved
// context remote_context, so it is put in send order with the sender's other messages to that
// rank (a window's operations apply in the order they were made, and a later message of the
// sender, such as MPI_Win_complete's, arrives after them) and follows the rank wherever it moves.
//
// The handler runs where match_arrival would have matched the message: in the PE's scheduler
// (the destination suspended), on the blocked destination's own stack (waiting in place), or
// inside the sender's fiber when both ranks share a PE (the destination suspended then too). Its
// answers are copied (a handler never waits); outside a fiber they go through the scheduler,
// since nothing there would run a rank they make ready.
//
// Costs: one message per remote call, one per answer; the payload is copied once when sent to
// another PE.
#include <atomic>

#include "fibers/rank.hpp"

namespace vela::vp {
namespace {

std::atomic<RemoteHandler> installed{nullptr};

// The rank whose remote handler runs on this thread, or nullptr.
thread_local detail::RankContext* handling = nullptr;

}  // namespace

void set_remote_handler(RemoteHandler handler) {
  installed.store(handler, std::memory_order_release);
}

void remote(int dest, std::span<const std::byte> data) {
  detail::RankContext& rank = detail::current("remote");
  detail::check_peer("remote", "dest", dest, rank.world->size, false);
  detail::post_message(rank, data.data(), data.size(), Type::bytes, dest, 0,
                       {detail::p2p_channel, detail::remote_context}, detail::Delivery::eager);
}

void answer(int dest, const void* data, std::size_t bytes, int tag, std::uint32_t context) {
  detail::RankContext* from = handling;
  if (from == nullptr) throw Error("answer: called outside a remote handler");
  detail::check_peer("answer", "dest", dest, from->world->size, false);
  detail::check_tag("answer", tag, false);
  const detail::Delivery delivery =
      detail::current() != nullptr ? detail::Delivery::eager : detail::Delivery::queued;
  detail::post_message(*from, data, bytes, Type::bytes, dest, tag, {detail::p2p_channel, context},
                       delivery);
}

namespace detail {

void run_remote(RankContext& rank, const Envelope& envelope, Payload& data) {
  const RemoteHandler handler = installed.load(std::memory_order_acquire);
  if (handler == nullptr) {
    throw Error("remote message from rank " + std::to_string(envelope.source()) + " to rank " +
                std::to_string(rank.rank) + ": no remote handler is installed in this process");
  }
  data.settle();
  struct Scope {  // nested: a handler's answer to a rank of this PE runs that rank's handler
    RankContext* saved;
    explicit Scope(RankContext* r) : saved(handling) { handling = r; }
    ~Scope() { handling = saved; }
  } scope(&rank);
  handler(envelope.source(), {data.data(), data.size()});
  data = Payload{};
}

}  // namespace detail
}  // namespace vela::vp
