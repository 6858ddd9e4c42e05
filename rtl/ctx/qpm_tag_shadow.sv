// qpm_tag_shadow: assertion support for the tags in RAM (docs/qp-cache.md section 19),
// instantiated under `ifndef SYNTHESIS` only: nothing synthesized reads it. It keeps every
// line's tag in flip-flops, written by the fills as the RAM copies are, and checks what
// each reader of the RAM copies uses against it: the pipe's lookup (the request port's
// words and their bypass, the mark's word, a replay's line), the victim copy's word the
// cycle after a read, and the maintenance scan's QPN. The cache proofs' unique-tag
// property reads it too (P_UNIQUE_TAG).
`include "qpm_assert.svh"

module qpm_tag_shadow #(
  parameter int unsigned Sets = 64,
  parameter int unsigned Ways = 4,
  localparam int unsigned SetW  = (Sets > 1) ? $clog2(Sets) : 1,
  localparam int unsigned WayW  = (Ways > 1) ? $clog2(Ways) : 1,
  localparam int unsigned Lines = Sets * Ways,
  localparam int unsigned LineW = $clog2(Lines),
  localparam int unsigned QpnW  = qpm_pkg::QpnW,
  localparam int unsigned TagW  = QpnW - SetW
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic                 fill_i,
  input  logic [LineW-1:0]     fill_line_i,
  input  logic [TagW-1:0]      fill_tag_i,
  input  logic [Lines-1:0]     valid_i,         // the lines' valid bits
  input  logic                 look_check_i,    // the pipe decides with this lookup
  input  logic [QpnW-1:0]      look_qpn_i,
  input  logic                 look_hit_i,
  input  logic [LineW-1:0]     look_line_i,
  input  logic                 step_read_i,     // the victim copy read this set ...
  input  logic [SetW-1:0]      step_set_i,
  input  logic [Ways*TagW-1:0] step_word_i,     // ... and returns this the cycle after
  input  logic                 scan_ok_i,
  input  logic [LineW-1:0]     scan_line_i,
  input  logic [QpnW-1:0]      scan_qpn_i
);

  logic [TagW-1:0]  tag_q [Lines];
  logic [Lines-1:0] written_q;
  logic             step_q;
  logic [SetW-1:0]  step_set_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      written_q  <= '0;
      step_q     <= 1'b0;
      step_set_q <= '0;
    end else begin
      step_q     <= step_read_i;
      step_set_q <= step_set_i;
      if (fill_i) begin
        tag_q[fill_line_i]     <= fill_tag_i;
        written_q[fill_line_i] <= 1'b1;
      end
    end
  end

  // The lookup as the tags in flip-flops would give it.
  logic             f_hit;
  logic [LineW-1:0] f_line;
  logic [SetW-1:0]  look_set;
  assign look_set = look_qpn_i[SetW-1:0];
  always_comb begin
    f_hit  = 1'b0;
    f_line = '0;
    for (int unsigned w = 0; w < Ways; w++) begin
      if (valid_i[LineW'({look_set, WayW'(w)})]
          && tag_q[LineW'({look_set, WayW'(w)})] == look_qpn_i[QpnW-1:SetW]) begin
        f_hit  = 1'b1;
        f_line = LineW'({look_set, WayW'(w)});
      end
    end
  end

  // The victim copy's word: every line written since reset (the others hold what the
  // RAM held at power-up, and are invalid).
  logic step_word_ok;
  always_comb begin
    step_word_ok = 1'b1;
    for (int unsigned w = 0; w < Ways; w++) begin
      if (written_q[LineW'({step_set_q, WayW'(w)})]
          && tag_q[LineW'({step_set_q, WayW'(w)})] != step_word_i[w*TagW +: TagW])
        step_word_ok = 1'b0;
    end
  end

  logic scan_ok;
  assign scan_ok = !valid_i[scan_line_i] || scan_qpn_i[SetW-1:0] == scan_line_i[LineW-1 -: SetW]
                   && scan_qpn_i[QpnW-1:SetW] == tag_q[scan_line_i];

  // In simulation always; in the proofs under P_TAG_BYPASS (formal/cache.toml).
`ifdef FORMAL
`ifdef P_TAG_BYPASS
`define QPM_TAG_CHECKS
`endif
`else
`define QPM_TAG_CHECKS
`endif
`ifdef QPM_TAG_CHECKS
`undef QPM_TAG_CHECKS
  `QPM_ASSERT_IMPL(TagLookup_A, look_check_i,
                   look_hit_i == f_hit && (!f_hit || look_line_i == f_line))
  `QPM_ASSERT_IMPL(TagVictimWord_A, step_q, step_word_ok)
  `QPM_ASSERT_IMPL(TagScan_A, scan_ok_i, scan_ok)
`else
  logic unused_checks;
  assign unused_checks = ^{look_check_i, look_hit_i, look_line_i, f_hit, f_line, step_q,
                           step_word_ok, scan_ok_i, scan_ok};
`endif
`ifdef FORMAL
`ifdef P_UNIQUE_TAG
  // No two valid lines of a set hold one tag: a QPN is cached at most once.
  logic f_two_tags;
  always_comb begin
    f_two_tags = 1'b0;
    for (int unsigned s = 0; s < Sets; s++) begin
      for (int unsigned a = 0; a < Ways; a++) begin
        for (int unsigned b = a + 1; b < Ways; b++) begin
          if (valid_i[LineW'({SetW'(s), WayW'(a)})] && valid_i[LineW'({SetW'(s), WayW'(b)})]
              && tag_q[LineW'({SetW'(s), WayW'(a)})] == tag_q[LineW'({SetW'(s), WayW'(b)})])
            f_two_tags = 1'b1;
        end
      end
    end
    if (rst_ni) FUniqueTag_A: assert (!f_two_tags);
  end
`endif
`endif

endmodule
