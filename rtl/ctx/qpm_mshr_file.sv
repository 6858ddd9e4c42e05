// qpm_mshr_file: the QP cache's miss registers, their scheduler and the table walk
// (SPEC.md §3.2, §3.3; docs/qp-cache.md, "Misses").
//
// A miss register follows one missing QPN from its first request until its parked
// requests have replayed:
//   Dir -> [DirReq -> DirWait] -> Victim -> [WbRead] -> FillReq -> FillWait -> Replay
// Dir looks the page up in the directory cache, else reads the entry; an unmapped page
// replays at once (CtxUnmapped) and never takes a way, so a refusal evicts nothing (SPEC
// §3.2, issue 27 item 6). Victim's step reads the set (the tags and the
// line state's RAM); in the next cycle, held out of the schedule, the register decides
// with the set at hand: it chooses a way and reserves it, or stays in Victim to choose
// again (qpm_cache_tags). A dirty victim (its QPN from the tags read) goes on to
// WbRead, which reads it out of the data RAM into the write-back buffer and moves
// on at once (the write-back does not delay the fill, SPEC §11); FillReq reads the QPC.
// A walk never gives up (docs/events.md, "Memory faults"): a failed directory read is
// sent again, and so is a failed QPC read, whose fill then lands marked fatal
// (fill_fatal_o): the pipe installs the QP in ERR with QP_FATAL pending. Two registers
// step per cycle, one per lane (qpm_mshr_sched: Victim and WbRead in the cache lane,
// Dir, DirReq and FillReq in the walk lane), each lane round-robin. Memory reads leave through
// one request register that holds its request until the memory port takes it (never
// withdrawn, never swapped).
//
// Each register is a qpm_mshr_reg (its state and next state); this file generates Mshrs
// of them and holds what they share: the compares (qpm_mshr_match), the scheduler
// (qpm_mshr_sched), the scheduled registers' steps, the directory cache with each
// register's hint (qpm_mshr_dir_hint) and the read request register.
//
// Hazard (qpm_mshr_match): FillReq waits while the QPN is still on its way to memory as
// a victim.
`include "qpm_assert.svh"

module qpm_mshr_file #(
  parameter int unsigned Sets       = 64,
  parameter int unsigned Ways       = 4,
  parameter int unsigned Mshrs      = 8,
  parameter int unsigned SeqW       = 5,
  parameter int unsigned PageBits   = 6,
  parameter int unsigned DirIdxW    = 18,
  parameter int unsigned WbDepth    = 2,
  parameter int unsigned MemIdW     = 4,
  parameter int unsigned DirCacheEntries = 1024,
  localparam int unsigned QpnW  = qpm_pkg::QpnW,
  localparam int unsigned SetW  = (Sets > 1) ? $clog2(Sets) : 1,
  localparam int unsigned WayW  = (Ways > 1) ? $clog2(Ways) : 1,
  localparam int unsigned Lines = Sets * Ways,
  localparam int unsigned LineW = $clog2(Lines),
  localparam int unsigned TagW  = QpnW - SetW,
  localparam int unsigned MshrW = (Mshrs > 1) ? $clog2(Mshrs) : 1,
  localparam int unsigned WbW   = (WbDepth > 1) ? $clog2(WbDepth) : 1
) (
  input  logic                    clk_i,
  input  logic                    rst_ni,
  input  logic [63:0]             qpt_base_i,
  // the pipe's view: a register working on a QPN, free registers
  input  logic [QpnW-1:0]         look_qpn_i,
  output logic                    look_on_o,       // a register works on look_qpn_i
  output logic                    look_filling_o,  // ... and its fill is not done yet
  output logic [MshrW-1:0]        look_idx_o,
  output logic                    free_any_o,
  output logic                    free_two_o,
  output logic [MshrW-1:0]        free_idx_o,
  output logic                    page_busy_o,     // one works on page look_qpn_i[DirIdxW-1:0]
  // MAP/UNMAP of a directory entry under way: its page's registers wait in Dir
  input  logic                    lock_i,
  input  logic [DirIdxW-1:0]      lock_idx_i,
  // the pipe parks a request: on a new register (alloc_i, at free_idx_o) or on idx_i
  input  logic                    park_i,
  input  logic                    alloc_i,
  input  logic [MshrW-1:0]        park_idx_i,
  input  logic [QpnW-1:0]         alloc_qpn_i,
  output logic [SeqW-1:0]         park_seq_o,      // the parked request's place in line
  // a replay of register deq_idx_i went through the pipe
  input  logic                    deq_i,
  input  logic [MshrW-1:0]        deq_idx_i,
  // the park pool's view
  output logic [Mshrs-1:0]        replaying_o,
  output logic [Mshrs*SeqW-1:0]   deq_seq_o,
  output logic [Mshrs-1:0]        line_empty_o,    // nothing parked waits (enq = deq)
  input  logic [MshrW-1:0]        status_idx_i,
  output qpm_pkg::ctx_status_e    status_o,        // of register status_idx_i
  output logic                    status_fatal_o,  // ... whose QPC read failed first
  output logic [WayW-1:0]         status_way_o,    // ... and whose way its QPN is on
  // the victim step: the scheduled register's set is read ...
  output logic                    vict_step_o,
  output logic [SetW-1:0]         vict_set_o,
  // ... and it decides in the next cycle, with the set at hand
  output logic                    vict_take_o,
  output logic [MshrW-1:0]        vict_mshr_o,
  output logic [SetW-1:0]         vict_take_set_o,
  output logic [Ways-1:0]         vict_reserved_o, // its ways registers own: no victims
  input  logic                    vict_found_i,    // a way may go ...
  input  logic [WayW-1:0]         vict_way_i,      // ... this one
  input  logic                    vict_take_ok_i,  // ... and P0 does not change it now
  input  logic                    vict_valid_i,    // the way holds a QPC ...
  input  logic                    vict_dirty_i,    // ... that must be written back
  input  logic [Ways*TagW-1:0]    vict_tags_i,     // the set's tags
  input  logic                    vict_owed_i,     // no victim step this cycle
  output logic                    reserve_o,
  output logic [LineW-1:0]        reserve_line_o,
  // a dirty victim read out through the pipe into the write-back buffer
  input  logic                    wbread_ok_i,     // the pipe and a buffer entry are free
  input  logic [WbW:0]            wb_free_cnt_i,   // free buffer entries
  output logic                    xread_room_o,    // ... beyond those promised, and one more
  output logic                    wbread_o,
  output logic [LineW-1:0]        wbread_line_o,
  output logic [QpnW-1:0]         wbread_qpn_o,
  output logic [MshrW-1:0]        wbread_idx_o,    // ... for this register
  input  logic [WbW-1:0]          wbread_wb_idx_i, // ... into this buffer entry
  output logic [Mshrs-1:0]        victim_out_o,    // registers with a victim to read out
  input  logic [WbDepth-1:0]      wb_pend_i,       // write-back buffer entries in flight
  input  logic [WbDepth*QpnW-1:0] wb_pend_qpn_i,
  // the buffer's given-up entries, and the live ones a take-back may take: a register
  // whose QPN has one takes its fill from there (ret_take_o, in a cycle ret_ok_i says
  // the QPC is staged and no memory fill lands) instead of reading memory; one with a
  // dirty victim swaps it into a given-up one (swap_o). One register at a time, held
  // until it takes it (ret_qpn_o names the entry).
  input  logic [WbDepth-1:0]      wb_gu_i,
  input  logic [WbDepth-1:0]      wb_retl_i,
  output logic [WbDepth-1:0]      wb_watched_o,    // entries a register waits on now
  output logic                    ret_want_o,
  output logic [QpnW-1:0]         ret_qpn_o,
  input  logic                    ret_ok_i,
  output logic                    ret_take_o,
  output logic                    swap_o,
  // a directory write (MAP/UNMAP_PAGE) took effect: the directory cache forgets it
  input  logic                    dir_inval_i,
  input  logic [DirIdxW-1:0]      dir_inval_idx_i,
  // memory reads (ID = register index), held until taken
  output logic                    mem_req_valid_o,
  input  logic                    mem_req_ready_i,
  output logic [MemIdW-1:0]       mem_req_id_o,
  output logic [63:0]             mem_req_addr_o,
  output logic                    mem_req_line_o,
  // read responses for the registers
  input  logic                    mem_rsp_valid_i,
  input  logic [MshrW-1:0]        mem_rsp_idx_i,
  input  logic                    mem_rsp_error_i,
  input  logic [63:0]             mem_rsp_word_i,  // a directory entry
  // a fill lands (the pipe writes the data)
  output logic                    fill_o,
  output logic [LineW-1:0]        fill_line_o,
  output logic [QpnW-1:0]         fill_qpn_o,
  output logic [57:0]             fill_addr_o,     // QPC address bits 63:6
  output logic                    fill_fatal_o,    // a read of this QPC failed before
  output logic                    fill_wfault_o,   // the QPC comes back from a write given up
  output logic                    fill_notice_may_o, // a superset of fill_o && (fill_fatal_o
                                                     // || fill_wfault_o), from early signals
  output logic                    fill_may_o,      // a superset of fill_o, the same way
  output logic                    wbread_may_o,    // a superset of wbread_o, from flip-flops
  // events for the counters
  output logic                    cnt_eviction_o,
  output logic                    cnt_walk_o,
  output logic                    cnt_dir_hit_o,
  output logic                    cnt_unmapped_o,
  output logic                    cnt_victim_wait_o
`ifdef FORMAL
  ,
  // for the cache proofs (formal/cache.toml): the lines miss registers own (way chosen,
  // register not yet free), and those of them whose fill has not landed
  output logic [Lines-1:0]        f_owned_o,
  output logic [Lines-1:0]        f_unfilled_o
