// qpm_tag_views: the QP cache's one copy of the tags and line bits in RAM (qpm_tag_copy)
// and what reads it (docs/qp-cache.md section 19, "Tags and line bits in RAM"), and the
// pipe's lookup word.
//
// One read a cycle, in this order: a miss register's victim step (for its decision in
// the next cycle: the victim's QPN and line bits, the trap question's tags:
// step_word_o), the staged replay's set, the write-back buffer's mark, the maintenance
// scan, and last the request port's entry (qpm_cache_port: port_word_o, with
// port_fresh_o, a register, in the next cycle). The line state's RAM (qpm_cache_lines) is
// read in the same cycles, for the same set (rd_o), for the step and the scan. The
// replay, the mark and the scan each keep the word of their set, applying every later
// line write, and read again when their set or QPN changes. Whoever lost the read is
// owed it: owed_o (a register) keeps the miss registers' victim steps back in the next
// cycle, and an owed port goes before the replay, the mark and the scan. So the port
// waits at most a cycle for a read, and a replay, mark or scan a few (each loses only
// to a step, the owed port or one of the others, each wanting one read); a stream of
// hits, which reads nothing here but the port's words, loses no cycle.
//
// The lookup: a port request decides with the word its entry of the request port carries
// (qpm_cache_port), a mark with the mark's word, a replay with the replay's word (its
// QPN is on the line of its miss register, which owns that way from its take until it
// is free, qpm_mshr_file: it matches that way, no tag compare). Each word is its set as
// it was at the end of the cycle before, as flip-flops would be read.
//
// A miss register's take (write B) comes late in its cycle: the kept words apply it a
// cycle later (qpm_lw_keep, as qpm_cache_port does), and their readers see last cycle's
// write B on the way out (kept_b), so the victim choice ends at a flip-flop here.
`include "qpm_assert.svh"

module qpm_tag_views #(
  parameter int unsigned Sets = 64,
  parameter int unsigned Ways = 4,
  localparam int unsigned SetW  = (Sets > 1) ? $clog2(Sets) : 1,
  localparam int unsigned WayW  = (Ways > 1) ? $clog2(Ways) : 1,
  localparam int unsigned LineW = $clog2(Sets * Ways),
  localparam int unsigned QpnW  = qpm_pkg::QpnW,
  localparam int unsigned TagW  = QpnW - SetW,
  localparam int unsigned EntW  = TagW + 2,
  localparam int unsigned LwW   = 2 * (SetW + WayW) + EntW + 6
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic [LwW-1:0]       lw_i,            // the cycle's line writes
  // a miss register's victim step reads the set
  input  logic                 step_read_i,
  input  logic [SetW-1:0]      step_set_i,
  output logic [Ways*EntW-1:0] step_word_o,     // the cycle after step_read_i
  output logic                 owed_o,
  // the maintenance scan's line
  input  logic                 scan_want_i,
  input  logic [LineW-1:0]     scan_line_i,
  output logic                 scan_ok_o,       // scan_qpn_o is the line's tag ...
  output logic [QpnW-1:0]      scan_qpn_o,
  output logic                 scan_valid_o,    // ... and this its valid bit
  output logic [Ways-1:0]      scan_set_valid_o, // the valid bits of its set's word
  // the staged replay's set
  input  logic                 replay_want_i,
  input  logic [SetW-1:0]      replay_set_i,
  output logic                 replay_ok_o,     // registered: the replay's word is at hand
  input  logic                 replay_take_i,   // the pipe takes the staged replay now
  // the announced write-back entry's mark
  input  logic                 mark_valid_i,
  input  logic [QpnW-1:0]      mark_qpn_i,
  output logic                 mark_ok_o,       // registered: the mark's word is at hand
  // the request port's entry (qpm_cache_port): last in the order, first when owed
  input  logic                 port_re_i,
  input  logic [SetW-1:0]      port_set_i,
  output logic                 port_fresh_o,    // registered: port_word_o is its read
  output logic [Ways*EntW-1:0] port_word_o,
  // the pipe's lookup
  input  logic [TagW-1:0]      look_tag_i,
  input  logic                 look_replay_i,
  input  logic [WayW-1:0]      look_replay_way_i,
  input  logic                 look_replay_word_i, // else its way is valid, no pins read
  input  logic                 look_mark_i,
  input  logic [Ways*EntW-1:0] look_port_tags_i,
  output logic [Ways-1:0]      look_match_o,    // the tag is the QPN's (or the replay's way)
  output logic [Ways-1:0]      look_valid_o,
  output logic [Ways-1:0]      look_pinned_o,
  // the read of this cycle, for the line state's RAM (a step's or the scan's)
  output logic                 rd_o,
  output logic [SetW-1:0]      rd_set_o,
  output logic                 rd_scan_o
);

  logic [Ways*EntW-1:0] word, mark_word_q, mark_word_d, scan_word_q, scan_word_d;
  logic [Ways*EntW-1:0] rp_word_q, rp_word_d;
  logic [QpnW-1:0]      mark_qpn_q, mark_rd_qpn_q;
  logic [SetW-1:0]      scan_set, scan_set_q, scan_rd_set_q, rp_set_q, rp_rd_set_q;
  logic                 mark_ok_q, mark_rd_q, scan_valid_q, scan_rd_q, owed_q;
  logic                 rp_valid_q, rp_rd_q;
  logic                 mark_want, scan_want, rp_want, mark_go, scan_go, rp_go;
  logic                 port_go, port_owed_q, port_fresh_q;

`include "qpm_line_write.svh"

  // This cycle's write A with last cycle's write B: what the kept words apply.
  logic [LwW-1:0] lw_keep;
  qpm_lw_keep #(.Sets(Sets), .Ways(Ways), .TagW(TagW)) u_lw_keep (
    .clk_i     (clk_i),
    .rst_ni    (rst_ni),
    .lw_i      (lw_i),
    .lw_keep_o (lw_keep)
  );

  // A kept word as its reader sees it: last cycle's write B applied, on the ways it hit
  // (compared with the word's set then, lw_b_hit, and registered).
  function automatic logic [Ways*EntW-1:0] kept_b(logic [Ways*EntW-1:0] kept,
                                                 logic [Ways-1:0] hit);
    logic [Ways*EntW-1:0] seen;
    seen = kept;
    for (int unsigned w = 0; w < Ways; w++) begin
      if (hit[w]) seen[w*EntW +: 2] = 2'b00;
    end
    kept_b = seen;
  endfunction
  logic [Ways-1:0]      rp_b_q, mark_b_q, scan_b_q;
  logic [Ways*EntW-1:0] rp_word, mark_word, scan_word;
  assign rp_word   = kept_b(rp_word_q, rp_b_q);
  assign mark_word = kept_b(mark_word_q, mark_b_q);
  assign scan_word = kept_b(scan_word_q, scan_b_q);
  // The words' sets in the next cycle are their patches' sets now.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rp_b_q   <= '0;
      rp_ok_q  <= 1'b0;
      mark_b_q <= '0;
      scan_b_q <= '0;
    end else begin
      rp_b_q   <= lw_b_hit(lw_i, rp_rd_q ? rp_rd_set_q : rp_set_q);
      rp_ok_q  <= replay_want_i && !replay_take_i && (rp_valid_q || rp_rd_q)
                  && (rp_rd_q ? rp_rd_set_q : rp_set_q) == replay_set_i;
      mark_b_q <= lw_b_hit(lw_i, mark_rd_q ? mark_rd_qpn_q[SetW-1:0] : mark_qpn_q[SetW-1:0]);
      scan_b_q <= lw_b_hit(lw_i, scan_rd_q ? scan_rd_set_q : scan_set_q);
    end
  end

  assign scan_set    = scan_line_i[LineW-1 -: SetW];
  // The mark's QPN (the announced entry's) changes only after the request has been down
  // a cycle (qpm_wb_buffer: a new announcement needs the old one gone), so a word read
  // while the request stayed up is its word: a flag, no compare of the QPNs.
  assign mark_ok_o   = mark_ok_q;
  assign scan_ok_o   = scan_valid_q && scan_set_q == scan_set;
  // The replay's word is at hand: a compare (for the read) and, for the pipe, the same
  // compare made a cycle ahead for the word and the replay of the next cycle (a staged
  // replay stays until taken, StageStable_A in qpm_park_pool), so the pipe's choice of
  // its request starts from a flip-flop. A replay staged anew waits that first cycle (a
  // port request may use it).
  logic rp_same, rp_ok_q;
  assign rp_same     = rp_valid_q && rp_set_q == replay_set_i;
  assign replay_ok_o = rp_ok_q;
  assign rp_want     = replay_want_i && !rp_same && !rp_rd_q;
  assign mark_want   = mark_valid_i && !mark_ok_o && !mark_rd_q;
  assign scan_want   = scan_want_i && !scan_ok_o && !scan_rd_q;
  // An owed port goes first (the steps are kept back by owed_o then).
  assign rp_go       = rp_want && !step_read_i && !port_owed_q;
  assign mark_go     = mark_want && !step_read_i && !rp_want && !port_owed_q;
  assign scan_go     = scan_want && !step_read_i && !rp_want && !mark_want && !port_owed_q;
  assign port_go     = port_re_i && !step_read_i && !rp_go && !mark_go && !scan_go;

  qpm_tag_copy #(.Sets(Sets), .Ways(Ways), .TagW(TagW)) u_tags (
    .clk_i  (clk_i),
    .rst_ni (rst_ni),
    .re_i   (step_read_i || rp_go || mark_go || scan_go || port_go),
    .rset_i (step_read_i ? step_set_i : rp_go ? replay_set_i
             : mark_go ? mark_qpn_i[SetW-1:0] : scan_go ? scan_set : port_set_i),
    .lw_i   (lw_i),
    .word_o (word)
  );
  assign step_word_o  = word;
  assign port_word_o  = word;
  assign port_fresh_o = port_fresh_q;
  assign rd_o        = step_read_i || scan_go;
  assign rd_set_o    = step_read_i ? step_set_i : scan_set;
  assign rd_scan_o   = scan_go;

  // The kept words: read last cycle, or kept, with this cycle's writes.
  qpm_tag_patch #(.Sets(Sets), .Ways(Ways), .TagW(TagW)) u_patch_replay (
    .lw_i   (lw_keep),
    .set_i  (rp_rd_q ? rp_rd_set_q : rp_set_q),
    .word_i (rp_rd_q ? word : rp_word_q),
    .word_o (rp_word_d)
  );
  qpm_tag_patch #(.Sets(Sets), .Ways(Ways), .TagW(TagW)) u_patch_mark (
    .lw_i   (lw_keep),
    .set_i  (mark_rd_q ? mark_rd_qpn_q[SetW-1:0] : mark_qpn_q[SetW-1:0]),
    .word_i (mark_rd_q ? word : mark_word_q),
    .word_o (mark_word_d)
  );
  qpm_tag_patch #(.Sets(Sets), .Ways(Ways), .TagW(TagW)) u_patch_scan (
    .lw_i   (lw_keep),
    .set_i  (scan_rd_q ? scan_rd_set_q : scan_set_q),
    .word_i (scan_rd_q ? word : scan_word_q),
    .word_o (scan_word_d)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rp_valid_q    <= 1'b0;
      rp_rd_q       <= 1'b0;
      mark_ok_q     <= 1'b0;
      mark_rd_q     <= 1'b0;
      scan_valid_q  <= 1'b0;
      scan_rd_q     <= 1'b0;
      owed_q        <= 1'b0;
      port_owed_q   <= 1'b0;
      port_fresh_q  <= 1'b0;
      rp_set_q      <= '0;
      rp_rd_set_q   <= '0;
      mark_qpn_q    <= '0;
      mark_rd_qpn_q <= '0;
      scan_set_q    <= '0;
      scan_rd_set_q <= '0;
      rp_word_q     <= '0;
      mark_word_q   <= '0;
      scan_word_q   <= '0;
    end else begin
      owed_q      <= (rp_want || mark_want || scan_want) && (step_read_i || port_owed_q);
      port_owed_q <= port_re_i && !port_go;
      port_fresh_q <= port_go;
      rp_rd_q     <= rp_go;
      mark_rd_q   <= mark_go;
      scan_rd_q   <= scan_go;
      rp_word_q   <= rp_word_d;
      mark_word_q <= mark_word_d;
      scan_word_q <= scan_word_d;
      if (rp_go)   rp_rd_set_q   <= replay_set_i;
      if (mark_go) mark_rd_qpn_q <= mark_qpn_i;
      if (scan_go) scan_rd_set_q <= scan_set;
      if (rp_rd_q) begin
        rp_valid_q <= 1'b1;
        rp_set_q   <= rp_rd_set_q;
      end
      mark_ok_q   <= mark_valid_i && (mark_ok_q || mark_rd_q);
      if (mark_rd_q) mark_qpn_q <= mark_rd_qpn_q;
      if (scan_rd_q) begin
        scan_valid_q <= 1'b1;
        scan_set_q   <= scan_rd_set_q;
      end
    end
  end
  assign owed_o = owed_q || port_owed_q;

  logic [WayW-1:0] scan_way;
  assign scan_way     = scan_line_i[WayW-1:0];
  assign scan_qpn_o   = {scan_word[32'(scan_way)*EntW + 2 +: TagW], scan_set};
  assign scan_valid_o = scan_word[32'(scan_way)*EntW + 1];
  for (genvar w = 0; w < Ways; w++) begin : gen_scan_valid
    assign scan_set_valid_o[w] = scan_word[w*EntW + 1];
  end

  // The lookup's word: its ways' tags compared, their valid and pinned bits.
  logic [Ways*EntW-1:0] look_word;
  assign look_word = look_replay_i ? rp_word : look_mark_i ? mark_word : look_port_tags_i;
  for (genvar w = 0; w < Ways; w++) begin : gen_look
    assign look_match_o[w]  = look_replay_i ? look_replay_way_i == WayW'(w)
                                            : look_word[w*EntW + 2 +: TagW] == look_tag_i;
    assign look_valid_o[w]  = look_word[w*EntW + 1] || (look_replay_i && !look_replay_word_i);
    assign look_pinned_o[w] = look_word[w*EntW] && !(look_replay_i && !look_replay_word_i);
  end

`ifndef SYNTHESIS
  // The victim steps keep off the copy in a cycle a replay, mark, scan or the port is
  // owed it, and an owed port reads.
  `QPM_ASSERT_IMPL(OwedPortFree_A, owed_o, !step_read_i)
  `QPM_ASSERT_IMPL(OwedPortReads_A, port_owed_q && port_re_i, port_go)
  // The flag is the compare it replaces.
  `QPM_ASSERT_IMPL(MarkOkIsItsQpn_A, mark_ok_q && mark_valid_i, mark_qpn_q == mark_qpn_i)
  `QPM_ASSERT_IMPL(ReplayOkIsItsSet_A, replay_ok_o, rp_same)
`endif

endmodule
