// qpm_cache_lines: the QP cache's line state and replacement bits (docs/qp-cache.md). The
// tags are in RAM (qpm_tag_copy, docs/qp-cache.md section 19): the lookup gets which ways
// of its set hold its QPN (look_match_i) and adds their valid bits here.
//
// Per line: four state bits (valid, dirty, pinned, held: the line holds a context
// whose write-back was given up, docs/qp-cache.md section 20; whether a miss register owns
// the way is the miss registers' own state, qpm_mshr_file's vict_reserved_o); per set: Ways-1 tree-PLRU bits and
// Ways*(Ways-1)/2 true-LRU order bits, both kept on every access whatever EVICT_POLICY
// says, so a policy change takes effect at once with consistent state; and one 16-bit
// LFSR that steps every cycle, for the random policy (docs/eviction.md). Three
// read views (the pipe's lookup, one set for victim choice, one line for the maintenance
// scan) and one strobe per kind of update. Updates that meet on one line in one cycle
// resolve in the order the ports are listed (a later one wins); the users keep such
// meetings to the cases the order makes right (docs/qp-cache.md, "Line state").
//
// Structure: the flip-flops are here, flat (one vector per kind of bit, set s's bits
// side by side); one qpm_cache_set per set computes that set's next state from the
// updates this module decodes for it (a select per kind of update), a repeated module
// that synthesis maps once whatever the number of sets (docs/capacity.md, "Run time").
// Each read view is an indexed part-select of the flat vectors at its set: a
// log2(Sets)-level multiplexer in synthesis, one word copy in the simulated model (the
// model no longer assembles every set's bits into one wide word per view, which made
// the 1,024-set configuration run at a few hundred cycles a second).
module qpm_cache_lines #(
  parameter int unsigned Sets = 64,
  parameter int unsigned Ways = 4,
  localparam int unsigned SetW  = (Sets > 1) ? $clog2(Sets) : 1,
  localparam int unsigned WayW  = (Ways > 1) ? $clog2(Ways) : 1,
  localparam int unsigned Lines = Sets * Ways,
  localparam int unsigned LineW = $clog2(Lines),
  localparam int unsigned LruW  = (Ways > 1) ? Ways * (Ways - 1) / 2 : 1
) (
  input  logic                     clk_i,
  input  logic                     rst_ni,
  // lookup of one QPN: its set, and the ways whose tag is its
  input  logic [SetW-1:0]          look_set_i,
  input  logic [Ways-1:0]          look_match_i,
  output logic                     look_hit_o,
  output logic [LineW-1:0]         look_line_o,
  output logic                     look_pinned_o,       // the hit line is pinned
  output logic [WayW:0]            look_pinned_in_set_o,
  // one set, for victim choice
  input  logic [SetW-1:0]          vict_set_i,
  output logic [Ways-1:0]          vict_valid_o,
  output logic [Ways-1:0]          vict_dirty_o,
  output logic [Ways-1:0]          vict_pinned_o,
  output logic [Ways-1:0]          vict_held_o,         // valid and held
  output logic [Ways-2:0]          vict_plru_o,
  output logic [LruW-1:0]          vict_lru_o,          // the set's true-LRU order
  output logic [WayW-1:0]          rand_way_o,          // a pseudo-random way (LFSR)
  // one line, for the maintenance scan
  input  logic [LineW-1:0]         scan_line_i,
  output logic                     scan_valid_o,
  output logic                     scan_dirty_o,
  output logic [Lines-1:0]         valid_o,             // every line's (for the checks)
  // updates, in order of precedence (lowest first)
  input  logic                     touch_i,             // an access to the looked-up line
  input  logic                     dirty_i,             // a write of the looked-up line
  input  logic                     pin_i,               // the looked-up line's pin bit ...
  input  logic                     pin_value_i,         // ... becomes this
  input  logic                     dirty_p1_i,          // the pipe's P1 wrote this line
  input  logic [LineW-1:0]         dirty_p1_line_i,
  input  logic                     hold_p1_i,           // ... and made it held (a mark)
  input  logic                     reserve_i,           // a miss register takes this way:
  input  logic [LineW-1:0]         reserve_line_i,      // invalid, clean, unpinned
  input  logic                     fill_i,              // a fill lands: valid, clean, unpinned
  input  logic [LineW-1:0]         fill_line_i,
  input  logic                     fill_hold_i,         // ... held (a take-back)
  input  logic                     clean_i,             // written back by maintenance
  input  logic                     drop_i,              // dropped by maintenance
  input  logic [LineW-1:0]         maint_line_i         // the line of clean_i and drop_i
);

  function automatic logic [LineW-1:0] line_of(logic [SetW-1:0] set, logic [WayW-1:0] way);
    line_of = LineW'({set, way});
  endfunction
  // Tree-PLRU bits of a set after an access to way (as qpm_plru_tree's touch output).
  function automatic logic [Ways-2:0] touch(logic [Ways-2:0] bits, logic [WayW-1:0] way);
    logic [WayW-1:0] prefix;
    logic [WayW-1:0] node;
    touch = bits;
    for (int unsigned l = 0; l < WayW; l++) begin
      prefix = (l == 0) ? '0 : (way >> (WayW - l));
      node   = WayW'((32'd1 << l) - 32'd1) + prefix;
      touch[node] = !way[WayW-1-l];
    end
  endfunction

  // True-LRU order bits of a set after an access to way: one bit per pair of ways
  // (a, b), a < b, at index lru_pair(a, b); set when a was used more recently than b.
  function automatic logic [LruW-1:0] lru_touch(logic [LruW-1:0] bits, logic [WayW-1:0] way);
    int unsigned k;
    lru_touch = bits;
    k = 0;
    for (int unsigned a = 0; a < Ways; a++) begin
      for (int unsigned b = a + 1; b < Ways; b++) begin
        if (32'(way) == a) lru_touch[k] = 1'b1;
        if (32'(way) == b) lru_touch[k] = 1'b0;
        k = k + 1;
      end
    end
  endfunction


  localparam int unsigned PlruW = Ways - 1;
  logic [Lines-1:0]      valid_q, dirty_q, pinned_q, held_q;  // line l at bit l
  logic [Sets*PlruW-1:0] plru_q;                             // set s at [s*PlruW +: PlruW]
  logic [Sets*LruW-1:0]  lru_q;                              // set s at [s*LruW +: LruW]
  logic [15:0]           lfsr_q;

  // A set's bits in each flat vector start here.
  function automatic logic [LineW-1:0] first_line(logic [SetW-1:0] set);
    first_line = line_of(set, '0);
  endfunction
  function automatic logic [31:0] plru_at(logic [SetW-1:0] set);
    plru_at = 32'(set) * PlruW;
  endfunction
  function automatic logic [31:0] lru_at(logic [SetW-1:0] set);
    lru_at = 32'(set) * LruW;
  endfunction

  // ---- where each update goes
  logic [SetW-1:0] look_set, fill_set, dirty_p1_set, reserve_set, maint_set;
  logic [WayW-1:0] look_way, fill_way, dirty_p1_way, reserve_way, maint_way;
  assign look_set     = look_set_i;
  assign fill_set     = fill_line_i[LineW-1 -: SetW];
  assign fill_way     = fill_line_i[WayW-1:0];
  assign dirty_p1_set = dirty_p1_line_i[LineW-1 -: SetW];
  assign dirty_p1_way = dirty_p1_line_i[WayW-1:0];
  assign reserve_set  = reserve_line_i[LineW-1 -: SetW];
  assign reserve_way  = reserve_line_i[WayW-1:0];
  assign maint_set    = maint_line_i[LineW-1 -: SetW];
  assign maint_way    = maint_line_i[WayW-1:0];

  // The views: the same part-selects in simulation, synthesis and the proofs (no
  // SYNTHESIS-only view: what is verified is what is synthesized).

  // ---- replacement bits after this cycle's accesses: the lookup's set, and the fill's
  // (a fill and a hit in one set in one cycle: both accesses count)
  logic [Ways-2:0]      look_plru, fill_plru, look_touched, fill_touched;
  logic [LruW-1:0]      look_lru, fill_lru, look_lru_touched, fill_lru_touched;
  assign look_plru = plru_q[plru_at(look_set) +: PlruW];
  assign look_lru  = lru_q[lru_at(look_set) +: LruW];
  assign fill_plru = plru_q[plru_at(fill_set) +: PlruW];
  assign fill_lru  = lru_q[lru_at(fill_set) +: LruW];
  assign look_touched     = touch(look_plru, look_way);
  assign fill_touched     = touch((touch_i && look_set == fill_set) ? look_touched : fill_plru,
                                  fill_way);
  assign look_lru_touched = lru_touch(look_lru, look_way);
  assign fill_lru_touched = lru_touch((touch_i && look_set == fill_set) ? look_lru_touched
                                                                         : fill_lru, fill_way);

  // ---- per set: the next state, the flip-flops
  for (genvar g = 0; g < Sets; g++) begin : gen_set
    logic [Ways-1:0]      valid, dirty, pinned, held;
    logic [Ways-1:0]      valid_d, dirty_d, pinned_d, held_d;
    logic [Ways-2:0]      plru_d;
    logic [LruW-1:0]      lru_d;
    assign valid    = valid_q[g*Ways +: Ways];
    assign dirty    = dirty_q[g*Ways +: Ways];
    assign pinned   = pinned_q[g*Ways +: Ways];
    assign held     = held_q[g*Ways +: Ways];

    qpm_cache_set #(.Ways(Ways)) u_next (
      .valid_i        (valid),
      .dirty_i        (dirty),
      .pinned_i       (pinned),
      .held_i         (held),
      .plru_i         (plru_q[g*PlruW +: PlruW]),
      .lru_i          (lru_q[g*LruW +: LruW]),
      .valid_d_o      (valid_d),
      .dirty_d_o      (dirty_d),
      .pinned_d_o     (pinned_d),
      .held_d_o       (held_d),
      .plru_d_o       (plru_d),
      .lru_d_o        (lru_d),
      .look_sel_i     (look_set == SetW'(g)),
      .look_hit_i     (look_hit_o),
      .look_way_i     (look_way),
      .touch_i        (touch_i),
      .look_plru_i    (look_touched),
      .look_lru_i     (look_lru_touched),
      .write_i        (dirty_i),
      .pin_i          (pin_i),
      .pin_value_i    (pin_value_i),
      .dirty_p1_sel_i (dirty_p1_i && dirty_p1_set == SetW'(g)),
      .dirty_p1_way_i (dirty_p1_way),
      .hold_p1_i      (hold_p1_i),
      .reserve_sel_i  (reserve_i && reserve_set == SetW'(g)),
      .reserve_way_i  (reserve_way),
      .fill_sel_i     (fill_i && fill_set == SetW'(g)),
      .fill_way_i     (fill_way),
      .fill_hold_i    (fill_hold_i),
      .fill_plru_i    (fill_touched),
      .fill_lru_i     (fill_lru_touched),
      .maint_sel_i    (maint_set == SetW'(g)),
      .maint_way_i    (maint_way),
      .clean_i        (clean_i),
      .drop_i         (drop_i)
    );

    // One process per element: in one big process Yosys turns every indexed write into
    // a copy of the whole array.
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        plru_q[g*PlruW +: PlruW] <= '0;
        lru_q[g*LruW +: LruW]  <= '0;
      end else begin
        plru_q[g*PlruW +: PlruW] <= plru_d;
        lru_q[g*LruW +: LruW]  <= lru_d;
      end
    end
    for (genvar w = 0; w < Ways; w++) begin : gen_line
      always_ff @(posedge clk_i or negedge rst_ni) begin
        if (!rst_ni) begin
          valid_q[g*Ways+w]    <= 1'b0;
          dirty_q[g*Ways+w]    <= 1'b0;
          pinned_q[g*Ways+w]   <= 1'b0;
          held_q[g*Ways+w]     <= 1'b0;
        end else begin
          valid_q[g*Ways+w]    <= valid_d[w];
          dirty_q[g*Ways+w]    <= dirty_d[w];
          pinned_q[g*Ways+w]   <= pinned_d[w];
          held_q[g*Ways+w]     <= held_d[w];
        end
      end
    end
  end

  // ---- lookup
  logic [Ways-1:0]      look_valid, look_pinned;
  assign look_valid  = valid_q[first_line(look_set) +: Ways];
  assign look_pinned = pinned_q[first_line(look_set) +: Ways];
  always_comb begin
    look_hit_o           = 1'b0;
    look_way             = '0;
    look_pinned_in_set_o = '0;
    for (int unsigned w = 0; w < Ways; w++) begin
      if (look_valid[w] && look_match_i[w]) begin
        look_hit_o = 1'b1;
        look_way   = WayW'(w);
      end
      look_pinned_in_set_o += (WayW + 1)'(look_valid[w] && look_pinned[w]);
    end
  end
  assign look_line_o   = line_of(look_set, look_way);
  assign look_pinned_o = look_pinned[look_way];

  // ---- victim view
  assign vict_valid_o  = valid_q[first_line(vict_set_i) +: Ways];
  assign vict_dirty_o  = dirty_q[first_line(vict_set_i) +: Ways];
  assign vict_pinned_o = pinned_q[first_line(vict_set_i) +: Ways];
  assign vict_held_o   = held_q[first_line(vict_set_i) +: Ways] & vict_valid_o;
  assign vict_plru_o   = plru_q[plru_at(vict_set_i) +: PlruW];
  assign vict_lru_o    = lru_q[lru_at(vict_set_i) +: LruW];

  // ---- maintenance view: one line
  assign scan_valid_o = valid_q[scan_line_i];
  assign scan_dirty_o = dirty_q[scan_line_i];
  assign valid_o      = valid_q;

  // ---- the random policy's LFSR: x^16 + x^14 + x^13 + x^11 + 1 (maximal length),
  // stepping every cycle
  assign rand_way_o = lfsr_q[WayW-1:0];
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) lfsr_q <= 16'hace1;
    else         lfsr_q <= {lfsr_q[14:0], lfsr_q[15] ^ lfsr_q[13] ^ lfsr_q[12] ^ lfsr_q[10]};
  end

`ifdef FORMAL
  // ---- proof properties (formal/cache.toml, docs/formal.md), each under its proof's
  // define; immediate, so each holds in the cycle it is about
`ifdef P_PIN_CAP
  // At most Ways-1 valid pinned lines in every set (not only the looked-up one).
  logic          f_pin_over;
  logic [WayW:0] f_pins;
  always_comb begin
    f_pin_over = 1'b0;
    for (int unsigned s = 0; s < Sets; s++) begin
      f_pins = '0;
      for (int unsigned w = 0; w < Ways; w++) begin
        f_pins += (WayW + 1)'(valid_q[line_of(SetW'(s), WayW'(w))]
                              && pinned_q[line_of(SetW'(s), WayW'(w))]);
      end
      if (32'(f_pins) > Ways - 1) f_pin_over = 1'b1;
    end
    if (rst_ni) FPinCapacity_A: assert (!f_pin_over);
  end
`endif
`endif

endmodule
