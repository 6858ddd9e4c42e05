// No update lost when a command and a datapath operation meet on one QPN (docs/formal.md,
// formal/lock.toml; docs/datapath.md, "Hazards"): qpm_cmd_unit and qpm_dp_front together,
// the command unit's lock between them. A command reads its QP's context (tag 0,
// CtxRead), decides, and writes the new context back (tag 0, CtxWrite). A datapath
// operation, doorbell or flush step on that QPN (a CtxDp: the cache reads, decides and
// writes the context in one pass) that the cache takes between the command's read and
// its write would have its update overwritten by the write: lost. The property, at the
// cache's request port: no CtxDp of the QPN is taken between the take of the command's
// last read of it and the take of its write. (In between, the command may drop its lock
// and read again, as it does waiting for a flush: the window starts at the last read.)
// The cache executes what it takes in order per QPN (docs/qp-cache.md: a request meeting
// a miss of its QPN parks behind it; the pipe forwards back-to-back writes, proven in
// cache.forward_newest), so order at this port is order on the context.
//
// Only this property is checked (asserts = n:*FNoLostUpdate_A): the blocks' own
// assertions are their proofs' (cmd.*, front.*). Environment:
//   L1  the datapath and doorbell ports keep the valid/ready rule (F1, F2 of the front's
//       proofs): the front holds its grant of an offer the cache has not taken, so an
//       offer that changed its QPN meanwhile would slip past the lock.
//   L2  the cache answers a request only once it has taken it, in a later cycle, once,
//       with its tag (F5 of the front's proofs, E1 of the command unit's).
// Free: the host's commands and response ready, every datapath and doorbell offer (any
// QPN, any time), every answer's status and data (so every read, refusal, memory error,
// MODIFY decision with the free enforcer, flush request and SQ_DRAINED happens), the
// consumers' readies, QPN_LIMIT.
module qpm_lock_props #(
  parameter int unsigned DpRspDepth = 2,
  parameter int unsigned EqDepth    = 2,
  parameter int unsigned CmdMaxWait = 3,
  parameter int unsigned CqeDepth   = 2,
  parameter int unsigned FlushSlots = 1
) (
  input logic                     clk_i,
  input logic                     rst_ni,
  input logic [31:0]              qpn_limit_i,
  input logic [15:0]              reset_timeout_i,
  input logic                     cmd_valid_i,
  input qpm_pkg::cmd_t            cmd_i,
  input logic                     rsp_ready_i,
  input logic                     dp_req_valid_i,
  input qpm_pkg::dp_req_t         dp_req_i,
  input logic                     dp_rsp_ready_i,
  input logic                     db_valid_i,
  input qpm_pkg::doorbell_t       db_i,
  input logic                     eqe_ready_i,
  input logic                     cqe_ready_i,
  input logic                     ctx_req_ready_i,
  input logic                     ctx_rsp_valid_i,
  input qpm_pkg::ctx_rsp_t        ctx_rsp_i
);

  // ---- the command unit
  logic                     refused, cmd_ready, rsp_valid, cmd_req_valid, cmd_req_ready;
  logic                     lock_valid, ev_valid, ev_ready, cmd_rsp_valid;
  logic [qpm_pkg::QpnW-1:0] lock_qpn;
  logic                     flush_wait, flush_wait_poll;
  qpm_pkg::rsp_t            rsp;
  qpm_pkg::ctx_req_t        cmd_req;
  qpm_pkg::ctx_rsp_t        cmd_rsp;
  qpm_pkg::eqe_t            ev;
  logic                     pf_scan;   // PORT_FAULT's steps: CtxDp of tag 0, no lock
  qpm_cmd_unit u_cmd (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .qpn_limit_i     (qpn_limit_i),
    .reset_timeout_i (reset_timeout_i),
    .refused_o       (refused),
    .pf_scan_o       (pf_scan),
    .cmd_valid_i     (cmd_valid_i),
    .cmd_ready_o     (cmd_ready),
    .cmd_i           (cmd_i),
    .rsp_valid_o     (rsp_valid),
    .rsp_ready_i     (rsp_ready_i),
    .rsp_o           (rsp),
    .ctx_req_valid_o (cmd_req_valid),
    .ctx_req_ready_i (cmd_req_ready),
    .ctx_req_o       (cmd_req),
    .ctx_rsp_valid_i (cmd_rsp_valid),
    .ctx_rsp_i       (cmd_rsp),
    .lock_valid_o    (lock_valid),
    .lock_qpn_o      (lock_qpn),
    .flush_wait_o      (flush_wait),
    .flush_wait_poll_o (flush_wait_poll),
    .event_valid_o   (ev_valid),
    .event_ready_i   (ev_ready),
    .event_o         (ev)
  );

  // ---- the front
  logic                 dp_req_ready, dp_rsp_valid, db_ready, eqe_valid, cqe_valid;
  logic                 ctx_req_valid, db_refused, event_pulse;
  logic                 cqe_sent, wqe_flushed, flush_overflow, flush_busy;
  qpm_pkg::dp_rsp_t     dp_rsp;
  qpm_pkg::eqe_t        eqe;
  qpm_pkg::cqe_t        cqe;
  qpm_pkg::ctx_req_t    ctx_req;
  logic [qpm_pkg::NumDropReasons-1:0] drop;
  qpm_dp_front #(
    .DpRspDepth (DpRspDepth),
    .EqDepth    (EqDepth),
    .CmdMaxWait (CmdMaxWait),
    .CqeDepth   (CqeDepth),
    .FlushSlots (FlushSlots)
  ) u_front (
    .clk_i            (clk_i),
    .rst_ni           (rst_ni),
    .dp_req_valid_i   (dp_req_valid_i),
    .dp_req_ready_o   (dp_req_ready),
    .dp_req_i         (dp_req_i),
    .dp_rsp_valid_o   (dp_rsp_valid),
    .dp_rsp_ready_i   (dp_rsp_ready_i),
    .dp_rsp_o         (dp_rsp),
    .db_valid_i       (db_valid_i),
    .db_ready_o       (db_ready),
    .db_i             (db_i),
    .eqe_valid_o      (eqe_valid),
    .eqe_ready_i      (eqe_ready_i),
    .eqe_o            (eqe),
    .cqe_valid_o      (cqe_valid),
    .cqe_ready_i      (cqe_ready_i),
    .cqe_o            (cqe),
    .qpn_limit_i      (qpn_limit_i),
    .cmd_ev_valid_i   (ev_valid),
    .cmd_ev_ready_o   (ev_ready),
    .cmd_ev_i         (ev),
    .lock_valid_i     (lock_valid),
    .lock_qpn_i       (lock_qpn),
    .cmd_wait_i       (flush_wait),
    .cmd_wait_poll_i  (flush_wait_poll),
    .cmd_req_valid_i  (cmd_req_valid),
    .cmd_req_ready_o  (cmd_req_ready),
    .cmd_req_i        (cmd_req),
    .cmd_rsp_valid_o  (cmd_rsp_valid),
    .cmd_rsp_o        (cmd_rsp),
    .cmd_pf_scan_i    (pf_scan),
    .ctx_req_valid_o  (ctx_req_valid),
    .ctx_req_ready_i  (ctx_req_ready_i),
    .ctx_req_o        (ctx_req),
    .ctx_rsp_valid_i  (ctx_rsp_valid_i),
    .ctx_rsp_i        (ctx_rsp_i),
    .drop_o           (drop),
    .db_refused_o     (db_refused),
    .event_o          (event_pulse),
    .cqe_sent_o       (cqe_sent),
    .wqe_flushed_o    (wqe_flushed),
    .flush_overflow_o (flush_overflow),
    .flush_busy_o     (flush_busy)
  );

  `include "qpm_formal_reset.svh"

  // ---- L1: the requesters hold what they offer until it is taken
  logic               dp_wait_q, db_wait_q;
  qpm_pkg::dp_req_t   dp_req_q;
  qpm_pkg::doorbell_t db_q;
  always_ff @(posedge clk_i) begin
    dp_wait_q <= rst_ni && dp_req_valid_i && !dp_req_ready;
    db_wait_q <= rst_ni && db_valid_i && !db_ready;
    dp_req_q  <= dp_req_i;
    db_q      <= db_i;
  end
  always_comb begin
    if (rst_ni && dp_wait_q) assume (dp_req_valid_i && dp_req_i == dp_req_q);
    if (rst_ni && db_wait_q) assume (db_valid_i && db_i == db_q);
  end

  // ---- L2: the cache answers what it took, per tag
  logic ctx_hs;
  assign ctx_hs = ctx_req_valid && ctx_req_ready_i;
  localparam int unsigned Tags = 1 << qpm_pkg::CtxTagW;
  logic [4:0] open_q [Tags];
  always_ff @(posedge clk_i) begin
    for (int t = 0; t < Tags; t++) begin
      if (!rst_ni) open_q[t] <= '0;
      else open_q[t] <= open_q[t] + 5'(ctx_hs && 32'(ctx_req.tag) == t)
                                  - 5'(ctx_rsp_valid_i && 32'(ctx_rsp_i.tag) == t);
    end
  end
  always_comb begin
    if (ctx_rsp_valid_i)
      for (int t = 0; t < Tags; t++) if (32'(ctx_rsp_i.tag) == t) assume (open_q[t] != '0);
  end

  // ---- the window: the command's last read taken, its QPN, and whether a CtxDp of that
  // QPN has been taken since
  logic                     cmd_read, cmd_write, rmw_take;
  assign cmd_read  = ctx_hs && ctx_req.tag == qpm_pkg::TagCmd && ctx_req.op == qpm_pkg::CtxRead;
  assign cmd_write = ctx_hs && ctx_req.tag == qpm_pkg::TagCmd && ctx_req.op == qpm_pkg::CtxWrite;
  assign rmw_take  = ctx_hs && ctx_req.op == qpm_pkg::CtxDp;
  logic                     read_q, between_q;
  logic [qpm_pkg::QpnW-1:0] read_qpn_q;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      read_q     <= 1'b0;
      between_q  <= 1'b0;
      read_qpn_q <= '0;
    end else if (cmd_read) begin
      read_q     <= 1'b1;
      between_q  <= 1'b0;
      read_qpn_q <= ctx_req.index;
    end else if (rmw_take && ctx_req.index == read_qpn_q) begin
      between_q  <= 1'b1;
    end
  end
  always_comb begin
    // The command's write is of the QPN it read last, and no CtxDp of it came between.
    if (rst_ni && cmd_write)
      FNoLostUpdate_A: assert (read_q && ctx_req.index == read_qpn_q && !between_q);
  end

  logic unused;
  assign unused = ^{refused, cmd_ready, rsp_valid, rsp, dp_req_ready, dp_rsp_valid, dp_rsp,
                    db_ready, eqe_valid, eqe, cqe_valid, cqe, db_refused, event_pulse, drop,
                    cqe_sent, wqe_flushed, flush_overflow, flush_busy, past_valid};

endmodule
