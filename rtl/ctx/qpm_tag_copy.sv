// qpm_tag_copy: one copy of the QP cache's tags and line bits in RAM (docs/qp-cache.md
// section 19, "Tags and line bits in RAM"): one qpm_ram_2p per way, Sets entries of
// {tag, valid, pinned}, so each of the cycle's two line writes (qpm_line_write.svh, never
// on one way) has its way's write port, and a read returns the whole set. A read is
// registered like every RAM's: word_o is valid in the cycle after re_i, and is the set's
// entries as they are at the end of the read cycle (that cycle's writes are patched in:
// the RAM returns the old word; which ways they hit is decided in the read cycle). A user
// that keeps the word longer applies each later write itself (qpm_tag_patch).
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

  // The read cycle's writes, compared with the read's set in that cycle and registered
  // per way: the RAM's data meets only a way's multiplexer in the next cycle, not the
  // set compare (the read data starts the lookup's and the victim choice's paths).
  logic [Ways-1:0] a_hit_d, b_hit_d, a_hit_q, b_hit_q;
  logic [EntW-1:0] a_ent_q, a_bits_q;
  for (genvar w = 0; w < Ways; w++) begin : gen_hit
    assign a_hit_d[w] = gen_way[w].a_way && lw_i[LwASet +: SetW] == rset_i;
    assign b_hit_d[w] = gen_way[w].b_way && lw_i[LwBSet +: SetW] == rset_i;
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      a_hit_q  <= '0;
      b_hit_q  <= '0;
      a_ent_q  <= '0;
      a_bits_q <= '0;
    end else begin
      a_hit_q  <= a_hit_d;
      b_hit_q  <= b_hit_d;
      a_ent_q  <= lw_i[LwAEnt +: EntW];
      a_bits_q <= a_bits;
    end
  end

  for (genvar w = 0; w < Ways; w++) begin : gen_patch
    logic [EntW-1:0] ent;
    always_comb begin
      ent = rdata[w*EntW +: EntW];
      if (a_hit_q[w]) ent = (ent & ~a_bits_q) | (a_ent_q & a_bits_q);
      if (b_hit_q[w]) ent[1:0] = 2'b00;
    end
    assign word_o[w*EntW +: EntW] = ent;
  end

endmodule
