// The MPI transport: one communication thread per process owns every MPI call of the run.
//
// PE threads hand it packed messages through a lock-free list (the same intrusive inbox the PEs
// use); it sends them with MPI_Isend, polls for arrivals with MPI_Improbe/MPI_Mrecv and pushes
// each into the inbox of the PE it is for (which wakes that PE if it sleeps). A PE never waits
// on MPI, so the PEs keep their futex parking; the thread itself polls while there is traffic
// and backs off (a timed park on its list, up to 1 ms) when there is none.
//
// Quiescence across processes is the in-process rule made a message round: process 0's thread
// asks every process for its PEs' idle flags and sent/taken counts (messages to other
// processes are counted by the sending PE when handed over and by the receiving PE when taken
// from its inbox); two rounds in a row with every PE idle and equal, unchanged totals mean
// nothing was running or in flight at one instant, and process 0 tells every process to stop.
#include "transport.hpp"

#include <malloc.h>
#include <mpi.h>

#include <sched.h>

#include <algorithm>
#include <bit>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "core/runtime_state.hpp"
#include "shm_ring.hpp"
#include "wire_header.hpp"

namespace vela::rt::detail {

namespace {

// What travels, by MPI tag. Data messages carry a runtime message (to a PE); the others are
// for the communication threads.
enum Tag : int {
  tag_data = 1,
  tag_collection = 2,
  tag_wave_request = 3,
  tag_wave_reply = 4,
  tag_stop = 5,
  tag_fail = 6,
};

// An MPI datatype of the blocks' bytes at their addresses (for MPI_BOTTOM), committed; blocks
// over 1 GiB in pieces (counts are ints). Sender and receiver build it from blocks of the same
// sizes.
MPI_Datatype blocks_type(const ByteBlocks& blocks) {
  constexpr std::size_t piece = std::size_t{1} << 30;
  std::vector<int> lengths;
  std::vector<MPI_Aint> at;
  for (const ByteBlock& b : blocks) {
    for (std::size_t from = 0; from < b.size; from += piece) {
      MPI_Aint address = 0;
      MPI_Get_address(b.data + from, &address);
      at.push_back(address);
      lengths.push_back(static_cast<int>(std::min(piece, b.size - from)));
    }
  }
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Type_create_hindexed(static_cast<int>(lengths.size()), lengths.data(), at.data(), MPI_BYTE,
                           &type);
  MPI_Type_commit(&type);
  return type;
}

// Sends or receives the blocks' bytes on `comm`: one block as bytes (Open MPI's single-copy
// path between processes of a machine takes only contiguous buffers), several as a datatype.
void post_blocks(bool send, const ByteBlocks& blocks, int peer, int tag, MPI_Comm comm,
                 MPI_Request* request) {
  if (blocks.size() == 1 && blocks[0].size <= static_cast<std::size_t>(INT_MAX)) {
    const int n = static_cast<int>(blocks[0].size);
    if (send) {
      MPI_Isend(blocks[0].data, n, MPI_BYTE, peer, tag, comm, request);
    } else {
      MPI_Irecv(blocks[0].data, n, MPI_BYTE, peer, tag, comm, request);
    }
    return;
  }
  MPI_Datatype type = blocks_type(blocks);
  if (send) {
    MPI_Isend(MPI_BOTTOM, 1, type, peer, tag, comm, request);
  } else {
    MPI_Irecv(MPI_BOTTOM, 1, type, peer, tag, comm, request);
  }
  MPI_Type_free(&type);
}

bool mpi_launched(int& size) {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE"}) {
    if (const char* v = std::getenv(name)) {
      size = std::atoi(v);
      return true;
    }
  }
  return false;
}

void finalize_at_exit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized == 0) MPI_Finalize();
}

void initialize_mpi() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized != 0) {
    int provided = 0;
    MPI_Query_thread(&provided);
    if (provided < MPI_THREAD_MULTIPLE) {
      throw std::runtime_error(
          "MPI was initialized before the runtime without MPI_THREAD_MULTIPLE; the runtime's "
          "communication thread and the balancer (Zoltan) both call MPI");
    }
    return;
  }
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
    throw std::runtime_error("MPI_Init_thread failed: cannot run across processes");
  }
  if (provided < MPI_THREAD_MULTIPLE) {
    throw std::runtime_error("this MPI library does not give MPI_THREAD_MULTIPLE (it gave " +
                             std::to_string(provided) + "): cannot run across processes");
  }
  std::atexit(finalize_at_exit);
}

// Message buffers between processes are allocated and freed at every hop. With glibc's defaults
// a freed buffer of a large message goes back to the kernel (trimmed from the top of the heap,
// or unmapped), and the next one faults every page in again: with a PE making MPI progress
// that was 30x the transfer time at 64 KiB and 1 MiB (docs/results/distribution.md). So, unless
// the user tuned malloc, freed memory stays in the process up to 256 MiB and buffers up to the
// largest mmap threshold glibc allows (32 MiB) come from the heap.
void keep_freed_memory() {
  for (const char* tuned : {"GLIBC_TUNABLES", "MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_"}) {
    if (std::getenv(tuned) != nullptr) return;
  }
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
}

std::byte* cache_line(void* at) {
  const auto address = reinterpret_cast<std::uintptr_t>(at);
  return static_cast<std::byte*>(at) + (64 - address % 64) % 64;
}

RawBytes unzeroed(std::size_t size) {
  return RawBytes{std::make_unique_for_overwrite<std::byte[]>(size), size};
}

struct LocalWave {
  std::uint8_t passive = 1;
  std::uint64_t sent = 0;
  std::uint64_t received = 0;
  std::uint64_t parked = 0;
  void pup(pup::Archive& ar) { ar | passive | sent | received | parked; }
};

// The communication thread's idle policy: how long it polls after its last progress, and how
// long it then sleeps between looks at MPI (a PE's outgoing message wakes it at once).
constexpr double poll_seconds = 2e-3;
constexpr double sleep_seconds = 100e-6;

