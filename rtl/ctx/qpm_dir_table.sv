// qpm_dir_table: the directory cache of the QP table walker (SPEC.md §3.2).
//
// The page addresses of the last few directory entries a walk read, so a walk usually
// skips the directory read. Fully associative, round-robin replacement. Exact, because
// every directory write goes through MAP_PAGE / UNMAP_PAGE, which drops the entry.
//
// There is no per-entry state on chip (docs/qp-table.md): whether a page is mapped is
// learned from the directory read itself, and whether a page still holds a valid QP is
// read from the page in memory by MAP/UNMAP_PAGE. So QPN_LIMIT can reach 2**24 at the
// cost of this cache alone.
module qpm_dir_table #(
  parameter int unsigned DirEntries   = 1 << 18,  // directory entries (index width)
  parameter int unsigned CacheEntries = 4,        // directory cache size
  localparam int unsigned IdxW = (DirEntries > 1) ? $clog2(DirEntries) : 1
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  // a directory write (MAP/UNMAP_PAGE) took effect: forget the entry
  input  logic              inval_i,
  input  logic [IdxW-1:0]   inval_idx_i,
  // directory cache lookup (a walk)
  input  logic [IdxW-1:0]   walk_idx_i,
  output logic              walk_hit_o,
  output logic [63:12]      walk_page_o,
  // directory cache fill, from a directory read of a valid entry
  input  logic              fill_valid_i,
  input  logic [IdxW-1:0]   fill_idx_i,
  input  logic [63:12]      fill_page_i
);

  localparam int unsigned CacheW = (CacheEntries > 1) ? $clog2(CacheEntries) : 1;

  // ---------------------------------------------------------------------------------
  // Directory cache
  // ---------------------------------------------------------------------------------
  logic [CacheEntries-1:0] dc_valid_q;
  logic [IdxW-1:0]         dc_idx_q  [CacheEntries];
  logic [63:12]            dc_page_q [CacheEntries];
  logic [CacheW-1:0]       dc_next_q;

  always_comb begin
    walk_hit_o  = 1'b0;
    walk_page_o = '0;
    for (int unsigned i = 0; i < CacheEntries; i++) begin
      if (dc_valid_q[i] && dc_idx_q[i] == walk_idx_i) begin
        walk_hit_o  = 1'b1;
        walk_page_o = dc_page_q[i];
      end
    end
  end

  logic [CacheEntries-1:0] dc_valid_d;
  logic [CacheW-1:0]       dc_next_d;
  always_comb begin
    dc_valid_d = dc_valid_q;
    dc_next_d  = dc_next_q;
    // A directory write drops the entry: the next walk reads it again.
    if (inval_i) begin
      for (int unsigned i = 0; i < CacheEntries; i++) begin
        if (dc_idx_q[i] == inval_idx_i) dc_valid_d[i] = 1'b0;
      end
    end else if (fill_valid_i) begin
      dc_valid_d[dc_next_q] = 1'b1;
      dc_next_d = (32'(dc_next_q) == CacheEntries - 1) ? '0 : dc_next_q + CacheW'(1);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      dc_valid_q <= '0;
      dc_next_q  <= '0;
    end else begin
      dc_valid_q <= dc_valid_d;
      dc_next_q  <= dc_next_d;
    end
  end
  // The entries themselves need no reset: dc_valid_q guards them.
  for (genvar g = 0; g < CacheEntries; g++) begin : gen_dc_ff
    always_ff @(posedge clk_i) begin
      if (!inval_i && fill_valid_i && 32'(dc_next_q) == g) begin
        dc_idx_q[g]  <= fill_idx_i;
        dc_page_q[g] <= fill_page_i;
      end
    end
  end

endmodule
