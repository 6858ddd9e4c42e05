// Dut implemented by a Verilated model class V (any PREFIX of qpm_top).
#pragma once

#include <verilated.h>
#include <verilated_fst_c.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

#include "dut.h"
#include "axi_pins.h"
#include "port_codec.h"
#include "verilated_ports.h"

namespace qpm {

template <class V>
class VerilatedDut : public Dut {
 public:
  // qpm_cmd_unit's fsm_e (rtl/cmd/qpm_cmd_unit.sv)
  static constexpr unsigned kCmdUnitExecute = 4;
  VerilatedDut(VerilatedContext *ctx, uint32_t sets, uint32_t ways)
      : top_(std::make_unique<V>(ctx, "TOP")), sets_(sets), ways_(ways) {
    // The datapath, doorbell and EQE streams idle until an agent drives them.
    top_->dp_req_valid_i = 0;
    top_->dp_rsp_ready_i = 1;
    top_->db_valid_i = 0;
    top_->eqe_ready_i = 1;
    top_->cqe_ready_i = 1;
    top_->evict_req_ready_i = 0;  // no eviction-trap agent unless one is attached
    top_->evict_rsp_valid_i = 0;
  }
  ~VerilatedDut() override { close_trace(); }

  void eval() override { top_->eval(); }
  void final() override { top_->final(); }
  void set_clk(bool v) override { top_->clk_i = v; }
  void set_rst_n(bool v) override { top_->rst_ni = v; }
  void set_cmd_valid(bool v) override { top_->cmd_valid_i = v; }
  void set_cmd(const BitVec &bits) override { copy_in(bits, top_->cmd_i); }
  bool cmd_valid() const override { return top_->cmd_valid_i; }
  BitVec cmd() const override { return copy_out(top_->cmd_i, kCmdBits); }
  bool cmd_ready() const override { return top_->cmd_ready_o; }
  bool rsp_ready() const override { return top_->rsp_ready_i; }
  bool rsp_valid() const override { return top_->rsp_valid_o; }
  void set_rsp_ready(bool v) override { top_->rsp_ready_i = v; }
  BitVec rsp() const override { return copy_out(top_->rsp_o, kRspBits); }

