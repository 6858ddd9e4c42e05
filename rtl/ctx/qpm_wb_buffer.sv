// qpm_wb_buffer: dirty lines on their way to memory (SPEC.md §11; docs/qp-cache.md).
//
// An entry is allocated when the pipe starts reading a dirty line out of the data RAM
// (a miss register's victim, or a line the maintenance engine writes back), loaded with
// its data and address one cycle later, written to memory, and freed when memory
// acknowledges the write with OKAY. Until the entry is freed its QPN is reported as
// pending, so that no miss reads that QPN's old context from memory (qpm_mshr_match's
// hazard). The miss that evicted the line does not wait for any of this. Write IDs are
// entry indexes.
//
// Write faults (SPEC §8, docs/qp-cache.md section 20). A write answered with an error
// (SLVERR, DECERR) keeps its entry, data and all, and is offered again after a backoff
// of 16 << min(tries, 6) cycles (counted in ticks of 16 cycles). After retry_budget_i
// tries (the CSR WB_RETRY_BUDGET; 0: retry forever) the entry is given up: no longer
// offered, still pending. A context a mark would not change (its QP already fatal, in
// ERR or RESET, or destroyed) is then held: announced only when no entry is free and a
// dirty line waits for one (room_miss_i), and a take-back of it without a swap leaves
// the entry in place (ret_keep_o: the line is a clean copy). A write-back of a page
// that refused a write lately gets one try (the refused pages, below). One other
// given-up entry at a time is announced (ann_*): the pipe
// makes the QP fatal on its line if it is cached (a mark, which drops the entry), and
// otherwise the miss register of that QPN takes its fill from this entry instead of
// memory (ret_*: the entry's word is read out of the RAM and held for it; a register
// with a dirty victim swaps: the victim goes into this very entry, so a take-back never
// needs a free entry). A context is never dropped: an entry leaves only when memory
// took it, when its context went back into the cache as the only copy, or when a newer
// context of its QPN is allocated (a given-up entry is then simply freed).
//
// Data and address live in a RAM (one 570-bit word per entry): the buffer is deep
// enough to keep a SYNC_CACHE's writes streaming over a long memory round trip (issue
// 27 item 2), and that depth belongs in SRAM, not flip-flops. The next write is read
// out of the RAM into the request one cycle before it is offered, and held there,
// unchanged, until the memory port takes it.
//
// A miss of a QPN whose context is here takes it from here too, not only a given-up
// one (issue 26: a victim missed again soon after its eviction does not wait for its
// write's round trip and then a read's). A live entry is taken back only while it is
// its QPN's one entry (retl_o); it stays and its write goes on (ret_keep_o: the line
// comes back clean), unless memory has acknowledged it meanwhile: an entry a take-back
// has claimed (the register waits for it, or its word is staged) is not freed by its
// OKAY, which is remembered (acked_q) and ends the entry when the fill takes it, and
// is not given up by an error, which is retried: what the fill takes stays what the
// entry is.
//
// One QPN can have several entries at once: a SYNC_CACHE's write-back of a line that
// is written again and then evicted while the first write is under way, or a line taken
// back and evicted again. Each later entry is not sent until the one before it is
// acknowledged (blk_*: a new entry waits on its QPN's newest, the one not later_q), so
// memory ends with the newest context whatever order the writes' responses take.
//
// SYNC_CACHE (and MAP/UNMAP's write-back of a page) answers only once memory holds what
// it must: sync_start_i marks every entry in flight, alloc_sync_i marks an entry the
// engine waits for, and sync_pend_o says a marked entry is neither acknowledged nor
// given up (a given-up context is reported by its QP's QP_FATAL). It also sends every
// given-up entry once more (one try), but those a miss register waits on (watched_i)
// and the announced or staged one: a page that heals takes them then.
`include "qpm_assert.svh"

module qpm_wb_buffer #(
  parameter int unsigned Depth  = 2,
  parameter int unsigned MemIdW = 4,
  parameter int unsigned PageBits = 6,
  localparam int unsigned QpnW = qpm_pkg::QpnW,
  localparam int unsigned IdxW = (Depth > 1) ? $clog2(Depth) : 1
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic [7:0]            retry_budget_i,   // tries before giving up; 0: never
  output logic                  free_any_o,
  output logic [IdxW:0]         free_cnt_o,
  // allocate (the pipe reads the line this cycle) ...
  input  logic                  alloc_i,
  input  logic [QpnW-1:0]       alloc_qpn_i,
  input  logic                  alloc_sync_i,     // a SYNC or MAP/UNMAP waits for it
  input  logic                  alloc_swap_i,     // ... into the staged entry (ret_take_i)
  output logic [IdxW-1:0]       alloc_idx_o,
  // ... and load it the next cycle
  input  logic                  load_i,
  input  logic [IdxW-1:0]       load_idx_i,
  input  logic [51:0]           load_page_i,      // QPC address bits 63:12
  input  logic [511:0]          load_data_i,
  // the memory write, held until taken
  output logic                  mem_req_valid_o,
  input  logic                  mem_req_ready_i,
  output logic [MemIdW-1:0]     mem_req_id_o,
  output logic [63:0]           mem_req_addr_o,
  output logic [511:0]          mem_req_wdata_o,
  // write responses (B) of the entries
  input  logic                  mem_rsp_valid_i,
  input  logic [IdxW-1:0]       mem_rsp_idx_i,
  input  logic                  mem_rsp_error_i,
  // what a SYNC_CACHE waits for
  input  logic                  sync_start_i,     // mark every entry in flight now
  output logic                  sync_pend_o,      // a marked entry is not acknowledged
  // entries not yet acknowledged
  output logic [Depth-1:0]      pend_o,
  output logic [Depth*QpnW-1:0] pend_qpn_o,
  // the announced given-up entry: its QP is made fatal on its line (mark) ...
  output logic [QpnW-1:0]       ann_qpn_o,
  output logic                  mark_req_o,       // ... asked once per announcement
  input  logic                  mark_take_i,
  input  logic                  drop_i,           // the mark hit: its line holds the QPC
  input  logic [QpnW-1:0]       drop_qpn_i,
  output logic [Depth-1:0]      gu_o,             // given-up entries
  input  logic [Depth-1:0]      watched_i,        // entries a miss register waits on
  output logic [Depth-1:0]      retl_o,           // live entries a take-back may take
  input  logic                  room_miss_i,      // a dirty line found no free entry
  // take-backs of a context (given up, or retl_o) to the miss register of its QPN
  input  logic                  ret_want_i,       // that register waits for it ...
  input  logic [QpnW-1:0]       ret_qpn_i,        // ... (held until ret_take_i)
  output logic                  ret_staged_o,     // ret_data_o holds the entry's QPC
  output logic [511:0]          ret_data_o,
  output logic                  ret_keep_o,       // the staged entry stays (held, see above)
  input  logic                  ret_take_i,       // the fill lands this cycle
  output logic                  cnt_given_up_o
);

  localparam int unsigned WordW = 58 + 512;

  logic [Depth-1:0] valid_q, loaded_q, sent_q, sync_q, blk_q, later_q, gu_q, live_q, waiting;
  logic [Depth-1:0] acked_q, claimed, ok_rsp;   // the take-back's claim (see the header)
  logic [Depth-1:0] freed, failed, give_up, dropped;   // memory's answers, and leaving
  logic [QpnW-1:0]  qpn_q     [Depth];
  logic [IdxW-1:0]  blk_idx_q [Depth];   // the earlier entry of the same QPN
  logic [7:0]       tries_q   [Depth];
  logic [6:0]       wait_q    [Depth];   // backoff left, in ticks of 16 cycles
  logic             stg_valid_q;         // the request: read out of the RAM, offered
  logic [IdxW-1:0]  stg_idx_q;
  logic [3:0]       tick_q;
  logic             ann_q, marked_q, staged_q;
  logic [IdxW-1:0]  ann_idx_q, staged_idx_q;
  logic [QpnW-1:0]  ann_qpn_q;   // qpn_q[ann_idx_q], which stays while it is announced

  // ---- free, sendable and given-up entries, lowest index first, and the entry of the
  // QPN being allocated (its newest: see SameQpnOnce_A): trees, not a loop over Depth
  logic            free_any, send_any, gu_any, ret_any;
  logic [IdxW-1:0] free_idx, send_idx, same_idx, gu_idx, ret_idx;
  logic            pick, ret_rd;
  logic [Depth-1:0] sendable, same, ret_match;
  for (genvar g = 0; g < Depth; g++) begin : gen_match
    assign waiting[g]  = wait_q[g] != '0;
    assign sendable[g] = valid_q[g] && loaded_q[g] && !sent_q[g] && !blk_q[g] && !gu_q[g]
                      && !waiting[g];
    assign same[g]     = valid_q[g] && qpn_q[g] == alloc_qpn_i;
    assign retl_o[g]    = valid_q[g] && loaded_q[g] && !later_q[g] && !blk_q[g] && !gu_q[g];
    assign ret_match[g] = (retl_o[g] || (valid_q[g] && gu_q[g] && !later_q[g]))
                       && qpn_q[g] == ret_qpn_i;
    assign claimed[g]   = (ret_want_i && ret_match[g]) || (staged_q && staged_idx_q == IdxW'(g));
  end
  qpm_first_one #(.N(Depth)) u_free (.bits_i(~valid_q), .any_o(free_any), .idx_o(free_idx));
  qpm_first_one #(.N(Depth)) u_send (.bits_i(sendable), .any_o(send_any), .idx_o(send_idx));
  // the matching entry's index, only stored (blk_idx_q): see same_held below
  logic unused_same_any;
  qpm_first_one #(.N(Depth)) u_same (.bits_i(same & ~later_q), .any_o(unused_same_any),
                                     .idx_o(same_idx));
  // Announced: a given-up context whose QP a mark would make fatal (live), and, only
  // while no entry is free and a dirty line has found none since one was last free
  // (room_want_q), any given-up context (it goes back into the cache, so the dirty
  // eviction that waits gets an entry; with no one waiting, pulling it in would only
  // push a live line out). A context the mark would leave as it is (already fatal, in
  // ERR or RESET, destroyed) is held here until a miss of its QPN takes it back or a
  // newer context of its QPN supersedes it.
  logic             room_want_q;
  logic [Depth-1:0] ann_cand;
  assign ann_cand = valid_q & gu_q & ~later_q & (live_q | {Depth{!free_any && room_want_q}});
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni)          room_want_q <= 1'b0;
    else if (free_any)    room_want_q <= 1'b0;
    else if (room_miss_i) room_want_q <= 1'b1;
  end
  qpm_first_one #(.N(Depth)) u_gu   (.bits_i(ann_cand), .any_o(gu_any), .idx_o(gu_idx));
  qpm_first_one #(.N(Depth)) u_ret  (.bits_i(ret_match), .any_o(ret_any), .idx_o(ret_idx));
  assign gu_o        = valid_q & gu_q;
  assign free_any_o  = free_any;
  // The free count a cycle old, less last cycle's allocation: never more than the entries
  // free now (one freed last cycle counts from the next), and off the popcount's depth
  // (the room checks it feeds are in front of the pipe's read port: docs/capacity.md).
  logic [IdxW:0] free_cnt, free_cnt_q;
  logic          took_q;
  always_comb begin
    free_cnt = '0;
    for (int unsigned g = 0; g < Depth; g++) free_cnt += (IdxW+1)'(!valid_q[g]);
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      free_cnt_q <= (IdxW+1)'(Depth);
      took_q     <= 1'b0;
    end else begin
      free_cnt_q <= free_cnt;
      took_q     <= alloc_i && !alloc_swap_i;
    end
  end
  assign free_cnt_o = free_cnt_q - (IdxW+1)'(took_q);
  assign alloc_idx_o = alloc_swap_i ? staged_idx_q : free_idx;
  assign sync_pend_o = (valid_q & sync_q & ~gu_q & ~acked_q) != '0;
  // SYNC_CACHE (and MAP/UNMAP) tries every given-up context once more: sent again with
  // one try, and waited for. Not one a miss register waits on (its take-back is under
  // way), nor the announced or the staged one (their mark or fill is).
  logic [Depth-1:0] rearm;
  for (genvar g = 0; g < Depth; g++) begin : gen_rearm
    assign rearm[g] = sync_start_i && valid_q[g] && gu_q[g] && !later_q[g] && !watched_i[g]
                   && !(ann_q && ann_idx_q == IdxW'(g)) && !(staged_q && staged_idx_q == IdxW'(g));
  end
  // A newer context of a given-up entry's QPN: the entry is freed, the new one goes on.
  // At most one entry matches (SameQpnOnce_A), so every use of the match reads the
  // per-entry bits (same & ...) rather than waiting for the index the tree finds: the
  // allocation's QPN compare is on the path from the miss registers' scheduler.
  logic [Depth-1:0] same_held, same_live;   // the matching entry, given up or not
  assign same_held = same & gu_q;
  assign same_live = same & ~gu_q;

  // Read the next write out of the RAM when the request register is empty or being
  // taken; it is offered from the next cycle on. A take-back reads the given-up entry of
  // the waiting register's QPN instead, and the word stays in the RAM's output until the
  // fill takes it.
  assign ret_rd = ret_want_i && ret_any && !staged_q && (!stg_valid_q || mem_req_ready_i);
  assign pick   = send_any && (!stg_valid_q || mem_req_ready_i) && !ret_want_i && !staged_q;

  logic [WordW-1:0] rdata;
  qpm_ram_2p #(
    .Width (WordW),
    .Depth (Depth)
  ) u_ram (
    .clk_i   (clk_i),
    .re_i    (pick || ret_rd),
    .raddr_i (ret_rd ? ret_idx : send_idx),
    .rdata_o (rdata),
    .we_i    (load_i),
    .waddr_i (load_idx_i),
    .wdata_i ({load_page_i, qpn_q[load_idx_i][PageBits-1:0], load_data_i}),   // 63:6
    .wmask_i ('1)
  );

  assign mem_req_valid_o = stg_valid_q;
  assign mem_req_id_o    = MemIdW'(stg_idx_q);
  assign mem_req_addr_o  = {rdata[WordW-1 -: 58], 6'b0};
  assign mem_req_wdata_o = rdata[511:0];
  assign ret_staged_o    = staged_q;
  assign ret_data_o      = rdata[511:0];
  // A held context (no mark needed, not announced) taken back without a swap stays here:
  // its line is a clean copy, dropped silently when evicted clean; a write of its QPN
  // supersedes the entry. So does a live one whose write is not yet acknowledged.
  logic staged_ann;
  assign staged_ann      = ann_q && ann_idx_q == staged_idx_q;
  assign ret_keep_o      = staged_q && (gu_q[staged_idx_q]
                                        ? !live_q[staged_idx_q] && !staged_ann
                                        : !acked_q[staged_idx_q] && !ok_rsp[staged_idx_q]);

  // Whether a mark would make the loaded context's QP fatal (qpm_qpc_fatal's rule).
  qpm_pkg::qpc_t load_qpc, load_qpc_fatal;
  logic          load_live;
  assign load_qpc = load_data_i;
  qpm_qpc_fatal u_load_live (
    .qpc_i   (load_qpc),
    .write_i (1'b1),
    .live_o  (load_live),
    .qpc_o   (load_qpc_fatal)
  );
  logic unused_load_qpc_fatal;   // only the rule's verdict is kept
  assign unused_load_qpc_fatal = ^load_qpc_fatal;

  // Pages that refused a write, a hint: the directory indexes of the last two pages whose
  // write was given up, each forgotten when a write of its page is acknowledged. A new
  // entry of such a page gets one try before it is given up (a context taken back and
  // evicted again does not spend the whole budget, its QPN's misses waiting, each time).
  localparam int unsigned PgW = QpnW - PageBits;
  logic [1:0]     rf_valid_q;
  logic [PgW-1:0] rf_page_q [2];
  logic           rf_next_q;
  logic [1:0]     rf_alloc_hit;
  for (genvar r = 0; r < 2; r++) begin : gen_rf_hit
    assign rf_alloc_hit[r] = rf_valid_q[r] && rf_page_q[r] == PgW'(alloc_qpn_i >> PageBits);
  end

  // Responses: OKAY frees the entry; an error either backs off or gives up.
  // Whether an entry's next error gives it up is registered (last_try_q) from its try
  // count and the budget, so the add and compare stay off the paths that follow a
  // give-up (the entries blocked behind it). No answer comes within a cycle of a count's
  // change (a failed write waits a backoff tick, an allocated or re-armed one is loaded
  // and sent first: LastTryKept_A); a WB_RETRY_BUDGET write counts from the next cycle.
  logic             drop_hit;
  logic [Depth-1:0] last_try_q;
`ifndef SYNTHESIS
  logic [Depth-1:0] last_try_now;   // for the check only
  logic [7:0]       budget_prev_q;
  always_ff @(posedge clk_i) budget_prev_q <= retry_budget_i;
  `QPM_ASSERT_IMPL(LastTryKept_A, mem_rsp_valid_i && mem_rsp_error_i
                   && budget_prev_q == retry_budget_i,
                   last_try_q[mem_rsp_idx_i] == last_try_now[mem_rsp_idx_i])
`endif
  assign drop_hit = drop_i && ann_q && ann_qpn_q == drop_qpn_i;
  for (genvar g = 0; g < Depth; g++) begin : gen_rsp
    logic [7:0] tries_next;
    assign tries_next = tries_q[g] + 8'(tries_q[g] != 8'hff);
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) last_try_q[g] <= 1'b0;
      else         last_try_q[g] <= retry_budget_i != '0 && tries_next >= retry_budget_i;
    end
    assign ok_rsp[g]  = mem_rsp_valid_i && !mem_rsp_error_i && mem_rsp_idx_i == IdxW'(g);
    assign freed[g]   = ok_rsp[g] && !claimed[g];
    assign failed[g]  = mem_rsp_valid_i && mem_rsp_error_i && mem_rsp_idx_i == IdxW'(g);
    assign give_up[g] = failed[g] && last_try_q[g] && !claimed[g];
