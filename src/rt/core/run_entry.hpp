// Running an entry method as an element's: measured (one clock read per boundary), stretched on
// an emulated slow PE, traced. A template, so the call costs no std::function (and no
// allocation). ElementAccess is the runtime's access to an element's private bookkeeping.
#pragma once

#include "core/clock.hpp"
#include "core/pe.hpp"
#include "core/runtime_state.hpp"
#include "vela/rt/cpu_pause.hpp"
#include "vela/rt/element.hpp"

namespace vela::rt::detail {

// Entry-method measurement: one clock read per boundary. An entry starts at the PE's mark (the
// end of what ran before) and its end becomes the next mark.
double thread_cpu_seconds();
void trace_entry(PeState& pe, ElementBase& element, const char* name, Ticks from, Ticks to);

// Whether entry segments are timed on `pe`: measured load, a trace or an emulated slow PE.
inline bool measures_segments(const PeState& pe) {
  const RuntimeState& state = *pe.runtime;
  return state.options.instrument || state.timeline != nullptr || pe.stretch > 0.0;
}

// continue_as() on `pe` (whose entry runs), the segment ending at `now` (read by the caller);
// returns the segment's end (later than `now` on an emulated slow PE; `now` when unmeasured).
Ticks continue_at(PeState& pe, ElementBase& to, const char* name, Ticks now);

// Runs `work` as element `element`'s entry method: measured and traced. A template, so the
// call costs no std::function (and no allocation). `name()` gives the entry's name for the trace
// (only called when tracing).
// `separate` false: `work` continues the entry under way (it measures nothing of its own).
template <class Name, class Work>
void run_entry(PeState& pe, ElementBase& element, Name&& name, Work&& work, bool separate = true);

struct ElementAccess {
  static CollectionId& collection(ElementBase& e) { return e.collection_; }
  static Index& index(ElementBase& e) { return e.index_; }
  static std::uint64_t& linear(ElementBase& e) { return e.linear_; }
  static std::uint32_t& reductions(ElementBase& e) { return e.reductions_; }
  static std::uint32_t& migrations(ElementBase& e) { return e.migrations_; }
  static bool& border(ElementBase& e) { return e.border_; }
  static bool& at_sync(ElementBase& e) { return e.at_sync_; }
  static double& cpu_seconds(ElementBase& e) { return e.cpu_seconds_; }
  static Ticks& wall_ticks(ElementBase& e) { return e.wall_ticks_; }
  static bool& unmeasured(ElementBase& e) { return e.unmeasured_; }
  static bool& destroying(ElementBase& e) { return e.destroying_; }
  static std::uint32_t& incarnation(ElementBase& e) { return e.incarnation_; }
  static double& declared_load(ElementBase& e) { return e.declared_load_; }
  static CommTable& comm(ElementBase& e) { return e.comm_; }
  static PeState*& pe(ElementBase& e) { return e.pe_; }
  static const Shape*& shape(ElementBase& e) { return e.shape_; }
};

// On an emulated slow PE, busy-waits until the segment [from, now) has taken 1 + stretch times
// as long (as the same work would on a PE that much slower); returns the segment's new end.
inline Ticks stretch(const PeState& pe, Ticks from, Ticks now) {
  if (pe.stretch <= 0.0) [[likely]]
    return now;
  const Ticks until = now + static_cast<Ticks>(static_cast<double>(now - from) * pe.stretch);
  while (now < until) {
    cpu_pause();
    now = tick_clock::now();
  }
  return now;
}

template <class Name, class Work>
void run_entry(PeState& pe, ElementBase& element, Name&& name, Work&& work, bool separate) {
  const RuntimeState& state = *pe.runtime;
  const bool measured = separate && measures_segments(pe);
  const bool cpu = measured && state.options.measure_cpu && state.options.instrument;
  pe.current = &element;
  if (cpu) pe.cpu_mark = thread_cpu_seconds();
  if (measured && state.timeline != nullptr) [[unlikely]]
    pe.entry_name = name();
  work();
  // continue_as() may have handed the rest of the entry to another element: the last segment
  // (from pe.mark) is charged to whoever runs now.
  ElementBase& last = *pe.current;
  pe.current = nullptr;
  if (!measured) return;
  const Ticks from = pe.mark;
  const Ticks to = stretch(pe, from, tick_clock::now());
  const bool counted = !ElementAccess::unmeasured(last);
  if (counted) ElementAccess::wall_ticks(last) += to - from;
  pe.mark = to;
  if (cpu && counted) ElementAccess::cpu_seconds(last) += thread_cpu_seconds() - pe.cpu_mark;
  if (state.timeline != nullptr) [[unlikely]]
    trace_entry(pe, last, pe.entry_name, from, to);
}

}  // namespace vela::rt::detail
