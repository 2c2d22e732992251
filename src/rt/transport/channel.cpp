// The MPI channel: how messages for other processes leave this one and how arrivals reach its
// PEs. One progress-maker at a time owns every MPI call of the run: the communication thread
// (MpiProgress::thread) or, by default, whichever PE holds `busy` (MpiProgress::pe).
//
// PE threads hand the progress-maker packed messages through a lock-free list (the outbox, the
// same intrusive inbox the PEs use); it sends them with MPI_Isend (or writes them into a ring,
// shm.hpp), polls for arrivals with MPI_Improbe/MPI_Mrecv and pushes each into the inbox of the
// PE it is for (router.hpp), which wakes that PE if it sleeps. With MpiProgress::pe a sending
// PE writes a message straight into the receiver's ring when it can (write_direct), and the
// PEs poll between messages and while idle. A PE never waits on MPI, so the PEs keep their
// futex parking; the communication thread polls while there is traffic and backs off (a timed
// park on its list) when there is none.
//
// Invariants: a PE's messages to one process arrive in the order it sent them (the ring, what
// waits for it and the outbox are emptied in order, and a direct write first sends what is
// queued). Closing (close()) leaves no process waiting on a send to one that has gone.
//
// Costs, per message: sending packs it once (straight into the ring, when direct) and writes
// its wire header (wire_header.hpp); receiving copies it out of the ring or keeps MPI's receive
// buffer. Per pass: see impl.hpp.
#include <ctime>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bulk.hpp"
#include "impl.hpp"

namespace vela::rt::detail {

using namespace mpi_transport;

inline void Transport::Impl::queue(int to, int tag, std::vector<std::byte> bytes) {
  outbox.push(to, tag, std::move(bytes));
  if (!own_thread) poll();
}

void Transport::Impl::queue_all(int tag, const std::vector<std::byte>& bytes) {
  for (int p = 0; p < processes; ++p) {
    if (p != process) queue(p, tag, bytes);
  }
}

inline bool Transport::Impl::poll() {
  if (busy.load(std::memory_order_relaxed) || busy.exchange(true, std::memory_order_acquire)) {
    return false;
  }
  const bool moved = !closing.load(std::memory_order_relaxed) && progress();
  // Sends still in flight need more passes (a large one completes only as the receiver
  // takes it): the caller keeps polling rather than sleep.
  const bool pending = !outbox.in_flight.empty() || shm.any_waiting;
  busy.store(false, std::memory_order_release);
  return moved || pending;
}

inline bool Transport::Impl::send_queued() {
  bool moved = shm.any_waiting && shm.send_waiting(outbox);
  auto batch = outbox.queued.take_all();
  if (batch.count == 0) return moved;
  for (Message* m = batch.first; m != nullptr;) {
    Message* next = m->next;
    const auto& bytes = *static_cast<std::vector<std::byte>*>(m->args());
    const int to = static_cast<int>(m->element);
    const int tag = static_cast<int>(m->handler);
    ShmPeer* ring = tag == tag_data ? shm.peer(to) : nullptr;
    if (ring != nullptr) {
      ShmPeer& peer = *ring;
      m->next = nullptr;
      if (!peer.waiting.empty() || !shm.write(peer, m, outbox)) {
        peer.waiting.push_back(m);  // behind what waits for the ring already
        shm.any_waiting = true;
      }
      m = next;
      continue;
    }
    MPI_Request* request = outbox.track(m);
    if (tag == tag_data) {
      MPI_Isend(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, to, tag, comm, request);
    } else {
      MPI_Issend(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, to, tag, comm, request);
    }
    m = next;
  }
  return true;
}

inline bool Transport::Impl::receive_one() {
  int flag = 0;
  MPI_Message handle;
  MPI_Status status;
  MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, &handle, &status);
  if (flag == 0) return false;
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  if (status.MPI_TAG == tag_data) {
    RawBytes raw = unzeroed(static_cast<std::size_t>(count));
    MPI_Mrecv(raw.data.get(), count, MPI_BYTE, &handle, MPI_STATUS_IGNORE);
    if (!closing.load(std::memory_order_relaxed)) router.deliver(std::move(raw));
    return true;
  }
  std::vector<std::byte> bytes(static_cast<std::size_t>(count));
  MPI_Mrecv(bytes.data(), count, MPI_BYTE, &handle, MPI_STATUS_IGNORE);
  arrived(status.MPI_SOURCE, status.MPI_TAG, std::move(bytes));
  return true;
}

