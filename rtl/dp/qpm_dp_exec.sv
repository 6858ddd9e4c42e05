// qpm_dp_exec: the compute stage of the datapath's read-modify-write pipeline.
//
// Pure combinational, a function of (request, QPC before): the verdict of one datapath
// operation (SPEC.md §6), the QPC it leaves behind and the event it raises (§5, §8).
// docs/datapath.md fixes the encodings, the drop reasons and their order, the syndrome
// codes and events, and every decision where §6 is silent.
//
// Structure, for one pipeline stage: the operation blocks compute, in parallel, each
// operation's outcome (verdict, drop reason, and the effects: one bit per candidate
// field value), each by a short priority chain in the order of §6 (the first check that
// fires wins):
//   qpm_dp_responder  RX_REQ, RX_RESP_DONE
//   qpm_dp_requester  TX_WQE, RX_ACK, TIMEOUT, RNR_NAK, RX_NAK
//   qpm_dp_dma        DMA_BEGIN, DMA_END
// This module answers NO_QP and MEM_ERR, selects an outcome by opcode, lets the two
// checks with a carry chain override last, and applies the effects: every candidate
// value (each with its own adder) is computed here in parallel, and each field picks
// its own at the end (see "The verdict" below).
//
// Before any block: NO_QP, then the reset's fence (STALE, QUIESCE; docs/reset.md).
//
// Decisions where SPEC §6 and docs/datapath.md are silent (the golden model agrees):
// mem_err_i overrides exists_i (when the QPC could not be read, whether the QP exists is
// not known either); an opcode outside DpRxReq..DpDmaEnd is a DROP OPCODE; a QPC type
// other than UC or UD (only a backdoor writes one) is treated as RC (qpm_pkg::dp_is_rc);
// the read/atomic limits are reached at ">=" (qpm_dp_responder's dest_full).
module qpm_dp_exec (
  input  qpm_pkg::dp_req_t req_i,
  input  logic             exists_i,       // QPN below the limit, page mapped, QPC valid
  input  logic             mem_err_i,      // the QPC could not be read: DROP MEM_ERR
  input  qpm_pkg::qpc_t    qpc_i,          // the QPC before the operation
  output qpm_pkg::dp_rsp_t rsp_o,
  output qpm_pkg::qpc_t    qpc_o,          // the QPC after the operation
  output logic             write_o,        // qpc_o differs from qpc_i (or may)
  output logic             event_valid_o,
  output qpm_pkg::eqe_t    event_o,
  output logic             flush_req_o     // the QP entered ERR or SQE: it owes completions
);

  // ---------------------------------------------------------------------------------
  // The operation blocks
  // ---------------------------------------------------------------------------------
  qpm_pkg::dp_outcome_t responder, rx_psn_miss_out;
  logic                 rx_psn_miss;

  qpm_dp_responder u_responder (
    .req_i          (req_i),
    .qpc_i          (qpc_i),
    .out_o          (responder),
    .psn_miss_o     (rx_psn_miss),
    .psn_miss_out_o (rx_psn_miss_out)
  );

  qpm_pkg::dp_outcome_t requester;
  logic                 rx_ack_count;

  qpm_dp_requester u_requester (
    .req_i       (req_i),
    .qpc_i       (qpc_i),
    .out_o       (requester),
    .ack_count_o (rx_ack_count)
  );

  qpm_pkg::dp_outcome_t dma;

  qpm_dp_dma u_dma (
    .req_i (req_i),
    .qpc_i (qpc_i),
    .out_o (dma)
  );

  // ---------------------------------------------------------------------------------
  // The verdict: the first check of §6 that fires wins.
  //
  // Shape, for depth: the operations' chains are disjoint; the opcode (an input, decoded
  // at once) selects among them (unique case: an AND-OR, not another chain). Three
  // checks need a carry chain: RX_REQ's PSN window (not the expected PSN; ahead or
  // behind) and RX_ACK's counts. They select last (a Shannon split): the blocks assume
  // the PSN is the expected one and the counts are within what is outstanding, and
  // psn_miss / ack_count override the selected outcome, each gated by every check that
  // comes before it in §6's order.
  // ---------------------------------------------------------------------------------
  logic known;  // the QPC was read and the QP exists
  assign known = exists_i && !mem_err_i;

  logic op_rx;
  assign op_rx = req_i.op == qpm_pkg::DpRxReq;

  // The fence of a reset (docs/reset.md). A token, an operation about work an earlier
  // operation began (a response done, an acknowledgement, a requester fault, a DMA
  // bracket), carries the epoch it was begun in: one of another epoch is STALE. While a
  // reset waits for the QP's DMAs (quiesce), everything but their DMA_END is DROPped.
  logic is_token, stale, quiesced, fenced;
  assign is_token = (req_i.op == qpm_pkg::DpRxRespDone) || (req_i.op == qpm_pkg::DpRxAck)
                 || (req_i.op == qpm_pkg::DpTimeout)    || (req_i.op == qpm_pkg::DpRnrNak)
                 || (req_i.op == qpm_pkg::DpRxNak)      || (req_i.op == qpm_pkg::DpDmaBegin)
                 || (req_i.op == qpm_pkg::DpDmaEnd);
  assign stale    = is_token && req_i.epoch != qpc_i.epoch;
  assign quiesced = qpc_i.quiesce && req_i.op != qpm_pkg::DpDmaEnd;
  assign fenced   = stale || quiesced;

  // MEM_ERR: the QPC could not be read, so nothing is known and nothing changes. NO_QP:
  // every operation's first check, then the fence.
  qpm_pkg::dp_outcome_t early;
  always_comb begin
    early         = '0;
    early.verdict = qpm_pkg::VDrop;
    if      (mem_err_i) early.drop = qpm_pkg::DropMemErr;
    else if (!exists_i) early.drop = qpm_pkg::DropNoQp;
    else if (stale)     early.drop = qpm_pkg::DropStale;
    else if (quiesced)  early.drop = qpm_pkg::DropQuiesce;
    else begin
      unique case (req_i.op)
        qpm_pkg::DpRxReq, qpm_pkg::DpRxRespDone: early = responder;
        qpm_pkg::DpTxWqe, qpm_pkg::DpRxAck, qpm_pkg::DpTimeout, qpm_pkg::DpRnrNak,
        qpm_pkg::DpRxNak:                        early = requester;
        qpm_pkg::DpDmaBegin, qpm_pkg::DpDmaEnd:  early = dma;
        // An opcode outside DpRxReq..DpDmaEnd (the port never carries one).
        default: early.drop = qpm_pkg::DropOpcode;
      endcase
    end
  end

  // The late checks: RX_REQ on UC (step 3, after OPCODE) or RC (step 4, first): the PSN
  // is not the expected one; RX_ACK on RC in RTS/SQD (after TYPE and STATE): counts
  // beyond what is outstanding.
  logic psn_miss, ack_count;
  assign psn_miss  = known && !fenced && op_rx && rx_psn_miss;
  assign ack_count = known && !fenced && (req_i.op == qpm_pkg::DpRxAck) && rx_ack_count;

  // The PSN override replaces the RX_REQ outcome's effects; the count override only
  // takes back RX_ACK's (the ACK, the write and SQ_DRAINED), at the fields themselves, so
  // the slowest compare passes one gate to the outputs.
  qpm_pkg::dp_verdict_e verdict;
  qpm_pkg::dp_drop_e    drop;
  always_comb begin
    if (psn_miss) begin
      verdict = rx_psn_miss_out.verdict;
      drop    = rx_psn_miss_out.drop;
    end else if (ack_count) begin
      verdict = qpm_pkg::VDrop;  // DROP COUNT changes nothing
      drop    = qpm_pkg::DropCount;
    end else begin
      verdict = early.verdict;
      drop    = early.drop;
    end
  end

  qpm_pkg::dp_effects_t fx;
  assign fx = psn_miss ? rx_psn_miss_out.fx : early.fx;

  // The causes whose WQE completes with its own status: every requester-side fault
  // (TIMEOUT/RNR_NAK exhausted, RX_NAK, LOCAL_ERR); a responder-side NAK names no WQE.
  logic requester_fault;
  assign requester_fault = fx.fail_syn >= qpm_event_pkg::SynRetryExc;

  logic ack_ok;  // fx.ack already implies RX_ACK on RC in RTS/SQD
  assign ack_ok = fx.ack && !ack_count;

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

  // ---------------------------------------------------------------------------------
  // The QPC after: each field selects its candidate (one writer per field, or an
  // explicit if/else where two effects touch the same field; they never coincide).
  // ---------------------------------------------------------------------------------
  always_comb begin
    qpc_o = qpc_i;

    if      (fx.resync)    qpc_o.expected_psn = resync_psn;
    else if (fx.rx_accept) qpc_o.expected_psn = expected_inc;

    if (fx.resync) begin
      qpc_o.rx_msg_open = 1'b0;
    end else if (fx.msg_open) begin
      qpc_o.rx_msg_open  = 1'b1;
      qpc_o.rx_msg_class = req_i.cls;
    end else if (fx.msg_close) begin
      qpc_o.rx_msg_open = 1'b0;
    end

    if (fx.rq_consume) qpc_o.rq_ci = rq_ci_inc;
    if (fx.comm_est)   qpc_o.comm_est_seen = 1'b1;

    if      (fx.dest_inc) qpc_o.dest_rd_atomic_inflight = dest_inc;
    else if (fx.dest_dec) qpc_o.dest_rd_atomic_inflight = dest_dec;

    if (fx.issue) begin
      qpc_o.next_send_psn = send_psn_next;
      qpc_o.sq_issued     = sq_issued_inc;
    end

    // An accepted RX_ACK and the other requester operations share four fields. ack_ok
    // (behind the late count check) selects first, so it passes one mux to the fields.
    if (ack_ok) begin
      qpc_o.sq_ci                 = sq_ci_ack;
      qpc_o.rd_atomic_outstanding = rd_ack;
      qpc_o.cur_retry_cnt         = qpc_i.retry_cnt;  // reloaded by every accepted RX_ACK
      qpc_o.cur_rnr_retry         = qpc_i.rnr_retry;
    end else begin
      if (fx.sq_ci_inc) qpc_o.sq_ci                 = sq_ci_inc;
      if (fx.rd_inc)    qpc_o.rd_atomic_outstanding = rd_inc;
      if (fx.retry_dec) qpc_o.cur_retry_cnt         = retry_dec;
      if (fx.rnr_dec)   qpc_o.cur_rnr_retry         = rnr_dec;
    end

    if      (fx.dma_inc) qpc_o.dma_inflight = dma_inc;
    else if (fx.dma_dec) qpc_o.dma_inflight = dma_dec;

    // Hardware moves. Completing the failing WQE and flushing the rest is the flush
    // engine's job (SPEC §7, docs/errors.md): a requester-side error names WQE sq_ci,
    // which completes first with the error's status (sq_err_pending); a move to SQE
    // fixes the end of the SQ flush at today's sq_pi in sq_issued, so WQEs posted in SQE
    // wait for the return to RTS instead of being flushed.
    if (fx.to_err) begin
      qpc_o.state          = qpm_pkg::StErr;
      qpc_o.err_syndrome   = fx.fail_syn;
      qpc_o.sq_err_pending = requester_fault;
    end else if (fx.to_sqe) begin
      qpc_o.state          = qpm_pkg::StSqe;
      qpc_o.err_syndrome   = fx.fail_syn;
      qpc_o.sq_err_pending = requester_fault;
      qpc_o.sq_issued      = qpc_i.sq_pi;
    end
  end

  assign flush_req_o = fx.to_err || fx.to_sqe;

  assign write_o = fx.write && !ack_count;

  // The event (at most one per operation).
  always_comb begin
    event_o            = '0;
    event_o.is_port    = 1'b0;
    event_o.qpn        = req_i.qpn;
    event_o.event_type = fx.ev_type;
    event_o.syndrome   = fx.ev_valid ? fx.fail_syn : 8'd0;  // a QP error event's cause
  end
  assign event_valid_o = fx.ev_valid && !ack_count;

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
      rsp_o.psn           = op_rx ? qpc_i.expected_psn : qpc_i.next_send_psn;
      rsp_o.qp_type       = qpc_i.qp_type;
      rsp_o.dest_qpn      = qpc_i.dest_qpn;
      rsp_o.av_dlid       = qpc_i.av_dlid;
      rsp_o.av_sl         = qpc_i.av_sl;
      rsp_o.av_sgid_index = qpc_i.av_sgid_index;
      rsp_o.epoch         = qpc_i.epoch;
    end
  end

endmodule
