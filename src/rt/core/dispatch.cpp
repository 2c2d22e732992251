// Running what a PE takes from its queues: entry messages through deliver_entry, runtime
// messages through the handler of the service that owns their kind (services/*.hpp).
#include "core/runtime_state.hpp"

namespace vela::rt::detail {

namespace {

// Runs a runtime message (the entry path is deliver_entry): each kind goes to the service
// that owns it.
void dispatch_system(PeState& pe, Message& message) {
  switch (message.kind) {
    case Kind::entry:  // not here
      return;
    case Kind::create:
      create_elements(pe, message);
      return;
    case Kind::call: {
      const auto* call = static_cast<CallArgs*>(message.args());
      call->function(call->context);
      return;
    }
    case Kind::migrate_order:
      migrate_out(pe, message);
      return;
    case Kind::migrate_in:
      migrate_in(pe, message);
      return;
    case Kind::location:
      update_location(pe, message);
      return;
    case Kind::at_sync:
      on_at_sync(pe, message);
      return;
    case Kind::lb_collect:
      on_lb_collect(pe, message);
      return;
    case Kind::lb_report:
      on_lb_report(pe, message);
      return;
    case Kind::migrated:
      on_migrated(pe, message);
      return;
    case Kind::resume:
      on_resume(pe, message);
      return;
    case Kind::contribution:
      on_contribution(pe, message);
      return;
    case Kind::lb_agent:
      on_lb_agent(pe, message);
      return;
    case Kind::lb_ready:
      on_lb_ready(pe, message);
      return;
    case Kind::lb_proceed:
      on_lb_proceed(pe, message);
      return;
    case Kind::lb_done:
      on_lb_done(pe, message);
      return;
    case Kind::checkpoint_collect:
      on_checkpoint_collect(pe, message);
      return;
    case Kind::checkpoint_part:
      on_checkpoint_part(pe, message);
      return;
    case Kind::restore:
      restore_elements(pe, message);
      return;
    case Kind::layer:
      run_layer_message(message.payload());
      return;
    case Kind::lb_answer:
      on_lb_answer(pe, message);
      return;
    case Kind::lb_apply:
      on_lb_apply(pe, message);
      return;
    case Kind::lb_applied:
      on_lb_applied(pe, message);
      return;
    case Kind::insert:
      on_insert(pe, message);
      return;
    case Kind::construct:
      construct_element(pe, message);
      return;
    case Kind::destroy:
      destroy_element(pe, message);
      return;
    case Kind::member_left:
      on_member_left(pe, message);
      return;
    case Kind::broadcast:
      on_broadcast(pe, message);
      return;
  }
}

}  // namespace

void run_message(PeState& pe, Message* message) {
  RuntimeState& state = *pe.runtime;
  try {
    if (message->kind == Kind::entry) [[likely]] {
      pe.delivering = true;
      deliver_entry(pe, message);
      pe.delivering = false;
      return;
    }
    const MessageRelease release{message};
    dispatch_system(pe, *message);
    // What the runtime did is nobody's entry method: the next entry starts after it.
    if (state.options.instrument || state.timeline) pe.mark = tick_clock::now();
  } catch (...) {
    pe.delivering = false;
    state.fail(std::current_exception());
  }
}

}  // namespace vela::rt::detail