  void set_dp_req_valid(bool v) override { top_->dp_req_valid_i = v; }
  void set_dp_req(const BitVec &bits) override { copy_in(bits, top_->dp_req_i); }
  bool dp_req_valid() const override { return top_->dp_req_valid_i; }
  BitVec dp_req() const override { return copy_out(top_->dp_req_i, kDpReqBits); }
  bool dp_req_ready() const override { return top_->dp_req_ready_o; }
  bool dp_rsp_valid() const override { return top_->dp_rsp_valid_o; }
  void set_dp_rsp_ready(bool v) override { top_->dp_rsp_ready_i = v; }
  bool dp_rsp_ready() const override { return top_->dp_rsp_ready_i; }
  BitVec dp_rsp() const override { return copy_out(top_->dp_rsp_o, kDpRspBits); }
  void set_db_valid(bool v) override { top_->db_valid_i = v; }
  void set_db(const BitVec &bits) override { copy_in(bits, top_->db_i); }
  bool db_valid() const override { return top_->db_valid_i; }
  BitVec db() const override { return copy_out(top_->db_i, kDoorbellBits); }
  bool db_ready() const override { return top_->db_ready_o; }
  bool eqe_valid() const override { return top_->eqe_valid_o; }
  void set_eqe_ready(bool v) override { top_->eqe_ready_i = v; }
  bool eqe_ready() const override { return top_->eqe_ready_i; }
  BitVec eqe() const override { return copy_out(top_->eqe_o, kEqeBits); }
  bool cqe_valid() const override { return top_->cqe_valid_o; }
  void set_cqe_ready(bool v) override { top_->cqe_ready_i = v; }
  bool cqe_ready() const override { return top_->cqe_ready_i; }
  BitVec cqe() const override { return copy_out(top_->cqe_o, kCqeBits); }
  bool flush_busy() const override { return top_->flush_busy_o; }
  unsigned evict_req_bits() const override {
    unsigned set_bits = 0;
    while ((1u << set_bits) < sets_) ++set_bits;
    return 4 + set_bits + ways_ * 28;
  }
  bool evict_req_valid() const override { return top_->evict_req_valid_o; }
  BitVec evict_req() const override { return copy_out(top_->evict_req_o, evict_req_bits()); }
  void set_evict_req_ready(bool v) override { top_->evict_req_ready_i = v; }
  void set_evict_rsp(bool valid, uint32_t tag, uint32_t way) override {
    top_->evict_rsp_valid_i = valid;
    top_->evict_rsp_tag_i = tag;
    top_->evict_rsp_way_i = way;
  }
  unsigned cqe_fifo_count() const override {
    return top_->rootp->qpm_top__DOT__u_dp_front__DOT__u_queues__DOT__u_cqe_fifo__DOT__count_q;
  }
  unsigned eq_fifo_count() const override {
    return top_->rootp->qpm_top__DOT__u_dp_front__DOT__u_queues__DOT__u_eq_fifo__DOT__count_q;
  }
  std::optional<uint32_t> doorbell_done() const override {
    if (!top_->rootp->qpm_top__DOT__u_dp_front__DOT__rsp_db) return std::nullopt;
    return answer_qpn();
  }
  std::optional<uint32_t> dp_done() const override {
    if (!top_->rootp->qpm_top__DOT__u_dp_front__DOT__rsp_dp) return std::nullopt;
    return answer_qpn();
  }
  // The QPN of the QP cache's answer to the datapath front in this cycle.
  uint32_t answer_qpn() const {
    auto *root = top_->rootp;
    // The answer is a dp_exec_rsp_t; its dp_rsp_t is the low kDpRspBits bits.
    BitVec rsp(kDpRspBits);
    for (unsigned b = 0; b < kDpRspBits; b += 32) {
      rsp.set(b, std::min(32u, kDpRspBits - b), root->qpm_top__DOT__u_dp_front__DOT__answer[b / 32]);
    }
    return decode_dp_response(rsp).qpn;
  }
  bool cmd_executing() const override {
    return top_->rootp->qpm_top__DOT__u_cmd_unit__DOT__fsm_q == kCmdUnitExecute;
  }
  std::optional<uint32_t> front_took_dp() const override {
    auto *root = top_->rootp;
    if (!(root->qpm_top__DOT__dp_req_valid && root->qpm_top__DOT__dp_req_ready))
      return std::nullopt;
    BitVec req(kDpReqBits);
    for (unsigned b = 0; b < kDpReqBits; b += 32)
      req.set(b, std::min(32u, kDpReqBits - b), root->qpm_top__DOT__dp_req[b / 32]);
    return decode_dp_request(req).tag;
  }
  std::optional<uint32_t> command_lock() const override {
    auto *root = top_->rootp;
    if (!root->qpm_top__DOT__cmd_lock_valid) return std::nullopt;
    return static_cast<uint32_t>(root->qpm_top__DOT__cmd_lock_qpn);
  }
  std::optional<BitVec> front_took_db() const override {
    auto *root = top_->rootp;
    if (!(root->qpm_top__DOT__db_valid && root->qpm_top__DOT__db_ready)) return std::nullopt;
    static_assert(kDoorbellBits > 32 && kDoorbellBits <= 64, "doorbell_t is one QData");
    BitVec db(kDoorbellBits);
    db.set(0, kDoorbellBits, root->qpm_top__DOT__db);
    return db;
  }
  std::optional<FatalNotice> fatal_fill() const override {
    auto *root = top_->rootp;
    if (!root->qpm_top__DOT__mem_fatal) return std::nullopt;
    return FatalNotice{static_cast<uint32_t>(root->qpm_top__DOT__mem_fatal_qpn),
                       root->qpm_top__DOT__mem_fatal_write != 0};
  }
  bool take_back() const override {
    return top_->rootp->qpm_top__DOT__u_qpc_cache__DOT__ret_take != 0;
  }

