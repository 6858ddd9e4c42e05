// qpm_qpc_cache: the on-chip QP-context cache (SPEC.md §3.2, §3.3, §9, §11). This module
// only connects its blocks; docs/qp-cache.md explains the design.
//
//   requests ──► qpm_qpc_pipe ──hit──► QPC RAM (1 read + 1 write port) ──► response
//                   │ miss / same QPN as a miss under way            ▲ fill
//                   ▼                                                │
//                qpm_park_pool ◄── replay when the fill is done      │
//                   │                                                │
//                qpm_mshr_file: directory (qpm_dir_table, else read) -> victim (qpm_cache_tags)
//                   -> dirty victim read out into the write-back buffer -> QPC read -> fill
//                qpm_cache_mem_side: the write-back buffer, the maintenance engine
//                   (SYNC_CACHE, MAP/UNMAP_PAGE) and the memory request arbiter
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
  input  logic                  lock_valid_i,
  input  logic [qpm_pkg::QpnW-1:0] lock_qpn_i,
  // memory requests to qpm_axi_master (the IDs: MaintRdId, MaintWrId below)
  output logic                  mem_req_valid_o,
  input  logic                  mem_req_ready_i,
  output logic                  mem_req_write_o,
  output logic [MemIdW-1:0]     mem_req_id_o,
  output logic [63:0]           mem_req_addr_o,
  output logic                  mem_req_line_o,
  output logic [511:0]          mem_req_wdata_o,
  input  logic                  mem_rsp_valid_i,
  input  logic                  mem_rsp_write_i,
  input  logic [MemIdW-1:0]     mem_rsp_id_i,
  input  logic                  mem_rsp_error_i,
  input  logic [511:0]          mem_rsp_rdata_i,
  // one pulse per event, qpm_pkg::Cnt* order
  output logic [qpm_pkg::NumCounters-1:0] count_o,
  // some directory entry is mapped (QPT_BASE and QPN_LIMIT are then read-only)
  output logic                  mapped_any_o
);

  localparam int unsigned QpnW   = qpm_pkg::QpnW;
  localparam int unsigned SetW   = (Sets > 1) ? $clog2(Sets) : 1;
  localparam int unsigned WayW   = (Ways > 1) ? $clog2(Ways) : 1;
  localparam int unsigned Lines  = Sets * Ways;
  localparam int unsigned LineW  = $clog2(Lines);
  localparam int unsigned TagW   = QpnW - SetW;
  localparam int unsigned MshrW  = (Mshrs > 1) ? $clog2(Mshrs) : 1;
  localparam int unsigned SeqW   = ((ParkDepth > 1) ? $clog2(ParkDepth) : 1) + 1;
  localparam int unsigned WbW    = (WbDepth > 1) ? $clog2(WbDepth) : 1;
  localparam int unsigned ReqW   = $bits(req_i);
  // Read IDs 0 .. Mshrs-1 are the miss registers', write IDs 0 .. WbDepth-1 the
  // write-back buffer's entries; the maintenance engine reads and writes with the next.
  localparam logic [MemIdW-1:0] MaintRdId = MemIdW'(Mshrs), MaintWrId = MemIdW'(WbDepth);

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
  logic [SetW-1:0]  vict_set;
  logic             vict_step, vict_found, vict_valid, vict_dirty, vict_take, vict_take_ok;
  logic [Ways-1:0]  vict_reserved;
  logic [MshrW-1:0] vict_mshr;
  logic [WayW-1:0]  vict_way, vict_take_way;
  logic [Ways*TagW-1:0] vict_tags, port_tags;
  logic             vict_owed, scan_want, scan_ok, mark_ok, look_check;
  logic             port_valid, port_ready;
  qpm_pkg::ctx_req_t port_req;
  logic [WayW-1:0]  replay_way;
  logic             scan_valid, scan_dirty, reserve, drain;
  logic [QpnW-1:0]  scan_qpn;
  logic             touch, dirty, pin, pin_value, excl, dirty_p1, excl_p1;
  logic [LineW-1:0] p1_line, scan_line, reserve_line;
  // miss registers
  logic             m_on, m_filling, m_free_any, m_free_two, m_page_busy, xread_room;
  logic [WbW:0]     wb_free_cnt;
  logic [MshrW-1:0] m_idx, m_free_idx;
  logic             park, alloc, deq;
  logic [MshrW-1:0] park_idx;
  logic [SeqW-1:0]  park_seq;
  logic [Mshrs-1:0] replaying;
  logic [Mshrs*SeqW-1:0] deq_seq;
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
  logic [MshrW-1:0] stage_mshr;
  // memory side (qpm_cache_mem_side): write-back buffer, maintenance engine
  logic             wb_free_any, wb_alloc, wb_alloc_maint, wb_load;
  logic [QpnW-1:0]  wb_alloc_qpn;
  logic [WbW-1:0]   wb_alloc_idx, wb_load_idx;
  logic [57:0]      wb_load_addr;
  logic [511:0]     wb_load_data;
  logic [WbDepth-1:0]      wb_pend;
  logic [WbDepth*QpnW-1:0] wb_pend_qpn;
  // write faults: the announced given-up entry, its mark, its take-back (section 20)
  logic             mark_valid, mark_req, mark_take, wb_drop, ret_want, ret_staged, ret_take;
  logic             wb_swap, fill_wfault, ret_keep;
  logic [QpnW-1:0]  ann_qpn, wb_drop_qpn;
  logic [511:0]     ret_data;
  logic [WbDepth-1:0] wb_gu, wb_watched;
  logic [QpnW-1:0]  ret_qpn;
  logic             x_busy, x_lock, x_start, x_clean, x_drop, xread, xread_ok, x_rsp_valid;
  logic [qpm_pkg::CtxTagW-1:0] x_rsp_tag;
  qpm_pkg::ctx_status_e        x_rsp_status;
  logic               dir_inval;
  logic [DirIdxW-1:0] dir_inval_idx, x_lock_idx;
  // read responses of the miss registers (write responses: qpm_cache_mem_side)
  logic rsp_mshr;
  assign rsp_mshr = mem_rsp_valid_i && !mem_rsp_write_i && 32'(mem_rsp_id_i) < Mshrs;
  // counters
  logic cnt_hit, cnt_miss, cnt_merged, cnt_refused, cnt_wait, cnt_writeback;
  logic cnt_eviction, cnt_walk, cnt_dir_hit, cnt_unmapped, cnt_victim_wait;
