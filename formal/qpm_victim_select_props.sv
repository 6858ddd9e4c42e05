// Properties of victim selection (docs/formal.md): qpm_victim_select with its three
// policies, for any line state of a set, any policy and any replacement state.
// Combinational: `sat` proves each for every input.
module qpm_victim_select_props #(
  parameter int unsigned Ways = 4,
  localparam int unsigned WayW = (Ways > 1) ? $clog2(Ways) : 1,
  localparam int unsigned LruW = (Ways > 1) ? Ways * (Ways - 1) / 2 : 1
) (
  input logic [1:0]      policy_i,
  input logic [LruW-1:0] lru_i,
  input logic [WayW-1:0] rand_i,
  input logic [Ways-1:0] valid_i,
  input logic [Ways-1:0] pinned_i,
  input logic [Ways-1:0] reserved_i,
  input logic [Ways-1:0] exclude_i,
  input logic [Ways-1:0] held_i,
  input logic [Ways-2:0] plru_i,
  input logic [WayW-1:0] touch_way_i
);

  logic            found;
  logic [WayW-1:0] way;
  qpm_victim_select #(.Ways(Ways)) u_dut (
    .policy_i   (policy_i),
    .lru_i      (lru_i),
    .rand_i     (rand_i),
    .valid_i    (valid_i),
    .pinned_i   (pinned_i),
    .reserved_i (reserved_i),
    .exclude_i  (exclude_i),
    .held_i     (held_i),
    .plru_i     (plru_i),
    .found_o    (found),
    .way_o      (way)
  );

  // The reference: written from docs/qp-cache.md ("Eviction"), not from the RTL.
  logic [Ways-1:0] can_go;   // a way a miss may take
  logic [Ways-1:0] empty;    // ... that holds nothing
  logic [Ways-1:0] choose;   // what a policy chooses from: the ways that may go and are
                             // not held, or all that may go when every one is held
  assign can_go = ~reserved_i & ~(valid_i & pinned_i) & ~exclude_i;
  assign empty  = can_go & ~valid_i;
  assign choose = ((can_go & ~held_i) != '0) ? (can_go & ~held_i) : can_go;

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

  // True LRU from its pair bits (docs/eviction.md): bit k of pair (a, b), a < b, in the
  // order a = 0 .. Ways-1, b = a+1 .. Ways-1, is set when a was used after b.
  // after[x][y]: x was used after y.
  logic [Ways-1:0] after [Ways];
  always_comb begin
    int unsigned k;
    k = 0;
    for (int unsigned a = 0; a < Ways; a++) after[a] = '0;
    for (int unsigned a = 0; a < Ways; a++) begin
      for (int unsigned b = a + 1; b < Ways; b++) begin
        after[a][b] = lru_i[k];
        after[b][a] = !lru_i[k];
        k = k + 1;
      end
    end
  end

  always_comb begin
`ifdef P_LRU
    // Under LRU with no empty way to take: every other way it chooses from was used
    // after the victim. Assumed: the bits are a total order (transitive), as every access
    // leaves them (qpm_cache_lines' lru_touch moves one way to the front of an order).
    for (int unsigned a = 0; a < Ways; a++)
      for (int unsigned b = 0; b < Ways; b++)
        for (int unsigned c = 0; c < Ways; c++)
          if (a != b && b != c && a != c && after[a][b] && after[b][c])
            assume (after[a][c]);
    if (policy_i == qpm_pkg::EvictLru && found && empty == '0) begin
      for (int unsigned w = 0; w < Ways; w++) begin
        if (choose[w] && 32'(way) != w) assert (after[w][way]);
      end
    end
`endif
`ifdef P_RANDOM
    // Under random with no empty way to take: the first way it chooses from at or after
    // the LFSR's way, wrapping.
    if (policy_i == qpm_pkg::EvictRandom && found && empty == '0) begin
      assert (choose[way]);
      for (int unsigned k = 0; k < Ways; k++) begin
        if (WayW'(32'(rand_i) + k) == way) begin
          for (int unsigned j = 0; j < k; j++) assert (!choose[WayW'(32'(rand_i) + j)]);
        end
      end
    end
`endif
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
`ifdef P_HELD_LAST
    // A held line (a context whose write-back was given up) is evicted only when no
    // other way may go, whatever the policy. (The line state sends valid held lines.)
    assume ((held_i & ~valid_i) == '0);
    if (found && held_i[way]) assert ((can_go & ~held_i) == '0);
`endif
`ifdef P_TOUCH
    // The way just accessed is never the next victim of its set.
    assert (after_found && after_touch != touch_way_i);
`endif
  end

endmodule
