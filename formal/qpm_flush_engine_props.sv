// Properties of qpm_flush_engine (docs/formal.md, formal/flush_engine.toml; docs/errors.md
// and docs/events.md): whatever the requests and answers, (1) every request is kept: the
// cycle after it, its QP holds a slot or its group's overflow summary bit is set (the
// embedded RequestKept_A; a request dropped there would never be stepped), and (2) the
// step offer keeps the valid/ready rule.
//
// Environment: none. Requests, answers (tag, QPN, more, unmapped), a command's wait, the step port's ready and
// QPN_LIMIT are all free, answers included for steps never offered: the properties hold
// for any input, which is stronger than the front's real answers. Small parameters so a
// scan is reached within the depth: one slot (so the second QP overflows), two summary
// groups of two-QPN pages, one scan step in flight.
module qpm_flush_engine_props #(
  parameter int unsigned Slots     = 1,
  parameter int unsigned ScanDepth = 1,
  parameter int unsigned Groups    = 2,
  parameter int unsigned SlotW     = 2,
  parameter int unsigned PageBits  = 1
) (
  input logic                        clk_i,
  input logic                        rst_ni,
  input logic [31:0]                 qpn_limit_i,
  input logic                        req_a_valid_i,
  input logic [qpm_pkg::QpnW-1:0]    req_a_qpn_i,
  input logic                        req_b_valid_i,
  input logic [qpm_pkg::QpnW-1:0]    req_b_qpn_i,
  input logic                        step_ready_i,
  input logic                        ans_valid_i,
  input logic [qpm_pkg::CtxTagW-1:0] ans_tag_i,
  input logic [qpm_pkg::QpnW-1:0]    ans_qpn_i,
  input logic                        ans_more_i,
  input logic                        ans_unmapped_i,
  input logic                        wait_valid_i,
  input logic                        wait_poll_i,
  input logic [qpm_pkg::QpnW-1:0]    wait_qpn_i
);

  logic                        step_valid, overflow, busy, urgent;
  logic [qpm_pkg::QpnW-1:0]    step_qpn;
  logic [qpm_pkg::CtxTagW-1:0] step_tag;
  qpm_flush_engine #(
    .Slots     (Slots),
    .ScanDepth (ScanDepth),
    .Groups    (Groups),
    .SlotW     (SlotW),
    .PageBits  (PageBits)
  ) u_dut (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .qpn_limit_i   (qpn_limit_i),
    .req_a_valid_i (req_a_valid_i),
    .req_a_qpn_i   (req_a_qpn_i),
    .req_b_valid_i (req_b_valid_i),
    .req_b_qpn_i   (req_b_qpn_i),
    .wait_valid_i  (wait_valid_i),
    .wait_poll_i   (wait_poll_i),
    .wait_qpn_i    (wait_qpn_i),
    .urgent_o      (urgent),
    .step_valid_o  (step_valid),
    .step_ready_i  (step_ready_i),
    .step_qpn_o    (step_qpn),
    .step_tag_o    (step_tag),
    .ans_valid_i   (ans_valid_i),
    .ans_tag_i     (ans_tag_i),
    .ans_qpn_i     (ans_qpn_i),
    .ans_more_i    (ans_more_i),
    .ans_unmapped_i (ans_unmapped_i),
    .overflow_o    (overflow),
    .busy_o        (busy)
  );

  `include "qpm_formal_reset.svh"

  always_ff @(posedge clk_i) begin
    if (past_valid) begin
`ifdef P_STEP_HELD
      if ($past(step_valid && !step_ready_i)) begin
        assert (step_valid && step_qpn == $past(step_qpn) && step_tag == $past(step_tag));
      end
`endif
    end
  end

  logic unused;
  assign unused = ^{overflow, busy, urgent};

endmodule