  AxiMasterOut mem_out() const override { return axi_master_pins(*top_); }
  void set_mem_in(const AxiSlaveOut &in) override { drive_axi_slave_pins(*top_, in); }
  AxiLiteSlaveOut csr_out() const override {
    AxiLiteSlaveOut s;
    s.awready = top_->s_axil_awready_o;
    s.wready = top_->s_axil_wready_o;
    s.bvalid = top_->s_axil_bvalid_o;
    s.bresp = top_->s_axil_bresp_o;
    s.arready = top_->s_axil_arready_o;
    s.rvalid = top_->s_axil_rvalid_o;
    s.rdata = top_->s_axil_rdata_o;
    s.rresp = top_->s_axil_rresp_o;
    return s;
  }
  void set_csr_in(const AxiLiteMasterOut &in) override {
    top_->s_axil_awvalid_i = in.awvalid;
    top_->s_axil_awaddr_i = in.awaddr;
    top_->s_axil_wvalid_i = in.wvalid;
    top_->s_axil_wdata_i = in.wdata;
    top_->s_axil_wstrb_i = in.wstrb;
    top_->s_axil_bready_i = in.bready;
    top_->s_axil_arvalid_i = in.arvalid;
    top_->s_axil_araddr_i = in.araddr;
    top_->s_axil_rready_i = in.rready;
  }

  // The line is found through the tags' simulation shadow (qpm_tag_shadow): the tags and
  // valid bits themselves are in RAM, one instance per way, and the shadow is checked
  // against them.
  // Its dirty bit is in the line state's RAM, a word per set (qpm_cache_lines).
  bool backdoor_write_cached_qpc(uint32_t qpn, const BitVec &qpc) override {
    auto *root = top_->rootp;
    const uint32_t set = qpn % sets_;
    const uint32_t tag = qpn / sets_;
    for (uint32_t way = 0; way < ways_; ++way) {
      const uint32_t line = set * ways_ + way;
      if (!bit(root->qpm_top__DOT__u_qpc_cache__DOT__u_miss__DOT__u_tags__DOT__u_shadow__DOT__valid_q, line) ||
          root->qpm_top__DOT__u_qpc_cache__DOT__u_miss__DOT__u_tags__DOT__u_shadow__DOT__tag_q[line] != tag) {
        continue;
      }
      copy_in(qpc, root->qpm_top__DOT__u_qpc_cache__DOT__u_data__DOT__u_pipe__DOT__u_ram__DOT__u_data_ram__DOT__mem_q[line]);
      // dirty: bit `way` of the set's word in the line state's RAM (qpm_cache_lines)
      auto &state = root->qpm_top__DOT__u_qpc_cache__DOT__u_miss__DOT__u_tags__DOT__u_lines__DOT__u_state_ram__DOT__mem_q[set];
      state = static_cast<std::remove_reference_t<decltype(state)>>(state | (1u << way));
      return true;
    }
    return false;
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
  // One bit of a Verilated vector: a plain integer up to 64 bits, VlWide above.
  template <class T>
  static bool bit(const T &v, uint32_t i) {
    if constexpr (std::is_integral_v<T>) {
      return (v >> i) & 1;
    } else {
      return (v[i / 32] >> (i % 32)) & 1;
    }
  }
  template <class T>
  static void set_bit(T &v, uint32_t i) {
    if constexpr (std::is_integral_v<T>) {
      v |= T{1} << i;
    } else {
      v[i / 32] |= 1u << (i % 32);
    }
  }

  template <class W>
  static void copy_in(const BitVec &bits, W &port) {
    copy_to_port(bits, port);
  }
  template <class W>
  static BitVec copy_out(const W &port, unsigned bits) {
    return copy_from_port(port, bits);
  }

  std::unique_ptr<V> top_;
  uint32_t sets_, ways_;
  std::unique_ptr<VerilatedFstC> trace_;
};

}  // namespace qpm
