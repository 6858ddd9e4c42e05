// qpm_dp_exec: the compute stage of the datapath's read-modify-write pipeline.
//
// Pure combinational, a function of (request, QPC before): the verdict of one datapath
// operation (SPEC.md §6), the QPC it leaves behind and the event it raises (§5, §8).
// docs/datapath.md fixes the encodings, the drop reasons and their order, the syndrome
// codes and events, and every decision where §6 is silent.
//
// Structure, for one pipeline stage: every comparison and every candidate value (each
// with its own adder) is computed in parallel from the inputs; a short priority chain
// per operation (the order of §6: the first check that fires wins) picks the verdict and
// a set of effects, one-hot operation gates select among the chains, the three checks
// with a carry chain select last, and the effects pick each field's candidate at the end
// (see "The verdict" below). Yosys 0.23 generic synthesis: about 1,950 cells, 20 levels.
//
// Decisions where SPEC §6 and docs/datapath.md are silent (the golden model agrees):
// mem_err_i overrides exists_i (when the QPC could not be read, whether the QP exists is
// not known either); an opcode outside DpRxReq..DpDmaEnd is a DROP OPCODE; a QPC type
// other than UC or UD (only a backdoor writes one) is treated as RC; the read/atomic
// limits are reached at ">=" (see dest_full).
module qpm_dp_exec (
  input  qpm_pkg::dp_req_t req_i,
  input  logic             exists_i,       // QPN below the limit, page mapped, QPC valid
  input  logic             mem_err_i,      // the QPC could not be read: DROP MEM_ERR
  input  qpm_pkg::qpc_t    qpc_i,          // the QPC before the operation
  output qpm_pkg::dp_rsp_t rsp_o,
  output qpm_pkg::qpc_t    qpc_o,          // the QPC after the operation
  output logic             write_o,        // qpc_o differs from qpc_i (or may)
  output logic             event_valid_o,
  output qpm_pkg::eqe_t    event_o
);

  // ---------------------------------------------------------------------------------
  // Decode: operation, type, state, class, position
  // ---------------------------------------------------------------------------------
  // CREATE_QP admits only RC, UC and UD; any other type value (a backdoor write) is
  // treated as RC, as the golden model does.
  logic is_rc, is_uc, is_ud;
  assign is_uc = qpc_i.qp_type == qpm_pkg::TypeUc;
  assign is_ud = qpc_i.qp_type == qpm_pkg::TypeUd;
  assign is_rc = !is_uc && !is_ud;

  logic st_rtr, st_rts, st_sqd, st_sqe;
  assign st_rtr = qpc_i.state == qpm_pkg::StRtr;
  assign st_rts = qpc_i.state == qpm_pkg::StRts;
  assign st_sqd = qpc_i.state == qpm_pkg::StSqd;
  assign st_sqe = qpc_i.state == qpm_pkg::StSqe;

  logic rx_state_ok;   // RX_REQ: RTR, RTS, SQD or SQE
  logic req_state_ok;  // RC requester operations: RTS or SQD
  assign rx_state_ok  = st_rtr | st_rts | st_sqd | st_sqe;
  assign req_state_ok = st_rts | st_sqd;

  logic cls_send, cls_write, cls_read, cls_atomic, cls_rd_at;
  assign cls_send   = req_i.cls == qpm_pkg::ClsSend;
  assign cls_write  = req_i.cls == qpm_pkg::ClsWrite;
  assign cls_read   = req_i.cls == qpm_pkg::ClsRead;
  assign cls_atomic = req_i.cls == qpm_pkg::ClsAtomic;
  assign cls_rd_at  = cls_read | cls_atomic;

  logic pos_first, pos_middle, pos_last, pos_only;
  assign pos_first  = req_i.pos == qpm_pkg::PosFirst;
  assign pos_middle = req_i.pos == qpm_pkg::PosMiddle;
  assign pos_last   = req_i.pos == qpm_pkg::PosLast;
  assign pos_only   = req_i.pos == qpm_pkg::PosOnly;

  // ---------------------------------------------------------------------------------
  // Comparisons, all in parallel
  // ---------------------------------------------------------------------------------
  // PSNs modulo 2^24: ahead when (psn - expected) mod 2^24 is in [1, 2^23).
  logic [23:0] psn_diff;
  logic        psn_eq, psn_ahead;
  assign psn_diff  = req_i.psn - qpc_i.expected_psn;
  assign psn_eq    = req_i.psn == qpc_i.expected_psn;
  assign psn_ahead = !psn_eq && !psn_diff[23];
  logic unused_psn_diff;  // only the half of the circle matters
  assign unused_psn_diff = ^psn_diff[22:0];

  // The position out of sequence: MIDDLE/LAST without an open message of the same class,
  // FIRST/ONLY while one is open (§6 RX_REQ steps 3 and 4).
  logic seq_err;
  assign seq_err = ((pos_middle | pos_last)
                    && !(qpc_i.rx_msg_open && (qpc_i.rx_msg_class == req_i.cls)))
                || ((pos_first | pos_only) && qpc_i.rx_msg_open);

  // The access flag the class needs (SEND needs none): REMOTE_WRITE bit 1, REMOTE_READ
  // bit 2, REMOTE_ATOMIC bit 3.
  logic access_missing;
  assign access_missing = (cls_write  && !qpc_i.access_flags[1])
                       || (cls_read   && !qpc_i.access_flags[2])
                       || (cls_atomic && !qpc_i.access_flags[3]);

  logic rq_empty, sq_empty, nothing_out;
  assign rq_empty    = qpc_i.rq_ci == qpc_i.rq_pi;          // no receive WQE posted
  assign sq_empty    = qpc_i.sq_issued == qpc_i.sq_pi;      // nothing posted beyond issued
  assign nothing_out = qpc_i.sq_ci == qpc_i.sq_issued;      // nothing outstanding

  logic send_needs_wqe;  // a SEND FIRST/ONLY opens a receive WQE
  assign send_needs_wqe = cls_send && (pos_first | pos_only);

  // The read/atomic counters at their limits. §6 says "==", which is the whole story
  // while a limit stays put; an SQD->SQD modify may lower a limit below its count, and
  // the count stays bounded by the limit (§3.1) only with ">=".
  logic dest_full, rd_full;
  assign dest_full = qpc_i.dest_rd_atomic_inflight >= qpc_i.max_dest_rd_atomic;
  assign rd_full   = qpc_i.rd_atomic_outstanding >= qpc_i.max_rd_atomic;

  // RX_ACK: wqes > sq_issued - sq_ci (the 16-bit difference), reads >
  // rd_atomic_outstanding. One three-operand sum instead of a subtraction feeding a
  // compare (one carry chain, not two): with d = (sq_issued - sq_ci) mod 2^16 and
  // wrap = sq_issued < sq_ci (d = sq_issued - sq_ci + 2^16 * wrap),
  // v = sq_ci + wqes - sq_issued - 1 = sq_ci + wqes + ~sq_issued (18 bits, two's
  // complement, in [-2^16, 2^17)), and wqes > d  <=>  v >= 2^16 * wrap.
  logic [17:0] ack_v;
  logic        sq_wrap, wqes_err, ack_count_err;
  assign ack_v    = {2'b00, qpc_i.sq_ci} + {2'b00, req_i.wqes} + {2'b11, ~qpc_i.sq_issued};
  assign sq_wrap  = qpc_i.sq_issued < qpc_i.sq_ci;
  assign wqes_err = !ack_v[17] && (!sq_wrap || ack_v[16]);
  assign ack_count_err = wqes_err || (req_i.reads > {3'b0, qpc_i.rd_atomic_outstanding});
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

  logic ack_drains;
  assign ack_drains = sum_equals(qpc_i.sq_ci, req_i.wqes, qpc_i.sq_issued)
                   && (req_i.wqes != '0);

  logic epoch_eq;
  assign epoch_eq = req_i.epoch == qpc_i.epoch;

  logic qkey_eq;
  assign qkey_eq = req_i.qkey == qpc_i.qkey;

  // ---------------------------------------------------------------------------------
  // Candidate values, all in parallel
  // ---------------------------------------------------------------------------------
  logic [23:0] expected_inc, resync_psn, send_psn_next;
  assign expected_inc  = qpc_i.expected_psn + 24'd1;
  assign resync_psn    = req_i.psn + 24'd1;
  assign send_psn_next = qpc_i.next_send_psn + req_i.npkts;

  logic [15:0] rq_ci_inc, sq_ci_inc, sq_ci_ack, sq_issued_inc;
  assign rq_ci_inc     = qpc_i.rq_ci + 16'd1;
  assign sq_ci_inc     = qpc_i.sq_ci + 16'd1;
  assign sq_ci_ack     = qpc_i.sq_ci + req_i.wqes;
  assign sq_issued_inc = qpc_i.sq_issued + 16'd1;

  logic [4:0] dest_inc, dest_dec, rd_inc, rd_ack;
  assign dest_inc = qpc_i.dest_rd_atomic_inflight + 5'd1;
  assign dest_dec = qpc_i.dest_rd_atomic_inflight - 5'd1;
  assign rd_inc   = qpc_i.rd_atomic_outstanding + 5'd1;
  assign rd_ack   = qpc_i.rd_atomic_outstanding - req_i.reads[4:0];  // reads <= outstanding

  logic [2:0] retry_dec, rnr_dec;
  assign retry_dec = qpc_i.cur_retry_cnt - 3'd1;
  // cur_rnr_retry never decrements when rnr_retry is 7 (retry forever: a counter loaded
  // with 7 never reaches zero).
  assign rnr_dec   = (qpc_i.rnr_retry == 3'd7) ? qpc_i.cur_rnr_retry
                                               : qpc_i.cur_rnr_retry - 3'd1;

  logic [7:0] dma_inc, dma_dec;
  assign dma_inc = qpc_i.dma_inflight + 8'd1;
  assign dma_dec = qpc_i.dma_inflight - 8'd1;

  logic [7:0] rx_nak_syn;  // RX_NAK code 3 is treated as OPERATION
  always_comb begin
    unique case (req_i.code)
      qpm_pkg::NakAccess:  rx_nak_syn = qpm_pkg::SynRemAccess;
      qpm_pkg::NakInvalid: rx_nak_syn = qpm_pkg::SynRemInvReq;
      default:             rx_nak_syn = qpm_pkg::SynRemOp;
    endcase
  end

  // ---------------------------------------------------------------------------------
  // The verdict: the checks of §6 in order; the first that fires wins.
  //
  // Shape, for depth: every check above is an equality, a decode or a narrow compare (a
  // few levels). The operations (and RX_REQ's types) are disjoint groups, each with a
  // short priority chain of its own; one-hot group gates select among them
  // (unique case: an AND-OR, not another chain). Three checks need a carry chain:
  // RX_REQ's PSN window (not the expected PSN; ahead or behind) and RX_ACK's counts.
  // They select last (a Shannon split): the groups assume the PSN is the expected one
  // and the counts are within what is outstanding, and psn_miss / ack_count override
  // the group's verdict, each gated by every check that comes before it in §6's order.
  // ---------------------------------------------------------------------------------
  // A verdict's effects (the verdict and drop reason are beside it: Yosys 0.23 takes no
  // package enum type inside a module's struct). The fields and the event are selected
  // from these below.
  typedef struct packed {
    logic       write;       // some effect below is set: qpc_o is to be written
    logic       rx_accept;   // RX_REQ ACCEPT on UC/RC: expected++, message open/close
    logic       rq_consume;  // rq_ci++
    logic       comm_est;    // comm_est_seen = 1 (with the COMM_EST event)
    logic       resync;      // UC PSN drop: expected = psn + 1, rx_msg_open = 0
    logic       dest_inc;    // dest_rd_atomic_inflight++
    logic       dest_dec;    // dest_rd_atomic_inflight--
    logic       issue;       // next_send_psn += npkts, sq_issued++
    logic       rd_inc;      // rd_atomic_outstanding++
    logic       sq_ci_inc;   // UC/UD WQE completes at issue
    logic       ack;         // sq_ci += wqes, rd_atomic_outstanding -= reads, reload
    logic       retry_dec;   // cur_retry_cnt--
    logic       rnr_dec;     // cur_rnr_retry-- (unless rnr_retry is 7)
    logic       dma_inc;
    logic       dma_dec;
    logic       to_err;      // state = ERR, err_syndrome = fail_syn
    logic       to_sqe;      // state = SQE, err_syndrome = fail_syn
    logic [7:0] fail_syn;
    logic       ev_valid;    // the event raised, if any
    logic [4:0] ev_type;
    logic [7:0] ev_syn;
  } dp_res_t;

  logic known;  // the QPC was read and the QP exists
  assign known = exists_i && !mem_err_i;

  logic op_rx, op_resp, op_tx, op_ack, op_req_fault, op_dma;
  assign op_rx        = req_i.op == qpm_pkg::DpRxReq;
  assign op_resp      = req_i.op == qpm_pkg::DpRxRespDone;
  assign op_tx        = req_i.op == qpm_pkg::DpTxWqe;
  assign op_ack       = req_i.op == qpm_pkg::DpRxAck;
  assign op_req_fault = (req_i.op == qpm_pkg::DpTimeout) || (req_i.op == qpm_pkg::DpRnrNak)
                     || (req_i.op == qpm_pkg::DpRxNak);
  assign op_dma       = (req_i.op == qpm_pkg::DpDmaBegin) || (req_i.op == qpm_pkg::DpDmaEnd);

  // ----- RX_REQ 2 (UD): opcode, Q_Key, receive WQE; no PSN check -----------------------
  qpm_pkg::dp_verdict_e ud_verdict;
  qpm_pkg::dp_drop_e    ud_drop;
  dp_res_t              ud_res;
  always_comb begin
    ud_verdict = qpm_pkg::VDrop;
    ud_res     = '0;
    if (!(cls_send && pos_only)) begin
      ud_drop = qpm_pkg::DropOpcode;
    end else if (!qkey_eq) begin
      ud_drop = qpm_pkg::DropQkey;
    end else if (rq_empty) begin
      ud_drop = qpm_pkg::DropNoWqe;
    end else begin
      ud_verdict        = qpm_pkg::VAccept;
      ud_drop           = qpm_pkg::DropNone;
      ud_res.write      = 1'b1;
      ud_res.rq_consume = 1'b1;
    end
  end

  // RX_REQ 5: what an ACCEPT on UC or RC does besides the message tracking (done on
  // rx_accept below). The first ACCEPT in RTR raises COMM_EST (once per incarnation).
  dp_res_t rx_accept_res;
  always_comb begin
    rx_accept_res            = '0;
    rx_accept_res.write      = 1'b1;
    rx_accept_res.rx_accept  = 1'b1;
    rx_accept_res.rq_consume = cls_send && (pos_last | pos_only);  // SEND LAST/ONLY
    rx_accept_res.dest_inc   = cls_rd_at;                          // READ/ATOMIC (RC)
    if (st_rtr && !qpc_i.comm_est_seen) begin
      rx_accept_res.comm_est = 1'b1;
      rx_accept_res.ev_valid = 1'b1;
      rx_accept_res.ev_type  = qpm_pkg::EvCommEst;
    end
  end

  // ----- RX_REQ 3 (UC): opcode, [PSN: psn_miss], sequence, access, receive WQE ---------
  qpm_pkg::dp_verdict_e uc_verdict;
  qpm_pkg::dp_drop_e    uc_drop;
  dp_res_t              uc_res;
  always_comb begin
    uc_verdict = qpm_pkg::VDrop;
    uc_res     = '0;
    if (cls_rd_at) begin
      uc_drop = qpm_pkg::DropOpcode;
    end else if (seq_err) begin
      uc_drop = qpm_pkg::DropSeq;
    end else if (access_missing) begin  // only a WRITE gets here
      uc_drop = qpm_pkg::DropAccess;
    end else if (send_needs_wqe && rq_empty) begin
      uc_drop = qpm_pkg::DropNoWqe;
    end else begin
      uc_verdict = qpm_pkg::VAccept;  // RX_REQ 5
      uc_drop    = qpm_pkg::DropNone;
      uc_res     = rx_accept_res;
    end
  end

  // ----- RX_REQ 4 (RC): [PSN ahead NAK_SEQ, behind DUPLICATE: psn_miss]; then, for the
  // expected PSN: sequence, access, responder resources, receive WQE --------------------
  qpm_pkg::dp_verdict_e rc_verdict;
  dp_res_t              rc_res;
  always_comb begin
    rc_res = '0;
    if (seq_err || (cls_rd_at && !pos_only)) begin
      rc_verdict      = qpm_pkg::VNakInvalid;
      rc_res.write    = 1'b1;
      rc_res.to_err   = 1'b1;
      rc_res.fail_syn = qpm_pkg::SynNakInvalid;
      rc_res.ev_valid = 1'b1;
      rc_res.ev_type  = qpm_pkg::EvQpReqErr;
      rc_res.ev_syn   = qpm_pkg::SynNakInvalid;
    end else if (access_missing) begin
      rc_verdict      = qpm_pkg::VNakAccess;
      rc_res.write    = 1'b1;
      rc_res.to_err   = 1'b1;
      rc_res.fail_syn = qpm_pkg::SynNakAccess;
      rc_res.ev_valid = 1'b1;
      rc_res.ev_type  = qpm_pkg::EvQpAccessErr;
      rc_res.ev_syn   = qpm_pkg::SynNakAccess;
    end else if (cls_rd_at && dest_full) begin
      rc_verdict      = qpm_pkg::VNakInvalid;
      rc_res.write    = 1'b1;
      rc_res.to_err   = 1'b1;
      rc_res.fail_syn = qpm_pkg::SynNakInvalid;
      rc_res.ev_valid = 1'b1;
      rc_res.ev_type  = qpm_pkg::EvQpReqErr;
      rc_res.ev_syn   = qpm_pkg::SynNakInvalid;
    end else if (send_needs_wqe && rq_empty) begin
      rc_verdict = qpm_pkg::VRnr;  // nothing changes
    end else begin
      rc_verdict = qpm_pkg::VAccept;  // RX_REQ 5
      rc_res     = rx_accept_res;
    end
  end

  // ----- RX_RESP_DONE: nothing in flight, else ACCEPT and one fewer ---------------------
  qpm_pkg::dp_verdict_e resp_verdict;
  qpm_pkg::dp_drop_e    resp_drop;
  dp_res_t              resp_res;
  always_comb begin
    resp_res = '0;
    if (qpc_i.dest_rd_atomic_inflight == '0) begin
      resp_verdict = qpm_pkg::VDrop;
      resp_drop    = qpm_pkg::DropCount;
    end else begin
      resp_verdict      = qpm_pkg::VAccept;
      resp_drop         = qpm_pkg::DropNone;
      resp_res.write    = 1'b1;
      resp_res.dest_dec = 1'b1;
    end
  end

  // ----- TX_WQE ---------------------------------------------------------------------
  qpm_pkg::dp_verdict_e tx_verdict;
  qpm_pkg::dp_drop_e    tx_drop;
  dp_res_t              tx_res;
  always_comb begin
    tx_drop = qpm_pkg::DropNone;
    tx_res  = '0;
    if (!st_rts) begin
      // TX_WQE 1: state not RTS.
      tx_verdict = qpm_pkg::VDrop;
      tx_drop    = qpm_pkg::DropState;
    end else if (sq_empty) begin
      // TX_WQE 2: nothing posted beyond what was started.
      tx_verdict = qpm_pkg::VEmpty;
    end else if (!is_rc && cls_rd_at) begin
      // TX_WQE 3: UC/UD READ or ATOMIC: the QP goes to SQE.
      tx_verdict      = qpm_pkg::VLocalErr;
      tx_res.write    = 1'b1;
      tx_res.to_sqe   = 1'b1;
      tx_res.fail_syn = qpm_pkg::SynLocQpOp;
    end else if (is_rc && cls_rd_at && rd_full) begin
      // TX_WQE 4: initiator depth reached; nothing changes.
      tx_verdict = qpm_pkg::VStall;
    end else begin
      // TX_WQE 5: ISSUE.
      tx_verdict       = qpm_pkg::VIssue;
      tx_res.write     = 1'b1;
      tx_res.issue     = 1'b1;
      tx_res.rd_inc    = is_rc && cls_rd_at;
      tx_res.sq_ci_inc = !is_rc;
    end
  end

  // ----- RX_ACK: TYPE, STATE, [COUNT: ack_count] ------------------------------------
  qpm_pkg::dp_verdict_e ack_verdict;
  qpm_pkg::dp_drop_e    ack_drop;
  dp_res_t              ack_res;
  always_comb begin
    ack_res = '0;
    if (!is_rc) begin
      ack_verdict = qpm_pkg::VDrop;
      ack_drop    = qpm_pkg::DropType;
    end else if (!req_state_ok) begin
      ack_verdict = qpm_pkg::VDrop;
      ack_drop    = qpm_pkg::DropState;
    end else begin
      ack_verdict   = qpm_pkg::VAccept;
      ack_drop      = qpm_pkg::DropNone;
      ack_res.write = 1'b1;
      ack_res.ack   = 1'b1;
      // SQ_DRAINED: the ACK brings sq_ci up to sq_issued in SQD, notification on.
      if (st_sqd && qpc_i.en_sqd_async_notify && ack_drains) begin
        ack_res.ev_valid = 1'b1;
        ack_res.ev_type  = qpm_pkg::EvSqDrained;
      end
    end
  end

  // ----- TIMEOUT, RNR_NAK, RX_NAK: TYPE, STATE, COUNT (nothing outstanding) -----------
  qpm_pkg::dp_verdict_e fault_verdict;
  qpm_pkg::dp_drop_e    fault_drop;
  dp_res_t              fault_res;
  always_comb begin
    fault_verdict = qpm_pkg::VDrop;
    fault_drop    = qpm_pkg::DropNone;
    fault_res     = '0;
    if (!is_rc) begin
      fault_drop = qpm_pkg::DropType;
    end else if (!req_state_ok) begin
      fault_drop = qpm_pkg::DropState;
    end else if (nothing_out) begin
      fault_drop = qpm_pkg::DropCount;
    end else if (req_i.op == qpm_pkg::DpRxNak) begin
      // RX_NAK: always FATAL.
      fault_verdict      = qpm_pkg::VFatal;
      fault_res.write    = 1'b1;
      fault_res.to_err   = 1'b1;
      fault_res.fail_syn = rx_nak_syn;
    end else if ((req_i.op == qpm_pkg::DpTimeout) && (qpc_i.cur_retry_cnt != '0)) begin
      // TIMEOUT: RETRY while cur_retry_cnt is non-zero...
      fault_verdict       = qpm_pkg::VRetry;
      fault_res.write     = 1'b1;
      fault_res.retry_dec = 1'b1;
    end else if ((req_i.op != qpm_pkg::DpTimeout) && (qpc_i.cur_rnr_retry != '0)) begin
      // RNR_NAK: RETRY while cur_rnr_retry is non-zero (zero is FATAL as §6 says, even
      // with rnr_retry 7, which only a backdoor QPC combines with a zero counter)...
      fault_verdict     = qpm_pkg::VRetry;
      fault_res.write   = 1'b1;
      fault_res.rnr_dec = 1'b1;
    end else begin
      // ... else FATAL.
      fault_verdict      = qpm_pkg::VFatal;
      fault_res.write    = 1'b1;
      fault_res.to_err   = 1'b1;
      fault_res.fail_syn = (req_i.op == qpm_pkg::DpTimeout) ? qpm_pkg::SynRetryExc
                                                            : qpm_pkg::SynRnrRetryExc;
    end
  end

  // ----- DMA_BEGIN / DMA_END: STALE, COUNT (the 8-bit counter never wraps) -----------
  logic dma_at_bound;  // DMA_BEGIN at 255, DMA_END at 0
  assign dma_at_bound = (req_i.op == qpm_pkg::DpDmaBegin) ? (qpc_i.dma_inflight == 8'hff)
                                                          : (qpc_i.dma_inflight == 8'h00);
  qpm_pkg::dp_verdict_e dma_verdict;
  qpm_pkg::dp_drop_e    dma_drop;
  dp_res_t              dma_res;
  always_comb begin
    dma_res = '0;
    if (!epoch_eq) begin
      dma_verdict = qpm_pkg::VDrop;
      dma_drop    = qpm_pkg::DropStale;
    end else if (dma_at_bound) begin
      dma_verdict = qpm_pkg::VDrop;
      dma_drop    = qpm_pkg::DropCount;
    end else begin
      dma_verdict     = qpm_pkg::VAccept;
      dma_drop        = qpm_pkg::DropNone;
      dma_res.write   = 1'b1;
      dma_res.dma_inc = req_i.op == qpm_pkg::DpDmaBegin;
      dma_res.dma_dec = req_i.op == qpm_pkg::DpDmaEnd;
    end
  end

  // ----- The groups, selected by one-hot gates ----------------------------------------
  qpm_pkg::dp_verdict_e early_verdict;
  qpm_pkg::dp_drop_e    early_drop;
  dp_res_t              early;
  always_comb begin
    early_verdict = qpm_pkg::VDrop;
    early_drop    = qpm_pkg::DropNone;
    early         = '0;
    unique case (1'b1)
      mem_err_i: begin
        // The QPC could not be read: nothing is known, nothing changes.
        early_drop = qpm_pkg::DropMemErr;
      end
      !mem_err_i && !exists_i: begin
        // Every operation's first check: no such QP.
        early_drop = qpm_pkg::DropNoQp;
      end
      known && op_rx && !rx_state_ok: begin
        // RX_REQ 1: state not RTR/RTS/SQD/SQE.
        early_drop = qpm_pkg::DropState;
      end
      known && op_rx && rx_state_ok && is_ud: begin
        early_verdict = ud_verdict;
        early_drop    = ud_drop;
        early         = ud_res;
      end
      known && op_rx && rx_state_ok && is_uc: begin
        early_verdict = uc_verdict;
        early_drop    = uc_drop;
        early         = uc_res;
      end
      known && op_rx && rx_state_ok && is_rc: begin
        early_verdict = rc_verdict;
        early         = rc_res;
      end
      known && op_resp: begin
        early_verdict = resp_verdict;
        early_drop    = resp_drop;
        early         = resp_res;
      end
      known && op_tx: begin
        early_verdict = tx_verdict;
        early_drop    = tx_drop;
        early         = tx_res;
      end
      known && op_ack: begin
        early_verdict = ack_verdict;
        early_drop    = ack_drop;
        early         = ack_res;
      end
      known && op_req_fault: begin
        early_verdict = fault_verdict;
        early_drop    = fault_drop;
        early         = fault_res;
      end
      known && op_dma: begin
        early_verdict = dma_verdict;
        early_drop    = dma_drop;
        early         = dma_res;
      end
      default: begin
        // An opcode outside DpRxReq..DpDmaEnd (the port never carries one).
        early_drop = qpm_pkg::DropOpcode;
      end
    endcase
  end

  // ----- The late checks --------------------------------------------------------------
  // RX_REQ on UC (step 3, after OPCODE) or RC (step 4, first): the PSN is not the
  // expected one.
  logic psn_miss;
  assign psn_miss = known && op_rx && rx_state_ok && !is_ud && !(is_uc && cls_rd_at)
                 && !psn_eq;

  // RX_ACK on RC in RTS/SQD (after TYPE and STATE): counts beyond what is outstanding.
  logic ack_count;
  assign ack_count = known && op_ack && is_rc && req_state_ok && ack_count_err;

  qpm_pkg::dp_verdict_e psn_miss_verdict;
  qpm_pkg::dp_drop_e    psn_miss_drop;
  dp_res_t              psn_miss_res;
  always_comb begin
    psn_miss_res = '0;
    if (is_uc) begin
      // UC: DROP, resynchronise (expected = psn + 1, rx_msg_open = 0).
      psn_miss_verdict    = qpm_pkg::VDrop;
      psn_miss_drop       = qpm_pkg::DropPsn;
      psn_miss_res.write  = 1'b1;
      psn_miss_res.resync = 1'b1;
    end else begin
      // RC: ahead NAK_SEQ, behind DUPLICATE; neither changes anything.
      psn_miss_verdict = psn_ahead ? qpm_pkg::VNakSeq : qpm_pkg::VDuplicate;
      psn_miss_drop    = qpm_pkg::DropNone;
    end
  end

  // The PSN override replaces the RX_REQ group's effects; the count override only takes
  // back RX_ACK's (the ACK, the write and SQ_DRAINED), at the fields themselves, so the
  // slowest compare passes one gate to the outputs.
  qpm_pkg::dp_verdict_e verdict;
  qpm_pkg::dp_drop_e    drop;
  dp_res_t              res;
  always_comb begin
    if (psn_miss) begin
      verdict = psn_miss_verdict;
      drop    = psn_miss_drop;
    end else if (ack_count) begin
      verdict = qpm_pkg::VDrop;  // DROP COUNT changes nothing
      drop    = qpm_pkg::DropCount;
    end else begin
      verdict = early_verdict;
      drop    = early_drop;
    end
  end
  assign res = psn_miss ? psn_miss_res : early;

  logic ack_ok;  // res.ack already implies RX_ACK on RC in RTS/SQD
  assign ack_ok = res.ack && !ack_count_err;

  // ---------------------------------------------------------------------------------
  // The QPC after: each field selects its candidate (one writer per field, or an
  // explicit if/else where two effects touch the same field; they never coincide).
  // ---------------------------------------------------------------------------------
  always_comb begin
    qpc_o = qpc_i;

    if (res.resync) begin
      qpc_o.expected_psn = resync_psn;
    end else if (res.rx_accept) begin
      qpc_o.expected_psn = expected_inc;
    end

    if (res.resync) begin
      qpc_o.rx_msg_open = 1'b0;
    end else if (res.rx_accept && pos_first) begin
      qpc_o.rx_msg_open  = 1'b1;
      qpc_o.rx_msg_class = req_i.cls;
    end else if (res.rx_accept && pos_last) begin
      qpc_o.rx_msg_open = 1'b0;
    end

    if (res.rq_consume) qpc_o.rq_ci = rq_ci_inc;
    if (res.comm_est)   qpc_o.comm_est_seen = 1'b1;

    if (res.dest_inc) begin
      qpc_o.dest_rd_atomic_inflight = dest_inc;
    end else if (res.dest_dec) begin
      qpc_o.dest_rd_atomic_inflight = dest_dec;
    end

    if (res.issue) begin
      qpc_o.next_send_psn = send_psn_next;
      qpc_o.sq_issued     = sq_issued_inc;
    end

    if (res.sq_ci_inc) begin
      qpc_o.sq_ci = sq_ci_inc;
    end else if (ack_ok) begin
      qpc_o.sq_ci = sq_ci_ack;
    end

    if (res.rd_inc) begin
      qpc_o.rd_atomic_outstanding = rd_inc;
    end else if (ack_ok) begin
      qpc_o.rd_atomic_outstanding = rd_ack;
    end

    if (res.retry_dec) begin
      qpc_o.cur_retry_cnt = retry_dec;
    end else if (ack_ok) begin
      qpc_o.cur_retry_cnt = qpc_i.retry_cnt;  // reloaded by every accepted RX_ACK
    end

    if (res.rnr_dec) begin
      qpc_o.cur_rnr_retry = rnr_dec;
    end else if (ack_ok) begin
      qpc_o.cur_rnr_retry = qpc_i.rnr_retry;
    end

    if (res.dma_inc) begin
      qpc_o.dma_inflight = dma_inc;
    end else if (res.dma_dec) begin
      qpc_o.dma_inflight = dma_dec;
    end

    // Hardware moves (no queue index changes: completing the failing WQE and flushing
    // the rest is the flush's job, SPEC §7).
    if (res.to_err) begin
      qpc_o.state        = qpm_pkg::StErr;
      qpc_o.err_syndrome = res.fail_syn;
    end else if (res.to_sqe) begin
      qpc_o.state        = qpm_pkg::StSqe;
      qpc_o.err_syndrome = res.fail_syn;
    end
  end

  assign write_o = res.write && !ack_count;

  // The event (at most one per operation).
  always_comb begin
    event_o            = '0;
    event_o.is_port    = 1'b0;
    event_o.qpn        = req_i.qpn;
    event_o.event_type = res.ev_type;
    event_o.syndrome   = res.ev_syn;
  end
  assign event_valid_o = res.ev_valid && !ack_count;

  // ---------------------------------------------------------------------------------
  // The response: the request's tag and QPN, the verdict, and what the engines need
  // from the QPC before the operation (all zero when the QP does not exist or could
  // not be read). psn: RX_REQ the expected PSN, every other operation next_send_psn.
  // ---------------------------------------------------------------------------------
  always_comb begin
    rsp_o         = '0;
    rsp_o.tag     = req_i.tag;
    rsp_o.qpn     = req_i.qpn;
    rsp_o.verdict = verdict;
    rsp_o.drop    = drop;
    if (known) begin
      rsp_o.psn           = (req_i.op == qpm_pkg::DpRxReq) ? qpc_i.expected_psn
                                                           : qpc_i.next_send_psn;
      rsp_o.qp_type       = qpc_i.qp_type;
      rsp_o.dest_qpn      = qpc_i.dest_qpn;
      rsp_o.av_dlid       = qpc_i.av_dlid;
      rsp_o.av_sl         = qpc_i.av_sl;
      rsp_o.av_sgid_index = qpc_i.av_sgid_index;
      rsp_o.epoch         = qpc_i.epoch;
    end
  end

endmodule
