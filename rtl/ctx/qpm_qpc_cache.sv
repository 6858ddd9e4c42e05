// qpm_qpc_cache: the on-chip QP-context cache (SPEC.md §3.2, §3.3, §9, §11). This module
// only connects its blocks; docs/qp-cache.md explains the design.
//
//   requests -> qpm_qpc_pipe -hit-> QPC RAM (1 read + 1 write port) -> response
//     miss, or a QPN whose miss is under way: parked (qpm_park_pool), replayed after the fill
//   qpm_mshr_file: directory (qpm_dir_table, else read) -> victim (qpm_cache_tags) -> dirty
//     victim read out into the write-back buffer -> QPC read -> fill
//   qpm_cache_mem_side: the write-back buffer, the maintenance engine (SYNC_CACHE,
//     MAP/UNMAP_PAGE) and the arbiter of the memory ports (reads, writes)
//
// Set-associative, write-back, Sets x Ways lines. Misses do not block: the pipe serves
// hits while up to Mshrs fills are outstanding, and a request to a QPN whose fill is
// under way is parked on that fill (a merge) so responses to one QPN stay in order.
module qpm_qpc_cache #(
  parameter int unsigned Sets       = 64,
  parameter int unsigned Ways       = 4,
  parameter int unsigned Mshrs      = 8,
  parameter int unsigned PageBits   = 6,
  parameter int unsigned DirEntries = 1 << 18,  // 2**24 QPNs in pages of 64
  parameter int unsigned ParkDepth  = 2 * Mshrs,  // requests waiting on fills
  parameter int unsigned WbDepth    = 2,          // write-back buffer entries
  parameter int unsigned DirCacheEntries = 1024,  // the walker's directory cache
  parameter int unsigned MemIdW     = 4,
  localparam int unsigned DirIdxW   = (DirEntries > 1) ? $clog2(DirEntries) : 1,
  localparam int unsigned WayWidth  = (Ways > 1) ? $clog2(Ways) : 1,
  localparam int unsigned TrapReqW  = 4 + ((Sets > 1) ? $clog2(Sets) : 1)
                                    + Ways * (qpm_pkg::QpnW + 4)
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  // configuration (CSRs)
  input  logic [63:0]           qpt_base_i,
  input  logic [31:0]           qpn_limit_i,
  input  logic [1:0]            evict_policy_i,   // qpm_pkg::Evict* (docs/eviction.md)
  input  logic [15:0]           trap_timeout_i,   // cycles a trap question may wait
  // the eviction-trap port (qpm_evict_trap), and its counters: questions, timeouts,
  // answers rejected, answers dropped, cycles with a question open
  output logic                  trap_req_valid_o,
  input  logic                  trap_req_ready_i,
  output logic [TrapReqW-1:0]   trap_req_o,
  input  logic                  trap_rsp_valid_i,
  input  logic [3:0]            trap_rsp_tag_i,
  input  logic [WayWidth-1:0]   trap_rsp_way_i,
  output logic [4:0]            trap_cnt_o,
  // QPC-access requests and responses
  input  logic                  req_valid_i,
  output logic                  req_ready_o,
  input  qpm_pkg::ctx_req_t     req_i,
  output logic                  rsp_valid_o,
  output qpm_pkg::ctx_rsp_t     rsp_o,
  // a fill made its QP fatal (a read of its QPC failed first; never beside rsp_valid_o),
  // or (mem_fatal_write_o) a write-back of its QPC was given up (docs/errors.md)
  output logic                  mem_fatal_o,
  output logic [qpm_pkg::QpnW-1:0] mem_fatal_qpn_o,
  output logic                  mem_fatal_write_o,
  // write faults: tries of a write-back before it is given up (WB_RETRY_BUDGET, 0:
  // never), one pulse per entry given up (WB_GIVEN_UP), and the command unit's lock
  input  logic [7:0]            wb_retry_budget_i,
  output logic                  cnt_given_up_o,
  output logic                  cnt_take_back_o,   // a miss took its QPC from the buffer
  input  logic                  lock_valid_i,
  input  logic [qpm_pkg::QpnW-1:0] lock_qpn_i,
  // memory requests to qpm_axi_master (the IDs: MaintRdId, MaintWrId below)
  output logic                  mem_rd_valid_o,
  output logic                  mem_wr_valid_o,
  input  logic                  mem_rd_ready_i,
  input  logic                  mem_wr_ready_i,
  output logic [MemIdW-1:0]     mem_rd_id_o,
  output logic [MemIdW-1:0]     mem_wr_id_o,
  output logic [63:0]           mem_rd_addr_o,
  output logic [63:0]           mem_wr_addr_o,
  output logic                  mem_rd_line_o,
  output logic                  mem_wr_line_o,
  output logic [511:0]          mem_wr_wdata_o,
  input  logic                  mem_rsp_valid_i,
  input  logic                  mem_rsp_write_i,
  input  logic [MemIdW-1:0]     mem_rsp_id_i,
  input  logic                  mem_rsp_error_i,
  input  logic [511:0]          mem_rsp_rdata_i,
  // one pulse per event, qpm_pkg::Cnt* order
  output logic [qpm_pipe_pkg::NumCounters-1:0] count_o,
  // some directory entry is mapped (QPT_BASE and QPN_LIMIT are then read-only)
  output logic                  mapped_any_o
);

  localparam int unsigned QpnW   = qpm_pkg::QpnW;
  localparam int unsigned SetW   = (Sets > 1) ? $clog2(Sets) : 1;
  localparam int unsigned WayW   = (Ways > 1) ? $clog2(Ways) : 1;
  localparam int unsigned Lines  = Sets * Ways;
  localparam int unsigned LineW  = $clog2(Lines);
  localparam int unsigned MshrW  = (Mshrs > 1) ? $clog2(Mshrs) : 1;
  localparam int unsigned WbW    = (WbDepth > 1) ? $clog2(WbDepth) : 1;
  localparam int unsigned ReqW   = $bits(req_i);

  if (Sets < 2 || (1 << SetW) != Sets) begin : gen_bad_sets
    $error("Sets must be a power of two, at least 2");
  end
  if (((Mshrs > WbDepth) ? Mshrs : WbDepth) + 1 > (1 << MemIdW)) begin : gen_bad_ids
    $error("MemIdW too narrow for max(Mshrs, WbDepth) + 1 IDs");
  end

  // ---- Signals between the blocks
  // tag side (qpm_cache_tags)
  logic [QpnW-1:0]  look_qpn;
  logic             look_hit, look_pinned;
  logic [LineW-1:0] look_line;
  logic [WayW:0]    look_pinned_in_set;
  logic             vict_take, vict_take_ok;
  logic             scan_want, scan_ok, mark_ok, look_check;
  logic             port_valid, port_ready, port_retry, port_defer, hold_order, hold_miss;
  qpm_pkg::ctx_req_t port_req;
  logic             scan_valid, scan_dirty, reserve, drain;
  logic [QpnW-1:0]  scan_qpn;
  logic             touch, dirty, pin, pin_value, excl, dirty_p1, excl_p1, pin_pend;
  logic [LineW-1:0] pin_line;
  logic [LineW-1:0] p1_line, scan_line;
  // miss registers
  logic             m_on, m_filling, m_free_any, m_free_two, m_page_busy, xread_room;
  logic [WbW:0]     wb_free_cnt;
  logic [MshrW-1:0] m_idx, m_free_idx;
  logic             park, alloc, deq;
  logic [MshrW-1:0] park_idx;
  qpm_pkg::ctx_status_e  replay_status;
  logic                  replay_fatal;
  logic             wbread_ok, wbread, fill, fill_fatal;
  logic [MshrW-1:0] wbread_idx;
  logic [Mshrs-1:0] m_victim_out;
  logic [LineW-1:0] wbread_line, fill_line;
  logic [QpnW-1:0]  wbread_qpn, fill_qpn;
  logic [57:0]      fill_addr;
  logic             rd_req_valid, rd_req_ready, rd_req_line;
  logic [MemIdW-1:0] rd_req_id;
  logic [63:0]      rd_req_addr;
  // park pool
  logic             park_free_any, stage_valid, take;
  logic [ReqW-1:0]  stage_req;
  // memory side (qpm_cache_mem_side): write-back buffer, maintenance engine
  logic [WbW-1:0]   wb_alloc_idx;
  logic [WbDepth-1:0]      wb_pend;
  logic [WbDepth*QpnW-1:0] wb_pend_qpn;
  // write faults: the announced given-up entry, its mark, its take-back (section 20)
  logic             mark_valid, mark_req, wb_drop, ret_want, ret_staged, ret_take;
  logic             wb_swap, fill_wfault, fill_notice_may, fill_may, wbread_may;
  logic [QpnW-1:0]  ann_qpn;
  logic [WbDepth-1:0] wb_gu, wb_retl, wb_watched;
  logic [QpnW-1:0]  ret_qpn;
  logic             x_lock, x_clean, x_drop;
  logic               dir_inval;
  logic [DirIdxW-1:0] dir_inval_idx, x_lock_idx;
  // read responses of the miss registers (write responses: qpm_cache_mem_side)
  logic rsp_mshr;
  assign rsp_mshr = mem_rsp_valid_i && !mem_rsp_write_i && 32'(mem_rsp_id_i) < Mshrs;
  // counters
  logic cnt_hit, cnt_miss, cnt_merged, cnt_refused, cnt_wait, cnt_writeback;
  logic cnt_eviction, cnt_walk, cnt_dir_hit, cnt_unmapped, cnt_victim_wait;
