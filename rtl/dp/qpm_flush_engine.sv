// qpm_flush_engine: which QPs owe completions, and the flush steps that pay them
// (SPEC.md §7, docs/errors.md).
//
// A QP's flush state lives in its QPC: its queue indices are the cursor (ci advances
// one WQE per step, qpm_flush_exec) and its state says whether it owes anything. This
// engine only remembers WHICH QPs to step, in bounded state that does not grow with
// the number of WQEs or of QPs:
//   Slots slots {qpn}: one flush step each in flight at a time, stepped round-robin;
//   an overflow summary of Groups bits: a QP that owes completions when every slot is
//   taken (an overflow) sets the bit of its group, a group being a set of QP-table
//   pages (group = page mod Groups, page = qpn >> PageBits);
//   a scan {group, page cursor, QPN in page}: one group at a time (a pointer walks the
//   summary to the next set bit), the engine steps the QPNs of the group's pages below
//   QPN_LIMIT (page = cursor * Groups + group), and a step answered "unmapped" skips
//   the rest of its page, so a pass reads memory only for mapped pages (one directory
//   read for each other page); a step that finds a QP still owing hands it to a free
//   slot, or sets its group's bit again.
// A request names a QP that may owe completions now: it entered ERR or SQE (a datapath
// verdict, a command's write of ERR) or took WQEs posted in ERR. A request for a QP
// already in a slot renews that slot (its step in flight may have read the QPC before
// the new work was written). A step that could not read the QPC (memory error) keeps
// its slot and is tried again: a flush is never dropped.
// A command that waits for a QP's flush or events (qpm_cmd_unit's FlushWait) has that
// QP stepped first (issue 27 item 5): each of its polls claims one more slot kept for it
// (the wait slot, if the QP holds none), and while the waited QP holds a slot only that
// slot's steps are offered, and urgent_o asks the front to grant them before the
// datapath. So its wait is about its own flush's length times one step's round trip,
// whatever the load and whatever the other slots hold.
// Steps go out on a valid/ready port, tag TagBase + slot (the last slot number is the
// scan), held stable until taken; the front gives them the pipeline's spare cycles only.
// The same engine tracks the QPs with fatal-class events pending (docs/events.md): a
// QP "owes" whatever its step's answer says it still owes (ans_more_i).
`include "qpm_assert.svh"

module qpm_flush_engine #(
  parameter int unsigned Slots     = 4,   // 1 .. 2**SlotW - 2 (and the wait slot)
  parameter int unsigned ScanDepth = 2,   // scan steps in flight at once
  parameter int unsigned Groups    = 256, // overflow summary bits (a power of two)
  parameter int unsigned PageBits  = 6,   // QPNs per QP-table page = 2**PageBits
  parameter int unsigned SlotW     = 3,   // tag bits that name the slot
  parameter logic [qpm_pkg::CtxTagW-1:0] TagBase = 4'd8,  // the tag of slot 0
  localparam int unsigned QpnW     = qpm_pkg::QpnW,
  localparam int unsigned TagW     = qpm_pkg::CtxTagW
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic [31:0]     qpn_limit_i,
  // requests: the command unit's write of ERR (at its grant) ...
  input  logic            req_a_valid_i,
  input  logic [QpnW-1:0] req_a_qpn_i,
  // ... and a datapath operation or doorbell answered (the QP owes completions now)
  input  logic            req_b_valid_i,
  input  logic [QpnW-1:0] req_b_qpn_i,
  // a command waits for this QP (a level), and one of its polls begins (a pulse)
  input  logic            wait_valid_i,
  input  logic            wait_poll_i,
  input  logic [QpnW-1:0] wait_qpn_i,
  output logic            urgent_o,       // the waited QP holds a slot: grant its steps first
  // the next flush step
  output logic            step_valid_o,
  input  logic            step_ready_i,
  output logic [QpnW-1:0] step_qpn_o,
  output logic [TagW-1:0] step_tag_o,
  // a flush step's answer
  input  logic            ans_valid_i,
  input  logic [TagW-1:0] ans_tag_i,
  input  logic [QpnW-1:0] ans_qpn_i,
  input  logic            ans_more_i,
  input  logic            ans_unmapped_i, // its QPN's page is not mapped
  // a request that found every slot taken (counted)
  output logic            overflow_o,
  output logic            busy_o          // a slot is taken or a scan runs
);

  if (Slots < 1 || Slots + 1 >= (1 << SlotW)) begin : gen_bad_slots
    $error("Slots must be 1 .. 2**SlotW - 2 (the wait slot follows; the last number is the scan)");
  end
  if (ScanDepth < 1 || ScanDepth > 3) begin : gen_bad_scan_depth
    $error("ScanDepth must be 1 .. 3 (a 2-bit count of scan steps in flight)");
  end
  if (Groups < 2 || (1 << $clog2(Groups)) != Groups) begin : gen_bad_groups
    $error("Groups must be a power of two, at least 2");
  end

  localparam int unsigned NSlots = Slots + 1;   // the last slot is the wait slot
  localparam int unsigned WaitSlot = Slots;
  localparam int unsigned Pos = NSlots + 1;     // round-robin positions: slots, then scan
  localparam int unsigned PosW = $clog2(Pos + 1);
  localparam logic [SlotW-1:0] ScanSlot = '1;
  localparam int unsigned GroupW = $clog2(Groups);
  localparam int unsigned CursorW = QpnW - GroupW - PageBits + 1;  // one bit more: the end

  logic [NSlots-1:0] valid_q, busy_q, renew_q;
  logic [QpnW-1:0]  qpn_q [NSlots];
  logic [Groups-1:0] ovf_q;                 // groups with a QP that overflowed
  logic              scan_on_q;
  logic [GroupW-1:0] group_q;
  logic [CursorW-1:0] cursor_q;              // the pass's page, within its group
  logic [PageBits-1:0] in_page_q;             // the next QPN within that page
  logic [1:0]        scan_inflight_q;
  logic             offer_q;
  logic [SlotW-1:0] offer_slot_q;
  logic [QpnW-1:0]  offer_qpn_q;
  logic             urgent_q;
  logic [NSlots-1:0] wait_match_q;

  // ---- the inputs, registered: requests and answers arrive from deep logic (the front's
  // grant, the pipeline's P1) and feed the slots and the overflow counter; one cycle of
  // delay shifts both alike, so their order is kept (a step granted after a request's
  // write still reads it).
  logic            req_a_valid_q, req_b_valid_q, ans_valid_q, ans_more_q, ans_unmapped_q;
  logic [QpnW-1:0] req_a_qpn_q, req_b_qpn_q, ans_qpn_q;
  logic [TagW-1:0] ans_tag_q;
  logic            wait_valid_q, wait_poll_q;
  logic [QpnW-1:0] wait_qpn_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wait_valid_q  <= 1'b0;
      wait_poll_q   <= 1'b0;
      wait_qpn_q    <= '0;
      req_a_valid_q <= 1'b0;
      req_b_valid_q <= 1'b0;
      ans_valid_q   <= 1'b0;
      ans_more_q    <= 1'b0;
      ans_unmapped_q <= 1'b0;
      req_a_qpn_q   <= '0;
      req_b_qpn_q   <= '0;
      ans_qpn_q     <= '0;
      ans_tag_q     <= '0;
    end else begin
      wait_valid_q  <= wait_valid_i;
      wait_poll_q   <= wait_poll_i;
      wait_qpn_q    <= wait_qpn_i;
      req_a_valid_q <= req_a_valid_i;
      req_b_valid_q <= req_b_valid_i;
      ans_valid_q   <= ans_valid_i;
      ans_more_q    <= ans_more_i;
      ans_unmapped_q <= ans_unmapped_i;
      req_a_qpn_q   <= req_a_qpn_i;
      req_b_qpn_q   <= req_b_qpn_i;
      ans_qpn_q     <= ans_qpn_i;
      ans_tag_q     <= ans_tag_i;
    end
  end

  // ---- answers
  logic             ans_scan, ans_slot_hit;
  logic [SlotW-1:0] ans_slot;
  assign ans_slot     = ans_tag_q[SlotW-1:0];
  logic [TagW-SlotW-1:0] unused_ans_tag;  // the engine's own: the front routes only those
  assign unused_ans_tag = ans_tag_q[TagW-1:SlotW];
  assign ans_scan     = ans_valid_q && ans_slot == ScanSlot;
  assign ans_slot_hit = ans_valid_q && ans_slot != ScanSlot;

  // ---- requests: a, b, and a scan step's QP that still owes. Three lanes, not two: a
  // scan answer shares its cycle with a datapath request freely, and its group's summary
  // bit was cleared when the pass began, so a merged lane that dropped it would lose the
  // QP's flush for ever. A lane that names the QP of an earlier lane this cycle defers
  // to it.
  localparam int unsigned Lanes = 3;
  logic            rq_valid [Lanes];
  logic [QpnW-1:0] rq_qpn [Lanes];
  assign rq_valid[0] = req_a_valid_q;
  assign rq_qpn[0]   = req_a_qpn_q;
  assign rq_valid[1] = req_b_valid_q && !(req_a_valid_q && req_a_qpn_q == req_b_qpn_q);
  assign rq_qpn[1]   = req_b_qpn_q;
  assign rq_valid[2] = ans_scan && ans_more_q
                    && !(req_a_valid_q && req_a_qpn_q == ans_qpn_q)
                    && !(req_b_valid_q && req_b_qpn_q == ans_qpn_q);
  assign rq_qpn[2]   = ans_qpn_q;

  // Match against the slots, else the first free slots (a slot freed this cycle is not
  // reused before the next).
  logic [NSlots-1:0] hit [Lanes];
  logic             any_hit [Lanes];
  always_comb begin
    for (int i = 0; i < Lanes; i++) begin
      any_hit[i] = 1'b0;
      for (int s = 0; s < NSlots; s++) begin
        hit[i][s] = rq_valid[i] && valid_q[s] && qpn_q[s] == rq_qpn[i];
        if (hit[i][s]) any_hit[i] = 1'b1;
      end
    end
  end

  // The lanes allocate only the first Slots slots: the wait slot is the waited QP's.
  logic [NSlots-1:0] alloc [Lanes];
  logic             placed [Lanes];
  logic [NSlots-1:0] free;
  always_comb begin
    free = ~valid_q;
    free[WaitSlot] = 1'b0;
    for (int i = 0; i < Lanes; i++) begin
      alloc[i]  = '0;
      placed[i] = 1'b0;
      if (rq_valid[i] && !any_hit[i]) begin
        for (int s = 0; s < Slots; s++) begin
          if (!placed[i] && free[s]) begin
            alloc[i][s] = 1'b1;
            placed[i]   = 1'b1;
          end
        end
        free = free & ~alloc[i];
      end
    end
  end

  logic [Lanes-1:0] ovf_rq;
  always_comb begin
    for (int i = 0; i < Lanes; i++) ovf_rq[i] = rq_valid[i] && !any_hit[i] && !placed[i];
  end
  assign overflow_o = ovf_rq != '0;

  // This cycle's overflows, to be set in the summary.
  logic [Groups-1:0] ovf_set;
  always_comb begin
    ovf_set = '0;
    for (int i = 0; i < Lanes; i++) begin
      if (ovf_rq[i]) ovf_set[rq_qpn[i][PageBits +: GroupW]] = 1'b1;
    end
  end
  // The next group to scan: a pointer that walks the summary one bit a cycle while no
  // scan runs (a 256:1 multiplexer, not a 256-bit priority encoder: 8 levels, not 137;
  // finding a set bit takes at most Groups cycles, next to a pass of many steps).
  logic [GroupW-1:0] group_ptr_q;
  logic              next_group_valid;
  logic [GroupW-1:0] next_group;
  assign next_group       = group_ptr_q;
  assign next_group_valid = ovf_q[group_ptr_q];
  logic [31:0] scan_qpn;   // the QPN the scan steps next
  assign scan_qpn = 32'({cursor_q, group_q, in_page_q});
  logic scan_start, scan_end;
  // A scan step answered "unmapped" for the page the cursor is in skips the rest of it
  // (an answer for an earlier page, the cursor having moved on, changes nothing).
  logic scan_skip;
  assign scan_skip = ans_scan && ans_unmapped_q
                  && {1'b0, ans_qpn_q[QpnW-1:GroupW+PageBits]} == cursor_q;

  // ---- the next offer: round-robin over the slots that are idle, and the scan
  logic            scan_ready;
  logic            load;
  logic [Pos-1:0]  cand;
  assign scan_ready = scan_on_q && scan_qpn < qpn_limit_i
                   && 32'(scan_inflight_q) < ScanDepth;
  assign scan_end   = scan_on_q && scan_qpn >= qpn_limit_i && scan_inflight_q == '0;
  assign scan_start = !scan_on_q && next_group_valid;
  // The waited QP: the slots that hold it, and the wait slot claimed at a poll when it
  // holds none (nor does a lane name it this cycle: then that lane places it).
  logic [NSlots-1:0] wait_match;
  logic              urgent, wait_named, wait_alloc;
  always_comb begin
    for (int s = 0; s < NSlots; s++) wait_match[s] = valid_q[s] && qpn_q[s] == wait_qpn_q;
  end
  assign urgent     = wait_valid_q && wait_match != '0;
  assign wait_named = (rq_valid[0] && rq_qpn[0] == wait_qpn_q)
                   || (rq_valid[1] && rq_qpn[1] == wait_qpn_q)
                   || (rq_valid[2] && rq_qpn[2] == wait_qpn_q);
  assign wait_alloc = wait_poll_q && !valid_q[WaitSlot] && wait_match == '0 && !wait_named;
  // The offer looks at last cycle's match (wait_match_q, urgent_q: the 24-bit compares
  // stay off the round-robin's path); a slot freed or refilled meanwhile is at most
  // preferred or passed over for one cycle.
  always_comb begin
    for (int s = 0; s < NSlots; s++) begin
      cand[s] = valid_q[s] && !busy_q[s] && (!urgent_q || wait_match_q[s]);
    end
    cand[NSlots] = scan_ready && !urgent_q;
  end
  assign load = !offer_q || step_ready_i;

  // The round-robin: the first candidate at or after the one after the last offer,
  // found by two first-one trees (qpm_rr_arbiter), not a loop over (rr + k) % Pos.
  logic            pick_valid;
  logic [PosW-1:0] pick;
  logic [$clog2(Pos)-1:0] pick_idx;
  qpm_rr_arbiter #(.N(Pos)) u_rr (
    .clk_i     (clk_i),
    .rst_ni    (rst_ni),
    .req_i     (cand),
    .advance_i (load),
    .any_o     (pick_valid),
    .idx_o     (pick_idx)
  );
  assign pick = PosW'(pick_idx);

  logic pick_scan;
  assign pick_scan = pick_valid && 32'(pick) == NSlots;
  logic [QpnW-1:0] pick_qpn;
  always_comb begin
    pick_qpn = '0;
    for (int s = 0; s < NSlots; s++) begin
      if (32'(pick) == s) pick_qpn = qpn_q[s];
    end
  end

  // Per slot this cycle: its step answered; a request named its QP.
  logic [NSlots-1:0] answered, renewed;
  always_comb begin
    for (int s = 0; s < NSlots; s++) begin
      answered[s] = ans_slot_hit && 32'(ans_slot) == s;
      renewed[s]  = hit[0][s] || hit[1][s] || hit[2][s];
    end
  end

  // ---- state
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q         <= '0;
      busy_q          <= '0;
      renew_q         <= '0;
      for (int s = 0; s < NSlots; s++) qpn_q[s] <= '0;
      ovf_q           <= '0;
      group_ptr_q     <= '0;
      scan_on_q       <= 1'b0;
      group_q         <= '0;
      cursor_q        <= '0;
      in_page_q       <= '0;
      scan_inflight_q <= '0;
      offer_q         <= 1'b0;
      offer_slot_q    <= '0;
      offer_qpn_q     <= '0;
      urgent_q        <= 1'b0;
      wait_match_q    <= '0;
    end else begin
      urgent_q     <= urgent;
      wait_match_q <= wait_match;
      for (int s = 0; s < NSlots; s++) begin
        if (answered[s]) begin
          busy_q[s]  <= 1'b0;
          renew_q[s] <= 1'b0;
          if (!ans_more_q && !renew_q[s] && !renewed[s]) valid_q[s] <= 1'b0;
        end else if (renewed[s] && busy_q[s]) begin
          renew_q[s] <= 1'b1;
        end
        if (alloc[0][s] || alloc[1][s] || alloc[2][s]) begin
          valid_q[s] <= 1'b1;
          busy_q[s]  <= 1'b0;
          renew_q[s] <= 1'b0;
          qpn_q[s]   <= alloc[0][s] ? rq_qpn[0] : alloc[1][s] ? rq_qpn[1] : rq_qpn[2];
        end
        if (load && pick_valid && 32'(pick) == s) busy_q[s] <= 1'b1;
      end
      if (wait_alloc) begin
        valid_q[WaitSlot] <= 1'b1;
        busy_q[WaitSlot]  <= 1'b0;
        renew_q[WaitSlot] <= 1'b0;
        qpn_q[WaitSlot]   <= wait_qpn_q;
      end

      // The scan: a group's pass starts by clearing its summary bit (an overflow of the
      // group during the pass sets it again: another pass follows), and ends at
      // QPN_LIMIT once its steps are answered.
      scan_inflight_q <= scan_inflight_q + 2'(load && pick_scan) - 2'(ans_scan);
      if (scan_skip) begin
        cursor_q  <= cursor_q + 1'b1;
        in_page_q <= '0;
      end else if (load && pick_scan) begin
        in_page_q <= in_page_q + 1'b1;
        if (in_page_q == '1) cursor_q <= cursor_q + 1'b1;
      end
      if (scan_start) begin
        scan_on_q <= 1'b1;
        group_q   <= next_group;
        cursor_q  <= '0;
        in_page_q <= '0;
        ovf_q     <= (ovf_q & ~(Groups'(1) << next_group)) | ovf_set;
      end else begin
        ovf_q <= ovf_q | ovf_set;
      end
      if (scan_end) scan_on_q <= 1'b0;
      if (!scan_on_q && !next_group_valid) group_ptr_q <= group_ptr_q + 1'b1;

      if (load) begin
        offer_q <= pick_valid;
        if (pick_valid) begin
          offer_slot_q <= pick_scan ? ScanSlot : SlotW'(pick);
          offer_qpn_q  <= pick_scan ? scan_qpn[QpnW-1:0] : pick_qpn;
        end
      end
    end
  end

  assign step_valid_o = offer_q;
  assign urgent_o     = urgent_q;
  assign step_qpn_o   = offer_qpn_q;
  assign step_tag_o   = TagBase | TagW'(offer_slot_q);
  assign busy_o       = (valid_q != '0) || scan_on_q || offer_q || (ovf_q != '0)
                     || req_a_valid_q || req_b_valid_q || ans_valid_q;

`ifndef SYNTHESIS
  // Every request is kept: in the cycle after, its QP holds a slot or its group's summary
  // bit is set (a request dropped here would never be stepped: 2026-12-01's lost scan
  // answer, docs/events.md). The three sources are named from the inputs, not from the
  // lanes, so a lane that loses one shows.
  logic [2:0]      chk_valid_q, kept;
  logic [QpnW-1:0] chk_qpn_q [3];
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      chk_valid_q <= '0;
      for (int i = 0; i < 3; i++) chk_qpn_q[i] <= '0;
    end else begin
      chk_valid_q  <= {ans_scan && ans_more_q, req_b_valid_q, req_a_valid_q};
      chk_qpn_q[0] <= req_a_qpn_q;
      chk_qpn_q[1] <= req_b_qpn_q;
      chk_qpn_q[2] <= ans_qpn_q;
    end
  end
  always_comb begin
    for (int i = 0; i < 3; i++) begin
      kept[i] = ovf_q[chk_qpn_q[i][PageBits +: GroupW]];
      for (int s = 0; s < NSlots; s++) begin
        if (valid_q[s] && qpn_q[s] == chk_qpn_q[i]) kept[i] = 1'b1;
      end
    end
  end
  `QPM_ASSERT(RequestKept_A, (kept | ~chk_valid_q) == '1)
  // No request names a slot's QP in the cycle of that slot's answer: request b and the
  // scan's come from the cache's one answer port (never with another answer), and a
  // command writes a QP (request a) only after its own read of it was answered, behind
  // any step of the QP in flight (one QPN's requests are served in order). So the
  // `renewed` term of a slot's release is defensive (docs/errors.md). This is a property
  // of the blocks around the engine, not of the engine: its proofs (and the front's)
  // leave those inputs free, so it is checked in simulation only.
`ifndef FORMAL
  logic [NSlots-1:0] ans_meets_req;
  assign ans_meets_req = answered & renewed;
  `QPM_ASSERT(NoRequestAtLastAnswer_A, ans_meets_req == '0)
`endif
`endif

endmodule
