// qpm_mshr_sched: which miss registers take a step this cycle (docs/qp-cache.md,
// section 6, "The scheduler"), and what a register may do there about the write-back
// buffer.
//
// Two lanes, each one step a cycle, since their steps use different resources: the cache
// lane (Victim: the set's tag and line-state read; WbRead: the data RAM's read port and
// a buffer entry) and the walk lane (Dir: the directory cache; DirReq and FillReq: the
// read request register). A miss takes about two steps in each, so misses start at up
// to one every two cycles, not one every four to six. Each lane is round-robin among its
// registers that can step, from the register after the last one picked, one cycle ahead
// (a registered pick, checked again when it steps): a miss waiting for a victim way
// must not shut out the registers whose fills would free one.
// A register can step in Victim always (qpm_mshr_file holds it out in
// the cycle it decides on the set its step read), in Dir unless its page is locked by
// MAP/UNMAP, in DirReq and FillReq when the read request register is free (FillReq: and
// its QPN is no longer on its way to memory), in WbRead when a buffer entry is free.
//
// Take-backs (docs/qp-cache.md sections 20 and 22): a register whose only hazard is a
// given-up entry (ret_i) takes its fill from that entry instead of memory, in WbRead
// (swapping its dirty victim into the entry) or in FillReq; one whose only hazard is a
// live entry it may take (retl_i, its QPN's one entry) does so in FillReq, with no swap.
// One register at a time owns the take-back (the first that waits, kept until it takes
// it, or until it no longer waits: a live entry acknowledged before its claim), and
// steps when the entry's QPC is staged (ret_ok_i). A take-back in the walk lane is a
// fill through the pipe: no read-out steps in the cycle its owner is picked there, so a
// take-back and a read-out share a cycle only as a swap. A dirty victim is taken only
// with a buffer entry promised to it
// (entries free beyond those of the registers in WbRead), or by a take-back: a register
// that holds a way never waits for an entry, since the take-backs that free entries may
// need that way. The maintenance engine's read-outs leave one entry for the register
// deciding on its victim in that cycle.
`include "qpm_assert.svh"

module qpm_mshr_sched #(
  parameter int unsigned Mshrs   = 8,
  parameter int unsigned WbDepth = 2,
  localparam int unsigned MshrW = (Mshrs > 1) ? $clog2(Mshrs) : 1,
  localparam int unsigned WbW   = (WbDepth > 1) ? $clog2(WbDepth) : 1
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  // the registers' states, one bit per register
  input  logic [Mshrs-1:0] in_victim_i,
  input  logic [Mshrs-1:0] in_wbread_i,
  input  logic [Mshrs-1:0] in_dir_i,
  input  logic [Mshrs-1:0] in_dirreq_i,
  input  logic [Mshrs-1:0] in_fillreq_i,
  input  logic [Mshrs-1:0] hold_i,         // may not step this cycle
  input  logic [Mshrs-1:0] locked_i,       // its page is under MAP/UNMAP
  input  logic [Mshrs-1:0] hazard_i,       // its QPN is on its way to memory
  input  logic [Mshrs-1:0] ret_i,          // ... only in given-up entries
  input  logic [Mshrs-1:0] retl_i,         // ... only in a live entry it may take
  input  logic             rq_busy_i,      // the read request register is taken
  input  logic             wbread_ok_i,    // the pipe and a buffer entry are free
  input  logic             ret_ok_i,       // the owner's entry is staged, no fill lands
  input  logic [WbW:0]     wb_free_cnt_i,
  // the scheduled registers: the cache lane's (Victim, WbRead) and the walk lane's
  output logic             c_any_o,
  output logic [MshrW-1:0] c_idx_o,
  output logic             w_any_o,
  output logic [MshrW-1:0] w_idx_o,
  // a register's take of a victim (its decision, the cycle after its Victim step)
  input  logic             take_i,
  input  logic [MshrW-1:0] take_idx_i,
  input  logic             vict_valid_i,   // the taken way holds a QPC ...
  input  logic             vict_dirty_i,   // ... that must be written back
  output logic             take_room_o,    // ... and may be now
  output logic             xread_room_o,   // the maintenance engine may read one out
  // the take-back
  output logic             ret_want_o,     // a register owns the take-back ...
  output logic [MshrW-1:0] ret_own_o,      // ... this one
  output logic             ret_take_o,     // ... and takes its fill now
  // from the registered picks: supersets of this cycle's take-back and read-out
  output logic             ret_near_o,     // the owner is picked in either lane
  output logic             wbread_may_o    // the cache lane's pick is in WbRead
);

  logic [Mshrs-1:0] ret_wait, c_can, w_can;
  logic             own_valid_q, first_any, ret_near_w;
  logic [MshrW-1:0] own_q, first;
  assign ret_wait = (ret_i & (in_wbread_i | in_fillreq_i)) | (retl_i & in_fillreq_i);
  for (genvar m = 0; m < Mshrs; m++) begin : gen_can
    logic ret_go;
    assign ret_go = ret_ok_i && own_valid_q && own_q == MshrW'(m);
    assign c_can[m] = !hold_i[m] && (in_victim_i[m]
                   || (in_wbread_i[m] && (ret_i[m] ? ret_go : wbread_ok_i && !ret_near_w)));
    assign w_can[m] = !hold_i[m] && ((in_dir_i[m] && !locked_i[m])
                   || (in_dirreq_i[m] && !rq_busy_i)
                   || (in_fillreq_i[m] && (ret_i[m] || retl_i[m] ? ret_go
                                                                 : !rq_busy_i && !hazard_i[m])));
  end

  // Each lane's pick is registered: the register picked last cycle steps now if it still
  // can (this cycle's can), so no path runs from the registers' conditions through the
  // round-robin into the step and on into the pipe's ports (docs/capacity.md, "Timing
  // proxy"). After a victim step comes its decision, beside which no register steps in
  // Victim (held): none is picked for that cycle, nor, being held, in it, so victim steps
  // come one in three cycles at most. (A pick that left this cycle's holds out, so that a
  // victim step could follow its decision at once, took `large` uniform over 65,536 QPs
  // at 100 cycles from 0.26 to 0.32 operations per cycle, but `default`'s scan over 257
  // QPs at 1,000 cycles from 0.88 to 0.78; a walk-lane pick that left the busy read
  // request register out gave `large` 0.34 -> 0.35. Measured apart, the victim pick costs
  // that scan 0.02, the walk-lane pick the rest (docs/eviction.md, "The two picks apart");
  // neither was kept.) Any other register picked on last cycle's state and
  // unable to step now loses the cycle, never correctness: the step is always this
  // cycle's.
  logic             c_pick_any, c_pick_any_q, w_pick_any, w_pick_any_q;
  logic [MshrW-1:0] c_pick, c_pick_q, w_pick, w_pick_q;
  logic [Mshrs-1:0] c_req;
  always_comb begin
    c_req = c_can;
    if (c_any_o && in_victim_i[c_idx_o]) c_req = c_can & ~in_victim_i;
  end
  qpm_rr_arbiter #(.N(Mshrs)) u_rr_cache (
    .clk_i     (clk_i),
    .rst_ni    (rst_ni),
    .req_i     (c_req),
    .advance_i (c_pick_any),
    .any_o     (c_pick_any),
    .idx_o     (c_pick)
  );
  qpm_rr_arbiter #(.N(Mshrs)) u_rr_walk (
    .clk_i     (clk_i),
    .rst_ni    (rst_ni),
    .req_i     (w_can),
    .advance_i (w_pick_any),
    .any_o     (w_pick_any),
    .idx_o     (w_pick)
  );
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      c_pick_any_q <= 1'b0;
      c_pick_q     <= '0;
      w_pick_any_q <= 1'b0;
      w_pick_q     <= '0;
    end else begin
      c_pick_any_q <= c_pick_any;
      c_pick_q     <= c_pick;
      w_pick_any_q <= w_pick_any;
      w_pick_q     <= w_pick;
    end
  end
  assign c_any_o = c_pick_any_q && c_can[c_pick_q];
  assign c_idx_o = c_pick_q;
  assign w_any_o = w_pick_any_q && w_can[w_pick_q];
  assign w_idx_o = w_pick_q;

  // The buffer entries promised: one per register in WbRead that writes its victim back
  // (an adder tree, log2(Mshrs) deep).
  localparam int unsigned PromW = $clog2(Mshrs + 1);
  logic [PromW-1:0] promised;
  qpm_popcount #(.N(Mshrs)) u_promised (.bits_i(in_wbread_i & ~ret_i), .count_o(promised));
  assign take_room_o  = !(vict_valid_i && vict_dirty_i) || ret_i[take_idx_i]
                     || 32'(wb_free_cnt_i) > 32'(promised);
  // (an entry for the register that may take a dirty victim this very cycle)
  assign xread_room_o = 32'(wb_free_cnt_i) > 32'(promised) + 32'(take_i);

  qpm_first_one #(.N(Mshrs)) u_first (.bits_i(ret_wait), .any_o(first_any), .idx_o(first));
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      own_valid_q <= 1'b0;
      own_q       <= '0;
    end else if (ret_take_o || (own_valid_q && !ret_wait[own_q])) begin
      own_valid_q <= 1'b0;
    end else if (!own_valid_q && first_any) begin
      own_valid_q <= 1'b1;
      own_q       <= first;
    end
  end
  assign ret_want_o = own_valid_q;
  assign ret_own_o  = own_q;
  // The owner is in one lane's states: at most one lane steps it.
  assign ret_take_o = own_valid_q && ret_wait[own_q]
                   && ((c_any_o && c_idx_o == own_q) || (w_any_o && w_idx_o == own_q));
  assign ret_near_w   = own_valid_q && w_pick_any_q && w_pick_q == own_q;
  assign ret_near_o   = ret_near_w || (own_valid_q && c_pick_any_q && c_pick_q == own_q);
  assign wbread_may_o = c_pick_any_q && in_wbread_i[c_pick_q];

  // The lanes never step one register together, nor a walk-lane take-back beside a
  // read-out.
  `QPM_ASSERT(LanesApart_A, !(c_any_o && w_any_o && c_idx_o == w_idx_o))
  `QPM_ASSERT_IMPL(TakeBackAlone_A, ret_take_o && w_any_o && w_idx_o == own_q,
                   !(c_any_o && in_wbread_i[c_idx_o]))

endmodule
