// qpm_cache_miss_side: the QP cache's lookup and misses (docs/qp-cache.md): the request
// port whose entries carry their set's tags, with the requests P0 deferred
// (qpm_parking_port), the tag side with the line state, the one copy of the tags and the
// victim choice (qpm_cache_tags), the miss registers (qpm_mshr_file) and the requests
// parked on them (qpm_park_pool). Wiring only; the
// pipe and the memory side are qpm_cache_data_side, both under qpm_qpc_cache.
module qpm_cache_miss_side #(
  parameter int unsigned Sets       = 64,
  parameter int unsigned Ways       = 4,
  parameter int unsigned Mshrs      = 8,
  parameter int unsigned PageBits   = 6,
  parameter int unsigned DirEntries = 1 << 18,
  parameter int unsigned ParkDepth  = 2 * Mshrs,
  parameter int unsigned DeferDepth = Mshrs + 2,  // deferred requests, and the port's two
  parameter int unsigned WbDepth    = 2,
  parameter int unsigned DirCacheEntries = 1024,
  parameter int unsigned MemIdW     = 4,
  parameter int unsigned ReqW       = 1,          // the width of a qpm_pkg::ctx_req_t (qpm_qpc_cache passes it)
  localparam int unsigned QpnW      = qpm_pkg::QpnW,
  localparam int unsigned SetW      = (Sets > 1) ? $clog2(Sets) : 1,
  localparam int unsigned WayW      = (Ways > 1) ? $clog2(Ways) : 1,
  localparam int unsigned Lines     = Sets * Ways,
  localparam int unsigned LineW     = $clog2(Lines),
  localparam int unsigned TagW      = QpnW - SetW,
  localparam int unsigned EntW      = TagW + 2,
  localparam int unsigned LwW       = 2 * (SetW + WayW) + EntW + 6,
  localparam int unsigned MshrW     = (Mshrs > 1) ? $clog2(Mshrs) : 1,
  localparam int unsigned SeqW      = ((ParkDepth > 1) ? $clog2(ParkDepth) : 1) + 1,
  localparam int unsigned WbW       = (WbDepth > 1) ? $clog2(WbDepth) : 1,
  localparam int unsigned DirIdxW   = (DirEntries > 1) ? $clog2(DirEntries) : 1,
  localparam int unsigned WayWidth  = WayW,
  localparam int unsigned TrapReqW  = 4 + SetW + Ways * (QpnW + 4)
) (
  // Every other port is a wire of qpm_qpc_cache (the same name there, without the _i or
  // _o), or one of its own ports: inputs, then outputs, each in alphabetical order.
  // docs/qp-cache.md's block diagram says what runs between the blocks.
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                    alloc_i,
  input  logic [QpnW-1:0]         ann_qpn_i,
  input  logic                    deq_i,
  input  logic                    dir_inval_i,
  input  logic [DirIdxW-1:0]      dir_inval_idx_i,
  input  logic                    dirty_i,
  input  logic                    dirty_p1_i,
  input  logic [1:0]              evict_policy_i,
  input  logic                    excl_i,
  input  logic                    excl_p1_i,
  input  logic                    look_check_i,
  input  logic [QpnW-1:0]         look_qpn_i,
  input  logic                    mark_req_i,
  input  logic                    mark_valid_i,
  input  logic                    mem_rsp_error_i,
  input  logic [MshrW-1:0]        mem_rsp_idx_i,   // the ID of a miss register's read
  input  logic [63:0]             mem_rsp_word_i,  // a directory entry
  input  logic [LineW-1:0]        p1_line_i,
  input  logic                    park_i,
  input  logic [MshrW-1:0]        park_idx_i,
  input  logic                    pin_i,
  input  logic                    pin_value_i,
  output logic                    pin_pend_o,      // a pin bit waits to be written ...
  output logic [LineW-1:0]        pin_line_o,      // ... on this line (qpm_line_write)
  input  logic                    port_ready_i,
  input  logic                    defer_i,         // P0 defers the port's request
  input  logic [63:0]             qpt_base_i,
  input  logic                    rd_req_ready_i,
  input  qpm_pkg::ctx_req_t       req_i,
  input  qpm_pkg::ctx_req_t       req_pipe_i,
  input  logic                    req_valid_i,
  input  logic                    ret_staged_i,
  input  logic                    rsp_mshr_i,
  input  logic [LineW-1:0]        scan_line_i,
  input  logic                    scan_want_i,
  input  logic                    take_i,
  input  logic                    touch_i,
  input  logic                    trap_req_ready_i,
  input  logic [3:0]              trap_rsp_tag_i,
  input  logic                    trap_rsp_valid_i,
  input  logic [WayWidth-1:0]     trap_rsp_way_i,
  input  logic [15:0]             trap_timeout_i,
  input  logic [WbW-1:0]          wb_alloc_idx_i,
  input  logic                    wb_drop_i,
  input  logic [WbW:0]            wb_free_cnt_i,
  input  logic [WbDepth-1:0]      wb_gu_i,
  input  logic [WbDepth-1:0]      wb_retl_i,
  input  logic [WbDepth-1:0]      wb_pend_i,
  input  logic [WbDepth*QpnW-1:0] wb_pend_qpn_i,
  input  logic                    wbread_ok_i,
  input  logic                    x_clean_i,
  input  logic                    x_drop_i,
  input  logic                    x_lock_i,
  input  logic [DirIdxW-1:0]      x_lock_idx_i,
  output logic                    cnt_dir_hit_o,
  output logic                    cnt_eviction_o,
  output logic                    cnt_unmapped_o,
  output logic                    cnt_victim_wait_o,
  output logic                    cnt_walk_o,
  output logic                    drain_o,
  output logic [57:0]             fill_addr_o,
  output logic                    fill_fatal_o,
  output logic [LineW-1:0]        fill_line_o,
  output logic                    fill_o,
  output logic [QpnW-1:0]         fill_qpn_o,
  output logic                    fill_wfault_o,
  output logic                    fill_notice_may_o,  // a notice fill may come this cycle
  output logic                    fill_may_o,         // a fill may come this cycle
  output logic                    wbread_may_o,       // a register's read-out may
  output logic                    look_hit_o,
  output logic [LineW-1:0]        look_line_o,
  output logic [WayW:0]           look_pinned_in_set_o,
  output logic                    look_pinned_o,
  output logic                    m_filling_o,
  output logic                    m_free_any_o,
  output logic [MshrW-1:0]        m_free_idx_o,
  output logic                    m_free_two_o,
  output logic [MshrW-1:0]        m_idx_o,
  output logic                    m_on_o,
  output logic                    m_page_busy_o,
  output logic [Mshrs-1:0]        m_victim_out_o,
  output logic                    mark_ok_o,
  output logic                    park_free_any_o,
  output qpm_pkg::ctx_req_t       port_req_o,
  output logic                    port_valid_o,
  output logic                    port_retry_o,    // ... which is a deferred one again
  output logic                    hold_order_o,    // ... whose QPN has older ones deferred
  output logic                    hold_miss_o,     // ... behind older deferred ones
  output logic [63:0]             rd_req_addr_o,
  output logic [MemIdW-1:0]       rd_req_id_o,
  output logic                    rd_req_line_o,
  output logic                    rd_req_valid_o,
  output logic                    replay_fatal_o,
  output qpm_pkg::ctx_status_e    replay_status_o,
  output logic                    req_ready_o,
  output logic                    reserve_o,
  output logic [QpnW-1:0]         ret_qpn_o,
  output logic                    ret_take_o,
  output logic                    ret_want_o,
  output logic                    scan_dirty_o,
  output logic                    scan_ok_o,
  output logic [QpnW-1:0]         scan_qpn_o,
  output logic                    scan_valid_o,
  output logic [ReqW-1:0]         stage_req_o,
  output logic                    stage_valid_o,
  output logic [4:0]              trap_cnt_o,
  output logic [TrapReqW-1:0]     trap_req_o,
  output logic                    trap_req_valid_o,
  output logic                    vict_take_o,
  output logic                    vict_take_ok_o,
  output logic                    wb_swap_o,
  output logic [WbDepth-1:0]      wb_watched_o,
  output logic [MshrW-1:0]        wbread_idx_o,
  output logic [LineW-1:0]        wbread_line_o,
  output logic                    wbread_o,
  output logic [QpnW-1:0]         wbread_qpn_o,
  output logic                    xread_room_o
`ifdef FORMAL
  ,
  output logic [Lines-1:0]        f_owned_o,
  output logic [Lines-1:0]        f_unfilled_o,
  output logic [LineW-1:0]        reserve_line_o
`endif
);

  // ---- Signals between the blocks
