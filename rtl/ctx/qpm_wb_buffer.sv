// qpm_wb_buffer: dirty lines on their way to memory (SPEC.md §11; docs/qp-cache.md).
//
// An entry is allocated when the pipe starts reading a dirty line out of the data RAM
// (a miss register's victim, or a line the maintenance engine writes back), loaded with
// its data and address one cycle later, written to memory, and freed when memory
// acknowledges the write with OKAY. A write answered with an error (SLVERR, DECERR)
// keeps its entry, data and all, and is sent again, as often as it takes: a context is
// never dropped (docs/qp-cache.md, section 10). Until the entry is freed its QPN is
// reported as pending, so that no miss reads that QPN's old context from memory
// (qpm_mshr_match's hazard). The miss that evicted the line does not wait for any of
// this. Write IDs are entry indexes.
//
// Data and address live in a RAM (one 570-bit word per entry): the buffer is deep
// enough to keep a SYNC_CACHE's writes streaming over a long memory round trip (issue
// 27 item 2), and that depth belongs in SRAM, not flip-flops. The next write is read
// out of the RAM into the request one cycle before it is offered, and held there,
// unchanged, until the memory port takes it.
//
// One QPN can have two entries at once: a SYNC_CACHE's write-back of a line that is
// written again and then evicted while the first write is under way. The later entry
// is not sent until the earlier one is acknowledged (blk_*), so memory ends with the
// newer context whatever order the writes' responses take.
//
// SYNC_CACHE (and MAP/UNMAP's write-back of a page) answers only once memory holds what
// it must: sync_start_i marks every entry in flight, alloc_sync_i marks an entry the
// engine waits for, and sync_pend_o says a marked entry is not yet acknowledged.
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
  // allocate (the pipe reads the line this cycle) ...
  input  logic                  alloc_i,
  input  logic [QpnW-1:0]       alloc_qpn_i,
  input  logic                  alloc_sync_i,     // a SYNC or MAP/UNMAP waits for it
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
  // what a SYNC_CACHE waits for
  input  logic                  sync_start_i,     // mark every entry in flight now
  output logic                  sync_pend_o,      // a marked entry is not acknowledged
  // entries not yet acknowledged
  output logic [Depth-1:0]      pend_o,
  output logic [Depth*QpnW-1:0] pend_qpn_o
);

  localparam int unsigned WordW = 58 + 512;

  logic [Depth-1:0] valid_q, loaded_q, sent_q, sync_q, blk_q;
  logic [QpnW-1:0]  qpn_q     [Depth];
  logic [IdxW-1:0]  blk_idx_q [Depth];   // the earlier entry of the same QPN
  logic             stg_valid_q;         // the request: read out of the RAM, offered
  logic [IdxW-1:0]  stg_idx_q;

  // ---- free and sendable entries, lowest index first, and the entry of the QPN being
  // allocated (at most one: see SameQpnOnce_A): trees, not a loop over Depth entries
  logic            free_any, send_any, same_any;
  logic [IdxW-1:0] free_idx, send_idx, same_idx;
  logic            pick;
  logic [Depth-1:0] sendable, same;
  for (genvar g = 0; g < Depth; g++) begin : gen_match
    assign sendable[g] = valid_q[g] && loaded_q[g] && !sent_q[g] && !blk_q[g];
    assign same[g]     = valid_q[g] && qpn_q[g] == alloc_qpn_i;
  end
  qpm_first_one #(.N(Depth)) u_free (.bits_i(~valid_q), .any_o(free_any), .idx_o(free_idx));
  qpm_first_one #(.N(Depth)) u_send (.bits_i(sendable), .any_o(send_any), .idx_o(send_idx));
  qpm_first_one #(.N(Depth)) u_same (.bits_i(same),     .any_o(same_any), .idx_o(same_idx));
  assign free_any_o  = free_any;
  assign alloc_idx_o = free_idx;
  assign sync_pend_o = (valid_q & sync_q) != '0;

  // Read the next write out of the RAM when the request register is empty or being
  // taken; it is offered from the next cycle on.
  assign pick = send_any && (!stg_valid_q || mem_req_ready_i);

  logic [WordW-1:0] rdata;
  qpm_ram_2p #(
    .Width (WordW),
    .Depth (Depth)
  ) u_ram (
    .clk_i   (clk_i),
    .re_i    (pick),
    .raddr_i (send_idx),
    .rdata_o (rdata),
    .we_i    (load_i),
    .waddr_i (load_idx_i),
    .wdata_i ({load_addr_i, load_data_i})
  );

  assign mem_req_valid_o = stg_valid_q;
  assign mem_req_id_o    = MemIdW'(stg_idx_q);
  assign mem_req_addr_o  = {rdata[WordW-1 -: 58], 6'b0};
  assign mem_req_wdata_o = rdata[511:0];

  // An entry freed this cycle (OKAY).
  logic [Depth-1:0] freed;
  for (genvar g = 0; g < Depth; g++) begin : gen_freed
    assign freed[g] = mem_rsp_valid_i && !mem_rsp_error_i && mem_rsp_idx_i == IdxW'(g);
  end

  for (genvar g = 0; g < Depth; g++) begin : gen_entry
    assign pend_o[g]                  = valid_q[g];
    assign pend_qpn_o[g*QpnW +: QpnW] = qpn_q[g];
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        valid_q[g]   <= 1'b0;
        loaded_q[g]  <= 1'b0;
        sent_q[g]    <= 1'b0;
        sync_q[g]    <= 1'b0;
        blk_q[g]     <= 1'b0;
        blk_idx_q[g] <= '0;
        qpn_q[g]     <= '0;
      end else begin
        if (sync_start_i && valid_q[g]) sync_q[g] <= 1'b1;
        // The earlier entry of the same QPN was acknowledged: this one may go.
        if (blk_q[g] && freed[blk_idx_q[g]]) blk_q[g] <= 1'b0;
        if (alloc_i && free_idx == IdxW'(g)) begin
          valid_q[g]   <= 1'b1;
          loaded_q[g]  <= 1'b0;
          sent_q[g]    <= 1'b0;
          sync_q[g]    <= alloc_sync_i || sync_start_i;
          qpn_q[g]     <= alloc_qpn_i;
          blk_q[g]     <= same_any && !freed[same_idx];
          blk_idx_q[g] <= same_idx;
        end
        if (load_i && load_idx_i == IdxW'(g)) loaded_q[g] <= 1'b1;
        if (pick && send_idx == IdxW'(g))     sent_q[g]   <= 1'b1;   // read out, offered
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
      stg_valid_q <= 1'b0;
      stg_idx_q   <= '0;
    end else begin
      if (pick) begin
        stg_valid_q <= 1'b1;
        stg_idx_q   <= send_idx;
      end else if (mem_req_ready_i) begin
        stg_valid_q <= 1'b0;
      end
    end
  end

  `QPM_ASSERT_IMPL(AllocHasRoom_A, alloc_i, free_any)
  `QPM_ASSERT_IMPL(LoadAllocated_A, load_i, valid_q[load_idx_i] && !loaded_q[load_idx_i])
  `QPM_ASSERT_IMPL(RspForSent_A, mem_rsp_valid_i, valid_q[mem_rsp_idx_i] && sent_q[mem_rsp_idx_i]
                                 && !(stg_valid_q && stg_idx_q == mem_rsp_idx_i))
  // One QPN has at most two entries (see the header), so an allocation finds at most one.
  `QPM_ASSERT_IMPL(SameQpnOnce_A, alloc_i, (same & (same - 1'b1)) == '0)
  // Never two unacknowledged writes of one QPN on the bus: the later one waits.
  `QPM_ASSERT_IMPL(SameQpnInOrder_A, pick, !blk_q[send_idx])
  // A write answered with an error keeps its entry, to be sent again.
  `QPM_ASSERT_NEXT(FailedWriteKept_A, mem_rsp_valid_i && mem_rsp_error_i,
                   valid_q[$past(mem_rsp_idx_i)] && !sent_q[$past(mem_rsp_idx_i)])
  `QPM_ASSERT_NEXT(MemReqStable_A, mem_req_valid_o && !mem_req_ready_i, mem_req_valid_o
                              && $stable(mem_req_id_o) && $stable(mem_req_addr_o)
                              && $stable(mem_req_wdata_o))

endmodule