// Processes of one machine exchange data messages through shared-memory rings (one per ordered
// pair of processes, in the receiver's part of an MPI shared window): a message up to
// shm_inline_bytes is copied into the ring; a larger one is announced in the ring (packed, or
// an entry message's arguments but their large blocks) and its bytes follow by MPI on a
// communicator of their own (so they keep the ring's order).
constexpr std::size_t shm_ring_bytes = std::size_t{1} << 20;
constexpr std::size_t shm_inline_bytes = std::size_t{256} << 10;
// With every process on this machine, a pass looks at MPI once in this many passes ...
constexpr std::uint32_t mpi_probe_every = 16;
// ... and, while no send by MPI is in flight, at most once in this many seconds: then MPI
// carries only control messages, which can wait that long, and a look (a lock and MPI's whole
// progress engine) would delay a ring message arriving meanwhile.
constexpr double mpi_look_seconds = 10e-6;
static_assert(shm_inline_bytes <= shm_ring_bytes / 2 - 16);

// A peer process on this machine: the ring this process writes and the one it reads.
struct ShmPeer {
  ShmRing out;
  ShmRing in;
  std::deque<Message*> waiting;  // data for `out` when it was full, in order
  // A large message announced in `in`: its bytes, arriving by MPI (the ring waits for them),
  // into bulk_bytes or, for a typed record, into the vectors of bulk_message's arguments.
  MPI_Request bulk = MPI_REQUEST_NULL;
  RawBytes bulk_bytes;
  Message* bulk_message = nullptr;
  WireHeader bulk_header;
  // A typed record whose one block is deferred (DeferrableBytes): bulk_message goes once its
  // bytes' MPI message is matched (by a probe), without waiting for the bytes.
  ByteBlock deferred{nullptr, 0};
  int process;  // its rank in the run's communicator
  ShmPeer(ShmRing o, ShmRing i, int p) : out(o), in(i), process(p) {}
};

// The bytes of a large argument, matched by MPI_Improbe but not yet received (IncomingBytes).
// Every one is in `incoming` until received, so that closing can receive what the PEs left
// (a sender waits for its send to complete before it closes).
struct PendingBytes {
  MPI_Message message = MPI_MESSAGE_NULL;
  std::size_t size = 0;
  bool received = false;
};
std::mutex incoming_mutex;
std::vector<PendingBytes*> incoming;

// Receives a matched message of `size` bytes into `where` (in pieces of 1 GiB when larger).
void receive_matched(MPI_Message& message, std::byte* where, std::size_t size) {
  if (size <= static_cast<std::size_t>(INT_MAX)) {
    MPI_Mrecv(where, static_cast<int>(size), MPI_BYTE, &message, MPI_STATUS_IGNORE);
    return;
  }
  MPI_Datatype type = blocks_type(ByteBlocks{{where, size}});
  MPI_Mrecv(MPI_BOTTOM, 1, type, &message, MPI_STATUS_IGNORE);
  MPI_Type_free(&type);
}

// Takes `p` out of `incoming`, or false when closing already received it.
bool claim(PendingBytes* p) {
  std::lock_guard lock(incoming_mutex);
  if (p->received) return false;
  p->received = true;
  std::erase(incoming, p);
  return true;
}

// Closing: what the PEs left matched but not received is received into scratch.
void drain_incoming() {
  std::vector<PendingBytes*> left;
  {
    std::lock_guard lock(incoming_mutex);
    left.swap(incoming);
    for (PendingBytes* p : left) p->received = true;
  }
  for (PendingBytes* p : left) {
    RawBytes scratch = unzeroed(p->size);
    receive_matched(p->message, scratch.data.get(), p->size);
  }
}

struct PendingSend {
  MPI_Request request = MPI_REQUEST_NULL;
  Message* message = nullptr;  // holds the bytes until the send completes
};

