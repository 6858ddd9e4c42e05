// qpm_mem_arbiter: the QP cache's two memory request ports, one for reads (the miss
// registers', then the maintenance engine's) and one for writes (the write-back
// buffer's, then the maintenance engine's directory writes). A maintenance request
// passed over once goes next on its port: MAP/UNMAP run beside traffic and must not
// wait for the misses to pause. The ports are apart so that a write-back waiting for
// AW/W never holds back a miss's read (docs/qp-cache.md section 12); AXI orders neither
// against the other, and the cache never needs it to (a read of a QPC whose write is
// still in flight waits for its B, section 9).
//
// Every source holds its request until it is taken; each port keeps its choice while it
// has not taken the request it offers, so its payload never changes under a valid (AXI
// rule, STYLE.md §2 rule 21) even when a higher-priority source arrives meanwhile.
`include "qpm_assert.svh"

module qpm_mem_arbiter #(
  parameter int unsigned MemIdW = 4,
  parameter logic [MemIdW-1:0] MaintRdId = '0,   // the maintenance engine's read ID ...
  parameter logic [MemIdW-1:0] MaintWrId = '0    // ... and write ID
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  // write-back buffer: line writes
  input  logic              wb_valid_i,
  output logic              wb_ready_o,
  input  logic [MemIdW-1:0] wb_id_i,
  input  logic [63:0]       wb_addr_i,
  input  logic [511:0]      wb_wdata_i,
  // miss registers: directory-entry and QPC reads
  input  logic              rd_valid_i,
  output logic              rd_ready_o,
  input  logic [MemIdW-1:0] rd_id_i,
  input  logic [63:0]       rd_addr_i,
  input  logic              rd_line_i,
  // maintenance engine: directory and page-word reads, directory writes
  input  logic              x_valid_i,
  output logic              x_ready_o,
  input  logic              x_write_i,
  input  logic [63:0]       x_addr_i,
  input  logic [63:0]       x_wdata_i,
  // the read port
  output logic              mem_rd_valid_o,
  input  logic              mem_rd_ready_i,
  output logic [MemIdW-1:0] mem_rd_id_o,
  output logic [63:0]       mem_rd_addr_o,
  output logic              mem_rd_line_o,
  // the write port
  output logic              mem_wr_valid_o,
  input  logic              mem_wr_ready_i,
  output logic [MemIdW-1:0] mem_wr_id_o,
  output logic [63:0]       mem_wr_addr_o,
  output logic              mem_wr_line_o,
  output logic [511:0]      mem_wr_wdata_o
);

  // Each port grants its main source or the maintenance engine; a grant not yet taken is
  // kept (lock), and the maintenance engine goes first once it has been passed over.
  logic x_rd, x_wr;   // the maintenance request, by port
  assign x_rd = x_valid_i && !x_write_i;
  assign x_wr = x_valid_i && x_write_i;

  logic r_lock_q, r_lock_x_q, w_lock_q, w_lock_x_q, x_first_q;
  logic r_grant_x, w_grant_x;
  assign r_grant_x = r_lock_q ? r_lock_x_q : x_rd && (x_first_q || !rd_valid_i);
  assign w_grant_x = w_lock_q ? w_lock_x_q : x_wr && (x_first_q || !wb_valid_i);

  assign mem_rd_valid_o = r_grant_x || rd_valid_i;
  assign mem_rd_id_o    = r_grant_x ? MaintRdId : rd_id_i;
  assign mem_rd_addr_o  = r_grant_x ? x_addr_i : rd_addr_i;
  assign mem_rd_line_o  = !r_grant_x && rd_line_i;
  assign mem_wr_valid_o = w_grant_x || wb_valid_i;
  assign mem_wr_id_o    = w_grant_x ? MaintWrId : wb_id_i;
  assign mem_wr_addr_o  = w_grant_x ? x_addr_i : wb_addr_i;
  assign mem_wr_line_o  = !w_grant_x;
  assign mem_wr_wdata_o = w_grant_x ? {448'b0, x_wdata_i} : wb_wdata_i;

  assign rd_ready_o = !r_grant_x && mem_rd_ready_i;
  assign wb_ready_o = !w_grant_x && mem_wr_ready_i;
  assign x_ready_o  = (r_grant_x && mem_rd_ready_i) || (w_grant_x && mem_wr_ready_i);

  logic x_passed;   // the maintenance request's port took another source's request
  assign x_passed = x_write_i ? (wb_ready_o && wb_valid_i) : (rd_ready_o && rd_valid_i);
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      r_lock_q   <= 1'b0;
      r_lock_x_q <= 1'b0;
      w_lock_q   <= 1'b0;
      w_lock_x_q <= 1'b0;
      x_first_q  <= 1'b0;
    end else begin
      r_lock_q   <= mem_rd_valid_o && !mem_rd_ready_i;
      r_lock_x_q <= r_grant_x;
      w_lock_q   <= mem_wr_valid_o && !mem_wr_ready_i;
      w_lock_x_q <= w_grant_x;
      x_first_q  <= x_valid_i && !x_ready_o && (x_first_q || x_passed);
    end
  end

  // A locked source is still offering (sources never withdraw), and the maintenance
  // engine is granted on one port at a time.
  `QPM_ASSERT(LockedStillValid_A, (!r_lock_q || (r_lock_x_q ? x_rd : rd_valid_i))
                                  && (!w_lock_q || (w_lock_x_q ? x_wr : wb_valid_i)))
  `QPM_ASSERT(MaintOnePort_A, !(r_grant_x && w_grant_x))
  `QPM_ASSERT_NEXT(RdPortStable_A, mem_rd_valid_o && !mem_rd_ready_i, mem_rd_valid_o
                              && $stable(mem_rd_id_o) && $stable(mem_rd_addr_o)
                              && $stable(mem_rd_line_o))
  `QPM_ASSERT_NEXT(WrPortStable_A, mem_wr_valid_o && !mem_wr_ready_i, mem_wr_valid_o
                              && $stable(mem_wr_id_o) && $stable(mem_wr_addr_o)
                              && $stable(mem_wr_line_o) && $stable(mem_wr_wdata_o))

endmodule
