// qpm_parking_port: the QP cache's request port (docs/qp-cache.md section 21, "The
// parking port"): the spill register whose entries carry their set's tags
// (qpm_cache_port) and the requests P0 deferred (qpm_defer_queue). Wiring and the rules
// between the two:
//   - the deferred head goes back into the spill register before a new request;
//   - a new request goes in only while every request in the register could still be
//     deferred (the queue's entries and the register's below DeferDepth), so P0 never
//     waits for room: that full condition is the port's only back-pressure on requests
//     that cannot start, and in_ready_o is still from flip-flops. A deferred request
//     out in the register counts twice (in the queue and in the register): that slack
//     is what covers a pop the queue's count already left out (qpm_defer_queue);
//   - P0 is told whether its request is a deferred one again (out_retry_o), whether it
//     must be deferred (hold_order_o): a new request whose QPN has older requests
//     deferred (not a SYNC or MAP/UNMAP: their index is not a QPN), or a deferred one
//     after an older one in flight was deferred again
//     (qpm_defer_queue's squash); and whether any are deferred (hold_miss_o: a new
//     miss follows them to the next register).
module qpm_parking_port #(
  parameter int unsigned Sets       = 64,
  parameter int unsigned Ways       = 4,
  parameter int unsigned Mshrs      = 8,
  parameter int unsigned DeferDepth = Mshrs + 2,
  localparam int unsigned SetW = (Sets > 1) ? $clog2(Sets) : 1,
  localparam int unsigned WayW = (Ways > 1) ? $clog2(Ways) : 1,
  localparam int unsigned TagW = qpm_pkg::QpnW - SetW,
  localparam int unsigned EntW = TagW + 2,
  localparam int unsigned LwW  = 2 * (SetW + WayW) + EntW + 6,
  localparam int unsigned CntW = $clog2(DeferDepth + 1)
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic                 in_valid_i,
  output logic                 in_ready_o,
  input  qpm_pkg::ctx_req_t    in_req_i,
  output logic                 out_valid_o,
  input  logic                 out_ready_i,
  output qpm_pkg::ctx_req_t    out_req_o,
  output logic [Ways*EntW-1:0] out_tags_o,
  output logic                 out_retry_o,   // out_req_o was deferred before
  output logic                 hold_order_o,  // older requests of its QPN are deferred
  output logic                 hold_miss_o,   // older requests are deferred
  input  logic                 defer_i,       // P0 defers out_req_o (with out_ready_i)
  input  logic [Mshrs-1:0]     replaying_i,   // the deferred head's wake-ups
  input  logic                 take_i,
  input  logic                 hold_i,        // the reset sweep: take nothing
  input  logic [LwW-1:0]       lw_i,
  output logic                 ram_re_o,      // the tag copy's read (qpm_tag_views)
  output logic [SetW-1:0]      ram_set_o,
  input  logic                 ram_fresh_i,
  input  logic [Ways*EntW-1:0] ram_word_i
);

  logic              again_valid, again_take, spill_in_valid, spill_in_ready;
  logic              taken, room, match, squash, pop_q, requeue_q;
  logic [1:0]        spill_occupied;
  logic [CntW-1:0]   deferred;
  qpm_pkg::ctx_req_t again_req, spill_in_req;

  assign room           = 32'(deferred) + 32'(spill_occupied) < DeferDepth;
  assign again_take     = again_valid && spill_in_ready;
  assign spill_in_valid = again_valid || (in_valid_i && room);
  assign spill_in_req   = again_valid ? again_req : in_req_i;
  assign in_ready_o     = spill_in_ready && !again_valid && room;
  assign taken          = out_valid_o && out_ready_i;
  assign hold_order_o   = out_retry_o ? squash
                        : match && out_req_o.op != qpm_pkg::CtxSync
                                && out_req_o.op != qpm_pkg::CtxDirWrite;
  assign hold_miss_o    = !out_retry_o && deferred != '0;

  qpm_defer_queue #(
    .Depth (DeferDepth),
    .Mshrs (Mshrs)
  ) u_deferred (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .push_i      (taken && defer_i && !out_retry_o),
    .push_req_i  (out_req_o),
    .out_valid_o (again_valid),
    .out_req_o   (again_req),
    .out_take_i  (again_take),
    .pop_i       (pop_q),
    .requeue_i   (requeue_q),
    .squash_o    (squash),
    .replaying_i (replaying_i),
    .take_i      (take_i),
    .match_qpn_i (out_req_o.index),
    .match_o     (match),
    .count_o     (deferred)
  );

  // P0's decision of a deferred request, applied by the queue a cycle later: the decision
  // ends here, at a flip-flop (docs/capacity.md, "Timing proxy").
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pop_q     <= 1'b0;
      requeue_q <= 1'b0;
    end else begin
      pop_q     <= taken && out_retry_o && !defer_i;
      requeue_q <= taken && out_retry_o && defer_i;
    end
  end

  qpm_cache_port #(
    .Sets (Sets),
    .Ways (Ways)
  ) u_spill (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (spill_in_valid),
    .in_ready_o  (spill_in_ready),
    .in_req_i    (spill_in_req),
    .in_retry_i  (again_valid),
    .out_valid_o (out_valid_o),
    .out_ready_i (out_ready_i),
    .out_req_o   (out_req_o),
    .out_retry_o (out_retry_o),
    .occupied_o  (spill_occupied),
    .out_tags_o  (out_tags_o),
    .hold_i      (hold_i),
    .lw_i        (lw_i),
    .ram_re_o    (ram_re_o),
    .ram_set_o   (ram_set_o),
    .ram_fresh_i (ram_fresh_i),
    .ram_word_i  (ram_word_i)
  );

endmodule
