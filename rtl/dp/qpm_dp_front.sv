// qpm_dp_front: the datapath, doorbell and command requests in front of the QP cache,
// and the answers and events behind it (SPEC.md §2, §6, §11; docs/datapath.md).
//
//   datapath port ─┐                                              ┌─► datapath responses
//   doorbell port ─┤                                              ├─► EQE port
//   command unit ──┤                                              ├─► CQE port
//   fatal engine ──┼─► one request a cycle ─► QP cache pipeline ──┼─► command unit
//   flush engine ──┘   (qpm_front_arbiter)                        └─► both engines
//
// Priority and aging are qpm_front_arbiter's (docs/datapath.md): the datapath first,
// commands, doorbells and engine steps age past it, and an engine that steps a QP a
// command waits for goes before it. A datapath operation is admitted only with room
// reserved for its answer in the response FIFO (credits: operations in flight plus FIFO
// contents never exceed the depth), so the pipeline never stalls on a full FIFO.
// Events (docs/events.md): an operation that raises one writes it into its QPC
// (ev_pending) and names its QP to an engine: fatal-class events to the fatal engine,
// informational ones to the flush engine, whose steps then carry them to the EQ FIFO.
// A step is granted with room reserved for what it may emit: the fatal engine's steps
// and PORT_FAULT's an EQE; the flush engine's a CQE (a slow CQE consumer slows only the
// flush), and an EQE only while the fatal engine is idle, so fatal events overtake
// informational ones. The datapath never waits for the EQ; PORT_ERR waits for a slot.
// A command reads a QPC, decides, and writes it back in two pipeline operations; while
// it does, datapath operations and doorbells on that QPN wait (the command unit's lock),
// so none is overwritten by the write or sees the QPC between the two. They wait in
// qpm_dp_ingress's lock parks (docs/datapath.md, "The command lock and its park").
`include "qpm_assert.svh"

module qpm_dp_front #(
  parameter int unsigned DpRspDepth = 16,
  parameter int unsigned EqDepth    = 16,
  parameter int unsigned CmdMaxWait = 16,
  parameter int unsigned FlushMaxWait = 64,
  parameter int unsigned CqeDepth   = 8,
  parameter int unsigned FlushSlots = 4,
  parameter int unsigned PageBits   = 6,   // the QP table's page: the engines' scan skips unmapped ones
  localparam int unsigned RspCntW = $clog2(DpRspDepth) + 1,
  localparam int unsigned EqCntW  = $clog2(EqDepth) + 1,
  localparam int unsigned CqeCntW = $clog2(CqeDepth) + 1
) (
  input  logic                    clk_i,
  input  logic                    rst_ni,
  // datapath port
  input  logic                    dp_req_valid_i,
  output logic                    dp_req_ready_o,
  input  qpm_pkg::dp_req_t        dp_req_i,
  output logic                    dp_rsp_valid_o,
  input  logic                    dp_rsp_ready_i,
  output qpm_pkg::dp_rsp_t        dp_rsp_o,
  // doorbell port
  input  logic                    db_valid_i,
  output logic                    db_ready_o,
  input  qpm_pkg::doorbell_t      db_i,
  // EQE port
  output logic                    eqe_valid_o,
  input  logic                    eqe_ready_i,
  output qpm_pkg::eqe_t           eqe_o,
  // CQE port: flush and error completions
  output logic                    cqe_valid_o,
  input  logic                    cqe_ready_i,
  output qpm_pkg::cqe_t           cqe_o,
  input  logic [31:0]             qpn_limit_i,
  // events of the command unit
  input  logic                    cmd_ev_valid_i,
  output logic                    cmd_ev_ready_o,
  input  qpm_pkg::eqe_t           cmd_ev_i,
  // the QPN the command unit is reading and writing back: datapath operations and
  // doorbells on it are not admitted meanwhile
  input  logic                    lock_valid_i,
  input  logic [qpm_pkg::QpnW-1:0] lock_qpn_i,
  // a command waits for lock_qpn_i's flush or events, and one of its polls begins:
  // the engines step that QP first (qpm_flush_engine)
  input  logic                    cmd_wait_i,
  input  logic                    cmd_wait_poll_i,
  // the command unit's QPC accesses
  input  logic                    cmd_req_valid_i,
  output logic                    cmd_req_ready_o,
  input  qpm_pkg::ctx_req_t       cmd_req_i,
  output logic                    cmd_rsp_valid_o,
  output qpm_pkg::ctx_rsp_t       cmd_rsp_o,
  input  logic                    cmd_pf_scan_i,   // its tag-0 answers are PORT_FAULT steps'
  // the QP cache
  output logic                    ctx_req_valid_o,
  input  logic                    ctx_req_ready_i,
  output qpm_pkg::ctx_req_t       ctx_req_o,
  input  logic                    ctx_rsp_valid_i,
  input  qpm_pkg::ctx_rsp_t       ctx_rsp_i,
  // a fill made its QP fatal: to both engines (never beside ctx_rsp_valid_i)
  input  logic                    mem_fatal_i,
  input  logic [qpm_pkg::QpnW-1:0] mem_fatal_qpn_i,
  // one pulse per event: a DROP (by reason), a refused doorbell, an event raised
  output logic [qpm_pkg::NumDropReasons-1:0] drop_o,
  output logic                    db_refused_o,
  output logic                    event_o,
  output logic                    cqe_sent_o,       // a CQE left on the port ...
  output logic                    wqe_flushed_o,    // ... with status WR_FLUSH_ERR
  output logic                    flush_overflow_o, // a QP to flush found every slot taken
  output logic                    fatal_overflow_o, // ... a QP with a fatal event, too
  output logic [5:0]              ev_type_o,        // an EQE in: QP_FATAL, QP_REQ_ERR,
                                                    // QP_ACCESS_ERR, COMM_EST, SQ_DRAINED, PORT_ERR
  output logic                    eq_hwm_o,         // the EQ holds more than it ever did
  output logic                    flush_busy_o      // steps owed or in flight, or a CQE
                                                    // or EQE waiting on its port
);

  if (DpRspDepth > 128 || EqDepth > 128) begin : gen_bad_depth
    $error("DpRspDepth and EqDepth must be at most 128 (the 8-bit in-flight count)");
  end

  qpm_pkg::front_grant_e grant, lock_q;   // lock_q: offered last cycle, not yet taken

  // ---- credits: datapath operations admitted and not yet answered plus the response
  // FIFO's contents never exceed its depth. Each sum is kept as one counter (dp_used_q),
  // moved by an admission and a pop, so the credit is a compare of a register with a
  // constant, not an add of two counts in front of the grant.
  logic [RspCntW-1:0] rsp_count;
  logic [EqCntW-1:0]  eq_count;
  logic [7:0]         dp_used_q;
  logic               dp_credit;
  assign dp_credit = 32'(dp_used_q) < DpRspDepth;

  // ---- the engines' credits: steps in flight that may emit a CQE (an EQE) plus the
  // CQE (EQ) FIFO's contents never exceed its depth (cqe_used_q, ev_used_q as above)
  logic [CqeCntW-1:0] cqe_count;
  logic [7:0]         cqe_inflight_q, ev_inflight_q, cqe_used_q, ev_used_q;
  logic               fl_credit, ev_credit, ev_push, cmd_ev_take, cmd_ev_room;
  logic               cqe_push, eq_in_valid;
  assign fl_credit   = 32'(cqe_used_q) < CqeDepth;
  // A step offered and held keeps the reservations it was offered with (the offer
  // stays stable until taken), and its EQ slot counts as used meanwhile (ev_held). The
  // EQ's room for 0, 1 or 2 more (the held step's, a command event's) as three compares
  // of the counter with constants, beside each other.
  logic [1:0]  fl_perm_q;   // {cqe_ok, ev_ok} of a flush step held on the cache port
  logic        ev_held;
  logic [2:0]  ev_room;     // ev_room[k]: ev_used_q + k < EqDepth
  // A PORT_FAULT step (the command unit's CtxDp) is offered only with room in the EQ,
  // for the QP_FATAL its answer may carry (qpm_rmw_exec).
  logic        cmd_pf_step;
  assign cmd_pf_step = cmd_req_i.op == qpm_pkg::CtxDp;
  assign ev_held     = lock_q == qpm_pkg::GFatal || (lock_q == qpm_pkg::GFlush && fl_perm_q[0])
                    || (lock_q == qpm_pkg::GCmd && cmd_pf_step);
  assign ev_room[0]  = 32'(ev_used_q) < EqDepth;
  assign ev_room[1]  = 32'(ev_used_q) + 32'd1 < EqDepth;
  assign ev_room[2]  = 32'(ev_used_q) + 32'd2 < EqDepth;
  assign cmd_ev_room = cmd_ev_valid_i && (ev_held ? ev_room[1] : ev_room[0]);
  assign cmd_ev_take = cmd_ev_room && !ev_push;
  // A command event with room counts as taken even in a cycle a step's answer pushes an
  // event and it waits (one slot too few, for that cycle): the cache's answer stays off
  // the engines' credit and so off the grant.
  assign ev_credit   = (ev_held && cmd_ev_room) ? ev_room[2]
                     : (ev_held || cmd_ev_room) ? ev_room[1] : ev_room[0];

  logic                        fa_step_valid, fa_step_ready, fa_req_a, fa_req_b, fa_engine_busy;
  logic [qpm_pkg::QpnW-1:0]    fa_step_qpn;
  logic [qpm_pkg::CtxTagW-1:0] fa_step_tag;

  logic                    fl_step_valid, fl_step_ready;
  logic [qpm_pkg::QpnW-1:0] fl_step_qpn;
  logic [qpm_pkg::CtxTagW-1:0] fl_step_tag;
  logic                    fl_req_a, fl_req_b, fl_engine_busy;
  // A step as the pipeline carries it (qpm_pkg::step_req_t): its QPN and what it may emit;
  // a fatal-engine step delivers only fatal-class events.
  logic               fl_ev_ok, fl_cqe_ok;
  qpm_pkg::step_req_t fl_step, fa_step;
  assign fl_ev_ok  = (lock_q == qpm_pkg::GFlush) ? fl_perm_q[0]
                   : ev_credit && !fa_step_valid && !fa_engine_busy;
  assign fl_cqe_ok = (lock_q == qpm_pkg::GFlush) ? fl_perm_q[1] : fl_credit;
  always_comb begin
    fl_step.qpn        = fl_step_qpn;
    fl_step.ev_ok      = fl_ev_ok;
    fl_step.cqe_ok     = fl_cqe_ok;
    fl_step.fatal_only = 1'b0;
    fa_step.qpn        = fa_step_qpn;
    fa_step.ev_ok      = 1'b1;
    fa_step.cqe_ok     = 1'b0;
    fa_step.fatal_only = 1'b1;
  end

  // ---- arbitration with aging and a lock (qpm_front_arbiter)
  logic dp_locked, db_locked, fl_locked, fa_locked;
  logic fl_urgent, fa_urgent;   // an engine steps a QP a command waits for
  assign dp_locked = lock_valid_i && dp_req_i.qpn == lock_qpn_i;
  assign db_locked = lock_valid_i && db_i.qpn == lock_qpn_i;
  assign fl_locked = lock_valid_i && fl_step_qpn == lock_qpn_i;
  assign fa_locked = lock_valid_i && fa_step_qpn == lock_qpn_i;
  qpm_front_arbiter #(
    .CmdMaxWait   (CmdMaxWait),
    .FlushMaxWait (FlushMaxWait)
  ) u_arbiter (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .dp_ok_i     (dp_req_valid_i && dp_credit && !dp_locked),
    .db_ok_i     (db_valid_i && !db_locked),
    .cmd_ok_i    (cmd_req_valid_i && (!cmd_pf_step || ev_credit)),
    .fl_ok_i     (fl_step_valid && (fl_cqe_ok || fl_ev_ok) && !fl_locked),
    .fa_ok_i     (fa_step_valid && ev_credit && !fa_locked),
    .db_waits_i  (db_valid_i),
    .cmd_waits_i (cmd_req_valid_i),
    .fl_waits_i  (fl_step_valid),
    .fa_waits_i  (fa_step_valid),
    .fl_urgent_i (fl_urgent),
    .fa_urgent_i (fa_urgent),
    .ready_i     (ctx_req_ready_i),
    .grant_o     (grant),
    .held_o      (lock_q)
  );

  always_comb begin
    ctx_req_o = '0;
    unique case (grant)
      qpm_pkg::GDp: begin
        ctx_req_o.tag   = qpm_pkg::TagDp;
        ctx_req_o.op    = qpm_pkg::CtxDp;
        ctx_req_o.index = dp_req_i.qpn;
        ctx_req_o.payload = qpm_pkg::QpcW'(dp_req_i);
      end
      qpm_pkg::GDb: begin
        ctx_req_o.tag   = qpm_pkg::TagDoorbell;
        ctx_req_o.op    = qpm_pkg::CtxDp;
        ctx_req_o.index = db_i.qpn;
        ctx_req_o.payload = qpm_pkg::QpcW'(db_i);
      end
      qpm_pkg::GCmd: ctx_req_o = cmd_req_i;
      qpm_pkg::GFlush: begin
        ctx_req_o.tag   = fl_step_tag;
        ctx_req_o.op    = qpm_pkg::CtxDp;
        ctx_req_o.index = fl_step_qpn;
        ctx_req_o.payload = qpm_pkg::QpcW'(fl_step);
      end
      qpm_pkg::GFatal: begin
        ctx_req_o.tag   = fa_step_tag;
        ctx_req_o.op    = qpm_pkg::CtxDp;
        ctx_req_o.index = fa_step_qpn;
        ctx_req_o.payload = qpm_pkg::QpcW'(fa_step);
      end
      default: ;
    endcase
  end
  assign ctx_req_valid_o = grant != qpm_pkg::GNone;
  assign dp_req_ready_o  = grant == qpm_pkg::GDp && ctx_req_ready_i;
  assign db_ready_o      = grant == qpm_pkg::GDb && ctx_req_ready_i;
  assign cmd_req_ready_o = grant == qpm_pkg::GCmd && ctx_req_ready_i;
  assign fl_step_ready   = grant == qpm_pkg::GFlush && ctx_req_ready_i;
  assign fa_step_ready   = grant == qpm_pkg::GFatal && ctx_req_ready_i;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) fl_perm_q <= '0;
    else         fl_perm_q <= {fl_cqe_ok, fl_ev_ok};
  end

  // ---- answers
  qpm_pkg::dp_exec_rsp_t answer;
  logic                  rsp_dp, rsp_db, rsp_cmd, rsp_fl, rsp_fa, rsp_step;
  assign answer          = ctx_rsp_i.rdata[$bits(answer)-1:0];
  assign rsp_dp          = ctx_rsp_valid_i && ctx_rsp_i.tag == qpm_pkg::TagDp;
  assign rsp_db          = ctx_rsp_valid_i && ctx_rsp_i.tag == qpm_pkg::TagDoorbell;
  assign rsp_fl          = ctx_rsp_valid_i && qpm_pkg::tag_is_flush(ctx_rsp_i.tag);
  assign rsp_fa          = ctx_rsp_valid_i && qpm_pkg::tag_is_fatal(ctx_rsp_i.tag);
  assign rsp_step        = rsp_fl || rsp_fa;
  logic step_unmapped;     // a step's QPN is on an unmapped page (or past QPN_LIMIT)
  assign step_unmapped   = ctx_rsp_i.status == qpm_pkg::CtxUnmapped;
  assign rsp_cmd         = ctx_rsp_valid_i && !rsp_dp && !rsp_db && !rsp_step;
  assign cmd_rsp_valid_o = rsp_cmd;
  assign cmd_rsp_o       = ctx_rsp_i;
  // A PORT_FAULT step's answer: its QP_FATAL, or the QP it moved named to the engines.
  logic rsp_pf;
  assign rsp_pf          = rsp_cmd && cmd_pf_scan_i && ctx_rsp_i.tag == qpm_pkg::TagCmd;
  assign ev_push         = (rsp_step || rsp_pf) && answer.event_valid;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    // an answer moves an operation from in flight into the FIFO (RspRoom_A): no change
    if (!rst_ni) dp_used_q <= '0;
    else         dp_used_q <= dp_used_q + 8'(dp_req_valid_i && dp_req_ready_o)
                                        - 8'(dp_rsp_valid_o && dp_rsp_ready_i);
  end

  // The reservations a step holds, from its grant to its answer (the answer echoes them).
  logic step_ev_ok, step_cqe_ok;
  assign step_ev_ok  = (fa_step_ready && fa_step_valid)
                    || (fl_step_ready && fl_step_valid && fl_ev_ok)
                    || (cmd_req_ready_o && cmd_req_valid_i && cmd_pf_step);
  assign step_cqe_ok = fl_step_ready && fl_step_valid && fl_cqe_ok;
  // The sums move as their parts do: in flight (above) and the FIFO's count (a push is
  // always taken: CqeRoom_A, EqRoom_A; CqeUsed_A and EvUsed_A check the sums).
  logic cqe_ans, cqe_out, ev_ans, ev_out;
  assign cqe_ans = rsp_step && answer.step_cqe_ok;
  assign cqe_out = cqe_valid_o && cqe_ready_i;
  assign ev_ans  = (rsp_step || rsp_pf) && answer.step_ev_ok;
  assign ev_out  = eqe_valid_o && eqe_ready_i;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cqe_inflight_q <= '0;
      ev_inflight_q  <= '0;
    end else begin
      cqe_inflight_q <= cqe_inflight_q + 8'(step_cqe_ok) - 8'(cqe_ans);
      ev_inflight_q  <= ev_inflight_q + 8'(step_ev_ok) - 8'(ev_ans);
    end
  end
  qpm_updown_count #(.W(8)) u_cqe_used (.clk_i(clk_i), .rst_ni(rst_ni), .inc_i({step_cqe_ok,
    cqe_push}), .dec_i({cqe_ans, cqe_out}), .count_o(cqe_used_q));
  qpm_updown_count #(.W(8)) u_ev_used (.clk_i(clk_i), .rst_ni(rst_ni), .inc_i({step_ev_ok,
    eq_in_valid}), .dec_i({ev_ans, ev_out}), .count_o(ev_used_q));

  // A command's write of ERR (MODIFY to ERR) starts its QP's flush, and a write with
  // events pending (SQ_DRAINED) their delivery; the step is granted after the write, so
  // it reads the QPC the write left. (Of the payload only valid, state and ev_pending are
  // read, and of the answers not step_moved, the command unit's.)
  logic          cmd_write, unused_cmd_qpc;
  qpm_pkg::qpc_t cmd_qpc;   // a CtxWrite's payload
  assign cmd_qpc        = cmd_req_i.payload;
  assign unused_cmd_qpc = ^{cmd_qpc, answer.step_moved};
  assign cmd_write = grant == qpm_pkg::GCmd && ctx_req_ready_i && cmd_req_i.op == qpm_pkg::CtxWrite
                  && cmd_qpc.valid;
  assign fl_req_a = cmd_write
                 && (cmd_qpc.state == qpm_pkg::StErr
                     || (cmd_qpc.ev_pending & ~qpm_event_pkg::EvFatalClass) != '0);
  // A fill that made its QP fatal (a QPC read failed, docs/events.md) uses the answers'
  // request input: the cache never answers in that cycle.
  logic [qpm_pkg::QpnW-1:0] req_b_qpn;
  assign req_b_qpn = mem_fatal_i ? mem_fatal_qpn_i : answer.rsp.qpn;
  assign fl_req_b = ((rsp_dp || rsp_db || rsp_pf) && (answer.flush_req || answer.ev_req_info))
                 || mem_fatal_i;
  assign fa_req_a = cmd_write && (cmd_qpc.ev_pending & qpm_event_pkg::EvFatalClass) != '0;
  assign fa_req_b = ((rsp_dp || rsp_pf) && answer.ev_req_fatal) || mem_fatal_i;

  // The fatal engine: QPs with a fatal-class event pending (its steps deliver a QP's
  // events in the QP's own order, so an informational event raised before it goes too).
  qpm_flush_engine #(
    .Slots    (2),
    .SlotW    (2),
    .TagBase  (4'd4),
    .PageBits (PageBits)
  ) u_fatal_engine (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .qpn_limit_i   (qpn_limit_i),
    .req_a_valid_i (fa_req_a),
    .req_a_qpn_i   (cmd_req_i.index),
    .req_b_valid_i (fa_req_b),
    .req_b_qpn_i   (req_b_qpn),
    .wait_valid_i  (cmd_wait_i),
    .wait_poll_i   (cmd_wait_poll_i),
    .wait_qpn_i    (lock_qpn_i),
    .urgent_o      (fa_urgent),
    .step_valid_o  (fa_step_valid),
    .step_ready_i  (fa_step_ready),
    .step_qpn_o    (fa_step_qpn),
    .step_tag_o    (fa_step_tag),
    .ans_valid_i   (rsp_fa),
    .ans_tag_i     (ctx_rsp_i.tag),
    .ans_qpn_i     (answer.rsp.qpn),
    .ans_more_i    (answer.ev_more),
    .ans_unmapped_i (step_unmapped),
    .overflow_o    (fatal_overflow_o),
    .busy_o        (fa_engine_busy)
  );

  qpm_flush_engine #(
    .Slots    (FlushSlots),
    .PageBits (PageBits)
  ) u_flush_engine (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .qpn_limit_i   (qpn_limit_i),
    .req_a_valid_i (fl_req_a),
    .req_a_qpn_i   (cmd_req_i.index),
    .req_b_valid_i (fl_req_b),
    .req_b_qpn_i   (req_b_qpn),
    .wait_valid_i  (cmd_wait_i),
    .wait_poll_i   (cmd_wait_poll_i),
    .wait_qpn_i    (lock_qpn_i),
    .urgent_o      (fl_urgent),
    .step_valid_o  (fl_step_valid),
    .step_ready_i  (fl_step_ready),
    .step_qpn_o    (fl_step_qpn),
    .step_tag_o    (fl_step_tag),
    .ans_valid_i   (rsp_fl),
    .ans_tag_i     (ctx_rsp_i.tag),
    .ans_qpn_i     (answer.rsp.qpn),
    .ans_more_i    (answer.flush_more || answer.ev_more),
    .ans_unmapped_i (step_unmapped),
    .overflow_o    (flush_overflow_o),
    .busy_o        (fl_engine_busy)
  );
  // Busy until every step is answered and every CQE and EQE has left its port.
  assign flush_busy_o = fl_engine_busy || fa_engine_busy || cqe_inflight_q != '0
                     || ev_inflight_q != '0 || cqe_valid_o || eqe_valid_o;

  assign cqe_push = rsp_fl && answer.cqe_valid;
  qpm_front_queues #(
    .DpRspDepth (DpRspDepth),
    .EqDepth    (EqDepth),
    .CqeDepth   (CqeDepth)
  ) u_queues (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .rsp_dp_i       (rsp_dp),
    .rsp_i          (answer.rsp),
    .rsp_db_i       (rsp_db),
    .db_refused_i   (answer.db_refused),
    .cqe_push_i     (cqe_push),
    .cqe_i          (answer.cqe),
    .ev_push_i      (ev_push),
    .ev_i           (answer.event_data),
    .cmd_ev_take_i  (cmd_ev_take),
    .cmd_ev_i       (cmd_ev_i),
    .dp_rsp_valid_o (dp_rsp_valid_o),
    .dp_rsp_ready_i (dp_rsp_ready_i),
    .dp_rsp_o       (dp_rsp_o),
    .cqe_valid_o    (cqe_valid_o),
    .cqe_ready_i    (cqe_ready_i),
    .cqe_o          (cqe_o),
    .eqe_valid_o    (eqe_valid_o),
    .eqe_ready_i    (eqe_ready_i),
    .eqe_o          (eqe_o),
    .rsp_count_o    (rsp_count),
    .cqe_count_o    (cqe_count),
    .eq_count_o     (eq_count),
    .eq_push_o      (eq_in_valid),
    .drop_o         (drop_o),
    .db_refused_o   (db_refused_o),
    .event_o        (event_o),
    .cqe_sent_o     (cqe_sent_o),
    .wqe_flushed_o  (wqe_flushed_o),
    .ev_type_o      (ev_type_o),
    .eq_hwm_o       (eq_hwm_o)
  );
  assign cmd_ev_ready_o = cmd_ev_take;

  // ---- contract
  // (The queues check that every answer and event finds room: qpm_front_queues.)
  `QPM_ASSERT_IMPL(FatalFillAlone_A, mem_fatal_i, !ctx_rsp_valid_i)
  // The credit counters are the sums they stand for.
  `QPM_ASSERT(DpUsed_A, 32'(rsp_count) <= 32'(dp_used_q) && 32'(dp_used_q) <= DpRspDepth)
  `QPM_ASSERT(CqeUsed_A, 32'(cqe_used_q) == 32'(cqe_inflight_q) + 32'(cqe_count))
  `QPM_ASSERT(EvUsed_A, 32'(ev_used_q) == 32'(ev_inflight_q) + 32'(eq_count))
  // Only steps complete WQEs and deliver events, each only with room reserved.
  // (a command's answer carries a QPC, not a dp_exec_rsp_t)
  `QPM_ASSERT_IMPL(StepOnlyCqe_A, (rsp_dp || rsp_db || rsp_step) && answer.cqe_valid,
                   rsp_fl && answer.step_cqe_ok)
  `QPM_ASSERT_IMPL(StepOnlyEvent_A, (rsp_dp || rsp_db || rsp_step) && answer.event_valid,
                   rsp_step && answer.step_ev_ok)
  // The requesters hold their requests until taken (AXI rule).
  `QPM_ASSERT_NEXT(DpReqStable_A, dp_req_valid_i && !dp_req_ready_o, dp_req_valid_i
                             && $stable(dp_req_i))
  `QPM_ASSERT_NEXT(DbStable_A, db_valid_i && !db_ready_o, db_valid_i && $stable(db_i))
  `QPM_ASSERT_NEXT(CmdReqStable_A, cmd_req_valid_i && !cmd_req_ready_o, cmd_req_valid_i
                              && $stable(cmd_req_i))
  `QPM_ASSERT_NEXT(CtxReqStable_A, ctx_req_valid_o && !ctx_req_ready_i, ctx_req_valid_o
                              && $stable(ctx_req_o))
  `QPM_ASSERT_NEXT(CmdEvStable_A, cmd_ev_valid_i && !cmd_ev_ready_o, cmd_ev_valid_i
                             && $stable(cmd_ev_i))
  `QPM_ASSERT_NEXT(FlushStepStable_A, fl_step_valid && !fl_step_ready, fl_step_valid
                                 && $stable({fl_step_qpn, fl_step_tag}))
  `QPM_ASSERT_NEXT(FatalStepStable_A, fa_step_valid && !fa_step_ready, fa_step_valid
                                 && $stable({fa_step_qpn, fa_step_tag}))

endmodule
