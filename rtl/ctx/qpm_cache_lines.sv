// qpm_cache_lines: the QP cache's line state and replacement bits (docs/qp-cache.md
// section 19), and the lookup's hit.
//
// Per line four state bits: valid, pinned, dirty, held (the line holds a context whose
// write-back was given up, docs/qp-cache.md section 20); per set Ways-1 tree-PLRU bits
// and Ways*(Ways-1)/2 true-LRU order bits, both kept on every access whatever
// EVICT_POLICY says, so a policy change takes effect at once with consistent state; and
// one 16-bit LFSR that steps every cycle, for the random policy (docs/eviction.md).
//
// Where each bit lives, and why:
// - valid and pinned: beside each way's tag in the tag RAMs (qpm_tag_copy, written by
//   qpm_line_write), because every reader of a tag reads them too: the lookup gets its
//   set's word with its request (look_match_i, look_valid_i, look_pinned_i), the victim
//   decision and the scan with their read of the tags.
// - dirty, held, PLRU and LRU: one RAM word per set (qpm_ram_2p with a bit mask), read
//   only by the victim decision and the maintenance scan, a cycle ahead like the tags
//   (same read port, same cycles: rd_i from qpm_tag_views). Every change to
//   them is a masked write that sets some bits to constants (a touch writes the path to
//   the way, a dirty or held bit its value), so none needs the old word. One write a
//   cycle, in P1 of the pipe: P0 registers its update (a fill's, a maintenance
//   read-out's clean, or its request's touch and write-hit dirty bit) and P1 adds what it
//   learns (a read-modify-write's dirty bit, a mark's held bit). The pipe keeps the
//   three kinds apart (a fill or a read-out takes the slot, a hit waits a cycle). A
//   RAM is not reset: dirty and held count only on a valid line (a fill writes both),
//   and the replacement bits only once every way of the set is valid, by which time
//   every way has been filled, so every bit has been written.
// - A word read in cycle t comes back in t+1 with t's write applied (the RAM returns
//   the old word); the write of t+1 itself is not in it: the line it changes is kept
//   out of the victim decision by the pipe's P1 exclusion, or is a reserved way (a
//   fill). The scan keeps its set's word and applies every later write to it.
`include "qpm_assert.svh"

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
  input  logic [Ways-1:0]          look_valid_i,
  input  logic [Ways-1:0]          look_pinned_i,
  output logic                     look_hit_o,
  output logic [LineW-1:0]         look_line_o,
  output logic                     look_pinned_o,       // the hit line is pinned
  output logic [WayW:0]            look_pinned_in_set_o,
  // the RAM's read (the tags are read for the same set in the same cycle)
  input  logic                     rd_i,
  input  logic [SetW-1:0]          rd_set_i,
  input  logic                     rd_scan_i,           // ... for the maintenance scan
  // one set, for the victim decision: the set read in the cycle before
  input  logic [Ways-1:0]          vict_valid_i,        // its valid bits (the tags' word)
  output logic [Ways-1:0]          vict_dirty_o,        // valid and dirty
  output logic [Ways-1:0]          vict_held_o,         // valid and held
  output logic [Ways-2:0]          vict_plru_o,
  output logic [LruW-1:0]          vict_lru_o,          // the set's true-LRU order
  output logic [WayW-1:0]          rand_way_o,          // a pseudo-random way (LFSR)
  // one line, for the maintenance scan (its set's word read by rd_scan_i before)
  input  logic [LineW-1:0]         scan_line_i,
  input  logic [Ways-1:0]          scan_set_valid_i,    // its set's valid bits (the tags' word)
  output logic                     scan_dirty_o,
  output logic                     scan_busy_o,         // a fill writes the line now: wait
  // P0's updates
  input  logic                     touch_i,             // an access to the looked-up line
  input  logic                     dirty_i,             // a write of the looked-up line
  input  logic                     fill_i,              // a fill lands: clean (in P1)
  input  logic [LineW-1:0]         fill_line_i,
  input  logic                     fill_hold_i,         // ... held (a take-back)
  input  logic                     clean_i,             // read out by maintenance (in P1)
  input  logic [LineW-1:0]         maint_line_i,        // the line of clean_i
  // P1's: the line P0 registered for it
  input  logic                     dirty_p1_i,          // P1 wrote this line
  input  logic [LineW-1:0]         dirty_p1_line_i,
  input  logic                     hold_p1_i            // ... and made it held (a mark)
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

  // The RAM word of a set: dirty and held per way, then the PLRU and LRU bits.
  localparam int unsigned PlruW   = Ways - 1;
  localparam int unsigned DirtyAt = 0;
  localparam int unsigned HeldAt  = Ways;
  localparam int unsigned PlruAt  = 2 * Ways;
  localparam int unsigned LruAt   = 2 * Ways + PlruW;
  localparam int unsigned StateW  = 2 * Ways + PlruW + LruW;
  function automatic logic [StateW-1:0] patch(logic [StateW-1:0] word, logic we,
                                              logic [StateW-1:0] mask,
                                              logic [StateW-1:0] data);
    patch = we ? (word & ~mask) | (data & mask) : word;
  endfunction

  logic [15:0]      lfsr_q;

  // ---- lookup
  logic [WayW-1:0] look_way;
  logic [Ways-1:0] look_valid, look_pinned;
  assign look_valid  = look_valid_i;
  assign look_pinned = look_pinned_i;
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
  assign look_line_o   = line_of(look_set_i, look_way);
  assign look_pinned_o = look_pinned[look_way];

  // ---- the RAM's write stage. P0 registers its update (one kind at most: the pipe
  // keeps a fill, a maintenance read-out and a hit out of one cycle) ...
  logic             u1_valid_q, u1_fill_q, u1_clean_q, u1_touch_q, u1_wh_q, u1_hold_q;
  logic [LineW-1:0] u1_line_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      {u1_valid_q, u1_fill_q, u1_clean_q, u1_touch_q, u1_wh_q, u1_hold_q} <= '0;
      u1_line_q <= '0;
    end else begin
      u1_valid_q <= fill_i || clean_i || touch_i;
      u1_fill_q  <= fill_i;
      u1_clean_q <= clean_i;
      u1_touch_q <= fill_i || touch_i;
      u1_wh_q    <= dirty_i;
      u1_hold_q  <= fill_hold_i;
      u1_line_q  <= fill_i ? fill_line_i : clean_i ? maint_line_i : look_line_o;
    end
  end

  // ... and P1 writes it with its own: a fill leaves the line clean (dirty if it made
  // its QP fatal: P1 writes ERR) and held if it is a take-back; a read-out leaves it
  // clean and no longer held (its write-back entry answers for it now); a request's
  // write hit or read-modify-write leaves it dirty, a mark held. A touch writes the
  // replacement bits on the path to the way (the same bits whatever they were).
  logic [SetW-1:0]   wr_set;
  logic [WayW-1:0]   wr_way;
  logic [StateW-1:0] wr_mask, wr_data;
  assign wr_set = u1_line_q[LineW-1 -: SetW];
  assign wr_way = u1_line_q[WayW-1:0];
  always_comb begin
    wr_mask = '0;
    wr_data = '0;
    if (u1_touch_q) begin
      wr_mask[PlruAt +: PlruW] = ~(touch('0, wr_way) ^ touch('1, wr_way));
      wr_data[PlruAt +: PlruW] = touch('0, wr_way);
      wr_mask[LruAt +: LruW]   = ~(lru_touch('0, wr_way) ^ lru_touch('1, wr_way));
      wr_data[LruAt +: LruW]   = lru_touch('0, wr_way);
    end
    for (int unsigned w = 0; w < Ways; w++) begin
      if (wr_way == WayW'(w)) begin
        if (u1_fill_q) begin
          wr_mask[DirtyAt + w] = 1'b1;
          wr_data[DirtyAt + w] = dirty_p1_i;
          wr_mask[HeldAt + w]  = 1'b1;
          wr_data[HeldAt + w]  = u1_hold_q || hold_p1_i;
        end else if (u1_clean_q) begin
          wr_mask[DirtyAt + w] = 1'b1;
          wr_mask[HeldAt + w]  = 1'b1;
        end else begin
          wr_mask[DirtyAt + w] = u1_wh_q || dirty_p1_i;
          wr_data[DirtyAt + w] = 1'b1;
          wr_mask[HeldAt + w]  = hold_p1_i;
          wr_data[HeldAt + w]  = 1'b1;
        end
      end
    end
  end

  logic [StateW-1:0] rdata, word;
  qpm_ram_2p #(
    .Width (StateW),
    .Depth (Sets)
  ) u_state_ram (
    .clk_i   (clk_i),
    .re_i    (rd_i),
    .raddr_i (rd_set_i),
    .rdata_o (rdata),
    .we_i    (u1_valid_q),
    .waddr_i (wr_set),
    .wdata_i (wr_data),
    .wmask_i (wr_mask)
  );

  // The word read last cycle, with that cycle's write applied. Whether the write hit the
  // read's set is compared in that cycle and registered (w1_hit_q): the RAM's data meets
  // only the patch's multiplexer, not a set compare (it starts the victim choice's path).
  logic              w1_hit_q;
  logic [SetW-1:0]   rd_set_q;
  logic [StateW-1:0] w1_mask_q, w1_data_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      w1_hit_q <= 1'b0;
      {rd_set_q, w1_mask_q, w1_data_q} <= '0;
    end else begin
      w1_hit_q   <= u1_valid_q && wr_set == (rd_i ? rd_set_i : rd_set_q);
      w1_mask_q  <= wr_mask;
      w1_data_q  <= wr_data;
      if (rd_i) rd_set_q <= rd_set_i;
    end
  end
  assign word = patch(rdata, w1_hit_q, w1_mask_q, w1_data_q);

  // ---- victim view: the word read last cycle
  assign vict_dirty_o  = word[DirtyAt +: Ways] & vict_valid_i;
  assign vict_held_o   = word[HeldAt +: Ways] & vict_valid_i;
  assign vict_plru_o   = word[PlruAt +: PlruW];
  assign vict_lru_o    = word[LruAt +: LruW];

  // ---- maintenance view: the scan keeps its set's word, applying every later write. The
  // word it keeps (sc_word_q) lacks the last cycle's write, which is applied on the way out
  // (sc_word) from registers (whether it hits the scan's set, compared in its cycle, and
  // its mask and data): P1's dirty bit, late in its cycle, ends at a flip-flop.
  logic              sc_rd_q, sc_valid_q, sc_w1_hit_q;
  logic [SetW-1:0]   sc_rd_set_q, sc_set_q;
  logic [StateW-1:0] sc_word_q, sc_word;
  assign sc_word = patch(sc_word_q, sc_w1_hit_q, w1_mask_q, w1_data_q);
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sc_rd_q     <= 1'b0;
      sc_valid_q  <= 1'b0;
      sc_w1_hit_q <= 1'b0;
      {sc_rd_set_q, sc_set_q, sc_word_q} <= '0;
    end else begin
      sc_rd_q     <= rd_scan_i;
      sc_word_q   <= sc_rd_q ? word : sc_word;
      sc_w1_hit_q <= u1_valid_q && wr_set == (sc_rd_q ? sc_rd_set_q : sc_set_q);
      if (rd_scan_i) sc_rd_set_q <= rd_set_i;
      if (sc_rd_q) begin
        sc_valid_q <= 1'b1;
        sc_set_q   <= sc_rd_set_q;
      end
    end
  end
  logic [WayW-1:0] scan_way;
  assign scan_way     = scan_line_i[WayW-1:0];
  assign scan_dirty_o = scan_set_valid_i[scan_way] && sc_word[DirtyAt + 32'(scan_way)];
  // A fill's line is valid since the cycle before, and its word is written at this
  // edge: the scan looks again next cycle. (A request's write in P1 is not waited for:
  // a line written in the cycle the scan passes is not in that SYNC, as before.)
  assign scan_busy_o  = u1_fill_q && u1_line_q == scan_line_i;

  // ---- the random policy's LFSR: x^16 + x^14 + x^13 + x^11 + 1 (maximal length),
  // stepping every cycle
  assign rand_way_o = lfsr_q[WayW-1:0];
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) lfsr_q <= 16'hace1;
    else         lfsr_q <= {lfsr_q[14:0], lfsr_q[15] ^ lfsr_q[13] ^ lfsr_q[12] ^ lfsr_q[10]};
  end

`ifndef SYNTHESIS
  // The RAM's words in flip-flops beside it, for the checks only.
  logic rd_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) rd_q <= 1'b0;
    else         rd_q <= rd_i;
  end
  qpm_state_shadow #(
    .Sets   (Sets),
    .Ways   (Ways),
    .StateW (StateW)
  ) u_shadow (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .word_lines_i (vict_valid_i),
    .kept_lines_i (scan_set_valid_i),
    .we_i         (u1_valid_q),
    .wset_i       (wr_set),
    .wmask_i      (wr_mask),
    .wdata_i      (wr_data),
    .wfill_i      (u1_fill_q),
    .wway_i       (wr_way),
    .word_valid_i (rd_q),
    .word_set_i   (rd_set_q),
    .word_i       (word),
    .kept_valid_i (sc_valid_q),
    .kept_set_i   (sc_set_q),
    .kept_i       (sc_word)
  );
  // One update of the RAM a cycle: the pipe keeps a fill, a read-out and a hit apart.
  `QPM_ASSERT(OneStateWrite_A, $onehot0({fill_i, clean_i, touch_i}))
  // P1's additions are for the line P0 registered: a request's, or a fill's.
  `QPM_ASSERT_IMPL(StateP1Line_A, dirty_p1_i || hold_p1_i,
                   u1_valid_q && !u1_clean_q && dirty_p1_line_i == u1_line_q)
`endif

endmodule
