// qpm_tag_patch: one set's tag word with this cycle's line writes applied: the word a
// tag RAM read returned, or one a register keeps, brought up to date (docs/qp-cache.md
// section 19, "Tags and line bits in RAM"). Pure combinational.
//
// A way's entry is {tag, valid, pinned} (EntW = TagW + 2 bits, way w at
// [w*EntW +: EntW]); lw_i is the cycle's two writes (qpm_line_write.svh), applied when
// they are for set_i.
module qpm_tag_patch #(
  parameter int unsigned Sets = 64,
  parameter int unsigned Ways = 4,
  parameter int unsigned TagW = 18,
  localparam int unsigned SetW = (Sets > 1) ? $clog2(Sets) : 1,
  localparam int unsigned WayW = (Ways > 1) ? $clog2(Ways) : 1,
  localparam int unsigned EntW = TagW + 2,
  localparam int unsigned LwW  = 2 * (SetW + WayW) + EntW + 6
) (
  input  logic [LwW-1:0]       lw_i,
  input  logic [SetW-1:0]      set_i,       // the word's set
  input  logic [Ways*EntW-1:0] word_i,
  output logic [Ways*EntW-1:0] word_o
);

`include "qpm_line_write.svh"

  logic            a_here, b_here;
  logic [EntW-1:0] a_bits;
  assign a_here = lw_i[LwA] && lw_i[LwASet +: SetW] == set_i;
  assign b_here = lw_i[LwB] && lw_i[LwBSet +: SetW] == set_i;
  assign a_bits = {{TagW{lw_i[LwAMask + 2]}}, lw_i[LwAMask +: 2]};

  for (genvar w = 0; w < Ways; w++) begin : gen_way
    logic [EntW-1:0] ent;
    always_comb begin
      ent = word_i[w*EntW +: EntW];
      if (a_here && (lw_i[LwAAll] || lw_i[LwAWay +: WayW] == WayW'(w))) begin
        ent = (ent & ~a_bits) | (lw_i[LwAEnt +: EntW] & a_bits);
      end
      if (b_here && lw_i[LwBWay +: WayW] == WayW'(w)) ent[1:0] = 2'b00;
    end
    assign word_o[w*EntW +: EntW] = ent;
  end

endmodule
