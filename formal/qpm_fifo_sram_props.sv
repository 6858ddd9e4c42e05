// Properties of qpm_fifo_sram (docs/formal.md, formal/fifo.toml): what qpm_fifo's proofs
// say (the output keeps the valid/ready rule; the count stays within the depth, ready
// means not full, valid not empty), and every item taken leaves exactly once and in
// order through the RAM and the output stage (the producer numbers its items; the
// consumer must see the numbers in sequence). Any producer and consumer.
module qpm_fifo_sram_props #(
  parameter int unsigned Width = 4,
  parameter int unsigned Depth = 4,
  localparam int unsigned PtrW = (Depth > 1) ? $clog2(Depth) : 1
) (
  input logic             clk_i,
  input logic             rst_ni,
  input logic             in_valid_i,
  input logic             out_ready_i
);

  logic             in_ready, out_valid;
  logic [Width-1:0] out_data, taken_q, left_q;
  logic [PtrW:0]    count;
  qpm_fifo_sram #(.Width(Width), .Depth(Depth)) u_dut (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (in_valid_i),
    .in_ready_o  (in_ready),
    .in_data_i   (taken_q),   // the n-th item taken carries n (mod 2**Width)
    .out_valid_o (out_valid),
    .out_ready_i (out_ready_i),
    .out_data_o  (out_data),
    .count_o     (count)
  );

  `include "qpm_formal_reset.svh"

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      taken_q <= '0;
      left_q  <= '0;
    end else begin
      if (in_valid_i && in_ready)   taken_q <= taken_q + Width'(1);
      if (out_valid && out_ready_i) left_q  <= left_q + Width'(1);
    end
  end

  always_ff @(posedge clk_i) begin
    if (past_valid) begin
      if ($past(out_valid && !out_ready_i)) assert (out_valid && out_data == $past(out_data));
      if (out_valid) assert (out_data == left_q);
      assert (32'(count) == 32'(Width'(taken_q - left_q)) && 32'(count) <= Depth);
      assert (in_ready == (32'(count) < Depth) && out_valid == (count != '0));
    end
  end

endmodule
