// qpm_tag_patch: one set's tag word (Ways tags, way w at [w*TagW +: TagW]) with one
// fill applied: the word a tag RAM read returned, or one a register keeps, brought up to
// date with a fill of the same set (docs/qp-cache.md section 19, "Tags in RAM").
// Pure combinational.
module qpm_tag_patch #(
  parameter int unsigned Ways = 4,
  parameter int unsigned TagW = 18,
  localparam int unsigned WayW = (Ways > 1) ? $clog2(Ways) : 1
) (
  input  logic [Ways*TagW-1:0] word_i,
  input  logic                 fill_i,      // a fill of this word's set
  input  logic [WayW-1:0]      fill_way_i,
  input  logic [TagW-1:0]      fill_tag_i,
  output logic [Ways*TagW-1:0] word_o
);

  for (genvar w = 0; w < Ways; w++) begin : gen_way
    assign word_o[w*TagW +: TagW] = (fill_i && fill_way_i == WayW'(w)) ? fill_tag_i
                                                                       : word_i[w*TagW +: TagW];
  end

endmodule
