// A rank: a fiber on its own stack, the element of the runtime collection that carries it, its
// message queues, and the world (one run of vp::run) it belongs to. Only src/vp sees this.
#pragma once

#include <array>
#include <atomic>
#include <boost/context/fiber.hpp>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "image/rank_image.hpp"
#include "memory/stacks.hpp"
#include "messaging/payload.hpp"
#include "messaging/per_pe.hpp"
#include "messaging/shared_tree.hpp"
#include "privatization/privatization.hpp"
#include "vela/rt/runtime.hpp"
#include "vela/vp/vp.hpp"

namespace vela::vp::detail {

// Who sent a message and how to match it. `seq` numbers the messages from one rank to another
// in one channel, so that they are matched in send order even when a migration let a later one
// overtake an earlier one in the runtime. `context` keeps the messages of one group of ranks
// (an MPI communicator) from matching another's: 0 is the whole run's.
// 16 bytes, packed raw (pup::bitwise below): with its Payload (48 bytes at most) a rank message's
// arguments fill a runtime message's 64 inline bytes, so delivering one allocates nothing. Hence
// the sender and the type share a word (ranks are fewer than 2^24: --vp's limit), and the tag
// and the channel another (tags are below 2^30).
struct Envelope {
  std::uint32_t from = 0;    // source rank (low 24 bits), Type (7 bits), synchronous (top bit)
  std::uint32_t tagged = 0;  // tag (low 31 bits) and channel (high bit)
  std::uint32_t seq = 0;
  std::uint32_t context = 0;

  int source() const { return static_cast<int>(from & 0xffffffu); }
  Type type() const { return static_cast<Type>((from >> 24) & 0x7fu); }
  // A synchronous send's (ssend): the receiver acknowledges the match.
  bool synchronous() const { return (from >> 31) != 0; }
  int tag() const { return static_cast<int>(tagged & 0x7fffffffu); }
  std::uint8_t channel() const { return static_cast<std::uint8_t>(tagged >> 31); }
  void set(int source_rank, Type type, int tag_value, std::uint8_t channel_value,
           bool synchronous = false) {
    from = (static_cast<std::uint32_t>(source_rank) & 0xffffffu) |
           (static_cast<std::uint32_t>(type) << 24) | (synchronous ? 0x80000000u : 0u);
    tagged = (static_cast<std::uint32_t>(tag_value) & 0x7fffffffu) |
             (static_cast<std::uint32_t>(channel_value) << 31);
  }
};
static_assert(sizeof(Envelope) == 16 && std::has_unique_object_representations_v<Envelope>);

}  // namespace vela::vp::detail

template <>
struct vela::pup::bitwise<vela::vp::detail::Envelope> : std::true_type {};

namespace vela::vp::detail {

// A rank message of at most `capacity` bytes as one value of 38 bytes (its envelope's bytes, its
// size, its bytes): relocatable and no larger than a PE ring's compact slot holds, so that
// between two PEs of a process it travels as its bytes in one cache line, neither packed by the
// sender nor unpacked by the receiver (core/pe_ring.hpp). Larger messages go as Envelope and
// Payload.
struct SmallArrival {
  static constexpr std::size_t capacity = 21;
  // Whether a message of `bytes` goes as a SmallArrival (the one test for it: the send and
  // the communication graph's count).
  static constexpr bool fits(std::size_t bytes) { return bytes <= capacity; }
  std::byte envelope[sizeof(Envelope)];
  std::uint8_t size = 0;
  std::byte bytes[capacity];
};
static_assert(sizeof(SmallArrival) == 38 && alignof(SmallArrival) == 1);

}  // namespace vela::vp::detail

template <>
struct vela::pup::bitwise<vela::vp::detail::SmallArrival> : std::true_type {};

