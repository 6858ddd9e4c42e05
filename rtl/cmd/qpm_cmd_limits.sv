// qpm_cmd_limits: the command unit's compare against QPN_LIMIT, registered
// (docs/architecture.md, "Command unit"; issue 25's deep paths): the directory entries
// QPN_LIMIT covers (a partial last page included), for MAP/UNMAP_PAGE's range check. In
// the FSM's next-state logic, the add and compare made the command unit's deepest path;
// here the entry count is computed a cycle ahead from QPN_LIMIT alone. A QPN_LIMIT
// written by the CSRs takes effect here one cycle later than in the cache: a CSR write
// is many cycles from any command it may concern.
module qpm_cmd_limits #(
  parameter int unsigned PageBits = 6
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic [31:0] qpn_limit_i,
  input  logic [31:0] dir_index_i,      // MAP/UNMAP's directory index
  output logic        dir_in_range_o    // dir_index_i is below the entries covered
);

  localparam logic [31:0] PageMask = (32'd1 << PageBits) - 32'd1;

  logic [31:0] dir_limit_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) dir_limit_q <= '0;
    else         dir_limit_q <= (qpn_limit_i + PageMask) >> PageBits;
  end
  assign dir_in_range_o = dir_index_i < dir_limit_q;

endmodule
