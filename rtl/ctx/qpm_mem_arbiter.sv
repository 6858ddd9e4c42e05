// qpm_mem_arbiter: the QP cache's one memory request port, shared by the write-back
// buffer, the miss registers' reads and the maintenance engine (in that priority, except
// that a maintenance request passed over once goes next: MAP/UNMAP run beside traffic
// and must not wait for the misses to pause).
//
// Every source holds its request until it is taken; the arbiter keeps its choice while
// the port has not taken the request it offers, so the port's payload never changes
// under a valid (AXI rule, STYLE.md §2 rule 21) even when a higher-priority source
// arrives meanwhile.
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
  // the port
  output logic              mem_req_valid_o,
  input  logic              mem_req_ready_i,
  output logic              mem_req_write_o,
  output logic [MemIdW-1:0] mem_req_id_o,
  output logic [63:0]       mem_req_addr_o,
  output logic              mem_req_line_o,
  output logic [511:0]      mem_req_wdata_o
);

  typedef enum logic [1:0] {
    GNone  = 2'd0,
    GWb    = 2'd1,
    GRd    = 2'd2,
    GMaint = 2'd3
  } grant_e;

  grant_e grant, lock_q;
  logic   x_first_q;   // the maintenance request lost once: it goes next
  always_comb begin
    if (lock_q != GNone)            grant = lock_q;
    else if (x_first_q && x_valid_i) grant = GMaint;
    else if (wb_valid_i)  grant = GWb;
    else if (rd_valid_i)  grant = GRd;
    else if (x_valid_i)   grant = GMaint;
    else                  grant = GNone;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      lock_q    <= GNone;
      x_first_q <= 1'b0;
    end else begin
      lock_q    <= (mem_req_valid_o && !mem_req_ready_i) ? grant : GNone;
      x_first_q <= x_valid_i && !(grant == GMaint && mem_req_ready_i)
                && (x_first_q || (mem_req_ready_i && grant != GNone));
    end
  end

  always_comb begin
    mem_req_valid_o = grant != GNone;
    mem_req_write_o = 1'b0;
    mem_req_id_o    = '0;
    mem_req_addr_o  = '0;
    mem_req_line_o  = 1'b1;
    mem_req_wdata_o = '0;
    unique case (grant)
      GWb: begin
        mem_req_write_o = 1'b1;
        mem_req_id_o    = wb_id_i;
        mem_req_addr_o  = wb_addr_i;
        mem_req_wdata_o = wb_wdata_i;
      end
      GRd: begin
        mem_req_id_o   = rd_id_i;
        mem_req_addr_o = rd_addr_i;
        mem_req_line_o = rd_line_i;
      end
      GMaint: begin
        mem_req_write_o = x_write_i;
        mem_req_id_o    = x_write_i ? MaintWrId : MaintRdId;
        mem_req_addr_o  = x_addr_i;
        mem_req_line_o  = 1'b0;
        mem_req_wdata_o = {448'b0, x_wdata_i};
      end
      default: ;
    endcase
  end
  assign wb_ready_o = grant == GWb && mem_req_ready_i;
  assign rd_ready_o = grant == GRd && mem_req_ready_i;
  assign x_ready_o  = grant == GMaint && mem_req_ready_i;

  // A locked source is still offering (sources never withdraw).
  `QPM_ASSERT(LockedStillValid_A, (lock_q != GWb || wb_valid_i) && (lock_q != GRd || rd_valid_i)
                                  && (lock_q != GMaint || x_valid_i))
  `QPM_ASSERT_NEXT(PortStable_A, mem_req_valid_o && !mem_req_ready_i, mem_req_valid_o
                            && $stable(mem_req_write_o) && $stable(mem_req_id_o)
                            && $stable(mem_req_addr_o) && $stable(mem_req_line_o)
                            && $stable(mem_req_wdata_o))

endmodule
