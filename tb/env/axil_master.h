// Driver of qpm_top's AXI4-Lite CSR port: queued register writes and reads.
//
// Operations are processed one at a time, in the order they were queued. Without stalls
// a write presents AW and W together; with stalls each of AW and W rises on its own after
// its own random delay (so either may come first, as AXI4-Lite allows), and each channel
// drops its valid at its own handshake. A channel whose valid is low carries garbage
// (the operation's values inverted), as a real interconnect may: a slave that reads a
// payload outside its handshake gets it wrong. The protocol
// logic (sample() before an edge, drive() after it) does not depend on Dut, so it can be
// tested against a C++ slave; before_edge/after_edge connect it to the CSR port.
#pragma once

#include <cstdint>
#include <deque>
#include <random>

#include "testbench.h"

namespace qpm {

struct AxiLiteResult {
  bool is_read;
  uint32_t addr;
  uint32_t data;  // read data, or the data written
  uint32_t resp;  // 0 OKAY, 2 SLVERR
};

class AxiLiteMaster : public TbExtension {
 public:
  AxiLiteMaster() = default;
  // Random back-pressure: in each cycle, with probability stall_prob, each valid not yet
  // raised (AR, AW, W) waits another cycle, and bready/rready stay low.
  AxiLiteMaster(std::mt19937_64 &rng, double stall_prob) : rng_(&rng), stall_prob_(stall_prob) {}

  // Queue a write (byte strobes: 0xf for the full word) or a read.
  void write(uint32_t addr, uint32_t data, uint32_t strb = 0xf) {
    queue_.push_back({false, addr, data, strb});
  }
  void read(uint32_t addr) { queue_.push_back({true, addr, 0, 0}); }
  // Nothing queued and nothing on the bus.
  bool idle() const { return queue_.empty(); }
  // Completed operations, oldest first; the caller pops them.
  std::deque<AxiLiteResult> &results() { return results_; }
  // Writes whose AW and W were not both raised in the same cycle.
  uint64_t split_writes() const { return split_writes_; }

  // Before an edge: the slave's outputs as settled for the edge; takes the handshakes
  // (valid && ready) that happen at it.
  void sample(const AxiLiteSlaveOut &s);
  // After the edge: the master's outputs for the next cycle.
  AxiLiteMasterOut drive();

  void before_edge(Dut &dut) override { sample(dut.csr_out()); }
  void after_edge(Dut &dut) override { dut.set_csr_in(drive()); }

 private:
  struct Op {
    bool is_read;
    uint32_t addr;
    uint32_t data;
    uint32_t strb;
  };

  bool stall();

  std::mt19937_64 *rng_ = nullptr;
  double stall_prob_ = 0.0;
  std::deque<Op> queue_;  // the front is on the bus while active_
  std::deque<AxiLiteResult> results_;
  bool active_ = false;
  bool addr_done_ = false;  // AW or AR taken
  bool data_done_ = false;  // W taken
  bool addr_up_ = false;    // AR or AW raised (held until its handshake)
  bool data_up_ = false;    // W raised
  bool split_counted_ = false;
  uint64_t split_writes_ = 0;
  AxiLiteMasterOut out_;    // what drive() last returned
};

}  // namespace qpm
