// Properties of qpm_dp_front (docs/formal.md, formal/handshakes.toml; docs/datapath.md,
// "The ports" and "Arbitration and its bound"): its valid/ready outputs keep the rule
// (valid stays high and the payload stable until ready): the datapath response port, the
// EQE port, the CQE port and the request to the QP cache. What its ready outputs mean: a
// request taken on the datapath, doorbell or command port is the request the cache takes
// in that same cycle, unchanged (a doorbell in its documented dp_req_t form), and the
// cache takes nothing else but the flush engine's steps (tags 8 .. 15, CtxDp); a command
// event taken enters the EQ FIFO. The credits: every answer and event finds room
// (RspRoom_A, EqRoom_A, CqeRoom_A), so the response and EQE ports deliver exactly what came
// in, nothing lost or invented. The embedded RspRoom_A, EqRoom_A, CqeRoom_A and
// CtxReqStable_A are proven with every property; its four requester rules are F1 .. F4,
// FlushNoEvent_A is F6.
//
// Environment (what the real neighbours guarantee; everything else is free):
//   F1  the datapath port keeps the valid/ready rule (docs/datapath.md, "The ports").
//   F2  the doorbell port keeps it too.
//   F3  the command unit's request is held, unchanged, until taken (proven:
//       cmd.ctx_req_held), and carries tag 0 or 1 (proven: cmd.ctx_one_access).
//   F4  the command unit's event is held, unchanged, until taken (proven: cmd.event_held).
//       F1 .. F4 are exactly the embedded DpReqStable_A, DbStable_A, CmdReqStable_A and
//       CmdEvStable_A: they check the neighbours, so here they are assumed, not proven.
//   F5  the cache answers a request only once it has taken it, in a later cycle, once,
//       with its tag (docs/architecture.md section 3; the answer leaves P1 at the
//       earliest one cycle after the take). Its order across tags and QPNs, its latency
//       and everything it answers (status, rdata: verdict, event, refused doorbell,
//       flush request, CQE) are free, except:
//   F6  the cache raises no event for a flush step (qpm_qpc_pipe: a flush step's answer
//       has event_valid low); this is the embedded FlushNoEvent_A, assumed here.
//   F7  the command unit's tag-0 CtxDp requests are PORT_FAULT's steps (qpm_pf_scan),
//       offered only while cmd_pf_scan_i is high, which stays high while any is in the
//       cache; a step's answer echoes its EQ reservation and carries no CQE.
// Free: the cache's ready (it may depend on the request), the consumers' readies
// (dp_rsp_ready_i, eqe_ready_i, cqe_ready_i: they may stall for ever), the lock
// (lock_valid_i, lock_qpn_i), QPN_LIMIT, and every payload. Small FIFOs (DpRspDepth 4,
// EqDepth 2, CqeDepth 2: different, so a mixed-up credit shows), CmdMaxWait 3 and one
// flush slot, so that full FIFOs and aged requests are reached within the depth.
module qpm_dp_front_props #(
  parameter int unsigned DpRspDepth = 4,
  parameter int unsigned EqDepth    = 2,
  parameter int unsigned CmdMaxWait = 3,
  parameter int unsigned CqeDepth   = 2,
  parameter int unsigned FlushSlots = 1
) (
  input logic                     clk_i,
  input logic                     rst_ni,
  input logic                     dp_req_valid_i,
  input qpm_pkg::dp_req_t         dp_req_i,
  input logic                     dp_rsp_ready_i,
  input logic                     db_valid_i,
  input qpm_pkg::doorbell_t       db_i,
  input logic                     eqe_ready_i,
  input logic                     cqe_ready_i,
  input logic [31:0]              qpn_limit_i,
  input logic                     cmd_ev_valid_i,
  input qpm_pkg::eqe_t            cmd_ev_i,
  input logic                     lock_valid_i,
  input logic [qpm_pkg::QpnW-1:0] lock_qpn_i,
  input logic                     cmd_wait_i,
  input logic                     cmd_wait_poll_i,
  input logic                     cmd_req_valid_i,
  input qpm_pkg::ctx_req_t        cmd_req_i,
  input logic                     cmd_pf_scan_i,
  input logic                     ctx_req_ready_i,
  input logic                     ctx_rsp_valid_i,
  input qpm_pkg::ctx_rsp_t        ctx_rsp_i,
  input logic                     mem_fatal_i,
  input logic [qpm_pkg::QpnW-1:0] mem_fatal_qpn_i
);

  logic                 dp_req_ready, dp_rsp_valid, db_ready, eqe_valid, cmd_ev_ready;
  logic                 cmd_req_ready, cmd_rsp_valid, ctx_req_valid, db_refused, event_pulse;
  qpm_pkg::dp_rsp_t     dp_rsp;
  qpm_pkg::eqe_t        eqe;
  qpm_pkg::ctx_rsp_t    cmd_rsp;
  qpm_pkg::ctx_req_t    ctx_req;
  logic [qpm_pkg::NumDropReasons-1:0] drop;
  logic                 cqe_valid, cqe_sent, wqe_flushed, flush_overflow, flush_busy;
  qpm_pkg::cqe_t        cqe;
  qpm_dp_front #(
    .DpRspDepth (DpRspDepth),
    .EqDepth    (EqDepth),
    .CmdMaxWait (CmdMaxWait),
    .CqeDepth   (CqeDepth),
    .FlushSlots (FlushSlots)
  ) u_dut (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .dp_req_valid_i  (dp_req_valid_i),
    .dp_req_ready_o  (dp_req_ready),
    .dp_req_i        (dp_req_i),
    .dp_rsp_valid_o  (dp_rsp_valid),
    .dp_rsp_ready_i  (dp_rsp_ready_i),
    .dp_rsp_o        (dp_rsp),
    .db_valid_i      (db_valid_i),
    .db_ready_o      (db_ready),
    .db_i            (db_i),
    .eqe_valid_o     (eqe_valid),
    .eqe_ready_i     (eqe_ready_i),
    .eqe_o           (eqe),
    .cqe_valid_o     (cqe_valid),
    .cqe_ready_i     (cqe_ready_i),
    .cqe_o           (cqe),
    .qpn_limit_i     (qpn_limit_i),
    .cmd_ev_valid_i  (cmd_ev_valid_i),
    .cmd_ev_ready_o  (cmd_ev_ready),
    .cmd_ev_i        (cmd_ev_i),
    .lock_valid_i    (lock_valid_i),
    .lock_qpn_i      (lock_qpn_i),
    .cmd_wait_i      (cmd_wait_i),
    .cmd_wait_poll_i (cmd_wait_poll_i),
    .cmd_req_valid_i (cmd_req_valid_i),
    .cmd_req_ready_o (cmd_req_ready),
    .cmd_req_i       (cmd_req_i),
    .cmd_rsp_valid_o (cmd_rsp_valid),
    .cmd_rsp_o       (cmd_rsp),
    .cmd_pf_scan_i   (cmd_pf_scan_i),
    .ctx_req_valid_o (ctx_req_valid),
    .ctx_req_ready_i (ctx_req_ready_i),
    .ctx_req_o       (ctx_req),
    .ctx_rsp_valid_i (ctx_rsp_valid_i),
    .ctx_rsp_i       (ctx_rsp_i),
    .mem_fatal_i     (mem_fatal_i),
    .mem_fatal_qpn_i (mem_fatal_qpn_i),
    .drop_o          (drop),
    .db_refused_o    (db_refused),
    .event_o         (event_pulse),
    .cqe_sent_o      (cqe_sent),
    .wqe_flushed_o   (wqe_flushed),
    .flush_overflow_o (flush_overflow),
    .flush_busy_o    (flush_busy)
  );

  `include "qpm_formal_reset.svh"

  // ---- handshakes
  logic dp_hs, db_hs, cmd_hs, ctx_hs, ev_hs, rsp_hs, eqe_hs, cqe_hs, fl_take;
  assign dp_hs  = dp_req_valid_i && dp_req_ready;
  assign db_hs  = db_valid_i && db_ready;
  assign cmd_hs = cmd_req_valid_i && cmd_req_ready;
  assign ctx_hs = ctx_req_valid && ctx_req_ready_i;
  assign ev_hs  = cmd_ev_valid_i && cmd_ev_ready;
  assign rsp_hs = dp_rsp_valid && dp_rsp_ready_i;
  assign eqe_hs = eqe_valid && eqe_ready_i;
  assign cqe_hs = cqe_valid && cqe_ready_i;
  // the cache takes a step of either engine (their ports are inside the front)
  assign fl_take = ctx_hs && qpm_pkg::tag_is_step(ctx_req.tag);

  // Every assumption and assertion of this wrapper is checked in the cycle it is about,
  // against registered copies of the cycle before (an assumption in a clocked block would
  // act one cycle late; the embedded assertions are clocked, which is consistent).
  logic               dp_wait_q, db_wait_q, cmd_wait_q, ev_wait_q;   // offered, not taken
  logic               ctx_wait_q, rsp_wait_q, eqe_wait_q, cqe_wait_q;
  qpm_pkg::dp_req_t   dp_req_q;
  qpm_pkg::doorbell_t db_q;
  qpm_pkg::ctx_req_t  cmd_req_q, ctx_req_q;
  qpm_pkg::eqe_t      cmd_ev_q, eqe_q;
  qpm_pkg::dp_rsp_t   dp_rsp_q;
  qpm_pkg::cqe_t      cqe_q;
  always_ff @(posedge clk_i) begin
    dp_wait_q  <= rst_ni && dp_req_valid_i && !dp_req_ready;
    db_wait_q  <= rst_ni && db_valid_i && !db_ready;
    cmd_wait_q <= rst_ni && cmd_req_valid_i && !cmd_req_ready;
    ev_wait_q  <= rst_ni && cmd_ev_valid_i && !cmd_ev_ready;
    ctx_wait_q <= rst_ni && ctx_req_valid && !ctx_req_ready_i;
    rsp_wait_q <= rst_ni && dp_rsp_valid && !dp_rsp_ready_i;
    eqe_wait_q <= rst_ni && eqe_valid && !eqe_ready_i;
    cqe_wait_q <= rst_ni && cqe_valid && !cqe_ready_i;
    cqe_q      <= cqe;
    dp_req_q   <= dp_req_i;
    db_q       <= db_i;
    cmd_req_q  <= cmd_req_i;
    cmd_ev_q   <= cmd_ev_i;
    ctx_req_q  <= ctx_req;
    dp_rsp_q   <= dp_rsp;
    eqe_q      <= eqe;
  end

  // ---- F1 .. F4: the requesters hold what they offer until it is taken; F3: tags 0, 1
  // F7: PORT_FAULT's steps in the cache, each holding an EQ reservation.
  logic [4:0] open_pf_q;
  logic       pf_take, pf_ans;
  assign pf_take = ctx_hs && ctx_req.tag == qpm_pkg::TagCmd && ctx_req.op == qpm_pkg::CtxDp;
  assign pf_ans  = ctx_rsp_valid_i && ctx_rsp_i.tag == qpm_pkg::TagCmd && cmd_pf_scan_i;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) open_pf_q <= '0;
    else         open_pf_q <= open_pf_q + 5'(pf_take) - 5'(pf_ans);
  end
  always_comb begin
    if (rst_ni) begin
      if (dp_wait_q) assume (dp_req_valid_i && dp_req_i == dp_req_q);
      if (db_wait_q) assume (db_valid_i && db_i == db_q);
      if (cmd_wait_q) assume (cmd_req_valid_i && cmd_req_i == cmd_req_q);
      if (ev_wait_q) assume (cmd_ev_valid_i && cmd_ev_i == cmd_ev_q);
    end
    if (cmd_req_valid_i)
      assume (cmd_req_i.tag == qpm_pkg::TagCmd || cmd_req_i.tag == qpm_pkg::TagPrefetch);
    // F7: the command unit's tag-0 CtxDp requests are PORT_FAULT's steps, offered only
    // while it says it scans (cmd_pf_scan_i), and it scans while any is open; in a scan its
    // tag-0 requests are steps.
    if (cmd_req_valid_i && cmd_req_i.tag == qpm_pkg::TagCmd)
      assume ((cmd_req_i.op == qpm_pkg::CtxDp) == cmd_pf_scan_i);
    if (open_pf_q != '0) assume (cmd_pf_scan_i);
  end

  // ---- F5: the cache answers what it took, per tag
  localparam int unsigned Tags = 1 << qpm_pkg::CtxTagW;
  logic [4:0] open_q [Tags];   // requests taken and not yet answered, per tag
  always_ff @(posedge clk_i) begin
    for (int t = 0; t < Tags; t++) begin
      if (!rst_ni) open_q[t] <= '0;
      else open_q[t] <= open_q[t] + 5'(ctx_hs && 32'(ctx_req.tag) == t)
                                  - 5'(ctx_rsp_valid_i && 32'(ctx_rsp_i.tag) == t);
    end
  end
  // F6: a step's answer echoes the reservations of one of its tag's open requests
  // (step_req_t's ev_ok, cqe_ok; a scan has several steps of one tag in flight, answered
  // in any order) and emits only what they allow, a CQE only from the flush engine; a
  // datapath or doorbell answer emits neither.
  qpm_pkg::step_req_t step_req;
  assign step_req = ctx_req.payload[$bits(step_req)-1:0];
  logic [4:0] open_ev_q [Tags], open_cqe_q [Tags];   // open requests that carried each
  always_ff @(posedge clk_i) begin
    for (int t = 0; t < Tags; t++) begin
      if (!rst_ni) begin
        open_ev_q[t]  <= '0;
        open_cqe_q[t] <= '0;
      end else begin
        open_ev_q[t]  <= open_ev_q[t]
                       + 5'(ctx_hs && 32'(ctx_req.tag) == t && step_req.ev_ok)
                       - 5'(ctx_rsp_valid_i && 32'(ctx_rsp_i.tag) == t && answer.step_ev_ok);
        open_cqe_q[t] <= open_cqe_q[t]
                       + 5'(ctx_hs && 32'(ctx_req.tag) == t && step_req.cqe_ok)
                       - 5'(ctx_rsp_valid_i && 32'(ctx_rsp_i.tag) == t && answer.step_cqe_ok);
      end
    end
  end
  logic [4:0] ans_open, ans_ev, ans_cqe;
  always_comb begin
    ans_open = '0;
    ans_ev   = '0;
    ans_cqe  = '0;
    for (int t = 0; t < Tags; t++) begin
      if (32'(ctx_rsp_i.tag) == t) begin
        ans_open = open_q[t];
        ans_ev   = open_ev_q[t];
        ans_cqe  = open_cqe_q[t];
      end
    end
  end
  always_comb begin
    // The cache names a QP a fill made fatal only in a cycle it answers nothing.
    if (mem_fatal_i) assume (!ctx_rsp_valid_i);
    if (ctx_rsp_valid_i) begin
      for (int t = 0; t < Tags; t++) if (32'(ctx_rsp_i.tag) == t) assume (open_q[t] != '0);
      if (qpm_pkg::tag_is_step(ctx_rsp_i.tag)) begin
        assume (answer.step_ev_ok ? ans_ev != '0 : ans_ev < ans_open);
        assume (answer.step_cqe_ok ? ans_cqe != '0 : ans_cqe < ans_open);
        if (answer.event_valid) assume (answer.step_ev_ok);
        if (answer.cqe_valid) assume (answer.step_cqe_ok && qpm_pkg::tag_is_flush(ctx_rsp_i.tag));
      end else if (ctx_rsp_i.tag == qpm_pkg::TagDp || ctx_rsp_i.tag == qpm_pkg::TagDoorbell) begin
        assume (!answer.event_valid && !answer.cqe_valid);
      end else if (pf_ans) begin
        // a step's answer echoes its reservation, may carry its QP's QP_FATAL, no CQE
        assume (open_pf_q != '0 && answer.step_ev_ok && !answer.cqe_valid);
      end
    end
  end

  // ---- what went in and out of the two FIFOs, counted at the ports
  qpm_pkg::dp_exec_rsp_t answer;
  logic                  rsp_dp, ev_dp;
  assign answer = ctx_rsp_i.rdata[$bits(answer)-1:0];
  assign rsp_dp = ctx_rsp_valid_i && ctx_rsp_i.tag == qpm_pkg::TagDp;
  assign ev_dp  = ((ctx_rsp_valid_i && qpm_pkg::tag_is_step(ctx_rsp_i.tag)) || pf_ans)
               && answer.event_valid;
  logic [4:0] rsp_in_q, eq_in_q;   // answers (events) in, minus taken on the port
  logic [7:0] ev_open;             // steps in the cache that may emit an event
  always_comb begin
    ev_open = 8'(open_pf_q);
    for (int t = 4; t < Tags; t++) ev_open = ev_open + 8'(open_ev_q[t]);
  end
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      rsp_in_q <= '0;
      eq_in_q  <= '0;
    end else begin
      rsp_in_q <= rsp_in_q + 5'(rsp_dp) - 5'(rsp_hs);
      eq_in_q  <= eq_in_q + 5'(ev_dp) + 5'(ev_hs) - 5'(eqe_hs);
    end
  end

  always_comb begin
    if (rst_ni) begin
      // ---- in every proof (part of front.handoff; also lemmas that let z3 decide the
      // embedded CtxReqStable_A, a 543-bit $stable, several times faster): what the front
      // offers the cache is what a requester offers it now: tag 2 the datapath port's
      // request, tag 3 the doorbell (a doorbell_t), tags 0 and 1 the command unit's
      // request as it is; an offer not taken stays with the same requester, which was left
      // waiting too.
      if (ctx_wait_q) assert (ctx_req_valid && ctx_req.tag == ctx_req_q.tag);
      if (ctx_wait_q) assert (ctx_req_q.tag == qpm_pkg::TagDp ? dp_wait_q :
                              ctx_req_q.tag == qpm_pkg::TagDoorbell ? db_wait_q :
                              qpm_pkg::tag_is_step(ctx_req_q.tag) ? 1'b1 : cmd_wait_q);
      if (ctx_req_valid) begin
        if (ctx_req.tag == qpm_pkg::TagDp)
          assert (dp_req_valid_i && ctx_req.op == qpm_pkg::CtxDp && ctx_req.index == dp_req_i.qpn
                  && ctx_req.payload == qpm_pkg::QpcW'(dp_req_i));
        else if (ctx_req.tag == qpm_pkg::TagDoorbell)
          assert (db_valid_i && ctx_req.op == qpm_pkg::CtxDp && ctx_req.index == db_i.qpn
                  && ctx_req.payload == qpm_pkg::QpcW'(db_i));
        else if (qpm_pkg::tag_is_step(ctx_req.tag))
          assert (ctx_req.op == qpm_pkg::CtxDp
                  && ctx_req.payload == qpm_pkg::QpcW'(step_req) && step_req.qpn == ctx_req.index);
        else
          assert (cmd_req_valid_i && ctx_req.tag == cmd_req_i.tag && ctx_req.op == cmd_req_i.op
                  && ctx_req.index == cmd_req_i.index && ctx_req.payload == cmd_req_i.payload);
      end
`ifdef P_DP_RSP_HELD
      if (rsp_wait_q) assert (dp_rsp_valid && dp_rsp == dp_rsp_q);
