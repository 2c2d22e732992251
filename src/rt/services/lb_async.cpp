// The balancing thread of asynchronous balancing (services/lb_async.hpp): jobs from the root,
// answers back to it as runtime messages. The thread is not pinned (it may run on any core of
// the process, a free one where there is one) and lowers its priority as --lb-async-priority
// says: by default to Linux's idle class, so that where it shares a core with a PE it runs only
// while the PE waits (an imbalanced run, whose underloaded PEs wait, gives it the most), and a
// PE that wakes takes the core back at once.
#include "services/lb_async.hpp"

#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>

#include "core/run_entry.hpp"
#include "core/runtime_state.hpp"
#include "vela/lb/model/evaluate.hpp"

namespace vela::rt::detail {

StrategyAnswer solve(lb::Strategy& strategy, const std::string& name, const lb::Instance& instance,
                     double at_least, std::uint64_t elements) {
  const double cpu_from = thread_cpu_seconds();
  const auto from = Clock::now();
  const lb::StrategyReport report = lb::run_strategy(strategy, name, instance);
  const auto burn_from = Clock::now();
  // --lb-strategy-time: the rest of the time as work, so that it competes for the core as a
  // slower strategy would. The loop's arithmetic is kept (volatile), never optimized away.
  volatile double sink = 0.0;
  while (thread_cpu_seconds() - cpu_from < at_least) {
    for (int i = 0; i < 10000; ++i) sink = sink + 1e-9 * i;
  }
  const auto to = Clock::now();
  StrategyAnswer answer;
  answer.name = name;
  // By element, so that it applies whatever was inserted or destroyed since the measurements.
  answer.placement.assign(elements, -1);
  for (std::size_t i = 0; i < instance.objects.size(); ++i) {
    answer.placement[static_cast<std::size_t>(instance.objects[i].id)] = report.assignment.pe[i];
  }
  // The strategy's own time (as an inline step counts it) plus the time made up to at_least.
  answer.seconds = report.time_ms / 1000.0 + std::chrono::duration<double>(to - burn_from).count();
  answer.moved = report.moved.count;
  answer.moved_bytes = report.moved.bytes;
  answer.imbalance_before = report.before.imbalance;
  answer.imbalance_after = report.after.imbalance;
  answer.from_ns = from.time_since_epoch().count();
  answer.to_ns = to.time_since_epoch().count();
  return answer;
}

AsyncBalancer::AsyncBalancer(RuntimeState& state) : state_(state) {}

AsyncBalancer::~AsyncBalancer() {
  close();
}

void AsyncBalancer::submit(AsyncJob job) {
  const std::lock_guard lock(mutex_);
  if (closed_) return;  // the run is over: nothing would take the answer
  jobs_.push_back(std::move(job));
  if (!thread_.joinable()) thread_ = std::thread([this] { work(); });
  wake_.notify_one();
}

std::uint64_t AsyncBalancer::close() {
  {
    const std::lock_guard lock(mutex_);
    if (!closed_) {
      closed_ = true;
      dropped_ += jobs_.size();
      jobs_.clear();
    }
    wake_.notify_one();
  }
  if (thread_.joinable()) thread_.join();
  const std::lock_guard lock(mutex_);
  return dropped_;
}

std::uint64_t AsyncBalancer::posted() {
  const std::lock_guard lock(mutex_);
  return posted_;
}

void AsyncBalancer::work() {
  // Named, so that top -H and ps show it (and tests find it).
  pthread_setname_np(pthread_self(), "vela-balancer");
  // --lb-pes: on the cores set aside (the last ones; the PEs took the first), else anywhere the
  // process may run. A refused binding is said once and the thread runs unpinned.
  const int aside = state_.options.lb_pes;
  std::string why_not;
  if (aside > 0 && state_.pinning != nullptr) {
    const int cores = state_.pinning->cores();
    if (!state_.pinning->pin_to_cores(cores - aside, aside, &why_not)) {
      std::fprintf(stderr, "vela: --lb-pes: the balancing thread %s\n", why_not.c_str());
    }
  } else if (state_.process_cores_known) {
    sched_setaffinity(0, sizeof state_.process_cores, &state_.process_cores);
  }
  // Per thread on Linux (0 and the thread id name this thread alone). A refusal leaves it at the
  // PEs' priority, which only changes who waits on a shared core.
  if (state_.options.lb_async_nice == Options::lb_async_idle) {
    const sched_param none{};
    sched_setscheduler(0, SCHED_IDLE, &none);
  } else {
    setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), state_.options.lb_async_nice);
  }
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return closed_ || !jobs_.empty(); });
    if (closed_) return;
    AsyncJob job = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    StrategyAnswer answer;
    try {
      answer = solve(*job.strategy, job.name, job.instance, state_.options.lb_strategy_time,
                     job.elements);
    } catch (const std::exception& e) {
      answer.name = job.name;
      answer.error = e.what();
    }
    answer.step = job.step;
    std::vector<std::byte> payload = pup::pack(answer);
    lock.lock();
    if (closed_) {  // the PEs are gone: the answer has no one to take it
      ++dropped_;
      if (!answer.error.empty()) {  // said all the same: the user's strategy failed
        std::fprintf(stderr,
                     "vela: strategy %s failed on the balancing thread after the run's end: %s\n",
                     answer.name.c_str(), answer.error.c_str());
      }
      return;
    }
    // Under the lock: close() cannot pass between the check and the post, so the message is
    // queued before the PEs' leftovers are freed.
    post_system(state_, 0, Kind::lb_answer, job.collection, 0, std::move(payload));
    ++posted_;
  }
}

void remember_process_cores(RuntimeState& state) {
  CPU_ZERO(&state.process_cores);
  state.process_cores_known =
      sched_getaffinity(0, sizeof state.process_cores, &state.process_cores) == 0;
}

}  // namespace vela::rt::detail
