// qpm_cmd_limits: the command unit's compares against QPN_LIMIT, registered
// (docs/architecture.md, "Command unit"; issue 25's deep paths). Each is a 32-bit add
// and compare; in the FSM's next-state logic they made the command unit's deepest path
// (26 levels, QPN_LIMIT to the state register). Here each is computed one cycle ahead,
// from the command register and QPN_LIMIT as they are now, and used the next cycle:
// - the directory entries QPN_LIMIT covers (a partial last page included), for
//   MAP/UNMAP_PAGE's range check: depends on QPN_LIMIT alone;
// - PORT_FAULT's scan: whether the next QPN, or the first QPN of the next page, is at or
//   past QPN_LIMIT. The FSM uses them in CtxWait (at the answer) and Execute, and the
//   command's QPN never changes in the cycle before either (it changes only when a step
//   is answered, and a request waits at least a cycle for its answer).
// A QPN_LIMIT written by the CSRs takes effect here one cycle later than in the cache:
// a CSR write is many cycles from any command it may concern.
module qpm_cmd_limits #(
  parameter int unsigned PageBits = 6
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic [31:0] qpn_limit_i,
  input  logic [31:0] qpn_i,            // the command register's QPN
  input  logic [31:0] dir_index_i,      // ... and directory index
  output logic        dir_in_range_o,   // dir_index_i is below the entries covered
  output logic [31:0] pf_next_qpn_o,    // PORT_FAULT's scan: qpn_i + 1 ...
  output logic [31:0] pf_next_page_o,   // ... and the next page's first QPN;
  output logic        pf_last_o,        // pf_next_qpn_o >= QPN_LIMIT (as of last cycle)
  output logic        pf_page_last_o    // pf_next_page_o >= QPN_LIMIT (same)
);

  localparam logic [31:0] PageMask = (32'd1 << PageBits) - 32'd1;

  assign pf_next_qpn_o  = qpn_i + 32'd1;
  assign pf_next_page_o = (qpn_i | PageMask) + 32'd1;

  logic [31:0] dir_limit_q;
  logic        pf_last_q, pf_page_last_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      dir_limit_q    <= '0;
      pf_last_q      <= 1'b0;
      pf_page_last_q <= 1'b0;
    end else begin
      dir_limit_q    <= (qpn_limit_i + PageMask) >> PageBits;
      pf_last_q      <= pf_next_qpn_o >= qpn_limit_i;
      pf_page_last_q <= pf_next_page_o >= qpn_limit_i;
    end
  end
  assign dir_in_range_o = dir_index_i < dir_limit_q;
  assign pf_last_o      = pf_last_q;
  assign pf_page_last_o = pf_page_last_q;

endmodule
