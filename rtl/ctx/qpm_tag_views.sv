// qpm_tag_views: the victim copy of the QP cache's tags (qpm_tag_copy) and what reads it
// (docs/qp-cache.md section 19, "Tags in RAM"), and the match of the pipe's lookup.
//
// One read a cycle, in this order: a miss register's victim step (for its decision in
// the next cycle: the victim's QPN, the trap question's tags: step_word_o), the
// write-back buffer's mark, the maintenance scan. The line state's RAM (qpm_cache_lines)
// is read in the same cycles, for the same set (rd_o), except for the mark. The mark and
// the scan each keep the word of their set, applying every later fill, and read again
// when their QPN or set changes. A mark or scan that lost the port to a step has it in
// the next cycle: owed_o (a register) keeps the miss registers' victim steps back then.
//
// The lookup: a port request compares its QPN's tag with the word its entry of the
// request port carries (qpm_cache_port); a mark with the mark's word; a replay needs no
// tag: its QPN is on the line of its miss register, which owns that way from its take
// until it is free (qpm_mshr_file), so it hits exactly when that line is valid.
`include "qpm_assert.svh"

module qpm_tag_views #(
  parameter int unsigned Sets = 64,
  parameter int unsigned Ways = 4,
  localparam int unsigned SetW  = (Sets > 1) ? $clog2(Sets) : 1,
  localparam int unsigned WayW  = (Ways > 1) ? $clog2(Ways) : 1,
  localparam int unsigned LineW = $clog2(Sets * Ways),
  localparam int unsigned QpnW  = qpm_pkg::QpnW,
  localparam int unsigned TagW  = QpnW - SetW
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic                 fill_i,
  input  logic [SetW-1:0]      fill_set_i,
  input  logic [WayW-1:0]      fill_way_i,
  input  logic [TagW-1:0]      fill_tag_i,
  // a miss register's victim step reads the set
  input  logic                 step_read_i,
  input  logic [SetW-1:0]      step_set_i,
  output logic [Ways*TagW-1:0] step_word_o,     // the cycle after step_read_i
  output logic                 owed_o,
  // the maintenance scan's line
  input  logic                 scan_want_i,
  input  logic [LineW-1:0]     scan_line_i,
  output logic                 scan_ok_o,       // scan_qpn_o is the line's tag
  output logic [QpnW-1:0]      scan_qpn_o,
  // the announced write-back entry's mark
  input  logic                 mark_valid_i,
  input  logic [QpnW-1:0]      mark_qpn_i,
  output logic                 mark_ok_o,       // the mark's word is at hand
  // the pipe's lookup
  input  logic [TagW-1:0]      look_tag_i,
  input  logic                 look_replay_i,
  input  logic [WayW-1:0]      look_replay_way_i,
  input  logic                 look_mark_i,
  input  logic [Ways*TagW-1:0] look_port_tags_i,
  output logic [Ways-1:0]      look_match_o,
  // the read of this cycle, for the line state's RAM (not a mark's)
  output logic                 rd_o,
  output logic [SetW-1:0]      rd_set_o,
  output logic                 rd_scan_o
);

  logic [Ways*TagW-1:0] word, mark_word_q, mark_word_d, scan_word_q, scan_word_d;
  logic [QpnW-1:0]      mark_qpn_q, mark_rd_qpn_q;
  logic [SetW-1:0]      scan_set, scan_set_q, scan_rd_set_q;
  logic                 mark_valid_q, mark_rd_q, scan_valid_q, scan_rd_q, owed_q;
  logic                 mark_want, scan_want, mark_go, scan_go;

  assign scan_set  = scan_line_i[LineW-1 -: SetW];
  assign mark_ok_o = mark_valid_q && mark_qpn_q == mark_qpn_i;
  assign scan_ok_o = scan_valid_q && scan_set_q == scan_set;
  assign mark_want = mark_valid_i && !mark_ok_o && !mark_rd_q;
  assign scan_want = scan_want_i && !scan_ok_o && !scan_rd_q;
  assign mark_go   = mark_want && !step_read_i;
  assign scan_go   = scan_want && !step_read_i && !mark_want;

  qpm_tag_copy #(.Sets(Sets), .Ways(Ways), .TagW(TagW)) u_victim_tags (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .re_i       (step_read_i || mark_go || scan_go),
    .rset_i     (step_read_i ? step_set_i : mark_go ? mark_qpn_i[SetW-1:0] : scan_set),
    .fill_i     (fill_i),
    .fill_set_i (fill_set_i),
    .fill_way_i (fill_way_i),
    .fill_tag_i (fill_tag_i),
    .word_o     (word)
  );
  assign step_word_o = word;
  assign rd_o        = step_read_i || scan_go;
  assign rd_set_o    = step_read_i ? step_set_i : scan_set;
  assign rd_scan_o   = scan_go;

  // The kept words: read last cycle, or kept, with this cycle's fill.
  qpm_tag_patch #(.Ways(Ways), .TagW(TagW)) u_patch_mark (
    .word_i     (mark_rd_q ? word : mark_word_q),
    .fill_i     (fill_i && fill_set_i == (mark_rd_q ? mark_rd_qpn_q[SetW-1:0]
                                                    : mark_qpn_q[SetW-1:0])),
    .fill_way_i (fill_way_i),
    .fill_tag_i (fill_tag_i),
    .word_o     (mark_word_d)
  );
  qpm_tag_patch #(.Ways(Ways), .TagW(TagW)) u_patch_scan (
    .word_i     (scan_rd_q ? word : scan_word_q),
    .fill_i     (fill_i && fill_set_i == (scan_rd_q ? scan_rd_set_q : scan_set_q)),
    .fill_way_i (fill_way_i),
    .fill_tag_i (fill_tag_i),
    .word_o     (scan_word_d)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      mark_valid_q  <= 1'b0;
      mark_rd_q     <= 1'b0;
      scan_valid_q  <= 1'b0;
      scan_rd_q     <= 1'b0;
      owed_q        <= 1'b0;
      mark_qpn_q    <= '0;
      mark_rd_qpn_q <= '0;
      scan_set_q    <= '0;
      scan_rd_set_q <= '0;
      mark_word_q   <= '0;
      scan_word_q   <= '0;
    end else begin
      owed_q      <= (mark_want || scan_want) && step_read_i;
      mark_rd_q   <= mark_go;
      scan_rd_q   <= scan_go;
      mark_word_q <= mark_word_d;
      scan_word_q <= scan_word_d;
      if (mark_go) mark_rd_qpn_q <= mark_qpn_i;
      if (scan_go) scan_rd_set_q <= scan_set;
      if (mark_rd_q) begin
        mark_valid_q <= 1'b1;
        mark_qpn_q   <= mark_rd_qpn_q;
      end
      if (scan_rd_q) begin
        scan_valid_q <= 1'b1;
        scan_set_q   <= scan_rd_set_q;
      end
    end
  end
  assign owed_o = owed_q;

  logic [WayW-1:0] scan_way;
  assign scan_way   = scan_line_i[WayW-1:0];
  assign scan_qpn_o = {scan_word_q[32'(scan_way)*TagW +: TagW], scan_set};

  // The lookup's ways whose tag is the QPN's (qpm_cache_lines adds valid).
  logic [Ways*TagW-1:0] look_word;
  assign look_word = look_mark_i ? mark_word_q : look_port_tags_i;
  for (genvar w = 0; w < Ways; w++) begin : gen_match
    assign look_match_o[w] = look_replay_i ? look_replay_way_i == WayW'(w)
                                           : look_word[w*TagW +: TagW] == look_tag_i;
  end

`ifndef SYNTHESIS
  // The victim steps keep off the copy in a cycle a mark or the scan is owed it.
  `QPM_ASSERT_IMPL(OwedPortFree_A, owed_q, !step_read_i)
`endif

endmodule
