// qpm_cmd_prefetch: the command unit's lookahead register and what it prefetches
// (docs/architecture.md, "Lookahead and prefetch").
//
// The next command waits in a one-entry register (cmd_ready_o is "empty"). While the
// command under way is between its own requests, the unit offers the cache a prefetch
// (tag 1, no data) of the next command's context, once per command. A prefetch once
// offered stays offered, unchanged, until the cache takes it (hold_o): the command's own
// request waits behind it, and no new command replaces the register whose QPN it
// carries. A prefetch has no architectural effect.
module qpm_cmd_prefetch (
  input  logic                     clk_i,
  input  logic                     rst_ni,
  // the command port and the lookahead register
  input  logic                     cmd_valid_i,
  output logic                     cmd_ready_o,
  input  qpm_pkg::cmd_t            cmd_i,
  output logic                     next_valid_o,
  output qpm_pkg::cmd_t            next_cmd_o,
  input  logic                     take_next_i,     // the unit starts the next command
  // when the unit may prefetch
  input  logic                     between_i,       // a command between its requests
  // the offer to the cache (beside the unit's own requests)
  output logic                     offer_o,
  output logic [qpm_pkg::QpnW-1:0] offer_qpn_o,
  input  logic                     ready_i,
  output logic                     hold_o           // an offer waits to be taken
);

  logic          next_valid_q, next_fetched_q;
  qpm_pkg::cmd_t next_cmd_q;
  logic          hold_q;

  logic next_now;
  assign next_now = next_valid_q && !next_fetched_q && between_i
                 && qpm_pkg::is_qp_opcode(next_cmd_q.opcode)
                 && next_cmd_q.qpn[31:qpm_pkg::QpnW] == '0;
  assign offer_o     = hold_q || next_now;
  assign offer_qpn_o = next_cmd_q.qpn[qpm_pkg::QpnW-1:0];

  assign cmd_ready_o  = !next_valid_q && !hold_q;
  assign next_valid_o = next_valid_q;
  assign next_cmd_o   = next_cmd_q;
  assign hold_o       = hold_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      next_valid_q   <= 1'b0;
      next_fetched_q <= 1'b0;
      next_cmd_q     <= '0;
      hold_q         <= 1'b0;
    end else begin
      hold_q         <= offer_o && !ready_i;
      if (offer_o && ready_i) next_fetched_q <= 1'b1;
      if (take_next_i) next_valid_q <= 1'b0;
      if (cmd_valid_i && cmd_ready_o) begin
        next_valid_q   <= 1'b1;
        next_cmd_q     <= cmd_i;
        next_fetched_q <= 1'b0;
      end
    end
  end

endmodule
