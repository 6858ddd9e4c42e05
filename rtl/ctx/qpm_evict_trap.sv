// qpm_evict_trap: software-assisted eviction (SPEC.md §9, docs/eviction.md). Sits between
// qpm_victim_select and the miss registers' victim step.
//
// Under EVICT_POLICY = trap, a miss whose set has no empty eligible way does not take
// the hardware's choice: it asks an external agent over the eviction-trap port which way
// to evict, and waits (its register stays in MVictim; other registers and the pipe go
// on). One question is out at a time: a miss of another register that needs one waits
// for the slot. The question carries a tag, the set, and per way its QPN, valid, dirty,
// pinned and eligible bits as they were when asked; the answer {tag, way} is used only
// after a re-check against the set as it is when the register next decides (the way
// may have become pinned, reserved or busy meanwhile): an answer that names a way that
// may not go now is rejected (counted) and the hardware's choice (tree-PLRU) is taken.
// With no answer timeout_i cycles after the question was raised, the hardware's choice
// is taken too (counted); an answer that comes later, or names another tag, is dropped
// (counted). An empty eligible way is still taken first without asking (a question
// still open is then withdrawn, counted as below), and under any
// other policy this block passes the selector's choice through. If the agent has not
// even taken the last question (no agent, or a stuck one), a miss does not wait: it
// takes the hardware's choice at once (counted as a timeout).
// The question is a valid/ready output held stable until taken; the answer port has no
// ready (an answer is taken, used or dropped, in the cycle it arrives). The register
// decides with its set read in the cycle before (qpm_cache_tags: the tags
// and the line state's RAM), so the question is complete when claimed; it is raised the
// cycle after the claim, and the timeout counts from then.
`include "qpm_assert.svh"

module qpm_evict_trap #(
  parameter int unsigned Sets  = 64,
  parameter int unsigned Ways  = 4,
  parameter int unsigned Mshrs = 8,
  parameter int unsigned ReqTagW = 4,
  localparam int unsigned SetW  = (Sets > 1) ? $clog2(Sets) : 1,
  localparam int unsigned WayW  = (Ways > 1) ? $clog2(Ways) : 1,
  localparam int unsigned MshrW = (Mshrs > 1) ? $clog2(Mshrs) : 1,
  localparam int unsigned TagW  = qpm_pkg::QpnW - SetW,
  // per way, from way 0 in the low bits: {eligible, pinned, dirty, valid, qpn}
  localparam int unsigned WayInfoW = qpm_pkg::QpnW + 4,
  localparam int unsigned ReqW  = ReqTagW + SetW + Ways * WayInfoW
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic [1:0]           policy_i,
  input  logic [15:0]          timeout_i,
  // the victim decision of a miss register this cycle
  input  logic                 step_i,
  input  logic [MshrW-1:0]     step_mshr_i,
  input  logic [SetW-1:0]      set_i,
  // that set's lines and the selector's choice (empty first, else tree-PLRU under trap)
  input  logic [Ways-1:0]      valid_i,
  input  logic [Ways-1:0]      dirty_i,
  input  logic [Ways-1:0]      pinned_i,
  input  logic [Ways-1:0]      eligible_i,
  input  logic [Ways*TagW-1:0] tags_i,        // the set's tags
  input  logic                 sel_found_i,
  input  logic [WayW-1:0]      sel_way_i,
  // to the miss registers
  output logic                 found_o,
  output logic [WayW-1:0]      way_o,
  // the eviction-trap port
  output logic                 req_valid_o,
  input  logic                 req_ready_i,
  output logic [ReqW-1:0]      req_o,
  input  logic                 rsp_valid_i,
  input  logic [ReqTagW-1:0]   rsp_tag_i,
  input  logic [WayW-1:0]      rsp_way_i,
  // one pulse each: questions asked, timeouts, answers rejected by the re-check,
  // answers dropped (late or of another tag), and a cycle with a question open (its
  // sum over the questions is the decision latency, docs/eviction.md)
  output logic [4:0]           cnt_o
);

  logic               busy_q, answered_q, req_valid_q, ask_q;
  logic [MshrW-1:0]   mshr_q;
  logic [ReqTagW-1:0] tag_q;
  logic [WayW-1:0]    ans_way_q;
  logic [15:0]        timer_q;
  logic [ReqW-1:0]    req_q;

  logic has_empty, trap, mine, timed_out, claim, done, rejected, stuck, withdrawn;
  assign has_empty = (eligible_i & ~valid_i) != '0;
  // Only a choice among lines asks: no empty way, and some way may go.
  assign trap      = policy_i == qpm_pkg::EvictTrap && step_i && sel_found_i && !has_empty;
  assign mine      = busy_q && mshr_q == step_mshr_i;
  assign timed_out = timer_q >= timeout_i;
  assign claim     = trap && !busy_q && !req_valid_q;
  assign stuck     = trap && !busy_q && req_valid_q;
  assign done      = trap && mine && (answered_q || timed_out);
  assign rejected  = done && answered_q && !eligible_i[ans_way_q];
  // The register took a way without its question (an empty way appeared in its set, or
  // the policy changed): the question is withdrawn. Counted as a timeout when no answer
  // had come (the agent did not decide), as a rejection when one had (not used), so each
  // question ends in exactly one of: answer used, TRAP_REJECTED, TRAP_TIMEOUTS.
  assign withdrawn = step_i && mine && found_o && !done;

  always_comb begin
    found_o = sel_found_i;
    way_o   = sel_way_i;
    if (trap && !stuck) begin
      found_o = done;
      if (done && answered_q && eligible_i[ans_way_q]) way_o = ans_way_q;
    end
  end

  // The question as the set is now.
  logic [ReqW-1:0] req_d;
  always_comb begin
    req_d = '0;
    req_d[ReqW-1 -: ReqTagW]          = tag_q + 1'b1;
    req_d[ReqW-ReqTagW-1 -: SetW]     = set_i;
    for (int unsigned w = 0; w < Ways; w++) begin
      req_d[w*WayInfoW +: WayInfoW] = {eligible_i[w], pinned_i[w], dirty_i[w], valid_i[w],
                                       tags_i[w*TagW +: TagW], set_i};
    end
  end

  // An answer in the cycle its question closes (timeout or withdrawal) is late: dropped.
  logic rsp_match;
  assign rsp_match = rsp_valid_i && busy_q && !answered_q && rsp_tag_i == tag_q &&
                     !done && !withdrawn;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q      <= 1'b0;
      answered_q  <= 1'b0;
      req_valid_q <= 1'b0;
      ask_q       <= 1'b0;
      mshr_q      <= '0;
      tag_q       <= '0;
      ans_way_q   <= '0;
      timer_q     <= '0;
      req_q       <= '0;
    end else begin
      if (req_valid_q && req_ready_i) req_valid_q <= 1'b0;
      if (busy_q && !timed_out) timer_q <= timer_q + 1'b1;
      if (rsp_match) begin
        answered_q <= 1'b1;
        ans_way_q  <= rsp_way_i;
      end
      // The slot frees when its register takes a way: on its answer or timeout, or with
      // its question withdrawn (MVictim has no other exit).
      if (done || withdrawn) begin
        busy_q     <= 1'b0;
        answered_q <= 1'b0;
      end
      ask_q <= claim;
      if (ask_q) begin
        req_valid_q <= 1'b1;
        timer_q     <= '0;
      end
      if (claim) begin
        busy_q      <= 1'b1;
        answered_q  <= 1'b0;
        mshr_q      <= step_mshr_i;
        tag_q       <= tag_q + 1'b1;
        timer_q     <= '0;
        req_q       <= req_d;
      end
    end
  end

  assign req_valid_o = req_valid_q;
  assign req_o       = req_q;
  // Registered: the pulses come from the victim choice, deep in the cache's cycle, and
  // go to the CSR block's counters (one cycle late changes no count).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) cnt_o <= '0;
    else cnt_o <= {busy_q, rsp_valid_i && !rsp_match, rejected || (withdrawn && answered_q),
                   (done && !answered_q) || (stuck && sel_found_i) ||
                   (withdrawn && !answered_q), claim};
  end

`ifndef SYNTHESIS
  `QPM_ASSERT_NEXT(TrapReqStable_A, req_valid_o && !req_ready_i,
                   req_valid_o && $stable(req_o))
  `QPM_ASSERT_IMPL(TrapVictimEligible_A, found_o, eligible_i[way_o])
`endif

endmodule
