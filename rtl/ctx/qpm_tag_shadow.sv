// qpm_tag_shadow: assertion support for the tags and line bits in RAM (docs/qp-cache.md
// section 19), instantiated under `ifndef SYNTHESIS` only: nothing synthesized reads it.
// It keeps every line's tag, valid and pinned bits in flip-flops, updated from the
// events themselves (a fill, a pin bit, a miss register's take, a maintenance drop: what
// the flip-flops held before the bits moved to RAM), not from qpm_line_write's bundle,
// and checks what each reader of the tag RAM uses against them: the pipe's lookup
// (the request port's words and their bypass, the mark's and the replay's words), the
// step's word the cycle after a read, and the maintenance scan's line. The cache
// proofs' unique-tag and pin-capacity properties read it too (P_UNIQUE_TAG, P_PIN_CAP).
`include "qpm_assert.svh"

module qpm_tag_shadow #(
  parameter int unsigned Sets = 64,
  parameter int unsigned Ways = 4,
  localparam int unsigned SetW  = (Sets > 1) ? $clog2(Sets) : 1,
  localparam int unsigned WayW  = (Ways > 1) ? $clog2(Ways) : 1,
  localparam int unsigned Lines = Sets * Ways,
  localparam int unsigned LineW = $clog2(Lines),
  localparam int unsigned QpnW  = qpm_pkg::QpnW,
  localparam int unsigned TagW  = QpnW - SetW,
  localparam int unsigned EntW  = TagW + 2
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic                 fill_i,
  input  logic [LineW-1:0]     fill_line_i,
  input  logic [TagW-1:0]      fill_tag_i,
  input  logic                 pin_i,           // a line's pin bit is written ...
  input  logic [LineW-1:0]     pin_line_i,
  input  logic                 pin_value_i,     // ... with this value
  input  logic                 reserve_i,       // a miss register takes this line
  input  logic [LineW-1:0]     reserve_line_i,
  input  logic                 drop_i,          // maintenance drops the scan's line
  input  logic                 look_check_i,    // the pipe decides with this lookup
  input  logic                 look_pins_i,     // ... and its pinned bits (not a replay's)
  input  logic [QpnW-1:0]      look_qpn_i,
  input  logic                 look_hit_i,
  input  logic [LineW-1:0]     look_line_i,
  input  logic                 look_pinned_i,
  input  logic [WayW:0]        look_pinned_in_set_i,
  input  logic                 step_read_i,     // the tags were read for this set ...
  input  logic [SetW-1:0]      step_set_i,
  input  logic [Ways*EntW-1:0] step_word_i,     // ... and returns this the cycle after
  input  logic                 scan_ok_i,
  input  logic [LineW-1:0]     scan_line_i,
  input  logic [QpnW-1:0]      scan_qpn_i,
  input  logic                 scan_valid_i
);

  logic [TagW-1:0]  tag_q [Lines];
  logic [Lines-1:0] written_q, valid_q, pinned_q;
  logic             step_q;
  logic [SetW-1:0]  step_set_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      written_q  <= '0;
      valid_q    <= '0;
      pinned_q   <= '0;
      step_q     <= 1'b0;
      step_set_q <= '0;
    end else begin
      step_q     <= step_read_i;
      step_set_q <= step_set_i;
      // in this order, a later one winning on one line
      if (pin_i) pinned_q[pin_line_i] <= pin_value_i;
      if (reserve_i) begin
        valid_q[reserve_line_i]  <= 1'b0;
        pinned_q[reserve_line_i] <= 1'b0;
      end
      if (fill_i) begin
        tag_q[fill_line_i]     <= fill_tag_i;
        written_q[fill_line_i] <= 1'b1;
        valid_q[fill_line_i]   <= 1'b1;
        pinned_q[fill_line_i]  <= 1'b0;
      end
      if (drop_i) valid_q[scan_line_i] <= 1'b0;
    end
  end

  // The lookup as the tags in flip-flops would give it.
  logic             f_hit;
  logic [LineW-1:0] f_line;
  logic [SetW-1:0]  look_set;
  assign look_set = look_qpn_i[SetW-1:0];
  logic [WayW:0]    f_pins;
  always_comb begin
    f_hit  = 1'b0;
    f_line = '0;
    f_pins = '0;
    for (int unsigned w = 0; w < Ways; w++) begin
      f_pins += (WayW + 1)'(valid_q[LineW'({look_set, WayW'(w)})]
                            && pinned_q[LineW'({look_set, WayW'(w)})]);
      if (valid_q[LineW'({look_set, WayW'(w)})]
          && tag_q[LineW'({look_set, WayW'(w)})] == look_qpn_i[QpnW-1:SetW]) begin
        f_hit  = 1'b1;
        f_line = LineW'({look_set, WayW'(w)});
      end
    end
  end

  // The step's word: every line's valid bit, a valid line's pinned bit, and the
  // tag of every line written since reset (the others hold what the RAM held at
  // power-up, and are invalid).
  logic step_word_ok;
  always_comb begin
    step_word_ok = 1'b1;
    for (int unsigned w = 0; w < Ways; w++) begin
      if (written_q[LineW'({step_set_q, WayW'(w)})]
          && tag_q[LineW'({step_set_q, WayW'(w)})] != step_word_i[w*EntW + 2 +: TagW])
        step_word_ok = 1'b0;
      if (valid_q[LineW'({step_set_q, WayW'(w)})] != step_word_i[w*EntW + 1])
        step_word_ok = 1'b0;
      if (valid_q[LineW'({step_set_q, WayW'(w)})]
          && pinned_q[LineW'({step_set_q, WayW'(w)})] != step_word_i[w*EntW])
        step_word_ok = 1'b0;
    end
  end

  logic scan_ok;
  assign scan_ok = scan_valid_i == valid_q[scan_line_i]
                   && (!valid_q[scan_line_i]
                       || scan_qpn_i[SetW-1:0] == scan_line_i[LineW-1 -: SetW]
                       && scan_qpn_i[QpnW-1:SetW] == tag_q[scan_line_i]);

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
  `QPM_ASSERT_IMPL(TagLookupPins_A, look_check_i && look_pins_i, look_pinned_in_set_i == f_pins
                   && (!f_hit || look_pinned_i == pinned_q[f_line]))
  `QPM_ASSERT_IMPL(TagVictimWord_A, step_q, step_word_ok)
  `QPM_ASSERT_IMPL(TagScan_A, scan_ok_i, scan_ok)
