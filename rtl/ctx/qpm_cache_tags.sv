// qpm_cache_tags: the QP cache's tag side (docs/qp-cache.md, docs/eviction.md). Wires
// together the line state and the choice of a victim in one set:
//
//   qpm_cache_lines    dirty/held bits, PLRU and LRU order, the lookup's hit
//   qpm_tag_views      the tags and valid/pinned bits in RAM (one copy), its readers
//                      (the request port's entries among them, qpm_cache_port), the
//                      lookup's word
//   qpm_victim_select  the policy's choice among the set's eligible ways
//   qpm_evict_trap     EVICT_POLICY TRAP: the same choice asked of software first
//   qpm_victim_guard   a miss the pipe's writes keep from its victim drains the pipe
//
// A miss register's victim step (vict_step_i) reads its set: the tags' copy and
// the line state's RAM, in the cycle it is scheduled. In the next cycle (vict_take_i,
// the register held out of the schedule) the set is at hand and the register decides:
// the policy's choice among the eligible ways, then the take of that way if the pipe's
// P0 does not change it now. The lines the pipe writes (P0's looked-up line, P1's line)
// are never taken: their write would land after the miss register took the way. The
// choice excludes only P1's line, a register, and the line state it reads is registered
// too, so no path runs from the pipe's decision through the policy's choice; only the
// last compare with P0's line is on it (docs/qp-cache.md, "Victim").
module qpm_cache_tags #(
  parameter int unsigned Sets  = 64,
  parameter int unsigned Ways  = 4,
  parameter int unsigned Mshrs = 8,
  localparam int unsigned SetW     = (Sets > 1) ? $clog2(Sets) : 1,
  localparam int unsigned WayW     = (Ways > 1) ? $clog2(Ways) : 1,
  localparam int unsigned Lines    = Sets * Ways,
  localparam int unsigned LineW    = $clog2(Lines),
  localparam int unsigned MshrW    = (Mshrs > 1) ? $clog2(Mshrs) : 1,
  localparam int unsigned QpnW     = qpm_pkg::QpnW,
  localparam int unsigned TagW     = QpnW - SetW,
  localparam int unsigned EntW     = TagW + 2,
  localparam int unsigned LwW      = 2 * (SetW + WayW) + EntW + 6,
  localparam int unsigned TrapReqW = 4 + SetW + Ways * (QpnW + 4)
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic [1:0]           policy_i,            // qpm_pkg::Evict* (docs/eviction.md)
  input  logic [15:0]          trap_timeout_i,
  // lookup of one QPN (the pipe's P0): a port request with its set's tags, a replay on
  // its miss register's way, or a mark
  input  logic [QpnW-1:0]      look_qpn_i,
  input  logic [Ways*EntW-1:0] look_port_tags_i,
  // the request port's reads of the tags (qpm_cache_port)
  input  logic                 port_re_i,
  input  logic [SetW-1:0]      port_set_i,
  output logic                 port_fresh_o,
  output logic [Ways*EntW-1:0] port_word_o,
  input  logic                 look_replay_i,
  input  logic [WayW-1:0]      look_replay_way_i,
  input  logic                 look_replay_word_i,  // ... with its set's word (a PIN, UNPIN)
  input  logic                 look_mark_i,
  input  logic                 replay_want_i,       // a replay is staged: its set ...
  input  logic [SetW-1:0]      replay_set_i,
  output logic                 replay_ok_o,         // ... and its word is at hand (a flop)
  input  logic                 replay_take_i,       // the pipe takes the replay now
  input  logic [LwW-1:0]       lw_i,                // the cycle's line writes
  input  logic                 look_check_i,        // the pipe decides with it (checks)
  output logic                 look_hit_o,
  output logic [LineW-1:0]     look_line_o,
  output logic                 look_pinned_o,
  output logic [WayW:0]        look_pinned_in_set_o,
  // the victim step of the miss register scheduled this cycle: its set is read
  input  logic                 vict_step_i,
  input  logic [SetW-1:0]      vict_set_i,
  // the decision of the register that stepped in the cycle before, and its answer
  input  logic                 vict_take_i,
  input  logic [MshrW-1:0]     vict_mshr_i,
  input  logic [SetW-1:0]      vict_take_set_i,
  input  logic [Ways-1:0]      vict_reserved_i,     // ways miss registers own: no victims
  output logic                 vict_found_o,        // a way may go ...
  output logic [WayW-1:0]      vict_way_o,          // ... this one
  output logic                 vict_take_ok_o,      // ... and P0 does not change it now
  output logic                 vict_valid_o,        // its line: valid ...
  output logic                 vict_dirty_o,        // ... dirty; the set's tags:
  output logic [Ways*TagW-1:0] vict_tags_o,
  output logic                 vict_owed_o,         // no victim step this cycle
  output logic                 drain_o,             // a miss starved by the pipe: drain it
  // one line, for the maintenance scan (scan_qpn_o once scan_ok_o)
  input  logic                 scan_want_i,
  input  logic [LineW-1:0]     scan_line_i,
  output logic                 scan_ok_o,
  output logic                 scan_valid_o,
  output logic                 scan_dirty_o,
  output logic [QpnW-1:0]      scan_qpn_o,
  // the write-back buffer's mark: its lookup is ready
  input  logic                 mark_valid_i,
  input  logic [QpnW-1:0]      mark_qpn_i,
  output logic                 mark_ok_o,
  // updates (qpm_cache_lines has their precedence)
  input  logic                 touch_i,
  input  logic                 dirty_i,
  input  logic                 pin_i,               // a pin bit is written (write A) ...
  input  logic                 pin_value_i,
  input  logic                 pin_pend_i,          // ... or waits to be ...
  input  logic [LineW-1:0]     pin_line_i,          // ... on this line
  input  logic                 excl_i,              // P0 writes the looked-up line
  input  logic                 dirty_p1_i,
  input  logic                 excl_p1_i,           // P1 writes p1_line_i
  input  logic [LineW-1:0]     p1_line_i,
  input  logic                 hold_p1_i,           // P1's write is a mark: line held
  input  logic                 reserve_i,
  input  logic [LineW-1:0]     reserve_line_i,
  input  logic                 fill_i,
  input  logic [LineW-1:0]     fill_line_i,
  input  logic [TagW-1:0]      fill_tag_i,
  input  logic                 fill_hold_i,         // a take-back: the line is held
  input  logic                 clean_i,             // scan_line_i written back ...
  input  logic                 drop_i,              // ... or dropped by maintenance
  // the eviction-trap port and its counters (qpm_evict_trap)
  output logic                 trap_req_valid_o,
  input  logic                 trap_req_ready_i,
  output logic [TrapReqW-1:0]  trap_req_o,
  input  logic                 trap_rsp_valid_i,
  input  logic [3:0]           trap_rsp_tag_i,
  input  logic [WayW-1:0]      trap_rsp_way_i,
  output logic [4:0]           trap_cnt_o
);

  logic [Ways-1:0]            set_valid, set_dirty, set_pinned, set_held, set_excl;
  logic [Ways-1:0]            set_eligible;
  logic [Ways-2:0]            set_plru;
  logic [Ways*(Ways-1)/2-1:0] set_lru;
  logic [WayW-1:0]            rand_way, sel_way;
  logic                       sel_found;
  logic [Ways-1:0]            look_match;
  logic [Ways*EntW-1:0]       step_word;
  logic [Ways-1:0]            look_valid, look_pinned;
  logic                       scan_valid;
  logic [Ways-1:0]            scan_set_valid;
  logic                       rd, rd_scan, scan_tag_ok, scan_busy;
  logic [SetW-1:0]            rd_set;

  // The one tag copy: a victim step reads it for the decision's victim QPN and trap
  // question, the request port for its entries' words.
  qpm_tag_views #(
    .Sets (Sets),
    .Ways (Ways)
  ) u_views (
    .clk_i             (clk_i),
    .rst_ni            (rst_ni),
    .lw_i              (lw_i),
    .step_read_i       (vict_step_i),
    .step_set_i        (vict_set_i),
    .step_word_o       (step_word),
    .owed_o            (vict_owed_o),
    .scan_want_i       (scan_want_i),
    .scan_line_i       (scan_line_i),
    .scan_ok_o         (scan_tag_ok),
    .scan_qpn_o        (scan_qpn_o),
    .scan_valid_o      (scan_valid),
    .scan_set_valid_o  (scan_set_valid),
    .replay_want_i     (replay_want_i),
    .replay_set_i      (replay_set_i),
    .replay_ok_o       (replay_ok_o),
    .replay_take_i     (replay_take_i),
    .mark_valid_i      (mark_valid_i),
    .mark_qpn_i        (mark_qpn_i),
    .mark_ok_o         (mark_ok_o),
    .port_re_i         (port_re_i),
    .port_set_i        (port_set_i),
    .port_fresh_o      (port_fresh_o),
    .port_word_o       (port_word_o),
    .look_tag_i        (look_qpn_i[QpnW-1:SetW]),
    .look_replay_i     (look_replay_i),
    .look_replay_way_i (look_replay_way_i),
    .look_replay_word_i (look_replay_word_i),
    .look_mark_i       (look_mark_i),
    .look_port_tags_i  (look_port_tags_i),
    .look_match_o      (look_match),
    .look_valid_o      (look_valid),
    .look_pinned_o     (look_pinned),
    .rd_o              (rd),
    .rd_set_o          (rd_set),
    .rd_scan_o         (rd_scan)
  );

  qpm_cache_lines #(
    .Sets (Sets),
    .Ways (Ways)
  ) u_lines (
    .clk_i                (clk_i),
    .rst_ni               (rst_ni),
    .look_set_i           (look_qpn_i[SetW-1:0]),
    .look_match_i         (look_match),
    .look_valid_i         (look_valid),
    .look_pinned_i        (look_pinned),
    .look_hit_o           (look_hit_o),
    .look_line_o          (look_line_o),
    .look_pinned_o        (look_pinned_o),
    .look_pinned_in_set_o (look_pinned_in_set_o),
    .rd_i                 (rd),
    .rd_set_i             (rd_set),
    .rd_scan_i            (rd_scan),
    .vict_valid_i         (set_valid),
    .vict_dirty_o         (set_dirty),
    .vict_held_o          (set_held),
    .vict_plru_o          (set_plru),
    .vict_lru_o           (set_lru),
    .rand_way_o           (rand_way),
    .scan_line_i          (scan_line_i),
    .scan_set_valid_i     (scan_set_valid),
    .scan_dirty_o         (scan_dirty_o),
    .scan_busy_o          (scan_busy),
    .touch_i              (touch_i),
    .dirty_i              (dirty_i),
    .fill_i               (fill_i),
    .fill_line_i          (fill_line_i),
    .fill_hold_i          (fill_hold_i),
    .clean_i              (clean_i),
    .maint_line_i         (scan_line_i),
    .dirty_p1_i           (dirty_p1_i),
    .dirty_p1_line_i      (p1_line_i),
    .hold_p1_i            (hold_p1_i)
  );

  // The victim decision's set, read in the cycle before: tags, valid and pinned bits
  // (pinned counts on a valid line only: a fill clears it, a take or drop need not).
  for (genvar w = 0; w < Ways; w++) begin : gen_word
    assign vict_tags_o[w*TagW +: TagW] = step_word[w*EntW + 2 +: TagW];
    assign set_valid[w]  = step_word[w*EntW + 1];
    assign set_pinned[w] = step_word[w*EntW + 1] && step_word[w*EntW];
  end

  // P1's line is kept out of the choice; P0's line only out of the take.
  always_comb begin
    for (int unsigned w = 0; w < Ways; w++) begin
      set_excl[w] = excl_p1_i && p1_line_i == LineW'({vict_take_set_i, WayW'(w)});
    end
  end
  // The take writes its line's valid bit (write B of qpm_line_write): not on the way of
  // this cycle's write A (a fill, or a pin bit, which also waits on its way: its set's
  // word here may not show it yet). A maintenance drop (the other write B) waits in every
  // decision's cycle instead (qpm_cache_data_side's drop_hold), off this path. The P0
  // line, which the pipe may write this cycle, is not taken either.
  logic take_p0_busy;
  assign take_p0_busy   = (excl_i && look_line_o[WayW-1:0] == vict_way_o)
                       || (pin_pend_i && pin_line_i[WayW-1:0] == vict_way_o)
                       || (fill_i && fill_line_i[WayW-1:0] == vict_way_o);
  assign vict_take_ok_o = vict_take_i && vict_found_o && !take_p0_busy;

  qpm_victim_select #(
    .Ways (Ways)
  ) u_victim (
    .policy_i   (policy_i),
    .valid_i    (set_valid),
    .pinned_i   (set_pinned),
    .reserved_i (vict_reserved_i),
    .exclude_i  (set_excl),
    .held_i     (set_held),
    .plru_i     (set_plru),
    .lru_i      (set_lru),
    .rand_i     (rand_way),
    .found_o    (sel_found),
    .way_o      (sel_way),
    .eligible_o (set_eligible)
  );

  qpm_evict_trap #(
    .Sets  (Sets),
    .Ways  (Ways),
    .Mshrs (Mshrs)
  ) u_trap (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .policy_i    (policy_i),
    .timeout_i   (trap_timeout_i),
    .step_i      (vict_take_i),
    .step_mshr_i (vict_mshr_i),
    .set_i       (vict_take_set_i),
    .valid_i     (set_valid),
    .dirty_i     (set_dirty),
    .pinned_i    (set_pinned),
    .eligible_i  (set_eligible),
    .tags_i      (vict_tags_o),
    .sel_found_i (sel_found),
    .sel_way_i   (sel_way),
    .found_o     (vict_found_o),
    .way_o       (vict_way_o),
    .req_valid_o (trap_req_valid_o),
    .req_ready_i (trap_req_ready_i),
    .req_o       (trap_req_o),
    .rsp_valid_i (trap_rsp_valid_i),
    .rsp_tag_i   (trap_rsp_tag_i),
    .rsp_way_i   (trap_rsp_way_i),
    .cnt_o       (trap_cnt_o)
  );

  qpm_victim_guard #(
    .Ways  (Ways),
    .Mshrs (Mshrs)
  ) u_guard (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .step_i       (vict_take_i),
    .step_found_i (sel_found),
    .take_i       (vict_take_i && vict_found_o),
    .take_ok_i    (vict_take_ok_o),
    .mshr_i       (vict_mshr_i),
    .take_way_i   (vict_way_o),
    .pinned_i     (set_pinned),
    .reserved_i   (vict_reserved_i),
    .excl_p1_i    (set_excl),
    .drain_o      (drain_o)
  );

  // The scan's line is at hand: its tag, and its state unless P1 writes it now.
  assign scan_ok_o    = scan_tag_ok && !scan_busy;
  assign scan_valid_o = scan_valid;

  assign vict_valid_o = set_valid[vict_way_o];
  assign vict_dirty_o = set_dirty[vict_way_o];

