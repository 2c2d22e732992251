// A PE's inbox: an intrusive multi-producer single-consumer queue of nodes with a `next`
// pointer, and the futex its owner parks on.
//
// Producers push with one compare-and-swap onto a list (newest first); the owner takes the
// whole list with one exchange and reverses it, so messages come out in the order they were
// pushed (each producer's messages in its own order). No lock, no allocation.
//
// Parking: the owner swaps an empty list for a tag meaning "parked" and sleeps on a futex word.
// The producer whose compare-and-swap replaces the tag is the only one that sees it, and only
// it wakes the owner: a sender pays for a wake-up (a system call) only when the receiver sleeps.
#pragma once

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstdint>
#include <ctime>

namespace vela::rt::detail {

inline void futex_wait(std::atomic<std::uint32_t>& word, std::uint32_t expected,
                       const timespec* timeout) {
  static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t));
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT_PRIVATE, expected, timeout,
          nullptr, 0);
}

inline void futex_wake(std::atomic<std::uint32_t>& word, int waiters) {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAKE_PRIVATE, waiters, nullptr,
          nullptr, 0);
}

template <class Node>
class Inbox {
 public:
  Inbox() = default;
  Inbox(const Inbox&) = delete;
  Inbox& operator=(const Inbox&) = delete;

  // Any thread.
  void push(Node* node) {
    Node* old = head_.load(std::memory_order_relaxed);
    do {
      node->next = old == parked_tag() ? nullptr : old;
    } while (!head_.compare_exchange_weak(old, node, std::memory_order_release,
                                          std::memory_order_relaxed));
    if (old == parked_tag()) {
      parked_.store(0, std::memory_order_release);
      futex_wake(parked_, 1);
    }
  }

  // Any thread: ends the owner's park (it returns from park() even with nothing pushed).
  void wake() {
    parked_.store(0, std::memory_order_seq_cst);
    futex_wake(parked_, 1);
  }

  // Any thread: whether the owner said it sleeps (sequentially consistent: see park()).
  bool asleep() const { return parked_.load(std::memory_order_seq_cst) == 1; }

  // Owner: whether something was pushed and not taken yet (a relaxed look, for polling).
  bool empty() const {
    Node* head = head_.load(std::memory_order_relaxed);
    return head == nullptr || head == parked_tag();
  }

  struct Batch {
    Node* first = nullptr;  // oldest
    Node* last = nullptr;
    std::size_t count = 0;
  };

  // Owner: everything pushed so far, oldest first.
  Batch take_all() {
    if (empty()) return {};
    Node* list = head_.exchange(nullptr, std::memory_order_acquire);
    Batch batch;
    if (list == parked_tag()) return batch;
    batch.last = list;
    while (list != nullptr) {
      Node* next = list->next;
      list->next = batch.first;
      batch.first = list;
      list = next;
      ++batch.count;
    }
    return batch;
  }

  // Owner: sleeps until a push, a wake(), `stop` or the timeout (relative; null: none).
  // `arrived()` looks at what else may bring work without a push (the PE rings), with
  // sequentially consistent loads after the owner said it sleeps: whoever writes there with a
  // sequentially consistent store and then sees asleep() wakes it.
  void park(const std::atomic<bool>& stop, const timespec* timeout) {
    park(stop, timeout, [] { return false; });
  }
  template <class Arrived>
  void park(const std::atomic<bool>& stop, const timespec* timeout, Arrived&& arrived) {
    parked_.store(1, std::memory_order_seq_cst);
    Node* expected = nullptr;
    if (!head_.compare_exchange_strong(expected, parked_tag(), std::memory_order_seq_cst)) {
      parked_.store(0, std::memory_order_relaxed);
      return;  // something arrived meanwhile
    }
    if (arrived()) parked_.store(0, std::memory_order_relaxed);
    while (parked_.load(std::memory_order_seq_cst) == 1 && !stop.load(std::memory_order_seq_cst)) {
      futex_wait(parked_, 1, timeout);
      if (timeout != nullptr) break;  // woken, interrupted or timed out: the caller looks again
    }
    // Still tagged: nobody pushed, take the tag back. Otherwise a producer replaced it (and
    // wakes us, or already did).
    expected = parked_tag();
    head_.compare_exchange_strong(expected, nullptr, std::memory_order_acquire,
                                  std::memory_order_relaxed);
  }

 private:
  // Never a node: the address of the futex word stands for "the owner is parked".
  Node* parked_tag() const {
    return reinterpret_cast<Node*>(const_cast<std::atomic<std::uint32_t>*>(&parked_));
  }

  alignas(64) std::atomic<Node*> head_{nullptr};
  std::atomic<std::uint32_t> parked_{0};
};

}  // namespace vela::rt::detail
