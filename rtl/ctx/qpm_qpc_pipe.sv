// qpm_qpc_pipe: the QP cache's pipeline over the QPC RAM (docs/qp-cache.md, "Pipeline").
//
//   P0  choose: a fill from memory, a dirty line to read out (a miss register's victim
//       or the maintenance engine's), and a request (a staged replay before a new one);
//       look the request up and decide it; read the RAM
//   P1  the RAM's data, forwarded from the write of the cycle before when it is the
//       same line; a datapath operation or doorbell decides (qpm_dp_exec,
//       qpm_doorbell_exec) and writes the new QPC back; answer; write the RAM (a write
//       hit, a read-modify-write or a fill); load the write-back buffer
//
// A fill after a failed read (fill_fatal_i) or of a write-back given up (fill_wfault_i,
// docs/qp-cache.md section 20) lands with its QP made fatal (qpm_qpc_fatal), named to the
// engines by mem_fatal_o from P1 (docs/events.md, "Memory faults"); P0 takes no request
// then. A command's write, pin or unpin that waited on it is refused (CtxMemErr): the
// command read the context before the eviction, and runs again from its read.
//
// The QPC and address RAMs have one read port (P0) and one write port (P1). P0 does not
// see P1's write of the same cycle: qpm_qpc_ram's forward register holds it for the next
// cycle, so read-modify-writes of one QPN run back to back, one per cycle.
`include "qpm_assert.svh"

module qpm_qpc_pipe #(
  parameter int unsigned Sets     = 64,
  parameter int unsigned Ways     = 4,
  parameter int unsigned Mshrs    = 8,
  parameter int unsigned WbDepth  = 2,
  localparam int unsigned QpnW  = qpm_pkg::QpnW,
  localparam int unsigned WayW  = (Ways > 1) ? $clog2(Ways) : 1,
  localparam int unsigned Lines = Sets * Ways,
  localparam int unsigned LineW = $clog2(Lines),
  localparam int unsigned MshrW = (Mshrs > 1) ? $clog2(Mshrs) : 1,
  localparam int unsigned WbW   = (WbDepth > 1) ? $clog2(WbDepth) : 1
) (
  input  logic                     clk_i,
  input  logic                     rst_ni,
  input  logic [31:0]              qpn_limit_i,
  // QPC-access requests and responses
  input  logic                     req_valid_i,
  input  logic                     drain_i,            // a starved miss: take no request
  output logic                     req_ready_o,
  input  qpm_pkg::ctx_req_t        req_i,
  input  logic                     req_retry_i,        // deferred before (qpm_defer_queue)
  input  logic                     hold_order_i,       // older requests of its QPN deferred
  input  logic                     hold_miss_i,        // older requests deferred
  output logic                     defer_o,            // P0 defers req_i
  output logic                     rsp_valid_o,
  output qpm_pkg::ctx_rsp_t        rsp_o,
  // line state: lookup of the request's QPN, and its updates
  output logic [QpnW-1:0]          look_qpn_o,
  input  logic                     look_hit_i,
  input  logic [LineW-1:0]         look_line_i,
  input  logic                     look_pinned_i,
  input  logic [WayW:0]            look_pinned_in_set_i,
  output logic                     touch_o,
  output logic                     dirty_o,
  output logic                     pin_o,
  output logic                     pin_value_o,
  input  logic                     pin_wait_i,         // a pin bit of P0's set waits
  output logic                     excl_o,             // the pipe writes look_line_i now:
                                                       // not a victim this cycle
  output logic                     dirty_p1_o,         // P1 writes p1_line_o back: dirty,
  output logic                     excl_p1_o,          // and not a victim this cycle
  output logic [LineW-1:0]         p1_line_o,
  // miss registers
  input  logic                     m_on_i,
  input  logic                     m_filling_i,
  input  logic [MshrW-1:0]         m_idx_i,
  input  logic                     m_free_any_i,
  input  logic                     m_free_spare_i,     // one more: the last is a mark's
  input  logic [MshrW-1:0]         m_free_idx_i,
  input  logic                     m_page_busy_i,      // one works on the DirWrite's page
  output logic                     park_o,
  output logic                     alloc_o,
  output logic [MshrW-1:0]         park_idx_o,
  output logic                     deq_o,
  input  qpm_pkg::ctx_status_e     replay_status_i,    // of the staged replay's register
  input  logic                     replay_fatal_i,     // ... whose QPC read failed first
  // park pool
  input  logic                     park_free_any_i,
  input  logic                     stage_valid_i,
  input  qpm_pkg::ctx_req_t        stage_req_i,
  output logic                     take_o,
  // a fill from memory (always taken)
  input  logic                     fill_i,
  input  logic [LineW-1:0]         fill_line_i,
  input  logic [57:0]              fill_addr_i,
  input  logic [511:0]             fill_data_i,
  input  logic [QpnW-1:0]          fill_qpn_i,
  input  logic                     fill_fatal_i,
  input  logic                     fill_wfault_i,      // from a write given up (a take-back)
  input  logic                     fill_notice_may_i,  // a notice fill may come this cycle
  input  logic                     fill_may_i,         // a fill may come this cycle
  input  logic                     wbread_may_i,       // a miss register's read-out may
  input  logic                     fill_wkeep_i,       // ... of a held context: a clean copy
  output logic                     mem_fatal_o,        // P1: the fill made its QP fatal,
  output logic [QpnW-1:0]          mem_fatal_qpn_o,    // or a take-back or mark landed
  output logic                     mem_fatal_write_o,  // ... (the write-fault kind)
  // the write-back buffer's announced given-up entry: its QP is made fatal on its line
  input  logic                     mark_valid_i,
  input  logic                     lock_valid_i,       // the command unit's lock (a QPN
  input  logic [QpnW-1:0]          lock_qpn_i,         // between its read and its write)
  input  logic [QpnW-1:0]          mark_qpn_i,
  output logic                     mark_take_o,
  output logic                     drop_o,             // P1: the mark hit (the entry goes)
  output logic [QpnW-1:0]          drop_qpn_o,
  // dirty lines read out into the write-back buffer
  input  logic                     wb_free_any_i,
  input  logic                     xread_room_i,       // entries beyond those promised
  input  logic [WbW-1:0]           wb_alloc_idx_i,
  output logic                     wbread_ok_o,        // a miss register may read one out
  input  logic                     wbread_i,           // ... and does (always taken)
  input  logic [LineW-1:0]         wbread_line_i,
  input  logic [QpnW-1:0]          wbread_qpn_i,
  input  logic                     xread_i,            // the maintenance engine asks ...
  output logic                     xread_ok_o,         // ... and is granted
  input  logic [LineW-1:0]         xread_line_i,
  input  logic [QpnW-1:0]          xread_qpn_i,
  output logic                     wb_alloc_o,
  output logic [QpnW-1:0]          wb_alloc_qpn_o,
  output logic                     wb_alloc_maint_o,
  output logic                     wb_load_o,
  output logic [WbW-1:0]           wb_load_idx_o,
  output logic [51:0]              wb_load_page_o,   // QPC address bits 63:12
  output logic [511:0]             wb_load_data_o,
  // the maintenance engine
  input  logic                     maint_busy_i,
  output logic                     maint_start_o,
  input  logic                     maint_rsp_valid_i,
  input  logic [qpm_pkg::CtxTagW-1:0] maint_rsp_tag_i,
  input  qpm_pkg::ctx_status_e     maint_rsp_status_i,
  // events for the counters
  output logic                     cnt_hit_o,
  output logic                     cnt_miss_o,
  output logic                     cnt_merged_o,
  output logic                     cnt_refused_o,
  output logic                     cnt_wait_o
);

  localparam int unsigned AddrW = 52;   // the line's QPC page (qpm_qpc_ram)
  localparam int unsigned QpcW  = qpm_pkg::QpcW;

  // ---------------------------------------------------------------------------------
  // P0: the request in the pipe and its decision
  // ---------------------------------------------------------------------------------
  qpm_pkg::ctx_req_t r, mark_req;
  logic              r_valid, r_is_replay, r_is_mark, r_failed_replay, r_in_range;
  assign r_is_replay     = stage_valid_i;
  // A write-fault mark (docs/qp-cache.md section 20) goes before a port request.
  assign r_is_mark       = !stage_valid_i && mark_valid_i;
  always_comb begin
    mark_req       = '0;
    mark_req.index = mark_qpn_i;
    mark_req.op    = qpm_pkg::CtxDp;
  end
  assign r               = stage_valid_i ? stage_req_i : r_is_mark ? mark_req : req_i;
  // A port request waits while a starved miss drains the pipe (qpm_victim_guard).
  // Maintenance runs beside the requests (qpm_cache_maint).
  assign r_valid         = stage_valid_i || mark_valid_i || (req_valid_i && !drain_i);
  assign r_failed_replay = r_is_replay && replay_status_i != qpm_pkg::CtxOk;
  assign r_in_range      = 32'(r.index) < qpn_limit_i;
  assign look_qpn_o      = r.index;
  qpm_pkg::qpc_t r_qpc;   // a CtxWrite's payload: only its valid is read here
  logic          unused_r_qpc;
  assign r_qpc        = r.payload;
  assign unused_r_qpc = ^r_qpc;

  // The RAM ports this cycle: a fill takes the write slot of P1; a read-out takes the
  // read port (a miss register's first, the maintenance engine's when nothing else). The
  // line state's write in P1 (qpm_cache_lines) is a fill's, else a maintenance
  // read-out's (the line is clean again), else a hit's. A maintenance read-out goes in a
  // cycle without a fill or a miss register's read-out, and without a request in P0
  // unless it lost a cycle it had room for (xread_owed_q): then P0 leaves it the read
  // port and the line state. So neither the read-out's room in the write-back buffer nor
  // its grant reaches P0's decision (docs/capacity.md, "Timing proxy"), and a stream of
  // requests holds a read-out back for one cycle at most. P0 decides on supersets of the
  // fill and the miss register's read-out (fill_may_i, wbread_may_i: from the memory
  // response and the registered pick, not the scheduler's step): a hit waits in a cycle
  // one of them may take.
  logic xread_go, xread_owed_q, xread_first, read_port_busy, write_slot_busy, state_busy;
  assign wbread_ok_o     = wb_free_any_i;
  assign xread_first     = xread_i && xread_owed_q;
  assign xread_go        = xread_i && xread_room_i && !wbread_i && !fill_i
                        && (xread_owed_q || !r_valid);
  assign xread_ok_o      = xread_go;
  assign read_port_busy  = wbread_may_i || xread_first;
  assign write_slot_busy = fill_may_i;
  assign state_busy      = fill_may_i || xread_first;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) xread_owed_q <= 1'b0;
    else         xread_owed_q <= xread_i && xread_room_i && !xread_go;
  end

  // A fill that makes its QP fatal (see the header): after a failed read, or a take-back
  // of a write given up (fill_wfault_i; its line is dirty whatever the QP's state, but
  // for a held context the buffer keeps: fill_wkeep_i, a clean copy). Only a fill that
  // changes its QP (fill_live) is a notice: a held context taken back again is not.
  qpm_pkg::qpc_t fill_qpc, fill_qpc_fatal;
  logic          fill_live, fill_makes_fatal, fill_notice;
  assign fill_qpc         = fill_data_i[QpcW-1:0];
  assign fill_notice      = fill_i && (fill_fatal_i || fill_wfault_i);
  assign fill_makes_fatal = fill_notice && fill_live;
  qpm_qpc_fatal u_fill_fatal (.qpc_i(fill_qpc), .write_i(fill_wfault_i), .live_o(fill_live),
                              .qpc_o(fill_qpc_fatal));

  logic pin_op;
  assign pin_op = r.op == qpm_pkg::CtxPin || r.op == qpm_pkg::CtxUnpin;

  // A take-back or mark that makes the locked QPN fatal (P1) refuses the command's next
  // write, pin or unpin (CtxMemErr): it read the context before, and runs again from its
  // read, as after a failed fill (docs/qp-cache.md section 20).
  logic cmd_marked_q, cmd_marked_now, refuse_cmd;
  assign cmd_marked_now = fatal_write_now && lock_valid_i && lock_qpn_i == p1_fatal_qpn_q;
  assign refuse_cmd     = (cmd_marked_q || cmd_marked_now) && r.tag == qpm_pkg::TagCmd
                       && !r_is_replay && !r_is_mark;

  qpm_pipe_pkg::pipe_act_e   p_act;
  qpm_pkg::ctx_status_e p_status;
  logic                 p_new_miss, p_refused, p_merge, p_wait, p_excl;
  qpm_pipe_decide #(
    .Ways (Ways)
  ) u_decide (
    .valid_i            (r_valid && !fill_notice_may_i && !maint_rsp_valid_i),
    .req_i              (r_valid),
    .is_mark_i          (r_is_mark),
    .is_replay_i        (r_is_replay),
    .failed_replay_i    (r_failed_replay),
    .replay_status_i    (replay_status_i),
    .replay_fatal_i     (replay_fatal_i),
    .op_i               (r.op),
    .refuse_cmd_i       (refuse_cmd),
    .in_range_i         (r_in_range),
    .look_hit_i         (look_hit_i),
    .look_pinned_i      (look_pinned_i),
    .look_pinned_in_set_i (look_pinned_in_set_i),
    .pin_wait_i         (pin_wait_i),
    .m_on_i             (m_on_i),
    .m_filling_i        (m_filling_i),
    .m_free_any_i       (m_free_any_i),
    .m_free_spare_i     (m_free_spare_i),
    .m_page_busy_i      (m_page_busy_i),
    .park_free_any_i    (park_free_any_i),
    .maint_busy_i       (maint_busy_i),
    .read_port_busy_i   (read_port_busy),
    .write_slot_busy_i  (write_slot_busy),
    .state_busy_i       (state_busy),
    .hold_order_i       (hold_order_i),
    .hold_miss_i        (hold_miss_i),
    .act_o              (p_act),
    .status_o           (p_status),
    .new_miss_o         (p_new_miss),
    .refused_o          (p_refused),
    .merge_o            (p_merge),
    .wait_o             (p_wait),
    .defer_o            (defer_o),
    .excl_o             (p_excl)
  );

  // A port request is taken when the pipe consumes it (no replay in the way).
  assign req_ready_o   = !stage_valid_i && !r_is_mark && p_act != qpm_pipe_pkg::PipeStall;
  assign mark_take_o   = r_is_mark && p_act != qpm_pipe_pkg::PipeStall;
  assign take_o        = r_is_replay && p_act != qpm_pipe_pkg::PipeStall;
  assign deq_o         = take_o;
  assign maint_start_o = p_act == qpm_pipe_pkg::PipeMaint;

  assign park_o     = p_act == qpm_pipe_pkg::PipePark;
  assign alloc_o    = (p_act == qpm_pipe_pkg::PipePark || p_act == qpm_pipe_pkg::PipeDone) && p_new_miss;
  assign park_idx_o = p_new_miss ? m_free_idx_i : m_idx_i;

  // Line state.
  logic hit_ok;
  assign hit_ok      = p_act == qpm_pipe_pkg::PipeRespond && look_hit_i && p_status == qpm_pkg::CtxOk
                    && !p_refused && !r_failed_replay;
  assign touch_o     = p_act == qpm_pipe_pkg::PipeReadHit || p_act == qpm_pipe_pkg::PipeWriteHit || p_act == qpm_pipe_pkg::PipeRmw || hit_ok;
  assign dirty_o     = p_act == qpm_pipe_pkg::PipeWriteHit;
  // A context written invalid (DESTROY_QP) is no longer pinned.
  assign pin_o       = (hit_ok && pin_op) || (p_act == qpm_pipe_pkg::PipeWriteHit && !r_qpc.valid);
  assign pin_value_o = p_act != qpm_pipe_pkg::PipeWriteHit && r.op == qpm_pkg::CtxPin;
  // Only a line the pipe may write this cycle (data, or its pin bit) is kept out of a
  // miss register's take of its victim, decided from the lookup alone (qpm_pipe_decide;
  // a read hit is safe: excluding every hit let a stream of hits starve a set's last
  // evictable way). A read-modify-write is kept out again while it writes in P1.
  assign excl_o      = p_excl;

  // Counters (docs/qp-table.md says what each counts).
  logic wait_counted_q;
  // A hit is counted whatever its answer (a PIN refused for capacity found its QPC).
  assign cnt_hit_o     = (p_act == qpm_pipe_pkg::PipeReadHit || p_act == qpm_pipe_pkg::PipeWriteHit || p_act == qpm_pipe_pkg::PipeRmw
                          || (p_act == qpm_pipe_pkg::PipeRespond && look_hit_i && !p_refused && !r_failed_replay))
                      && !r_is_replay && !r_is_mark && r.op != qpm_pkg::CtxPrefetch;
  assign cnt_miss_o    = alloc_o;
  assign cnt_merged_o  = p_act == qpm_pipe_pkg::PipePark && p_merge;
  assign cnt_refused_o = p_refused;
  // MISS_WAITS: a port request deferred (once: not again when it comes back), or a
  // replay's miss that waits for a register (once per replay).
  assign cnt_wait_o    = (defer_o && !req_retry_i && r.op != qpm_pkg::CtxDirWrite)
                      || (p_act == qpm_pipe_pkg::PipeStall && p_wait && !wait_counted_q);

  // Read-outs into the write-back buffer.
  assign wb_alloc_o       = wbread_i || xread_go;
  assign wb_alloc_qpn_o   = wbread_i ? wbread_qpn_i : xread_qpn_i;
  assign wb_alloc_maint_o = !wbread_i;

  // ---------------------------------------------------------------------------------
  // The RAMs
  // ---------------------------------------------------------------------------------
  logic             ram_re;
  logic [LineW-1:0] ram_raddr;
  logic             p1_we, p1_wfill;
  logic [LineW-1:0] p1_wline;
  logic [QpcW-1:0]  p1_wdata;
  logic [AddrW-1:0] p1_waddr;

  qpm_pkg::dp_req_t r_dp_req;   // a CtxDp request's operation
  assign r_dp_req  = r.payload[$bits(r_dp_req)-1:0];
  assign ram_re    = p_act == qpm_pipe_pkg::PipeReadHit || p_act == qpm_pipe_pkg::PipeRmw || wbread_i || xread_go;
  assign ram_raddr = wbread_i ? wbread_line_i : xread_go ? xread_line_i : look_line_i;

  logic [QpcW-1:0]  p1_rdata;     // the QPC read (P1's last write forwarded)
  logic [AddrW-1:0] p1_raddr_data;
  qpm_qpc_ram #(
    .Lines (Lines),
    .QpcW  (QpcW),
    .AddrW (AddrW)
  ) u_ram (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .re_i         (ram_re),
    .addr_re_i    (wbread_i || xread_go),
    .raddr_i      (ram_raddr),
    .rdata_o      (p1_rdata),
    .raddr_data_o (p1_raddr_data),
    .we_i         (p1_write),
    .addr_we_i    (p1_we && p1_wfill),
    .wline_i      (p1_wline),
    .wdata_i      (p1_write_data),
    .waddr_i      (p1_waddr)
  );

  // ---------------------------------------------------------------------------------
  // P1
  // ---------------------------------------------------------------------------------
  logic                        p1_rsp_valid, p1_rsp_from_ram, p1_load, p1_rmw, p1_dp;
  qpm_pkg::dp_req_t            p1_dp_req;
  logic                        p1_db_q;       // the CtxDp in P1 is a doorbell
  logic                        p1_flush_q;    // ... a flush step
  logic                        p1_pf_q;       // ... a PORT_FAULT step
  logic                        p1_fatal_q;    // the fill in P1 made its QP fatal (or returned)
  logic                        p1_notice_q;   // ... and changed it (a notice)
  logic                        p1_fatal_write_q; // ... a write-fault take-back, or a mark
  logic                        p1_mark_q;     // the read-modify-write in P1 is a mark
  logic [QpnW-1:0]             p1_fatal_qpn_q;
  logic                        p1_write;      // this cycle's RAM write, all kinds
  logic [QpcW-1:0]             p1_write_data;
  logic [qpm_pkg::CtxTagW-1:0] p1_rsp_tag;
  qpm_pkg::ctx_status_e        p1_rsp_status;
  logic [WbW-1:0]              p1_load_idx;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      p1_rsp_valid    <= 1'b0;
      p1_rsp_from_ram <= 1'b0;
      p1_rmw          <= 1'b0;
      p1_dp           <= 1'b0;
      p1_dp_req       <= '0;
      p1_db_q         <= 1'b0;
      p1_flush_q      <= 1'b0;
      p1_pf_q         <= 1'b0;
      p1_fatal_q      <= 1'b0;
      p1_notice_q     <= 1'b0;
      p1_fatal_write_q <= 1'b0;
      p1_mark_q       <= 1'b0;
      p1_fatal_qpn_q  <= '0;
      p1_rsp_tag      <= '0;
      p1_rsp_status   <= qpm_pkg::CtxOk;
      p1_load         <= 1'b0;
      p1_load_idx     <= '0;
      p1_we           <= 1'b0;
      p1_wfill        <= 1'b0;
      p1_wline        <= '0;
      p1_wdata        <= '0;
      p1_waddr        <= '0;
      wait_counted_q  <= 1'b0;
      cmd_marked_q    <= 1'b0;
    end else begin
      if (!lock_valid_i || (refuse_cmd && p_act == qpm_pipe_pkg::PipeRespond)) cmd_marked_q <= 1'b0;
      else if (cmd_marked_now)                                         cmd_marked_q <= 1'b1;
      p1_rsp_valid    <= ((p_act == qpm_pipe_pkg::PipeRespond || p_act == qpm_pipe_pkg::PipeReadHit || p_act == qpm_pipe_pkg::PipeWriteHit
                           || p_act == qpm_pipe_pkg::PipeRmw) && !r_is_mark) || maint_rsp_valid_i;
      p1_rsp_from_ram <= p_act == qpm_pipe_pkg::PipeReadHit;
      p1_rmw          <= p_act == qpm_pipe_pkg::PipeRmw;
      p1_dp           <= r.op == qpm_pkg::CtxDp && (p_act == qpm_pipe_pkg::PipeRespond || p_act == qpm_pipe_pkg::PipeRmw);
      p1_dp_req       <= r_dp_req;
      // A doorbell is known by its requester's tag, never by an op code the datapath
      // port could carry.
      p1_db_q         <= r.tag == qpm_pkg::TagDoorbell;
      p1_flush_q      <= qpm_pkg::tag_is_step(r.tag);
      p1_pf_q         <= r.tag == qpm_pkg::TagCmd;
      p1_fatal_q      <= fill_makes_fatal || (fill_i && fill_wfault_i && !fill_wkeep_i);
      p1_notice_q     <= fill_makes_fatal;
      p1_fatal_write_q <= (fill_i && fill_wfault_i && !fill_wkeep_i && fill_live)
                       || (r_is_mark && p_act == qpm_pipe_pkg::PipeRmw);
      p1_mark_q       <= r_is_mark && p_act == qpm_pipe_pkg::PipeRmw;
      p1_fatal_qpn_q  <= fill_i ? fill_qpn_i : r.index;
      if (maint_rsp_valid_i) begin
        p1_rsp_tag    <= maint_rsp_tag_i;
        p1_rsp_status <= maint_rsp_status_i;
      end else begin
        p1_rsp_tag    <= r.tag;
        p1_rsp_status <= p_status;
      end
      p1_load         <= wb_alloc_o;
      p1_load_idx     <= wb_alloc_idx_i;
      p1_we           <= fill_i || p_act == qpm_pipe_pkg::PipeWriteHit;
      p1_wfill        <= fill_i;
      p1_wline        <= fill_i ? fill_line_i : look_line_i;
      p1_wdata        <= !fill_i ? r.payload : fill_notice ? fill_qpc_fatal : fill_qpc;
      p1_waddr        <= fill_addr_i[57:6];   // the page: bits 11:6 are the QPN's
      // A replay's wait is counted once.
      if (p_act != qpm_pipe_pkg::PipeStall) wait_counted_q <= 1'b0;
      else if (p_wait)                      wait_counted_q <= 1'b1;
    end
  end

  // ---- a datapath operation, doorbell or step decides (qpm_rmw_exec; a miss answered
  // without the RAM comes here too: NO_QP for an unmapped QPN, MEM_ERR for a failed fill)
  qpm_pkg::qpc_t         rmw_qpc;
  qpm_pkg::dp_exec_rsp_t dp_answer;
  logic                  p1_rmw_write;
  qpm_rmw_exec u_rmw_exec (
    .clk_i     (clk_i),
    .rst_ni    (rst_ni),
    .req_i     (p1_dp_req),
    .is_db_i   (p1_db_q),
    .is_step_i (p1_flush_q),
    .is_pf_i   (p1_pf_q),
    .found_i   (p1_rmw && p1_rsp_status == qpm_pkg::CtxOk),
    .mem_err_i (p1_rsp_status == qpm_pkg::CtxMemErr),
    .qpc_i     (p1_rdata),
    .write_o   (p1_rmw_write),
    .qpc_o     (rmw_qpc),
    .answer_o  (dp_answer)
  );

  // A mark makes the QP fatal as a returned fill does, on the newest QPC of its line;
  // one that changes nothing (mark_live low) drops the entry all the same, no notice.
  qpm_pkg::qpc_t marked_qpc;
  logic          mark_live, fatal_write_now;
  qpm_qpc_fatal u_mark_fatal (.qpc_i(p1_rdata), .write_i(1'b1), .live_o(mark_live),
                              .qpc_o(marked_qpc));
  assign fatal_write_now = p1_fatal_write_q && (!p1_mark_q || mark_live);

  assign p1_write      = p1_we || (p1_rmw && p1_rmw_write) || p1_mark_q;
  assign p1_write_data = p1_mark_q ? marked_qpc : !p1_rmw ? p1_wdata : rmw_qpc;
  assign dirty_p1_o    = (p1_rmw && p1_write) || p1_fatal_q;
  // P1 sets the line's dirty bit now for a write hit or a read-modify-write (the line
  // state's write is in P1): kept out of a victim's take this cycle.
  assign excl_p1_o     = p1_rmw || (p1_we && !p1_wfill);
  assign p1_line_o     = p1_wline;
  assign mem_fatal_o       = p1_notice_q || (p1_mark_q && mark_live);
  assign mem_fatal_qpn_o   = p1_fatal_qpn_q;
  assign mem_fatal_write_o = fatal_write_now;
  assign drop_o            = p1_mark_q;
  assign drop_qpn_o        = p1_fatal_qpn_q;

  assign wb_load_o      = p1_load;
  assign wb_load_idx_o  = p1_load_idx;
  assign wb_load_data_o = p1_rdata;
  assign wb_load_page_o = p1_raddr_data;
  logic unused_fill_addr_low;   // address bits 11:6: the QPN's low bits, not kept
  assign unused_fill_addr_low = ^fill_addr_i[5:0];

  assign rsp_valid_o  = p1_rsp_valid;
  assign rsp_o.tag    = p1_rsp_tag;
  assign rsp_o.status = p1_rsp_status;
  assign rsp_o.rdata  = p1_rsp_from_ram ? p1_rdata
                      : p1_dp ? QpcW'(dp_answer) : '0;

  // ---------------------------------------------------------------------------------
  // Contract
  // ---------------------------------------------------------------------------------
  // A replay of a successful fill hits: the line stays reserved until its waiters ran.
  logic r_replay_of_fill;
  assign r_replay_of_fill = r_is_replay && !r_failed_replay && r.op != qpm_pkg::CtxSync
                         && r.op != qpm_pkg::CtxDirWrite && r_in_range;
  `QPM_ASSERT_IMPL(ReplayHits_A, r_replay_of_fill, look_hit_i)
  // At least one way of every set can always be evicted.
  `QPM_ASSERT_IMPL(PinCapacity_A, r_valid, 32'(look_pinned_in_set_i) < Ways)
  // One write per cycle: a fill never meets a write hit; one read: a read-out never
  // meets a read hit.
  `QPM_ASSERT(OneWrite_A, !(fill_i && (p_act == qpm_pipe_pkg::PipeWriteHit || p_act == qpm_pipe_pkg::PipeRmw)))
  `QPM_ASSERT(OneRead_A, !((wbread_i || xread_go) && p_act == qpm_pipe_pkg::PipeReadHit))
  // A maintenance answer never meets a pipe answer.
  `QPM_ASSERT(OneAnswer_A, !(maint_rsp_valid_i && p_act != qpm_pipe_pkg::PipeStall && p_act != qpm_pipe_pkg::PipePark
                             && p_act != qpm_pipe_pkg::PipeMaint))
  // The engines learn of a fatal fill on the answer port's request input: never both.
  `QPM_ASSERT_IMPL(FatalFillAlone_A, mem_fatal_o, !rsp_valid_o)

endmodule
