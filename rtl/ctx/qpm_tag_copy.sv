// qpm_tag_copy: one copy of the QP cache's tags and line bits in RAM (docs/qp-cache.md
// section 19, "Tags and line bits in RAM"): one qpm_ram_2p per way, Sets entries of
// {tag, valid, pinned}, so each of the cycle's two line writes (qpm_line_write.svh, never
// on one way) has its way's write port, and a read returns the whole set. A read is
// registered like every RAM's: word_o is valid in the cycle after re_i, and is the set's
// entries as they are at the end of the read cycle (that cycle's writes are patched in:
// the RAM returns the old word). A user that keeps the word longer applies each later
// write itself (qpm_tag_patch).
module qpm_tag_copy #(
  parameter int unsigned Sets = 64,
  parameter int unsigned Ways = 4,
  parameter int unsigned TagW = 18,
  localparam int unsigned SetW = (Sets > 1) ? $clog2(Sets) : 1,
  localparam int unsigned WayW = (Ways > 1) ? $clog2(Ways) : 1,
  localparam int unsigned EntW = TagW + 2,
  localparam int unsigned LwW  = 2 * (SetW + WayW) + EntW + 6
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic                 re_i,
  input  logic [SetW-1:0]      rset_i,
  input  logic [LwW-1:0]       lw_i,
  output logic [Ways*EntW-1:0] word_o
);

`include "qpm_line_write.svh"

  logic [EntW-1:0] a_bits;
  assign a_bits = {{TagW{lw_i[LwAMask + 2]}}, lw_i[LwAMask +: 2]};

  logic [Ways*EntW-1:0] rdata;
  for (genvar w = 0; w < Ways; w++) begin : gen_way
    logic a_way, b_way;
    assign a_way = lw_i[LwA] && (lw_i[LwAAll] || lw_i[LwAWay +: WayW] == WayW'(w));
    assign b_way = lw_i[LwB] && lw_i[LwBWay +: WayW] == WayW'(w);
    qpm_ram_2p #(
      .Width (EntW),
      .Depth (Sets)
    ) u_ram (
      .clk_i   (clk_i),
      .re_i    (re_i),
      .raddr_i (rset_i),
      .rdata_o (rdata[w*EntW +: EntW]),
      .we_i    (a_way || b_way),
      .waddr_i (a_way ? lw_i[LwASet +: SetW] : lw_i[LwBSet +: SetW]),
      .wdata_i (a_way ? lw_i[LwAEnt +: EntW] : '0),
      .wmask_i (a_way ? a_bits : EntW'(2'b11))
    );
  end

  // The read cycle's set and writes.
  logic [SetW-1:0] rset_q;
  logic [LwW-1:0]  lw_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rset_q <= '0;
      lw_q   <= '0;
    end else begin
      if (re_i) rset_q <= rset_i;
      lw_q <= lw_i;
    end
  end

  qpm_tag_patch #(.Sets(Sets), .Ways(Ways), .TagW(TagW)) u_patch (
    .lw_i   (lw_q),
    .set_i  (rset_q),
    .word_i (rdata),
    .word_o (word_o)
  );

endmodule
