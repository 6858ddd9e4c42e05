// qpm_pf_ahead: PORT_FAULT's prefetch pointer, kept ahead of the scan by a lead counter
// (docs/architecture.md, "Lookahead and prefetch").
//
// The scan reads QPN after QPN; the pointer names the next QPN to prefetch, so up to
// PfAhead misses overlap. "May I prefetch" was a 32-bit add and compare (pointer <
// scan QPN + PfAhead) in front of the command unit's request valid; here the distance is
// a small counter (lead = pointer - scan QPN) kept beside the pointer, so the decision
// is a compare of a few bits and the pointer's own QPN_LIMIT compare, from flip-flops.
//
// The lead goes up when a prefetch is taken and down when the scan steps to the next
// QPN. When it reaches 0 (the scan caught up), or the scan jumps (its start, an
// unmapped page skipped whole), the pointer restarts right after the scan's QPN, unless
// a prefetch is offered and not yet taken: then nothing moves until it is (an offer is
// held unchanged, STYLE §2.21), and the restart follows.
//
// Whether the pointer is below QPN_LIMIT is a flip-flop (below_q), compared a cycle
// ahead for each value the pointer can take next, from this cycle's flip-flops: the
// pointer, the pointer + 1 (a prefetch taken), the QPN after the scan's next one (a
// restart as the scan steps). So the 32-bit compare is not between the pointer and the
// offer that moves it. After any other restart (the scan starts or jumps, or it caught
// up while an offer was held) below_q is 0 for a cycle, then the pointer's own compare.
`include "qpm_assert.svh"

module qpm_pf_ahead #(
  parameter int unsigned PfAhead = 8,
  localparam int unsigned LeadW = $clog2(PfAhead + 1)
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic [31:0] qpn_limit_i,  // CSR QPN_LIMIT
  input  logic [31:0] scan_qpn_i,   // the scan's QPN this cycle
  input  logic [31:0] scan_qpn_d_i, // the scan's QPN from the next cycle on
  input  logic        step_i,       // ... which is the one after this cycle's
  input  logic        restart_i,    // ... which is anywhere (the scan starts or jumps)
  input  logic        taken_i,      // the prefetch of qpn_o was taken
  input  logic        held_i,       // an offer waits to be taken: the pointer holds
  output logic        room_o,       // qpn_o is below QPN_LIMIT and under PfAhead ahead
  output logic [qpm_pkg::QpnW-1:0] qpn_o   // (a QPN below QPN_LIMIT fits)
);

  logic [31:0]      ptr_q, ptr_d;
  logic [LeadW-1:0] lead_q, lead_d;
  logic             below_q, below_d;

  // The compares for the pointer's next values, from flip-flops and QPN_LIMIT only.
  logic below_ptr, below_next, below_after_scan;
  assign below_ptr        = ptr_q < qpn_limit_i;
  assign below_next       = 33'(ptr_q) + 33'd1 < 33'(qpn_limit_i);
  assign below_after_scan = 33'(scan_qpn_i) + 33'd2 < 33'(qpn_limit_i);

  always_comb begin
    ptr_d   = ptr_q;
    lead_d  = lead_q;
    below_d = below_ptr;
    if (taken_i) begin
      ptr_d   = ptr_q + 32'd1;
      lead_d  = lead_q + LeadW'(1);
      below_d = below_next;
    end
    if (restart_i)                 lead_d = '0;
    else if (step_i && lead_d != '0) lead_d = lead_d - LeadW'(1);
    if (!held_i && lead_d == '0) begin
      ptr_d   = scan_qpn_d_i + 32'd1;
      lead_d  = LeadW'(1);
      below_d = step_i && !restart_i && below_after_scan;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ptr_q   <= 32'd1;
      lead_q  <= LeadW'(1);
      below_q <= 1'b0;
    end else begin
      ptr_q   <= ptr_d;
      lead_q  <= lead_d;
      below_q <= below_d;
    end
  end

  assign room_o = 32'(lead_q) < PfAhead && below_q;
  assign qpn_o  = ptr_q[qpm_pkg::QpnW-1:0];

  // A step is to the scan's next QPN; below_q is the pointer's compare (QPN_LIMIT as it
  // was a cycle before: a CSR write may move it in between).
  `QPM_ASSERT_IMPL(StepIsNextQpn_A, step_i && !restart_i, scan_qpn_d_i == scan_qpn_i + 32'd1)
  `QPM_ASSERT_IMPL(BelowIsCompare_A, below_q && $stable(qpn_limit_i), ptr_q < qpn_limit_i)

endmodule
