// qpm_mshr_match: the compares over the miss registers (docs/qp-cache.md, "Miss
// registers"): which register works on the pipe's QPN, which registers are free, and
// which registers' QPNs are still on their way to memory as a victim (the write-back
// hazard). Only compares and priority picks; the registers are qpm_mshr_file's.
//
// Hazard: a miss must not read the QPC of a QPN that is still on its way to memory (its
// read would see the old context): a register's dirty victim not yet read out (in WbRead), or
// a write-back buffer entry not yet acknowledged, holding the register's QPN. The entries
// are tracked by a mask per register, set when either side is allocated: a register's
// QPN against the entries in flight, or a victim just read out against the registers
// (a line the maintenance engine reads out is cached, so no register waits for its
// QPN then). That is WbDepth + Mshrs compares, not Mshrs x WbDepth. Registered:
// a miss register's QPN is not cached, so it cannot become a victim while the register
// lives; its hazards can only clear, and last cycle's view errs on the safe side (a
// victim read out this cycle is in last cycle's WbRead compare, and in the write-back
// buffer's from the next cycle on). A register whose hazard is a given-up entry only
// (ret_o), or a live entry the buffer lets it take only (retl_o), takes its fill from
// that entry (qpm_wb_buffer, docs/qp-cache.md section 20).
// A victim not yet read out is found the same way: at a register's allocation, its QPN
// against the registers' victims (the register whose victim it is took that line before
// the miss, while the QPN was cached), and the register keeps that one index until the
// victim is read out: Mshrs compares and a Mshrs:1 bit per register, not Mshrs x Mshrs
// QPN compares every cycle (issue 26: 64 miss registers).
//
// Pages: MAP/UNMAP_PAGE start only when no register works on a QPN of their page
// (page_busy_o, for the pipe's request), and while one runs (lock_i) a register of that
// page does not look its directory entry up (locked_o): the entry never changes under a
// walk, and the other pages' misses go on (docs/qp-cache.md, section 8).
//
// Ways: the ways of the victim logic's set that registers own (from the take until the
// register is free): no other miss may take them. A compare per register, not a
// reserved bit per line.
`include "qpm_assert.svh"

module qpm_mshr_match #(
  parameter int unsigned Mshrs   = 8,
  parameter int unsigned WbDepth = 2,
  parameter int unsigned PageBits = 6,
  parameter int unsigned DirIdxW  = 18,
  parameter int unsigned Ways     = 4,
  parameter int unsigned SetW     = 6,
  localparam int unsigned WayW  = (Ways > 1) ? $clog2(Ways) : 1,
  localparam int unsigned QpnW  = qpm_pkg::QpnW,
  localparam int unsigned MshrW = (Mshrs > 1) ? $clog2(Mshrs) : 1,
  localparam int unsigned WbW   = (WbDepth > 1) ? $clog2(WbDepth) : 1
) (
  input  logic                    clk_i,
  input  logic                    rst_ni,
  input  logic [Mshrs-1:0]        busy_i,          // the register is not free
  input  logic [Mshrs-1:0]        replay_i,        // ... and replays its waiters
  input  logic [Mshrs*QpnW-1:0]   qpn_i,           // the QPN each register works on
  input  logic [Mshrs-1:0]        victim_out_i,    // has a dirty victim to read out ...
  input  logic [Mshrs*QpnW-1:0]   vqpn_i,          // ... of this QPN
  input  logic [WbDepth-1:0]      wb_pend_i,       // write-back buffer entries in flight
  input  logic [WbDepth*QpnW-1:0] wb_pend_qpn_i,
  input  logic                    alloc_i,         // the pipe allocates a register ...
  input  logic [MshrW-1:0]        alloc_idx_i,
  input  logic [QpnW-1:0]         alloc_qpn_i,     // ... for this QPN
  input  logic                    wbread_i,        // a victim is read out into the buffer
  input  logic [QpnW-1:0]         wbread_qpn_i,
  input  logic [WbW-1:0]          wbread_wb_idx_i, // ... at this entry
  // the write-back buffer's given-up entries (qpm_wb_buffer)
  input  logic [WbDepth-1:0]      wb_gu_i,
  input  logic [WbDepth-1:0]      wb_retl_i,       // live entries a take-back may take
  output logic [Mshrs-1:0]        retl_o,          // registered: ... only on such an entry
  output logic [Mshrs-1:0]        ret_o,           // registered: the register waits only on a
                                                   // given-up entry (its fill comes from there)
  output logic [WbDepth-1:0]      wb_watched_o,    // entries a register's mask holds now
  // the pipe's QPN
  input  logic [QpnW-1:0]         look_qpn_i,
  output logic                    look_on_o,       // a register works on look_qpn_i
  output logic                    look_filling_o,  // ... and its fill is not done yet
  output logic [MshrW-1:0]        look_idx_o,
  output logic                    free_any_o,
  output logic                    free_two_o,      // at least two registers are free
  output logic [MshrW-1:0]        free_idx_o,
  output logic                    page_busy_o,     // one works on page look_qpn_i[DirIdxW-1:0]
  output logic [Mshrs-1:0]        wb_hazard_o,     // registered (see the header)
  // MAP/UNMAP of a directory entry under way
  input  logic                    lock_i,
  input  logic [DirIdxW-1:0]      lock_idx_i,
  output logic [Mshrs-1:0]        locked_o,        // registered: the register's page is
                                                   // that entry
  // the ways registers own in the victim logic's set
  input  logic [Mshrs-1:0]        owns_i,
  input  logic [Mshrs*WayW-1:0]   way_i,
  input  logic [SetW-1:0]         vict_set_i,      // the victim step's set
  output logic [Ways-1:0]         vict_reserved_o  // registered: for its decision
);

  // Compared at the victim step (vict_set_i is the step's set) and registered for the
  // decision in the next cycle: no take happens in a cycle with a victim step
  // (qpm_mshr_file holds the steps while a register decides), so the registered ways can
  // differ from the decision's own only by a register freed since, whose way stays out
  // a cycle longer (safe). No compare per register between the decision and its take.
  logic [Ways-1:0] reserved_d, reserved_q;
  always_comb begin
    reserved_d = '0;
    for (int unsigned m = 0; m < Mshrs; m++) begin
      if (owns_i[m] && qpn_i[m*QpnW +: SetW] == vict_set_i)
        reserved_d[way_i[m*WayW +: WayW]] = 1'b1;
    end
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) reserved_q <= '0;
    else         reserved_q <= reserved_d;
  end
  assign vict_reserved_o = reserved_q;

  // Registered, and compared once, at allocation: MAP/UNMAP start (lock_i rises the next
  // cycle) only when no register works on their page (page_busy_o), and the pipe
  // allocates no register in that cycle; so only a register allocated while the lock is
  // up can be on its page. The bit clears the cycle after the lock ends (one cycle of
  // waiting more, never less). No compare from the maintenance engine's state into the
  // scheduler (docs/capacity.md, "Timing proxy").
  logic [Mshrs-1:0] locked_q;
  logic             alloc_locked;
  assign alloc_locked = lock_i && DirIdxW'(alloc_qpn_i >> PageBits) == lock_idx_i;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      locked_q <= '0;
    end else begin
      for (int unsigned m = 0; m < Mshrs; m++) begin
        if (alloc_i && alloc_idx_i == MshrW'(m)) locked_q[m] <= alloc_locked;
        else                                     locked_q[m] <= locked_q[m] && lock_i;
      end
    end
  end
  assign locked_o = locked_q;
  // The registered bit is the compare it replaces, for every register that works.
  logic locked_missed;
  always_comb begin
    locked_missed = 1'b0;
    for (int unsigned m = 0; m < Mshrs; m++) begin
      if (busy_i[m] && lock_i && !locked_q[m]
          && DirIdxW'(qpn_i[m*QpnW +: QpnW] >> PageBits) == lock_idx_i)
        locked_missed = 1'b1;
    end
  end
  `QPM_ASSERT(LockedAtAlloc_A, !locked_missed)

  assign free_two_o = (~busy_i & (~busy_i - 1'b1)) != '0;
  // The pipe's QPN: at most one register works on it (OneRegisterPerQpn_A), so the
  // answer is an OR over the registers' hits, not a priority chain: the compare, then a
  // tree (the pipe decides on look_filling_o in the same cycle).
  logic [Mshrs-1:0] look_hit;
  always_comb begin
    look_idx_o  = '0;
    page_busy_o = 1'b0;
    for (int unsigned m = 0; m < Mshrs; m++) begin
      look_hit[m] = busy_i[m] && qpn_i[m*QpnW +: QpnW] == look_qpn_i;
      if (look_hit[m]) look_idx_o |= MshrW'(m);
      if (busy_i[m] && DirIdxW'(qpn_i[m*QpnW +: QpnW] >> PageBits) == look_qpn_i[DirIdxW-1:0])
        page_busy_o = 1'b1;
    end
  end
  assign look_on_o      = look_hit != '0;
  assign look_filling_o = (look_hit & ~replay_i) != '0;
  // The lowest free register: a first-one tree, log2(Mshrs) deep.
  qpm_first_one #(.N(Mshrs)) u_free (.bits_i(~busy_i), .any_o(free_any_o), .idx_o(free_idx_o));

  // The entry a victim read out last cycle went into (a new one, or the announced entry
  // a take-back swapped it into: named by index, not by a rising pending bit).
  logic [WbDepth-1:0] pend_new, alloc_match;
  logic [Mshrs-1:0]   alloc_vmatch;
  logic               new_victim_q;
  logic [QpnW-1:0]    new_qpn_q;
  logic [WbW-1:0]     new_idx_q;
  logic [WbDepth-1:0] mask_q [Mshrs];
  logic [WbDepth-1:0] mask_d [Mshrs];
  assign pend_new = WbDepth'(1) << new_idx_q;
  for (genvar e = 0; e < WbDepth; e++) begin : gen_alloc_match
    assign alloc_match[e] = wb_pend_i[e] && wb_pend_qpn_i[e*QpnW +: QpnW] == alloc_qpn_i;
  end
  for (genvar v = 0; v < Mshrs; v++) begin : gen_alloc_vmatch
    assign alloc_vmatch[v] = victim_out_i[v] && vqpn_i[v*QpnW +: QpnW] == alloc_qpn_i;
  end

  // A register allocated in a cycle starts its mask in the next (fresh_q): the entries
  // in flight with its QPN at the allocation (alloc_match, compared beside the pipe's
  // decision, not after it), so the pipe's allocation only sets fresh_q. A new register
  // is in Dir for its first cycles (qpm_mshr_reg: a directory step, a victim step and
  // its decision come first); the write-back hazard and ret_o are read only from
  // FillReq and WbRead on (qpm_mshr_sched), by when they are its own.
  logic [Mshrs-1:0]   fresh_q;
  logic [WbDepth-1:0] fresh_mask_q;
  logic [WbDepth-1:0] mask_base [Mshrs];
  logic [Mshrs-1:0]   hazard, hazard_q, ret, ret_q, retl, retl_q;
  // The victim a register waits on: at most one register has it (a taken line is no
  // longer valid), so its index (a first-one tree over the allocation's compares).
  logic [Mshrs-1:0]   fresh_vmatch_q, vwait, vwait_q;
  logic               fresh_vany;
  logic [MshrW-1:0]   fresh_vidx;
  logic [MshrW-1:0]   vwait_idx [Mshrs];
  logic [MshrW-1:0]   vwait_idx_q [Mshrs];
  qpm_first_one #(.N(Mshrs)) u_fresh_v (
    .bits_i (fresh_vmatch_q),
    .any_o  (fresh_vany),
    .idx_o  (fresh_vidx)
  );
  for (genvar m = 0; m < Mshrs; m++) begin : gen_vwait
    assign vwait_idx[m] = fresh_q[m] ? fresh_vidx : vwait_idx_q[m];
    assign vwait[m]     = busy_i[m] && (fresh_q[m] ? fresh_vany : vwait_q[m])
                          && victim_out_i[vwait_idx[m]];
  end
  always_comb begin
    for (int unsigned m = 0; m < Mshrs; m++) begin
      mask_base[m] = fresh_q[m] ? fresh_mask_q : mask_q[m];
      if (!busy_i[m]) begin
        mask_d[m] = '0;
      end else if (new_victim_q && qpn_i[m*QpnW +: QpnW] == new_qpn_q) begin
        mask_d[m] = (mask_base[m] | pend_new) & wb_pend_i;
      end else begin
        mask_d[m] = mask_base[m] & wb_pend_i;
      end
      hazard[m] = mask_d[m] != '0;
      ret[m]    = (mask_d[m] & wb_gu_i) != '0 && (mask_d[m] & ~wb_gu_i) == '0;
      retl[m]   = (mask_d[m] & wb_retl_i) != '0 && (mask_d[m] & ~wb_retl_i) == '0 && !vwait[m];
      if (vwait[m]) hazard[m] = 1'b1;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      hazard_q     <= '0;
      ret_q        <= '0;
      retl_q       <= '0;
      fresh_q      <= '0;
      fresh_mask_q <= '0;
      fresh_vmatch_q <= '0;
      vwait_q      <= '0;
      new_victim_q <= 1'b0;
      new_qpn_q    <= '0;
      new_idx_q    <= '0;
      for (int unsigned m = 0; m < Mshrs; m++) mask_q[m] <= '0;
    end else begin
      hazard_q     <= hazard;
      ret_q        <= ret;
      retl_q       <= retl;
      fresh_q      <= alloc_i ? Mshrs'(1) << alloc_idx_i : '0;
      fresh_mask_q <= alloc_match;
      fresh_vmatch_q <= alloc_vmatch;
      vwait_q      <= vwait;
      new_victim_q <= wbread_i;
      new_qpn_q    <= wbread_qpn_i;
      new_idx_q    <= wbread_wb_idx_i;
      for (int unsigned m = 0; m < Mshrs; m++) mask_q[m] <= mask_d[m];
    end
  end
  always_ff @(posedge clk_i) begin
    for (int unsigned m = 0; m < Mshrs; m++) vwait_idx_q[m] <= vwait_idx[m];
  end
  assign wb_hazard_o = hazard_q;
  assign ret_o       = ret_q;
  assign retl_o      = retl_q;

  // The entries some register waits on: a SYNC_CACHE leaves those of them that were given
  // up to their take-backs. Read from the registered masks (a fresh register's from its
  // allocation's compare): the re-arm happens in a SYNC's second cycle (qpm_cache_maint
  // registers sync_start). A register allocated in that very cycle is in Dir and takes
  // nothing back for cycles; a re-armed entry it then finds in flight is a hazard it waits
  // out. What this cycle adds to a mask is an entry being allocated now, not yet a
  // given-up one. So the allocation's compare and the scheduled step are not in front of
  // the re-arm.
  always_comb begin
    wb_watched_o = '0;
    for (int unsigned m = 0; m < Mshrs; m++) begin
      if (busy_i[m]) wb_watched_o |= mask_base[m];
    end
  end

  // Two miss registers never work on the same QPN.
  logic two_on_one_qpn;
  always_comb begin
    two_on_one_qpn = 1'b0;
    for (int unsigned a = 0; a < Mshrs; a++) begin
      for (int unsigned b = a + 1; b < Mshrs; b++) begin
        if (busy_i[a] && busy_i[b] && qpn_i[a*QpnW +: QpnW] == qpn_i[b*QpnW +: QpnW])
          two_on_one_qpn = 1'b1;
      end
    end
  end
  `QPM_ASSERT(OneRegisterPerQpn_A, !two_on_one_qpn)

`ifndef SYNTHESIS
  // The victim a register waits on is the all-pairs compare it replaces, both ways.
  logic [Mshrs-1:0] vcompare;
  always_comb begin
    for (int unsigned m = 0; m < Mshrs; m++) begin
      vcompare[m] = 1'b0;
      for (int unsigned v = 0; v < Mshrs; v++) begin
        if (busy_i[m] && victim_out_i[v] && vqpn_i[v*QpnW +: QpnW] == qpn_i[m*QpnW +: QpnW])
          vcompare[m] = 1'b1;
      end
    end
  end
  `QPM_ASSERT(VictimWaitIsCompare_A, vwait == vcompare)
`endif

endmodule
