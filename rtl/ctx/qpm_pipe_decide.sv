// qpm_pipe_decide: what the QP cache's pipe does with the request in P0 this cycle
// (docs/qp-cache.md, "Pipeline"), from the request, its lookup and the miss registers'
// and ports' state. Pure combinational.
//
// A write-fault mark (qpm_wb_buffer's announced given-up entry, docs/qp-cache.md section
// 20) goes first: cached, it is a read-modify-write of its line; not cached, the miss
// register of its QPN takes the context back, a new one if none works on it. A failed
// replay answers its fill's status; a command's write, pin or unpin that waited on a fill
// that made its QP fatal is refused (its command read the context before the fault).
// SYNC and MAP/UNMAP go to the maintenance engine; an out-of-range QPN is refused; a
// request joins the fill of its QPN under way, hits, or starts a miss.
//
// A port request that cannot start is deferred (defer_o, qpm_defer_queue; docs/qp-cache.md
// section 21): its QPN's miss register is replaying, or has no park slot free, or it
// misses with no spare register or park slot. So is one whose QPN has older requests
// deferred, or a deferred one behind one deferred again (hold_order_i), and a miss or a
// MAP/UNMAP while any are (hold_miss_i: the oldest gets the next register, and a page's
// requests go before its unmapping). A replay or a mark is never deferred: it waits.
//
// A hit touches its line's replacement bits (and a write or read-modify-write its dirty
// bit) through the line state's one write in P1 (qpm_cache_lines): it waits in a cycle in
// which a fill or a maintenance read-out takes that write (state_busy_i).
//
// excl_o keeps the looked-up line out of a miss register's take of its victim: a line
// the pipe may write this cycle (data, or its pin bit), decided from the lookup and the
// request's kind alone: not from the ports' state, the miss registers, the answer, or a
// fatal fill or maintenance answer taking the cycle (docs/capacity.md, "Timing proxy").
// A superset of the lines the decision writes (a write that waits, or is refused, keeps
// its line out too): the take meets the lookup, not the decision.
module qpm_pipe_decide #(
  parameter int unsigned Ways = 4,
  localparam int unsigned WayW = (Ways > 1) ? $clog2(Ways) : 1
) (
  input  logic                   valid_i,          // a request, and no fatal fill or
                                                   // maintenance answer takes the cycle
  input  logic                   req_i,            // a request (excl_o: whatever takes
                                                   // the cycle)
  input  logic                   is_mark_i,
  input  logic                   is_replay_i,
  input  logic                   failed_replay_i,  // a replay of a failed fill
  input  qpm_pkg::ctx_status_e   replay_status_i,
  input  logic                   replay_fatal_i,   // ... of a fill that made its QP fatal
  input  qpm_pkg::ctx_op_e       op_i,
  input  logic                   refuse_cmd_i,     // a command's QPC was made fatal under
                                                   // its lock: refuse its next write
  input  logic                   in_range_i,       // QPN below QPN_LIMIT
  input  logic                   look_hit_i,
  input  logic                   look_pinned_i,
  input  logic [WayW:0]          look_pinned_in_set_i,
  input  logic                   pin_wait_i,       // a pin bit of the set waits: a PIN
                                                   // waits for it (qpm_line_write)
  input  logic                   m_on_i,           // a miss register works on the QPN ...
  input  logic                   m_filling_i,      // ... and its fill is not done yet
  input  logic                   m_free_any_i,
  input  logic                   m_free_spare_i,   // ... and one more (kept for a mark)
  input  logic                   m_page_busy_i,    // one works on the DirWrite's page
  input  logic                   park_free_any_i,
  input  logic                   maint_busy_i,
  input  logic                   read_port_busy_i, // a read-out takes the RAM's read port
  input  logic                   write_slot_busy_i, // a fill takes P1's write slot
  input  logic                   state_busy_i,     // ... or a read-out the line state's
  input  logic                   hold_order_i,     // a port request whose QPN has older
                                                   // requests deferred
  input  logic                   hold_miss_i,      // a port request behind deferred ones
  output qpm_pipe_pkg::pipe_act_e     act_o,
  output qpm_pkg::ctx_status_e   status_o,
  output logic                   new_miss_o,       // a new miss register
  output logic                   refused_o,        // counted in REFUSED
  output logic                   merge_o,          // counted in MERGED
  output logic                   wait_o,           // a replay's miss that waits
  output logic                   defer_o,          // a port request deferred (act Done)
  output logic                   excl_o
);

  logic pin_op, port_req, defer;
  assign port_req = !is_replay_i && !is_mark_i;
  assign pin_op = op_i == qpm_pkg::CtxPin || op_i == qpm_pkg::CtxUnpin;

  always_comb begin
    act_o      = qpm_pipe_pkg::PipeStall;
    status_o   = qpm_pkg::CtxOk;
    new_miss_o = 1'b0;
    refused_o  = 1'b0;
    merge_o    = 1'b0;
    wait_o     = 1'b0;
    defer      = 1'b0;
    if (valid_i) begin
      if (is_mark_i) begin
        // Cached: the mark writes the QP fatal on its line. Not cached: the miss register
        // of its QPN takes the context back (a new one, with nothing parked on it).
        if (look_hit_i) begin
          if (!read_port_busy_i && !write_slot_busy_i && !state_busy_i) act_o = qpm_pipe_pkg::PipeRmw;
        end else if (m_on_i) begin
          act_o = qpm_pipe_pkg::PipeDone;
        end else if (m_free_any_i) begin
          act_o      = qpm_pipe_pkg::PipeDone;
          new_miss_o = 1'b1;
        end
      end else if (port_req && hold_order_i) begin
        act_o = qpm_pipe_pkg::PipeDone;
        defer = 1'b1;                      // behind older deferred requests (first of all:
                                           // a deferred one leaves only in order)
      end else if (refuse_cmd_i && (op_i == qpm_pkg::CtxWrite || pin_op)) begin
        act_o    = qpm_pipe_pkg::PipeRespond;   // it read the context before the fault
        status_o = qpm_pkg::CtxMemErr;
      end else if (failed_replay_i) begin
        act_o    = qpm_pipe_pkg::PipeRespond;               // the fill failed: so does every waiter
        status_o = replay_status_i;
      end else if (is_replay_i && replay_fatal_i && (op_i == qpm_pkg::CtxWrite
                   || op_i == qpm_pkg::CtxPin || op_i == qpm_pkg::CtxUnpin)) begin
        act_o    = qpm_pipe_pkg::PipeRespond;               // its command read the context before the fault
        status_o = qpm_pkg::CtxMemErr;
      end else if (op_i == qpm_pkg::CtxSync) begin
        if (!maint_busy_i) act_o = qpm_pipe_pkg::PipeMaint;
      end else if (op_i == qpm_pkg::CtxDirWrite) begin
        // MAP/UNMAP start once no miss register works on the page (qpm_mshr_match), and
        // after the requests deferred before them (which may be on the page).
        if (port_req && hold_miss_i) begin
          act_o = qpm_pipe_pkg::PipeDone;
          defer = 1'b1;
        end else if (!maint_busy_i && !m_page_busy_i) act_o = qpm_pipe_pkg::PipeMaint;
      end else if (!in_range_i) begin
        act_o     = qpm_pipe_pkg::PipeRespond;
        status_o  = qpm_pkg::CtxUnmapped;  // refused before any memory access
        refused_o = op_i != qpm_pkg::CtxPrefetch;
      end else if (!is_replay_i && m_on_i) begin
        // Join a fill under way (a merge). Once the fill is done and its waiters are
        // replaying, or with no park entry free, defer it instead: parking more behind
        // replays would keep the miss register (and its reserved way) alive for as long
        // as requests keep coming.
        if (m_filling_i && park_free_any_i) begin
          act_o   = qpm_pipe_pkg::PipePark;
          merge_o = op_i != qpm_pkg::CtxPrefetch;
        end else begin
          act_o = qpm_pipe_pkg::PipeDone;
          defer = 1'b1;
        end
      end else if (look_hit_i) begin
        unique case (op_i)
          qpm_pkg::CtxRead:  if (!read_port_busy_i && !state_busy_i) act_o = qpm_pipe_pkg::PipeReadHit;
          qpm_pkg::CtxWrite: begin
            if (!write_slot_busy_i && !state_busy_i) act_o = qpm_pipe_pkg::PipeWriteHit;
          end
          qpm_pkg::CtxDp: begin
            if (!read_port_busy_i && !write_slot_busy_i && !state_busy_i) act_o = qpm_pipe_pkg::PipeRmw;
          end
          qpm_pkg::CtxPin: begin
            if (!state_busy_i && !pin_wait_i) act_o = qpm_pipe_pkg::PipeRespond;
            if (!look_pinned_i && 32'(look_pinned_in_set_i) >= Ways - 1) status_o = qpm_pkg::CtxBusy;
          end
          default: begin                   // CtxUnpin, CtxPrefetch
            if (!state_busy_i) act_o = qpm_pipe_pkg::PipeRespond;
          end
        endcase
      end else if (m_free_spare_i && park_free_any_i && !(port_req && hold_miss_i)) begin
        act_o      = qpm_pipe_pkg::PipePark;
        new_miss_o = 1'b1;
      end else if (port_req) begin
        act_o = qpm_pipe_pkg::PipeDone;
        defer = 1'b1;
      end else begin
        wait_o = 1'b1;
      end
    end
  end
  assign defer_o = defer;

  assign excl_o = req_i && look_hit_i
               && (is_mark_i || op_i == qpm_pkg::CtxWrite || op_i == qpm_pkg::CtxDp || pin_op);

endmodule
