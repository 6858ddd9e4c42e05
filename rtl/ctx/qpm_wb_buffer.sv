// qpm_wb_buffer: dirty lines on their way to memory (SPEC.md §11; docs/qp-cache.md).
//
// An entry is allocated when the pipe starts reading a dirty line out of the data RAM
// (a miss register's victim, or a line the maintenance engine writes back), loaded with
// its data and address one cycle later, written to memory, and freed when memory
// acknowledges the write with OKAY. A write answered with an error (SLVERR, DECERR)
// keeps its entry, data and all, and is sent again, as often as it takes: a context is
// never dropped (docs/qp-cache.md, section 10). Until the entry is freed its QPN is
// reported as pending, so that no miss reads that QPN's old context from memory
// (qpm_mshr_file's hazard). The miss that evicted the line does not wait for any of
// this. The write request is held, unchanged, until the memory port takes it. Write IDs
// are entry indexes.
`include "qpm_assert.svh"

module qpm_wb_buffer #(
  parameter int unsigned Depth  = 2,
  parameter int unsigned MemIdW = 4,
  localparam int unsigned QpnW = qpm_pkg::QpnW,
  localparam int unsigned IdxW = (Depth > 1) ? $clog2(Depth) : 1
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  output logic                  free_any_o,
  output logic                  empty_o,
  // allocate (the pipe reads the line this cycle) ...
  input  logic                  alloc_i,
  input  logic [QpnW-1:0]       alloc_qpn_i,
  input  logic                  alloc_maint_i,    // the maintenance engine's write-back
  output logic [IdxW-1:0]       alloc_idx_o,
  // ... and load it the next cycle
  input  logic                  load_i,
  input  logic [IdxW-1:0]       load_idx_i,
  input  logic [57:0]           load_addr_i,      // QPC address bits 63:6
  input  logic [511:0]          load_data_i,
  // the memory write, held until taken
  output logic                  mem_req_valid_o,
  input  logic                  mem_req_ready_i,
  output logic [MemIdW-1:0]     mem_req_id_o,
  output logic [63:0]           mem_req_addr_o,
  output logic [511:0]          mem_req_wdata_o,
  // write responses (B) of the entries
  input  logic                  mem_rsp_valid_i,
  input  logic [IdxW-1:0]       mem_rsp_idx_i,
  input  logic                  mem_rsp_error_i,
  output logic                  maint_done_o,     // a maintenance write-back was written (OKAY)
  // entries not yet acknowledged
  output logic [Depth-1:0]      pend_o,
  output logic [Depth*QpnW-1:0] pend_qpn_o
);

  logic [Depth-1:0] valid_q, loaded_q, sent_q, maint_q;
  logic [QpnW-1:0]  qpn_q  [Depth];
  logic [57:0]      addr_q [Depth];
  logic [511:0]     data_q [Depth];
  logic             send_lock_q;       // offered and not yet taken: keep the same entry
  logic [IdxW-1:0]  send_lock_idx_q;

  logic            free_any, send_any;
  logic [IdxW-1:0] free_idx, send_idx_first, send_idx;
  always_comb begin
    free_any       = 1'b0;
    free_idx       = '0;
    send_any       = 1'b0;
    send_idx_first = '0;
    for (int i = Depth - 1; i >= 0; i--) begin
      if (!valid_q[i]) begin
        free_any = 1'b1;
        free_idx = IdxW'(i);
      end
      if (valid_q[i] && loaded_q[i] && !sent_q[i]) begin
        send_any       = 1'b1;
        send_idx_first = IdxW'(i);
      end
    end
  end
  assign send_idx    = send_lock_q ? send_lock_idx_q : send_idx_first;
  assign free_any_o  = free_any;
  assign alloc_idx_o = free_idx;
  assign empty_o     = valid_q == '0;

  assign mem_req_valid_o = send_lock_q || send_any;
  assign mem_req_id_o    = MemIdW'(send_idx);
  assign mem_req_addr_o  = {addr_q[send_idx], 6'b0};
  assign mem_req_wdata_o = data_q[send_idx];

  assign maint_done_o = mem_rsp_valid_i && !mem_rsp_error_i && maint_q[mem_rsp_idx_i];

  for (genvar g = 0; g < Depth; g++) begin : gen_entry
    assign pend_o[g]                  = valid_q[g];
    assign pend_qpn_o[g*QpnW +: QpnW] = qpn_q[g];
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        valid_q[g]  <= 1'b0;
        loaded_q[g] <= 1'b0;
        sent_q[g]   <= 1'b0;
        maint_q[g]  <= 1'b0;
        qpn_q[g]    <= '0;
        addr_q[g]   <= '0;
        data_q[g]   <= '0;
      end else begin
        if (alloc_i && free_idx == IdxW'(g)) begin
          valid_q[g]  <= 1'b1;
          loaded_q[g] <= 1'b0;
          sent_q[g]   <= 1'b0;
          maint_q[g]  <= alloc_maint_i;
          qpn_q[g]    <= alloc_qpn_i;
        end
        if (load_i && load_idx_i == IdxW'(g)) begin
          loaded_q[g] <= 1'b1;
          addr_q[g]   <= load_addr_i;
          data_q[g]   <= load_data_i;
        end
        if (mem_req_valid_o && mem_req_ready_i && send_idx == IdxW'(g)) sent_q[g] <= 1'b1;
        // OKAY frees the entry. An error keeps it and offers the same write again
        // (counted in WB_RETRIES): the only copy of the context is here.
        if (mem_rsp_valid_i && mem_rsp_idx_i == IdxW'(g)) begin
          if (mem_rsp_error_i) sent_q[g]  <= 1'b0;
          else                 valid_q[g] <= 1'b0;
        end
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      send_lock_q     <= 1'b0;
      send_lock_idx_q <= '0;
    end else begin
      send_lock_q     <= mem_req_valid_o && !mem_req_ready_i;
      send_lock_idx_q <= send_idx;
    end
  end

  `QPM_ASSERT_IMPL(AllocHasRoom_A, alloc_i, free_any)
  `QPM_ASSERT_IMPL(LoadAllocated_A, load_i, valid_q[load_idx_i] && !loaded_q[load_idx_i])
  `QPM_ASSERT_IMPL(RspForSent_A, mem_rsp_valid_i, valid_q[mem_rsp_idx_i] && sent_q[mem_rsp_idx_i])
  // A write answered with an error keeps its entry, to be sent again.
  `QPM_ASSERT_NEXT(FailedWriteKept_A, mem_rsp_valid_i && mem_rsp_error_i,
                   valid_q[$past(mem_rsp_idx_i)] && !sent_q[$past(mem_rsp_idx_i)])
  `QPM_ASSERT_NEXT(MemReqStable_A, mem_req_valid_o && !mem_req_ready_i, mem_req_valid_o
                              && $stable(mem_req_id_o) && $stable(mem_req_addr_o)
                              && $stable(mem_req_wdata_o))

endmodule
