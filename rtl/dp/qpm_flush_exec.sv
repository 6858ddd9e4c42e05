// qpm_flush_exec: the compute of one step of a QP's owed work: one pending event and
// one flush completion (SPEC.md §7, §8; docs/errors.md, docs/events.md).
//
// Pure combinational, a function of the QPC before the step and of what the front
// reserved room for (ev_ok_i: an EQE, cqe_ok_i: a CQE).
// Events: the lowest set bit of ev_pending leaves as an EQE and is cleared (the bit
// order is the order a QP raises them in, qpm_pkg::EvBit*). A QP error event carries
// err_syndrome (the NAK that raised it; nothing overwrites it in ERR), QP_FATAL the
// cause kept in ev_fatal_port and ev_fatal_write. Pending events leave in any state: they were raised.
// A fatal-engine step (fatal_only_i) serves only a QP with a fatal-class event pending
// (the informational events raised before it go first, in the QP's order), so a scan
// of the fatal engine's overflow never carries another QP's informational event.
// Completions: a QP owes
//   in ERR: SQ WQEs sq_ci .. sq_pi-1 and RQ WQEs rq_ci .. rq_pi-1;
//   in SQE: SQ WQEs sq_ci .. sq_issued-1 (sq_issued holds the sq_pi of the moment the
//           QP entered SQE; WQEs posted since wait for the return to RTS).
// One step completes the oldest owed WQE, SQ before RQ, and advances that queue's ci:
// a CQE {cqn, qpn, queue, wqe_index = ci, status}. The status is WR_FLUSH_ERR, except
// for the SQ's first when sq_err_pending names the failing WQE: it completes with the
// status of err_syndrome. sq_issued never falls behind sq_ci (a flushed WQE was never
// issued: it counts as issued and completed), so a drained SQ has
// sq_ci == sq_issued == sq_pi.
// Any other state owes nothing: a step changes nothing (a QP reset or destroyed while
// its flush was under way).
module qpm_flush_exec (
  input  logic [qpm_pkg::QpnW-1:0] qpn_i,
  input  logic                     exists_i,   // QPN below the limit, page mapped, valid
  input  logic                     mem_err_i,  // the QPC could not be read
  input  logic                     ev_ok_i,    // room for an EQE was reserved
  input  logic                     cqe_ok_i,   // room for a CQE was reserved
  input  logic                     fatal_only_i, // events only of a QP with a fatal-class
                                               // one pending (the fatal engine's steps)
  input  qpm_pkg::qpc_t            qpc_i,
  output qpm_pkg::qpc_t            qpc_o,
  output logic                     write_o,
  output logic                     cqe_valid_o,
  output qpm_pkg::cqe_t            cqe_o,
  output logic                     more_o,     // completions still owed after this step,
                                               // or the QPC could not be read
  output logic                     event_valid_o,
  output qpm_pkg::eqe_t            event_o,
  output logic                     ev_more_o   // events still pending after this step, or
                                               // the QPC could not be read
);

  // ---- events
  logic       ev_any, ev_step;
  logic [4:0] ev_pend, ev_sel;
  assign ev_pend = (exists_i && !mem_err_i) ? qpc_i.ev_pending : 5'b0;
  assign ev_any  = fatal_only_i ? (ev_pend & qpm_event_pkg::EvFatalClass) != '0 : ev_pend != '0;
  assign ev_step = ev_ok_i && ev_any;
  assign ev_sel  = ev_pend & (~ev_pend + 5'd1);   // the lowest set bit
  always_comb begin
    event_o         = '0;
    event_o.is_port = 1'b0;
    event_o.qpn     = qpn_i;
    unique case (ev_sel)
      5'b00001: event_o.event_type = qpm_event_pkg::EvCommEst;
      5'b00010: event_o.event_type = qpm_event_pkg::EvSqDrained;
      5'b00100: event_o.event_type = qpm_event_pkg::EvQpReqErr;
      5'b01000: event_o.event_type = qpm_event_pkg::EvQpAccessErr;
      default:  event_o.event_type = qpm_event_pkg::EvQpFatal;
    endcase
    if (ev_sel[qpm_event_pkg::EvBitReqErr] || ev_sel[qpm_event_pkg::EvBitAccessErr]) begin
      event_o.syndrome = qpc_i.err_syndrome;
    end else if (ev_sel[qpm_event_pkg::EvBitFatal]) begin
      event_o.syndrome = qpc_i.ev_fatal_port  ? qpm_event_pkg::SynPortFault
                       : qpc_i.ev_fatal_write ? qpm_event_pkg::SynWbFatal : qpm_event_pkg::SynMemFatal;
    end
  end
  assign event_valid_o = ev_step;
  logic [4:0] ev_left;
  assign ev_left   = (ev_step ? ev_pend & ~ev_sel : ev_pend)
                   & (fatal_only_i ? qpm_event_pkg::EvFatalClass : 5'b11111);
  assign ev_more_o = mem_err_i || ev_left != '0;

  logic st_err, st_sqe;
  assign st_err = exists_i && !mem_err_i && qpc_i.state == qpm_pkg::StErr;
  assign st_sqe = exists_i && !mem_err_i && qpc_i.state == qpm_pkg::StSqe;

  logic [15:0] sq_end, sq_ci_next, rq_ci_next;
  assign sq_end     = st_err ? qpc_i.sq_pi : qpc_i.sq_issued;
  assign sq_ci_next = qpc_i.sq_ci + 16'd1;
  assign rq_ci_next = qpc_i.rq_ci + 16'd1;

  logic owe_sq, owe_rq, step_sq, step_rq;
  assign owe_sq  = (st_err || st_sqe) && qpc_i.sq_ci != sq_end;
  assign owe_rq  = st_err && qpc_i.rq_ci != qpc_i.rq_pi;
  assign step_sq = cqe_ok_i && owe_sq;
  assign step_rq = cqe_ok_i && owe_rq && !owe_sq;

  // The failing WQE's status (enum ibv_wc_status) from the cause hardware recorded.
  logic [7:0] fail_status;
  always_comb begin
    unique case (qpc_i.err_syndrome)
      qpm_event_pkg::SynRetryExc:    fail_status = qpm_event_pkg::WcRetryExcErr;
      qpm_event_pkg::SynRnrRetryExc: fail_status = qpm_event_pkg::WcRnrRetryExcErr;
      qpm_event_pkg::SynRemAccess:   fail_status = qpm_event_pkg::WcRemAccessErr;
      qpm_event_pkg::SynRemInvReq:   fail_status = qpm_event_pkg::WcRemInvReqErr;
      qpm_event_pkg::SynRemOp:       fail_status = qpm_event_pkg::WcRemOpErr;
      qpm_event_pkg::SynLocQpOp:     fail_status = qpm_event_pkg::WcLocQpOpErr;
      default:                 fail_status = qpm_event_pkg::WcWrFlushErr;
    endcase
  end

  always_comb begin
    cqe_o           = '0;
    cqe_o.qpn       = qpn_i;
    cqe_o.rq        = step_rq;
    cqe_o.cqn       = step_rq ? qpc_i.cqn_rcv : qpc_i.cqn_snd;
    cqe_o.wqe_index = step_rq ? qpc_i.rq_ci : qpc_i.sq_ci;
    cqe_o.status    = (step_sq && qpc_i.sq_err_pending) ? fail_status : qpm_event_pkg::WcWrFlushErr;
  end
  assign cqe_valid_o = step_sq || step_rq;
  assign write_o     = step_sq || step_rq || ev_step;

  always_comb begin
    qpc_o = qpc_i;
    if (ev_step) begin
      qpc_o.ev_pending = qpc_i.ev_pending & ~ev_sel;
      if (ev_sel[qpm_event_pkg::EvBitFatal]) begin
        qpc_o.ev_fatal_port  = 1'b0;
        qpc_o.ev_fatal_write = 1'b0;
      end
    end
    if (step_sq) begin
      qpc_o.sq_ci          = sq_ci_next;
      qpc_o.sq_err_pending = 1'b0;
      if (qpc_i.sq_issued == qpc_i.sq_ci) qpc_o.sq_issued = sq_ci_next;
    end
    if (step_rq) qpc_o.rq_ci = rq_ci_next;
  end

  // After the step: the SQ still owes if its next index is not the end; the RQ if it
  // owed and was not the queue stepped, or its next index is not rq_pi.
  // A step without room for a CQE leaves everything owed.
  assign more_o = mem_err_i
               || (!cqe_ok_i && (owe_sq || owe_rq))
               || (step_sq && (sq_ci_next != sq_end || owe_rq))
               || (step_rq && rq_ci_next != qpc_i.rq_pi);

endmodule