`ifdef FORMAL
  // for the proofs (formal/cache.toml): lines miss registers own, not yet filled, and
  // signals inside the two sides that the cross-block properties read
  logic [Lines-1:0]   f_owned, f_unfilled;
  logic [LineW-1:0]   reserve_line;
  logic               wb_load, xread_ok;
  logic [51:0]        wb_load_page;
  logic [511:0]       wb_load_data;
`endif

  // ---- The lookup and the misses (request port, tags, miss registers, park pool)
  qpm_cache_miss_side #(
    .Sets       (Sets),
    .Ways       (Ways),
    .Mshrs      (Mshrs),
    .PageBits   (PageBits),
    .DirEntries (DirEntries),
    .ParkDepth  (ParkDepth),
    .WbDepth    (WbDepth),
    .DirCacheEntries (DirCacheEntries),
    .MemIdW     (MemIdW),
    .ReqW       (ReqW)
  ) u_miss (
    .clk_i (clk_i),
    .rst_ni (rst_ni),
    .alloc_i (alloc),
    .ann_qpn_i (ann_qpn),
    .deq_i (deq),
    .dir_inval_i (dir_inval),
    .dir_inval_idx_i (dir_inval_idx),
    .dirty_i (dirty),
    .dirty_p1_i (dirty_p1),
    .evict_policy_i (evict_policy_i),
    .excl_i (excl),
    .excl_p1_i (excl_p1),
    .look_check_i (look_check),
    .look_qpn_i (look_qpn),
    .mark_req_i (mark_req),
    .mark_valid_i (mark_valid),
    .mem_rsp_error_i (mem_rsp_error_i),
    .mem_rsp_idx_i (mem_rsp_id_i[MshrW-1:0]),
    .mem_rsp_word_i (mem_rsp_rdata_i[63:0]),
    .p1_line_i (p1_line),
    .park_i (park),
    .park_idx_i (park_idx),
    .pin_i (pin),
    .pin_value_i (pin_value),
    .port_ready_i (port_ready),
    .defer_i (port_defer),
    .qpt_base_i (qpt_base_i),
    .rd_req_ready_i (rd_req_ready),
    .req_i (req_i),
    .req_pipe_i (req_pipe),
    .req_valid_i (req_valid_i),
    .ret_staged_i (ret_staged),
    .rsp_mshr_i (rsp_mshr),
    .scan_line_i (scan_line),
    .scan_want_i (scan_want),
    .take_i (take),
    .touch_i (touch),
    .trap_req_ready_i (trap_req_ready_i),
    .trap_rsp_tag_i (trap_rsp_tag_i),
    .trap_rsp_valid_i (trap_rsp_valid_i),
    .trap_rsp_way_i (trap_rsp_way_i),
    .trap_timeout_i (trap_timeout_i),
    .wb_alloc_idx_i (wb_alloc_idx),
    .wb_drop_i (wb_drop),
    .wb_free_cnt_i (wb_free_cnt),
    .wb_gu_i (wb_gu),
    .wb_retl_i (wb_retl),
    .wb_pend_i (wb_pend),
    .wb_pend_qpn_i (wb_pend_qpn),
    .wbread_ok_i (wbread_ok),
    .x_clean_i (x_clean),
    .x_drop_i (x_drop),
    .x_lock_i (x_lock),
    .x_lock_idx_i (x_lock_idx),
    .cnt_dir_hit_o (cnt_dir_hit),
    .cnt_eviction_o (cnt_eviction),
    .cnt_unmapped_o (cnt_unmapped),
    .cnt_victim_wait_o (cnt_victim_wait),
    .cnt_walk_o (cnt_walk),
    .drain_o (drain),
    .fill_addr_o (fill_addr),
    .fill_fatal_o (fill_fatal),
    .fill_line_o (fill_line),
    .fill_o (fill),
    .fill_qpn_o (fill_qpn),
    .fill_wfault_o (fill_wfault),
    .fill_notice_may_o (fill_notice_may),
    .fill_may_o (fill_may),
    .wbread_may_o (wbread_may),
    .look_hit_o (look_hit),
    .look_line_o (look_line),
    .look_pinned_in_set_o (look_pinned_in_set),
    .pin_pend_o (pin_pend),
    .pin_line_o (pin_line),
    .look_pinned_o (look_pinned),
    .m_filling_o (m_filling),
    .m_free_any_o (m_free_any),
    .m_free_idx_o (m_free_idx),
    .m_free_two_o (m_free_two),
    .m_idx_o (m_idx),
    .m_on_o (m_on),
    .m_page_busy_o (m_page_busy),
    .m_victim_out_o (m_victim_out),
    .mark_ok_o (mark_ok),
    .park_free_any_o (park_free_any),
    .port_req_o (port_req),
    .port_valid_o (port_valid),
    .port_retry_o (port_retry),
    .hold_order_o (hold_order),
    .hold_miss_o (hold_miss),
    .rd_req_addr_o (rd_req_addr),
    .rd_req_id_o (rd_req_id),
    .rd_req_line_o (rd_req_line),
    .rd_req_valid_o (rd_req_valid),
    .replay_fatal_o (replay_fatal),
    .replay_status_o (replay_status),
    .req_ready_o (req_ready_o),
    .reserve_o (reserve),
    .ret_qpn_o (ret_qpn),
    .ret_take_o (ret_take),
    .ret_want_o (ret_want),
    .scan_dirty_o (scan_dirty),
    .scan_ok_o (scan_ok),
    .scan_qpn_o (scan_qpn),
    .scan_valid_o (scan_valid),
    .stage_req_o (stage_req),
    .stage_valid_o (stage_valid),
    .trap_cnt_o (trap_cnt_o),
    .trap_req_o (trap_req_o),
    .trap_req_valid_o (trap_req_valid_o),
    .vict_take_o (vict_take),
    .vict_take_ok_o (vict_take_ok),
    .wb_swap_o (wb_swap),
    .wb_watched_o (wb_watched),
    .wbread_idx_o (wbread_idx),
    .wbread_line_o (wbread_line),
    .wbread_o (wbread),
    .wbread_qpn_o (wbread_qpn),
    .xread_room_o (xread_room)
`ifdef FORMAL
    ,
    .f_owned_o (f_owned),
    .f_unfilled_o (f_unfilled),
    .reserve_line_o (reserve_line)
`endif
  );

  // The pipe decides with a lookup when it has a request, unless a failed replay answers.
  assign look_check = stage_valid ? replay_status == qpm_pkg::CtxOk
                                  : mark_valid || (port_valid && !drain);

  // A mark goes to the pipe once its tags are at hand (qpm_tag_views), and not for a page
  // under MAP/UNMAP: its lines must not turn dirty behind the scan.
  qpm_mark_gate #(.PageBits(PageBits), .DirIdxW(DirIdxW)) u_mark_gate (
    .clk_i (clk_i), .rst_ni (rst_ni), .mark_req_i (mark_req), .mark_qpn_i (ann_qpn),
    .mark_ok_i (mark_ok), .lock_i (x_lock), .lock_idx_i (x_lock_idx),
    .mark_valid_o (mark_valid));

  // The request in the pipe is what gets parked.
  qpm_pkg::ctx_req_t req_pipe;
  assign req_pipe = stage_valid ? stage_req : port_req;

  // ---- The pipeline and the memory side
  qpm_cache_data_side #(
    .Sets       (Sets),
    .Ways       (Ways),
    .Mshrs      (Mshrs),
    .PageBits   (PageBits),
    .DirEntries (DirEntries),
    .WbDepth    (WbDepth),
    .MemIdW     (MemIdW),
    .ReqW       (ReqW)
  ) u_data (
    .clk_i (clk_i),
    .rst_ni (rst_ni),
    .drain_i (drain),
    .fill_addr_i (fill_addr),
    .fill_fatal_i (fill_fatal),
    .fill_i (fill),
    .fill_line_i (fill_line),
    .fill_qpn_i (fill_qpn),
    .fill_wfault_i (fill_wfault),
    .fill_notice_may_i (fill_notice_may),
    .fill_may_i (fill_may),
    .wbread_may_i (wbread_may),
    .lock_qpn_i (lock_qpn_i),
    .lock_valid_i (lock_valid_i),
    .look_hit_i (look_hit),
    .look_line_i (look_line),
    .look_pinned_i (look_pinned),
    .look_pinned_in_set_i (look_pinned_in_set),
    .pin_pend_i (pin_pend),
    .pin_line_i (pin_line),
    .m_filling_i (m_filling),
    .m_free_any_i (m_free_any),
    .m_free_idx_i (m_free_idx),
    .m_free_two_i (m_free_two),
    .m_idx_i (m_idx),
    .m_on_i (m_on),
    .m_page_busy_i (m_page_busy),
    .m_victim_out_i (m_victim_out),
    .mark_valid_i (mark_valid),
    .mem_rd_ready_i (mem_rd_ready_i),
    .mem_wr_ready_i (mem_wr_ready_i),
    .mem_rsp_error_i (mem_rsp_error_i),
    .mem_rsp_id_i (mem_rsp_id_i),
    .mem_rsp_rdata_i (mem_rsp_rdata_i),
    .mem_rsp_valid_i (mem_rsp_valid_i),
    .mem_rsp_write_i (mem_rsp_write_i),
    .park_free_any_i (park_free_any),
    .port_req_i (port_req),
    .port_valid_i (port_valid),
    .port_retry_i (port_retry),
    .hold_order_i (hold_order),
    .hold_miss_i (hold_miss),
    .qpn_limit_i (qpn_limit_i),
    .qpt_base_i (qpt_base_i),
    .rd_req_addr_i (rd_req_addr),
    .rd_req_id_i (rd_req_id),
    .rd_req_line_i (rd_req_line),
    .rd_req_valid_i (rd_req_valid),
    .replay_fatal_i (replay_fatal),
    .replay_status_i (replay_status),
    .req_pipe_i (req_pipe),
    .reserve_i (reserve),
    .ret_qpn_i (ret_qpn),
    .ret_take_i (ret_take),
    .ret_want_i (ret_want),
    .scan_dirty_i (scan_dirty),
    .scan_ok_i (scan_ok),
    .scan_qpn_i (scan_qpn),
    .scan_valid_i (scan_valid),
    .stage_req_i (stage_req),
    .stage_valid_i (stage_valid),
    .vict_take_i (vict_take),
    .vict_take_ok_i (vict_take_ok),
    .wb_retry_budget_i (wb_retry_budget_i),
    .wb_swap_i (wb_swap),
    .wb_watched_i (wb_watched),
    .wbread_i (wbread),
    .wbread_idx_i (wbread_idx),
    .wbread_line_i (wbread_line),
    .wbread_qpn_i (wbread_qpn),
    .xread_room_i (xread_room),
    .alloc_o (alloc),
    .ann_qpn_o (ann_qpn),
    .cnt_given_up_o (cnt_given_up_o),
    .cnt_hit_o (cnt_hit),
    .cnt_merged_o (cnt_merged),
    .cnt_miss_o (cnt_miss),
    .cnt_refused_o (cnt_refused),
    .cnt_wait_o (cnt_wait),
    .cnt_writeback_o (cnt_writeback),
    .deq_o (deq),
    .dir_inval_idx_o (dir_inval_idx),
    .dir_inval_o (dir_inval),
    .dirty_o (dirty),
    .dirty_p1_o (dirty_p1),
    .excl_o (excl),
    .excl_p1_o (excl_p1),
    .look_qpn_o (look_qpn),
    .mapped_any_o (mapped_any_o),
    .mark_req_o (mark_req),
    .mem_fatal_o (mem_fatal_o),
    .mem_fatal_qpn_o (mem_fatal_qpn_o),
    .mem_fatal_write_o (mem_fatal_write_o),
    .mem_rd_addr_o (mem_rd_addr_o),
    .mem_wr_addr_o (mem_wr_addr_o),
    .mem_rd_id_o (mem_rd_id_o),
    .mem_wr_id_o (mem_wr_id_o),
    .mem_rd_line_o (mem_rd_line_o),
    .mem_wr_line_o (mem_wr_line_o),
    .mem_rd_valid_o (mem_rd_valid_o),
    .mem_wr_valid_o (mem_wr_valid_o),
    .mem_wr_wdata_o (mem_wr_wdata_o),
    .p1_line_o (p1_line),
    .park_idx_o (park_idx),
    .park_o (park),
    .pin_o (pin),
    .pin_value_o (pin_value),
    .port_ready_o (port_ready),
    .port_defer_o (port_defer),
    .rd_req_ready_o (rd_req_ready),
    .ret_staged_o (ret_staged),
    .rsp_o (rsp_o),
    .rsp_valid_o (rsp_valid_o),
    .scan_line_o (scan_line),
    .scan_want_o (scan_want),
    .take_o (take),
    .touch_o (touch),
    .wb_alloc_idx_o (wb_alloc_idx),
    .wb_drop_o (wb_drop),
    .wb_free_cnt_o (wb_free_cnt),
    .wb_gu_o (wb_gu),
    .wb_retl_o (wb_retl),
    .wb_pend_o (wb_pend),
    .wb_pend_qpn_o (wb_pend_qpn),
    .wbread_ok_o (wbread_ok),
    .x_clean_o (x_clean),
    .x_drop_o (x_drop),
    .x_lock_idx_o (x_lock_idx),
    .x_lock_o (x_lock)
`ifdef FORMAL
    ,
    .wb_load_o (wb_load),
    .wb_load_page_o (wb_load_page),
    .wb_load_data_o (wb_load_data),
    .xread_ok_o (xread_ok)
`endif
  );

  // ---- Event counters, registered (docs/qp-table.md says what each counts)
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      count_o         <= '0;
      cnt_take_back_o <= 1'b0;
    end else begin
      cnt_take_back_o <= ret_take;   // TAKE_BACKS (docs/qp-cache.md section 22)
      count_o <= '0;
      count_o[qpm_pipe_pkg::CntHits]       <= cnt_hit;
      count_o[qpm_pipe_pkg::CntMisses]     <= cnt_miss;
      count_o[qpm_pipe_pkg::CntMerged]     <= cnt_merged;
      count_o[qpm_pipe_pkg::CntEvictions]  <= cnt_eviction;
      count_o[qpm_pipe_pkg::CntWritebacks] <= cnt_writeback;
      count_o[qpm_pipe_pkg::CntWalks]      <= cnt_walk;
      count_o[qpm_pipe_pkg::CntDirHits]    <= cnt_dir_hit;
      count_o[qpm_pipe_pkg::CntRefused]    <= cnt_refused || cnt_unmapped;
      count_o[qpm_pipe_pkg::CntMemErrors]  <= mem_rsp_valid_i && mem_rsp_error_i;
      count_o[qpm_pipe_pkg::CntMissWaits]  <= cnt_wait || cnt_victim_wait;
      count_o[qpm_pipe_pkg::CntWbRetries]  <= mem_rsp_valid_i && mem_rsp_write_i && mem_rsp_error_i;
    end
  end

`ifdef FORMAL
  // The proofs' properties across the blocks (formal/cache.toml, docs/formal.md).
  `include "qpm_qpc_cache_cross.svh"
`endif

endmodule
