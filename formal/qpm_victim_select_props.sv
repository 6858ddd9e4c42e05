// Properties of victim selection (docs/formal.md): qpm_victim_select with its tree-PLRU,
// for any line state of a set. Combinational: `sat` proves each for every input.
module qpm_victim_select_props #(
  parameter int unsigned Ways = 4,
  localparam int unsigned WayW = (Ways > 1) ? $clog2(Ways) : 1
) (
  input logic [Ways-1:0] valid_i,
  input logic [Ways-1:0] pinned_i,
  input logic [Ways-1:0] reserved_i,
  input logic [Ways-1:0] exclude_i,
  input logic [Ways-2:0] plru_i,
  input logic [WayW-1:0] touch_way_i
);

  logic            found;
  logic [WayW-1:0] way;
  qpm_victim_select #(.Ways(Ways)) u_dut (
    .valid_i    (valid_i),
    .pinned_i   (pinned_i),
    .reserved_i (reserved_i),
    .exclude_i  (exclude_i),
    .plru_i     (plru_i),
    .found_o    (found),
    .way_o      (way)
  );

  // The reference: written from docs/qp-cache.md ("Eviction"), not from the RTL.
  logic [Ways-1:0] can_go;   // a way a miss may take
  logic [Ways-1:0] empty;    // ... that holds nothing
  assign can_go = ~reserved_i & ~(valid_i & pinned_i) & ~exclude_i;
  assign empty  = can_go & ~valid_i;

  // Tree-PLRU after an access to touch_way_i, then its victim with every way eligible.
  logic [Ways-2:0] touched;
  logic [WayW-1:0] after_touch;
  logic            after_found, unused_found;
  logic [Ways-2:0] unused_bits;
  qpm_plru_tree #(.Ways(Ways)) u_touch (
    .bits_i         (plru_i),
    .eligible_i     ('0),
    .victim_valid_o (unused_found),
    .victim_o       (),
    .touch_way_i    (touch_way_i),
    .touched_bits_o (touched)
  );
  qpm_plru_tree #(.Ways(Ways)) u_next (
    .bits_i         (touched),
    .eligible_i     ({Ways{1'b1}}),
    .victim_valid_o (after_found),
    .victim_o       (after_touch),
    .touch_way_i    ('0),
    .touched_bits_o (unused_bits)
  );

  always_comb begin
`ifdef P_FOUND
    // A victim is found exactly when some way may go.
    assert (found == |can_go);
`endif
`ifdef P_ELIGIBLE
    // Never a way a miss register owns, a pinned QPC, or a line the pipe touches now.
    if (found) assert (can_go[way]);
`endif
`ifdef P_EMPTY_FIRST
    // An empty way that may go is taken before any eviction: the lowest of them.
    for (int w = Ways - 1; w >= 0; w--) begin
      if (empty[w] && (w == 0 || empty[w-1:0] == '0)) assert (way == WayW'(w));
    end
`endif
`ifdef P_TOUCH
    // The way just accessed is never the next victim of its set.
    assert (after_found && after_touch != touch_way_i);
`endif
  end

endmodule
