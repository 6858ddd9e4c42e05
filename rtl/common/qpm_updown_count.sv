// qpm_updown_count: a counter that takes up to two increments and two decrements a
// cycle. The five sums it can move to (count - 2 .. count + 2) are formed from the count
// alone, and the events only choose one: an event that arrives late in the cycle meets a
// small sum and an AND-OR choice, not an adder chain (docs/capacity.md, "Timing proxy").
// The caller keeps the count in range (its own assertions).
module qpm_updown_count #(
  parameter int unsigned W = 8
) (
  input  logic         clk_i,
  input  logic         rst_ni,
  input  logic [1:0]   inc_i,
  input  logic [1:0]   dec_i,
  output logic [W-1:0] count_o
);

  logic [W-1:0] count_q, count_d, plus1, plus2, minus1, minus2;
  logic [1:0]   ups, downs;
  logic         d_p2, d_p1, d_0, d_m1, d_m2;   // the cycle's move, one-hot
  assign ups    = 2'(inc_i[0]) + 2'(inc_i[1]);
  assign downs  = 2'(dec_i[0]) + 2'(dec_i[1]);
  assign d_p2   = ups == 2'd2 && downs == 2'd0;
  assign d_p1   = (ups == 2'd1 && downs == 2'd0) || (ups == 2'd2 && downs == 2'd1);
  assign d_m1   = (ups == 2'd0 && downs == 2'd1) || (ups == 2'd1 && downs == 2'd2);
  assign d_m2   = ups == 2'd0 && downs == 2'd2;
  assign d_0    = !(d_p2 || d_p1 || d_m1 || d_m2);
  // An AND-OR choice, not a multiplexer: Yosys shares the adders in front of a
  // multiplexer (opt_share), which would put the events before one adder again.
  assign plus1  = count_q + W'(1);
  assign plus2  = count_q + W'(2);
  assign minus1 = count_q - W'(1);
  assign minus2 = count_q - W'(2);
  assign count_d = ({W{d_p2}} & plus2) | ({W{d_p1}} & plus1) | ({W{d_0}} & count_q)
                 | ({W{d_m1}} & minus1) | ({W{d_m2}} & minus2);
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) count_q <= '0;
    else         count_q <= count_d;
  end
  assign count_o = count_q;

endmodule
