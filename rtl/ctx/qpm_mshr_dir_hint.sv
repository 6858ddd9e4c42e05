// qpm_mshr_dir_hint: the miss registers' directory lookups (docs/qp-cache.md, "Miss
// registers"): the walk's directory cache (qpm_dir_table), looked up when a register is
// allocated and answered the next cycle into the register's hint (and to its MDir step
// directly, if it is scheduled in that cycle); a MAP/UNMAP of its page drops the hint.
// Filled by a directory read that found a mapped page.
module qpm_mshr_dir_hint #(
  parameter int unsigned Mshrs           = 8,
  parameter int unsigned PageBits        = 6,
  parameter int unsigned DirIdxW         = 18,
  parameter int unsigned DirCacheEntries = 1024,
  localparam int unsigned QpnW  = qpm_pkg::QpnW,
  localparam int unsigned MshrW = (Mshrs > 1) ? $clog2(Mshrs) : 1
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                  alloc_i,        // a register is allocated ...
  input  logic [MshrW-1:0]      alloc_idx_i,
  input  logic [QpnW-1:0]       alloc_qpn_i,    // ... for this QPN
  input  logic [Mshrs*QpnW-1:0] qpn_i,          // the QPN each register works on
  input  logic                  inval_i,        // MAP/UNMAP changed this entry
  input  logic [DirIdxW-1:0]    inval_idx_i,
  input  logic                  fill_i,         // a directory read found this page mapped
  input  logic [DirIdxW-1:0]    fill_idx_i,
  input  logic [63:12]          fill_page_i,
  input  logic [MshrW-1:0]      walk_idx_i,     // the register that walks now ...
  output logic                  walk_hit_o,     // ... knows its page
  output logic [63:12]          walk_page_o
);

  logic         dir_hit;
  logic [63:12] dir_page;
  qpm_dir_table #(
    .DirEntries   (1 << DirIdxW),
    .CacheEntries (DirCacheEntries)
  ) u_dir_table (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .inval_i      (inval_i),
    .inval_idx_i  (inval_idx_i),
    .look_i       (alloc_i),
    .look_idx_i   (DirIdxW'(alloc_qpn_i >> PageBits)),
    .look_hit_o   (dir_hit),
    .look_page_o  (dir_page),
    .fill_valid_i (fill_i),
    .fill_idx_i   (fill_idx_i),
    .fill_page_i  (fill_page_i)
  );

  logic             ans_q;           // the register allocated last cycle gets its answer
  logic [MshrW-1:0] ans_idx_q;
  logic [Mshrs-1:0] hint_q;          // the register's page is in the directory cache ...
  logic [63:12]     hint_page_q [Mshrs];   // ... at this page address
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ans_q     <= 1'b0;
      ans_idx_q <= '0;
    end else begin
      ans_q     <= alloc_i;
      ans_idx_q <= alloc_idx_i;
    end
  end
  for (genvar g = 0; g < Mshrs; g++) begin : gen_hint
    logic dropped;   // its page's directory entry changes (the cache forgets it too)
    assign dropped = inval_i && DirIdxW'(qpn_i[g*QpnW +: QpnW] >> PageBits) == inval_idx_i;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        hint_q[g]      <= 1'b0;
        hint_page_q[g] <= '0;
      end else if (ans_q && ans_idx_q == MshrW'(g)) begin
        hint_q[g]      <= dir_hit;   // (an invalidation now is in dir_hit already)
        hint_page_q[g] <= dir_page;
      end else if (dropped) begin
        hint_q[g]      <= 1'b0;
      end
    end
  end
  logic ans_now;   // the walking register's answer arrives this cycle
  assign ans_now     = ans_q && ans_idx_q == walk_idx_i;
  assign walk_hit_o  = ans_now ? dir_hit  : hint_q[walk_idx_i];
  assign walk_page_o = ans_now ? dir_page : hint_page_q[walk_idx_i];

endmodule
