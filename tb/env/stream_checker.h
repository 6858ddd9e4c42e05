// Valid/ready rule checkers for the streams of qpm_top (AXI4 A3.2.1, STYLE.md §2.21):
// once valid is high it stays high, and the payload stays unchanged, until ready.
//
// HandshakeChecker judges one stream from what its pins carried at each rising edge, so
// it is unit-tested on plain sequences. StreamChecker watches every stream of a Dut at
// every edge: the command, datapath request and doorbell streams (our drivers' side)
// and the response, datapath response and EQE streams (the RTL's side).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "testbench.h"

namespace qpm {

class HandshakeChecker {
 public:
  explicit HandshakeChecker(std::string name) : name_(std::move(name)) {}

  // The stream's pins as settled for one rising edge, called once per edge.
  void sample(uint64_t cycle, bool valid, bool ready, const BitVec &payload);

  uint64_t handshakes() const { return handshakes_; }
  // Edges at which valid was high and ready low: how much back-pressure was seen.
  uint64_t stalls() const { return stalls_; }
  const std::vector<std::string> &violations() const { return violations_; }

 private:
  std::string name_;
  bool waiting_ = false;  // valid without ready at the previous edge
  BitVec held_;
  uint64_t handshakes_ = 0, stalls_ = 0;
  std::vector<std::string> violations_;
};

class StreamChecker : public TbExtension {
 public:
  StreamChecker()
      : cmd_("command"),
        rsp_("response"),
        dp_req_("datapath request"),
        dp_rsp_("datapath response"),
        db_("doorbell"),
        eqe_("EQE"),
        cqe_("CQE") {}
  void before_edge(Dut &dut) override;
  void after_edge(Dut &) override {}

  const HandshakeChecker &cmd() const { return cmd_; }
  const HandshakeChecker &rsp() const { return rsp_; }
  const HandshakeChecker &dp_req() const { return dp_req_; }
  const HandshakeChecker &dp_rsp() const { return dp_rsp_; }
  const HandshakeChecker &db() const { return db_; }
  const HandshakeChecker &eqe() const { return eqe_; }
  const HandshakeChecker &cqe() const { return cqe_; }
  std::vector<std::string> violations() const;

 private:
  HandshakeChecker cmd_, rsp_, dp_req_, dp_rsp_, db_, eqe_, cqe_;
  uint64_t cycle_ = 0;
};

}  // namespace qpm
