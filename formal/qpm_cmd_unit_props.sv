// Properties of qpm_cmd_unit (docs/formal.md, formal/handshakes.toml): its three
// valid/ready outputs keep the rule (valid stays high and the payload stable until
// ready): the command response (rsp), the request to the cache through qpm_dp_front
// (ctx_req, its own accesses and its prefetches) and the PORT_ERR event. Also: only
// tags 0 (its own access) and 1 (a prefetch) are used, and at most one tag-0 access is
// outstanding, but PORT_FAULT's steps (CtxDp), at most PfAhead (docs/architecture.md
// section 3); and exactly one response per command, at most two commands accepted and
// unanswered (section 2). The embedded EventOnlyAtPortFault_A, CtxRspOnlyWhenWaiting_A and
// WriteOnlyOnOk_A are proven with every property; WriteNeverRefused_A is assumed (E2).
//
// Environment (what the real neighbours guarantee; everything else is free):
//   E1  the cache (through qpm_dp_front, which passes the answers of tags 0 and 1 on as
//       they are) answers a tag-0 request only once it has taken it, in a later cycle,
//       and once (docs/architecture.md section 3: "Every accepted request gets exactly
//       one response, carrying its tag"; the answer comes from P1 at the earliest).
//       E1 is the cache's half of CtxRspOnlyWhenWaiting_A: with it the assertion is
//       proven (the unit's half: it waits in CtxWait while its access is outstanding).
//   E2  the cache never answers the unit's CtxWrite with CtxUnmapped (the write follows
//       an OK read of a mapped page, pages are (un)mapped only by this unit's own
//       commands, and QPN_LIMIT cannot change while a page is mapped: qpm_csr).
//       WriteNeverRefused_A states exactly this neighbour rule: here it is assumed, so
//       it is not proven (that is for a proof of the cache and the CSR block).
// The state enforcer (MODIFY_QP's decision) is replaced by a free one when
// QPM_FREE_ENFORCER is defined (at the end of this file): the proofs hold for every
// decision, and they run five times faster.
// Free: the commands (cmd_valid_i, cmd_i; the unit's properties do not need the host to
// keep the valid/ready rule), rsp_ready_i, ctx_req_ready_i (may depend on the request),
// the answers' data and status (besides E2), answers of tag 1 (prefetches) at any time,
// event_ready_i, qpn_limit_i and reset_timeout_i.
module qpm_cmd_unit_props #(
  parameter int unsigned PageBits    = 6,
  parameter int unsigned NumPorts    = 2,
  parameter int unsigned PkeyTbl     = 128,
  parameter int unsigned MaxRdAtomic = 16,
  parameter int unsigned PfAhead     = 2
) (
  input logic              clk_i,
  input logic              rst_ni,
  input logic [31:0]       qpn_limit_i,
  input logic [15:0]       reset_timeout_i,
  input logic              cmd_valid_i,
  input qpm_pkg::cmd_t     cmd_i,
  input logic              rsp_ready_i,
  input logic              ctx_req_ready_i,
  input logic              ctx_rsp_valid_i,
  input qpm_pkg::ctx_rsp_t ctx_rsp_i,
  input logic              event_ready_i
);

  logic              refused, cmd_ready, rsp_valid, ctx_req_valid, lock_valid, event_valid;
  qpm_pkg::rsp_t     rsp;
  qpm_pkg::ctx_req_t ctx_req;
  logic [qpm_pkg::QpnW-1:0] lock_qpn;
  logic                     flush_wait, flush_wait_poll;
  qpm_pkg::eqe_t     event_data;
  qpm_cmd_unit #(
    .PageBits    (PageBits),
    .NumPorts    (NumPorts),
    .PkeyTbl     (PkeyTbl),
    .MaxRdAtomic (MaxRdAtomic),
    .PfAhead     (PfAhead)
  ) u_dut (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .qpn_limit_i     (qpn_limit_i),
    .reset_timeout_i (reset_timeout_i),
    .refused_o       (refused),
    .cmd_valid_i     (cmd_valid_i),
    .cmd_ready_o     (cmd_ready),
    .cmd_i           (cmd_i),
    .rsp_valid_o     (rsp_valid),
    .rsp_ready_i     (rsp_ready_i),
    .rsp_o           (rsp),
    .ctx_req_valid_o (ctx_req_valid),
    .ctx_req_ready_i (ctx_req_ready_i),
    .ctx_req_o       (ctx_req),
    .ctx_rsp_valid_i (ctx_rsp_valid_i),
    .ctx_rsp_i       (ctx_rsp_i),
    .lock_valid_o    (lock_valid),
    .lock_qpn_o      (lock_qpn),
    .flush_wait_o      (flush_wait),
    .flush_wait_poll_o (flush_wait_poll),
    .event_valid_o   (event_valid),
    .event_ready_i   (event_ready_i),
    .event_o         (event_data)
  );

  `include "qpm_formal_reset.svh"

  // ---- the unit's own (tag 0) accesses: taken, and not yet answered
  logic take0, answer0;
  assign take0   = ctx_req_valid && ctx_req_ready_i && ctx_req.tag == qpm_pkg::TagCmd;
  assign answer0 = ctx_rsp_valid_i && ctx_rsp_i.tag == qpm_pkg::TagCmd;
  // Tag-0 requests taken, their answers not yet in (several only of PORT_FAULT's steps),
  // and the op of the last one taken.
  logic [3:0]       pending_n_q;
  logic             pending_q;
  qpm_pkg::ctx_op_e pending_op_q;
  assign pending_q = pending_n_q != '0;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      pending_n_q  <= '0;
      pending_op_q <= qpm_pkg::CtxRead;
    end else begin
      pending_n_q <= pending_n_q + 4'(take0) - 4'(answer0);
      if (take0) pending_op_q <= ctx_req.op;
    end
  end
  // E1, E2
  always_comb begin
    if (answer0) begin
      assume (pending_q);
      if (pending_op_q == qpm_pkg::CtxWrite) assume (ctx_rsp_i.status != qpm_pkg::CtxUnmapped);
    end
  end

  // ---- commands taken and not yet answered
  logic [2:0] open_q;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) open_q <= '0;
    else         open_q <= open_q + 3'(cmd_valid_i && cmd_ready) - 3'(rsp_valid && rsp_ready_i);
  end

  always_ff @(posedge clk_i) begin
    if (past_valid) begin
`ifdef P_RSP_HELD
      if ($past(rsp_valid && !rsp_ready_i)) assert (rsp_valid && rsp == $past(rsp));
