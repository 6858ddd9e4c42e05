// qpm_dp_requester: the requester's datapath operations, TX_WQE, RX_ACK and the faults
// TIMEOUT, RNR_NAK and RX_NAK (SPEC.md §6, docs/datapath.md), for a QP that exists.
//
// Pure combinational, one of qpm_dp_exec's operation blocks: qpm_dp_exec checks that the
// QP exists, selects this block's outcome for its opcodes and applies its effects. The
// outcome of RX_ACK assumes counts within what is outstanding. That check is a carry
// chain, so it is answered beside it (ack_count_o) and qpm_dp_exec lets it override
// last; the ACK's effects stay set, and qpm_dp_exec takes them back at the fields.
module qpm_dp_requester (
  input  qpm_pkg::dp_req_t     req_i,        // TX_WQE, RX_ACK, TIMEOUT, RNR_NAK, RX_NAK
  input  qpm_pkg::qpc_t        qpc_i,        // the QPC before the operation
  output qpm_pkg::dp_outcome_t out_o,        // RX_ACK: counts within what is outstanding
  output logic                 ack_count_o   // RX_ACK's COUNT check fires
);

  // ---------------------------------------------------------------------------------
  // Decode and checks, all in parallel
  // ---------------------------------------------------------------------------------
  logic is_rc;
  assign is_rc = qpm_pkg::dp_is_rc(qpc_i.qp_type);

  logic st_rts, st_sqd, req_state_ok;  // RC requester operations: RTS or SQD
  assign st_rts       = qpc_i.state == qpm_pkg::StRts;
  assign st_sqd       = qpc_i.state == qpm_pkg::StSqd;
  assign req_state_ok = st_rts | st_sqd;

  logic cls_rd_at;  // READ or ATOMIC
  assign cls_rd_at = (req_i.cls == qpm_pkg::ClsRead) || (req_i.cls == qpm_pkg::ClsAtomic);

  logic sq_empty, nothing_out;
  assign sq_empty    = qpc_i.sq_issued == qpc_i.sq_pi;  // nothing posted beyond issued
  assign nothing_out = qpc_i.sq_ci == qpc_i.sq_issued;  // nothing outstanding

  // The initiator's read/atomic counter at its limit (">=", not §6's "==": see
  // qpm_dp_responder's dest_full).
  logic rd_full;
  assign rd_full = qpc_i.rd_atomic_outstanding >= qpc_i.max_rd_atomic;

  // RX_ACK: wqes > sq_issued - sq_ci (the 16-bit difference), reads >
  // rd_atomic_outstanding. One three-operand sum instead of a subtraction feeding a
  // compare (one carry chain, not two): with d = (sq_issued - sq_ci) mod 2^16 and
  // wrap = sq_issued < sq_ci (d = sq_issued - sq_ci + 2^16 * wrap),
  // v = sq_ci + wqes - sq_issued - 1 = sq_ci + wqes + ~sq_issued (18 bits, two's
  // complement, in [-2^16, 2^17)), and wqes > d  <=>  v >= 2^16 * wrap.
  logic [17:0] ack_v;
  logic        sq_wrap, wqes_err;
  assign ack_v    = {2'b00, qpc_i.sq_ci} + {2'b00, req_i.wqes} + {2'b11, ~qpc_i.sq_issued};
  assign sq_wrap  = qpc_i.sq_issued < qpc_i.sq_ci;
  assign wqes_err = !ack_v[17] && (!sq_wrap || ack_v[16]);
  logic unused_ack_v;
  assign unused_ack_v = ^ack_v[15:0];

  // The ACK that brings sq_ci up to sq_issued from below: sq_ci + wqes == sq_issued,
  // wqes non-zero (checked without a carry chain, beside the count check).
  function automatic logic sum_equals(logic [15:0] a, logic [15:0] b, logic [15:0] c);
    logic [15:0] need;  // the carry into each bit that a + b == c requires
    logic [14:0] made;  // the carry out of each bit, given that carry in
    need       = a ^ b ^ c;
    made       = (a[14:0] & b[14:0]) | (a[14:0] & need[14:0]) | (b[14:0] & need[14:0]);
    sum_equals = !need[0] && (need[15:1] == made[14:0]);
  endfunction

  logic ack_drains, sq_drained;
  assign ack_drains = sum_equals(qpc_i.sq_ci, req_i.wqes, qpc_i.sq_issued)
                   && (req_i.wqes != '0);
  // SQ_DRAINED: the ACK drains the SQ in SQD, notification on.
  assign sq_drained = st_sqd && qpc_i.en_sqd_async_notify && ack_drains;

  logic [7:0] rx_nak_syn;  // RX_NAK code 3 is treated as OPERATION
  always_comb begin
    unique case (req_i.code)
      qpm_pkg::NakAccess:  rx_nak_syn = qpm_event_pkg::SynRemAccess;
      qpm_pkg::NakInvalid: rx_nak_syn = qpm_event_pkg::SynRemInvReq;
      default:             rx_nak_syn = qpm_event_pkg::SynRemOp;
    endcase
  end

  // ---------------------------------------------------------------------------------
  // The operations: the checks of §6 in order, the first that fires wins
  // ---------------------------------------------------------------------------------
  qpm_pkg::dp_outcome_t tx_wqe, rx_ack, fault;

  // ----- TX_WQE ---------------------------------------------------------------------
  always_comb begin
    tx_wqe = '0;
    if (!st_rts) begin
      // 1: state not RTS.
      tx_wqe.verdict = qpm_pkg::VDrop;
      tx_wqe.drop    = qpm_pkg::DropState;
    end else if (sq_empty) begin
      // 2: nothing posted beyond what was started.
      tx_wqe.verdict = qpm_pkg::VEmpty;
    end else if (!is_rc && cls_rd_at) begin
      // 3: UC/UD READ or ATOMIC: the QP goes to SQE.
      tx_wqe.verdict     = qpm_pkg::VLocalErr;
      tx_wqe.fx.write    = 1'b1;
      tx_wqe.fx.to_sqe   = 1'b1;
      tx_wqe.fx.fail_syn = qpm_event_pkg::SynLocQpOp;
    end else if (is_rc && cls_rd_at && rd_full) begin
      // 4: initiator depth reached; nothing changes.
      tx_wqe.verdict = qpm_pkg::VStall;
    end else begin
      // 5: ISSUE.
      tx_wqe.verdict      = qpm_pkg::VIssue;
      tx_wqe.fx.write     = 1'b1;
      tx_wqe.fx.issue     = 1'b1;
      tx_wqe.fx.rd_inc    = is_rc && cls_rd_at;
      tx_wqe.fx.sq_ci_inc = !is_rc;
    end
  end

  // RX_ACK and the faults are RC operations of RTS and SQD: TYPE, then STATE, come first
  // for all four (in the selection at the end); their chains below start after them.
  // ----- RX_ACK: [COUNT: ack_count_o] --------------------------------------------------
  assign ack_count_o = is_rc && req_state_ok
                    && (wqes_err || (req_i.reads > {3'b0, qpc_i.rd_atomic_outstanding}));

  always_comb begin
    rx_ack             = '0;
    rx_ack.verdict     = qpm_pkg::VAccept;
    rx_ack.fx.write    = 1'b1;
    rx_ack.fx.ack      = 1'b1;
    rx_ack.fx.ev_type  = sq_drained ? qpm_event_pkg::EvSqDrained : 5'd0;
    rx_ack.fx.ev_valid = sq_drained;
  end

  // ----- TIMEOUT, RNR_NAK, RX_NAK: COUNT (nothing outstanding), then the verdict -------
  logic op_timeout;
  assign op_timeout = req_i.op == qpm_pkg::DpTimeout;

  always_comb begin
    fault = '0;
    if (nothing_out) begin
      fault.verdict = qpm_pkg::VDrop;
      fault.drop    = qpm_pkg::DropCount;
    end else if (req_i.op == qpm_pkg::DpRxNak) begin
      // RX_NAK: always FATAL.
      fault.verdict     = qpm_pkg::VFatal;
      fault.fx.write    = 1'b1;
      fault.fx.to_err   = 1'b1;
      fault.fx.fail_syn = rx_nak_syn;
    end else if (op_timeout && (qpc_i.cur_retry_cnt != '0)) begin
      // TIMEOUT: RETRY while cur_retry_cnt is non-zero...
      fault.verdict      = qpm_pkg::VRetry;
      fault.fx.write     = 1'b1;
      fault.fx.retry_dec = 1'b1;
    end else if (!op_timeout && (qpc_i.cur_rnr_retry != '0)) begin
      // RNR_NAK: RETRY while cur_rnr_retry is non-zero (zero is FATAL as §6 says, even
      // with rnr_retry 7, which only a backdoor QPC combines with a zero counter)...
      fault.verdict    = qpm_pkg::VRetry;
      fault.fx.write   = 1'b1;
      fault.fx.rnr_dec = 1'b1;
    end else begin
      // ... else FATAL.
      fault.verdict     = qpm_pkg::VFatal;
      fault.fx.write    = 1'b1;
      fault.fx.to_err   = 1'b1;
      fault.fx.fail_syn = op_timeout ? qpm_event_pkg::SynRetryExc : qpm_event_pkg::SynRnrRetryExc;
    end
  end

  // ----- The operations: TX_WQE; the others after TYPE and STATE ---------------------
  always_comb begin
    out_o         = '0;
    out_o.verdict = qpm_pkg::VDrop;
    if      (req_i.op == qpm_pkg::DpTxWqe) out_o = tx_wqe;
    else if (!is_rc)                       out_o.drop = qpm_pkg::DropType;
    else if (!req_state_ok)                out_o.drop = qpm_pkg::DropState;
    else if (req_i.op == qpm_pkg::DpRxAck) out_o = rx_ack;
    else                                   out_o = fault;  // TIMEOUT, RNR_NAK, RX_NAK
  end

  // The request and the QPC come whole; this block reads the fields of its operations.
  logic unused_fields;
  assign unused_fields = ^{req_i, qpc_i};

endmodule