`ifndef SYNTHESIS
  // The tags and line bits in flip-flops beside the RAM, for the checks only.
  qpm_tag_shadow #(
    .Sets (Sets),
    .Ways (Ways)
  ) u_shadow (
    .clk_i                (clk_i),
    .rst_ni               (rst_ni),
    .fill_i               (fill_i),
    .fill_line_i          (fill_line_i),
    .fill_tag_i           (fill_tag_i),
    .pin_i                (pin_i),
    .pin_line_i           (pin_line_i),
    .pin_value_i          (pin_value_i),
    .reserve_i            (reserve_i),
    .reserve_line_i       (reserve_line_i),
    .drop_i               (drop_i),
    .look_check_i         (look_check_i),
    .look_pins_i          (!look_replay_i || look_replay_word_i),
    .look_qpn_i           (look_qpn_i),
    .look_hit_i           (look_hit_o),
    .look_line_i          (look_line_o),
    .look_pinned_i        (look_pinned_o),
    .look_pinned_in_set_i (look_pinned_in_set_o),
    .step_read_i          (vict_step_i),
    .step_set_i           (vict_set_i),
    .step_word_i          (step_word),
    .scan_ok_i            (scan_ok_o),
    .scan_line_i          (scan_line_i),
    .scan_qpn_i           (scan_qpn_o),
    .scan_valid_i         (scan_valid)
  );
`endif

endmodule