namespace vela::vp::detail {

inline constexpr std::uint8_t p2p_channel = 0;
inline constexpr std::uint8_t collective_channel = 1;
// The context of remote messages (vp::remote): run by the layer's handler, never matched. The
// layers' own contexts stay below it.
inline constexpr std::uint32_t remote_context = 0xffffffffu;
// The context of the acknowledgements of synchronous sends (tag: the send's sequence number).
inline constexpr std::uint32_t sync_ack_context = 0xfffffffeu;

struct Incoming {
  Envelope envelope;
  Payload data;
  void pup(pup::Archive& ar) { ar | envelope | data; }
};

// A receive (or a completed send) under way.
struct RequestState {
  bool receive = false;
  bool complete = false;
  bool in_use = false;
  const char* call = "";
  void* buffer = nullptr;
  std::size_t capacity = 0;  // bytes
  Type type = Type::bytes;
  int source = any_source;
  int tag = any_tag;
  std::uint32_t context = 0;
  std::uint8_t channel = p2p_channel;
  Status status;
  std::exception_ptr error;  // a truncation or a type mismatch, raised by the wait
  // Set for a receive whose bytes go to take(taker, bytes, size) where they lie instead of
  // into `buffer` (a collective combining an arrival straight from the sender's buffer).
  void (*take)(void* taker, const std::byte* bytes, std::size_t size) = nullptr;
  void* taker = nullptr;
};

struct World;
class RankElement;
struct RankLibc;

// A counter per (peer, channel), made on first use; the last one used is found without a hash
// lookup (a rank mostly talks to the same peer several times in a row).
class SequenceNumbers {
 public:
  void pup(pup::Archive& ar) {
    ar | counters_;
    last_ = nullptr;
  }

  std::uint32_t& counter(std::uint64_t key) {
    if (last_ != nullptr && last_key_ == key) return *last_;
    last_key_ = key;
    last_ = &counters_[key];  // node-based: the address stays valid
    return *last_;
  }

 private:
  std::unordered_map<std::uint64_t, std::uint32_t> counters_;
  std::uint64_t last_key_ = 0;
  std::uint32_t* last_ = nullptr;
};

enum class RankState : std::uint8_t {
  created,  // its fiber has not started
  running,
  blocked,  // in a receive, wait or probe: resumed by any arrival
  ready,    // was blocked, a same-PE send handed it a message: resumed by that PE next
  yielded,  // resumed by its own wake message
  at_sync,  // in migrate(): resumed after balancing
  finished,
  aborted,  // called abort(): never resumed
};

struct RankContext {
  int rank = 0;
  World* world = nullptr;
  RankElement* element = nullptr;  // the element carrying it now (changes when it migrates)
  RankState state = RankState::created;
  std::uint64_t switches = 0;   // beside the other fields a switch touches: one cache line less
  const char* waiting_in = "";  // the call it is blocked in, for deadlock reports
  const char* label = nullptr;  // the outer API's call under way (CallLabel), named instead
  int waiting_source = any_source;
  int waiting_tag = any_tag;
  bool waiting_collective = false;  // for a collective's message (its source and tag are internal)
  // The large send the rank waits on in wait_loan (RankElement::help finds it here); null
  // otherwise, so never carried by a move.
  SendLoan* waiting_loan = nullptr;

  boost::context::fiber fiber;   // the rank's, while it is suspended
  boost::context::fiber caller;  // inside the fiber: the PE's scheduler that resumed it
  void* stack = nullptr;
  bool cancelled = false;  // being unwound at the end of a failed run
  std::exception_ptr error;
  std::unique_ptr<RankGlobals> globals;
  SlotHeap* heap = nullptr;         // its slot's heap (runs with one), else nullptr
  SlotHeap* resume_heap = nullptr;  // the heap its code allocates from when it is resumed
  // A loaded program image (image/rank_image.hpp): its instance, or its tail beside the shared
  // instance, in its slot; its C library state there; the errno its code last saw.
  std::byte* image = nullptr;
  bool image_whole = false;
  RankLibc* libc = nullptr;
  int saved_errno = 0;
  // Lines outside its slot that the rank's code reads first when it resumes (its privatization
  // state, the MPI layer's objects; note_resume_line): asked for ahead, with the context's own
  // lines and its stack's top, when a PE resumes ranks in a row (run_on_pe). Only hints: an
  // address gone stale costs nothing, and a rank that arrived from another process starts
  // without them.
  static constexpr int resume_line_count = 6;
  std::array<const void*, resume_line_count> resume_lines{};

