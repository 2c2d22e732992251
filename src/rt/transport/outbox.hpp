// What travels between processes by MPI (the tags), and the outbox: packed messages waiting to
// be sent, and the sends in flight.
//
// Any thread pushes onto the queue: a lock-free list of the PEs' own inbox type, so a push wakes
// a sleeping communication thread. Only the progress-maker (the communication thread, or the PE
// holding Transport::Impl::busy) takes from it, starts sends and completes them. A message
// queued here holds its packed bytes in its arguments, with the destination process in
// `element` and the tag in `handler`; in flight, it holds the bytes until its send completes,
// then it is freed. Control messages are sent synchronously (MPI_Issend), so one has been
// received once its send completes: closing relies on it.
//
// Costs: a push is one compare-and-swap (and a futex wake when the thread sleeps); complete()
// tests every send in flight, one MPI_Test each, so with rings to every process it runs only
// once every few passes.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

#include "core/runtime_state.hpp"

namespace vela::rt::detail::mpi_transport {

// What travels, by MPI tag. Data messages carry a runtime message (to a PE); the others are
// for the progress-makers.
enum Tag : int {
  tag_data = 1,
  tag_collection = 2,
  tag_wave_request = 3,
  tag_wave_reply = 4,
  tag_stop = 5,
  tag_fail = 6,
};

struct PendingSend {
  MPI_Request request = MPI_REQUEST_NULL;
  Message* message = nullptr;  // holds the bytes until the send completes
};

struct Outbox {
  Inbox<Message> queued;              // packed messages from any thread, for the progress-maker
  std::deque<PendingSend> in_flight;  // sends not yet complete

  // Any thread: queues `bytes` for process `to` under `tag`.
  void push(int to, int tag, std::vector<std::byte> bytes) {
    Message* m =
        new_system_message(Kind::entry, 0, static_cast<std::uint64_t>(to), std::move(bytes));
    m->handler = static_cast<HandlerId>(tag);
    queued.push(m);  // wakes the communication thread if it sleeps
  }

  // A send of `m` about to start: where its request goes (the deque keeps it in place).
  MPI_Request* track(Message* m) {
    in_flight.push_back({MPI_REQUEST_NULL, m});
    return &in_flight.back().request;
  }

  // Frees the messages whose sends completed; true when one did.
  bool complete() {
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

  // Closing: what waits to be sent is freed instead.
  void drop_queued() {
    for (Message* m = queued.take_all().first; m != nullptr;) {
      Message* next = m->next;
      free_message(m);
      m = next;
    }
  }

  // Tear-down: everything queued is freed, and every send still in flight cancelled.
  void cancel() {
    while (Message* m = queued.take_all().first) {
      while (m != nullptr) {
        Message* next = m->next;
        free_message(m);
        m = next;
      }
    }
    for (PendingSend& o : in_flight) {
      MPI_Cancel(&o.request);
      MPI_Request_free(&o.request);
      free_message(o.message);
    }
  }
};

}  // namespace vela::rt::detail::mpi_transport
