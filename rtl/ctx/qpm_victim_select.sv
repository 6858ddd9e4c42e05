// qpm_victim_select: which way of a set a miss takes (docs/qp-cache.md, "Eviction").
//
// The interface every replacement policy plugs into: the set's line state in, one way
// out. A way is eligible unless a miss register owns it, it holds a pinned QPC, or the
// pipe touches it this cycle. An empty eligible way needs no eviction and is taken
// first (the lowest); otherwise the policy chooses among the eligible ways. Today's
// policy is tree-PLRU (qpm_plru_tree).
module qpm_victim_select #(
  parameter int unsigned Ways = 4,
  localparam int unsigned WayW = (Ways > 1) ? $clog2(Ways) : 1
) (
  input  logic [Ways-1:0] valid_i,
  input  logic [Ways-1:0] pinned_i,
  input  logic [Ways-1:0] reserved_i,
  input  logic [Ways-1:0] exclude_i,   // touched by the pipe this cycle
  input  logic [Ways-2:0] plru_i,
  output logic            found_o,
  output logic [WayW-1:0] way_o
);

  logic [Ways-1:0] eligible, empty;
  assign eligible = ~reserved_i & ~(valid_i & pinned_i) & ~exclude_i;
  assign empty    = eligible & ~valid_i;

  logic            plru_found;
  logic [WayW-1:0] plru_way;
  logic [Ways-2:0] plru_unused;
  qpm_plru_tree #(
    .Ways (Ways)
  ) u_plru (
    .bits_i         (plru_i),
    .eligible_i     (eligible),
    .victim_valid_o (plru_found),
    .victim_o       (plru_way),
    .touch_way_i    ('0),
    .touched_bits_o (plru_unused)
  );

  always_comb begin
    found_o = plru_found;
    way_o   = plru_way;
    for (int w = Ways - 1; w >= 0; w--) begin
      if (empty[w]) way_o = WayW'(w);
    end
  end

endmodule