`ifndef SYNTHESIS
    assign last_try_now[g] = retry_budget_i != '0 && tries_next >= retry_budget_i;
`endif
    // leaves without a write: superseded, returned to the cache, or its mark hit
    assign dropped[g] = (alloc_i && same_held[g])
                     || (ret_take_i && !alloc_swap_i && !ret_keep_o && staged_idx_q == IdxW'(g))
                     || (drop_hit && ann_idx_q == IdxW'(g))
                     || (give_up[g] && later_q[g])
                     // given up in the cycle a newer context of its QPN came in (that
                     // one waits behind it, for an answer that will not come): freed now
                     || (valid_q[g] && gu_q[g] && later_q[g]);
  end
  assign cnt_given_up_o = give_up != '0;
  // The announced entry leaves (dropped[ann_idx_q] without its give-up term: the entry
  // is given up already, so no answer of its can give it up again, GiveUpNotAnnounced_A;
  // the try count's add and compare stay off the announcement's path).
  logic ann_dropped;
  assign ann_dropped = (alloc_i && same_held[ann_idx_q])
                    || (ret_take_i && !alloc_swap_i && !ret_keep_o && staged_idx_q == ann_idx_q)
                    || drop_hit
                    || (valid_q[ann_idx_q] && gu_q[ann_idx_q] && later_q[ann_idx_q]);

  assign pend_o = valid_q;
  // The entries' flags as vectors, one process for all of them (a process per entry
  // cost the Verilated model a fifth of its time): each line is the per-entry rule in
  // order, a later event of the same entry winning (an allocation over an answer, a
  // load over the allocation that precedes it, a SYNC's re-arm last).
  logic [Depth-1:0] alloc_oh, load_oh, pick_oh, blk_clear, retry;
  assign alloc_oh = alloc_i ? Depth'(1) << alloc_idx_o : '0;
  assign load_oh  = load_i  ? Depth'(1) << load_idx_i  : '0;
  assign pick_oh  = pick    ? Depth'(1) << send_idx    : '0;
  assign retry    = failed & ~give_up;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q  <= '0;
      loaded_q <= '0;
      sent_q   <= '0;
      sync_q   <= '0;
      blk_q    <= '0;
      later_q  <= '0;
      gu_q     <= '0;
      live_q   <= '0;
      acked_q  <= '0;
    end else begin
      valid_q  <= (valid_q & ~(freed | dropped)) | alloc_oh;
      loaded_q <= (loaded_q & ~alloc_oh) | load_oh;
      sent_q   <= (sent_q | pick_oh) & ~retry & ~alloc_oh & ~rearm;
      sync_q   <= ((sync_q | (valid_q & {Depth{sync_start_i}})) & ~alloc_oh)
                | (alloc_oh & {Depth{alloc_sync_i || sync_start_i}});
      // the earlier entry of the same QPN acknowledged (or left): this one may go
      blk_q    <= (blk_q & ~blk_clear & ~alloc_oh)
                | (alloc_oh & {Depth{(same_live & ~freed) != '0}});
      later_q  <= (later_q | (same_live & {Depth{alloc_i}})) & ~alloc_oh;
      gu_q     <= (gu_q | give_up) & ~alloc_oh & ~rearm;
      live_q   <= (live_q & ~load_oh) | (load_oh & {Depth{load_live}});
      acked_q  <= (acked_q | (ok_rsp & claimed)) & ~alloc_oh;
    end
  end

  for (genvar g = 0; g < Depth; g++) begin : gen_entry
    assign pend_qpn_o[g*QpnW +: QpnW] = qpn_q[g];
    assign blk_clear[g] = freed[blk_idx_q[g]] || dropped[blk_idx_q[g]];
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        blk_idx_q[g] <= '0;
        qpn_q[g]     <= '0;
        tries_q[g]   <= '0;
        wait_q[g]    <= '0;
      end else begin
        if (tick_q == '0 && waiting[g]) wait_q[g] <= wait_q[g] - 7'd1;
        if (failed[g]) begin
          tries_q[g] <= tries_q[g] + 8'(tries_q[g] != 8'hff);
          if (!give_up[g]) wait_q[g] <= 7'd1 << ((tries_q[g] > 8'd6) ? 3'd6 : tries_q[g][2:0]);
        end
        if (alloc_oh[g]) begin
          qpn_q[g]     <= alloc_qpn_i;
          blk_idx_q[g] <= same_idx;
          tries_q[g]   <= (rf_alloc_hit != '0 && retry_budget_i != '0) ? retry_budget_i - 8'd1
                                                                      : 8'd0;
          wait_q[g]    <= '0;
        end
        if (rearm[g]) begin
          tries_q[g] <= (retry_budget_i != '0) ? retry_budget_i - 8'd1 : 8'd0;
          wait_q[g]  <= '0;
        end
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      stg_valid_q <= 1'b0;
      stg_idx_q   <= '0;
      tick_q      <= '0;
      ann_q       <= 1'b0;
      ann_idx_q   <= '0;
      ann_qpn_q   <= '0;
      marked_q    <= 1'b0;
      staged_q    <= 1'b0;
      staged_idx_q <= '0;
    end else begin
      // A take-back: the word is read out, held, and taken by the fill.
      if (ret_take_i)  staged_q <= 1'b0;
      else if (ret_rd) staged_q <= 1'b1;
      if (ret_rd)      staged_idx_q <= ret_idx;
      tick_q <= tick_q + 4'd1;
      if (pick) begin
        stg_valid_q <= 1'b1;
        stg_idx_q   <= send_idx;
      end else if (mem_req_ready_i) begin
        stg_valid_q <= 1'b0;
      end
      // One given-up entry announced at a time, until it leaves.
      if (ann_q && (ann_dropped || (alloc_swap_i && staged_idx_q == ann_idx_q))) begin
        ann_q    <= 1'b0;
        marked_q <= 1'b0;
      end else if (!ann_q && gu_any && !sync_start_i   // not one a SYNC re-arms,
                   && !(alloc_swap_i && staged_idx_q == gu_idx)) begin   // nor one swapped now
        ann_q     <= 1'b1;
        ann_idx_q <= gu_idx;
        ann_qpn_q <= qpn_q[gu_idx];
      end else if (mark_take_i) begin
        marked_q <= 1'b1;
      end
    end
  end
  // The refused pages: one response a cycle, so at most one give-up or one OKAY.
  logic [QpnW-1:0] rsp_qpn;
  logic [PgW-1:0]  rsp_page;
  logic [1:0]      rf_rsp_hit;
  assign rsp_qpn  = qpn_q[mem_rsp_idx_i];
  assign rsp_page = PgW'(rsp_qpn >> PageBits);
  for (genvar r = 0; r < 2; r++) begin : gen_rf_rsp
    assign rf_rsp_hit[r] = rf_valid_q[r] && rf_page_q[r] == rsp_page;
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rf_valid_q <= '0;
      rf_page_q[0] <= '0;
      rf_page_q[1] <= '0;
      rf_next_q  <= 1'b0;
    end else if (mem_rsp_valid_i && !mem_rsp_error_i) begin
      rf_valid_q <= rf_valid_q & ~rf_rsp_hit;
    end else if (give_up != '0 && rf_rsp_hit == '0) begin
      rf_valid_q[rf_next_q] <= 1'b1;
      rf_page_q[rf_next_q]  <= rsp_page;
      rf_next_q             <= !rf_next_q;
    end
  end

  // Registered: an announced entry's QPN does not change (a swap into it ends the
  // announcement), and the pipe's mark and lookup start from it.
  assign ann_qpn_o   = ann_qpn_q;
`ifndef SYNTHESIS
  logic [QpnW-1:0] ann_qpn_now;   // for the check only
  assign ann_qpn_now = qpn_q[ann_idx_q];
  `QPM_ASSERT_IMPL(AnnQpnKept_A, ann_q, ann_qpn_q == ann_qpn_now)
  `QPM_ASSERT_IMPL(GiveUpNotAnnounced_A, ann_q, !give_up[ann_idx_q])
`endif
  assign mark_req_o  = ann_q && !marked_q;

  `QPM_ASSERT_IMPL(AllocHasRoom_A, alloc_i && !alloc_swap_i, free_any)
  `QPM_ASSERT(FreeCountSafe_A, free_cnt_o <= free_cnt)
  `QPM_ASSERT_IMPL(SwapIsReturn_A, alloc_swap_i, alloc_i && ret_take_i && staged_q)
  `QPM_ASSERT_IMPL(TakeStaged_A, ret_take_i, staged_q && valid_q[staged_idx_q])
  // A register waits for a take-back only on an entry of its QPN it may take, and that
  // entry stays, of the same kind, until the take-back takes it (the QPN is not cached
  // meanwhile; a live entry is claimed from the first cycle the register waits: the
  // register gives up the wait if the entry left before, qpm_mshr_sched).
  `QPM_ASSERT_IMPL(RetEntryThere_A, ret_want_i && (staged_q || (valid_q & gu_q & ret_match) != '0),
                   ret_any)
  `QPM_ASSERT_IMPL(StagedStays_A, staged_q, valid_q[staged_idx_q] && !later_q[staged_idx_q])
  `QPM_ASSERT_NEXT(ClaimedKeepsKind_A, staged_q && !ret_take_i,
                   gu_q[staged_idx_q] == $past(gu_q[staged_idx_q]))
  `QPM_ASSERT(RearmNotClaimed_A, (rearm & claimed) == '0)
  // An acknowledged entry a take-back claimed stays claimed until the take drops it.
  `QPM_ASSERT(AckedClaimed_A, (acked_q & valid_q & ~claimed) == '0)
  `QPM_ASSERT_IMPL(LoadAllocated_A, load_i, valid_q[load_idx_i] && !loaded_q[load_idx_i])
  `QPM_ASSERT_IMPL(RspForSent_A, mem_rsp_valid_i, valid_q[mem_rsp_idx_i] && sent_q[mem_rsp_idx_i]
                                 && !(stg_valid_q && stg_idx_q == mem_rsp_idx_i))
  // One QPN has one newest entry (see the header), so an allocation finds at most one.
  `QPM_ASSERT_IMPL(SameQpnOnce_A, alloc_i, ((same & ~later_q) & ((same & ~later_q) - 1'b1)) == '0)
  // Never two unacknowledged writes of one QPN on the bus: the later one waits.
  `QPM_ASSERT_IMPL(SameQpnInOrder_A, pick, !blk_q[send_idx])
  // A write answered with an error keeps its entry, to be sent again or given up.
  `QPM_ASSERT_NEXT(FailedWriteKept_A, mem_rsp_valid_i && mem_rsp_error_i
                   && !(give_up[mem_rsp_idx_i] && later_q[mem_rsp_idx_i]),
                   valid_q[$past(mem_rsp_idx_i)] && !sent_q[$past(mem_rsp_idx_i)]
                   || gu_q[$past(mem_rsp_idx_i)])
  `QPM_ASSERT_NEXT(MemReqStable_A, mem_req_valid_o && !mem_req_ready_i, mem_req_valid_o
                              && $stable(mem_req_id_o) && $stable(mem_req_addr_o)
                              && $stable(mem_req_wdata_o))

endmodule
