#include "stream_agents.h"

namespace qpm {

const InStreamPins &dp_request_pins() {
  static const InStreamPins p{&Dut::set_dp_req_valid, &Dut::set_dp_req, &Dut::dp_req_valid,
                              &Dut::dp_req, &Dut::dp_req_ready};
  return p;
}
const OutStreamPins &dp_response_pins() {
  static const OutStreamPins p{&Dut::dp_rsp_valid, &Dut::dp_rsp, &Dut::set_dp_rsp_ready,
                               &Dut::dp_rsp_ready};
  return p;
}
const InStreamPins &doorbell_pins() {
  static const InStreamPins p{&Dut::set_db_valid, &Dut::set_db, &Dut::db_valid, &Dut::db,
                              &Dut::db_ready};
  return p;
}
const OutStreamPins &cqe_pins() {
  static const OutStreamPins p{&Dut::cqe_valid, &Dut::cqe, &Dut::set_cqe_ready, &Dut::cqe_ready};
  return p;
}

const OutStreamPins &eqe_pins() {
  static const OutStreamPins p{&Dut::eqe_valid, &Dut::eqe, &Dut::set_eqe_ready, &Dut::eqe_ready};
  return p;
}

void StreamDriver::before_edge(Dut &dut) {
  if (driving_ && (dut.*pins_.ready)()) {
    queue_.pop_front();
    driving_ = false;
  }
}

void StreamDriver::after_edge(Dut &dut) {
  if (!driving_ && !queue_.empty()) {
    std::bernoulli_distribution idle(idle_prob_);
    if (idle_prob_ <= 0.0 || !idle(rng_)) {
      (dut.*pins_.set_payload)(queue_.front());
      driving_ = true;
    }
  }
  (dut.*pins_.set_valid)(driving_);
}

void StreamMonitor::before_edge(Dut &dut) {
  if ((dut.*pins_.valid)() && (dut.*pins_.ready)())
    on_accept_((dut.*pins_.payload)());
}

void StreamSink::before_edge(Dut &dut) {
  if (ready_ && (dut.*pins_.valid)()) {
    on_item_((dut.*pins_.payload)());
    hold_left_ = hold_after_;
  }
}

void StreamSink::after_edge(Dut &dut) {
  std::bernoulli_distribution stall(stall_prob_);
  ready_ = !hold_ && (stall_prob_ <= 0.0 || !stall(rng_));
  if (hold_left_ > 0) {
    --hold_left_;
    ready_ = false;
  }
  (dut.*pins_.set_ready)(ready_);
}

}  // namespace qpm
