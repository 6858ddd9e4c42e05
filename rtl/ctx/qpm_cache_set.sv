// qpm_cache_set: the next state of one set of the QP cache's line state and replacement
// bits (docs/qp-cache.md). Combinational: qpm_cache_lines keeps the flip-flops, decodes
// which set each update is for, and has one of these per set, a repeated module that
// synthesis maps once whatever the number of sets (docs/capacity.md, "Run time").
//
// Per way four state bits (valid, dirty, pinned, held) and the tag's write enable; per set Ways-1 tree-PLRU
// bits and Ways*(Ways-1)/2 true-LRU order bits, both kept on every access whatever
// EVICT_POLICY says (docs/eviction.md), as qpm_cache_lines computes them for the one or
// two sets accessed in the cycle. Updates that meet on one way in one cycle resolve
// in the order the ports are listed (a later one wins), as qpm_cache_lines documents.
module qpm_cache_set #(
  parameter int unsigned Ways = 4,
  localparam int unsigned WayW = (Ways > 1) ? $clog2(Ways) : 1,
  localparam int unsigned LruW = (Ways > 1) ? Ways * (Ways - 1) / 2 : 1
) (
  // the set's state now
  input  logic [Ways-1:0]      valid_i,
  input  logic [Ways-1:0]      dirty_i,
  input  logic [Ways-1:0]      pinned_i,
  input  logic [Ways-1:0]      held_i,         // a context whose write was given up
  input  logic [Ways-2:0]      plru_i,
  input  logic [LruW-1:0]      lru_i,
  // ... and next
  output logic [Ways-1:0]      valid_d_o,
  output logic [Ways-1:0]      dirty_d_o,
  output logic [Ways-1:0]      pinned_d_o,
  output logic [Ways-1:0]      held_d_o,
  output logic [Ways-2:0]      plru_d_o,
  output logic [LruW-1:0]      lru_d_o,
  // updates, in order of precedence (lowest first); each *_sel_i: for this set
  input  logic                 look_sel_i,     // the lookup is in this set ...
  input  logic                 look_hit_i,     // ... and hit way look_way_i
  input  logic [WayW-1:0]      look_way_i,
  input  logic                 touch_i,        // an access to the looked-up line ...
  input  logic [Ways-2:0]      look_plru_i,    // ... leaves the replacement bits so
  input  logic [LruW-1:0]      look_lru_i,
  input  logic                 write_i,        // a write of the looked-up line
  input  logic                 pin_i,          // the looked-up line's pin bit ...
  input  logic                 pin_value_i,    // ... becomes this
  input  logic                 dirty_p1_sel_i, // the pipe's P1 wrote this way
  input  logic [WayW-1:0]      dirty_p1_way_i,
  input  logic                 hold_p1_i,      // ... and it holds a given-up context
  input  logic                 reserve_sel_i,  // a miss register takes this way:
  input  logic [WayW-1:0]      reserve_way_i,  // invalid, clean, unpinned
  input  logic                 fill_sel_i,     // a fill lands: valid, clean, unpinned
  input  logic [WayW-1:0]      fill_way_i,
  input  logic                 fill_hold_i,    // ... held when it is a take-back
  input  logic [Ways-2:0]      fill_plru_i,    // the replacement bits after the fill
  input  logic [LruW-1:0]      fill_lru_i,
  input  logic                 maint_sel_i,    // the maintenance line is in this set
  input  logic [WayW-1:0]      maint_way_i,
  input  logic                 clean_i,        // written back by maintenance
  input  logic                 drop_i          // dropped by maintenance
);

  // ---- replacement bits: qpm_cache_lines computes the bits after the lookup's access
  // and after the fill's (which counts the lookup's too when both are in one set)
  logic touch_here;
  assign touch_here = touch_i && look_sel_i;
  assign plru_d_o   = fill_sel_i ? fill_plru_i : touch_here ? look_plru_i : plru_i;
  assign lru_d_o    = fill_sel_i ? fill_lru_i  : touch_here ? look_lru_i  : lru_i;

  // ---- line state, per way
  for (genvar w = 0; w < Ways; w++) begin : gen_way
    logic look_here, reserve_here, fill_here, maint_here;
    logic valid_d, dirty_d, pinned_d, held_d;
    assign look_here    = look_sel_i && look_hit_i && look_way_i == WayW'(w);
    assign reserve_here = reserve_sel_i && reserve_way_i == WayW'(w);
    assign fill_here    = fill_sel_i && fill_way_i == WayW'(w);
    assign maint_here   = maint_sel_i && maint_way_i == WayW'(w);
    always_comb begin
      valid_d  = valid_i[w];
      dirty_d  = dirty_i[w];
      pinned_d = pinned_i[w];
      held_d   = held_i[w];
      // A line read out for maintenance is clean, unless the pipe writes it in the same
      // cycle: that write is not in the read-out, so the line stays dirty. Its write-back
      // entry now answers for its context: the line is no longer held.
      if (maint_here && clean_i) begin
        dirty_d = 1'b0;
        held_d  = 1'b0;
      end
      if (look_here && write_i) dirty_d = 1'b1;
      if (dirty_p1_sel_i && dirty_p1_way_i == WayW'(w)) begin
        dirty_d = 1'b1;
        if (hold_p1_i) held_d = 1'b1;
      end
      if (look_here && pin_i)   pinned_d = pin_value_i;
      if (reserve_here) begin
        valid_d  = 1'b0;
        dirty_d  = 1'b0;
        pinned_d = 1'b0;
        held_d   = 1'b0;
      end
      if (fill_here) begin
        valid_d  = 1'b1;
        dirty_d  = 1'b0;
        pinned_d = 1'b0;
        held_d   = fill_hold_i;
      end
      if (maint_here && drop_i)  valid_d = 1'b0;
    end
    assign valid_d_o[w]  = valid_d;
    assign dirty_d_o[w]  = dirty_d;
    assign pinned_d_o[w] = pinned_d;
    assign held_d_o[w]   = held_d;
  end

endmodule
