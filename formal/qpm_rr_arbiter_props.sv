// Properties of qpm_rr_arbiter (docs/formal.md): the winner is a requester, there is one
// whenever anyone requests, and the choice is round-robin: a requester that keeps
// requesting is served before any other requester is served twice (within N grants).
module qpm_rr_arbiter_props #(
  parameter int unsigned N = 5,
  localparam int unsigned IdxW = (N > 1) ? $clog2(N) : 1
) (
  input logic         clk_i,
  input logic         rst_ni,
  input logic [N-1:0] req_i,
  input logic         advance_i
);

  logic            any;
  logic [IdxW-1:0] idx;
  qpm_rr_arbiter #(.N(N)) u_dut (
    .clk_i     (clk_i),
    .rst_ni    (rst_ni),
    .req_i     (req_i),
    .advance_i (advance_i),
    .any_o     (any),
    .idx_o     (idx)
  );

  `include "qpm_formal_reset.svh"

`ifdef P_GRANT
  always_comb begin
    if (rst_ni) begin
      assert (any == (req_i != '0));
      if (any) assert (32'(idx) < N && req_i[idx]);
    end
  end
`endif

`ifdef P_FAIR
  // The last requester is watched (a fixed priority would starve it first): while it
  // requests, grants taken by others are counted; it is served before N of them.
  localparam logic [IdxW-1:0] Watched = IdxW'(N - 1);
  logic [IdxW:0] others_q;
  always_ff @(posedge clk_i) begin
    if (!rst_ni || !req_i[Watched]) others_q <= '0;
    else if (advance_i && any && idx != Watched) others_q <= others_q + 1'b1;
    else if (advance_i && any && idx == Watched) others_q <= '0;
  end
  always_ff @(posedge clk_i) begin
    if (past_valid) assert (32'(others_q) < N);
  end
`endif

endmodule
