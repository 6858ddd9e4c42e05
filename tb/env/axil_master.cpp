#include "axil_master.h"

namespace qpm {

bool AxiLiteMaster::stall() {
  if (rng_ == nullptr || stall_prob_ <= 0.0) {
    return false;
  }
  std::bernoulli_distribution d(stall_prob_);
  return d(*rng_);
}

void AxiLiteMaster::sample(const AxiLiteSlaveOut &s) {
  if (!active_) {
    return;
  }
  const Op &op = queue_.front();
  bool done = false;
  if (op.is_read) {
    if (out_.arvalid && s.arready) {
      addr_done_ = true;
    }
    if (out_.rready && s.rvalid) {
      results_.push_back({true, op.addr, s.rdata, s.rresp});
      done = true;
    }
  } else {
    if (out_.awvalid && s.awready) {
      addr_done_ = true;
    }
    if (out_.wvalid && s.wready) {
      data_done_ = true;
    }
    if (out_.bready && s.bvalid) {
      results_.push_back({false, op.addr, op.data, s.bresp});
      done = true;
    }
  }
  if (done) {
    queue_.pop_front();
    active_ = false;
  }
}

AxiLiteMasterOut AxiLiteMaster::drive() {
  if (!active_ && !queue_.empty()) {
    active_ = true;
    addr_done_ = data_done_ = false;
    addr_up_ = data_up_ = split_counted_ = false;
  }
  AxiLiteMasterOut o;
  if (active_) {
    const Op &op = queue_.front();
    // A valid, once raised, stays up until its handshake (AXI A3.2.1).
    if (!addr_up_ && !addr_done_) addr_up_ = !stall();
    if (!op.is_read && !data_up_ && !data_done_) data_up_ = !stall();
    if (!op.is_read && !split_counted_ && (addr_up_ || addr_done_) != (data_up_ || data_done_)) {
      split_counted_ = true;
      ++split_writes_;
    }
    if (op.is_read) {
      o.arvalid = addr_up_ && !addr_done_;
      o.araddr = o.arvalid ? op.addr : ~op.addr;
      // Ready for the response once the address is taken (it cannot come earlier).
      o.rready = addr_done_ && !stall();
    } else {
      o.awvalid = addr_up_ && !addr_done_;
      o.awaddr = o.awvalid ? op.addr : ~op.addr;
      o.wvalid = data_up_ && !data_done_;
      o.wdata = o.wvalid ? op.data : ~op.data;
      o.wstrb = o.wvalid ? op.strb : (~op.strb & 0xfu);
      o.bready = addr_done_ && data_done_ && !stall();
    }
  }
  out_ = o;
  return o;
}

}  // namespace qpm
