// qpm_tag_copy: one copy of the QP cache's tags in RAM (docs/qp-cache.md section 19,
// "Tags in RAM"): one qpm_ram_2p per way, Sets words of TagW bits, so a fill writes its
// way's tag alone and a read returns the whole set. A read is registered like every
// RAM's: word_o is valid in the cycle after re_i, and is the set's tags as they are at
// the end of the read cycle (a fill written in that cycle is patched in: the RAM returns
// the old word). A user that keeps the word longer applies each later fill itself
// (qpm_tag_patch).
module qpm_tag_copy #(
  parameter int unsigned Sets = 64,
  parameter int unsigned Ways = 4,
  parameter int unsigned TagW = 18,
  localparam int unsigned SetW = (Sets > 1) ? $clog2(Sets) : 1,
  localparam int unsigned WayW = (Ways > 1) ? $clog2(Ways) : 1
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic                 re_i,
  input  logic [SetW-1:0]      rset_i,
  input  logic                 fill_i,
  input  logic [SetW-1:0]      fill_set_i,
  input  logic [WayW-1:0]      fill_way_i,
  input  logic [TagW-1:0]      fill_tag_i,
  output logic [Ways*TagW-1:0] word_o
);

  logic [Ways*TagW-1:0] rdata;
  for (genvar w = 0; w < Ways; w++) begin : gen_way
    qpm_ram_2p #(
      .Width (TagW),
      .Depth (Sets)
    ) u_ram (
      .clk_i   (clk_i),
      .re_i    (re_i),
      .raddr_i (rset_i),
      .rdata_o (rdata[w*TagW +: TagW]),
      .we_i    (fill_i && fill_way_i == WayW'(w)),
      .waddr_i (fill_set_i),
      .wdata_i (fill_tag_i),
      .wmask_i ('1)
    );
  end

  // The read cycle's set and fill.
  logic            fill_q;
  logic [SetW-1:0] rset_q, fill_set_q;
  logic [WayW-1:0] fill_way_q;
  logic [TagW-1:0] fill_tag_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      fill_q     <= 1'b0;
      rset_q     <= '0;
      fill_set_q <= '0;
      fill_way_q <= '0;
      fill_tag_q <= '0;
    end else begin
      fill_q <= fill_i;
      if (re_i) rset_q <= rset_i;
      if (fill_i) begin
        fill_set_q <= fill_set_i;
        fill_way_q <= fill_way_i;
        fill_tag_q <= fill_tag_i;
      end
    end
  end

  qpm_tag_patch #(.Ways(Ways), .TagW(TagW)) u_patch (
    .word_i     (rdata),
    .fill_i     (fill_q && fill_set_q == rset_q),
    .fill_way_i (fill_way_q),
    .fill_tag_i (fill_tag_q),
    .word_o     (word_o)
  );

endmodule