`else
  logic unused_checks;
  assign unused_checks = ^{look_check_i, look_pins_i, look_hit_i, look_line_i, f_hit, f_line,
                           step_q, step_word_ok, scan_ok_i, scan_ok, look_pinned_i,
                           look_pinned_in_set_i, f_pins};
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
          if (valid_q[LineW'({SetW'(s), WayW'(a)})] && valid_q[LineW'({SetW'(s), WayW'(b)})]
              && tag_q[LineW'({SetW'(s), WayW'(a)})] == tag_q[LineW'({SetW'(s), WayW'(b)})])
            f_two_tags = 1'b1;
        end
      end
    end
    if (rst_ni) FUniqueTag_A: assert (!f_two_tags);
  end
`endif
`ifdef P_PIN_CAP
  // At most Ways-1 valid pinned lines in every set (not only the looked-up one).
  logic          f_pin_over;
  logic [WayW:0] f_set_pins;
  always_comb begin
    f_pin_over = 1'b0;
    for (int unsigned s = 0; s < Sets; s++) begin
      f_set_pins = '0;
      for (int unsigned w = 0; w < Ways; w++) begin
        f_set_pins += (WayW + 1)'(valid_q[LineW'({SetW'(s), WayW'(w)})]
                                  && pinned_q[LineW'({SetW'(s), WayW'(w)})]);
      end
      if (32'(f_set_pins) > Ways - 1) f_pin_over = 1'b1;
    end
    if (rst_ni) FPinCapacity_A: assert (!f_pin_over);
  end
`endif
`endif

endmodule
