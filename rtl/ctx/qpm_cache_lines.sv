// qpm_cache_lines: the QP cache's tags, line state and replacement bits (docs/qp-cache.md).
//
// Per line: a tag and four state bits (valid, dirty, pinned, reserved: a miss register
// owns the way until its waiters have replayed); per set: Ways-1 tree-PLRU bits and
// Ways*(Ways-1)/2 true-LRU order bits, both kept on every access whatever EVICT_POLICY
// says, so a policy change takes effect at once with consistent state; and one 16-bit
// LFSR that steps every cycle, for the random policy (docs/eviction.md). Three
// read views (the pipe's lookup, one set for victim choice, one line for the maintenance
// scan) and one strobe per kind of update. Updates that meet on one line in one cycle
// resolve in the order the ports are listed (a later one wins); the users keep such
// meetings to the cases the order makes right (docs/qp-cache.md, "Line state").
module qpm_cache_lines #(
  parameter int unsigned Sets = 64,
  parameter int unsigned Ways = 4,
  localparam int unsigned SetW  = (Sets > 1) ? $clog2(Sets) : 1,
  localparam int unsigned WayW  = (Ways > 1) ? $clog2(Ways) : 1,
  localparam int unsigned Lines = Sets * Ways,
  localparam int unsigned LineW = $clog2(Lines),
  localparam int unsigned TagW  = qpm_pkg::QpnW - SetW,
  localparam int unsigned LruW  = (Ways > 1) ? Ways * (Ways - 1) / 2 : 1
) (
  input  logic                     clk_i,
  input  logic                     rst_ni,
  // lookup of one QPN
  input  logic [qpm_pkg::QpnW-1:0] look_qpn_i,
  output logic                     look_hit_o,
  output logic [LineW-1:0]         look_line_o,
  output logic                     look_pinned_o,       // the hit line is pinned
  output logic [WayW:0]            look_pinned_in_set_o,
  // one set, for victim choice
  input  logic [SetW-1:0]          vict_set_i,
  output logic [Ways-1:0]          vict_valid_o,
  output logic [Ways-1:0]          vict_dirty_o,
  output logic [Ways-1:0]          vict_pinned_o,
  output logic [Ways-1:0]          vict_reserved_o,
  output logic [Ways-2:0]          vict_plru_o,
  output logic [LruW-1:0]          vict_lru_o,          // the set's true-LRU order
  output logic [WayW-1:0]          rand_way_o,          // a pseudo-random way (LFSR)
  output logic [Ways*TagW-1:0]     vict_tags_o,
  // one line, for the maintenance scan
  input  logic [LineW-1:0]         scan_line_i,
  output logic                     scan_valid_o,
  output logic                     scan_dirty_o,
  output logic [qpm_pkg::QpnW-1:0] scan_qpn_o,
  // updates, in order of precedence (lowest first)
  input  logic                     touch_i,             // an access to the looked-up line
  input  logic                     dirty_i,             // a write of the looked-up line
  input  logic                     pin_i,               // the looked-up line's pin bit ...
  input  logic                     pin_value_i,         // ... becomes this
  input  logic                     dirty_p1_i,          // the pipe's P1 wrote this line
  input  logic [LineW-1:0]         dirty_p1_line_i,
  input  logic                     reserve_i,           // a miss register takes this way:
  input  logic [LineW-1:0]         reserve_line_i,      // invalid, clean, unpinned, reserved
  input  logic                     fill_i,              // a fill lands: valid, clean, unpinned
  input  logic [LineW-1:0]         fill_line_i,
  input  logic [qpm_pkg::QpnW-1:0] fill_qpn_i,
  input  logic [Lines-1:0]         release_i,           // miss registers done: not reserved
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

  logic [Lines-1:0] valid_q, dirty_q, pinned_q, reserved_q;
  logic [TagW-1:0]  tag_q  [Lines];
  logic [Ways-2:0]  plru_q [Sets];
  logic [LruW-1:0]  lru_q  [Sets];
  logic [15:0]      lfsr_q;

  // ---- lookup
  logic [SetW-1:0] look_set;
  assign look_set = look_qpn_i[SetW-1:0];
  logic [WayW-1:0] look_way;
  always_comb begin
    look_hit_o           = 1'b0;
    look_way             = '0;
    look_pinned_in_set_o = '0;
    for (int unsigned w = 0; w < Ways; w++) begin
      if (valid_q[line_of(look_set, WayW'(w))]
          && tag_q[line_of(look_set, WayW'(w))] == look_qpn_i[qpm_pkg::QpnW-1:SetW]) begin
        look_hit_o = 1'b1;
        look_way   = WayW'(w);
      end
      look_pinned_in_set_o += (WayW + 1)'(valid_q[line_of(look_set, WayW'(w))]
                                          && pinned_q[line_of(look_set, WayW'(w))]);
    end
  end
  assign look_line_o   = line_of(look_set, look_way);
  assign look_pinned_o = pinned_q[look_line_o];

  // ---- victim view and maintenance view
  always_comb begin
    for (int unsigned w = 0; w < Ways; w++) begin
      vict_valid_o[w]    = valid_q[line_of(vict_set_i, WayW'(w))];
      vict_dirty_o[w]    = dirty_q[line_of(vict_set_i, WayW'(w))];
      vict_pinned_o[w]   = pinned_q[line_of(vict_set_i, WayW'(w))];
      vict_reserved_o[w] = reserved_q[line_of(vict_set_i, WayW'(w))];
      vict_tags_o[w*TagW +: TagW] = tag_q[line_of(vict_set_i, WayW'(w))];
    end
  end
  assign vict_plru_o  = plru_q[vict_set_i];
  assign vict_lru_o   = lru_q[vict_set_i];
  assign rand_way_o   = lfsr_q[WayW-1:0];
  assign scan_valid_o = valid_q[scan_line_i];
  assign scan_dirty_o = dirty_q[scan_line_i];
  assign scan_qpn_o   = {tag_q[scan_line_i], scan_line_i[LineW-1 -: SetW]};

  // ---- next state, per line and per set (one process per element: in one big process
  // Yosys turns every indexed write into a copy of the whole array)
  logic [SetW-1:0] fill_set;
  logic [WayW-1:0] fill_way;
  logic [Ways-2:0] look_touched, fill_touched;
  logic [LruW-1:0] look_lru, fill_lru;
  assign fill_set     = fill_line_i[LineW-1 -: SetW];
  assign fill_way     = fill_line_i[WayW-1:0];
  assign look_touched = touch(plru_q[look_set], look_way);
  // A fill and a hit in one set in one cycle: both accesses count.
  assign fill_touched = touch((touch_i && look_set == fill_set) ? look_touched
                                                                 : plru_q[fill_set], fill_way);
  assign look_lru     = lru_touch(lru_q[look_set], look_way);
  assign fill_lru     = lru_touch((touch_i && look_set == fill_set) ? look_lru
                                                                     : lru_q[fill_set], fill_way);

  for (genvar g = 0; g < Lines; g++) begin : gen_line
    logic look_here, reserve_here, fill_here, maint_here;
    logic valid_d, dirty_d, pinned_d, reserved_d;
    assign look_here    = look_hit_o && look_line_o == LineW'(g);
    assign reserve_here = reserve_i && reserve_line_i == LineW'(g);
    assign fill_here    = fill_i && fill_line_i == LineW'(g);
    assign maint_here   = maint_line_i == LineW'(g);
    always_comb begin
      valid_d    = valid_q[g];
      dirty_d    = dirty_q[g];
      pinned_d   = pinned_q[g];
      reserved_d = reserved_q[g];
      if (look_here && dirty_i) dirty_d  = 1'b1;
      if (dirty_p1_i && dirty_p1_line_i == LineW'(g)) dirty_d = 1'b1;
      if (look_here && pin_i)   pinned_d = pin_value_i;
      if (reserve_here) begin
        valid_d    = 1'b0;
        dirty_d    = 1'b0;
        pinned_d   = 1'b0;
        reserved_d = 1'b1;
      end
      if (fill_here) begin
        valid_d  = 1'b1;
        dirty_d  = 1'b0;
        pinned_d = 1'b0;
      end
      if (release_i[g])           reserved_d = 1'b0;
      if (maint_here && clean_i)  dirty_d    = 1'b0;
      if (maint_here && drop_i)   valid_d    = 1'b0;
    end
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        valid_q[g]    <= 1'b0;
        dirty_q[g]    <= 1'b0;
        pinned_q[g]   <= 1'b0;
        reserved_q[g] <= 1'b0;
        tag_q[g]      <= '0;
      end else begin
        valid_q[g]    <= valid_d;
        dirty_q[g]    <= dirty_d;
        pinned_q[g]   <= pinned_d;
        reserved_q[g] <= reserved_d;
        if (fill_here) tag_q[g] <= fill_qpn_i[qpm_pkg::QpnW-1:SetW];
      end
    end
  end

  logic unused_fill_set_bits;   // the set is fill_line_i's; the QPN gives the tag
  assign unused_fill_set_bits = ^fill_qpn_i[SetW-1:0];

  for (genvar g = 0; g < Sets; g++) begin : gen_set
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        plru_q[g] <= '0;
        lru_q[g]  <= '0;
      end else if (fill_i && fill_set == SetW'(g)) begin
        plru_q[g] <= fill_touched;
        lru_q[g]  <= fill_lru;
      end else if (touch_i && look_set == SetW'(g)) begin
        plru_q[g] <= look_touched;
        lru_q[g]  <= look_lru;
      end
    end
  end

  // x^16 + x^14 + x^13 + x^11 + 1 (maximal length), stepping every cycle.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) lfsr_q <= 16'hace1;
    else         lfsr_q <= {lfsr_q[14:0], lfsr_q[15] ^ lfsr_q[13] ^ lfsr_q[12] ^ lfsr_q[10]};
  end

`ifdef FORMAL
  // ---- proof properties (formal/cache.toml, docs/formal.md), each under its proof's
  // define; immediate, so each holds in the cycle it is about
`ifdef P_UNIQUE_TAG
  // No two valid lines of a set hold one tag: a QPN is cached at most once.
  logic f_two_tags;
  always_comb begin
    f_two_tags = 1'b0;
    for (int unsigned s = 0; s < Sets; s++) begin
      for (int unsigned a = 0; a < Ways; a++) begin
        for (int unsigned b = a + 1; b < Ways; b++) begin
          if (valid_q[line_of(SetW'(s), WayW'(a))] && valid_q[line_of(SetW'(s), WayW'(b))]
              && tag_q[line_of(SetW'(s), WayW'(a))] == tag_q[line_of(SetW'(s), WayW'(b))])
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
