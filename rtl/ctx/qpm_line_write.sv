// qpm_line_write: the QP cache's writes to its tags and line bits in RAM (docs/qp-cache.md
// section 19, "Tags and line bits in RAM"), as the bundle the tag copy and every kept word
// applies (qpm_line_write.svh), and the reset sweep that clears the valid bits (a RAM is
// not reset).
//
// A line's tag, valid and pinned bits change on four events, at most two a cycle, never
// two on one way (each way is a RAM with one write port):
//   write A  a fill (the tag, valid, unpinned) or a pin bit (a hit that pins, unpins, or
//            writes an invalid QPC), the pin bit a cycle after the hit or later: it
//            waits in a register (pin_q) for a cycle without a fill;
//   write B  a miss register's take of its victim (invalid, unpinned) or a maintenance
//            drop (invalid): a take waits in a cycle with a write A that may be on its
//            way, or while a pin waits on its way (qpm_cache_tags); a drop waits in a
//            decision's cycle (a take may come), while a pin waits on its way, or when a
//            fill writes its way (qpm_cache_data_side's drop_hold).
// The pin register cuts the path from P0's lookup and decision through this write into
// every kept word (docs/capacity.md, "Timing proxy"). While it waits, its line is kept
// out of the takes, and a PIN of its set waits (the set's pinned bits are a cycle old);
// a drop of the line in the cycle of its hit cancels it (the line is gone, so would its
// pin bit be). A new pin comes only in a cycle without a fill (the pipe keeps them
// apart), so the waiting one is written in that very cycle: one register is enough.
// After reset the sweep writes every set's valid and pinned bits to 0, one set a cycle
// (write A on every way), and holds the request port (hold_o, a register) until it is
// done: Sets cycles.
`include "qpm_assert.svh"

module qpm_line_write #(
  parameter int unsigned Sets = 64,
  parameter int unsigned Ways = 4,
  localparam int unsigned SetW  = (Sets > 1) ? $clog2(Sets) : 1,
  localparam int unsigned WayW  = (Ways > 1) ? $clog2(Ways) : 1,
  localparam int unsigned LineW = $clog2(Sets * Ways),
  localparam int unsigned TagW  = qpm_pkg::QpnW - SetW,
  localparam int unsigned EntW  = TagW + 2,
  localparam int unsigned LwW   = 2 * (SetW + WayW) + EntW + 6
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             fill_i,
  input  logic [LineW-1:0] fill_line_i,
  input  logic [TagW-1:0]  fill_tag_i,
  input  logic             pin_i,          // the looked-up line's pin bit ...
  input  logic             pin_value_i,    // ... becomes this (on a hit)
  input  logic             look_hit_i,
  input  logic [LineW-1:0] look_line_i,
  input  logic             reserve_i,      // a miss register takes this line
  input  logic [LineW-1:0] reserve_line_i,
  input  logic             drop_i,         // maintenance drops this line
  input  logic [LineW-1:0] drop_line_i,
  output logic             hold_o,         // the reset sweep runs
  output logic             pin_pend_o,     // a pin bit waits to be written ...
  output logic [LineW-1:0] pin_line_o,     // ... on this line ...
  output logic             pin_write_o,    // ... and is now ...
  output logic             pin_value_o,    // ... with this value
  output logic [LwW-1:0]   lw_o
);

`include "qpm_line_write.svh"

  logic            sweep_q;
  logic [SetW-1:0] sweep_set_q;
  qpm_reset_sweep #(.N(Sets)) u_sweep (
    .clk_i    (clk_i),
    .rst_ni   (rst_ni),
    .step_i   (1'b1),   // the sweep owns port A while it runs
    .active_o (sweep_q),
    .idx_o    (sweep_set_q)
  );
  assign hold_o = sweep_q;

  logic             pin_q, pin_value_q, pin_new, pin_write;
  logic [LineW-1:0] pin_line_q;
  assign pin_new   = pin_i && look_hit_i && !(drop_i && drop_line_i == look_line_i);
  assign pin_write = pin_q && !fill_i && !sweep_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pin_q       <= 1'b0;
      pin_value_q <= 1'b0;
      pin_line_q  <= '0;
    end else if (pin_new) begin
      pin_q       <= 1'b1;
      pin_value_q <= pin_value_i;
      pin_line_q  <= look_line_i;
    end else if (pin_write) begin
      pin_q       <= 1'b0;
    end
  end
  assign pin_pend_o  = pin_q;
  assign pin_line_o  = pin_line_q;
  assign pin_write_o = pin_write;
  assign pin_value_o = pin_value_q;

  logic [LineW-1:0] a_line, b_line;
  assign a_line    = fill_i ? fill_line_i : pin_line_q;
  // Chosen by the drop (early), not the take (late, after the victim choice): the take's
  // set is its register's, at hand early, so only write B's valid and way arrive late.
  assign b_line    = drop_i ? drop_line_i : reserve_line_i;
  always_comb begin
    lw_o = '0;
    lw_o[LwA]    = sweep_q || fill_i || pin_write;
    lw_o[LwAAll] = sweep_q;
    lw_o[LwASet +: SetW] = sweep_q ? sweep_set_q : a_line[LineW-1 -: SetW];
    lw_o[LwAWay +: WayW] = a_line[WayW-1:0];
    // {tag, valid, pinned}: a fill all three, a pin its bit, the sweep valid and pinned
    lw_o[LwAMask +: 3]   = sweep_q ? 3'b011 : fill_i ? 3'b111 : 3'b001;
    lw_o[LwAEnt +: EntW] = fill_i ? {fill_tag_i, 2'b10} : EntW'(pin_value_q && !sweep_q);
    lw_o[LwB]            = reserve_i || drop_i;
    lw_o[LwBSet +: SetW] = b_line[LineW-1 -: SetW];
    lw_o[LwBWay +: WayW] = b_line[WayW-1:0];
  end

`ifndef SYNTHESIS
  // One write A and one write B a cycle, never on one way; nothing else in the sweep.
  `QPM_ASSERT(OneLineWriteA_A, $onehot0({sweep_q, fill_i, pin_write}))
  `QPM_ASSERT(OneLineWriteB_A, $onehot0({reserve_i, drop_i}))
  // A new pin comes in a cycle without a fill: the waiting one is written then.
  `QPM_ASSERT_IMPL(OnePinWaits_A, pin_new, !pin_q || pin_write)
  `QPM_ASSERT_IMPL(LineWritesApart_A, lw_o[LwA] && lw_o[LwB],
                   !lw_o[LwAAll] && lw_o[LwAWay +: WayW] != lw_o[LwBWay +: WayW])
`endif

endmodule
