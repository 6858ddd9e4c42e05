// qpm_mux_tree: N words of W bits, one selected, as a balanced tree of 2:1 multiplexers
// (log2 N levels). Built recursively, so that Yosys, which keeps the hierarchy,
// synthesizes one module per level instead of one N-input network: the cost of
// synthesizing a large cache grows with log2 N, not N (docs/capacity.md, "Run time").
// A select at or above N returns one of the words (the users never give one).
// Users: qpm_cache_lines (its read views, in simulation, synthesis and the proofs alike)
// and qpm_csr (the counters' read).
module qpm_mux_tree #(
  parameter int unsigned N = 2,
  parameter int unsigned W = 1,
  localparam int unsigned SelW = (N > 1) ? $clog2(N) : 1
) (
  input  logic [N*W-1:0]  in_i,   // word k at [k*W +: W]
  input  logic [SelW-1:0] sel_i,
  output logic [W-1:0]    out_o
);

  if (N == 1) begin : gen_leaf
    assign out_o = in_i;
    logic unused_sel;
    assign unused_sel = ^sel_i;
  end else begin : gen_split
    // The lower half holds the largest power of two below N; the top select bit picks.
    localparam int unsigned Lo     = 1 << (SelW - 1);
    localparam int unsigned Hi     = N - Lo;
    localparam int unsigned LoSelW = (Lo > 1) ? $clog2(Lo) : 1;
    localparam int unsigned HiSelW = (Hi > 1) ? $clog2(Hi) : 1;
    logic [W-1:0] lo, hi;
    qpm_mux_tree #(.N(Lo), .W(W)) u_lo (
      .in_i  (in_i[Lo*W-1:0]),
      .sel_i (sel_i[LoSelW-1:0]),
      .out_o (lo)
    );
    qpm_mux_tree #(.N(Hi), .W(W)) u_hi (
      .in_i  (in_i[N*W-1:Lo*W]),
      .sel_i (sel_i[HiSelW-1:0]),
      .out_o (hi)
    );
    assign out_o = sel_i[SelW-1] ? hi : lo;
  end

endmodule