`ifdef FORMAL
  logic [Lines-1:0] f_owned, f_unfilled;
`endif
  logic [Mshrs*SeqW-1:0] deq_seq;
  logic [Mshrs-1:0]      line_empty;
  logic [SeqW-1:0] park_seq;
  logic [Ways*EntW-1:0] port_tags, port_ram_word;
  logic                 port_ram_re, port_ram_fresh;
  logic [SetW-1:0]      port_ram_set;
  logic [LwW-1:0] lw;
  logic lw_hold;
  logic pool_stage_valid, replay_ok, replay_word;
  qpm_pkg::ctx_req_t pool_stage_req;
  logic [WayW-1:0] replay_way;
  logic [Mshrs-1:0] replaying;
  logic [LineW-1:0] reserve_line;
  logic [MshrW-1:0] stage_mshr;
  logic vict_dirty;
  logic vict_found;
  logic [MshrW-1:0] vict_mshr;
  logic vict_owed;
  logic pin_write, pin_write_value;
  logic [Ways-1:0] vict_reserved;
  logic [SetW-1:0] vict_set;
  logic vict_step;
  logic [Ways*TagW-1:0] vict_tags;
  logic [SetW-1:0] vict_take_set;
  logic vict_valid;
  logic [WayW-1:0] vict_way;

  // ---- The blocks
  // The writes to the tags and line bits in RAM, and their reset sweep (qpm_line_write)
  qpm_line_write #(
    .Sets (Sets),
    .Ways (Ways)
  ) u_line_write (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .fill_i         (fill_o),
    .fill_line_i    (fill_line_o),
    .fill_tag_i     (fill_qpn_o[QpnW-1:SetW]),
    .pin_i          (pin_i),
    .pin_value_i    (pin_value_i),
    .look_hit_i     (look_hit_o),
    .look_line_i    (look_line_o),
    .reserve_i      (reserve_o),
    .reserve_line_i (reserve_line),
    .drop_i         (x_drop_i),
    .drop_line_i    (scan_line_i),
    .hold_o         (lw_hold),
    .pin_pend_o     (pin_pend_o),
    .pin_line_o     (pin_line_o),
    .pin_write_o    (pin_write),
    .pin_value_o    (pin_write_value),
    .lw_o           (lw)
  );

  // The request port: a spill register whose entries carry their set's tags, and the
  // requests P0 deferred (qpm_parking_port)
  qpm_parking_port #(
    .Sets       (Sets),
    .Ways       (Ways),
    .Mshrs      (Mshrs),
    .DeferDepth (DeferDepth)
  ) u_port (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .in_valid_i   (req_valid_i),
    .in_ready_o   (req_ready_o),
    .in_req_i     (req_i),
    .out_valid_o  (port_valid_o),
    .out_ready_i  (port_ready_i),
    .out_req_o    (port_req_o),
    .out_tags_o   (port_tags),
    .out_retry_o  (port_retry_o),
    .hold_order_o (hold_order_o),
    .hold_miss_o  (hold_miss_o),
    .defer_i      (defer_i),
    .replaying_i  (replaying),
    .take_i       (take_i),
    .hold_i       (lw_hold),
    .lw_i         (lw),
    .ram_re_o     (port_ram_re),
    .ram_set_o    (port_ram_set),
    .ram_fresh_i  (port_ram_fresh),
    .ram_word_i   (port_ram_word)
  );

  qpm_cache_tags #(
    .Sets  (Sets),
    .Ways  (Ways),
    .Mshrs (Mshrs)
  ) u_tags (
    .clk_i                (clk_i),
    .rst_ni               (rst_ni),
    .policy_i             (evict_policy_i),
    .trap_timeout_i       (trap_timeout_i),
    .look_qpn_i           (look_qpn_i),
    .look_port_tags_i     (port_tags),
    .port_re_i            (port_ram_re),
    .port_set_i           (port_ram_set),
    .port_fresh_o         (port_ram_fresh),
    .port_word_o          (port_ram_word),
    .look_replay_i        (stage_valid_o),
    .look_replay_way_i    (replay_way),
    .look_replay_word_i   (replay_word),
    .look_mark_i          (!stage_valid_o && mark_valid_i),
    .replay_want_i        (pool_stage_valid && replay_word),
    .replay_set_i         (pool_stage_req.index[SetW-1:0]),
    .replay_ok_o          (replay_ok),
    .replay_take_i        (take_i),
    .lw_i                 (lw),
    .look_check_i         (look_check_i),
    .look_hit_o           (look_hit_o),
    .look_line_o          (look_line_o),
    .look_pinned_o        (look_pinned_o),
    .look_pinned_in_set_o (look_pinned_in_set_o),
    .vict_step_i          (vict_step),
    .vict_set_i           (vict_set),
    .vict_take_i          (vict_take_o),
    .vict_mshr_i          (vict_mshr),
    .vict_take_set_i      (vict_take_set),
    .vict_reserved_i      (vict_reserved),
    .vict_found_o         (vict_found),
    .vict_way_o           (vict_way),
    .vict_take_ok_o       (vict_take_ok_o),
    .vict_valid_o         (vict_valid),
    .vict_dirty_o         (vict_dirty),
    .vict_tags_o          (vict_tags),
    .vict_owed_o          (vict_owed),
    .drain_o              (drain_o),
    .scan_want_i          (scan_want_i),
    .scan_ok_o            (scan_ok_o),
    .scan_line_i          (scan_line_i),
    .scan_valid_o         (scan_valid_o),
    .scan_dirty_o         (scan_dirty_o),
    .scan_qpn_o           (scan_qpn_o),
    .mark_valid_i         (mark_req_i),
    .mark_qpn_i           (ann_qpn_i),
    .mark_ok_o            (mark_ok_o),
    .touch_i              (touch_i),
    .dirty_i              (dirty_i),
    .pin_i                (pin_write),
    .pin_value_i          (pin_write_value),
    .pin_pend_i           (pin_pend_o),
    .pin_line_i           (pin_line_o),
    .excl_i               (excl_i),
    .dirty_p1_i           (dirty_p1_i),
    .excl_p1_i            (excl_p1_i),
    .p1_line_i            (p1_line_i),
    .hold_p1_i            (wb_drop_i),
    .reserve_i            (reserve_o),
    .reserve_line_i       (reserve_line),
    .fill_i               (fill_o),
    .fill_line_i          (fill_line_o),
    .fill_tag_i           (fill_qpn_o[QpnW-1:SetW]),
    .fill_hold_i          (fill_wfault_o),
    .clean_i              (x_clean_i),
    .drop_i               (x_drop_i),
    .trap_req_valid_o     (trap_req_valid_o),
    .trap_req_ready_i     (trap_req_ready_i),
    .trap_req_o           (trap_req_o),
    .trap_rsp_valid_i     (trap_rsp_valid_i),
    .trap_rsp_tag_i       (trap_rsp_tag_i),
    .trap_rsp_way_i       (trap_rsp_way_i),
    .trap_cnt_o           (trap_cnt_o)
  );

  qpm_mshr_file #(
    .Sets     (Sets),
    .Ways     (Ways),
    .Mshrs    (Mshrs),
    .SeqW     (SeqW),
    .PageBits (PageBits),
    .DirIdxW  (DirIdxW),
    .WbDepth  (WbDepth),
    .DirCacheEntries (DirCacheEntries),
    .MemIdW   (MemIdW)
  ) u_mshrs (
    .clk_i             (clk_i),
    .rst_ni            (rst_ni),
    .qpt_base_i        (qpt_base_i),
    .look_qpn_i        (look_qpn_i),
    .look_on_o         (m_on_o),
    .look_filling_o    (m_filling_o),
    .look_idx_o        (m_idx_o),
    .free_any_o        (m_free_any_o),
    .free_two_o        (m_free_two_o),
    .free_idx_o        (m_free_idx_o),
    .page_busy_o       (m_page_busy_o),
    .lock_i            (x_lock_i),
    .lock_idx_i        (x_lock_idx_i),
    .park_i            (park_i),
    .alloc_i           (alloc_i),
    .park_idx_i        (park_idx_i),
    .alloc_qpn_i       (look_qpn_i),
    .park_seq_o        (park_seq),
    .deq_i             (deq_i),
    .deq_idx_i         (stage_mshr),
    .replaying_o       (replaying),
    .deq_seq_o         (deq_seq),
    .line_empty_o      (line_empty),
    .status_idx_i      (stage_mshr),
    .status_o          (replay_status_o),
    .status_fatal_o    (replay_fatal_o),
    .status_way_o      (replay_way),
    .vict_step_o       (vict_step),
    .vict_set_o        (vict_set),
    .vict_take_o       (vict_take_o),
    .vict_mshr_o       (vict_mshr),
    .vict_take_set_o   (vict_take_set),
    .vict_reserved_o   (vict_reserved),
    .vict_found_i      (vict_found),
    .vict_way_i        (vict_way),
    .vict_take_ok_i    (vict_take_ok_o),
    .vict_valid_i      (vict_valid),
    .vict_dirty_i      (vict_dirty),
    .vict_tags_i       (vict_tags),
    .vict_owed_i       (vict_owed),
    .reserve_o         (reserve_o),
    .reserve_line_o    (reserve_line),
    .wbread_ok_i       (wbread_ok_i),
    .wb_free_cnt_i     (wb_free_cnt_i),
    .xread_room_o      (xread_room_o),
    .wbread_o          (wbread_o),
    .wbread_line_o     (wbread_line_o),
    .wbread_qpn_o      (wbread_qpn_o),
    .wbread_idx_o      (wbread_idx_o),
    .victim_out_o      (m_victim_out_o),
    .wb_pend_i         (wb_pend_i),
    .wb_pend_qpn_i     (wb_pend_qpn_i),
    .dir_inval_i       (dir_inval_i),
    .dir_inval_idx_i   (dir_inval_idx_i),
    .mem_req_valid_o   (rd_req_valid_o),
    .mem_req_ready_i   (rd_req_ready_i),
    .mem_req_id_o      (rd_req_id_o),
    .mem_req_addr_o    (rd_req_addr_o),
    .mem_req_line_o    (rd_req_line_o),
    .mem_rsp_valid_i   (rsp_mshr_i),
    .mem_rsp_idx_i     (mem_rsp_idx_i),
    .mem_rsp_error_i   (mem_rsp_error_i),
    .mem_rsp_word_i    (mem_rsp_word_i),
    .fill_o            (fill_o),
    .fill_line_o       (fill_line_o),
    .fill_qpn_o        (fill_qpn_o),
    .fill_addr_o       (fill_addr_o),
    .fill_fatal_o      (fill_fatal_o),
    .fill_wfault_o     (fill_wfault_o),
    .fill_notice_may_o (fill_notice_may_o),
    .fill_may_o        (fill_may_o),
    .wbread_may_o      (wbread_may_o),
    .wb_gu_i           (wb_gu_i),
    .wb_retl_i         (wb_retl_i),
    .wb_watched_o      (wb_watched_o),
    .ret_want_o        (ret_want_o),
    .ret_qpn_o         (ret_qpn_o),
    .ret_ok_i          (ret_staged_i && !rsp_mshr_i),
    .ret_take_o        (ret_take_o),
    .swap_o            (wb_swap_o),
    .wbread_wb_idx_i   (wb_alloc_idx_i),
    .cnt_eviction_o    (cnt_eviction_o),
    .cnt_walk_o        (cnt_walk_o),
    .cnt_dir_hit_o     (cnt_dir_hit_o),
    .cnt_unmapped_o    (cnt_unmapped_o),
    .cnt_victim_wait_o (cnt_victim_wait_o)
`ifdef FORMAL
    ,
    .f_owned_o         (f_owned),
    .f_unfilled_o      (f_unfilled)
`endif
  );

  qpm_park_pool #(
    .Depth (ParkDepth),
    .Mshrs (Mshrs),
    .SeqW  (SeqW),
    .ReqW  (ReqW)
  ) u_park (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .free_any_o    (park_free_any_o),
    .park_i        (park_i),
    .park_req_i    (req_pipe_i),
    .park_mshr_i   (park_idx_i),
    .park_seq_i    (park_seq),
    .replaying_i   (replaying),
    .deq_seq_i     (deq_seq),
    .line_empty_i  (line_empty),
    .stage_valid_o (pool_stage_valid),
    .stage_req_o   (pool_stage_req),
    .stage_mshr_o  (stage_mshr),
    .take_i        (take_i)
  );
  // When the staged replay enters the pipe.
  qpm_replay_gate u_replay_gate (
    .pool_valid_i  (pool_stage_valid),
    .pool_op_i     (pool_stage_req.op),
    .word_ok_i     (replay_ok),
    .word_want_o   (replay_word),
    .stage_valid_o (stage_valid_o),
    .fill_may_i    (rsp_mshr_i),   // a superset of the memory fills, from the master's
                                   // response register (a take-back's is not in it)
    .wbread_may_i  (wbread_may_o)
  );
  assign stage_req_o   = pool_stage_req;

`ifdef FORMAL
  // for the cache's cross-block proofs (formal/qpm_qpc_cache_cross.svh)
  assign f_owned_o = f_owned;
  assign f_unfilled_o = f_unfilled;
  assign reserve_line_o = reserve_line;
`endif

endmodule
