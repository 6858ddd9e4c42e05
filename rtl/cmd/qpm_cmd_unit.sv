// qpm_cmd_unit: executes control-plane commands one at a time, in order (SPEC.md §4).
//
//   Idle -> Decode -> [CtxRequest -> CtxWait -> Execute -> [CtxRequest -> CtxWait]] -> Respond
//
// Decode answers what needs no context (opcode, directory index). A QP command reads
// the context over the QPC-access interface, Execute decides it (MODIFY_QP in
// qpm_state_enforcer) and, when the context changes, writes it back before the
// response leaves. Nothing is written unless the command succeeds, so a refused command
// changes nothing (the decision: qpm_cmd_exec). A memory error ends a MAP/UNMAP_PAGE
// with INT_ERR. A QP command's walk never fails (it reads again), but if its line was
// evicted after the read and the refill made the QP fatal (a failed context read), its
// write, pin or unpin is refused and the command runs again from its read
// (docs/events.md, "Memory faults").
//
// A QP in ERR or SQE may still owe completions its flush has not sent yet
// (docs/errors.md). Software sees those WQEs as completed already, so a command that
// answers with the context (QUERY, PIN, UNPIN, an accepted MODIFY other than to RESET)
// waits until the flush is done: FlushWait releases the lock for FlushPoll cycles, and
// the context is read again. MODIFY to RESET and DESTROY do not wait: a reset stops the
// flush.
// A QP's events wait in its QPC (ev_pending) until a step carries them to the EQ
// (docs/events.md). A command that answers with the context or changes the state
// (QUERY, PIN, UNPIN, an accepted MODIFY, DESTROY) waits the same way until they have
// left: events are never lost to a reset, and a QP never has two of one kind pending.
// SQ_DRAINED raised by a modify is written into the QPC like a datapath event.
//
// Reset with work in flight (SPEC.md §10, docs/reset.md): a MODIFY to RESET or a
// DESTROY that finds payload DMAs in flight (dma_inflight != 0) first writes the QPC
// back with quiesce set, so the datapath DROPs every new operation of the QP but the
// DMA_ENDs it waits for; then it polls as FlushWait does, lock released, until
// dma_inflight is 0 (a reset that waited) or RESET_TIMEOUT cycles have passed since
// the command began (forced). Only then does it write the reset context (quiesce
// clear, epoch advanced) and answer. Other QPs never wait for it.
//
// PORT_FAULT {port} (SPEC.md §4, §8): PORT_ERR goes to the EQ first; then qpm_pf_scan
// steps every QPN from 2 up to QPN_LIMIT through the cache, one read-modify-write each
// (a page the cache refuses as unmapped is skipped whole), which moves each valid QP
// bound to the port, in neither RESET nor ERR, to ERR and carries its QP_FATAL to the EQ
// (qpm_pf_exec). Up to PfAhead steps are in flight. It answers OK when every step is
// answered.
//
// The next command waits in a one-entry lookahead register; while the current one
// executes, the unit asks the cache to prefetch the next command's context (tag 1, no
// data), so a miss of back-to-back commands overlaps the work before it. A prefetch
// has no architectural effect: its answer is dropped.
`include "qpm_assert.svh"

module qpm_cmd_unit #(
  parameter int unsigned PageBits    = 6,     // QPCs per directory page = 2**PageBits
  parameter int unsigned NumPorts    = 2,
  parameter int unsigned PkeyTbl     = 128,
  parameter int unsigned MaxRdAtomic = 16,
  parameter int unsigned PfAhead     = 8      // PORT_FAULT's steps in flight (>= 1)
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  input  logic [31:0]       qpn_limit_i,   // CSR QPN_LIMIT
  input  logic [15:0]       reset_timeout_i, // CSR RESET_TIMEOUT: cycles a reset waits for DMAs
  output logic              reset_waited_o,  // a reset that waited for DMA_END completed
  output logic              reset_forced_o,  // ... that the timeout ended completed
  output logic              refused_o,     // a QP command refused here (REFUSED counter)
  output logic              pf_visit_o,    // PORT_FAULT read a QPC (scan progress)
  output logic              pf_moved_o,    // ... and moved it to ERR
  output logic              pf_scan_o,     // PORT_FAULT runs: tag-0 answers are its steps'
  // command / response streams
  input  logic              cmd_valid_i,
  output logic              cmd_ready_o,
  input  qpm_pkg::cmd_t     cmd_i,
  output logic              rsp_valid_o,
  input  logic              rsp_ready_i,
  output qpm_pkg::rsp_t     rsp_o,
  // QPC-access interface (master)
  output logic              ctx_req_valid_o,
  input  logic              ctx_req_ready_i,
  output qpm_pkg::ctx_req_t ctx_req_o,
  input  logic              ctx_rsp_valid_i,
  input  qpm_pkg::ctx_rsp_t ctx_rsp_i,
  // the QPN whose context this unit has read and may still write back: datapath
  // operations on it wait (qpm_dp_front), so none is lost under the write
  output logic              lock_valid_o,
  output logic [qpm_pkg::QpnW-1:0] lock_qpn_o,
  // a command waits for lock_qpn_o's flush or events (from its first FlushWait to its
  // answer), and each of its polls begins: the engines step that QP first (issue 27 item 5)
  output logic              flush_wait_o,
  output logic              flush_wait_poll_o,
  // events a command raises itself (PORT_ERR); QP events go through the QPC
  output logic              event_valid_o,
  input  logic              event_ready_i,
  output qpm_pkg::eqe_t     event_o
);

  localparam int unsigned PageAlignBits = PageBits + 6;  // a page of 64-byte QPCs

  typedef enum logic [2:0] {
    Idle       = 3'd0,
    Decode     = 3'd1,
    CtxRequest = 3'd2,
    CtxWait    = 3'd3,
    Execute    = 3'd4,
    Respond    = 3'd5,
    FlushWait  = 3'd6,
    PortErr    = 3'd7
  } fsm_e;
  localparam int unsigned FlushPoll = 8;

  fsm_e                 fsm_q, fsm_d;
  qpm_pkg::cmd_t        cmd_q, cmd_d;
  qpm_pkg::qpc_t        qpc_q, qpc_d;        // context read, then the one to write
  qpm_pkg::rsp_t        rsp_q, rsp_d;
  qpm_pkg::ctx_op_e     ctx_op_q, ctx_op_d;
  logic [63:0]          dir_entry_q, dir_entry_d;

  // ---------------------------------------------------------------------------------
  // Decode: what is known from the command alone
  // ---------------------------------------------------------------------------------
  logic is_qp_cmd, dir_in_range, page_aligned;
  assign is_qp_cmd = qpm_pkg::is_qp_opcode(cmd_q.opcode);
  // QPN_LIMIT and page mappings are checked in the cache; MAP/UNMAP's range here (below).
  assign page_aligned = cmd_q.page_address[PageAlignBits-1:0] == '0;
  // ---------------------------------------------------------------------------------
  // Execute: decide a QP command on the context read (qpc_q; qpm_cmd_exec)
  // ---------------------------------------------------------------------------------
  qpm_pkg::rsp_t exec_rsp;
  logic          exec_write, waits_for_flush, is_reset;
  qpm_pkg::qpc_t exec_qpc;
  qpm_cmd_exec #(
    .NumPorts    (NumPorts),
    .PkeyTbl     (PkeyTbl),
    .MaxRdAtomic (MaxRdAtomic)
  ) u_cmd_exec (
    .cmd_i             (cmd_q),
    .qpc_i             (qpc_q),
    .rsp_o             (exec_rsp),
    .write_o           (exec_write),
    .qpc_o             (exec_qpc),
    .waits_for_flush_o (waits_for_flush),
    .is_reset_o        (is_reset)
  );
  logic [$clog2(FlushPoll)-1:0] poll_q, poll_d;

  // A reset's wait for the QP's DMAs: cycles since the command began (saturating),
  // whether this command set quiesce, whether the write under way sets it (its answer
  // leads to the poll, not the response), and how the reset's final write ended it.
  typedef enum logic [1:0] {
    RstPlain  = 2'd0,
    RstWaited = 2'd1,
    RstForced = 2'd2
  } rst_end_e;
  logic [15:0] rst_timer_q;
  logic        rst_quiesced_q, rst_quiesced_d, rst_qwrite_q, rst_qwrite_d;
  rst_end_e    rst_end_q, rst_end_d;
  logic        dma_busy, rst_waits;
  assign dma_busy  = qpc_q.dma_inflight != '0;
  assign rst_waits = is_reset && dma_busy && rst_timer_q < reset_timeout_i;

  logic pf_cmd;
  assign pf_cmd = cmd_q.opcode == qpm_pkg::OpPortFault;
  // MAP/UNMAP's range check, registered a cycle ahead.
  qpm_cmd_limits #(.PageBits(PageBits)) u_limits (
    .clk_i (clk_i), .rst_ni (rst_ni), .qpn_limit_i (qpn_limit_i),
    .dir_index_i (cmd_q.dir_index), .dir_in_range_o (dir_in_range)
  );

  // ---------------------------------------------------------------------------------
  // The FSM
  // ---------------------------------------------------------------------------------
  // Only tag 0 answers belong to the command under way; tag 1 answers prefetches.
  localparam logic [qpm_pkg::CtxTagW-1:0] TagCmd = '0;
  localparam logic [qpm_pkg::CtxTagW-1:0] TagPrefetch = qpm_pkg::CtxTagW'(1);
  logic main_rsp_valid;
  assign main_rsp_valid = ctx_rsp_valid_i && ctx_rsp_i.tag == TagCmd;

  // The lookahead register and the prefetch of the next command's context beside the
  // unit's own requests (qpm_cmd_prefetch).
  logic                     next_valid, offer_pf, pf_hold;
  qpm_pkg::cmd_t            next_cmd;
  logic [qpm_pkg::QpnW-1:0] offer_qpn;
  qpm_cmd_prefetch u_prefetch (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .cmd_valid_i    (cmd_valid_i),
    .cmd_ready_o    (cmd_ready_o),
    .cmd_i          (cmd_i),
    .next_valid_o   (next_valid),
    .next_cmd_o     (next_cmd),
    .take_next_i    (fsm_q == Idle && next_valid),
    .between_i      (fsm_q != Idle && fsm_q != CtxRequest && !pf_cmd),
    .offer_o        (offer_pf),
    .offer_qpn_o    (offer_qpn),
    .ready_i        (ctx_req_ready_i),
    .hold_o         (pf_hold)
  );

  // PORT_ERR, offered at the start of a PORT_FAULT until the EQ takes it.
  logic ev_pending_q, ev_pending_d;

  // PORT_FAULT's scan, once PORT_ERR is taken (and no prefetch offer waits before it);
  // its steps' answers carry a dp_exec_rsp_t (the QPN, and whether its QP moved).
  logic                  pf_start, pf_done, pf_req_valid;
  qpm_pkg::pf_req_t      pf_req;
  qpm_pkg::dp_exec_rsp_t pf_answer;
  assign pf_start  = fsm_q == PortErr && !ev_pending_q && !pf_hold;
  assign pf_answer = ctx_rsp_i.rdata[$bits(pf_answer)-1:0];
  logic unused_pf_answer;   // only its QPN and step_moved are read here
  assign unused_pf_answer = ^pf_answer;
  qpm_pf_scan #(
    .PageBits (PageBits),
    .Window   (PfAhead)
  ) u_pf_scan (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .qpn_limit_i  (qpn_limit_i),
    .start_i      (pf_start),
    .port_i       (cmd_q.port_num[1:0]),
    .done_o       (pf_done),
    .req_valid_o  (pf_req_valid),
    .req_ready_i  (ctx_req_ready_i && !offer_pf),
    .req_o        (pf_req),
    .rsp_valid_i  (main_rsp_valid && fsm_q == PortErr),
    .rsp_status_i (ctx_rsp_i.status),
    .rsp_qpn_i    (pf_answer.rsp.qpn),
    .rsp_moved_i  (pf_answer.step_moved),
    .visit_o      (pf_visit_o),
    .moved_o      (pf_moved_o)
  );
  assign pf_scan_o = fsm_q == PortErr;

  // A response with a status only (status is the least significant field of rsp_t).
  localparam int unsigned RspW = $bits(rsp_q);
  function automatic logic [RspW-1:0] status_rsp(logic [7:0] status);
    status_rsp = {{(RspW - 8){1'b0}}, status};
  endfunction

  always_comb begin
    fsm_d       = fsm_q;
    cmd_d       = cmd_q;
    qpc_d       = qpc_q;
    rsp_d       = rsp_q;
    ctx_op_d    = ctx_op_q;
    dir_entry_d = dir_entry_q;
    ev_pending_d   = ev_pending_q && !event_ready_i;
    poll_d         = poll_q;
    rst_quiesced_d = rst_quiesced_q;
    rst_qwrite_d   = rst_qwrite_q;
    rst_end_d      = rst_end_q;

    unique case (fsm_q)
      Idle: begin
        if (next_valid) begin
          cmd_d          = next_cmd;
          fsm_d          = Decode;
          rst_quiesced_d = 1'b0;
          rst_end_d      = RstPlain;
        end
      end

      Decode: begin
        fsm_d    = Respond;
        rsp_d = status_rsp(qpm_pkg::StatusOk);
        if (is_qp_cmd && cmd_q.qpn[31:qpm_pkg::QpnW] != '0) begin
          // Beyond any QPN: refused here, the context port carries QpnW bits only.
          rsp_d = status_rsp(qpm_pkg::StatusBadRes);
        end else if (is_qp_cmd) begin
          ctx_op_d = qpm_pkg::CtxRead;
          fsm_d    = CtxRequest;
        end else if ((cmd_q.opcode == qpm_pkg::OpMapPage)
                     || (cmd_q.opcode == qpm_pkg::OpUnmapPage)) begin
          if (!dir_in_range || ((cmd_q.opcode == qpm_pkg::OpMapPage) && !page_aligned)) begin
            rsp_d = status_rsp(qpm_pkg::StatusBadParam);
          end else begin
            ctx_op_d    = qpm_pkg::CtxDirWrite;
            dir_entry_d = (cmd_q.opcode == qpm_pkg::OpMapPage)
                        ? {cmd_q.page_address[63:1], 1'b1} : 64'h0;
            fsm_d       = CtxRequest;
          end
        end else if (cmd_q.opcode == qpm_pkg::OpSyncCache) begin
          ctx_op_d = qpm_pkg::CtxSync;
          fsm_d    = CtxRequest;
        end else if (pf_cmd && (cmd_q.port_num == '0 || 32'(cmd_q.port_num) > NumPorts)) begin
          rsp_d = status_rsp(qpm_pkg::StatusBadParam);   // no such port: nothing happens
        end else if (pf_cmd) begin
          ev_pending_d = 1'b1;   // PORT_ERR first, then the scan
          fsm_d        = PortErr;
        end else begin
          rsp_d = status_rsp(qpm_pkg::StatusBadOp);
        end
      end

      PortErr: begin
        if (pf_done) fsm_d = Respond;   // rsp_q is OK (Decode)
      end

      CtxRequest: begin
        if (ctx_req_ready_i && !offer_pf) fsm_d = CtxWait;
      end

      CtxWait: begin
        if (main_rsp_valid) begin
          if (ctx_rsp_i.status == qpm_pkg::CtxMemErr && is_qp_cmd && ctx_op_q != qpm_pkg::CtxRead) begin
            // The line was evicted after the read and its refill failed (a directory
            // read, or a QPC read that made the QP fatal): decide again on the context
            // as it is now (docs/events.md, "Memory faults").
            ctx_op_d = qpm_pkg::CtxRead;
            fsm_d    = CtxRequest;
          end else if (ctx_rsp_i.status == qpm_pkg::CtxMemErr) begin
            rsp_d = status_rsp(qpm_pkg::StatusIntErr);
            fsm_d = Respond;
          end else if (ctx_rsp_i.status == qpm_pkg::CtxUnmapped) begin
            rsp_d = status_rsp(qpm_pkg::StatusBadRes);
            fsm_d = Respond;
          end else if (ctx_rsp_i.status == qpm_pkg::CtxBusy) begin
            rsp_d = status_rsp(qpm_pkg::StatusResBusy);
            fsm_d = Respond;
          end else if (ctx_op_q == qpm_pkg::CtxRead) begin
            qpc_d = ctx_rsp_i.rdata;
            fsm_d = Execute;
          end else if (rst_qwrite_q) begin
            rst_qwrite_d   = 1'b0;   // quiesce is set: poll for the DMAs
            rst_quiesced_d = 1'b1;
            fsm_d          = FlushWait;
            poll_d         = '0;
          end else begin
            fsm_d = Respond;  // a write finished; rsp_q holds the answer
          end
        end
      end

      Execute: begin
        rsp_d        = exec_rsp;
        fsm_d        = Respond;
        rst_qwrite_d = 1'b0;
        rst_end_d    = RstPlain;
        if (waits_for_flush) begin
          fsm_d  = FlushWait;
          poll_d = '0;
        end else if (rst_waits && !qpc_q.quiesce) begin
          qpc_d         = qpc_q;     // the context as read, fenced
          qpc_d.quiesce = 1'b1;
          ctx_op_d      = qpm_pkg::CtxWrite;
          fsm_d         = CtxRequest;
          rst_qwrite_d  = 1'b1;
        end else if (rst_waits) begin
          fsm_d  = FlushWait;
          poll_d = '0;
        end else if (exec_write) begin
          qpc_d    = exec_qpc;
          ctx_op_d = qpm_pkg::CtxWrite;
          fsm_d    = CtxRequest;
          if (is_reset && dma_busy)            rst_end_d = RstForced;
          else if (is_reset && rst_quiesced_q) rst_end_d = RstWaited;
        end else if (exec_rsp.status == qpm_pkg::StatusOk
                     && (cmd_q.opcode == qpm_pkg::OpPinQp || cmd_q.opcode == qpm_pkg::OpUnpinQp)) begin
          // The QP exists: now the eviction hint itself, which may be refused (RES_BUSY).
          ctx_op_d = (cmd_q.opcode == qpm_pkg::OpPinQp) ? qpm_pkg::CtxPin : qpm_pkg::CtxUnpin;
          fsm_d    = CtxRequest;
        end
      end

      Respond: begin
        if (rsp_ready_i && !ev_pending_q) fsm_d = Idle;
      end
      FlushWait: begin
        poll_d = poll_q + 1'b1;
        if (32'(poll_q) == FlushPoll - 1) begin
          ctx_op_d = qpm_pkg::CtxRead;
          fsm_d    = CtxRequest;
        end
      end

      default: fsm_d = Idle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      fsm_q       <= Idle;
      cmd_q       <= '0;
      qpc_q       <= '0;
      rsp_q       <= '0;
      ctx_op_q    <= qpm_pkg::CtxRead;
      dir_entry_q <= '0;
      ev_pending_q <= 1'b0;
      poll_q       <= '0;
      rst_timer_q    <= '0;
      rst_quiesced_q <= 1'b0;
      rst_qwrite_q   <= 1'b0;
      rst_end_q      <= RstPlain;
    end else begin
      poll_q       <= poll_d;
      rst_timer_q    <= (fsm_q == Decode) ? 16'd0
                      : rst_timer_q + 16'(rst_timer_q != 16'hffff);
      rst_quiesced_q <= rst_quiesced_d;
      rst_qwrite_q   <= rst_qwrite_d;
      rst_end_q      <= rst_end_d;
      ev_pending_q <= ev_pending_d;
      fsm_q       <= fsm_d;
      cmd_q       <= cmd_d;
      qpc_q       <= qpc_d;
      rsp_q       <= rsp_d;
      ctx_op_q    <= ctx_op_d;
      dir_entry_q <= dir_entry_d;
    end
  end

  assign refused_o   = fsm_q == Decode && is_qp_cmd && cmd_q.qpn[31:qpm_pkg::QpnW] != '0;
  assign rsp_valid_o = fsm_q == Respond && !ev_pending_q;
  // Counted once, when the reset's final write is answered.
  logic rst_written;
  assign rst_written    = fsm_q == CtxWait && main_rsp_valid && ctx_op_q == qpm_pkg::CtxWrite
                       && ctx_rsp_i.status != qpm_pkg::CtxMemErr && !rst_qwrite_q;
  assign reset_waited_o = rst_written && rst_end_q == RstWaited;
  assign reset_forced_o = rst_written && rst_end_q == RstForced;

  // From offering the read until the write is answered (a QP command without a write
  // releases it when it leaves Execute).
  assign lock_valid_o = (fsm_q == CtxRequest || fsm_q == CtxWait || fsm_q == Execute)
                     && (ctx_op_q == qpm_pkg::CtxRead || ctx_op_q == qpm_pkg::CtxWrite);
  assign lock_qpn_o   = cmd_q.qpn[qpm_pkg::QpnW-1:0];

  // Registered: the engines see the wait from the cycle after Execute decides it.
  logic flush_wait_q, flush_wait_poll_q, wait_poll;
  assign wait_poll = fsm_q == Execute && waits_for_flush;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      flush_wait_q      <= 1'b0;
      flush_wait_poll_q <= 1'b0;
    end else begin
      flush_wait_poll_q <= wait_poll;
      if (wait_poll)                             flush_wait_q <= 1'b1;
      else if (fsm_q == Respond || fsm_q == Idle) flush_wait_q <= 1'b0;
    end
  end
  assign flush_wait_o      = flush_wait_q;
  assign flush_wait_poll_o = flush_wait_poll_q;

  assign event_valid_o       = ev_pending_q;
  assign event_o.is_port     = 1'b1;
  assign event_o.qpn         = qpm_pkg::QpnW'(cmd_q.port_num);
  assign event_o.event_type  = qpm_event_pkg::EvPortErr;
  assign event_o.syndrome    = qpm_event_pkg::SynNone;
  assign rsp_o       = rsp_q;

  assign ctx_req_valid_o = fsm_q == CtxRequest || offer_pf || pf_req_valid;
  always_comb begin
    ctx_req_o.tag     = TagCmd;
    ctx_req_o.op      = ctx_op_q;
    ctx_req_o.index   = (ctx_op_q == qpm_pkg::CtxDirWrite)
                      ? cmd_q.dir_index[qpm_pkg::QpnW-1:0] : cmd_q.qpn[qpm_pkg::QpnW-1:0];
    ctx_req_o.payload = (ctx_op_q == qpm_pkg::CtxDirWrite) ? qpm_pkg::QpcW'(dir_entry_q) : qpc_q;
    if (fsm_q == PortErr) begin
      ctx_req_o.op      = qpm_pkg::CtxDp;
      ctx_req_o.index   = pf_req.qpn;
      ctx_req_o.payload = qpm_pkg::QpcW'(pf_req);
    end
    if (offer_pf) begin
      ctx_req_o.payload = '0;
      ctx_req_o.tag   = TagPrefetch;
      ctx_req_o.op    = qpm_pkg::CtxPrefetch;
      ctx_req_o.index = offer_qpn;
    end
  end

  // PORT_ERR is raised only at the start of a PORT_FAULT.
  `QPM_ASSERT_IMPL(EventOnlyAtPortFault_A, !ev_pending_q && ev_pending_d,
              fsm_q == Decode && pf_cmd)
  // A response arrives only for the request outstanding (or PORT_FAULT's steps).
  `QPM_ASSERT_IMPL(CtxRspOnlyWhenWaiting_A, main_rsp_valid, fsm_q == CtxWait || fsm_q == PortErr)
  // Only a successful command writes a context.
  `QPM_ASSERT_IMPL(WriteOnlyOnOk_A,
              fsm_q == CtxRequest && ctx_op_q == qpm_pkg::CtxWrite,
              rsp_q.status == qpm_pkg::StatusOk)
  // A reset that fenced its QP never fails, so the fence (quiesce) never outlives it
  // (docs/reset.md, step 5): every state may go to RESET, and the cache reads a failed
  // walk again until it lands, so no answer after the fence can be an error.
  `QPM_ASSERT_IMPL(FencedResetNeverFails_A, fsm_q == Respond && rst_quiesced_q,
              rsp_q.status == qpm_pkg::StatusOk)
  // The context this unit reads back after writing it is never refused as unmapped.
  `QPM_ASSERT_IMPL(WriteNeverRefused_A,
              fsm_q == CtxWait && main_rsp_valid && ctx_op_q == qpm_pkg::CtxWrite,
              ctx_rsp_i.status != qpm_pkg::CtxUnmapped)

endmodule
