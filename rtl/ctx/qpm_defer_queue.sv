// qpm_defer_queue: the QP cache's parked port requests, so that a request that cannot
// start does not stop the requests behind it (docs/qp-cache.md section 21, "The parking
// port").
//
// P0 defers a port request it cannot start (no spare miss register or park slot, its
// QPN's miss register replaying, its QPN with an older request here, or a miss while
// older requests wait here): the request is written at the tail. The head goes back into
// the request port, ahead of new requests, when something may have changed for it: a
// miss register ended its replays, a parked replay was taken (a park slot is free), the
// head before it left, or Timeout cycles passed without any of these. The entries after
// it follow, one a cycle, up to two out at once (in flight: the port's two entries),
// and P0 decides them in order: it starts one (pop) or defers it again (requeue). After
// a requeue every later entry in flight is deferred again too (squash_o), and when none
// is left in flight the next one out is the requeued entry again (a rewind): so entries
// leave only from the head, nothing overtakes an older entry, and a port request whose
// QPN is here is deferred too (match_o): the requests of one QPN keep their order
// (SPEC.md §2).
//
// P0's decision arrives a cycle late (pop_i, requeue_i: registered in qpm_parking_port),
// so nothing here is on the path of that decision but the push. Meanwhile a popped entry
// still counts in flight (not in the match or count_o), and a requeue squashes at once
// (squash_o) and stops the offer until it is applied.
//
// The requests (a write carries a whole QPC) are in a RAM, read a cycle ahead of the
// offer; only the QPNs, for the match, are flip-flops (and whether the index is a QPN:
// a deferred MAP/UNMAP's is a page). The queue never refuses a push: the port takes a new
// request only while every request in it could still be deferred (qpm_parking_port:
// count_o plus the port's entries below Depth).
`include "qpm_assert.svh"

module qpm_defer_queue #(
  parameter int unsigned Depth   = 8,
  parameter int unsigned Mshrs   = 8,
  parameter int unsigned Timeout = 32,   // cycles the head waits for an event at most
  localparam int unsigned IdxW = (Depth > 1) ? $clog2(Depth) : 1,
  localparam int unsigned CntW = $clog2(Depth + 1),
  localparam int unsigned TmoW = $clog2(Timeout + 1)
) (
  input  logic                      clk_i,
  input  logic                      rst_ni,
  // a port request deferred by P0 (there is always room: see the header)
  input  logic                      push_i,
  input  qpm_pkg::ctx_req_t         push_req_i,
  // the next entry, offered to the request port again
  output logic                      out_valid_o,
  output qpm_pkg::ctx_req_t         out_req_o,
  input  logic                      out_take_i,
  // the oldest entry in flight, as P0 decided it in the cycle before (registered)
  input  logic                      pop_i,       // started: it leaves
  input  logic                      requeue_i,   // deferred again: it stays
  output logic                      squash_o,    // P0 must defer the entries in flight
  // what may let the head start
  input  logic [Mshrs-1:0]          replaying_i, // miss registers replaying their waiters
  input  logic                      take_i,      // a parked replay was taken
  // the port's head request: does an older request of its QPN wait here
  input  logic [qpm_pkg::QpnW-1:0]  match_qpn_i,
  output logic                      match_o,
  output logic [CntW-1:0]           count_o      // entries (a pop of last cycle applied)
);

  localparam int unsigned QpnW = qpm_pkg::QpnW;

  logic [Depth-1:0] valid_q, is_qpn_q;
  logic [QpnW-1:0]  qpn_q [Depth];
  logic [IdxW-1:0]  wr_ptr_q, rd_ptr_q, out_ptr_q, out_next;
  logic [CntW-1:0]  count_q;
  logic [1:0]       flight_q, flight_d;
  logic             staged_q, squash_q, wake_q;
  logic [TmoW-1:0]  timer_q;
  logic [Mshrs-1:0] replaying_q;

  function automatic logic [IdxW-1:0] next_idx(logic [IdxW-1:0] idx);
    next_idx = (32'(idx) == Depth - 1) ? '0 : idx + IdxW'(1);
  endfunction
  assign out_next = next_idx(out_ptr_q);

  // In flight: entries rd_ptr_q .. out_ptr_q - 1. A requeue squashes the rest of them;
  // when the last one in flight is deferred again, out_ptr_q goes back to the head.
  logic rewind;
  assign flight_d = flight_q + 2'(out_take_i) - 2'(pop_i) - 2'(requeue_i);
  assign rewind   = (requeue_i || squash_q) && flight_d == '0;

  // The next entry out is read out of the RAM a cycle ahead (staged), from an entry
  // written in an earlier cycle (count_q counts only those). The RAM keeps its output
  // until the next read. After a rewind the head is read again; nothing is read while
  // a squash runs (in flight then counts the entries still to be decided, not out_ptr_q's
  // distance from the head).
  logic            read_now;
  logic [CntW-1:0] not_out;   // entries not yet out, after this cycle's take
  assign not_out  = count_q - CntW'(flight_q) - CntW'(out_take_i);
  assign read_now = rewind || (!squash_q && (!staged_q || out_take_i) && not_out != '0);
  qpm_ram_2p #(
    .Width ($bits(push_req_i)),
    .Depth (Depth)
  ) u_ram (
    .clk_i   (clk_i),
    .re_i    (read_now),
    .raddr_i (rewind ? rd_ptr_q : out_take_i ? out_next : out_ptr_q),
    .rdata_o (out_req_o),
    .we_i    (push_i),
    .waddr_i (wr_ptr_q),
    .wdata_i (push_req_i),
    .wmask_i ({$bits(push_req_i){1'b1}})
  );

  // An event that may let the head start; the timer makes sure it tries again even if
  // none comes (a miss register of a write-fault mark ends without replays). The entries
  // after an entry in flight follow it without one.
  logic event_now, timed_out;
  assign event_now   = take_i || pop_i || ((replaying_q & ~replaying_i) != '0);
  assign timed_out   = 32'(timer_q) == Timeout - 1;
  // Out and not yet decided (a pop decided last cycle, still counted in flight_q, is not):
  // the next entry follows one of them at once, or the head's leaving (pop_i).
  logic [1:0] undecided;
  assign undecided   = flight_q - 2'(pop_i);
  assign out_valid_o = staged_q && !squash_q && !requeue_i
                    && (undecided == 2'd1 || (undecided == '0 && (wake_q || pop_i)));
  assign squash_o    = squash_q || requeue_i;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_ptr_q    <= '0;
      rd_ptr_q    <= '0;
      out_ptr_q   <= '0;
      count_q     <= '0;
      flight_q    <= '0;
      staged_q    <= 1'b0;
      squash_q    <= 1'b0;
      wake_q      <= 1'b0;
      timer_q     <= '0;
      replaying_q <= '0;
    end else begin
      replaying_q <= replaying_i;
      if (push_i) wr_ptr_q <= next_idx(wr_ptr_q);
      if (pop_i)  rd_ptr_q <= next_idx(rd_ptr_q);
      if (rewind)          out_ptr_q <= rd_ptr_q;
      else if (out_take_i) out_ptr_q <= out_next;
      count_q     <= count_q + CntW'(push_i) - CntW'(pop_i);
      flight_q    <= flight_d;
      squash_q    <= (squash_q || requeue_i) && flight_d != '0;
      staged_q    <= read_now || (staged_q && !out_take_i);
      // An event while nothing waits here is kept only for a request deferred now.
      wake_q      <= ((event_now || timed_out) && (count_q != '0 || push_i))
                  || (wake_q && !out_take_i && count_q != '0);
      if (out_take_i || count_q == '0 || flight_q != '0 || wake_q) timer_q <= '0;
      else                                                         timer_q <= timer_q + TmoW'(1);
    end
  end

  for (genvar g = 0; g < Depth; g++) begin : gen_slot
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        valid_q[g]  <= 1'b0;
        is_qpn_q[g] <= 1'b0;
        qpn_q[g]    <= '0;
      end else if (push_i && wr_ptr_q == IdxW'(g)) begin
        valid_q[g]  <= 1'b1;
        is_qpn_q[g] <= push_req_i.op != qpm_pkg::CtxDirWrite && push_req_i.op != qpm_pkg::CtxSync;
        qpn_q[g]    <= push_req_i.index;
      end else if (pop_i && rd_ptr_q == IdxW'(g)) begin
        valid_q[g] <= 1'b0;
      end
    end
  end

  // The match and the count leave out an entry popped last cycle (pop_i: it is still
  // in the flip-flops until the end of this cycle), so a request of its QPN right behind
  // it is not deferred for nothing.
  logic [Depth-1:0] hit;
  for (genvar g = 0; g < Depth; g++) begin : gen_match
    assign hit[g] = valid_q[g] && is_qpn_q[g] && qpn_q[g] == match_qpn_i
                 && !(pop_i && rd_ptr_q == IdxW'(g));
  end
  assign match_o = hit != '0;
  assign count_o = count_q - CntW'(pop_i);

  `QPM_ASSERT_IMPL(PushHasRoom_A, push_i, 32'(count_q) < Depth)
  `QPM_ASSERT_IMPL(DecideInFlight_A, pop_i || requeue_i, flight_q != '0 && !(pop_i && requeue_i))
  `QPM_ASSERT_IMPL(PopNotSquashed_A, pop_i, !squash_q)
  `QPM_ASSERT_IMPL(TakeOffered_A, out_take_i, out_valid_o)
  `QPM_ASSERT(FlightInQueue_A, 32'(flight_q) <= 32'(count_q))
`ifndef SYNTHESIS
  // The staged word is the next entry out (its QPN is that slot's).
  logic [QpnW-1:0] staged_qpn, out_qpn;
  logic            out_valid_slot, tail_valid;
  assign staged_qpn     = out_req_o.index;
  assign out_qpn        = qpn_q[out_ptr_q];
  assign out_valid_slot = valid_q[out_ptr_q];
  assign tail_valid     = valid_q[wr_ptr_q];
  `QPM_ASSERT_IMPL(StagedIsNext_A, staged_q, out_valid_slot && staged_qpn == out_qpn)
  `QPM_ASSERT_IMPL(PushOnFree_A, push_i, !tail_valid)
`endif

endmodule