// FNV-1a over bytes, for comparing processes.
std::uint64_t fingerprint(std::string_view text, std::uint64_t h = 14695981039346656037ull) {
  for (const char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

// The program: its entry methods (names and order give the handler ids) and element factories.
std::uint64_t program_fingerprint() {
  std::uint64_t h = fingerprint("vela");
  for (HandlerId id = 0; id < handler_count(); ++id) h = fingerprint(handler_name(id) + ";", h);
  return fingerprint(std::to_string(factory_count()), h);
}

// The options every process must share.
std::uint64_t options_fingerprint(const Options& o) {
  std::string text =
      std::to_string(o.pes_per_process) + ";" + std::to_string(static_cast<int>(o.mpi_progress)) +
      ";" + o.lb + ";" + std::to_string(o.lb_period) + ";" + o.lb_policy + ";" + o.trace + ";" +
      o.lb_dump + ";" + std::to_string(o.instrument) + ";" + std::to_string(o.measure_cpu) + ";" +
      std::to_string(o.lb_interval) + ";" + o.clusters + ";" +
      std::to_string(o.cluster_threshold_us) + ";" + std::to_string(o.wan_latency_ms) + ";" +
      std::to_string(o.grid_queue_period) + ";" + o.pe_speed + ";" + std::to_string(o.lb_fan_in) +
      ";" + std::to_string(o.mpi_shm);
  for (const std::string& p : o.lb_params) text += p + ",";
  for (const std::string& p : o.lb_policy_params) text += p + ",";
  return fingerprint(text);
}

}  // namespace

ProcessLayout process_layout(const Options& options, PeId cores) {
  ProcessLayout layout;
  int size = 1;
  if (mpi_launched(size) && size > 1) {
    initialize_mpi();
    keep_freed_memory();
    MPI_Comm_size(MPI_COMM_WORLD, &layout.processes);
    MPI_Comm_rank(MPI_COMM_WORLD, &layout.process);
    layout.local_pes = options.pes_per_process > 0 ? options.pes_per_process : 1;
    layout.pes = layout.processes * layout.local_pes;
    if (options.pes != 0 && options.pes != layout.pes) {
      throw std::invalid_argument("--pes " + std::to_string(options.pes) + ": this run has " +
                                  std::to_string(layout.processes) + " processes of " +
                                  std::to_string(layout.local_pes) +
                                  " PEs (--pes-per-process), so " + std::to_string(layout.pes) +
                                  " PEs; leave --pes out under mpirun or give that number");
    }
    layout.first_pe = layout.process * layout.local_pes;
    return layout;
  }
  if (options.pes_per_process > 0 && options.pes != 0 && options.pes != options.pes_per_process) {
    throw std::invalid_argument("--pes-per-process " + std::to_string(options.pes_per_process) +
                                " and --pes " + std::to_string(options.pes) +
                                " disagree in a run of one process");
  }
  layout.pes = options.pes != 0              ? options.pes
               : options.pes_per_process > 0 ? options.pes_per_process
                                             : cores;
  layout.local_pes = layout.pes;
  return layout;
}

struct Transport::Impl {
  RuntimeState& state;
  MPI_Comm comm = MPI_COMM_NULL;
  int process = 0;
  int processes = 1;
  const bool own_thread;
  std::thread thread;
  // MpiProgress::pe: the PE making progress holds it (another skips its pass; a pass that
  // queues a reply leaves it for the next pass).
  std::atomic<bool> busy{false};
  Inbox<Message> outbox;              // packed messages from any thread, for the thread to send
  std::atomic<bool> closing{false};   // the PEs have stopped: the closing handshake
  std::deque<PendingSend> in_flight;  // sends not yet complete
  // Data for collections this process does not know yet (their description from process 0
  // can be overtaken by a message from a third process).
  std::map<CollectionId, std::vector<std::pair<Message*, PeId>>> held;  // with the local PE

  // Shared memory with the other processes of this machine (--no-shm: none), and the peer of
  // each process of the run's communicator (null for the other machines' and this one).
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm bulk_comm = MPI_COMM_NULL;
  MPI_Win window = MPI_WIN_NULL;
  std::vector<std::unique_ptr<ShmPeer>> on_node;
  std::vector<ShmPeer*> peer_of;
  bool any_waiting = false;
  bool all_on_node = false;  // every other process has a ring
  std::uint32_t passes = 0;
  Ticks next_mpi_look = 0;
  const Ticks mpi_look_ticks = tick_clock::from_seconds(mpi_look_seconds);

  // Process 0: quiescence rounds.
  std::uint64_t wave = 0;
  int replies = 0;
  LocalWave total;
  bool have_previous = false;
  LocalWave previous;
  Ticks next_wave = 0;
  bool wave_open = false;

  explicit Impl(RuntimeState& s)
      : state(s), own_thread(s.options.mpi_progress == MpiProgress::thread) {}

  // Collective over `node`: the rings with the other processes of this machine, in a shared
  // window where each process holds the rings it reads (one per process of the machine).
  void open_shm() {
    int size = 1, me = 0;
    MPI_Comm_size(node, &size);
    MPI_Comm_rank(node, &me);
    if (size < 2) return;
    std::vector<int> world(static_cast<std::size_t>(size));
    MPI_Allgather(&process, 1, MPI_INT, world.data(), 1, MPI_INT, node);
    const std::size_t ring = ShmRing::footprint(shm_ring_bytes);
    // 64 bytes more, to start the rings on a cache line (a window's part need not be aligned;
    // its address modulo 64 is the same in every process, which maps whole pages).
    const auto bytes = static_cast<MPI_Aint>(ring * static_cast<std::size_t>(size) + 64);
    void* window_base = nullptr;
    MPI_Win_allocate_shared(bytes, 1, MPI_INFO_NULL, node, &window_base, &window);
    std::byte* base = cache_line(window_base);
    std::memset(base, 0, ring * static_cast<std::size_t>(size));
    for (int k = 0; k < size; ++k) {
      ::new (base + ring * static_cast<std::size_t>(k)) ShmRing::Control{};
    }
    MPI_Win_lock_all(MPI_MODE_NOCHECK, window);
    MPI_Barrier(node);  // every ring is ready
    MPI_Comm_dup(comm, &bulk_comm);
    peer_of.assign(static_cast<std::size_t>(processes), nullptr);
    for (int k = 0; k < size; ++k) {
      if (k == me) continue;
      MPI_Aint their_bytes = 0;
      int unit = 0;
      void* theirs = nullptr;
      MPI_Win_shared_query(window, k, &their_bytes, &unit, &theirs);
      // Mine to them: ring `me` of their part; theirs to me: ring k of mine.
      ShmRing out(cache_line(theirs) + ring * static_cast<std::size_t>(me), shm_ring_bytes);
      ShmRing in(base + ring * static_cast<std::size_t>(k), shm_ring_bytes);
      const int process_k = world[static_cast<std::size_t>(k)];
      on_node.push_back(std::make_unique<ShmPeer>(out, in, process_k));
      peer_of[static_cast<std::size_t>(process_k)] = on_node.back().get();
    }
    all_on_node = size == processes;
  }

  // After the closing barrier (every process is there): the window and its communicators.
  void close_shm() {
    for (auto& peer : on_node) {
      if (peer->bulk != MPI_REQUEST_NULL) MPI_Wait(&peer->bulk, MPI_STATUS_IGNORE);
      if (peer->bulk_message != nullptr) free_message(std::exchange(peer->bulk_message, nullptr));
    }
    drain_incoming();
    peer_of.clear();
    on_node.clear();
    if (window != MPI_WIN_NULL) {
      MPI_Win_unlock_all(window);
      MPI_Win_free(&window);
    }
    if (bulk_comm != MPI_COMM_NULL) MPI_Comm_free(&bulk_comm);
    if (node != MPI_COMM_NULL) MPI_Comm_free(&node);
  }

  // Queues bytes for process `to` under `tag` (control messages are sent synchronously, so
  // they have been received once their send completes).
  void queue(int to, int tag, std::vector<std::byte> bytes) {
    Message* m =
        new_system_message(Kind::entry, 0, static_cast<std::uint64_t>(to), std::move(bytes));
    m->handler = static_cast<HandlerId>(tag);
    outbox.push(m);  // wakes the communication thread if it sleeps
    if (!own_thread) poll();
  }

  // MpiProgress::pe: a pass, unless another PE is making one.
  bool poll() {
    if (busy.load(std::memory_order_relaxed) || busy.exchange(true, std::memory_order_acquire)) {
      return false;
    }
    const bool moved = !closing.load(std::memory_order_relaxed) && progress();
    // Sends still in flight need more passes (a large one completes only as the receiver
    // takes it): the caller keeps polling rather than sleep.
    const bool pending = !in_flight.empty() || any_waiting;
    busy.store(false, std::memory_order_release);
    return moved || pending;
  }

  void queue_all(int tag, const std::vector<std::byte>& bytes) {
    for (int p = 0; p < processes; ++p) {
      if (p != process) queue(p, tag, bytes);
    }
  }

  // ---- the thread ----

  bool send_queued() {
    bool moved = any_waiting && send_waiting();
    auto batch = outbox.take_all();
    if (batch.count == 0) return moved;
    for (Message* m = batch.first; m != nullptr;) {
      Message* next = m->next;
      const auto& bytes = *static_cast<std::vector<std::byte>*>(m->args());
      const int to = static_cast<int>(m->element);
      const int tag = static_cast<int>(m->handler);
      ShmPeer* ring =
          tag == tag_data && !peer_of.empty() ? peer_of[static_cast<std::size_t>(to)] : nullptr;
      if (ring != nullptr) {
        ShmPeer& peer = *ring;
        m->next = nullptr;
        if (!peer.waiting.empty() || !write_ring(peer, to, m)) {
          peer.waiting.push_back(m);
          any_waiting = true;
        }
        m = next;
        continue;
      }
      PendingSend out{MPI_REQUEST_NULL, m};
      if (tag == tag_data) {
        MPI_Isend(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, to, tag, comm,
                  &out.request);
      } else {
        MPI_Issend(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, to, tag, comm,
                   &out.request);
      }
      in_flight.push_back(out);
      m = next;
    }
    return true;
  }

  // Writes data message `m` (packed bytes) for process `to` into its ring, or announces it
  // there and sends its bytes by MPI; false (nothing done) when the ring is full.
  bool write_ring(ShmPeer& peer, int to, Message* m) {
    const auto& bytes = *static_cast<std::vector<std::byte>*>(m->args());
    if (bytes.size() <= shm_inline_bytes) {
      if (!peer.out.try_write(ShmRing::data, bytes, {})) return false;
      free_message(m);
      return true;
    }
    const std::uint64_t size = bytes.size();
    if (!peer.out.try_write(ShmRing::bulk, std::as_bytes(std::span{&size, 1}), {})) return false;
    PendingSend out{MPI_REQUEST_NULL, m};
    MPI_Isend(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, to, tag_data, bulk_comm,
              &out.request);
    in_flight.push_back(out);
    return true;
  }

  // What waited for full rings, in order, as far as they take it.
  bool send_waiting() {
    bool moved = false;
    any_waiting = false;
    for (auto& p : on_node) {
      ShmPeer& peer = *p;
      while (!peer.waiting.empty() && write_ring(peer, peer.process, peer.waiting.front())) {
        peer.waiting.pop_front();
        moved = true;
      }
      any_waiting = any_waiting || !peer.waiting.empty();
    }
    return moved;
  }

  // Arrivals in the rings of this machine's processes (up to 64 from each); a ring whose
  // large message is still arriving by MPI waits for it. True when something arrived.
  bool receive_shm() {
    bool moved = false;
    for (auto& p : on_node) {
      ShmPeer& peer = *p;
      const int from = peer.process;
      for (int i = 0; i < 64; ++i) {
        if (peer.deferred.defer != nullptr) {
          if (!match_deferred(peer)) break;
          moved = true;
        }
        if (peer.bulk != MPI_REQUEST_NULL) {
          int done = 0;
          MPI_Test(&peer.bulk, &done, MPI_STATUS_IGNORE);
          if (done == 0) break;
          if (peer.bulk_message != nullptr) {
            Message* m = std::exchange(peer.bulk_message, nullptr);
            if (closing.load(std::memory_order_relaxed)) {
              free_message(m);
            } else {
              route(m, peer.bulk_header);
            }
          } else if (!closing.load(std::memory_order_relaxed)) {
            deliver(std::move(peer.bulk_bytes));
          }
          peer.bulk_bytes = {};
          moved = true;
        }
        ShmRing::Type type{};
        std::span<const std::byte> payload;
        if (!peer.in.peek(type, payload)) break;
        moved = true;
        if (type == ShmRing::data) {
          if (!closing.load(std::memory_order_relaxed)) deliver_record(payload);
          peer.in.pop();
          continue;
        }
        if (type == ShmRing::typed) {
          receive_typed(peer, payload);
          peer.in.pop();
          continue;
        }
        std::uint64_t size = 0;
        std::memcpy(&size, payload.data(), sizeof size);
        peer.in.pop();
        peer.bulk_bytes = unzeroed(static_cast<std::size_t>(size));
        MPI_Irecv(peer.bulk_bytes.data.get(), static_cast<int>(size), MPI_BYTE, from, tag_data,
                  bulk_comm, &peer.bulk);
      }
    }
    return moved;
  }

  // Closing, after the barrier is entered: what would be sent is freed instead.
  void drop_queued() {
    for (Message* m = outbox.take_all().first; m != nullptr;) {
      Message* next = m->next;
      free_message(m);
      m = next;
    }
    for (auto& peer : on_node) {
      for (Message* m : peer->waiting) free_message(m);
      peer->waiting.clear();
    }
    any_waiting = false;
  }

  bool complete_sends() {
    bool progress = false;
    for (auto it = in_flight.begin(); it != in_flight.end();) {
      int done = 0;
      MPI_Test(&it->request, &done, MPI_STATUS_IGNORE);
      if (done == 0) {
        ++it;
        continue;
      }
      free_message(it->message);
      it = in_flight.erase(it);
      progress = true;
    }
    return progress;
  }

  bool receive_one() {
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
      if (!closing.load(std::memory_order_relaxed)) deliver(std::move(raw));
      return true;
    }
    std::vector<std::byte> bytes(static_cast<std::size_t>(count));
    MPI_Mrecv(bytes.data(), count, MPI_BYTE, &handle, MPI_STATUS_IGNORE);
    arrived(status.MPI_SOURCE, status.MPI_TAG, std::move(bytes));
    return true;
  }

  void arrived(int source, int tag, std::vector<std::byte> bytes) {
    switch (tag) {
      case tag_data:
        if (!closing.load(std::memory_order_relaxed)) deliver(std::move(bytes));
        return;
      case tag_collection:
        learn_collection(bytes);
        return;
      case tag_wave_request: {
        std::uint64_t number = 0;
        pup::unpack(bytes, number);
        const Wave w = read_wave(state);
        LocalWave mine{static_cast<std::uint8_t>(w.all_passive ? 1 : 0), w.sent, w.received,
                       w.parked};
        std::vector<std::byte> reply;
        pup::pack_values(reply, number, mine);
        queue(source, tag_wave_reply, std::move(reply));
        return;
      }
      case tag_wave_reply: {
        std::uint64_t number = 0;
        LocalWave theirs;
        pup::Unpacker in(bytes);
        pup::unpack_values(in, number, theirs);
        if (number == wave) add_reply(theirs);
        return;
      }
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

  void deliver(std::vector<std::byte> bytes) {
    WireHeader h;
    std::size_t args = 0;
    if (!read_header(bytes, h, args)) return;
    bytes.resize(args);
    Message* m = header_message(h);
    ::new (m->storage) std::vector<std::byte>(std::move(bytes));
    m->ops = &packed_args;
    route(m, h);
  }

  // A typed record: the entry message is built here, its arguments unpacked but for their large
  // vectors, which are sized and receive their bytes by MPI straight from the sender's (or, one
  // deferrable block, receive them later where the receiving element says: match_deferred).
  void receive_typed(ShmPeer& peer, std::span<const std::byte> payload) {
    WireHeader h;
    std::size_t args = 0;
    if (!read_header(payload, h, args)) {
      throw std::logic_error("MPI transport: a short typed record");
    }
    const ArgsOps* ops = handler_ops(h.handler);
    if (ops == nullptr || ops->scatter == nullptr) {
      throw std::logic_error("MPI transport: entry method " + std::to_string(h.handler) +
                             " unknown here (mismatched binaries)");
    }
    const Outgoing out = new_entry_message(*ops, ops->size, ops->align);
    ByteBlocks blocks;
    try {
      pup::Unpacker in(payload.first(args));
      ops->scatter(out.args, in, blocks);
    } catch (...) {
      discard_message(out);
      throw;
    }
    set_header(out.message, h);
    peer.bulk_message = out.message;
    peer.bulk_header = h;
    if (blocks.size() == 1 && blocks[0].defer != nullptr) {
      peer.deferred = blocks[0];  // routed once matched (match_deferred)
      return;
    }
    for (ByteBlock& b : blocks) {
      if (b.data == nullptr) b.data = b.allocate(b.value, b.size);
    }
    post_blocks(false, blocks, peer.process, tag_data, bulk_comm, &peer.bulk);
  }

  // The deferred block of peer's typed record, once its MPI message is matched: handed to its
  // argument, and the message routed. False while not matched yet.
  bool match_deferred(ShmPeer& peer) {
    int flag = 0;
    MPI_Message matched = MPI_MESSAGE_NULL;
    MPI_Improbe(peer.process, tag_data, bulk_comm, &flag, &matched, MPI_STATUS_IGNORE);
    if (flag == 0) return false;
    auto* pending = new PendingBytes{matched, peer.deferred.size};
    {
      std::lock_guard lock(incoming_mutex);
      incoming.push_back(pending);
    }
    const ByteBlock b = std::exchange(peer.deferred, ByteBlock{nullptr, 0});
    b.defer(b.value, IncomingBytes(pending, b.size));
    Message* m = std::exchange(peer.bulk_message, nullptr);
    if (closing.load(std::memory_order_relaxed)) {
      free_message(m);  // its bytes are received into scratch
    } else {
      route(m, peer.bulk_header);
    }
    return true;
  }

  // A data message in a ring record: its arguments copied into the message itself when they fit
  // there (no allocation), else into a buffer of their own.
  void deliver_record(std::span<const std::byte> bytes) {
    WireHeader h;
    std::size_t args = 0;
    if (!read_header(bytes, h, args)) return;
    if (args > InlineBytes::capacity) {
      deliver(std::vector<std::byte>(bytes.begin(), bytes.end()));
      return;
    }
    Message* m = header_message(h);
    auto* inline_bytes = ::new (m->storage) InlineBytes;
    inline_bytes->size = static_cast<std::uint32_t>(args);
    if (args != 0) std::memcpy(inline_bytes->data, bytes.data(), args);
    m->ops = &inline_args;
    route(m, h);
  }

  // A data message received into an unzeroed buffer (large ones: no pass to zero it first).
  void deliver(RawBytes raw) {
    WireHeader h;
    if (!read_header({raw.data.get(), raw.size}, h, raw.size)) return;
    Message* m = header_message(h);
    ::new (m->storage) RawBytes(std::move(raw));
    m->ops = &raw_args;
    route(m, h);
  }

  static Message* header_message(const WireHeader& h) {
    Message* m = new_message();
    set_header(m, h);
    return m;
  }

  static void set_header(Message* m, const WireHeader& h) {
    m->kind = static_cast<Kind>(h.kind);
    m->collection = h.collection;
    m->element = h.element;
    m->sender = h.sender;
    m->handler = h.handler;
    m->priority = h.priority;
    m->origin = h.origin;
    m->hops = h.hops;
    m->wan = h.wan != 0;
  }

  // To the inbox of the PE it is for (held while its collection is not known here).
  void route(Message* m, const WireHeader& h) {
    const PeId local = h.to - state.layout.first_pe;
    if (local < 0 || local >= state.layout.local_pes) {  // not ours: a mismatched binary
      free_message(m);
      return;
    }
    // Every message names its collection (runtime ones too); one this process does not know
    // yet waits for its description.
    if (m->collection >= state.collection_count.load(std::memory_order_acquire)) {
      held[m->collection].emplace_back(m, local);
      return;
    }
    state.pe[static_cast<std::size_t>(local)]->inbox.push(m);
  }

  void learn_collection(const std::vector<std::byte>& bytes) {
    pup::Unpacker in(bytes);
    auto info = std::make_unique<CollectionInfo>();
    in | info->id | info->name | info->shape.nx | info->shape.ny | info->shape.nz |
        info->shape.dims | info->home | info->factory | info->arguments;
    in.expect_end();
    const CollectionId id = info->id;
    if (id != state.collection_count.load(std::memory_order_relaxed) ||
        id >= RuntimeState::max_collections) {
      return;  // out of order: cannot happen (one sender, ordered)
    }
    state.collections[id] = std::move(info);
    state.collection_count.store(id + 1, std::memory_order_release);
    auto it = held.find(id);
    if (it == held.end()) return;
    for (auto [m, local] : it->second) state.pe[static_cast<std::size_t>(local)]->inbox.push(m);
    held.erase(it);
  }

  // ---- quiescence (process 0) ----

  void add_reply(const LocalWave& w) {
    total.passive = static_cast<std::uint8_t>(total.passive & w.passive);
    total.sent += w.sent;
    total.received += w.received;
    total.parked += w.parked;
    if (++replies < processes - 1) return;
    wave_open = false;
    // Own PEs, read after every reply came.
    const Wave mine = read_wave(state);
    total.passive = static_cast<std::uint8_t>(total.passive & (mine.all_passive ? 1 : 0));
    total.sent += mine.sent;
    total.received += mine.received;
    total.parked += mine.parked;
    const bool balanced = total.passive != 0 && total.sent == total.received;
    if (balanced && have_previous && previous.sent == total.sent &&
        previous.received == total.received) {
      if (total.parked > 0) {
        state.fail(std::make_exception_ptr(std::logic_error(
            "quiescence with " + std::to_string(total.parked) +
            " message(s) held for elements that never arrived (a message was sent to an "
            "element that is neither here nor on its way)")));
        return;
      }
      stop_all(state);
      return;
    }
    have_previous = balanced;
    previous = total;
    // A balanced round is confirmed at once; otherwise wait a little before asking again.
    next_wave = balanced ? 0 : tick_clock::now() + tick_clock::from_seconds(200e-6);
  }

  void maybe_start_wave() {
    if (process != 0 || wave_open || state.stopping.load(std::memory_order_relaxed)) return;
    // A round waits 200 µs after an unbalanced one: the clock is read once every few passes
    // (a pass of an idle PE takes well under a microsecond; reading the clock, a good part of
    // it).
    if (next_wave != 0 && (passes % mpi_probe_every != 0 || tick_clock::now() < next_wave)) return;
    const Wave mine = read_wave(state);
    if (!mine.all_passive) {
      have_previous = false;
      return;
    }
    ++wave;
    wave_open = true;
    replies = 0;
    total = LocalWave{};
    queue_all(tag_wave_request, pup::pack(wave));
  }

  // One pass: what is queued goes out, finished sends are freed, arrivals are delivered (up
  // to 64), and process 0 runs its quiescence rounds. True when something happened.
  bool progress() {
    bool moved = send_queued();
    moved = receive_shm() || moved;
    // With every other process on this machine, MPI carries only control messages and the
    // bytes of large messages: it is looked at once every few passes (each look runs MPI's
    // whole progress engine).
    ++passes;
    if (!all_on_node || (passes % mpi_probe_every == 0 && mpi_look_due())) {
      moved = complete_sends() || moved;
      for (int i = 0; i < 64 && receive_one(); ++i) moved = true;
    }
    maybe_start_wave();
    return moved;
  }

  bool mpi_look_due() {
    if (!in_flight.empty()) return true;
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
  bool write_direct(int to, std::size_t bytes, ShmRing::Type type, Fill&& fill) {
    if (own_thread || peer_of.empty() || bytes > shm_inline_bytes) return false;
    ShmPeer* peer = peer_of[static_cast<std::size_t>(to)];
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
    if (any_waiting || !outbox.empty()) send_queued();
    if (!peer->waiting.empty()) return false;
    std::byte* at = peer->out.reserve(bytes);
    if (at == nullptr) return false;
    fill(at);
    peer->out.commit(type);
    return true;
  }

  // Data message `m` with header `h` (`header` bytes on the wire) and `args` bytes of packed
  // arguments, packed into the ring (write_direct's conditions).
  bool send_direct(int to, Message* m, const WireHeader& h, std::size_t header, std::size_t args) {
    return write_direct(to, args + header, ShmRing::data, [&](std::byte* at) {
      if (args != 0) m->ops->pack_to(m->args(), {at, args});
      write_header(h, header, at + args);
    });
  }

  // Entry message `m` whose arguments hold blocks (ByteBlock) of at least external_bytes_from
  // bytes: the rest of its arguments go into the ring (a typed record), the blocks' bytes by MPI
  // from where they lie, and the message is freed once the send completes (write_direct's
  // conditions).
  bool send_typed(int to, Message* m, const WireHeader& h, std::size_t header) {
    const ArgsOps* ops = m->ops;
    if (ops == nullptr || ops->gather == nullptr) return false;
    ByteBlocks blocks;
    const std::size_t args = ops->gather(m->args(), {}, blocks);
    if (blocks.empty()) return false;
    return write_direct(to, args + header, ShmRing::typed, [&](std::byte* at) {
      ByteBlocks again;
      ops->gather(m->args(), {at, args}, again);
      write_header(h, header, at + args);
      in_flight.push_back({MPI_REQUEST_NULL, m});
      post_blocks(true, blocks, to, tag_data, bulk_comm, &in_flight.back().request);
    });
  }

  // MpiProgress::thread: the communication thread's loop.
  void run() {
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
      outbox.park(never, &t);
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
  void close() {
    for (;;) {
      send_queued();
      complete_sends();
      while (receive_shm() || receive_one()) {
      }
      drain_incoming();
      if (in_flight.empty() && outbox.empty() && !any_waiting) break;
      std::this_thread::yield();
    }
    MPI_Request barrier = MPI_REQUEST_NULL;
    MPI_Ibarrier(comm, &barrier);
    for (;;) {
      drop_queued();
      while (receive_shm() || receive_one()) {
      }
      drain_incoming();
      int done = 0;
      MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
      if (done != 0) break;
      std::this_thread::yield();
    }
    while (receive_shm() || receive_one()) {
    }
    for (auto& [id, messages] : held) {
      for (auto [m, local] : messages) free_message(m);
    }
    held.clear();
  }
};

Transport::Transport(RuntimeState& state) : impl_(std::make_unique<Impl>(state)) {
  MPI_Comm_dup(MPI_COMM_WORLD, &impl_->comm);
  MPI_Comm_rank(impl_->comm, &impl_->process);
  MPI_Comm_size(impl_->comm, &impl_->processes);
  // Every process must run the same program with the same runtime options: handler and factory
  // ids, and the runtime's protocol, depend on both. Checked by every process at once, so all
  // of them stop with the error (none waits for the others).
  const std::uint64_t mine[2] = {program_fingerprint(), options_fingerprint(state.options)};
  std::uint64_t low[2] = {}, high[2] = {};
  MPI_Allreduce(mine, low, 2, MPI_UINT64_T, MPI_MIN, impl_->comm);
  MPI_Allreduce(mine, high, 2, MPI_UINT64_T, MPI_MAX, impl_->comm);
  if (low[0] != high[0] || low[1] != high[1]) {
    MPI_Comm_free(&impl_->comm);
    if (low[0] != high[0]) {
      throw std::invalid_argument(
          "mpirun: the processes run different programs (their entry methods or element types "
          "differ); start the same binary in every process");
    }
    throw std::invalid_argument(
        "mpirun: the processes were given different runtime options (--pes-per-process, "
        "--mpi-progress, --lb, --lb-param, --lb-policy, --trace, --lb-dump, --clusters, "
        "--wan-latency, --pe-speed, ...); give every process the same command line");
  }
  // The processes of this machine (shared memory): for the rings, the oversubscription count
  // and --clusters node.
  MPI_Comm_split_type(impl_->comm, MPI_COMM_TYPE_SHARED, impl_->process, MPI_INFO_NULL,
                      &impl_->node);
  if (state.options.mpi_shm) impl_->open_shm();
}

Transport::~Transport() {
  if (impl_->thread.joinable()) {
    impl_->closing.store(true, std::memory_order_release);
    impl_->thread.join();
  }
  while (Message* m = impl_->outbox.take_all().first) {
    while (m != nullptr) {
      Message* next = m->next;
      free_message(m);
      m = next;
    }
  }
  for (PendingSend& o : impl_->in_flight) {
    MPI_Cancel(&o.request);
    MPI_Request_free(&o.request);
    free_message(o.message);
  }
  for (auto& peer : impl_->on_node) {
    for (Message* m : peer->waiting) free_message(m);
    if (peer->bulk != MPI_REQUEST_NULL) {
      MPI_Cancel(&peer->bulk);
      MPI_Request_free(&peer->bulk);
    }
  }
  if (impl_->node != MPI_COMM_NULL) MPI_Comm_free(&impl_->node);
  MPI_Comm_free(&impl_->comm);
}

void Transport::broadcast(std::int64_t& value) {
  MPI_Bcast(&value, 1, MPI_INT64_T, 0, impl_->comm);
}

std::vector<std::string> Transport::gather(const std::string& mine) {
  const int n = impl_->processes;
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<std::size_t>(n));
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, impl_->comm);
  std::vector<int> offsets(static_cast<std::size_t>(n), 0);
  std::string all;
  if (impl_->process == 0) {
    for (int p = 1; p < n; ++p) {
      offsets[static_cast<std::size_t>(p)] =
          offsets[static_cast<std::size_t>(p - 1)] + lengths[static_cast<std::size_t>(p - 1)];
    }
    all.resize(static_cast<std::size_t>(offsets.back() + lengths.back()));
  }
  MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
              0, impl_->comm);
  std::vector<std::string> texts;
  if (impl_->process != 0) return texts;
  for (int p = 0; p < n; ++p) {
    texts.push_back(all.substr(static_cast<std::size_t>(offsets[static_cast<std::size_t>(p)]),
                               static_cast<std::size_t>(lengths[static_cast<std::size_t>(p)])));
  }
  return texts;
}

void Transport::broadcast(std::string& text) {
  std::uint64_t length = text.size();
  MPI_Bcast(&length, 1, MPI_UINT64_T, 0, impl_->comm);
  text.resize(length);
  MPI_Bcast(text.data(), static_cast<int>(length), MPI_CHAR, 0, impl_->comm);
}

std::vector<double> Transport::allgather(const std::vector<double>& mine) {
  std::vector<double> all(mine.size() * static_cast<std::size_t>(impl_->processes));
  MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(),
                static_cast<int>(mine.size()), MPI_DOUBLE, impl_->comm);
  return all;
}