  // Matching, in MPI's order: arrivals not yet received, receives not yet matched.
  std::deque<Incoming> unexpected;
  std::vector<RequestState*> posted;
  // Owned, at stable addresses (in the slot heap when there is one, so that they move with
  // the rank and the program's request handles stay valid); reused when free.
  std::vector<RequestState*> requests;
  std::vector<RequestState*> free_requests;

  // Send order per (peer, channel): next number to send, next number to match, and arrivals
  // that came early.
  SequenceNumbers next_send;
  SequenceNumbers next_receive;
  std::map<std::pair<std::uint64_t, std::uint32_t>, Incoming> early;

  std::uint32_t collectives = 0;  // collective calls made (tags their messages)
  std::size_t stack_resident = 0;

  // Sanitizer bookkeeping for the two stacks it switches between.
  void* fake_stack = nullptr;
  const void* scheduler_stack = nullptr;
  std::size_t scheduler_stack_size = 0;
  void* tsan_fiber = nullptr;
  void* tsan_scheduler = nullptr;

  RankContext() = default;
  ~RankContext();
  RankContext(const RankContext&) = delete;
  RankContext& operator=(const RankContext&) = delete;

  RequestState* new_request();
  void release(RequestState* request);
  // Destroys every request (the rank finished: its heap is about to go).
  void drop_requests() noexcept;
};

// One vp::run.
struct World {
  World() = default;
  ~World();  // destroys the contexts of the ranks in this process, then their slots
  // Ranks arriving from other processes join this world (one run across processes at a time).
  void join_processes();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  const Options* options = nullptr;
  const std::function<void()>* body = nullptr;
  Privatization privatization = Privatization::none;
  int size = 0;
  rt::Proxy<RankElement> ranks;
  std::unique_ptr<StackRange> stacks;
  std::vector<RankContext*> contexts;  // by rank (made when each rank starts)
  std::atomic<int> finished{0};
  std::atomic<std::uint64_t> migrations{0};
  std::atomic<bool> aborted{false};
  bool across_processes = false;  // ranks may move to other processes (they have slot heaps)
  int process = 0;                // this process's index under mpirun
  int processes = 1;              // the run's processes
  bool abort_code_set = false;    // under the runtime's error mutex
  double origin = 0.0;            // wtime()'s zero
  // Per PE, touched by that PE's thread only: ranks a same-PE send made ready, resumed by the
  // PE straight after the entry that sent, without a scheduler pass; messages handed over so.
  struct alignas(64) PeLocal {
    std::deque<RankContext*> ready;
    std::uint64_t handoffs = 0;
    std::uint64_t in_place = 0;       // messages blocked ranks took in place (wait_here)
    std::uint64_t shared_copies = 0;  // large copies the PE's senders took part in (help_copy)
    std::uint64_t ready_passes = 0;   // wake messages that carried on with the ready ranks
    // How far below its context the last rank this PE resumed in a row saved its registers:
    // where the next ones' stacks are asked for (ranks of one program block at the same depth).
    std::ptrdiff_t resume_depth = 0;
    PeCalls calls;  // collectives combined per PE (messaging/per_pe.cpp)
  };
  std::vector<PeLocal> here;
  // Reductions among few members combined in the process's memory (messaging/shared_tree.cpp),
  // and each PE's last one looked up (touched by that PE's thread only; kept out of PeLocal,
  // whose lines the messages between ranks use).
  SharedReductions shared;
  std::vector<SharedLast> shared_last;
};

// Same-PE hand-offs in a row (run_on_pe) before the PE goes back to its scheduler when messages
// wait there, and before it goes back in any case (its other work: what other processes sent,
// timers, a stop), so that ranks exchanging messages cannot starve it; the ranks still ready
// follow through one wake message.
inline constexpr int max_handoffs = 64;
inline constexpr int max_handoffs_unchecked = 1024;

// The element of the ranks' collection: its entry methods run on the PE and resume the fiber.
class RankElement : public rt::ElementBase {
 public:
  RankElement() = default;
  // `identity` (what the ranks compute from, vp::Options::identity) is only checked: a restart
  // from a checkpoint needs the same creation arguments.
  RankElement(std::uintptr_t world, const std::string& identity);
  ~RankElement() override;

