// qpm_cache_data_side: the QP cache's pipeline over the QPC RAM (qpm_qpc_pipe) and its
// memory side, the write-back buffer, maintenance engine and memory arbiter
// (qpm_cache_mem_side) (docs/qp-cache.md). Wiring only; the lookup and the misses are
// qpm_cache_miss_side, both under qpm_qpc_cache.
`include "qpm_assert.svh"

module qpm_cache_data_side #(
  parameter int unsigned Sets       = 64,
  parameter int unsigned Ways       = 4,
  parameter int unsigned Mshrs      = 8,
  parameter int unsigned PageBits   = 6,
  parameter int unsigned DirEntries = 1 << 18,
  parameter int unsigned WbDepth    = 2,
  parameter int unsigned MemIdW     = 4,
  parameter int unsigned ReqW       = 1,          // the width of a qpm_pkg::ctx_req_t (qpm_qpc_cache passes it)
  localparam int unsigned QpnW      = qpm_pkg::QpnW,
  localparam int unsigned WayW      = (Ways > 1) ? $clog2(Ways) : 1,
  localparam int unsigned Lines     = Sets * Ways,
  localparam int unsigned LineW     = $clog2(Lines),
  localparam int unsigned MshrW     = (Mshrs > 1) ? $clog2(Mshrs) : 1,
  localparam int unsigned WbW       = (WbDepth > 1) ? $clog2(WbDepth) : 1,
  localparam int unsigned DirIdxW   = (DirEntries > 1) ? $clog2(DirEntries) : 1
) (
  // Every other port is a wire of qpm_qpc_cache (the same name there, without the _i or
  // _o), or one of its own ports: inputs, then outputs, each in alphabetical order.
  // docs/qp-cache.md's block diagram says what runs between the blocks.
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                    drain_i,
  input  logic [57:0]             fill_addr_i,
  input  logic                    fill_fatal_i,
  input  logic                    fill_i,
  input  logic [LineW-1:0]        fill_line_i,
  input  logic [QpnW-1:0]         fill_qpn_i,
  input  logic                    fill_wfault_i,
  input  logic                    fill_notice_may_i,  // a superset of a notice fill now
  input  logic                    fill_may_i,         // ... of fill_i
  input  logic                    wbread_may_i,       // ... of wbread_i
  input  logic [qpm_pkg::QpnW-1:0] lock_qpn_i,
  input  logic                    lock_valid_i,
  input  logic                    look_hit_i,
  input  logic [LineW-1:0]        look_line_i,
  input  logic                    look_pinned_i,
  input  logic [WayW:0]           look_pinned_in_set_i,
  input  logic                    pin_pend_i,       // a pin bit waits to be written ...
  input  logic [LineW-1:0]        pin_line_i,       // ... on this line (qpm_line_write)
  input  logic                    m_filling_i,
  input  logic                    m_free_any_i,
  input  logic [MshrW-1:0]        m_free_idx_i,
  input  logic                    m_free_two_i,
  input  logic [MshrW-1:0]        m_idx_i,
  input  logic                    m_on_i,
  input  logic                    m_page_busy_i,
  input  logic [Mshrs-1:0]        m_victim_out_i,
  input  logic                    mark_valid_i,
  input  logic                    mem_rd_ready_i,
  input  logic                    mem_wr_ready_i,
  input  logic                    mem_rsp_error_i,
  input  logic [MemIdW-1:0]       mem_rsp_id_i,
  input  logic [511:0]            mem_rsp_rdata_i,
  input  logic                    mem_rsp_valid_i,
  input  logic                    mem_rsp_write_i,
  input  logic                    park_free_any_i,
  input  qpm_pkg::ctx_req_t       port_req_i,
  input  logic                    port_valid_i,
  input  logic                    port_retry_i,    // a deferred request again
  input  logic                    hold_order_i,    // older requests of its QPN deferred
  input  logic                    hold_miss_i,     // older requests deferred
  input  logic [31:0]             qpn_limit_i,
  input  logic [63:0]             qpt_base_i,
  input  logic [63:0]             rd_req_addr_i,
  input  logic [MemIdW-1:0]       rd_req_id_i,
  input  logic                    rd_req_line_i,
  input  logic                    rd_req_valid_i,
  input  logic                    replay_fatal_i,
  input  qpm_pkg::ctx_status_e    replay_status_i,
  input  qpm_pkg::ctx_req_t       req_pipe_i,
  input  logic                    reserve_i,
  input  logic [QpnW-1:0]         ret_qpn_i,
  input  logic                    ret_take_i,
  input  logic                    ret_want_i,
  input  logic                    scan_dirty_i,
  input  logic                    scan_ok_i,
  input  logic [QpnW-1:0]         scan_qpn_i,
  input  logic                    scan_valid_i,
  input  logic [ReqW-1:0]         stage_req_i,
  input  logic                    stage_valid_i,
  input  logic                    vict_take_i,
  input  logic                    vict_take_ok_i,
  input  logic [7:0]              wb_retry_budget_i,
  input  logic                    wb_swap_i,
  input  logic [WbDepth-1:0]      wb_watched_i,
  input  logic                    wbread_i,
  input  logic [MshrW-1:0]        wbread_idx_i,
  input  logic [LineW-1:0]        wbread_line_i,
  input  logic [QpnW-1:0]         wbread_qpn_i,
  input  logic                    xread_room_i,
  output logic                    alloc_o,
  output logic [QpnW-1:0]         ann_qpn_o,
  output logic                    cnt_given_up_o,
  output logic                    cnt_hit_o,
  output logic                    cnt_merged_o,
  output logic                    cnt_miss_o,
  output logic                    cnt_refused_o,
  output logic                    cnt_wait_o,
  output logic                    cnt_writeback_o,
  output logic                    deq_o,
  output logic [DirIdxW-1:0]      dir_inval_idx_o,
  output logic                    dir_inval_o,
  output logic                    dirty_o,
  output logic                    dirty_p1_o,
  output logic                    excl_o,
  output logic                    excl_p1_o,
  output logic [QpnW-1:0]         look_qpn_o,
  output logic                    mapped_any_o,
  output logic                    mark_req_o,
  output logic                    mem_fatal_o,
  output logic [qpm_pkg::QpnW-1:0] mem_fatal_qpn_o,
  output logic                    mem_fatal_write_o,
  output logic [63:0]             mem_rd_addr_o,
  output logic [63:0]             mem_wr_addr_o,
  output logic [MemIdW-1:0]       mem_rd_id_o,
  output logic [MemIdW-1:0]       mem_wr_id_o,
  output logic                    mem_rd_line_o,
  output logic                    mem_wr_line_o,
  output logic                    mem_rd_valid_o,
  output logic                    mem_wr_valid_o,
  output logic [511:0]            mem_wr_wdata_o,
  output logic [LineW-1:0]        p1_line_o,
  output logic [MshrW-1:0]        park_idx_o,
  output logic                    park_o,
  output logic                    pin_o,
  output logic                    pin_value_o,
  output logic                    port_ready_o,
  output logic                    port_defer_o,    // P0 defers the port's request
  output logic                    rd_req_ready_o,
  output logic                    ret_staged_o,
  output qpm_pkg::ctx_rsp_t       rsp_o,
  output logic                    rsp_valid_o,
  output logic [LineW-1:0]        scan_line_o,
  output logic                    scan_want_o,
  output logic                    take_o,
  output logic                    touch_o,
  output logic [WbW-1:0]          wb_alloc_idx_o,
  output logic                    wb_drop_o,
  output logic [WbW:0]            wb_free_cnt_o,
  output logic [WbDepth-1:0]      wb_gu_o,
  output logic [WbDepth-1:0]      wb_retl_o,
  output logic [WbDepth-1:0]      wb_pend_o,
  output logic [WbDepth*QpnW-1:0] wb_pend_qpn_o,
  output logic                    wbread_ok_o,
  output logic                    x_clean_o,
  output logic                    x_drop_o,
  output logic [DirIdxW-1:0]      x_lock_idx_o,
  output logic                    x_lock_o
`ifdef FORMAL
  ,
  output logic                    wb_load_o,
  output logic [51:0]             wb_load_page_o,
  output logic [511:0]            wb_load_data_o,
  output logic                    xread_ok_o