namespace {

// Renumbers labels 0.. in order of first appearance.
std::vector<std::int32_t> dense_labels(const std::vector<int>& labels) {
  std::map<int, std::int32_t> seen;
  std::vector<std::int32_t> out;
  for (const int l : labels) {
    const auto it = seen.emplace(l, static_cast<std::int32_t>(seen.size())).first;
    out.push_back(it->second);
  }
  return out;
}

}  // namespace

std::vector<std::int32_t> Transport::node_clusters() {
  int leader = impl_->process;
  MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, impl_->node);
  std::vector<int> leaders(static_cast<std::size_t>(impl_->processes));
  MPI_Allgather(&leader, 1, MPI_INT, leaders.data(), 1, MPI_INT, impl_->comm);
  return dense_labels(leaders);
}

bool Transport::node_oversubscribed(int threads) {
  MPI_Comm node = impl_->node;
  cpu_set_t mine;
  CPU_ZERO(&mine);
  if (sched_getaffinity(0, sizeof mine, &mine) != 0) CPU_SET(0, &mine);
  // CPU sets as words, or-ed over the machine's processes; the threads summed.
  constexpr int words = sizeof(cpu_set_t) / sizeof(std::uint64_t);
  std::uint64_t bits[words] = {};
  std::memcpy(bits, &mine, sizeof bits);
  MPI_Allreduce(MPI_IN_PLACE, bits, words, MPI_UINT64_T, MPI_BOR, node);
  MPI_Allreduce(MPI_IN_PLACE, &threads, 1, MPI_INT, MPI_SUM, node);
  int cores = 0;
  for (const std::uint64_t w : bits) cores += std::popcount(w);
  return threads > cores;
}

