// qpm_rmw_exec: the decision of a read-modify-write in the QP cache's pipeline (stage P1,
// docs/qp-cache.md "Pipeline"): which compute decides it, the QPC it writes back and the
// answer (SPEC.md §6, §7, §8).
//
// A datapath operation goes to qpm_dp_exec, a doorbell (tag TagDoorbell) to
// qpm_doorbell_exec, a step of the flush or fatal engine (tags 4 .. 15) to
// qpm_flush_exec, a step of PORT_FAULT's scan (tag TagCmd) to qpm_pf_exec: its answer
// carries the QP's QP_FATAL (the step holds room in the EQ, qpm_dp_front), or names the
// QP to the fatal engine when the event had to wait (ev_req_fatal), and to the flush
// engine when it owes completions (flush_req). An event a datapath operation raises is
// not answered here: its bit is set in the QPC it writes (ev_pending), and the answer
// names the QP to the engine of the event's class; a step later carries it to the EQ
// (docs/events.md). Pure combinational; the clock only samples the assertion.
`include "qpm_assert.svh"

module qpm_rmw_exec (
  input  logic                   clk_i,      // assertions only
  input  logic                   rst_ni,
  input  qpm_pkg::dp_req_t       req_i,      // the operation: a dp_req_t, or in its low bits
                                             // a doorbell_t or a step_req_t
  input  logic                   is_db_i,
  input  logic                   is_step_i,
  input  logic                   is_pf_i,    // a PORT_FAULT step (a pf_req_t)
  input  logic                   found_i,    // the QPN is mapped and its QPC was read
  input  logic                   mem_err_i,  // the QPC could not be read
  input  qpm_pkg::qpc_t          qpc_i,
  output logic                   write_o,
  output qpm_pkg::qpc_t          qpc_o,
  output qpm_pkg::dp_exec_rsp_t  answer_o
);

  qpm_pkg::qpc_t      dp_qpc_out, db_qpc_out, fl_qpc_out;
  qpm_pkg::dp_rsp_t   dp_rsp;
  qpm_pkg::eqe_t      dp_event, fl_event;
  qpm_pkg::doorbell_t db;     // the views of a doorbell and a step (qpm_pkg::ctx_req_t)
  qpm_pkg::step_req_t step;
  qpm_pkg::pf_req_t   pf;
  qpm_pkg::cqe_t      fl_cqe;
  logic               exists, dp_write, dp_event_valid, db_refused, dp_flush_req, db_flush_req;
  logic               fl_write, fl_cqe_valid, fl_more, fl_ev_valid, fl_ev_more;
  assign exists   = found_i && qpc_i.valid;
  assign db       = req_i[$bits(db)-1:0];
  assign step     = req_i[$bits(step)-1:0];
  assign pf       = req_i[$bits(pf)-1:0];

  // PORT_FAULT's step (qpm_pf_exec).
  logic          pf_moves, pf_now, pf_pending, pf_owes;
  qpm_pkg::qpc_t pf_qpc;
  qpm_pkg::eqe_t pf_event;
  qpm_pf_exec u_pf_exec (
    .req_i         (pf),
    .exists_i      (exists),
    .mem_err_i     (mem_err_i),
    .qpc_i         (qpc_i),
    .qpc_o         (pf_qpc),
    .moved_o       (pf_moves),
    .event_valid_o (pf_now),
    .event_o       (pf_event),
    .pending_o     (pf_pending),
    .owes_o        (pf_owes)
  );

  qpm_dp_exec u_dp_exec (
    .req_i         (req_i),
    .exists_i      (exists),
    .mem_err_i     (mem_err_i),
    .qpc_i         (qpc_i),
    .rsp_o         (dp_rsp),
    .qpc_o         (dp_qpc_out),
    .write_o       (dp_write),
    .event_valid_o (dp_event_valid),
    .event_o       (dp_event),
    .flush_req_o   (dp_flush_req)
  );
  qpm_doorbell_exec u_db_exec (
    .db_i        (db),
    .exists_i    (exists),
    .qpc_i       (qpc_i),
    .refused_o   (db_refused),
    .qpc_o       (db_qpc_out),
    .flush_req_o (db_flush_req)
  );
  qpm_flush_exec u_flush_exec (
    .qpn_i         (step.qpn),
    .exists_i      (exists),
    .mem_err_i     (mem_err_i),
    .ev_ok_i       (step.ev_ok),
    .cqe_ok_i      (step.cqe_ok),
    .fatal_only_i  (step.fatal_only),
    .qpc_i         (qpc_i),
    .qpc_o         (fl_qpc_out),
    .write_o       (fl_write),
    .cqe_valid_o   (fl_cqe_valid),
    .cqe_o         (fl_cqe),
    .more_o        (fl_more),
    .event_valid_o (fl_ev_valid),
    .event_o       (fl_event),
    .ev_more_o     (fl_ev_more)
  );

  // A datapath operation's event is kept in its QPC (ev_pending) and leaves later: the
  // datapath never waits for the EQ.
  logic          dp_raises;
  logic [4:0]    dp_ev_bit;
  qpm_pkg::qpc_t dp_qpc_ev;
  assign dp_raises = dp_event_valid && !is_db_i && !is_step_i && !is_pf_i;
  logic unused_dp_event;  // the step that delivers it rebuilds the EQE from the QPC
  assign unused_dp_event = ^{dp_event.is_port, dp_event.qpn, dp_event.syndrome};
  assign dp_ev_bit = dp_raises ? qpm_event_pkg::ev_bit(dp_event.event_type) : 5'b0;
  always_comb begin
    dp_qpc_ev            = dp_qpc_out;
    dp_qpc_ev.ev_pending = dp_qpc_out.ev_pending | dp_ev_bit;
  end

  always_comb begin
    answer_o              = '0;
    answer_o.rsp          = dp_rsp;
    // A doorbell's or step's answer names its QP (the engines and the doorbell tracker
    // read it); the rest of rsp is a datapath operation's.
    if (is_step_i)    answer_o.rsp.qpn = step.qpn;
    else if (is_db_i) answer_o.rsp.qpn = db.qpn;
    else if (is_pf_i) answer_o.rsp.qpn = pf.qpn;
    answer_o.event_valid  = (is_step_i && fl_ev_valid) || (is_pf_i && pf_now);
    answer_o.event_data   = is_pf_i ? pf_event : fl_event;
    answer_o.ev_req_fatal = is_pf_i ? pf_pending
                                    : (dp_ev_bit & qpm_event_pkg::EvFatalClass) != '0;
    answer_o.ev_req_info  = (dp_ev_bit & ~qpm_event_pkg::EvFatalClass) != '0;
    answer_o.ev_more      = is_step_i && fl_ev_more;
    answer_o.step_moved   = is_pf_i && pf_moves;
    answer_o.step_ev_ok   = (is_step_i && step.ev_ok) || is_pf_i;   // a PORT_FAULT step's room
    answer_o.step_cqe_ok  = is_step_i && step.cqe_ok;
    answer_o.db_refused   = is_db_i && db_refused;
    answer_o.flush_req    = is_step_i ? 1'b0 : is_db_i ? db_flush_req
                          : is_pf_i ? pf_owes : dp_flush_req;
    answer_o.cqe_valid    = is_step_i && fl_cqe_valid;
    answer_o.cqe          = fl_cqe;
    answer_o.flush_more   = is_step_i && fl_more;
  end

  assign write_o = is_step_i ? fl_write : is_db_i ? !db_refused : is_pf_i ? pf_moves : dp_write;
  assign qpc_o   = is_step_i ? fl_qpc_out : is_db_i ? db_qpc_out : is_pf_i ? pf_qpc : dp_qpc_ev;

  // An event a datapath operation raises is written into its QPC.
  `QPM_ASSERT_IMPL(EventWritten_A, found_i && dp_raises, dp_write)

endmodule
