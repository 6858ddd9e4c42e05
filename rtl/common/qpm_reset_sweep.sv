// qpm_reset_sweep: the index of a sweep that visits 0 .. N-1 once after reset, for a
// structure whose state sits in a RAM without a reset (the line state, the directory
// cache's valid bits): its owner clears the slot at idx_o while active_o, and says in
// step_i whether that cycle's clear was written (its write port may have had a better
// use). active_o falls after the clear of N-1.
module qpm_reset_sweep #(
  parameter int unsigned N = 16,
  localparam int unsigned IdxW = (N > 1) ? $clog2(N) : 1
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic            step_i,     // the clear of idx_o was written this cycle
  output logic            active_o,
  output logic [IdxW-1:0] idx_o
);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      active_o <= 1'b1;
      idx_o    <= '0;
    end else if (active_o && step_i) begin
      idx_o <= idx_o + IdxW'(1);
      if (32'(idx_o) == N - 1) active_o <= 1'b0;
    end
  end

endmodule
