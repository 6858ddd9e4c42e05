// qpm_cache_mem_side: the QP cache's memory side (docs/qp-cache.md). Wires together the
// blocks that own memory requests besides the miss registers, and the two ports they share:
//
//   qpm_wb_buffer    dirty lines on their way out (write IDs 0 .. WbDepth-1)
//   qpm_cache_maint  SYNC_CACHE, MAP_PAGE and UNMAP_PAGE (read ID MaintRdId, write ID
//                    MaintWrId)
//   qpm_mem_arbiter  a read port (the miss registers, then maintenance) and a write
//                    port (write-backs, then maintenance)
//
// The write responses (B) go to the write-back buffer or the maintenance engine by ID;
// read responses for the miss registers are routed by the cache itself.
module qpm_cache_mem_side #(
  parameter int unsigned Lines    = 256,
  parameter int unsigned PageBits = 6,
  parameter int unsigned DirIdxW  = 18,
  parameter int unsigned WbDepth  = 2,
  parameter int unsigned Mshrs    = 8,
  parameter int unsigned MemIdW   = 4,
  parameter logic [MemIdW-1:0] MaintRdId = '0,
  parameter logic [MemIdW-1:0] MaintWrId = '0,
  localparam int unsigned LineW = $clog2(Lines),
  localparam int unsigned WbW   = (WbDepth > 1) ? $clog2(WbDepth) : 1,
  localparam int unsigned QpnW  = qpm_pkg::QpnW,
  localparam int unsigned MshrW = (Mshrs > 1) ? $clog2(Mshrs) : 1
) (
  input  logic                     clk_i,
  input  logic                     rst_ni,
  input  logic [63:0]              qpt_base_i,
  // the write-back buffer (qpm_wb_buffer): allocated and loaded by the pipe
  output logic                     wb_free_any_o,
  output logic [WbW:0]             wb_free_cnt_o,
  input  logic                     wb_alloc_i,
  input  logic [QpnW-1:0]          wb_alloc_qpn_i,
  input  logic                     wb_alloc_maint_i,
  output logic [WbW-1:0]           wb_alloc_idx_o,
  input  logic                     wb_load_i,
  input  logic [WbW-1:0]           wb_load_idx_i,
  input  logic [51:0]              wb_load_page_i,
  input  logic [511:0]             wb_load_data_i,
  output logic [WbDepth-1:0]       wb_pend_o,
  output logic [WbDepth*QpnW-1:0]  wb_pend_qpn_o,
  // write faults (qpm_wb_buffer): the budget, the announced given-up entry, its mark by
  // the pipe and its take-back to a miss register (swapped with that register's victim)
  input  logic [7:0]               wb_retry_budget_i,
  input  logic                     wb_alloc_swap_i,
  output logic [QpnW-1:0]          wb_ann_qpn_o,
  output logic                     wb_mark_req_o,
  input  logic                     wb_mark_take_i,
  input  logic                     wb_drop_i,
  input  logic [QpnW-1:0]          wb_drop_qpn_i,
  output logic [WbDepth-1:0]       wb_gu_o,
  output logic [WbDepth-1:0]       wb_retl_o,        // live entries a take-back may take
  input  logic [WbDepth-1:0]       wb_watched_i,     // entries a miss register waits on
  input  logic                     wb_room_miss_i,   // a dirty read-out found no entry
  input  logic                     wb_ret_want_i,
  input  logic [QpnW-1:0]          wb_ret_qpn_i,
  output logic                     wb_ret_staged_o,
  output logic [511:0]             wb_ret_data_o,
  output logic                     wb_ret_keep_o,
  input  logic                     wb_ret_take_i,
  output logic                     cnt_given_up_o,
  // the maintenance engine (qpm_cache_maint)
  input  logic                     maint_start_i,
  input  qpm_pkg::ctx_req_t        maint_start_req_i,
  output logic                     maint_busy_o,
  output logic                     maint_lock_o,     // MAP/UNMAP of this entry under way
  output logic [DirIdxW-1:0]       maint_lock_idx_o,
  input  logic                     maint_rsp_ready_i,
  input  logic [Mshrs-1:0]         victim_out_i,     // the miss registers' victims ...
  input  logic                     wbread_i,         // ... one read out now
  input  logic [MshrW-1:0]         wbread_idx_i,
  output logic [LineW-1:0]         scan_line_o,
  input  logic                     drop_hold_i,      // no drop this cycle
  output logic                     scan_want_o,
  input  logic                     scan_ok_i,
  input  logic                     scan_valid_i,
  input  logic                     scan_dirty_i,
  input  logic [QpnW-1:0]          scan_qpn_i,
  output logic                     clean_o,
  output logic                     drop_o,
  output logic                     xread_o,
  input  logic                     xread_ok_i,
  output logic                     dir_inval_o,
  output logic [DirIdxW-1:0]       dir_inval_idx_o,
  output logic                     mapped_any_o,
  output logic                     maint_rsp_valid_o,
  output logic [qpm_pkg::CtxTagW-1:0] maint_rsp_tag_o,
  output qpm_pkg::ctx_status_e     maint_rsp_status_o,
  // the miss registers' reads
  input  logic                     rd_req_valid_i,
  output logic                     rd_req_ready_o,
  input  logic [MemIdW-1:0]        rd_req_id_i,
  input  logic [63:0]              rd_req_addr_i,
  input  logic                     rd_req_line_i,
  // the memory port (qpm_axi_master)
  output logic                     mem_rd_valid_o,
  output logic                     mem_wr_valid_o,
  input  logic                     mem_rd_ready_i,
  input  logic                     mem_wr_ready_i,
  output logic [MemIdW-1:0]        mem_rd_id_o,
  output logic [MemIdW-1:0]        mem_wr_id_o,
  output logic [63:0]              mem_rd_addr_o,
  output logic [63:0]              mem_wr_addr_o,
  output logic                     mem_rd_line_o,
  output logic                     mem_wr_line_o,
  output logic [511:0]             mem_wr_wdata_o,
  input  logic                     mem_rsp_valid_i,
  input  logic                     mem_rsp_write_i,
  input  logic [MemIdW-1:0]        mem_rsp_id_i,
  input  logic                     mem_rsp_error_i,
  input  logic [63:0]              mem_rsp_word_i,
  // a write-back was written (OKAY): the WRITEBACKS counter
  output logic                     cnt_writeback_o
);

  if (PageBits != 6) begin : gen_bad_page_bits
    $error("PageBits must be 6: a directory page is one 4 KiB host page of 64-byte QPCs");
  end

  logic rsp_maint, rsp_wb, wb_sync_pend, sync_start, mark_victims;
  assign rsp_maint       = mem_rsp_valid_i
                        && mem_rsp_id_i == (mem_rsp_write_i ? MaintWrId : MaintRdId);
  assign rsp_wb          = mem_rsp_valid_i && mem_rsp_write_i && 32'(mem_rsp_id_i) < WbDepth;
  assign cnt_writeback_o = rsp_wb && !mem_rsp_error_i;

  logic              wb_req_valid, wb_req_ready, x_req_valid, x_req_ready, x_req_write;
  logic [MemIdW-1:0] wb_req_id;
  logic [63:0]       wb_req_addr, x_req_addr, x_req_wdata;
  logic [511:0]      wb_req_wdata;

  qpm_wb_buffer #(
    .Depth    (WbDepth),
    .MemIdW   (MemIdW),
    .PageBits (PageBits)
  ) u_wb (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .retry_budget_i  (wb_retry_budget_i),
    .free_any_o      (wb_free_any_o),
    .free_cnt_o      (wb_free_cnt_o),
    .alloc_i         (wb_alloc_i),
    .alloc_qpn_i     (wb_alloc_qpn_i),
    // the engine waits for its own read-outs, and for the victims it marks
    .alloc_sync_i    (wb_alloc_maint_i || (wb_alloc_i && mark_victims)),
    .alloc_swap_i    (wb_alloc_swap_i),
    .alloc_idx_o     (wb_alloc_idx_o),
    .load_i          (wb_load_i),
    .load_idx_i      (wb_load_idx_i),
    .load_page_i     (wb_load_page_i),
    .load_data_i     (wb_load_data_i),
    .mem_req_valid_o (wb_req_valid),
    .mem_req_ready_i (wb_req_ready),
    .mem_req_id_o    (wb_req_id),
    .mem_req_addr_o  (wb_req_addr),
    .mem_req_wdata_o (wb_req_wdata),
    .mem_rsp_valid_i (rsp_wb),
    .mem_rsp_idx_i   (mem_rsp_id_i[WbW-1:0]),
    .mem_rsp_error_i (mem_rsp_error_i),
    .sync_start_i    (sync_start),
    .sync_pend_o     (wb_sync_pend),
    .pend_o          (wb_pend_o),
    .pend_qpn_o      (wb_pend_qpn_o),
    .ann_qpn_o       (wb_ann_qpn_o),
    .mark_req_o      (wb_mark_req_o),
    .mark_take_i     (wb_mark_take_i),
    .drop_i          (wb_drop_i),
    .drop_qpn_i      (wb_drop_qpn_i),
    .gu_o            (wb_gu_o),
    .retl_o          (wb_retl_o),
    .watched_i       (wb_watched_i),
    .room_miss_i     (wb_room_miss_i),
    .ret_want_i      (wb_ret_want_i),
    .ret_qpn_i       (wb_ret_qpn_i),
    .ret_staged_o    (wb_ret_staged_o),
    .ret_data_o      (wb_ret_data_o),
    .ret_keep_o      (wb_ret_keep_o),
    .ret_take_i      (wb_ret_take_i),
    .cnt_given_up_o  (cnt_given_up_o)
  );

  // A given-up entry of the page MAP/UNMAP works on: memory does not hold that context.
  logic page_wfault;
  always_comb begin
    page_wfault = 1'b0;
    for (int unsigned e = 0; e < WbDepth; e++) begin
      if (wb_gu_o[e] && DirIdxW'(wb_pend_qpn_o[e*QpnW +: QpnW] >> PageBits) == maint_lock_idx_o)
        page_wfault = 1'b1;
    end
  end

  qpm_cache_maint #(
    .Lines    (Lines),
    .PageBits (PageBits),
    .DirIdxW  (DirIdxW),
    .Mshrs    (Mshrs)
  ) u_maint (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .qpt_base_i      (qpt_base_i),
    .start_i         (maint_start_i),
    .start_req_i     (maint_start_req_i),
    .busy_o          (maint_busy_o),
    .lock_o          (maint_lock_o),
    .lock_idx_o      (maint_lock_idx_o),
    .rsp_ready_i     (maint_rsp_ready_i),
    .sync_start_o    (sync_start),
    .mark_victims_o  (mark_victims),
    .victim_out_i    (victim_out_i),
    .wbread_i        (wbread_i),
    .wbread_idx_i    (wbread_idx_i),
    .scan_line_o     (scan_line_o),
    .drop_hold_i     (drop_hold_i),
    .scan_want_o     (scan_want_o),
    .scan_ok_i       (scan_ok_i),
    .scan_valid_i    (scan_valid_i),
    .scan_dirty_i    (scan_dirty_i),
    .scan_qpn_i      (scan_qpn_i),
    .clean_o         (clean_o),
    .drop_o          (drop_o),
    .xread_o         (xread_o),
    .xread_ok_i      (xread_ok_i),
    .sync_pend_i     (wb_sync_pend),
    .page_wfault_i   (page_wfault),
    .mem_req_valid_o (x_req_valid),
    .mem_req_ready_i (x_req_ready),
    .mem_req_write_o (x_req_write),
    .mem_req_addr_o  (x_req_addr),
    .mem_req_wdata_o (x_req_wdata),
    .mem_rsp_valid_i (rsp_maint),
    .mem_rsp_write_i (mem_rsp_write_i),
    .mem_rsp_error_i (mem_rsp_error_i),
    .mem_rsp_word_i  (mem_rsp_word_i),
    .dir_inval_o     (dir_inval_o),
    .dir_inval_idx_o (dir_inval_idx_o),
    .mapped_any_o    (mapped_any_o),
    .rsp_valid_o     (maint_rsp_valid_o),
    .rsp_tag_o       (maint_rsp_tag_o),
    .rsp_status_o    (maint_rsp_status_o)
  );

  qpm_mem_arbiter #(
    .MemIdW  (MemIdW),
    .MaintRdId (MaintRdId),
    .MaintWrId (MaintWrId)
  ) u_mem_arb (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .wb_valid_i      (wb_req_valid),
    .wb_ready_o      (wb_req_ready),
    .wb_id_i         (wb_req_id),
    .wb_addr_i       (wb_req_addr),
    .wb_wdata_i      (wb_req_wdata),
    .rd_valid_i      (rd_req_valid_i),
    .rd_ready_o      (rd_req_ready_o),
    .rd_id_i         (rd_req_id_i),
    .rd_addr_i       (rd_req_addr_i),
    .rd_line_i       (rd_req_line_i),
    .x_valid_i       (x_req_valid),
    .x_ready_o       (x_req_ready),
    .x_write_i       (x_req_write),
    .x_addr_i        (x_req_addr),
    .x_wdata_i       (x_req_wdata),
    .mem_rd_valid_o (mem_rd_valid_o),
    .mem_wr_valid_o (mem_wr_valid_o),
    .mem_rd_ready_i (mem_rd_ready_i),
    .mem_wr_ready_i (mem_wr_ready_i),
    .mem_rd_id_o    (mem_rd_id_o),
    .mem_wr_id_o    (mem_wr_id_o),
    .mem_rd_addr_o  (mem_rd_addr_o),
    .mem_wr_addr_o  (mem_wr_addr_o),
    .mem_rd_line_o  (mem_rd_line_o),
    .mem_wr_line_o  (mem_wr_line_o),
    .mem_wr_wdata_o (mem_wr_wdata_o)
  );

endmodule
