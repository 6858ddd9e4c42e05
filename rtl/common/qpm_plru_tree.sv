// qpm_plru_tree: tree pseudo-LRU for one cache set of Ways ways (a power of two).
//
// Node n of the tree holds one bit, children at 2n+1 and 2n+2; a bit points at the side
// the victim should come from. victim_o descends the tree following the bits, but never
// into a subtree without an eligible way (pinned or busy lines are not eligible), so a
// victim is found whenever any way is eligible. touched_bits_o is bits_i after an access
// to touch_way_i: every node on its path then points away from it.
module qpm_plru_tree #(
  parameter int unsigned Ways = 4,
  localparam int unsigned WayW = (Ways > 1) ? $clog2(Ways) : 1
) (
  input  logic [Ways-2:0] bits_i,
  input  logic [Ways-1:0] eligible_i,
  output logic            victim_valid_o,
  output logic [WayW-1:0] victim_o,
  input  logic [WayW-1:0] touch_way_i,
  output logic [Ways-2:0] touched_bits_o
);

  if (Ways < 2 || (1 << WayW) != Ways) begin : gen_bad_ways
    $error("Ways must be a power of two, at least 2");
  end

  assign victim_valid_o = |eligible_i;

  always_comb begin
    logic left_ok, right_ok, go_right;
    logic [WayW-1:0] prefix;
    logic [WayW-1:0] node;  // nodes 0 .. Ways-2
    victim_o = '0;
    for (int unsigned l = 0; l < WayW; l++) begin
      // The ways below this node share the top l bits already chosen.
      prefix   = (l == 0) ? '0 : (victim_o >> (WayW - l));
      node     = WayW'((32'd1 << l) - 32'd1) + prefix;
      left_ok  = 1'b0;
      right_ok = 1'b0;
      for (int unsigned w = 0; w < Ways; w++) begin
        if (eligible_i[w] && ((l == 0) || ((WayW'(w) >> (WayW - l)) == prefix))) begin
          if (((WayW'(w) >> (WayW - 1 - l)) & WayW'(1)) != '0) right_ok = 1'b1;
          else                                     left_ok  = 1'b1;
        end
      end
      go_right = bits_i[node];
      if (go_right && !right_ok) go_right = 1'b0;
      if (!go_right && !left_ok) go_right = 1'b1;
      victim_o[WayW-1-l] = go_right;
    end
  end

  always_comb begin
    logic [WayW-1:0] prefix;
    logic [WayW-1:0] node;  // nodes 0 .. Ways-2
    touched_bits_o = bits_i;
    for (int unsigned l = 0; l < WayW; l++) begin
      prefix = (l == 0) ? '0 : (touch_way_i >> (WayW - l));
      node   = WayW'((32'd1 << l) - 32'd1) + prefix;
      touched_bits_o[node] = !touch_way_i[WayW-1-l];
    end
  end

endmodule