`endif
);

  // Read IDs 0 .. Mshrs-1 are the miss registers', write IDs 0 .. WbDepth-1 the
  // write-back buffer's entries; the maintenance engine reads and writes with the next.
  localparam logic [MemIdW-1:0] MaintRdId = MemIdW'(Mshrs), MaintWrId = MemIdW'(WbDepth);

  // ---- Signals between the blocks
  logic mark_take;
  logic [511:0] ret_data;
  logic ret_keep;
  logic wb_alloc;
  logic wb_alloc_maint;
  logic [QpnW-1:0] wb_alloc_qpn;
  logic [QpnW-1:0] wb_drop_qpn;
  logic wb_free_any;
  logic wb_load;
  logic [51:0] wb_load_page;
  logic [511:0] wb_load_data;
  logic [WbW-1:0] wb_load_idx;
  logic x_busy, pin_wait, drop_hold;
  // A maintenance drop (a line write B) waits while a pin bit waits on the scan line's way
  // or a fill writes it (a line write A, qpm_line_write), and in a miss register's
  // decision cycle (its take is the other write B; the take does not wait on the drop, so
  // no path runs from the fill through the drop into the take). A PIN waits while a pin
  // bit of its set does (the set's pinned bits it reads are not written yet).
  assign drop_hold = (pin_pend_i && pin_line_i[WayW-1:0] == scan_line_o[WayW-1:0])
                  || (fill_i && fill_line_i[WayW-1:0] == scan_line_o[WayW-1:0]) || vict_take_i;
  assign pin_wait  = pin_pend_i && pin_line_i[LineW-1:WayW] == look_line_i[LineW-1:WayW];
  qpm_pkg::ctx_status_e x_rsp_status;
  logic [qpm_pkg::CtxTagW-1:0] x_rsp_tag;
  logic x_rsp_valid;
  logic x_start;
  logic xread;
  logic xread_ok;

  qpm_cache_mem_side #(
    .Lines    (Lines),
    .PageBits (PageBits),
    .DirIdxW  (DirIdxW),
    .WbDepth  (WbDepth),
    .Mshrs    (Mshrs),
    .MemIdW   (MemIdW),
    .MaintRdId (MaintRdId),
    .MaintWrId (MaintWrId)
  ) u_mem_side (
    .clk_i              (clk_i),
    .rst_ni             (rst_ni),
    .qpt_base_i         (qpt_base_i),
    .wb_free_any_o      (wb_free_any),
    .wb_free_cnt_o      (wb_free_cnt_o),
    .wb_alloc_i         (wb_alloc),
    .wb_alloc_qpn_i     (wb_alloc_qpn),
    .wb_alloc_maint_i   (wb_alloc_maint),
    .wb_alloc_idx_o     (wb_alloc_idx_o),
    .wb_retry_budget_i  (wb_retry_budget_i),
    .wb_alloc_swap_i    (wb_swap_i),
    .wb_ann_qpn_o       (ann_qpn_o),
    .wb_mark_req_o      (mark_req_o),
    .wb_mark_take_i     (mark_take),
    .wb_drop_i          (wb_drop_o),
    .wb_drop_qpn_i      (wb_drop_qpn),
    .wb_gu_o            (wb_gu_o),
    .wb_retl_o          (wb_retl_o),
    .wb_watched_i       (wb_watched_i),
    .wb_room_miss_i     ((vict_take_i && vict_take_ok_i && !reserve_i) || (xread && !xread_ok)),
    .wb_ret_want_i      (ret_want_i),
    .wb_ret_qpn_i       (ret_qpn_i),
    .wb_ret_staged_o    (ret_staged_o),
    .wb_ret_data_o      (ret_data),
    .wb_ret_keep_o      (ret_keep),
    .wb_ret_take_i      (ret_take_i),
    .cnt_given_up_o     (cnt_given_up_o),
    .wb_load_i          (wb_load),
    .wb_load_idx_i      (wb_load_idx),
    .wb_load_page_i     (wb_load_page),
    .wb_load_data_i     (wb_load_data),
    .wb_pend_o          (wb_pend_o),
    .wb_pend_qpn_o      (wb_pend_qpn_o),
    .maint_start_i      (x_start),
    .maint_start_req_i  (req_pipe_i),
    .maint_busy_o       (x_busy),
    .maint_lock_o       (x_lock_o),
    .maint_lock_idx_o   (x_lock_idx_o),
    .maint_rsp_ready_i  (!fill_notice_may_i),   // a notice fill may take the answer slot
    .victim_out_i       (m_victim_out_i),
    .wbread_i           (wbread_i),
    .wbread_idx_i       (wbread_idx_i),
    .scan_line_o        (scan_line_o),
    .drop_hold_i        (drop_hold),
    .scan_want_o        (scan_want_o),
    .scan_ok_i          (scan_ok_i),
    .scan_valid_i       (scan_valid_i),
    .scan_dirty_i       (scan_dirty_i),
    .scan_qpn_i         (scan_qpn_i),
    .clean_o            (x_clean_o),
    .drop_o             (x_drop_o),
    .xread_o            (xread),
    .xread_ok_i         (xread_ok),
    .dir_inval_o        (dir_inval_o),
    .dir_inval_idx_o    (dir_inval_idx_o),
    .mapped_any_o       (mapped_any_o),
    .maint_rsp_valid_o  (x_rsp_valid),
    .maint_rsp_tag_o    (x_rsp_tag),
    .maint_rsp_status_o (x_rsp_status),
    .rd_req_valid_i     (rd_req_valid_i),
    .rd_req_ready_o     (rd_req_ready_o),
    .rd_req_id_i        (rd_req_id_i),
    .rd_req_addr_i      (rd_req_addr_i),
    .rd_req_line_i      (rd_req_line_i),
    .mem_rd_valid_o    (mem_rd_valid_o),
    .mem_wr_valid_o    (mem_wr_valid_o),
    .mem_rd_ready_i    (mem_rd_ready_i),
    .mem_wr_ready_i    (mem_wr_ready_i),
    .mem_rd_id_o       (mem_rd_id_o),
    .mem_wr_id_o       (mem_wr_id_o),
    .mem_rd_addr_o     (mem_rd_addr_o),
    .mem_wr_addr_o     (mem_wr_addr_o),
    .mem_rd_line_o     (mem_rd_line_o),
    .mem_wr_line_o     (mem_wr_line_o),
    .mem_wr_wdata_o    (mem_wr_wdata_o),
    .mem_rsp_valid_i    (mem_rsp_valid_i),
    .mem_rsp_write_i    (mem_rsp_write_i),
    .mem_rsp_id_i       (mem_rsp_id_i),
    .mem_rsp_error_i    (mem_rsp_error_i),
    .mem_rsp_word_i     (mem_rsp_rdata_i[63:0]),
    .cnt_writeback_o    (cnt_writeback_o)
  );

  qpm_qpc_pipe #(
    .Sets    (Sets),
    .Ways    (Ways),
    .Mshrs   (Mshrs),
    .WbDepth (WbDepth)
  ) u_pipe (
    .clk_i                (clk_i),
    .rst_ni               (rst_ni),
    .qpn_limit_i          (qpn_limit_i),
    .req_valid_i          (port_valid_i),
    .drain_i              (drain_i),
    .req_ready_o          (port_ready_o),
    .req_i                (port_req_i),
    .req_retry_i          (port_retry_i),
    .hold_order_i         (hold_order_i),
    .hold_miss_i          (hold_miss_i),
    .defer_o              (port_defer_o),
    .rsp_valid_o          (rsp_valid_o),
    .rsp_o                (rsp_o),
    .look_qpn_o           (look_qpn_o),
    .look_hit_i           (look_hit_i),
    .look_line_i          (look_line_i),
    .look_pinned_i        (look_pinned_i),
    .look_pinned_in_set_i (look_pinned_in_set_i),
    .touch_o              (touch_o),
    .dirty_o              (dirty_o),
    .pin_o                (pin_o),
    .pin_value_o          (pin_value_o),
    .excl_o               (excl_o),
    .dirty_p1_o           (dirty_p1_o),
    .excl_p1_o            (excl_p1_o),
    .p1_line_o            (p1_line_o),
    .m_on_i               (m_on_i),
    .m_filling_i          (m_filling_i),
    .m_idx_i              (m_idx_i),
    .m_free_any_i         (m_free_any_i),
    // with a retry budget, one miss register is kept for a write-fault mark's take_o-back
    // (docs/qp-cache.md section 20): a port miss needs two free
    .m_free_spare_i       (wb_retry_budget_i == '0 ? m_free_any_i : m_free_two_i),
    .m_free_idx_i         (m_free_idx_i),
    .m_page_busy_i        (m_page_busy_i),
    .park_o               (park_o),
    .alloc_o              (alloc_o),
    .park_idx_o           (park_idx_o),
    .deq_o                (deq_o),
    .replay_status_i      (replay_status_i),
    .replay_fatal_i       (replay_fatal_i),
    .park_free_any_i      (park_free_any_i),
    .stage_valid_i        (stage_valid_i),
    .stage_req_i          (stage_req_i),
    .take_o               (take_o),
    .fill_i               (fill_i),
    .fill_line_i          (fill_line_i),
    .fill_addr_i          (fill_addr_i),
    .fill_data_i          (ret_take_i ? ret_data : mem_rsp_rdata_i),
    .fill_qpn_i           (fill_qpn_i),
    .fill_fatal_i         (fill_fatal_i),
    .fill_wfault_i        (fill_wfault_i),
    .fill_notice_may_i    (fill_notice_may_i),
    .fill_may_i           (fill_may_i),
    .wbread_may_i         (wbread_may_i),
    .fill_wkeep_i         (ret_keep && !wb_swap_i),
    .mem_fatal_write_o    (mem_fatal_write_o),
    // no mark of a page under MAP/UNMAP: its lines must not turn dirty_o behind the scan
    .mark_valid_i         (mark_valid_i),
    .lock_valid_i         (lock_valid_i),
    .lock_qpn_i           (lock_qpn_i),
    .mark_qpn_i           (ann_qpn_o),
    .mark_take_o          (mark_take),
    .drop_o               (wb_drop_o),
    .drop_qpn_o           (wb_drop_qpn),
    .mem_fatal_o          (mem_fatal_o),
    .mem_fatal_qpn_o      (mem_fatal_qpn_o),
    .wb_free_any_i        (wb_free_any),
    .xread_room_i         (xread_room_i),
    .wb_alloc_idx_i       (wb_alloc_idx_o),
    .wbread_ok_o          (wbread_ok_o),
    .wbread_i             (wbread_i),
    .wbread_line_i        (wbread_line_i),
    .wbread_qpn_i         (wbread_qpn_i),
    .xread_i              (xread),
    .xread_ok_o           (xread_ok),
    .xread_line_i         (scan_line_o),
    .xread_qpn_i          (scan_qpn_i),
    .wb_alloc_o           (wb_alloc),
    .wb_alloc_qpn_o       (wb_alloc_qpn),
    .wb_alloc_maint_o     (wb_alloc_maint),
    .wb_load_o            (wb_load),
    .wb_load_idx_o        (wb_load_idx),
    .wb_load_page_o       (wb_load_page),
    .wb_load_data_o       (wb_load_data),
    .maint_busy_i         (x_busy),
    .pin_wait_i           (pin_wait),
    .maint_start_o        (x_start),
    .maint_rsp_valid_i    (x_rsp_valid),
    .maint_rsp_tag_i      (x_rsp_tag),
    .maint_rsp_status_i   (x_rsp_status),
    .cnt_hit_o            (cnt_hit_o),
    .cnt_miss_o           (cnt_miss_o),
    .cnt_merged_o         (cnt_merged_o),
    .cnt_refused_o        (cnt_refused_o),
    .cnt_wait_o           (cnt_wait_o)
  );

  // A command handed to maintenance allocates no miss register in that cycle (one action
  // per cycle in P0): qpm_mshr_match's wb_watched_o, read by a SYNC's first-cycle re-arm,
  // relies on it.
  `QPM_ASSERT(MaintStartNoAlloc_A, !(x_start && alloc_o))

`ifdef FORMAL
  // for the cache's cross-block proofs (formal/qpm_qpc_cache_cross.svh)
  assign wb_load_o = wb_load;
  assign wb_load_page_o = wb_load_page;
  assign wb_load_data_o = wb_load_data;
  assign xread_ok_o = xread_ok;
`endif

endmodule
