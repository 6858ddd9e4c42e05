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
  if (!active_ && !queue_.empty() && !stall()) {
    active_ = true;
    addr_done_ = false;
    data_done_ = false;
  }
  AxiLiteMasterOut o;
  if (active_) {
    const Op &op = queue_.front();
    if (op.is_read) {
      o.arvalid = !addr_done_;
      o.araddr = op.addr;
      // Ready for the response once the address is taken (it cannot come earlier).
      o.rready = addr_done_ && !stall();
    } else {
      o.awvalid = !addr_done_;
      o.awaddr = op.addr;
      o.wvalid = !data_done_;
      o.wdata = op.data;
      o.wstrb = 0xf;
      o.bready = addr_done_ && data_done_ && !stall();
    }
  }
  out_ = o;
  return o;
}

}  // namespace qpm
