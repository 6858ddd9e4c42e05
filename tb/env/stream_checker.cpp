#include "stream_checker.h"

#include <fmt/format.h>

namespace qpm {

namespace {
constexpr size_t kKeep = 20;  // violations kept per stream; the rest are only counted
}

void HandshakeChecker::sample(uint64_t cycle, bool valid, bool ready, const BitVec &payload) {
  if (waiting_ && violations_.size() < kKeep) {
    if (!valid) {
      violations_.push_back(fmt::format("cycle {}: {} valid dropped before ready", cycle, name_));
    } else if (payload != held_) {
      violations_.push_back(
          fmt::format("cycle {}: {} payload changed while waiting for ready", cycle, name_));
    }
  }
  if (valid && ready) ++handshakes_;
  if (valid && !ready) ++stalls_;
  waiting_ = valid && !ready;
  if (waiting_) held_ = payload;
}

void StreamChecker::before_edge(Dut &dut) {
  // The payload matters only while valid; reading it only then keeps idle cycles cheap.
  const bool cmd_valid = dut.cmd_valid(), rsp_valid = dut.rsp_valid();
  cmd_.sample(cycle_, cmd_valid, dut.cmd_ready(), cmd_valid ? dut.cmd() : BitVec());
  rsp_.sample(cycle_, rsp_valid, dut.rsp_ready(), rsp_valid ? dut.rsp() : BitVec());
  const bool dp_req_valid = dut.dp_req_valid(), dp_rsp_valid = dut.dp_rsp_valid();
  const bool db_valid = dut.db_valid(), eqe_valid = dut.eqe_valid();
  dp_req_.sample(cycle_, dp_req_valid, dut.dp_req_ready(),
                 dp_req_valid ? dut.dp_req() : BitVec());
  dp_rsp_.sample(cycle_, dp_rsp_valid, dut.dp_rsp_ready(),
                 dp_rsp_valid ? dut.dp_rsp() : BitVec());
  db_.sample(cycle_, db_valid, dut.db_ready(), db_valid ? dut.db() : BitVec());
  eqe_.sample(cycle_, eqe_valid, dut.eqe_ready(), eqe_valid ? dut.eqe() : BitVec());
  const bool cqe_valid = dut.cqe_valid();
  cqe_.sample(cycle_, cqe_valid, dut.cqe_ready(), cqe_valid ? dut.cqe() : BitVec());
  ++cycle_;
}

std::vector<std::string> StreamChecker::violations() const {
  std::vector<std::string> all;
  for (const HandshakeChecker *c : {&cmd_, &rsp_, &dp_req_, &dp_rsp_, &db_, &eqe_, &cqe_}) {
    all.insert(all.end(), c->violations().begin(), c->violations().end());
  }
  return all;
}

}  // namespace qpm