`endif
);

  function automatic logic [LineW-1:0] line_of(logic [SetW-1:0] set, logic [WayW-1:0] way);
    line_of = LineW'({set, way});
  endfunction

  // ---- the registers (qpm_mshr_reg), each told which events are its own
  qpm_pipe_pkg::mshr_state_e m_state_q  [Mshrs];
  logic [QpnW-1:0]           m_qpn_q    [Mshrs];
  logic [WayW-1:0]           m_way_q    [Mshrs];
  logic [QpnW-1:0]           m_vqpn_q   [Mshrs];   // the dirty victim to read out
  logic [60:0]               m_addr_q   [Mshrs];   // directory entry, then QPC, 63:3
  qpm_pkg::ctx_status_e      m_status_q [Mshrs];
  logic [SeqW-1:0]           m_enq_q    [Mshrs];
  logic [SeqW-1:0]           m_deq_q    [Mshrs];
  logic [Mshrs-1:0]          m_waited_q, m_fatal_q;
  logic [Mshrs-1:0]          m_busy, m_replay, m_victim_out, m_owns;
  logic [Mshrs*QpnW-1:0]     m_qpn_flat, m_vqpn_flat;
  logic [Mshrs*WayW-1:0]     m_way_flat;

  logic             c_any, w_any, take_room, ret_own_valid, walk_hit;
  logic [MshrW-1:0] c_idx, w_idx, ret_own;
  logic [63:12]     walk_page;
  // The directory entry's address (bits 63:3) is added at allocation, off the
  // scheduler's path.
  logic [60:0]      alloc_addr;
  assign alloc_addr = 61'((qpt_base_i >> 3) + 64'(alloc_qpn_i[QpnW-1:PageBits]));

  // The register whose Victim step read its set last cycle decides now.
  // Its set comes with it from the step, off the decision's path.
  logic             dec_q;
  logic [MshrW-1:0] dec_idx_q;
  logic [SetW-1:0]  dec_set_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      dec_q     <= 1'b0;
      dec_idx_q <= '0;
      dec_set_q <= '0;
    end else begin
      dec_q     <= vict_step_o;
      dec_idx_q <= c_idx;
      dec_set_q <= vict_set_o;
    end
  end

  for (genvar g = 0; g < Mshrs; g++) begin : gen_mshr
    qpm_mshr_reg #(
      .Ways     (Ways),
      .SeqW     (SeqW),
      .PageBits (PageBits),
      .SetW     (SetW)
    ) u_reg (
      .clk_i        (clk_i),
      .rst_ni       (rst_ni),
      .alloc_i      (alloc_i && park_idx_i == MshrW'(g)),
      .alloc_qpn_i  (alloc_qpn_i),
      .alloc_addr_i (alloc_addr),
      .park_i       (park_i && park_idx_i == MshrW'(g)),
      .deq_i        (deq_i && deq_idx_i == MshrW'(g)),
      .step_i       ((c_any && c_idx == MshrW'(g)) || (w_any && w_idx == MshrW'(g))),
      .walk_hit_i   (walk_hit),
      .walk_page_i  (walk_page),
      .ret_take_i   (ret_take_o && ret_own == MshrW'(g)),
      .ret_gu_i     (fill_wfault_o),
      .decide_i     (dec_q && dec_idx_q == MshrW'(g)),
      .vict_found_i (vict_found_i),
      .vict_way_i   (vict_way_i),
      .take_ok_i    (vict_take_ok_i),
      .take_room_i  (take_room),
      .vict_valid_i (vict_valid_i),
      .vict_dirty_i (vict_dirty_i),
      .vict_tags_i  (vict_tags_i),
      .rsp_i        (mem_rsp_valid_i && mem_rsp_idx_i == MshrW'(g)),
      .rsp_error_i  (mem_rsp_error_i),
      .rsp_word_i   (mem_rsp_word_i),
      .state_o      (m_state_q[g]),
      .qpn_o        (m_qpn_q[g]),
      .way_o        (m_way_q[g]),
      .vqpn_o       (m_vqpn_q[g]),
      .addr_o       (m_addr_q[g]),
      .status_o     (m_status_q[g]),
      .enq_o        (m_enq_q[g]),
      .deq_o        (m_deq_q[g]),
      .waited_o     (m_waited_q[g]),
      .fatal_o      (m_fatal_q[g]),
      .busy_o       (m_busy[g]),
      .owns_o       (m_owns[g]),
      .victim_out_o (m_victim_out[g])
    );
    assign m_replay[g]                 = m_state_q[g] == qpm_pipe_pkg::MReplay;
    assign m_qpn_flat[g*QpnW +: QpnW]  = m_qpn_q[g];
    assign m_vqpn_flat[g*QpnW +: QpnW] = m_vqpn_q[g];
    assign m_way_flat[g*WayW +: WayW]  = m_way_q[g];
  end

  // ---- the compares: the pipe's QPN, free registers, the write-back hazard
  logic [Mshrs-1:0] m_wb_hazard_q, m_ret, m_retl;
  logic [Mshrs-1:0] m_locked;
  qpm_mshr_match #(
    .Mshrs    (Mshrs),
    .WbDepth  (WbDepth),
    .PageBits (PageBits),
    .DirIdxW  (DirIdxW),
    .Ways     (Ways),
    .SetW     (SetW)
  ) u_match (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .busy_i         (m_busy),
    .replay_i       (m_replay),
    .qpn_i          (m_qpn_flat),
    .victim_out_i   (m_victim_out),
    .vqpn_i         (m_vqpn_flat),
    .wb_pend_i      (wb_pend_i),
    .wb_pend_qpn_i  (wb_pend_qpn_i),
    .alloc_i        (alloc_i),
    .alloc_idx_i    (park_idx_i),
    .alloc_qpn_i    (alloc_qpn_i),
    .wbread_i       (wbread_o),
    .wbread_qpn_i   (wbread_qpn_o),
    .wbread_wb_idx_i (wbread_wb_idx_i),
    .wb_gu_i        (wb_gu_i),
    .ret_o          (m_ret),
    .wb_retl_i      (wb_retl_i),
    .retl_o         (m_retl),
    .wb_watched_o   (wb_watched_o),
    .look_qpn_i     (look_qpn_i),
    .look_on_o      (look_on_o),
    .look_filling_o (look_filling_o),
    .look_idx_o     (look_idx_o),
    .free_any_o     (free_any_o),
    .free_two_o     (free_two_o),
    .free_idx_o     (free_idx_o),
    .page_busy_o    (page_busy_o),
    .wb_hazard_o    (m_wb_hazard_q),
    .lock_i         (lock_i),
    .lock_idx_i     (lock_idx_i),
    .locked_o       (m_locked),
    .owns_i         (m_owns),
    .way_i          (m_way_flat),
    .vict_set_i     (vict_set_o),
    .vict_reserved_o(vict_reserved_o)
  );
  assign park_seq_o = m_enq_q[park_idx_i];
  assign status_o   = m_status_q[status_idx_i];
  assign status_fatal_o = m_fatal_q[status_idx_i];
  assign status_way_o   = m_way_q[status_idx_i];
  for (genvar g = 0; g < Mshrs; g++) begin : gen_view
    assign replaying_o[g]              = m_replay[g];
    assign deq_seq_o[g*SeqW +: SeqW]   = m_deq_q[g];
    assign line_empty_o[g]             = m_enq_q[g] == m_deq_q[g];
  end

  // ---- the walk's directory cache and each register's hint (qpm_mshr_dir_hint)
  logic [DirIdxW-1:0] dir_fill_idx;
  logic               dir_fill;
  logic [63:12]       dir_fill_page;
  qpm_mshr_dir_hint #(
    .Mshrs           (Mshrs),
    .PageBits        (PageBits),
    .DirIdxW         (DirIdxW),
    .DirCacheEntries (DirCacheEntries)
  ) u_dir_hint (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .alloc_i     (alloc_i),
    .alloc_idx_i (park_idx_i),
    .alloc_qpn_i (alloc_qpn_i),
    .qpn_i       (m_qpn_flat),
    .inval_i     (dir_inval_i),
    .inval_idx_i (dir_inval_idx_i),
    .fill_i      (dir_fill),
    .fill_idx_i  (dir_fill_idx),
    .fill_page_i (dir_fill_page),
    .walk_idx_i  (w_idx),
    .walk_hit_o  (walk_hit),
    .walk_page_o (walk_page)
  );

  // ---- the scheduler: which registers step, one per lane (qpm_mshr_sched)
  logic [Mshrs-1:0] in_victim, in_wbread, in_dir, in_dirreq, in_fillreq, hold;
  for (genvar g = 0; g < Mshrs; g++) begin : gen_in
    assign in_victim[g]  = m_state_q[g] == qpm_pipe_pkg::MVictim;
    assign in_wbread[g]  = m_state_q[g] == qpm_pipe_pkg::MWbRead;
    assign in_dir[g]     = m_state_q[g] == qpm_pipe_pkg::MDir;
    assign in_dirreq[g]  = m_state_q[g] == qpm_pipe_pkg::MDirReq;
    assign in_fillreq[g] = m_state_q[g] == qpm_pipe_pkg::MFillReq;
    // A register deciding on its victim is not scheduled; nor are the victim steps while
    // a replay, a mark, the scan or the request port is owed the tag RAM's read
    // (qpm_tag_views), or while a register decides (its take would change the ways the
    // step's set has owned: qpm_mshr_match registers them at the step).
    assign hold[g]       = (dec_q && dec_idx_q == MshrW'(g)) || (vict_owed_i && in_victim[g])
                        || (dec_q && in_victim[g]);
  end
  logic             ret_near;   // the take-back's owner is picked: it may take its fill now
  qpm_mshr_sched #(
    .Mshrs   (Mshrs),
    .WbDepth (WbDepth)
  ) u_sched (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .in_victim_i   (in_victim),
    .in_wbread_i   (in_wbread),
    .in_dir_i      (in_dir),
    .in_dirreq_i   (in_dirreq),
    .in_fillreq_i  (in_fillreq),
    .hold_i        (hold),
    .locked_i      (m_locked),
    .hazard_i      (m_wb_hazard_q),
    .ret_i         (m_ret),
    .retl_i        (m_retl),
    .rq_busy_i     (rq_valid_q),
    .wbread_ok_i   (wbread_ok_i),
    .ret_ok_i      (ret_ok_i),
    .wb_free_cnt_i (wb_free_cnt_i),
    .c_any_o       (c_any),
    .c_idx_o       (c_idx),
    .w_any_o       (w_any),
    .w_idx_o       (w_idx),
    .take_i        (dec_q),
    .take_idx_i    (dec_idx_q),
    .vict_valid_i  (vict_valid_i),
    .vict_dirty_i  (vict_dirty_i),
    .take_room_o   (take_room),
    .xread_room_o  (xread_room_o),
    .ret_want_o    (ret_own_valid),
    .ret_own_o     (ret_own),
    .ret_take_o    (ret_take_o),
    .ret_near_o    (ret_near),
    .wbread_may_o  (wbread_may_o)
  );

  qpm_pipe_pkg::mshr_state_e c_state, w_state;
  assign c_state         = m_state_q[c_idx];
  assign w_state         = m_state_q[w_idx];
  assign vict_set_o      = m_qpn_q[c_idx][SetW-1:0];
  assign vict_step_o     = c_any && c_state == qpm_pipe_pkg::MVictim;
  assign vict_take_o     = dec_q;
  assign vict_mshr_o     = dec_idx_q;
  assign vict_take_set_o = dec_set_q;
  assign reserve_o       = vict_take_o && vict_take_ok_i && take_room;
  assign reserve_line_o  = line_of(vict_take_set_o, vict_way_i);
  assign wbread_o        = c_any && c_state == qpm_pipe_pkg::MWbRead;
  assign wbread_line_o   = line_of(m_qpn_q[c_idx][SetW-1:0], m_way_q[c_idx]);
  assign wbread_qpn_o    = m_vqpn_q[c_idx];
  assign wbread_idx_o    = c_idx;
  assign victim_out_o    = m_victim_out;
  assign ret_want_o      = ret_own_valid;
  assign ret_qpn_o       = m_qpn_q[ret_own];
  assign swap_o          = ret_take_o && m_state_q[ret_own] == qpm_pipe_pkg::MWbRead;

  // ---- memory responses
  qpm_pipe_pkg::mshr_state_e r_state;
  assign r_state         = m_state_q[mem_rsp_idx_i];
  // A take-back's fill is the owner's (a flip-flop's index), else the answered one's:
  // each read out beside the other and chosen last, so the take-back (the scheduler's
  // step) meets only that multiplexer on its way to the line writes.
  logic mem_fill;   // a memory fill lands
  assign mem_fill          = mem_rsp_valid_i && r_state == qpm_pipe_pkg::MFillWait
                          && !mem_rsp_error_i;
  assign fill_o          = mem_fill || ret_take_o;
  assign fill_line_o     = ret_take_o ? line_of(m_qpn_q[ret_own][SetW-1:0], m_way_q[ret_own])
                        : line_of(m_qpn_q[mem_rsp_idx_i][SetW-1:0], m_way_q[mem_rsp_idx_i]);
  assign fill_qpn_o      = ret_take_o ? m_qpn_q[ret_own] : m_qpn_q[mem_rsp_idx_i];
  assign fill_addr_o     = ret_take_o ? m_addr_q[ret_own][60:3]
                                      : m_addr_q[mem_rsp_idx_i][60:3];
  assign fill_fatal_o    = m_fatal_q[mem_rsp_idx_i] && !ret_take_o;
  assign fill_wfault_o   = ret_take_o && m_ret[ret_own];   // a given-up context (not retl)

  // What may take the pipe's RAM ports this cycle, from the memory response and the
  // registered pick, not from the step (the scheduler's conditions and the buffer's
  // room): a fill (a memory fill, or the take-back's owner picked), a fill that is a
  // notice (it makes its QP fatal, qpm_qpc_pipe: a memory fill of a QPC whose read failed
  // before, or a take-back), a read-out (the cache lane's pick in WbRead, wbread_may_o
  // from qpm_mshr_sched). The pipe's P0 and the maintenance engine's answer keep out of
  // the cycle on these supersets.
  assign fill_may_o        = mem_fill || ret_near;
  assign fill_notice_may_o = (mem_fill && m_fatal_q[mem_rsp_idx_i]) || ret_near;
  assign dir_fill       = mem_rsp_valid_i && r_state == qpm_pipe_pkg::MDirWait && !mem_rsp_error_i
                        && mem_rsp_word_i[0];
  assign dir_fill_idx   = DirIdxW'(m_qpn_q[mem_rsp_idx_i] >> PageBits);
  assign dir_fill_page  = mem_rsp_word_i[63:12];

  assign cnt_eviction_o    = reserve_o && vict_valid_i;
  assign cnt_walk_o        = w_any && w_state == qpm_pipe_pkg::MDir;
  assign cnt_dir_hit_o     = cnt_walk_o && walk_hit;
  assign cnt_unmapped_o    = mem_rsp_valid_i && r_state == qpm_pipe_pkg::MDirWait && !mem_rsp_error_i
                          && !mem_rsp_word_i[0];
  assign cnt_victim_wait_o = vict_take_o && !vict_found_i && !m_waited_q[dec_idx_q];

  logic unused_word;   // a directory entry: valid in bit 0, the page in 63:12
  assign unused_word = ^mem_rsp_word_i[11:1];

  // ---- the read request register: the walk lane's directory entry or QPC (not a
  // take-back's), held until the memory port takes it
  logic rq_valid_q, rq_load;
  assign rq_load = w_any && !(ret_take_o && ret_own == w_idx)
                && (w_state == qpm_pipe_pkg::MDirReq || w_state == qpm_pipe_pkg::MFillReq);
  // The read request register: one read held until the memory port takes it.
  qpm_hold_reg #(.Width(MemIdW + 64 + 1)) u_read_req (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .load_i  (rq_load),
    .data_i  ({MemIdW'(w_idx), m_addr_q[w_idx], 3'b0, w_state == qpm_pipe_pkg::MFillReq}),
    .valid_o (rq_valid_q),
    .ready_i (mem_req_ready_i),
    .data_o  ({mem_req_id_o, mem_req_addr_o, mem_req_line_o})
  );
  assign mem_req_valid_o = rq_valid_q;

  // ---- contract
  // The read request is held until taken (AXI rule, STYLE.md §2 rule 21).
  `QPM_ASSERT_NEXT(MemReqStable_A, mem_req_valid_o && !mem_req_ready_i, mem_req_valid_o
                              && $stable(mem_req_id_o) && $stable(mem_req_addr_o)
                              && $stable(mem_req_line_o))

`ifndef SYNTHESIS
  // The owned ways registered at the step are the decision's own, less registers freed.
  logic [Ways-1:0] f_owned;
  always_comb begin
    f_owned = '0;
    for (int unsigned m = 0; m < Mshrs; m++)
      if (m_owns[m] && m_qpn_q[m][SetW-1:0] == dec_set_q) f_owned[m_way_q[m]] = 1'b1;
  end
  `QPM_ASSERT_IMPL(OwnedAtStep_A, dec_q, (f_owned & ~vict_reserved_o) == '0)
`endif

`ifdef FORMAL
  // The proof views and properties (formal/cache.toml, docs/formal.md).
  `include "qpm_mshr_file_props.svh"
`endif

endmodule
