// qpm_dir_table: what the chip knows about the QP table's directory (SPEC.md §3.2).
//
// Two structures, both exact because every directory write goes through MAP_PAGE /
// UNMAP_PAGE (docs/qp-table.md):
//  * the shadow: per directory entry a valid bit and the number of valid QPCs in the
//    page. It refuses a QPN on an unmapped page with no memory access and answers
//    "does this page still hold a valid QP" for UNMAP_PAGE in one look;
//  * the directory cache: the page addresses of the last few entries used, so a walk
//    usually skips the directory read. Fully associative, round-robin replacement.
module qpm_dir_table #(
  parameter int unsigned DirEntries   = 256,  // directory entries the shadow covers
  parameter int unsigned PageBits     = 6,
  parameter int unsigned CacheEntries = 4,    // directory cache size
  localparam int unsigned IdxW   = (DirEntries > 1) ? $clog2(DirEntries) : 1,
  localparam int unsigned CountW = PageBits + 1
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  // shadow lookup (the cache's main pipe)
  input  logic [IdxW-1:0]   map_idx_i,
  output logic              map_valid_o,
  // shadow lookup for MAP/UNMAP_PAGE
  input  logic [IdxW-1:0]   busy_idx_i,
  output logic              busy_o,          // the entry is mapped and its page holds a valid QP
  // count adjust: a QPC in page adj_idx_i turned valid (+1) or invalid (-1)
  input  logic              adj_valid_i,
  input  logic              adj_up_i,
  input  logic [IdxW-1:0]   adj_idx_i,
  // directory write (MAP/UNMAP_PAGE): new valid bit, count restarts at 0
  input  logic              set_valid_i,
  input  logic [IdxW-1:0]   set_idx_i,
  input  logic              set_mapped_i,
  // directory cache lookup (a walk)
  input  logic [IdxW-1:0]   walk_idx_i,
  output logic              walk_hit_o,
  output logic [63:12]      walk_page_o,
  // directory cache fill, from a directory read
  input  logic              fill_valid_i,
  input  logic [IdxW-1:0]   fill_idx_i,
  input  logic [63:12]      fill_page_i
);

  localparam int unsigned CacheW = (CacheEntries > 1) ? $clog2(CacheEntries) : 1;

  if (CountW > 16) begin : gen_bad_page_bits
    $error("PageBits too large for the valid-QP counter");
  end

  // ---------------------------------------------------------------------------------
  // Shadow
  // ---------------------------------------------------------------------------------
  logic [DirEntries-1:0] mapped_q, mapped_d;
  logic [CountW-1:0]     count_q [DirEntries];
  logic [CountW-1:0]     count_d [DirEntries];

  assign map_valid_o = mapped_q[map_idx_i];
  assign busy_o      = mapped_q[busy_idx_i] && (count_q[busy_idx_i] != '0);

  always_comb begin
    mapped_d = mapped_q;
    if (set_valid_i) mapped_d[set_idx_i] = set_mapped_i;
  end

  // Counts: next state per entry with explicit enables (one adder, shared).
  logic [CountW-1:0] adj_count;
  assign adj_count = adj_up_i ? count_q[adj_idx_i] + CountW'(1) : count_q[adj_idx_i] - CountW'(1);
  for (genvar g = 0; g < DirEntries; g++) begin : gen_count_d
    assign count_d[g] = (set_valid_i && set_idx_i == IdxW'(g))                  ? '0
                      : (!set_valid_i && adj_valid_i && adj_idx_i == IdxW'(g)) ? adj_count
                      : count_q[g];
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) mapped_q <= '0;
    else         mapped_q <= mapped_d;
  end
  for (genvar g = 0; g < DirEntries; g++) begin : gen_count_ff
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) count_q[g] <= '0;
      else         count_q[g] <= count_d[g];
    end
  end

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
    if (set_valid_i) begin
      for (int unsigned i = 0; i < CacheEntries; i++) begin
        if (dc_idx_q[i] == set_idx_i) dc_valid_d[i] = 1'b0;
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
      if (!set_valid_i && fill_valid_i && 32'(dc_next_q) == g) begin
        dc_idx_q[g]  <= fill_idx_i;
        dc_page_q[g] <= fill_page_i;
      end
    end
  end

`ifndef SYNTHESIS
  // A count never wraps: at most 2**PageBits QPCs live in a page.
  always_ff @(posedge clk_i) begin
    if (rst_ni && adj_valid_i && !set_valid_i) begin
      assert (adj_up_i ? (32'(count_q[adj_idx_i]) < (1 << PageBits)) : (count_q[adj_idx_i] != '0))
        else $error("[ASSERT FAILED] %m: valid-QP count out of range");
    end
  end
`endif

endmodule