  void start();
  void deliver(Envelope envelope, Payload data);
  // deliver() for a message of at most SmallArrival::capacity bytes.
  void deliver_small(SmallArrival arrival);
  // Resumes a yielded rank, or a ready one the PE handed over to the scheduler.
  void wake();
  // The runtime is done with the bytes of a large send the rank waits on (SendLoan).
  void sent();
  // The receiver of the rank's large send started copying it: the PE copies its share
  // (copy_lent) if the rank still waits on it.
  void help();
  void resume_from_sync() override;
  void pup(pup::Archive& ar) override;

  RankContext* context() const { return context_; }

 private:
  World* world_ = nullptr;
  // In its slot; the World destroys it, or this element when the rank left the process.
  RankContext* context_ = nullptr;
  mutable bool moved_out_ = false;  // packed for another process: its slot is freed here
};

// The World of the vp::run under way in this process (ranks arriving from another process
// join it).
World* local_world() noexcept;

// The rank running on this thread, or nullptr (read through a call, never cached across a
// switch: a rank may resume on another thread).
RankContext* current();
// Under the TLS method the running rank must stay the PE thread's, not the rank's copy.
void carry_rank_thread_locals();
// Throws Error "<call>: called outside a rank" when no rank runs on this thread.
RankContext& current(const char* call);

// Switches from the PE into `rank`'s fiber until it blocks or finishes.
void resume(RankContext& rank);
// resume(), then the ranks that became ready on this PE meanwhile, each measured as its own
// element's load (rt::detail::continue_as).
void run_on_pe(RankContext& rank);
// Inside the fiber: gives the PE back until something resumes it in state `state`.
void suspend(RankContext& rank, RankState state, const char* call);

// Inside the fiber: suspends the rank, blocked until an arrival (or a send's completion) resumes
// it; `source`, `tag` and `collective` name what it waits for in a deadlock report.
void block(RankContext& rank, int source, int tag, bool collective, const char* call);
// An arrival for `rank` (on its PE, outside its fiber): put in order, matched against posted
// receives, and whether the rank should be resumed.
bool accept(RankContext& rank, const Envelope& envelope, Payload&& data);
// Where a message goes or comes from, besides its peer and tag.
struct Route {
  std::uint8_t channel = p2p_channel;
  std::uint32_t context = 0;
};
// How a message travels: `normal` reads a large one where it lies (the sender waits until it is
// copied); `eager` always copies it (the sender never waits); `queued` also never hands it
// straight to a rank of this PE (for senders outside a fiber, which cannot run the rank made
// ready: a remote handler's answer).
enum class Delivery : std::uint8_t { normal, eager, queued };
// A synchronous send (Envelope::synchronous) is acknowledged when it is matched.
struct SendMode {
  SendMode(Delivery how = Delivery::normal, bool sync = false,  // NOLINT: a Delivery is a mode
           std::size_t lend = 0, bool held_until_received = false)
      : delivery(how), synchronous(sync), lend_from(lend), held(held_until_received) {}
  Delivery delivery;
  bool synchronous;
  // A normal send of this many bytes or more is read where it lies (0: the runtime's
  // external_bytes_from, 256 KiB). Lower for sends whose loans the sender waits on together
  // (Collective::put_each), where the receiver's one copy beats two.
  std::size_t lend_from;
  // A lent message stays in the sender's buffer until its receive is posted, on this PE as on
  // another (a rendezvous: one copy, no block of its own), instead of being copied when it
  // arrives first. Only where the receive is sure to come without this sender going on (a
  // collective's sends, whose receivers post them whatever the sender does next).
  bool held;
};
// Sends `bytes` bytes to rank `dest` as `rank` (inside its fiber, except a queued one).
void post_message(RankContext& rank, const void* buffer, std::size_t bytes, Type type, int dest,
                  int tag, Route route, SendMode mode = {});
// post_message, except that a large message read where it lies is left under way: its loan, for
// wait_loan then let_go (nullptr when the bytes were copied or delivered already). Several may
// be under way at once: their receivers copy them in parallel.
SendLoan* post_message_lent(RankContext& rank, const void* buffer, std::size_t bytes, Type type,
                            int dest, int tag, Route route, SendMode mode = {});
// Inside the fiber: blocks until the loan's receiver has copied the bytes.
void wait_loan(RankContext& rank, SendLoan* loan, int dest, int tag, bool collective);
// The sending rank's hold on a loan let go (the last of it and the payload frees it).
void let_go(SendLoan* loan) noexcept;
// The sender's PE copies its share of a loan's published copy (copy_lent): chunks until none is
// left. Counted in the PE's shared copies when it copied any.
void help_with_copy(World::PeLocal& pe, SendLoan& loan);
// A remote message arrived in order for `rank` (on its PE): the layer's handler runs on it.
void run_remote(RankContext& rank, const Envelope& envelope, Payload& data);
// Inside the fiber: a blocking receive.
Status receive_now(RankContext& rank, void* buffer, std::size_t count, Type type, int source,
                   int tag, Route route, const char* call);
// receive_now() whose bytes (at most `capacity`) go to take(taker, bytes, size) where they lie,
// on whichever fiber or PE thread matches the message (it must not throw nor block).
Status receive_taken(RankContext& rank, void (*take)(void*, const std::byte*, std::size_t),
                     void* taker, std::size_t capacity, int source, int tag, Route route,
                     const char* call);
// Inside the fiber: blocks until `request` completes; returns its status and frees it.
Status complete(RankContext& rank, RequestState* request);
// Posts a receive (matching what already arrived first).
RequestState* post_receive(RankContext& rank, void* buffer, std::size_t count, Type type,
                           int source, int tag, Route route, const char* call);

// Checks arguments the MPI way; each throws Error naming `call`. Inline, the errors out of line.
[[noreturn]] void bad_peer(const char* call, const char* what, int peer, int size,
                           bool any_allowed);
[[noreturn]] void bad_tag(const char* call, int tag, bool any_allowed);
[[noreturn]] void bad_buffer(const char* call, const void* buffer, std::size_t count, Type type);

inline void check_peer(const char* call, const char* what, int peer, int size, bool any_allowed) {
  if (any_allowed && peer == any_source) return;
  if (peer < 0 || peer >= size) [[unlikely]]
    bad_peer(call, what, peer, size, any_allowed);
}

inline void check_tag(const char* call, int tag, bool any_allowed) {
  if (any_allowed && tag == any_tag) return;
  if (tag < 0 || tag > max_tag) [[unlikely]]
    bad_tag(call, tag, any_allowed);
}

// Returns the buffer's bytes. No division on this path: elements are at most 16 bytes, so below
// 2^40 the product cannot overflow.
inline std::size_t check_buffer(const char* call, const void* buffer, std::size_t count,
                                Type type) {
  if (static_cast<std::uint8_t>(type) > static_cast<std::uint8_t>(Type::pair_i32_i32) ||
      count >= (std::size_t{1} << 40)) [[unlikely]]
    bad_buffer(call, buffer, count, type);
  const std::size_t bytes = count * size_of(type);
  if (bytes > (std::size_t{1} << 40) || (count > 0 && buffer == nullptr)) [[unlikely]]
    bad_buffer(call, buffer, count, type);
  return bytes;
}

}  // namespace vela::vp::detail
