// qpm_hold_reg: one request held, unchanged, until the consumer takes it (the AXI rule
// of STYLE.md §2 rule 21: a payload never changes under a valid, and is never
// withdrawn). It is loaded only while empty, so a producer that loads it every time it
// is empty sends at most one request every two cycles; valid_o and data_o come from
// flops.
`include "qpm_assert.svh"

module qpm_hold_reg #(
  parameter int unsigned Width = 8
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             load_i,       // only while empty (valid_o low)
  input  logic [Width-1:0] data_i,
  output logic             valid_o,
  input  logic             ready_i,
  output logic [Width-1:0] data_o
);

  logic             valid_q;
  logic [Width-1:0] data_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= 1'b0;
      data_q  <= '0;
    end else begin
      valid_q <= load_i || (valid_q && !ready_i);
      if (load_i) data_q <= data_i;
    end
  end
  assign valid_o = valid_q;
  assign data_o  = data_q;

  `QPM_ASSERT_IMPL(LoadWhenEmpty_A, load_i, !valid_q)
  `QPM_ASSERT_NEXT(HeldUntilTaken_A, valid_o && !ready_i, valid_o && $stable(data_o))

endmodule
