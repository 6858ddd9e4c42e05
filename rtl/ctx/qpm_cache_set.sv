// qpm_cache_set: the next valid and pinned bits of one set of the QP cache's lines
// (docs/qp-cache.md section 19). Combinational: qpm_cache_lines keeps the flip-flops,
// decodes which set each update is for, and has one of these per set, a repeated module
// that synthesis maps once whatever the number of sets (docs/capacity.md, "Run time").
//
// These two bits per line stay in flip-flops: valid must be 0 after reset (a RAM is not
// reset), and the pipe's lookup reads both in the cycle it decides, for whatever set its
// request is in. The rest of the line state is in RAM (qpm_cache_lines). Updates that
// meet on one way in one cycle resolve in the order the ports are listed (a later one
// wins), as qpm_cache_lines documents.
module qpm_cache_set #(
  parameter int unsigned Ways = 4,
  localparam int unsigned WayW = (Ways > 1) ? $clog2(Ways) : 1
) (
  // the set's bits now ...
  input  logic [Ways-1:0]      valid_i,
  input  logic [Ways-1:0]      pinned_i,
  // ... and next
  output logic [Ways-1:0]      valid_d_o,
  output logic [Ways-1:0]      pinned_d_o,
  // updates, in order of precedence (lowest first); each *_sel_i: for this set
  input  logic                 look_sel_i,     // the lookup is in this set ...
  input  logic                 look_hit_i,     // ... and hit way look_way_i
  input  logic [WayW-1:0]      look_way_i,
  input  logic                 pin_i,          // the looked-up line's pin bit ...
  input  logic                 pin_value_i,    // ... becomes this
  input  logic                 reserve_sel_i,  // a miss register takes this way:
  input  logic [WayW-1:0]      reserve_way_i,  // invalid, unpinned
  input  logic                 fill_sel_i,     // a fill lands: valid, unpinned
  input  logic [WayW-1:0]      fill_way_i,
  input  logic                 maint_sel_i,    // the maintenance line is in this set
  input  logic [WayW-1:0]      maint_way_i,
  input  logic                 drop_i          // dropped by maintenance
);

  for (genvar w = 0; w < Ways; w++) begin : gen_way
    logic look_here, reserve_here, fill_here, maint_here;
    logic valid_d, pinned_d;
    assign look_here    = look_sel_i && look_hit_i && look_way_i == WayW'(w);
    assign reserve_here = reserve_sel_i && reserve_way_i == WayW'(w);
    assign fill_here    = fill_sel_i && fill_way_i == WayW'(w);
    assign maint_here   = maint_sel_i && maint_way_i == WayW'(w);
    always_comb begin
      valid_d  = valid_i[w];
      pinned_d = pinned_i[w];
      if (look_here && pin_i) pinned_d = pin_value_i;
      if (reserve_here) begin
        valid_d  = 1'b0;
        pinned_d = 1'b0;
      end
      if (fill_here) begin
        valid_d  = 1'b1;
        pinned_d = 1'b0;
      end
      if (maint_here && drop_i) valid_d = 1'b0;
    end
    assign valid_d_o[w]  = valid_d;
    assign pinned_d_o[w] = pinned_d;
  end

endmodule
