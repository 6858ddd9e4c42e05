// qpm_rr_arbiter: round-robin choice among N requesters in log2(N) levels.
//
// The first requester at or after the pointer wins, else the first one overall (the
// pointer is a thermometer mask in flip-flops: the requesters at or after it). When the
// caller takes the grant (advance_i), the pointer moves past the winner. The two
// "first requester" searches are binary trees (each node keeps the left child if it
// requests, else the right one), so the depth grows with log2(N), not with N as a loop
// over (pointer + k) % N would (docs/capacity.md, "Timing proxy").
module qpm_rr_arbiter #(
  parameter int unsigned N = 8,
  localparam int unsigned IdxW = (N > 1) ? $clog2(N) : 1
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic [N-1:0]    req_i,
  input  logic            advance_i,   // the grant was taken: serve the next one after it
  output logic            any_o,
  output logic [IdxW-1:0] idx_o
);

  logic [N-1:0] mask_q;   // requesters at or after the pointer
  logic [N-1:0] masked;
  assign masked = req_i & mask_q;

  logic            masked_any, req_any;
  logic [IdxW-1:0] masked_idx, req_idx;
  qpm_first_one #(.N(N)) u_first_masked (
    .bits_i (masked),
    .any_o  (masked_any),
    .idx_o  (masked_idx)
  );
  qpm_first_one #(.N(N)) u_first_any (
    .bits_i (req_i),
    .any_o  (req_any),
    .idx_o  (req_idx)
  );

  assign any_o = req_any;
  assign idx_o = masked_any ? masked_idx : req_idx;

  // The requesters strictly after the winner (all of them after the last one).
  logic [N-1:0] after_winner;
  always_comb begin
    for (int unsigned i = 0; i < N; i++) after_winner[i] = i > 32'(idx_o);
    if (32'(idx_o) == N - 1) after_winner = '1;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni)                mask_q <= '1;
    else if (advance_i && any_o) mask_q <= after_winner;
  end

endmodule