inline void Transport::Impl::arrived(int source, int tag, std::vector<std::byte> bytes) {
  switch (tag) {
    case tag_data:
      if (!closing.load(std::memory_order_relaxed)) router.deliver(std::move(bytes));
      return;
    case tag_collection:
      router.learn_collection(bytes);
      return;
    case tag_wave_request:
      queue(source, tag_wave_reply, wave_reply(state, bytes));
      return;
    case tag_wave_reply:
      waves.add_reply(state, processes, bytes);
      return;
    case tag_stop: {
      std::int32_t code = 0;
      pup::unpack(bytes, code);
      if (!state.stopping.load()) state.exit_code = code;
      stop_locally(state);
      return;
    }
    case tag_fail: {
      std::string what;
      pup::unpack(bytes, what);
      {
        std::lock_guard lock(state.error_mutex);
        if (!state.error) {
          state.error = std::make_exception_ptr(
              std::runtime_error("process " + std::to_string(source) + ": " + what));
        }
      }
      stop_locally(state);
      return;
    }
    default:
      return;
  }
}

inline bool Transport::Impl::progress() {
  bool moved = send_queued();
  moved = shm.receive(router, closing) || moved;
  // With every other process on this machine, MPI carries only control messages and the
  // bytes of large messages: it is looked at once every few passes (each look runs MPI's
  // whole progress engine).
  ++passes;
  if (!shm.all_on_node || (passes % mpi_probe_every == 0 && mpi_look_due())) {
    moved = outbox.complete() || moved;
    for (int i = 0; i < 64 && receive_one(); ++i) moved = true;
  }
  // Process 0's quiescence rounds. A round waits 200 µs after an unbalanced one: the clock is
  // read once every few passes (a pass of an idle PE takes well under a microsecond; reading
  // the clock, a good part of it).
  if (process == 0 && waves.start(state, passes % mpi_probe_every == 0)) {
    queue_all(tag_wave_request, pup::pack(waves.number));
  }
  return moved;
}

inline bool Transport::Impl::mpi_look_due() {
  if (!outbox.in_flight.empty()) return true;
  const Ticks now = tick_clock::now();
  if (now < next_mpi_look) return false;
  next_mpi_look = now + mpi_look_ticks;
  return true;
}

// MpiProgress::pe, on a PE: a record of `bytes` bytes and `type` for process `to`, written
// by fill(where) straight into that process's ring when it shares this machine, nothing waits
// to go there before it, it fits, and no other PE is making progress (which owns the rings).
// False when not done: the caller packs and queues the message.
template <class Fill>
inline bool Transport::Impl::write_direct(int to, std::size_t bytes, ShmRing::Type type,
                                          Fill&& fill) {
  if (own_thread) return false;
  ShmPeer* peer = shm.direct_peer(to, bytes);
  if (peer == nullptr) return false;
  if (busy.load(std::memory_order_relaxed) || busy.exchange(true, std::memory_order_acquire)) {
    return false;
  }
  struct Release {
    std::atomic<bool>& busy;
    ~Release() { busy.store(false, std::memory_order_release); }
  } release{busy};
  if (closing.load(std::memory_order_relaxed)) return false;
  // This PE's earlier messages to `to` are in the ring, waiting, or in the outbox: those go
  // first.
  if (shm.any_waiting || !outbox.queued.empty()) send_queued();
  return ShmRings::write_now(*peer, bytes, type, std::forward<Fill>(fill));
}

// Data message `m` with header `h` (`header` bytes on the wire) and `args` bytes of packed
// arguments, packed into the ring (write_direct's conditions).
inline bool Transport::Impl::send_direct(int to, Message* m, const WireHeader& h,
                                         std::size_t header, std::size_t args) {
  return write_direct(to, args + header, ShmRing::data, [&](std::byte* at) {
    if (args != 0) m->ops->pack_to(m->args(), {at, args});
    write_header(h, header, at + args);
  });
}

// Entry message `m` whose arguments hold blocks (ByteBlock) of at least external_bytes_from
// bytes: the rest of its arguments go into the ring (a typed record), the blocks' bytes by MPI
// from where they lie, and the message is freed once the send completes (write_direct's
// conditions).
inline bool Transport::Impl::send_typed(int to, Message* m, const WireHeader& h,
                                        std::size_t header) {
  const ArgsOps* ops = m->ops;
  if (ops == nullptr || ops->gather == nullptr) return false;
  ByteBlocks blocks;
  const std::size_t args = ops->gather(m->args(), {}, blocks);
  if (blocks.empty()) return false;
  return write_direct(to, args + header, ShmRing::typed, [&](std::byte* at) {
    ByteBlocks again;
    ops->gather(m->args(), {at, args}, again);
    write_header(h, header, at + args);
    post_blocks(true, blocks, to, tag_data, shm.bulk_comm, outbox.track(m));
  });
}

inline void Transport::Impl::run() {
  Ticks quiet_since = 0;  // no progress since then (0: there was some on the last pass)
  const Ticks poll_for = tick_clock::from_seconds(poll_seconds);
  while (!closing.load(std::memory_order_acquire)) {
    if (progress()) {
      quiet_since = 0;
      continue;
    }
    // Nothing happened: keep polling, yielding the core between looks, for a while (a
    // reply usually comes within it); then sleep on the outbox, which a PE's message ends,
    // for at most sleep_seconds before looking at MPI again.
    const Ticks now = tick_clock::now();
    if (quiet_since == 0) quiet_since = now;
    if (now - quiet_since < poll_for) {
      std::this_thread::yield();
      continue;
    }
    timespec t{0, static_cast<long>(sleep_seconds * 1e9)};
    static const std::atomic<bool> never{false};
    outbox.queued.park(never, &t);
  }
  close();
}

