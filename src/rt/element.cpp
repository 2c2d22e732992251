#include "vela/rt/element.hpp"

#include "state.hpp"

namespace vela::rt {

ElementBase::ElementBase() {
  detail::fill_from_construction(*this);
}

const Shape& ElementBase::shape() const {
  return pe_->runtime->collection(collection_).shape;
}

PeId ElementBase::pe() const {
  return pe_->id;
}

PeId ElementBase::pes() const {
  return pe_->runtime->pes;
}

void ElementBase::send_to(const Index& to, HandlerId handler, int priority,
                          std::vector<std::byte> payload) {
  const Shape& s = shape();
  if (!s.contains(to)) {
    throw std::out_of_range("send from " + to_string(index_, s.dims) + ": index " +
                            to_string(to, s.dims) + " is outside the collection");
  }
  detail::send_entry(collection_, s.linear(to), handler, priority, std::move(payload));
}

void ElementBase::at_sync() {
  detail::post_system(*pe_->runtime, 0, detail::Kind::at_sync, collection_, linear_, {});
}

void ElementBase::contribute(std::vector<double> values, ReduceOp op, const Callback& callback,
                             Order order) {
  if (op == ReduceOp::custom) {
    throw std::invalid_argument("contribute: ReduceOp::custom needs a Reducer (Context::reducer)");
  }
  detail::Contribution c{reductions_++, op, 0, order, callback, std::move(values)};
  detail::post_system(*pe_->runtime, 0, detail::Kind::contribution, collection_, linear_,
                      pup::pack(c));
}

void ElementBase::contribute(std::vector<double> values, const Reducer& reducer,
                             const Callback& callback, Order order) {
  detail::Contribution c{reductions_++, ReduceOp::custom, reducer.id,
                         order,         callback,         std::move(values)};
  detail::post_system(*pe_->runtime, 0, detail::Kind::contribution, collection_, linear_,
                      pup::pack(c));
}

std::string to_string(const Index& index, int dims) {
  std::string s = "(" + std::to_string(index.x);
  if (dims >= 2) s += "," + std::to_string(index.y);
  if (dims >= 3) s += "," + std::to_string(index.z);
  return s + ")";
}

}  // namespace vela::rt
