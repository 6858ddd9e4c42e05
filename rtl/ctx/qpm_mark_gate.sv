// qpm_mark_gate: when the write-back buffer's mark (docs/qp-cache.md section 20) may
// enter the pipe: it is asked (mark_req_i), its tags are at hand (mark_ok_i), and its
// page is not under MAP/UNMAP (its lines must not turn dirty behind the scan).
//
// Every input here is a flip-flop, and the page compare is registered too, so the pipe's
// choice of its request (and the lookup of that request's QPN) starts a cycle from
// flip-flops, not after a compare. A registered compare is a cycle old: the mark's QPN
// stays while its tags are at hand (qpm_tag_views), and a lock's page stays while the
// lock does (LockIdxStable_A); in a lock's first cycle no mark goes (any page: the
// compare is not made yet). A mark waits a cycle more then, never less.
`include "qpm_assert.svh"

module qpm_mark_gate #(
  parameter int unsigned PageBits = 6,
  parameter int unsigned DirIdxW  = 18,
  localparam int unsigned QpnW = qpm_pkg::QpnW
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  input  logic               mark_req_i,    // the announced entry asks for its mark ...
  input  logic [QpnW-1:0]    mark_qpn_i,    // ... of this QPN
  input  logic               mark_ok_i,     // its tags are at hand (registered)
  input  logic               lock_i,        // MAP/UNMAP of this directory entry under way
  input  logic [DirIdxW-1:0] lock_idx_i,
  output logic               mark_valid_o
);

  logic lock_q, page_eq_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      lock_q    <= 1'b0;
      page_eq_q <= 1'b0;
    end else begin
      lock_q    <= lock_i;
      page_eq_q <= DirIdxW'(mark_qpn_i >> PageBits) == lock_idx_i;
    end
  end

  assign mark_valid_o = mark_req_i && mark_ok_i && !(lock_i && (!lock_q || page_eq_q));

  `QPM_ASSERT_NEXT(LockIdxStable_A, lock_i, !lock_i || lock_idx_i == $past(lock_idx_i))
  // The registered compare is the compare it replaces, whenever it decides.
  `QPM_ASSERT_IMPL(MarkPageCompare_A, mark_req_i && mark_ok_i && lock_i && lock_q,
                   page_eq_q == (DirIdxW'(mark_qpn_i >> PageBits) == lock_idx_i))

endmodule