`endif
`ifdef P_CTX_REQ_HELD
      // (field by field: the same statement, which z3 decides several times faster)
      if ($past(ctx_req_valid && !ctx_req_ready_i))
        assert (ctx_req_valid && ctx_req.tag == $past(ctx_req.tag)
                && ctx_req.index == $past(ctx_req.index)
                && ctx_req.payload == $past(ctx_req.payload) && ctx_req.op == $past(ctx_req.op));
`endif
`ifdef P_EVENT_HELD
      if ($past(event_valid && !event_ready_i))
        assert (event_valid && event_data == $past(event_data));
`endif
    end
    if (rst_ni) begin
`ifdef P_ONE_ACCESS
      // Tag 1 is a prefetch and a prefetch is tag 1; no other tag.
      if (ctx_req_valid) begin
        assert (ctx_req.tag == qpm_pkg::TagCmd || ctx_req.tag == qpm_pkg::TagPrefetch);
        assert ((ctx_req.tag == qpm_pkg::TagPrefetch) == (ctx_req.op == qpm_pkg::CtxPrefetch));
      end
      // No tag-0 access offered while one is outstanding, but PORT_FAULT's steps, at
      // most PfAhead of them.
      if (pending_q && ctx_req_valid && ctx_req.tag == qpm_pkg::TagCmd)
        assert (ctx_req.op == qpm_pkg::CtxDp && pending_op_q == qpm_pkg::CtxDp);
      assert (32'(pending_n_q) <= PfAhead);
`endif
`ifdef P_ONE_RSP
      // A response only for a command taken; at most two taken and unanswered.
      assert (open_q <= 3'd2);
      if (rsp_valid) assert (open_q != 3'd0);
`endif
    end
  end

  logic unused_props;
  assign unused_props = ^{refused, lock_valid, lock_qpn, flush_wait, flush_wait_poll};

endmodule

`ifdef QPM_FREE_ENFORCER
// The MODIFY_QP decision abstracted away: read in place of rtl/cmd/qpm_state_enforcer.sv,
// this qpm_state_enforcer answers any status, syndrome and new context, a fresh choice in
// every cycle. It is combinational and the unit samples its outputs only in Execute, so
// every decision the real enforcer can make is among these: a property proven with it
// holds with the real one (and its own proofs are formal/state_enforcer.toml's).
module qpm_state_enforcer #(
  parameter int unsigned NumPorts    = 2,
  parameter int unsigned PkeyTbl     = 128,
  parameter int unsigned MaxRdAtomic = 16
) (
  input  qpm_pkg::qpc_t      qpc_i,
  input  qpm_pkg::cmd_t      cmd_i,
  output logic [7:0]         status_o,
  output qpm_pkg::syndrome_t syndrome_o,
  output qpm_pkg::qpc_t      qpc_o
);
  (* anyseq *) logic [7:0]         any_status;
  (* anyseq *) qpm_pkg::syndrome_t any_syndrome;
  (* anyseq *) qpm_pkg::qpc_t      any_qpc;
  assign status_o   = any_status;
  assign syndrome_o = any_syndrome;
  assign qpc_o      = any_qpc;
  logic unused;
  assign unused = ^{qpc_i, cmd_i};
endmodule
`endif
