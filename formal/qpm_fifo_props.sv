// Properties of qpm_fifo (docs/formal.md): its output keeps the valid/ready rule (AXI:
// valid stays high and the payload stable until ready) and it never accepts when full,
// whatever the producer and the consumer do. Bounded model check from reset.
module qpm_fifo_props #(
  parameter int unsigned Width = 4,
  parameter int unsigned Depth = 4,
  localparam int unsigned PtrW = (Depth > 1) ? $clog2(Depth) : 1
) (
  input logic             clk_i,
  input logic             rst_ni,
  input logic             in_valid_i,
  input logic [Width-1:0] in_data_i,
  input logic             out_ready_i
);

  logic             in_ready, out_valid;
  logic [Width-1:0] out_data;
  logic [PtrW:0]    count;
  qpm_fifo #(.Width(Width), .Depth(Depth)) u_dut (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (in_valid_i),
    .in_ready_o  (in_ready),
    .in_data_i   (in_data_i),
    .out_valid_o (out_valid),
    .out_ready_i (out_ready_i),
    .out_data_o  (out_data),
    .count_o     (count)
  );

  `include "qpm_formal_reset.svh"

  always_ff @(posedge clk_i) begin
    if (past_valid) begin
`ifdef P_OUT_STABLE
      if ($past(out_valid && !out_ready_i)) assert (out_valid && out_data == $past(out_data));
`endif
`ifdef P_COUNT
      assert (32'(count) <= Depth && in_ready == (32'(count) < Depth) && out_valid == (count != '0));
`endif
    end
  end

endmodule
