// Dut implemented by a Verilated model class V (any PREFIX of qpm_top).
#pragma once

#include <verilated.h>
#include <verilated_fst_c.h>

#include <memory>
#include <string>

#include "dut.h"
#include "port_codec.h"

namespace qpm {

template <class V>
class VerilatedDut : public Dut {
 public:
  explicit VerilatedDut(VerilatedContext *ctx) : top_(std::make_unique<V>(ctx, "TOP")) {}
  ~VerilatedDut() override { close_trace(); }

  void eval() override { top_->eval(); }
  void final() override { top_->final(); }
  void set_clk(bool v) override { top_->clk_i = v; }
  void set_rst_n(bool v) override { top_->rst_ni = v; }
  void set_cmd_valid(bool v) override { top_->cmd_valid_i = v; }
  void set_cmd(const BitVec &bits) override { copy_in(bits, top_->cmd_i); }
  bool cmd_ready() const override { return top_->cmd_ready_o; }
  bool rsp_valid() const override { return top_->rsp_valid_o; }
  void set_rsp_ready(bool v) override { top_->rsp_ready_i = v; }
  BitVec rsp() const override { return copy_out(top_->rsp_o, kRspBits); }

  BitVec backdoor_read_qpc(uint32_t qpn) override {
    return copy_out(qpc_ram()[qpn], kQpcBits);
  }
  void backdoor_write_qpc(uint32_t qpn, const BitVec &qpc) override {
    copy_in(qpc, qpc_ram()[qpn]);
  }

  void open_trace(const std::string &path) override {
    trace_ = std::make_unique<VerilatedFstC>();
    top_->trace(trace_.get(), 99);
    trace_->open(path.c_str());
  }
  void dump_trace(uint64_t time) override {
    if (trace_) trace_->dump(time);
  }
  void close_trace() override {
    if (trace_) trace_->close();
    trace_.reset();
  }

 private:
  template <class W>
  static void copy_in(const BitVec &bits, W &port) {
    for (size_t i = 0; i < bits.words().size(); ++i) port[i] = bits.words()[i];
  }
  template <class W>
  static BitVec copy_out(const W &port, unsigned bits) {
    BitVec v(bits);
    for (size_t i = 0; i < v.words().size(); ++i) v.words()[i] = port[i];
    return v;
  }

  // The on-chip store's RAM (made public by tb/env/backdoor.vlt).
  auto &qpc_ram() { return top_->rootp->qpm_top__DOT__u_qpc_store__DOT__u_ram__DOT__mem_q; }

  std::unique_ptr<V> top_;
  std::unique_ptr<VerilatedFstC> trace_;
};

}  // namespace qpm
