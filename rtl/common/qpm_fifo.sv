// qpm_fifo: a synchronous FIFO in flip-flops, valid/ready on both sides.
//
// in_ready_o is !full; out_valid_o is !empty, and the head stays on out_data_o until
// out_ready_i takes it (AXI rule). count_o lets a producer reserve room ahead (credits).
module qpm_fifo #(
  parameter int unsigned Width = 8,
  parameter int unsigned Depth = 4,
  localparam int unsigned PtrW = (Depth > 1) ? $clog2(Depth) : 1
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             in_valid_i,
  output logic             in_ready_o,
  input  logic [Width-1:0] in_data_i,
  output logic             out_valid_o,
  input  logic             out_ready_i,
  output logic [Width-1:0] out_data_o,
  output logic [PtrW:0]    count_o
);

  if (Depth < 2 || (1 << PtrW) != Depth) begin : gen_bad_depth
    $error("Depth must be a power of two, at least 2");
  end

  logic [Width-1:0] mem_q [Depth];
  logic [PtrW-1:0]  rd_q, wr_q;
  logic [PtrW:0]    count_q;
  logic             push, pop;

  assign in_ready_o  = 32'(count_q) < Depth;
  assign out_valid_o = count_q != '0;
  assign out_data_o  = mem_q[rd_q];
  assign count_o     = count_q;
  assign push        = in_valid_i && in_ready_o;
  assign pop         = out_valid_o && out_ready_i;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rd_q    <= '0;
      wr_q    <= '0;
      count_q <= '0;
    end else begin
      if (push) wr_q <= wr_q + PtrW'(1);
      if (pop)  rd_q <= rd_q + PtrW'(1);
      count_q <= count_q + (PtrW + 1)'(push) - (PtrW + 1)'(pop);
    end
  end

  for (genvar g = 0; g < Depth; g++) begin : gen_entry
    always_ff @(posedge clk_i) begin
      if (push && wr_q == PtrW'(g)) mem_q[g] <= in_data_i;
    end
  end

endmodule
