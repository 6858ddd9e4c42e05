// Properties of qpm_spill_reg (docs/formal.md): the output keeps the valid/ready rule,
// and every item taken leaves once, in order (the producer numbers its items; the
// consumer must see the same numbers in sequence). Any producer and consumer.
module qpm_spill_reg_props #(
  parameter int unsigned Width = 4
) (
  input logic             clk_i,
  input logic             rst_ni,
  input logic             in_valid_i,
  input logic [Width-1:0] in_data_i,
  input logic             out_ready_i
);

  logic             in_ready, out_valid;
  logic [Width-1:0] out_data;
  qpm_spill_reg #(.Width(Width)) u_dut (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (in_valid_i),
    .in_ready_o  (in_ready),
    .in_data_i   (in_data_i),
    .out_valid_o (out_valid),
    .out_ready_i (out_ready_i),
    .out_data_o  (out_data)
  );

  `include "qpm_formal_reset.svh"

  // Items in order: the n-th item taken carries n (mod 2**Width).
  logic [Width-1:0] taken_q, left_q;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      taken_q <= '0;
      left_q  <= '0;
    end else begin
      if (in_valid_i && in_ready)   taken_q <= taken_q + Width'(1);
      if (out_valid && out_ready_i) left_q  <= left_q + Width'(1);
    end
  end

`ifdef P_ORDER
  always_comb assume (!in_valid_i || in_data_i == taken_q);
`endif
  always_ff @(posedge clk_i) begin
    if (past_valid) begin
`ifdef P_OUT_STABLE
      if ($past(out_valid && !out_ready_i)) assert (out_valid && out_data == $past(out_data));
`endif
`ifdef P_ORDER
      if (out_valid) assert (out_data == left_q);
      // at most two items inside; ready whenever fewer than two
      assert (Width'(taken_q - left_q) <= Width'(2));
      assert (in_ready == (Width'(taken_q - left_q) < Width'(2)));
`endif
    end
  end

endmodule
