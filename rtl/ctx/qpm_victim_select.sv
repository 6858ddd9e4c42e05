// qpm_victim_select: which way of a set a miss takes (docs/qp-cache.md, "Eviction";
// docs/eviction.md).
//
// The interface every replacement policy plugs into: the set's line state in, one way
// out. A way is eligible unless a miss register owns it, it holds a pinned QPC, or the
// pipe touches it this cycle. An empty eligible way needs no eviction and is taken
// first (the lowest); otherwise EVICT_POLICY chooses among the eligible ways that are not
// held (a context whose write-back was given up stays on chip while another way can go,
// docs/qp-cache.md section 20), or among all eligible ways when every one is held:
//   tree-PLRU (qpm_plru_tree), true LRU (the way every other way it chooses from was
//   used after), random (the first way it chooses from, from an LFSR's way, going up).
// No policy prefers a clean victim: a dirty one's write-back does not delay the fill
// that replaces it (the write-back buffer), so preferring clean lines would only keep
// dirty ones longer (docs/eviction.md). Combinational.
module qpm_victim_select #(
  parameter int unsigned Ways = 4,
  localparam int unsigned WayW = (Ways > 1) ? $clog2(Ways) : 1,
  localparam int unsigned LruW = (Ways > 1) ? Ways * (Ways - 1) / 2 : 1
) (
  input  logic [1:0]      policy_i,    // qpm_pkg::EvictPlru, EvictLru, EvictRandom
  input  logic [Ways-1:0] valid_i,
  input  logic [Ways-1:0] pinned_i,
  input  logic [Ways-1:0] reserved_i,
  input  logic [Ways-1:0] exclude_i,   // touched by the pipe this cycle
  input  logic [Ways-1:0] held_i,      // valid and held: taken last
  input  logic [Ways-2:0] plru_i,
  input  logic [LruW-1:0] lru_i,       // pair (a, b), a < b: set if a is the more recent
  input  logic [WayW-1:0] rand_i,
  output logic            found_o,
  output logic [WayW-1:0] way_o,
  output logic [Ways-1:0] eligible_o   // the ways a miss may take now
);

  logic [Ways-1:0] eligible, empty, unheld, pool;
  assign eligible = ~reserved_i & ~(valid_i & pinned_i) & ~exclude_i;
  assign empty    = eligible & ~valid_i;
  assign found_o  = eligible != '0;
  assign eligible_o = eligible;
  // What the policies choose from: the eligible ways not held, if there is one.
  assign unheld   = eligible & ~held_i;
  assign pool     = (unheld != '0) ? unheld : eligible;

  logic            plru_found;
  logic [WayW-1:0] plru_way;
  logic [Ways-2:0] plru_unused;
  qpm_plru_tree #(
    .Ways (Ways)
  ) u_plru (
    .bits_i         (plru_i),
    .eligible_i     (pool),
    .victim_valid_o (plru_found),
    .victim_o       (plru_way),
    .touch_way_i    ('0),
    .touched_bits_o (plru_unused)
  );
  logic unused_plru_found;   // the same as found_o
  assign unused_plru_found = plru_found;

  // True LRU: the way of the pool no other way of the pool is older than.
  logic [Ways-1:0] newer [Ways];   // newer[a][b]: b was used after a
  always_comb begin
    int unsigned k;
    k = 0;
    for (int unsigned a = 0; a < Ways; a++) newer[a] = '0;
    for (int unsigned a = 0; a < Ways; a++) begin
      for (int unsigned b = a + 1; b < Ways; b++) begin
        newer[a][b] = !lru_i[k];
        newer[b][a] = lru_i[k];
        k = k + 1;
      end
    end
  end
  // Each way's test is independent of the others' (a tree finds the one that passes, not
  // a chain of overrides). The order bits always form a total order (every access moves
  // one way to the front), so one such way exists; should the bits ever be inconsistent,
  // PLRU's choice stands.
  logic [Ways-1:0] lru_oldest;
  for (genvar w = 0; w < Ways; w++) begin : gen_lru
    assign lru_oldest[w] = pool[w] && (newer[w] | ~pool | (Ways'(1) << w)) == '1;
  end
  logic            lru_found;
  logic [WayW-1:0] lru_first;
  qpm_first_one #(.N(Ways)) u_lru_first (.bits_i(lru_oldest), .any_o(lru_found),
                                         .idx_o(lru_first));

  // Random: from the LFSR's way, the first way of the pool going up (wrapping): the pool
  // rotated down by the LFSR's way, its first way, rotated back.
  logic [Ways-1:0] rand_pool;
  logic [WayW-1:0] rand_first;
  logic            rand_unused_any;   // the pool is not empty when the way is used
  assign rand_pool = Ways'({pool, pool} >> rand_i);
  qpm_first_one #(.N(Ways)) u_rand_first (.bits_i(rand_pool), .any_o(rand_unused_any),
                                          .idx_o(rand_first));

  // An empty eligible way first (the lowest), else the policy's way.
  logic            empty_any;
  logic [WayW-1:0] empty_first, policy_way;
  qpm_first_one #(.N(Ways)) u_empty_first (.bits_i(empty), .any_o(empty_any),
                                           .idx_o(empty_first));
  always_comb begin
    unique case (policy_i)
      qpm_pkg::EvictLru:    policy_way = lru_found ? lru_first : plru_way;
      qpm_pkg::EvictRandom: policy_way = WayW'(rand_first + rand_i);
      default:              policy_way = plru_way;
    endcase
  end
  assign way_o = empty_any ? empty_first : policy_way;

endmodule
