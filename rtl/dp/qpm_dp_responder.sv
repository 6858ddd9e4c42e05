// qpm_dp_responder: the responder's datapath operations, RX_REQ and RX_RESP_DONE (SPEC.md
// §6, docs/datapath.md), for a QP that exists.
//
// Pure combinational, one of qpm_dp_exec's operation blocks: qpm_dp_exec checks that the
// QP exists, selects this block's outcome for its opcodes and applies its effects. The
// outcome of RX_REQ assumes the expected PSN. Its PSN check is a carry chain, so it is
// answered beside it (psn_miss_o, psn_miss_out_o) and qpm_dp_exec lets it override last.
module qpm_dp_responder (
  input  qpm_pkg::dp_req_t     req_i,           // RX_REQ or RX_RESP_DONE
  input  qpm_pkg::qpc_t        qpc_i,           // the QPC before the operation
  output qpm_pkg::dp_outcome_t out_o,           // RX_REQ: at the expected PSN
  output logic                 psn_miss_o,      // RX_REQ's PSN check fires (UC, RC)
  output qpm_pkg::dp_outcome_t psn_miss_out_o   // RX_REQ when it does
);

  // ---------------------------------------------------------------------------------
  // Decode and checks, all in parallel
  // ---------------------------------------------------------------------------------
  logic is_uc, is_ud, is_rc;
  assign is_uc = qpc_i.qp_type == qpm_pkg::TypeUc;
  assign is_ud = qpc_i.qp_type == qpm_pkg::TypeUd;
  assign is_rc = qpm_pkg::dp_is_rc(qpc_i.qp_type);

  logic st_rtr, rx_state_ok;  // RX_REQ: RTR, RTS, SQD or SQE
  assign st_rtr      = qpc_i.state == qpm_pkg::StRtr;
  assign rx_state_ok = st_rtr || (qpc_i.state == qpm_pkg::StRts)
                    || (qpc_i.state == qpm_pkg::StSqd) || (qpc_i.state == qpm_pkg::StSqe);

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

  logic rq_empty, send_needs_wqe;
  assign rq_empty       = qpc_i.rq_ci == qpc_i.rq_pi;        // no receive WQE posted
  assign send_needs_wqe = cls_send && (pos_first | pos_only);  // it opens a receive WQE

  // The responder's read/atomic counter at its limit. §6 says "==", which is the whole
  // story while the limit stays put; an SQD->SQD modify may lower the limit below the
  // count, and the count stays bounded by the limit (§3.1) only with ">=".
  logic dest_full;
  assign dest_full = qpc_i.dest_rd_atomic_inflight >= qpc_i.max_dest_rd_atomic;

  // ---------------------------------------------------------------------------------
  // RX_REQ: the checks of §6 in order, the first that fires wins; a chain per type
  // ---------------------------------------------------------------------------------
  qpm_pkg::dp_outcome_t ud, uc, rc, accept;

  // ----- 2 (UD): opcode, Q_Key, receive WQE; no PSN check ----------------------------
  always_comb begin
    ud         = '0;
    ud.verdict = qpm_pkg::VDrop;
    if      (!(cls_send && pos_only))       ud.drop = qpm_pkg::DropOpcode;
    else if (req_i.qkey != qpc_i.qkey)      ud.drop = qpm_pkg::DropQkey;
    else if (rq_empty)                      ud.drop = qpm_pkg::DropNoWqe;
    else begin
      ud.verdict       = qpm_pkg::VAccept;
      ud.fx.write      = 1'b1;
      ud.fx.rq_consume = 1'b1;
    end
  end

  // ----- 5: an ACCEPT on UC or RC ---------------------------------------------------
  logic comm_est;  // the first ACCEPT in RTR raises COMM_EST (once per incarnation)
  assign comm_est = st_rtr && !qpc_i.comm_est_seen;

  always_comb begin
    accept               = '0;
    accept.verdict       = qpm_pkg::VAccept;
    accept.fx.write      = 1'b1;
    accept.fx.rx_accept  = 1'b1;
    accept.fx.msg_open   = pos_first;
    accept.fx.msg_close  = pos_last;
    accept.fx.rq_consume = cls_send && (pos_last | pos_only);  // SEND LAST/ONLY
    accept.fx.dest_inc   = cls_rd_at;                          // READ/ATOMIC (RC)
    accept.fx.comm_est   = comm_est;
    accept.fx.ev_valid   = comm_est;
    accept.fx.ev_type    = comm_est ? qpm_event_pkg::EvCommEst : 5'd0;
  end

  // ----- 3 (UC): opcode, [PSN: psn_miss_o], sequence, access, receive WQE -------------
  always_comb begin
    uc         = '0;
    uc.verdict = qpm_pkg::VDrop;
    if      (cls_rd_at)                     uc.drop = qpm_pkg::DropOpcode;
    else if (seq_err)                       uc.drop = qpm_pkg::DropSeq;
    else if (access_missing)                uc.drop = qpm_pkg::DropAccess;  // a WRITE
    else if (send_needs_wqe && rq_empty)    uc.drop = qpm_pkg::DropNoWqe;
    else                                    uc = accept;
  end

  // ----- 4 (RC): [PSN ahead NAK_SEQ, behind DUPLICATE: psn_miss_o]; then, for the
  // expected PSN: sequence, access, responder resources, receive WQE. Both NAKs move
  // the QP to ERR and raise an event; they differ in the syndrome and the event type
  // (the event carries the syndrome: qpm_dp_exec takes it from fail_syn).
  logic rc_invalid_first, rc_nak_access, rc_nak_invalid;
  assign rc_invalid_first = seq_err || (cls_rd_at && !pos_only);
  assign rc_nak_access    = !rc_invalid_first && access_missing;
  assign rc_nak_invalid   = rc_invalid_first || (!access_missing && cls_rd_at && dest_full);

  always_comb begin
    rc = '0;
    if (rc_nak_access || rc_nak_invalid) begin
      rc.verdict     = rc_nak_access ? qpm_pkg::VNakAccess : qpm_pkg::VNakInvalid;
      rc.fx.write    = 1'b1;
      rc.fx.to_err   = 1'b1;
      rc.fx.fail_syn = rc_nak_access ? qpm_event_pkg::SynNakAccess : qpm_event_pkg::SynNakInvalid;
      rc.fx.ev_valid = 1'b1;
      rc.fx.ev_type  = rc_nak_access ? qpm_event_pkg::EvQpAccessErr : qpm_event_pkg::EvQpReqErr;
    end else if (send_needs_wqe && rq_empty) begin
      rc.verdict = qpm_pkg::VRnr;  // nothing changes
    end else begin
      rc = accept;
    end
  end

  // ----- The types (one-hot), after 1: the state --------------------------------------
  qpm_pkg::dp_outcome_t rx_req;
  always_comb begin
    rx_req = '0;
    unique case (1'b1)
      rx_state_ok && is_ud: rx_req = ud;
      rx_state_ok && is_uc: rx_req = uc;
      rx_state_ok && is_rc: rx_req = rc;
      default: begin
        // 1: state not RTR/RTS/SQD/SQE.
        rx_req.verdict = qpm_pkg::VDrop;
        rx_req.drop    = qpm_pkg::DropState;
      end
    endcase
  end

  // ----- The PSN check: UC (3, after OPCODE) or RC (4, first) -------------------------
  assign psn_miss_o = rx_state_ok && !is_ud && !(is_uc && cls_rd_at) && !psn_eq;

  always_comb begin
    psn_miss_out_o = '0;
    if (is_uc) begin
      // UC: DROP, resynchronise (expected = psn + 1, rx_msg_open = 0).
      psn_miss_out_o.verdict   = qpm_pkg::VDrop;
      psn_miss_out_o.drop      = qpm_pkg::DropPsn;
      psn_miss_out_o.fx.write  = 1'b1;
      psn_miss_out_o.fx.resync = 1'b1;
    end else begin
      // RC: ahead NAK_SEQ, behind DUPLICATE; neither changes anything.
      psn_miss_out_o.verdict = psn_ahead ? qpm_pkg::VNakSeq : qpm_pkg::VDuplicate;
    end
  end

  // ---------------------------------------------------------------------------------
  // RX_RESP_DONE: nothing in flight, else ACCEPT and one fewer
  // ---------------------------------------------------------------------------------
  qpm_pkg::dp_outcome_t rx_resp_done;
  always_comb begin
    rx_resp_done = '0;
    if (qpc_i.dest_rd_atomic_inflight == '0) begin
      rx_resp_done.verdict = qpm_pkg::VDrop;
      rx_resp_done.drop    = qpm_pkg::DropCount;
    end else begin
      rx_resp_done.verdict     = qpm_pkg::VAccept;
      rx_resp_done.fx.write    = 1'b1;
      rx_resp_done.fx.dest_dec = 1'b1;
    end
  end

  assign out_o = (req_i.op == qpm_pkg::DpRxRespDone) ? rx_resp_done : rx_req;

  // The request and the QPC come whole; this block reads the fields of its operations.
  logic unused_fields;
  assign unused_fields = ^{req_i, qpc_i};

endmodule