`endif
`ifdef P_EQE_HELD
      if (eqe_wait_q) assert (eqe_valid && eqe == eqe_q);
      if (cqe_wait_q) assert (cqe_valid && cqe == cqe_q);
`endif
`ifdef P_CTX_REQ_HELD
      // (field by field: the same statement, which z3 decides faster)
      if (ctx_wait_q)
        assert (ctx_req_valid && ctx_req.tag == ctx_req_q.tag && ctx_req.index == ctx_req_q.index
                && ctx_req.payload == ctx_req_q.payload && ctx_req.op == ctx_req_q.op);
`endif
`ifdef P_HANDOFF
      // The cache takes a request exactly when one of the three requesters hands one over
      // (and, by the above, it is that requester's request), or a flush step.
      assert ((ctx_hs && !fl_take) == (dp_hs || db_hs || cmd_hs));
      assert ($onehot0({dp_hs, db_hs, cmd_hs, fl_take}));
      // A command event taken enters the EQ FIFO in that cycle (counted in EVENTS).
      if (ev_hs) assert (event_pulse);
      // The command unit gets exactly the answers of tags 0 and 1, as they are.
      assert (cmd_rsp_valid == (ctx_rsp_valid_i && ctx_rsp_i.tag < 4'd2));
      if (cmd_rsp_valid) assert (cmd_rsp == ctx_rsp_i);
`endif
`ifdef P_CREDITS
      // Nothing lost or invented: the response port holds every answer of a datapath
      // operation not yet taken, the EQE port every event; datapath operations in the
      // cache plus answers waiting never exceed the response FIFO, nor steps that may
      // emit an event plus events waiting the EQ FIFO.
      assert (dp_rsp_valid == (rsp_in_q != '0) && 32'(rsp_in_q) <= DpRspDepth);
      assert (eqe_valid == (eq_in_q != '0) && 32'(eq_in_q) <= EqDepth);
      assert (32'(open_q[2]) + 32'(rsp_in_q) <= DpRspDepth);
      assert (32'(ev_open) + 32'(eq_in_q) <= EqDepth);
      // Every event that arrives is counted (EVENTS) in the cycle it enters.
      assert (event_pulse == (ev_dp || ev_hs));
`endif
    end
  end

  logic unused_props;
  assign unused_props = ^{drop, db_refused, past_valid, cqe_sent, wqe_flushed, flush_overflow,
                          flush_busy, cqe_hs};

endmodule
