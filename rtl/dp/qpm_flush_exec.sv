// qpm_flush_exec: the compute of one flush step (SPEC.md §7, docs/errors.md).
//
// Pure combinational, a function of the QPC before the step. A QP owes completions
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
  input  qpm_pkg::qpc_t            qpc_i,
  output qpm_pkg::qpc_t            qpc_o,
  output logic                     write_o,
  output logic                     cqe_valid_o,
  output qpm_pkg::cqe_t            cqe_o,
  output logic                     more_o      // completions still owed after this step,
                                               // or the QPC could not be read
);

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
  assign step_sq = owe_sq;
  assign step_rq = owe_rq && !owe_sq;

  // The failing WQE's status (enum ibv_wc_status) from the cause hardware recorded.
  logic [7:0] fail_status;
  always_comb begin
    unique case (qpc_i.err_syndrome)
      qpm_pkg::SynRetryExc:    fail_status = qpm_pkg::WcRetryExcErr;
      qpm_pkg::SynRnrRetryExc: fail_status = qpm_pkg::WcRnrRetryExcErr;
      qpm_pkg::SynRemAccess:   fail_status = qpm_pkg::WcRemAccessErr;
      qpm_pkg::SynRemInvReq:   fail_status = qpm_pkg::WcRemInvReqErr;
      qpm_pkg::SynRemOp:       fail_status = qpm_pkg::WcRemOpErr;
      qpm_pkg::SynLocQpOp:     fail_status = qpm_pkg::WcLocQpOpErr;
      default:                 fail_status = qpm_pkg::WcWrFlushErr;
    endcase
  end

  always_comb begin
    cqe_o           = '0;
    cqe_o.qpn       = qpn_i;
    cqe_o.rq        = step_rq;
    cqe_o.cqn       = step_rq ? qpc_i.cqn_rcv : qpc_i.cqn_snd;
    cqe_o.wqe_index = step_rq ? qpc_i.rq_ci : qpc_i.sq_ci;
    cqe_o.status    = (step_sq && qpc_i.sq_err_pending) ? fail_status : qpm_pkg::WcWrFlushErr;
  end
  assign cqe_valid_o = step_sq || step_rq;
  assign write_o     = step_sq || step_rq;

  always_comb begin
    qpc_o = qpc_i;
    if (step_sq) begin
      qpc_o.sq_ci          = sq_ci_next;
      qpc_o.sq_err_pending = 1'b0;
      if (qpc_i.sq_issued == qpc_i.sq_ci) qpc_o.sq_issued = sq_ci_next;
    end
    if (step_rq) qpc_o.rq_ci = rq_ci_next;
  end

  // After the step: the SQ still owes if its next index is not the end; the RQ if it
  // owed and was not the queue stepped, or its next index is not rq_pi.
  assign more_o = mem_err_i
               || (step_sq && (sq_ci_next != sq_end || owe_rq))
               || (step_rq && rq_ci_next != qpc_i.rq_pi);

endmodule
