// qpm_spill_reg: a valid/ready boundary registered on both sides (common_cells'
// spill_register): two entries, out_valid_o and out_data_o come from a flop, and
// in_ready_o is a flop, so no combinational path crosses it in either direction.
//
// It still takes one item per cycle: entry A is the output; entry B catches the item that
// arrives in the cycle the consumer stalls, so in_ready_o can be "B is empty", known at
// the clock edge. An item spends one cycle in it when the consumer is ready
// (docs/qp-cache.md, "Registered boundaries").
module qpm_spill_reg #(
  parameter int unsigned Width = 8
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             in_valid_i,
  output logic             in_ready_o,
  input  logic [Width-1:0] in_data_i,
  output logic             out_valid_o,
  input  logic             out_ready_i,
  output logic [Width-1:0] out_data_o
);

  logic             a_full_q, b_full_q;
  logic [Width-1:0] a_data_q, b_data_q;
  logic             a_fill, a_drain, b_fill, b_drain;

  // A takes from B first (order), else from the input; B takes the input when A cannot.
  assign a_drain = a_full_q && out_ready_i;
  assign a_fill  = (!a_full_q || a_drain) && (b_full_q || (in_valid_i && in_ready_o));
  assign b_fill  = in_valid_i && in_ready_o && a_full_q && !a_drain;
  assign b_drain = b_full_q && a_fill;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      a_full_q <= 1'b0;
      b_full_q <= 1'b0;
    end else begin
      a_full_q <= a_fill || (a_full_q && !a_drain);
      b_full_q <= b_fill || (b_full_q && !b_drain);
    end
  end

  always_ff @(posedge clk_i) begin
    if (a_fill) a_data_q <= b_full_q ? b_data_q : in_data_i;
    if (b_fill) b_data_q <= in_data_i;
  end

  assign in_ready_o  = !b_full_q;
  assign out_valid_o = a_full_q;
  assign out_data_o  = a_data_q;

endmodule