// The PEs have stopped. First every queued message goes out (a stop or failure notice among
// them, and replies to what arrives meanwhile) and this process waits until all its sends
// are complete (its control messages, sent synchronously, received), reading arrivals so
// that the others' sends complete too. Only then does it enter a barrier with every
// process; from there on nothing more is sent (a reply the barrier phase would make is
// dropped: no process waits for one), arrivals are read and dropped (data) or recorded (a
// failure elsewhere). No process can be left waiting on a send to one that has gone.
inline void Transport::Impl::close() {
  for (;;) {
    send_queued();
    outbox.complete();
    while (shm.receive(router, closing) || receive_one()) {
    }
    drain_incoming();
    if (outbox.in_flight.empty() && outbox.queued.empty() && !shm.any_waiting) break;
    std::this_thread::yield();
  }
  MPI_Request barrier = MPI_REQUEST_NULL;
  MPI_Ibarrier(comm, &barrier);
  for (;;) {
    outbox.drop_queued();
    shm.drop_waiting();
    while (shm.receive(router, closing) || receive_one()) {
    }
    drain_incoming();
    int done = 0;
    MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
    if (done != 0) break;
    std::this_thread::yield();
  }
  while (shm.receive(router, closing) || receive_one()) {
  }
  router.free_held();
}

void Transport::start() {
  if (impl_->own_thread) impl_->thread = std::thread([this] { impl_->run(); });
  impl_->watch->start();
}

bool Transport::polled_by_pes() const {
  return !impl_->own_thread;
}

bool Transport::poll() {
  return !impl_->own_thread && impl_->poll();
}

void Transport::send(PeId to, Message* message) {
  const int process = static_cast<int>(to / impl_->state.layout.local_pes);
  WireHeader h;
  h.to = to;
  h.origin = message->origin;
  h.element = message->element;
  h.sender = message->sender;
  h.collection = message->collection;
  h.handler = message->handler;
  h.priority = message->priority;
  h.hops = message->hops;
  h.kind = static_cast<std::uint8_t>(message->kind);
  h.wan = message->wan ? 1 : 0;
  h.broadcast = message->broadcast ? 1 : 0;
  std::vector<std::byte> bytes;
  try {
    const std::size_t args =
        message->ops != nullptr ? message->ops->packed_size(message->args()) : 0;
    const std::size_t header = header_bytes(h);
    // Straight into the ring when it fits, else (an entry message) its large vectors in place.
    if (args + header <= shm_inline_bytes) {
      if (impl_->send_direct(process, message, h, header, args)) {
        free_message(message);
        return;
      }
    } else if (message->kind == Kind::entry && impl_->send_typed(process, message, h, header)) {
      return;  // freed when its send completes
    }
    bytes.reserve(args + header);
    if (message->ops != nullptr) message->ops->pack(message->args(), bytes);
    bytes.resize(bytes.size() + header);
    write_header(h, header, bytes.data() + bytes.size() - header);
  } catch (...) {
    free_message(message);
    throw;
  }
  free_message(message);
  impl_->queue(process, tag_data, std::move(bytes));
}

void Transport::stop_others(int code) {
  impl_->queue_all(tag_stop, pup::pack(static_cast<std::int32_t>(code)));
}

void Transport::fail_others(const std::string& what) {
  impl_->queue_all(tag_fail, pup::pack(what));
}

void Transport::finish() {
  // The PEs have stopped (none polls any more).
  impl_->closing.store(true, std::memory_order_release);
  impl_->outbox.queued.wake();
  if (impl_->thread.joinable()) {
    impl_->thread.join();  // it closes
  } else {
    impl_->close();
  }
  impl_->watch->stop();  // every process has passed the closing handshake's barrier
  impl_->shm.close();
  if (impl_->node != MPI_COMM_NULL) MPI_Comm_free(&impl_->node);
  RunStats& s = impl_->state.stats;
  std::uint64_t counts[10] = {s.messages,     s.forwarded,       s.migrations,    s.migrated_bytes,
                              s.wan_messages, s.wan_bytes,       s.grid_messages, s.shared_cores,
                              s.parks,        s.compact_in_place};
  MPI_Allreduce(MPI_IN_PLACE, counts, 10, MPI_UINT64_T, MPI_SUM, impl_->comm);
  s.messages = counts[0];
  s.forwarded = counts[1];
  s.migrations = counts[2];
  s.migrated_bytes = counts[3];
  s.wan_messages = counts[4];
  s.wan_bytes = counts[5];
  s.grid_messages = counts[6];
  s.shared_cores = counts[7];
  s.parks = counts[8];
  s.compact_in_place = counts[9];
}

}  // namespace vela::rt::detail
