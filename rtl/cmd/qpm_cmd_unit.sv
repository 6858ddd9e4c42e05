// qpm_cmd_unit: executes control-plane commands one at a time, in order (SPEC.md §4).
//
//   Idle -> Decode -> [CtxRequest -> CtxWait -> Execute -> [CtxRequest -> CtxWait]] -> Respond
//
// Decode answers what needs no context (opcode, directory index). A QP command reads
// the context over the QPC-access interface, Execute decides it (MODIFY_QP in
// qpm_state_enforcer) and, when the context changes, writes it back before the
// response leaves. Nothing is written unless the command succeeds, so a refused command
// changes nothing. A memory error on either access ends the command with INT_ERR.
//
// A QP in ERR or SQE may still owe completions its flush has not sent yet
// (docs/errors.md). Software sees those WQEs as completed already, so a command that
// answers with the context (QUERY, PIN, UNPIN, an accepted MODIFY other than to RESET)
// waits until the flush is done: FlushWait releases the lock for FlushPoll cycles, and
// the context is read again. MODIFY to RESET and DESTROY do not wait: a reset stops the
// flush.
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
  parameter int unsigned MaxRdAtomic = 16
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  input  logic [31:0]       qpn_limit_i,   // CSR QPN_LIMIT
  output logic              refused_o,     // a QP command refused here (REFUSED counter)
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
  // events a command raises (SQ_DRAINED when RTS->SQD finds nothing outstanding)
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
    FlushWait  = 3'd6
  } fsm_e;
  localparam int unsigned FlushPoll = 8;

  fsm_e                 fsm_q, fsm_d;
  logic                 next_valid_q, next_valid_d, next_fetched_q, next_fetched_d;
  qpm_pkg::cmd_t        next_cmd_q, next_cmd_d;
  qpm_pkg::cmd_t        cmd_q, cmd_d;
  qpm_pkg::qpc_t        qpc_q, qpc_d;        // context read, then the one to write
  qpm_pkg::rsp_t        rsp_q, rsp_d;
  qpm_pkg::ctx_op_e     ctx_op_q, ctx_op_d;
  logic [63:0]          dir_entry_q, dir_entry_d;

  // ---------------------------------------------------------------------------------
  // Decode: what is known from the command alone
  // ---------------------------------------------------------------------------------
  logic is_qp_cmd, dir_in_range, page_aligned;
  assign is_qp_cmd = (cmd_q.opcode == qpm_pkg::OpCreateQp) || (cmd_q.opcode == qpm_pkg::OpModifyQp)
                  || (cmd_q.opcode == qpm_pkg::OpQueryQp)  || (cmd_q.opcode == qpm_pkg::OpDestroyQp)
                  || (cmd_q.opcode == qpm_pkg::OpPinQp)    || (cmd_q.opcode == qpm_pkg::OpUnpinQp);
  // The QPN limit and the page mapping are checked where the contexts live (the cache).
  // Directory entries cover QPN_LIMIT, a partial last page included.
  assign dir_in_range = cmd_q.dir_index < ((qpn_limit_i + ((32'd1 << PageBits) - 32'd1)) >> PageBits);
  assign page_aligned = cmd_q.page_address[PageAlignBits-1:0] == '0;

  // ---------------------------------------------------------------------------------
  // Execute: decide a QP command on the context read (qpc_q)
  // ---------------------------------------------------------------------------------
  logic [7:0]         modify_status;
  qpm_pkg::syndrome_t modify_syndrome;
  qpm_pkg::qpc_t      modify_qpc;
  qpm_state_enforcer #(
    .NumPorts    (NumPorts),
    .PkeyTbl     (PkeyTbl),
    .MaxRdAtomic (MaxRdAtomic)
  ) u_state_enforcer (
    .qpc_i      (qpc_q),
    .cmd_i      (cmd_q),
    .status_o   (modify_status),
    .syndrome_o (modify_syndrome),
    .qpc_o      (modify_qpc)
  );

  logic       create_type_ok, create_values_ok;
  logic [7:0] create_status;
  assign create_type_ok = (cmd_q.qp_type == 8'(qpm_pkg::TypeRc))
                       || (cmd_q.qp_type == 8'(qpm_pkg::TypeUc))
                       || (cmd_q.qp_type == 8'(qpm_pkg::TypeUd));
  assign create_values_ok = create_type_ok && (cmd_q.pd[31:24] == '0)
                         && (cmd_q.cqn_snd[31:24] == '0) && (cmd_q.cqn_rcv[31:24] == '0)
                         && (32'(cmd_q.log_sq_size) <= qpm_pkg::MaxLogQ)
                         && (32'(cmd_q.log_rq_size) <= qpm_pkg::MaxLogQ);
  assign create_status = (cmd_q.qpn < 32'd2)  ? qpm_pkg::StatusBadParam :
                         !create_values_ok    ? qpm_pkg::StatusBadParam :
                         qpc_q.valid          ? qpm_pkg::StatusResBusy  :
                                                qpm_pkg::StatusOk;

  // A fresh context; the epoch carries over so a stale operation of an earlier
  // incarnation cannot touch this one.
  qpm_pkg::qpc_t created_qpc, destroyed_qpc;
  always_comb begin
    created_qpc             = '0;
    created_qpc.valid       = 1'b1;
    created_qpc.state       = qpm_pkg::StReset;
    created_qpc.qp_type     = cmd_q.qp_type[2:0];
    created_qpc.pd          = cmd_q.pd[23:0];
    created_qpc.cqn_snd     = cmd_q.cqn_snd[23:0];
    created_qpc.cqn_rcv     = cmd_q.cqn_rcv[23:0];
    created_qpc.log_sq_size = cmd_q.log_sq_size[4:0];
    created_qpc.log_rq_size = cmd_q.log_rq_size[4:0];
    created_qpc.epoch       = qpc_q.epoch;
    // Destroy resets the QP (epoch advances) and then invalidates it.
    destroyed_qpc           = '0;
    destroyed_qpc.epoch     = qpc_q.epoch + 8'd1;
  end

  // The context still owes completions (qpm_flush_exec's rule), and the command must
  // see them sent.
  logic owes_flush, waits_for_flush;
  assign owes_flush = qpc_q.valid
                   && (((qpc_q.state == qpm_pkg::StErr)
                        && (qpc_q.sq_ci != qpc_q.sq_pi || qpc_q.rq_ci != qpc_q.rq_pi))
                       || ((qpc_q.state == qpm_pkg::StSqe) && qpc_q.sq_ci != qpc_q.sq_issued));
  assign waits_for_flush = owes_flush
                        && ((cmd_q.opcode == qpm_pkg::OpQueryQp)
                            || (cmd_q.opcode == qpm_pkg::OpPinQp)
                            || (cmd_q.opcode == qpm_pkg::OpUnpinQp)
                            || ((cmd_q.opcode == qpm_pkg::OpModifyQp)
                                && modify_status == qpm_pkg::StatusOk
                                && modify_qpc.state != qpm_pkg::StReset));
  logic [$clog2(FlushPoll)-1:0] poll_q, poll_d;

  // The decision: response, and whether and what to write back.
  qpm_pkg::rsp_t exec_rsp;
  logic          exec_write;
  qpm_pkg::qpc_t exec_qpc;
  always_comb begin
    exec_rsp        = '0;
    exec_write      = 1'b0;
    exec_qpc        = qpc_q;
    exec_rsp.status = qpc_q.valid ? qpm_pkg::StatusOk : qpm_pkg::StatusBadRes;
    unique case (cmd_q.opcode)
      qpm_pkg::OpCreateQp: begin
        exec_rsp.status = create_status;
        exec_qpc        = created_qpc;
      end
      qpm_pkg::OpModifyQp: begin
        exec_rsp.status   = modify_status;
        exec_rsp.syndrome = modify_syndrome;
        exec_qpc          = modify_qpc;
      end
      qpm_pkg::OpDestroyQp: begin
        exec_qpc = destroyed_qpc;
      end
      default: ;  // QUERY_QP, PIN_QP, UNPIN_QP: read only
    endcase
    if (exec_rsp.status == qpm_pkg::StatusOk) begin
      exec_write = (cmd_q.opcode == qpm_pkg::OpCreateQp) || (cmd_q.opcode == qpm_pkg::OpModifyQp)
                || (cmd_q.opcode == qpm_pkg::OpDestroyQp);
      if (cmd_q.opcode != qpm_pkg::OpDestroyQp) exec_rsp.qpc = exec_qpc;
    end
  end

  // ---------------------------------------------------------------------------------
  // The FSM
  // ---------------------------------------------------------------------------------
  // Only tag 0 answers belong to the command under way; tag 1 answers prefetches.
  localparam logic [qpm_pkg::CtxTagW-1:0] TagCmd = '0;
  localparam logic [qpm_pkg::CtxTagW-1:0] TagPrefetch = qpm_pkg::CtxTagW'(1);
  logic main_rsp_valid;
  assign main_rsp_valid = ctx_rsp_valid_i && ctx_rsp_i.tag == TagCmd;

  // Prefetch the next command's context while this one is between its requests.
  logic next_is_qp_cmd, prefetch_now;
  assign next_is_qp_cmd = (next_cmd_q.opcode == qpm_pkg::OpCreateQp)
                       || (next_cmd_q.opcode == qpm_pkg::OpModifyQp)
                       || (next_cmd_q.opcode == qpm_pkg::OpQueryQp)
                       || (next_cmd_q.opcode == qpm_pkg::OpDestroyQp)
                       || (next_cmd_q.opcode == qpm_pkg::OpPinQp)
                       || (next_cmd_q.opcode == qpm_pkg::OpUnpinQp);
  assign prefetch_now = next_valid_q && !next_fetched_q && next_is_qp_cmd
                     && next_cmd_q.qpn[31:qpm_pkg::QpnW] == '0
                     && fsm_q != Idle && fsm_q != CtxRequest;
  // A prefetch once offered stays offered, unchanged, until the cache takes it (the
  // command's own request waits behind it, and no new command replaces next_cmd_q).
  logic pf_hold_q, offer_pf;
  assign offer_pf = pf_hold_q || prefetch_now;

  // SQ_DRAINED raised by a modify RTS->SQD that finds nothing outstanding (SPEC §5):
  // offered once the context is written, held until taken.
  logic ev_pending_q, ev_pending_d, drains_now, drains_q, drains_d;
  assign drains_now = cmd_q.opcode == qpm_pkg::OpModifyQp && exec_write
                   && qpc_q.state == qpm_pkg::StRts && modify_qpc.state == qpm_pkg::StSqd
                   && modify_qpc.en_sqd_async_notify && qpc_q.sq_ci == qpc_q.sq_issued;

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
    next_valid_d   = next_valid_q;
    next_cmd_d     = next_cmd_q;
    next_fetched_d = next_fetched_q || (offer_pf && ctx_req_ready_i);
    ev_pending_d   = ev_pending_q && !event_ready_i;
    drains_d       = drains_q;
    poll_d         = poll_q;
    if (cmd_valid_i && cmd_ready_o) begin
      next_valid_d   = 1'b1;
      next_cmd_d     = cmd_i;
      next_fetched_d = 1'b0;
    end

    unique case (fsm_q)
      Idle: begin
        if (next_valid_q) begin
          cmd_d        = next_cmd_q;
          next_valid_d = 1'b0;
          fsm_d        = Decode;
        end
      end

      Decode: begin
        fsm_d    = Respond;
        drains_d = 1'b0;
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
        end else begin
          // PORT_FAULT arrives with the errors issue; everything else is unknown.
          rsp_d = status_rsp(qpm_pkg::StatusBadOp);
        end
      end

      CtxRequest: begin
        if (ctx_req_ready_i && !offer_pf) fsm_d = CtxWait;
      end

      CtxWait: begin
        if (main_rsp_valid) begin
          if (ctx_rsp_i.status == qpm_pkg::CtxMemErr) begin
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
          end else begin
            fsm_d = Respond;  // a write finished; rsp_q holds the answer
            if (drains_q && ctx_op_q == qpm_pkg::CtxWrite) ev_pending_d = 1'b1;
          end
        end
      end

      Execute: begin
        rsp_d = exec_rsp;
        fsm_d = Respond;
        drains_d = drains_now;
        if (waits_for_flush) begin
          fsm_d  = FlushWait;
          poll_d = '0;
        end else if (exec_write) begin
          qpc_d    = exec_qpc;
          ctx_op_d = qpm_pkg::CtxWrite;
          fsm_d    = CtxRequest;
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
      next_valid_q   <= 1'b0;
      next_fetched_q <= 1'b0;
      next_cmd_q     <= '0;
      cmd_q       <= '0;
      qpc_q       <= '0;
      rsp_q       <= '0;
      ctx_op_q    <= qpm_pkg::CtxRead;
      dir_entry_q <= '0;
      pf_hold_q    <= 1'b0;
      ev_pending_q <= 1'b0;
      drains_q     <= 1'b0;
      poll_q       <= '0;
    end else begin
      poll_q       <= poll_d;
      drains_q     <= drains_d;
      pf_hold_q    <= offer_pf && !ctx_req_ready_i;
      ev_pending_q <= ev_pending_d;
      fsm_q       <= fsm_d;
      next_valid_q   <= next_valid_d;
      next_fetched_q <= next_fetched_d;
      next_cmd_q     <= next_cmd_d;
      cmd_q       <= cmd_d;
      qpc_q       <= qpc_d;
      rsp_q       <= rsp_d;
      ctx_op_q    <= ctx_op_d;
      dir_entry_q <= dir_entry_d;
    end
  end

  assign cmd_ready_o = !next_valid_q && !pf_hold_q;
  assign refused_o   = fsm_q == Decode && is_qp_cmd && cmd_q.qpn[31:qpm_pkg::QpnW] != '0;
  assign rsp_valid_o = fsm_q == Respond && !ev_pending_q;

  // From offering the read until the write is answered (a QP command without a write
  // releases it when it leaves Execute).
  // An event the command raised is still waiting for the EQ: later datapath events of
  // the QP must not overtake it, so the lock holds until it has left.
  assign lock_valid_o = ((fsm_q == CtxRequest || fsm_q == CtxWait || fsm_q == Execute)
                         && (ctx_op_q == qpm_pkg::CtxRead || ctx_op_q == qpm_pkg::CtxWrite))
                     || ev_pending_q;
  assign lock_qpn_o   = cmd_q.qpn[qpm_pkg::QpnW-1:0];

  assign event_valid_o       = ev_pending_q;
  assign event_o.is_port     = 1'b0;
  assign event_o.qpn         = cmd_q.qpn[qpm_pkg::QpnW-1:0];
  assign event_o.event_type  = qpm_pkg::EvSqDrained;
  assign event_o.syndrome    = qpm_pkg::SynNone;
  assign rsp_o       = rsp_q;

  assign ctx_req_valid_o = fsm_q == CtxRequest || offer_pf;
  always_comb begin
    ctx_req_o.tag       = TagCmd;
    ctx_req_o.op        = ctx_op_q;
    ctx_req_o.index     = (ctx_op_q == qpm_pkg::CtxDirWrite)
                        ? cmd_q.dir_index[qpm_pkg::QpnW-1:0] : cmd_q.qpn[qpm_pkg::QpnW-1:0];
    ctx_req_o.dir_entry = dir_entry_q;
    ctx_req_o.wdata     = qpc_q;
    if (offer_pf) begin
      ctx_req_o.dir_entry = '0;
      ctx_req_o.wdata     = '0;
      ctx_req_o.tag   = TagPrefetch;
      ctx_req_o.op    = qpm_pkg::CtxPrefetch;
      ctx_req_o.index = next_cmd_q.qpn[qpm_pkg::QpnW-1:0];
    end
  end

  // SQ_DRAINED is raised only by the answer to a modify's write.
  `QPM_ASSERT_IMPL(EventOnlyAfterWrite_A, !ev_pending_q && ev_pending_d,
              fsm_q == CtxWait && ctx_op_q == qpm_pkg::CtxWrite
              && cmd_q.opcode == qpm_pkg::OpModifyQp)
  // A response arrives only for the request outstanding.
  `QPM_ASSERT_IMPL(CtxRspOnlyWhenWaiting_A, main_rsp_valid, fsm_q == CtxWait)
  // Only a successful command writes a context.
  `QPM_ASSERT_IMPL(WriteOnlyOnOk_A,
              fsm_q == CtxRequest && ctx_op_q == qpm_pkg::CtxWrite,
              rsp_q.status == qpm_pkg::StatusOk)
  // The context this unit reads back after writing it is never refused as unmapped.
  `QPM_ASSERT_IMPL(WriteNeverRefused_A,
              fsm_q == CtxWait && main_rsp_valid && ctx_op_q == qpm_pkg::CtxWrite,
              ctx_rsp_i.status != qpm_pkg::CtxUnmapped)

endmodule