std::vector<std::int32_t> Transport::probe_clusters(double threshold_us) {
  // Process p, in turn, ping-pongs with each leader (the first process of each cluster found so
  // far) and joins the first within the threshold; every process learns its choice from a
  // broadcast, so all keep the same list of leaders.
  constexpr int round_trips = 5;
  constexpr int tag = 1000;
  const int me = impl_->process;
  MPI_Comm comm = impl_->comm;
  std::vector<int> cluster(static_cast<std::size_t>(impl_->processes), 0);
  std::vector<int> leaders{0};
  auto ping = [&](int other, bool first) {
    double best = 1e30;
    char byte = 0;
    for (int r = 0; r <= round_trips; ++r) {  // the first round trip warms the path
      const double from = MPI_Wtime();
      if (first) {
        MPI_Send(&byte, 1, MPI_CHAR, other, tag, comm);
        MPI_Recv(&byte, 1, MPI_CHAR, other, tag, comm, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(&byte, 1, MPI_CHAR, other, tag, comm, MPI_STATUS_IGNORE);
        MPI_Send(&byte, 1, MPI_CHAR, other, tag, comm);
      }
      if (r > 0) best = std::min(best, (MPI_Wtime() - from) / 2.0);
    }
    return best;
  };
  for (int p = 1; p < impl_->processes; ++p) {
    int choice = -1;
    for (std::size_t l = 0; l < leaders.size(); ++l) {
      // Both sides learn whether to go on: the prober sends its verdict after each leader.
      int verdict = 0;
      if (me == p) {
        verdict = ping(leaders[l], true) * 1e6 <= threshold_us ? 1 : 0;
        MPI_Send(&verdict, 1, MPI_INT, leaders[l], tag + 1, comm);
      } else if (me == leaders[l]) {
        ping(p, false);
        MPI_Recv(&verdict, 1, MPI_INT, p, tag + 1, comm, MPI_STATUS_IGNORE);
      }
      if (me == p && verdict == 1) {
        choice = static_cast<int>(l);
        break;
      }
      if (me == leaders[l] && verdict == 1) break;
    }
    MPI_Bcast(&choice, 1, MPI_INT, p, comm);
    if (choice < 0) {
      cluster[static_cast<std::size_t>(p)] = static_cast<int>(leaders.size());
      leaders.push_back(p);
    } else {
      cluster[static_cast<std::size_t>(p)] = choice;
    }
  }
  return dense_labels(cluster);
}

void Transport::start() {
  if (impl_->own_thread) impl_->thread = std::thread([this] { impl_->run(); });
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

void IncomingBytes::receive_into(std::byte* where) {
  auto* p = static_cast<PendingBytes*>(std::exchange(pending_, nullptr));
  if (p == nullptr) throw std::logic_error("IncomingBytes::receive_into: nothing to receive");
  if (claim(p)) receive_matched(p->message, where, p->size);
  delete p;
  size_ = 0;
}

void IncomingBytes::drop() noexcept {
  if (pending_ == nullptr) return;
  const RawBytes scratch = unzeroed(size_);
  receive_into(scratch.data.get());
}

void Transport::publish_collection(const CollectionInfo& info) {
  std::vector<std::byte> bytes;
  pup::pack_values(bytes, info.id, info.name, info.shape.nx, info.shape.ny, info.shape.nz,
                   info.shape.dims, info.home, info.factory, info.arguments);
  impl_->queue_all(tag_collection, bytes);
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
  impl_->outbox.wake();
  if (impl_->thread.joinable()) {
    impl_->thread.join();  // it closes
  } else {
    impl_->close();
  }
  impl_->close_shm();
  RunStats& s = impl_->state.stats;
  std::uint64_t counts[7] = {s.messages,     s.forwarded, s.migrations,   s.migrated_bytes,
                             s.wan_messages, s.wan_bytes, s.grid_messages};
  MPI_Allreduce(MPI_IN_PLACE, counts, 7, MPI_UINT64_T, MPI_SUM, impl_->comm);
  s.messages = counts[0];
  s.forwarded = counts[1];
  s.migrations = counts[2];
  s.migrated_bytes = counts[3];
  s.wan_messages = counts[4];
  s.wan_bytes = counts[5];
  s.grid_messages = counts[6];
}

}  // namespace vela::rt::detail