`ifdef FORMAL
  // for the proofs (formal/cache.toml): lines miss registers own, not yet filled
  logic [Lines-1:0] f_owned, f_unfilled;
`endif

  // ---- The blocks
  // The request port: a spill register whose entries carry their set's tags (qpm_cache_port)
  qpm_cache_port #(
    .Sets (Sets),
    .Ways (Ways)
  ) u_port (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (req_valid_i),
    .in_ready_o  (req_ready_o),
    .in_req_i    (req_i),
    .out_valid_o (port_valid),
    .out_ready_i (port_ready),
    .out_req_o   (port_req),
    .out_tags_o  (port_tags),
    .fill_i      (fill),
    .fill_set_i  (fill_line[LineW-1 -: SetW]),
    .fill_way_i  (fill_line[WayW-1:0]),
    .fill_tag_i  (fill_qpn[QpnW-1:SetW])
  );

  // The pipe decides with a lookup when it has a request, unless a failed replay answers.
  assign look_check = stage_valid ? replay_status == qpm_pkg::CtxOk
                                  : mark_valid || (port_valid && !drain);

  qpm_cache_tags #(
    .Sets  (Sets),
    .Ways  (Ways),
    .Mshrs (Mshrs)
  ) u_tags (
    .clk_i                (clk_i),
    .rst_ni               (rst_ni),
    .policy_i             (evict_policy_i),
    .trap_timeout_i       (trap_timeout_i),
    .look_qpn_i           (look_qpn),
    .look_port_tags_i     (port_tags),
    .look_replay_i        (stage_valid),
    .look_replay_way_i    (replay_way),
    .look_mark_i          (!stage_valid && mark_valid),
    .look_check_i         (look_check),
    .look_hit_o           (look_hit),
    .look_line_o          (look_line),
    .look_pinned_o        (look_pinned),
    .look_pinned_in_set_o (look_pinned_in_set),
    .vict_step_i          (vict_step),
    .vict_mshr_i          (vict_mshr),
    .vict_set_i           (vict_set),
    .vict_reserved_i      (vict_reserved),
    .vict_found_o         (vict_found),
    .vict_way_o           (vict_way),
    .vict_take_i          (vict_take),
    .vict_take_way_i      (vict_take_way),
    .vict_take_ok_o       (vict_take_ok),
    .vict_valid_o         (vict_valid),
    .vict_dirty_o         (vict_dirty),
    .vict_tags_o          (vict_tags),
    .vict_owed_o          (vict_owed),
    .drain_o              (drain),
    .scan_want_i          (scan_want),
    .scan_ok_o            (scan_ok),
    .scan_line_i          (scan_line),
    .scan_valid_o         (scan_valid),
    .scan_dirty_o         (scan_dirty),
    .scan_qpn_o           (scan_qpn),
    .mark_valid_i         (mark_req),
    .mark_qpn_i           (ann_qpn),
    .mark_ok_o            (mark_ok),
    .touch_i              (touch),
    .dirty_i              (dirty),
    .pin_i                (pin),
    .pin_value_i          (pin_value),
    .excl_i               (excl),
    .dirty_p1_i           (dirty_p1),
    .excl_p1_i            (excl_p1),
    .p1_line_i            (p1_line),
    .hold_p1_i            (wb_drop),
    .reserve_i            (reserve),
    .reserve_line_i       (reserve_line),
    .fill_i               (fill),
    .fill_line_i          (fill_line),
    .fill_tag_i           (fill_qpn[QpnW-1:SetW]),
    .fill_hold_i          (fill_wfault),
    .clean_i              (x_clean),
    .drop_i               (x_drop),
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
    .MemIdW   (MemIdW)
  ) u_mshrs (
    .clk_i             (clk_i),
    .rst_ni            (rst_ni),
    .qpt_base_i        (qpt_base_i),
    .look_qpn_i        (look_qpn),
    .look_on_o         (m_on),
    .look_filling_o    (m_filling),
    .look_idx_o        (m_idx),
    .free_any_o        (m_free_any),
    .free_two_o        (m_free_two),
    .free_idx_o        (m_free_idx),
    .page_busy_o       (m_page_busy),
    .lock_i            (x_lock),
    .lock_idx_i        (x_lock_idx),
    .park_i            (park),
    .alloc_i           (alloc),
    .park_idx_i        (park_idx),
    .alloc_qpn_i       (look_qpn),
    .park_seq_o        (park_seq),
    .deq_i             (deq),
    .deq_idx_i         (stage_mshr),
    .replaying_o       (replaying),
    .deq_seq_o         (deq_seq),
    .status_idx_i      (stage_mshr),
    .status_o          (replay_status),
    .status_fatal_o    (replay_fatal),
    .status_way_o      (replay_way),
    .vict_set_o        (vict_set),
    .vict_reserved_o   (vict_reserved),
    .vict_step_o       (vict_step),
    .vict_mshr_o       (vict_mshr),
    .vict_found_i      (vict_found),
    .vict_way_i        (vict_way),
    .vict_take_o       (vict_take),
    .vict_take_way_o   (vict_take_way),
    .vict_take_ok_i    (vict_take_ok),
    .vict_valid_i      (vict_valid),
    .vict_dirty_i      (vict_dirty),
    .vict_tags_i       (vict_tags),
    .vict_owed_i       (vict_owed),
    .reserve_o         (reserve),
    .reserve_line_o    (reserve_line),
    .wbread_ok_i       (wbread_ok),
    .wb_free_cnt_i     (wb_free_cnt),
    .xread_room_o      (xread_room),
    .wbread_o          (wbread),
    .wbread_line_o     (wbread_line),
    .wbread_qpn_o      (wbread_qpn),
    .wbread_idx_o      (wbread_idx),
    .victim_out_o      (m_victim_out),
    .wb_pend_i         (wb_pend),
    .wb_pend_qpn_i     (wb_pend_qpn),
    .dir_inval_i       (dir_inval),
    .dir_inval_idx_i   (dir_inval_idx),
    .mem_req_valid_o   (rd_req_valid),
    .mem_req_ready_i   (rd_req_ready),
    .mem_req_id_o      (rd_req_id),
    .mem_req_addr_o    (rd_req_addr),
    .mem_req_line_o    (rd_req_line),
    .mem_rsp_valid_i   (rsp_mshr),
    .mem_rsp_idx_i     (mem_rsp_id_i[MshrW-1:0]),
    .mem_rsp_error_i   (mem_rsp_error_i),
    .mem_rsp_word_i    (mem_rsp_rdata_i[63:0]),
    .fill_o            (fill),
    .fill_line_o       (fill_line),
    .fill_qpn_o        (fill_qpn),
    .fill_addr_o       (fill_addr),
    .fill_fatal_o      (fill_fatal),
    .fill_wfault_o     (fill_wfault),
    .wb_gu_i           (wb_gu),
    .wb_watched_o      (wb_watched),
    .ret_want_o        (ret_want),
    .ret_qpn_o         (ret_qpn),
    .ret_ok_i          (ret_staged && !rsp_mshr),
    .ret_take_o        (ret_take),
    .swap_o            (wb_swap),
    .wbread_wb_idx_i   (wb_alloc_idx),
    .cnt_eviction_o    (cnt_eviction),
    .cnt_walk_o        (cnt_walk),
    .cnt_dir_hit_o     (cnt_dir_hit),
    .cnt_unmapped_o    (cnt_unmapped),
    .cnt_victim_wait_o (cnt_victim_wait)
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
    .free_any_o    (park_free_any),
    .park_i        (park),
    .park_req_i    (req_pipe),
    .park_mshr_i   (park_idx),
    .park_seq_i    (park_seq),
    .replaying_i   (replaying),
    .deq_seq_i     (deq_seq),
    .stage_valid_o (stage_valid),
    .stage_req_o   (stage_req),
    .stage_mshr_o  (stage_mshr),
    .take_i        (take)
  );

  // A mark goes to the pipe once its tags are at hand (qpm_tag_views), and not for a page
  // under MAP/UNMAP: its lines must not turn dirty behind the scan.
  assign mark_valid = mark_req && mark_ok
                   && !(x_lock && DirIdxW'(ann_qpn >> PageBits) == x_lock_idx);

  // The request in the pipe is what gets parked.
  qpm_pkg::ctx_req_t req_pipe;
  assign req_pipe = stage_valid ? stage_req : port_req;

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
    .wb_free_cnt_o      (wb_free_cnt),
    .wb_alloc_i         (wb_alloc),
    .wb_alloc_qpn_i     (wb_alloc_qpn),
    .wb_alloc_maint_i   (wb_alloc_maint),
    .wb_alloc_idx_o     (wb_alloc_idx),
    .wb_retry_budget_i  (wb_retry_budget_i),
    .wb_alloc_swap_i    (wb_swap),
    .wb_ann_qpn_o       (ann_qpn),
    .wb_mark_req_o      (mark_req),
    .wb_mark_take_i     (mark_take),
    .wb_drop_i          (wb_drop),
    .wb_drop_qpn_i      (wb_drop_qpn),
    .wb_gu_o            (wb_gu),
    .wb_watched_i       (wb_watched),
    .wb_room_miss_i     ((vict_take && vict_take_ok && !reserve) || (xread && !xread_ok)),
    .wb_ret_want_i      (ret_want),
    .wb_ret_qpn_i       (ret_qpn),
    .wb_ret_staged_o    (ret_staged),
    .wb_ret_data_o      (ret_data),
    .wb_ret_keep_o      (ret_keep),
    .wb_ret_take_i      (ret_take),
    .cnt_given_up_o     (cnt_given_up_o),
    .wb_load_i          (wb_load),
    .wb_load_idx_i      (wb_load_idx),
    .wb_load_addr_i     (wb_load_addr),
    .wb_load_data_i     (wb_load_data),
    .wb_pend_o          (wb_pend),
    .wb_pend_qpn_o      (wb_pend_qpn),
    .maint_start_i      (x_start),
    .maint_start_req_i  (req_pipe),
    .maint_busy_o       (x_busy),
    .maint_lock_o       (x_lock),
    .maint_lock_idx_o   (x_lock_idx),
    .maint_rsp_ready_i  (!(fill && (fill_fatal || fill_wfault))),   // a notice fill's slot
    .victim_out_i       (m_victim_out),
    .wbread_i           (wbread),
    .wbread_idx_i       (wbread_idx),
    .scan_line_o        (scan_line),
    .scan_want_o        (scan_want),
    .scan_ok_i          (scan_ok),
    .scan_valid_i       (scan_valid),
    .scan_dirty_i       (scan_dirty),
    .scan_qpn_i         (scan_qpn),
    .clean_o            (x_clean),
    .drop_o             (x_drop),
    .xread_o            (xread),
    .xread_ok_i         (xread_ok),
    .dir_inval_o        (dir_inval),
    .dir_inval_idx_o    (dir_inval_idx),
    .mapped_any_o       (mapped_any_o),
    .maint_rsp_valid_o  (x_rsp_valid),
    .maint_rsp_tag_o    (x_rsp_tag),
    .maint_rsp_status_o (x_rsp_status),
    .rd_req_valid_i     (rd_req_valid),
    .rd_req_ready_o     (rd_req_ready),
    .rd_req_id_i        (rd_req_id),
    .rd_req_addr_i      (rd_req_addr),
    .rd_req_line_i      (rd_req_line),
    .mem_req_valid_o    (mem_req_valid_o),
    .mem_req_ready_i    (mem_req_ready_i),
    .mem_req_write_o    (mem_req_write_o),
    .mem_req_id_o       (mem_req_id_o),
    .mem_req_addr_o     (mem_req_addr_o),
    .mem_req_line_o     (mem_req_line_o),
    .mem_req_wdata_o    (mem_req_wdata_o),
    .mem_rsp_valid_i    (mem_rsp_valid_i),
    .mem_rsp_write_i    (mem_rsp_write_i),
    .mem_rsp_id_i       (mem_rsp_id_i),
    .mem_rsp_error_i    (mem_rsp_error_i),
    .mem_rsp_word_i     (mem_rsp_rdata_i[63:0]),
    .cnt_writeback_o    (cnt_writeback)
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
    .req_valid_i          (port_valid),
    .drain_i              (drain),
    .req_ready_o          (port_ready),
    .req_i                (port_req),
    .rsp_valid_o          (rsp_valid_o),
    .rsp_o                (rsp_o),
    .look_qpn_o           (look_qpn),
    .look_hit_i           (look_hit),
    .look_line_i          (look_line),
    .look_pinned_i        (look_pinned),
    .look_pinned_in_set_i (look_pinned_in_set),
    .touch_o              (touch),
    .dirty_o              (dirty),
    .pin_o                (pin),
    .pin_value_o          (pin_value),
    .excl_o               (excl),
    .dirty_p1_o           (dirty_p1),
    .excl_p1_o            (excl_p1),
    .p1_line_o            (p1_line),
    .m_on_i               (m_on),
    .m_filling_i          (m_filling),
    .m_idx_i              (m_idx),
    .m_free_any_i         (m_free_any),
    // with a retry budget, one miss register is kept for a write-fault mark's take-back
    // (docs/qp-cache.md section 20): a port miss needs two free
    .m_free_spare_i       (wb_retry_budget_i == '0 ? m_free_any : m_free_two),
    .m_free_idx_i         (m_free_idx),
    .m_page_busy_i        (m_page_busy),
    .park_o               (park),
    .alloc_o              (alloc),
    .park_idx_o           (park_idx),
    .deq_o                (deq),
    .replay_status_i      (replay_status),
    .replay_fatal_i       (replay_fatal),
    .park_free_any_i      (park_free_any),
    .stage_valid_i        (stage_valid),
    .stage_req_i          (stage_req),
    .take_o               (take),
    .fill_i               (fill),
    .fill_line_i          (fill_line),
    .fill_addr_i          (fill_addr),
    .fill_data_i          (ret_take ? ret_data : mem_rsp_rdata_i),
    .fill_qpn_i           (fill_qpn),
    .fill_fatal_i         (fill_fatal),
    .fill_wfault_i        (fill_wfault),
    .fill_wkeep_i         (ret_keep && !wb_swap),
    .mem_fatal_write_o    (mem_fatal_write_o),
    // no mark of a page under MAP/UNMAP: its lines must not turn dirty behind the scan
    .mark_valid_i         (mark_valid),
    .lock_valid_i         (lock_valid_i),
    .lock_qpn_i           (lock_qpn_i),
    .mark_qpn_i           (ann_qpn),
    .mark_take_o          (mark_take),
    .drop_o               (wb_drop),
    .drop_qpn_o           (wb_drop_qpn),
    .mem_fatal_o          (mem_fatal_o),
    .mem_fatal_qpn_o      (mem_fatal_qpn_o),
    .wb_free_any_i        (wb_free_any),
    .xread_room_i         (xread_room),
    .wb_alloc_idx_i       (wb_alloc_idx),
    .wbread_ok_o          (wbread_ok),
    .wbread_i             (wbread),
    .wbread_line_i        (wbread_line),
    .wbread_qpn_i         (wbread_qpn),
    .xread_i              (xread),
    .xread_ok_o           (xread_ok),
    .xread_line_i         (scan_line),
    .xread_qpn_i          (scan_qpn),
    .wb_alloc_o           (wb_alloc),
    .wb_alloc_qpn_o       (wb_alloc_qpn),
    .wb_alloc_maint_o     (wb_alloc_maint),
    .wb_load_o            (wb_load),
    .wb_load_idx_o        (wb_load_idx),
    .wb_load_addr_o       (wb_load_addr),
    .wb_load_data_o       (wb_load_data),
    .maint_busy_i         (x_busy),
    .maint_start_o        (x_start),
    .maint_rsp_valid_i    (x_rsp_valid),
    .maint_rsp_tag_i      (x_rsp_tag),
    .maint_rsp_status_i   (x_rsp_status),
    .cnt_hit_o            (cnt_hit),
    .cnt_miss_o           (cnt_miss),
    .cnt_merged_o         (cnt_merged),
    .cnt_refused_o        (cnt_refused),
    .cnt_wait_o           (cnt_wait)
  );

  // ---- Event counters, registered (docs/qp-table.md says what each counts)
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      count_o <= '0;
    end else begin
      count_o <= '0;
      count_o[qpm_pkg::CntHits]       <= cnt_hit;
      count_o[qpm_pkg::CntMisses]     <= cnt_miss;
      count_o[qpm_pkg::CntMerged]     <= cnt_merged;
      count_o[qpm_pkg::CntEvictions]  <= cnt_eviction;
      count_o[qpm_pkg::CntWritebacks] <= cnt_writeback;
      count_o[qpm_pkg::CntWalks]      <= cnt_walk;
      count_o[qpm_pkg::CntDirHits]    <= cnt_dir_hit;
      count_o[qpm_pkg::CntRefused]    <= cnt_refused || cnt_unmapped;
      count_o[qpm_pkg::CntMemErrors]  <= mem_rsp_valid_i && mem_rsp_error_i;
      count_o[qpm_pkg::CntMissWaits]  <= cnt_wait || cnt_victim_wait;
      count_o[qpm_pkg::CntWbRetries]  <= mem_rsp_valid_i && mem_rsp_write_i && mem_rsp_error_i;
    end
  end

`ifdef FORMAL
  // The proofs' properties across the blocks (formal/cache.toml, docs/formal.md).
  `include "qpm_qpc_cache_cross.svh"
`endif

endmodule
