// qpm_lw_keep: the line-write bundle a kept tag word applies (docs/qp-cache.md section 19,
// "Registered ends for the take"): this cycle's write A with last cycle's write B. A
// miss register's take (write B) is decided late in its cycle; the words the request port
// and the tag views keep take it a cycle later, so the victim choice ends at these
// flip-flops instead of running on through every kept word's patch. Their readers clear
// last cycle's write B on the way out (the ways it hit, registered by each keeper).
module qpm_lw_keep #(
  parameter int unsigned Sets = 64,
  parameter int unsigned Ways = 4,
  parameter int unsigned TagW = 18,
  localparam int unsigned SetW = (Sets > 1) ? $clog2(Sets) : 1,
  localparam int unsigned WayW = (Ways > 1) ? $clog2(Ways) : 1,
  localparam int unsigned EntW = TagW + 2,
  localparam int unsigned LwW  = 2 * (SetW + WayW) + EntW + 6
) (
  input  logic           clk_i,
  input  logic           rst_ni,
  input  logic [LwW-1:0] lw_i,        // the cycle's line writes
  output logic [LwW-1:0] lw_keep_o    // its write A, last cycle's write B
);

`include "qpm_line_write.svh"

  logic            b_q;
  logic [SetW-1:0] b_set_q;
  logic [WayW-1:0] b_way_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      b_q     <= 1'b0;
      b_set_q <= '0;
      b_way_q <= '0;
    end else begin
      b_q     <= lw_i[LwB];
      b_set_q <= lw_i[LwBSet +: SetW];
      b_way_q <= lw_i[LwBWay +: WayW];
    end
  end

  always_comb begin
    lw_keep_o                 = lw_i;
    lw_keep_o[LwB]            = b_q;
    lw_keep_o[LwBSet +: SetW] = b_set_q;
    lw_keep_o[LwBWay +: WayW] = b_way_q;
  end

endmodule
