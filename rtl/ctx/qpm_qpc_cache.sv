// qpm_qpc_cache: the on-chip QP-context cache, its miss registers, the eviction FSM
// and the table walk (SPEC.md §3.2, §3.3, §9). docs/qp-cache.md explains the design.
//
//   requests ──► main pipe ──hit──► data RAM ──► response
//                   │ miss / same QPN as a miss under way
//                   ▼
//                park pool ◄── replay when the fill is done
//                   │
//                MSHRs: victim (tree-PLRU, skips pinned and busy ways)
//                       -> write back a dirty victim -> directory (cache or read)
//                       -> read the QPC -> fill -> replay the parked requests
//                maintenance engine: SYNC_CACHE, MAP/UNMAP_PAGE (drained, exclusive)
//
// Set-associative, write-back, Sets x Ways lines: the QPCs in one RAM, each line's QPC
// address in another, parked requests in a third; tags and line state in flops. Misses do not block: the pipe keeps serving hits while up to
// Mshrs fills are outstanding, and a request to a QPN whose fill is under way is parked
// on that fill (a merge) so responses to one QPN stay in order.
`include "qpm_assert.svh"

module qpm_qpc_cache #(
  parameter int unsigned Sets       = 64,
  parameter int unsigned Ways       = 4,
  parameter int unsigned Mshrs      = 8,
  parameter int unsigned PageBits   = 6,
  parameter int unsigned DirEntries = 1 << 18,  // 2**24 QPNs in pages of 64
  parameter int unsigned ParkDepth  = 2 * Mshrs,  // requests waiting on fills
  parameter int unsigned MemIdW     = 4,
  localparam int unsigned DirIdxW   = (DirEntries > 1) ? $clog2(DirEntries) : 1
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  // configuration (CSRs)
  input  logic [63:0]           qpt_base_i,
  input  logic [31:0]           qpn_limit_i,
  // QPC-access requests and responses
  input  logic                  req_valid_i,
  output logic                  req_ready_o,
  input  qpm_pkg::ctx_req_t     req_i,
  output logic                  rsp_valid_o,
  output qpm_pkg::ctx_rsp_t     rsp_o,
  // memory requests to qpm_axi_master (ID = MSHR index; Mshrs = maintenance)
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

  // ---------------------------------------------------------------------------------
  // Geometry
  // ---------------------------------------------------------------------------------
  localparam int unsigned QpnW   = qpm_pkg::QpnW;
  localparam int unsigned SetW   = (Sets > 1) ? $clog2(Sets) : 1;
  localparam int unsigned WayW   = (Ways > 1) ? $clog2(Ways) : 1;
  localparam int unsigned Lines  = Sets * Ways;
  localparam int unsigned LineW  = $clog2(Lines);
  localparam int unsigned TagW   = QpnW - SetW;
  localparam int unsigned AddrW  = 58;              // QPC address bits 63:6
  localparam int unsigned DataW  = AddrW + qpm_pkg::QpcW;
  localparam int unsigned MshrW  = (Mshrs > 1) ? $clog2(Mshrs) : 1;
  localparam int unsigned ParkW  = (ParkDepth > 1) ? $clog2(ParkDepth) : 1;
  localparam int unsigned SeqW   = ParkW + 1;
  localparam logic [MemIdW-1:0] MaintId = MemIdW'(Mshrs);

  if (Sets < 2 || (1 << SetW) != Sets) begin : gen_bad_sets
    $error("Sets must be a power of two, at least 2");
  end
  if (PageBits != 6) begin : gen_bad_page_bits
    $error("PageBits must be 6: a directory page is one 4 KiB host page of 64-byte QPCs");
  end
  if (Mshrs + 1 > (1 << MemIdW)) begin : gen_bad_ids
    $error("MemIdW too narrow for Mshrs + 1 IDs");
  end

  function automatic logic [SetW-1:0] set_of(logic [QpnW-1:0] qpn);
    set_of = qpn[SetW-1:0];
    // qpn's other bits are the tag
  endfunction
  function automatic logic [TagW-1:0] tag_of(logic [QpnW-1:0] qpn);
    tag_of = qpn[QpnW-1:SetW];
  endfunction
  function automatic logic [LineW-1:0] line_of(logic [SetW-1:0] set, logic [WayW-1:0] way);
    line_of = LineW'({set, way});
  endfunction
  function automatic logic [DirIdxW-1:0] page_of(logic [QpnW-1:0] qpn);
    page_of = DirIdxW'(qpn >> PageBits);
  endfunction
  // Tree-PLRU bits of a set after an access to way (see qpm_plru_tree).
  function automatic logic [Ways-2:0] touch(logic [Ways-2:0] bits, logic [WayW-1:0] way);
    logic [WayW-1:0] prefix;
    logic [WayW-1:0] node;
    touch = bits;
    for (int unsigned l = 0; l < WayW; l++) begin
      prefix = (l == 0) ? '0 : (way >> (WayW - l));
      node   = WayW'((32'd1 << l) - 32'd1) + prefix;
      touch[node] = !way[WayW-1-l];
    end
  endfunction

  // ---------------------------------------------------------------------------------
  // Line state (flops) and the data RAM
  // ---------------------------------------------------------------------------------
  logic [Lines-1:0] valid_q, dirty_q, pinned_q, reserved_q;
  logic [TagW-1:0]  tag_q [Lines];
  logic [Ways-2:0]  plru_q [Sets];

  // Two RAMs on one address: the QPCs, and each line's QPC address in memory (written
  // on a fill, read only to write the line back, so a write hit leaves it alone).
  logic                     ram_req, ram_we, aram_req;
  logic [LineW-1:0]         ram_addr;
  logic [qpm_pkg::QpcW-1:0] ram_wdata, ram_rdata;
  logic [AddrW-1:0]         aram_wdata, aram_rdata;
  qpm_ram_1p #(
    .Width (qpm_pkg::QpcW),
    .Depth (Lines)
  ) u_data_ram (
    .clk_i   (clk_i),
    .req_i   (ram_req),
    .we_i    (ram_we),
    .addr_i  (ram_addr),
    .wdata_i (ram_wdata),
    .rdata_o (ram_rdata)
  );
  qpm_ram_1p #(
    .Width (AddrW),
    .Depth (Lines)
  ) u_addr_ram (
    .clk_i   (clk_i),
    .req_i   (aram_req),
    .we_i    (ram_we),
    .addr_i  (ram_addr),
    .wdata_i (aram_wdata),
    .rdata_o (aram_rdata)
  );

  // ---------------------------------------------------------------------------------
  // Directory cache (no per-entry state: mapped-ness comes from the directory read)
  // ---------------------------------------------------------------------------------
  logic               dir_walk_hit, dir_inval, dir_fill_valid;
  logic [63:12]       dir_walk_page, dir_fill_page;
  logic [DirIdxW-1:0] walk_idx, inval_idx, fill_idx;

  qpm_dir_table #(
    .DirEntries (DirEntries)
  ) u_dir_table (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .inval_i      (dir_inval),
    .inval_idx_i  (inval_idx),
    .walk_idx_i   (walk_idx),
    .walk_hit_o   (dir_walk_hit),
    .walk_page_o  (dir_walk_page),
    .fill_valid_i (dir_fill_valid),
    .fill_idx_i   (fill_idx),
    .fill_page_i  (dir_fill_page)
  );

  // ---------------------------------------------------------------------------------
  // Miss registers
  // ---------------------------------------------------------------------------------
  typedef enum logic [3:0] {
    MFree      = 4'd0,
    MVictim    = 4'd1,   // choose and reserve a way
    MWbRead    = 4'd2,   // read the dirty victim out of the RAM
    MWbWait    = 4'd3,   // victim write-back under way
    MDir       = 4'd4,   // find the page: directory cache, else read the entry
    MDirReq    = 4'd5,
    MDirWait   = 4'd6,
    MFillReq   = 4'd7,
    MFillWait  = 4'd8,
    MReplay    = 4'd9    // line filled (or failed): parked requests go again
  } mshr_e;

  mshr_e                   m_state_q [Mshrs];
  logic [QpnW-1:0]         m_qpn_q   [Mshrs];
  logic [WayW-1:0]         m_way_q   [Mshrs];
  logic [QpnW-1:0]         m_vqpn_q  [Mshrs];  // the dirty victim being written back
  logic [AddrW-1:0]        m_addr_q  [Mshrs];  // QPC address, once walked
  qpm_pkg::ctx_status_e    m_status_q [Mshrs];
  logic [SeqW-1:0]         m_enq_q   [Mshrs];
  logic [SeqW-1:0]         m_deq_q   [Mshrs];
  logic [Mshrs-1:0]        m_waited_q;          // counted once in MISS_WAITS

  // ---------------------------------------------------------------------------------
  // Park pool
  // ---------------------------------------------------------------------------------
  logic [ParkDepth-1:0]    p_valid_q;
  logic [MshrW-1:0]        p_mshr_q [ParkDepth];
  logic [SeqW-1:0]         p_seq_q  [ParkDepth];
  // The parked requests themselves (each carries a whole QPC for a write) live in a RAM;
  // a replay is read out one cycle before it enters the pipe ("staged").
  localparam int unsigned ReqW = $bits(req_i);
  logic                    park_ram_req, park_ram_we;
  logic [ParkW-1:0]        park_ram_addr;
  logic [ReqW-1:0]         park_ram_wdata, park_ram_rdata;
  logic                    stage_valid_q, stage_valid_d;
  logic [ParkW-1:0]        stage_idx_q, stage_idx_d;
  qpm_ram_1p #(
    .Width (ReqW),
    .Depth (ParkDepth)
  ) u_park_ram (
    .clk_i   (clk_i),
    .req_i   (park_ram_req),
    .we_i    (park_ram_we),
    .addr_i  (park_ram_addr),
    .wdata_i (park_ram_wdata),
    .rdata_o (park_ram_rdata)
  );

  // ---------------------------------------------------------------------------------
  // Write-back buffer: a victim or flushed line on its way to memory
  // ---------------------------------------------------------------------------------
  logic                    wb_load_q;     // RAM output holds a line to write back
  logic [MemIdW-1:0]       wb_load_id_q;
  logic                    wb_valid_q;
  logic [MemIdW-1:0]       wb_id_q;
  logic [DataW-1:0]        wb_data_q;

  // ---------------------------------------------------------------------------------
  // Maintenance engine: SYNC_CACHE and MAP/UNMAP_PAGE, run alone on a drained cache
  // ---------------------------------------------------------------------------------
  // MAP/UNMAP_PAGE: read the entry (XOld*), write back the page's dirty lines (XScan),
  // read the valid bit of each of its QPCs in memory (XPage*: busy if any is set), drop
  // its lines (XDrop), write the entry (XDir*). SYNC_CACHE: XScan only.
  typedef enum logic [3:0] {
    XIdle     = 4'd0,
    XScan     = 4'd1,   // look at line x_line_q
    XWbLoad   = 4'd2,   // its data is being read into the write-back buffer
    XWbWait   = 4'd3,   // written back; wait for B
    XDirReq   = 4'd4,   // write the directory entry
    XDirWait  = 4'd5,
    XOldReq   = 4'd6,   // read the directory entry as it is
    XOldWait  = 4'd7,
    XPageReq  = 4'd8,   // read the first word of QPC slot x_slot_q of the old page
    XPageWait = 4'd9,
    XDrop     = 4'd10   // drop the page's (now clean) lines, one per cycle
  } maint_e;

  maint_e                  x_state_q;
  qpm_pkg::ctx_req_t       x_req_q;
  logic [LineW-1:0]        x_line_q;
  logic                    x_error_q;
  logic                    x_old_valid_q;            // the entry was mapped
  logic [63:12]            x_old_page_q;             // ... to this page
  logic [PageBits-1:0]     x_slot_q;                 // page scan position
  logic [DirIdxW:0]        mapped_count_q;           // mapped directory entries

  // ---------------------------------------------------------------------------------
  // Main pipe: pick a request (a replay before a new one) and decide it
  // ---------------------------------------------------------------------------------
  logic              replay_any;
  logic [ParkW-1:0]  replay_idx;
  always_comb begin
    replay_any = 1'b0;
    replay_idx = '0;
    for (int i = ParkDepth - 1; i >= 0; i--) begin
      if (p_valid_q[i] && m_state_q[p_mshr_q[i]] == MReplay
          && p_seq_q[i] == m_deq_q[p_mshr_q[i]]) begin
        replay_any = 1'b1;
        replay_idx = ParkW'(i);
      end
    end
  end

  qpm_pkg::ctx_req_t r;          // the request in the pipe
  logic              r_valid, r_is_replay;
  logic [MshrW-1:0]  r_replay_mshr;
  assign r_is_replay   = stage_valid_q;
  assign r_replay_mshr = p_mshr_q[stage_idx_q];
  assign r             = stage_valid_q ? park_ram_rdata : req_i;
  assign r_valid       = stage_valid_q || (req_valid_i && x_state_q == XIdle);

  // Lookup.
  logic [SetW-1:0]  r_set;
  logic             r_hit;
  logic [WayW-1:0]  r_way;
  logic [LineW-1:0] r_line;
  always_comb begin
    r_set = set_of(r.index);
    r_hit = 1'b0;
    r_way = '0;
    for (int unsigned w = 0; w < Ways; w++) begin
      if (valid_q[line_of(r_set, WayW'(w))] && tag_q[line_of(r_set, WayW'(w))] == tag_of(r.index)) begin
        r_hit = 1'b1;
        r_way = WayW'(w);
      end
    end
    r_line = line_of(r_set, r_way);
  end

  // A miss register already working on this QPN (a fill under way, or its replays).
  logic             r_on_mshr, r_mshr_filling;
  logic [MshrW-1:0] r_mshr;
  always_comb begin
    r_on_mshr      = 1'b0;
    r_mshr_filling = 1'b0;
    r_mshr         = '0;
    for (int unsigned m = 0; m < Mshrs; m++) begin
      if (m_state_q[m] != MFree && m_qpn_q[m] == r.index) begin
        r_on_mshr      = 1'b1;
        r_mshr_filling = m_state_q[m] != MReplay;
        r_mshr         = MshrW'(m);
      end
    end
  end

  // Free resources for a new miss.
  logic             mshr_free_any, park_free_any;
  logic [MshrW-1:0] mshr_free_idx;
  logic [ParkW-1:0] park_free_idx;
  always_comb begin
    mshr_free_any = 1'b0;
    mshr_free_idx = '0;
    for (int m = Mshrs - 1; m >= 0; m--) begin
      if (m_state_q[m] == MFree) begin
        mshr_free_any = 1'b1;
        mshr_free_idx = MshrW'(m);
      end
    end
    park_free_any = 1'b0;
    park_free_idx = '0;
    for (int i = ParkDepth - 1; i >= 0; i--) begin
      if (!p_valid_q[i]) begin
        park_free_any = 1'b1;
        park_free_idx = ParkW'(i);
      end
    end
  end

  logic all_mshrs_free;
  always_comb begin
    all_mshrs_free = 1'b1;
    for (int unsigned m = 0; m < Mshrs; m++) if (m_state_q[m] != MFree) all_mshrs_free = 1'b0;
  end

  // Pinned lines in the request's set, for PIN_QP's capacity check.
  logic [WayW:0] r_pinned_in_set;
  always_comb begin
    r_pinned_in_set = '0;
    for (int unsigned w = 0; w < Ways; w++) begin
      r_pinned_in_set += (WayW + 1)'(valid_q[line_of(r_set, WayW'(w))]
                                      && pinned_q[line_of(r_set, WayW'(w))]);
    end
  end

  // The RAM this cycle: a fill write wins, then a write-back read, then the pipe.
  logic fill_now, wbread_now, xread_now;

  // The pipe's decision.
  typedef enum logic [2:0] {
    PStall    = 3'd0,   // nothing consumed this cycle
    PRespond  = 3'd1,   // answered without the RAM (status only)
    PReadHit  = 3'd2,
    PWriteHit = 3'd3,
    PPark     = 3'd4,   // joins a miss register (new miss or merge)
    PMaint    = 3'd5    // handed to the maintenance engine
  } pipe_e;

  pipe_e                 p_act;
  qpm_pkg::ctx_status_e  p_status;
  logic                  p_new_miss, p_refused, p_merge, p_wait;
  logic                  r_in_range;
  always_comb begin
    p_act      = PStall;
    p_status   = qpm_pkg::CtxOk;
    p_new_miss = 1'b0;
    p_refused  = 1'b0;
    p_merge    = 1'b0;
    p_wait     = 1'b0;
    r_in_range = (32'(r.index) < qpn_limit_i);
    if (r_valid) begin
      if (r_is_replay && m_status_q[r_replay_mshr] != qpm_pkg::CtxOk) begin
        p_act    = PRespond;               // the fill failed: so does every waiter
        p_status = m_status_q[r_replay_mshr];
      end else if (r.op == qpm_pkg::CtxSync || r.op == qpm_pkg::CtxDirWrite) begin
        if (all_mshrs_free && p_valid_q == '0 && !wb_valid_q && !wb_load_q) p_act = PMaint;
      end else if (!r_in_range) begin
        p_act     = PRespond;
        p_status  = qpm_pkg::CtxUnmapped;  // refused before any memory access
        p_refused = r.op != qpm_pkg::CtxPrefetch;
      end else if (!r_is_replay && r_on_mshr) begin
        // Join a fill under way (a merge). Once the fill is done and its waiters are
        // replaying, wait at the port instead: parking more behind them would keep the
        // miss register (and its reserved way) alive for as long as requests keep coming.
        if (!r_mshr_filling) begin
          p_act = PStall;
        end else if (park_free_any) begin
          p_act   = PPark;
          p_merge = r.op != qpm_pkg::CtxPrefetch;
        end else begin
          p_wait = 1'b1;
        end
      end else if (r_hit) begin
        unique case (r.op)
          qpm_pkg::CtxRead:  if (!fill_now && !wbread_now) p_act = PReadHit;
          qpm_pkg::CtxWrite: if (!fill_now && !wbread_now) p_act = PWriteHit;
          qpm_pkg::CtxPin: begin
            p_act = PRespond;
            if (!pinned_q[r_line] && 32'(r_pinned_in_set) >= Ways - 1) p_status = qpm_pkg::CtxBusy;
          end
          default: p_act = PRespond;       // CtxUnpin, CtxPrefetch
        endcase
      end else if (mshr_free_any && park_free_any) begin
        p_act      = PPark;
        p_new_miss = 1'b1;
      end else begin
        p_wait = 1'b1;
      end
    end
  end

  // A port request is taken when the pipe consumes it (no replay in the way).
  assign req_ready_o = !stage_valid_q && x_state_q == XIdle && p_act != PStall;

  // The park RAM: a parked request is written when the pipe parks it; otherwise the
  // next replay is read out and staged (one at a time).
  logic stage_now;
  assign stage_now      = replay_any && !stage_valid_q && p_act != PPark;
  assign park_ram_req   = p_act == PPark || stage_now;
  assign park_ram_we    = p_act == PPark;
  assign park_ram_addr  = (p_act == PPark) ? park_free_idx : replay_idx;
  assign park_ram_wdata = r;

  // ---------------------------------------------------------------------------------
  // MSHR scheduling: one miss register advances through a shared-resource step a cycle
  // ---------------------------------------------------------------------------------
  // Victim choice for each MSHR's set (only the winner's is used).
  logic [Mshrs-1:0] m_can;
  logic             sched_any;
  logic [MshrW-1:0] sched, sched_next_q;

  // A fill must not read memory while its QPN is still being written back as another
  // miss register's victim: memory would hand out the stale context.
  logic [Mshrs-1:0] m_wb_hazard;
  always_comb begin
    for (int unsigned m = 0; m < Mshrs; m++) begin
      m_wb_hazard[m] = 1'b0;
      for (int unsigned v = 0; v < Mshrs; v++) begin
        if ((m_state_q[v] == MWbRead || m_state_q[v] == MWbWait) && m_vqpn_q[v] == m_qpn_q[m]) begin
          m_wb_hazard[m] = 1'b1;
        end
      end
    end
  end

  // Victim selection for the scheduled MSHR's set.
  logic [SetW-1:0]  v_set;
  logic [Ways-1:0]  v_free, v_eligible;
  logic             v_found, v_plru_valid;
  logic [WayW-1:0]  v_way, v_plru_way;
  logic [Ways-2:0]  v_plru_unused;
  logic [LineW-1:0] v_line;
  logic             pipe_touches_line;
  logic [LineW-1:0] pipe_line;

  // Only a line the pipe writes this cycle (data, or its pin bit) is kept out of the
  // victim choice; a read hit is safe, the write-back reads the RAM later. (Excluding
  // every hit let a stream of hits, or a stalled SYNC whose index looks like a QPN,
  // starve a set's last evictable way.)
  assign pipe_touches_line = p_act == PWriteHit
                          || (p_act == PRespond && r_hit
                              && (r.op == qpm_pkg::CtxPin || r.op == qpm_pkg::CtxUnpin));
  assign pipe_line         = r_line;

  always_comb begin
    v_set = set_of(m_qpn_q[sched]);
    for (int unsigned w = 0; w < Ways; w++) begin
      // Never a line that is reserved, pinned, or touched by the pipe this cycle.
      v_eligible[w] = !reserved_q[line_of(v_set, WayW'(w))]
                   && !(valid_q[line_of(v_set, WayW'(w))] && pinned_q[line_of(v_set, WayW'(w))])
                   && !(pipe_touches_line && pipe_line == line_of(v_set, WayW'(w)));
      v_free[w]     = v_eligible[w] && !valid_q[line_of(v_set, WayW'(w))];
    end
  end

  qpm_plru_tree #(
    .Ways (Ways)
  ) u_victim_plru (
    .bits_i         (plru_q[v_set]),
    .eligible_i     (v_eligible),
    .victim_valid_o (v_plru_valid),
    .victim_o       (v_plru_way),
    .touch_way_i    ('0),
    .touched_bits_o (v_plru_unused)
  );

  always_comb begin
    v_found = v_plru_valid;
    v_way   = v_plru_way;
    // An empty way needs no eviction at all.
    for (int w = Ways - 1; w >= 0; w--) begin
      if (v_free[w]) v_way = WayW'(w);
    end
    v_line = line_of(v_set, v_way);
  end

  // Which MSHRs could advance through a shared step now.
  logic mem_port_free;  // the memory request port is not taken by the write-back buffer
  assign mem_port_free = !wb_valid_q;
  assign fill_now = mem_rsp_valid_i && !mem_rsp_write_i && (32'(mem_rsp_id_i) < Mshrs)
                 && m_state_q[rsp_m] == MFillWait && !mem_rsp_error_i;

  always_comb begin
    for (int unsigned m = 0; m < Mshrs; m++) begin
      unique case (m_state_q[m])
        MVictim:  m_can[m] = 1'b1;
        MWbRead:  m_can[m] = !fill_now && !wb_valid_q && !wb_load_q;
        MDir:     m_can[m] = !m_wb_hazard[m];
        MDirReq,
        MFillReq: m_can[m] = mem_port_free;
        default:  m_can[m] = 1'b0;
      endcase
    end
    // Round-robin from the register after the last one served: a miss waiting for a
    // victim way must not shut out the registers whose fills would free one.
    sched_any = 1'b0;
    sched     = '0;
    for (int k = Mshrs - 1; k >= 0; k--) begin
      if (m_can[(32'(sched_next_q) + 32'(k)) % Mshrs]) begin
        sched_any = 1'b1;
        sched     = MshrW'((32'(sched_next_q) + 32'(k)) % Mshrs);
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni)        sched_next_q <= '0;
    else if (sched_any) sched_next_q <= (32'(sched) == Mshrs - 1) ? '0 : sched + MshrW'(1);
  end

  assign wbread_now = sched_any && m_state_q[sched] == MWbRead;
  assign walk_idx   = page_of(m_qpn_q[sched]);

  // The memory request port: the write-back buffer first, then the scheduled MSHR's
  // read, then the maintenance engine's directory write.
  logic mem_sched_read, mem_x_dir;
  logic [63:0] m_dir_addr, m_fill_addr;
  assign m_dir_addr  = qpt_base_i + (64'(walk_idx) << 3);
  assign m_fill_addr = {m_addr_q[sched], 6'b0};
  assign mem_sched_read = sched_any && mem_port_free
                       && (m_state_q[sched] == MDirReq || m_state_q[sched] == MFillReq);
  assign mem_x_dir = (x_state_q == XDirReq || x_state_q == XOldReq || x_state_q == XPageReq)
                  && !wb_valid_q;

  always_comb begin
    mem_req_valid_o = 1'b0;
    mem_req_write_o = 1'b0;
    mem_req_id_o    = '0;
    mem_req_addr_o  = '0;
    mem_req_line_o  = 1'b1;
    mem_req_wdata_o = '0;
    if (wb_valid_q) begin
      mem_req_valid_o = 1'b1;
      mem_req_write_o = 1'b1;
      mem_req_id_o    = wb_id_q;
      mem_req_addr_o  = {wb_data_q[DataW-1:qpm_pkg::QpcW], 6'b0};
      mem_req_wdata_o = wb_data_q[qpm_pkg::QpcW-1:0];
    end else if (mem_sched_read) begin
      mem_req_valid_o = 1'b1;
      mem_req_id_o    = MemIdW'(sched);
      mem_req_line_o  = m_state_q[sched] == MFillReq;
      mem_req_addr_o  = (m_state_q[sched] == MFillReq) ? m_fill_addr : m_dir_addr;
    end else if (mem_x_dir) begin
      mem_req_valid_o = 1'b1;
      mem_req_write_o = x_state_q == XDirReq;
      mem_req_id_o    = MaintId;
      mem_req_line_o  = 1'b0;
      mem_req_addr_o  = (x_state_q == XPageReq)
                      ? {x_old_page_q, 12'b0} + (64'(x_slot_q) << 6)  // word 0 holds valid
                      : qpt_base_i + (64'(x_req_q.index[DirIdxW-1:0]) << 3);
      mem_req_wdata_o = {448'b0, x_req_q.dir_entry};
    end
  end

  // ---------------------------------------------------------------------------------
  // Maintenance engine: which line needs it
  // ---------------------------------------------------------------------------------
  logic [QpnW-1:0] x_line_qpn;
  logic            x_line_in_page, x_needs_wb, x_drops;
  assign x_line_qpn     = {tag_q[x_line_q], x_line_q[LineW-1 -: SetW]};
  assign x_line_in_page = page_of(x_line_qpn) == x_req_q.index[DirIdxW-1:0];
  // SYNC writes dirty lines back; MAP/UNMAP writes back the page's lines, and drops
  // them (XDrop) once it knows the page holds no valid QP.
  assign x_drops    = valid_q[x_line_q] && x_line_in_page;
  assign x_needs_wb = valid_q[x_line_q] && dirty_q[x_line_q]
                   && (x_req_q.op == qpm_pkg::CtxSync || x_line_in_page);
  assign xread_now  = x_state_q == XScan && x_needs_wb && !wb_valid_q;

  // ---------------------------------------------------------------------------------
  // The RAM port
  // ---------------------------------------------------------------------------------
  logic [MshrW-1:0] rsp_m;  // the miss register a memory response belongs to
  logic [LineW-1:0] fill_line;
  assign rsp_m     = mem_rsp_id_i[MshrW-1:0];
  assign fill_line = line_of(set_of(m_qpn_q[rsp_m]), m_way_q[rsp_m]);
  always_comb begin
    ram_req    = 1'b0;
    ram_we     = 1'b0;
    aram_req   = 1'b0;
    ram_addr   = r_line;
    ram_wdata  = r.wdata;
    aram_wdata = m_addr_q[rsp_m];
    if (fill_now) begin
      ram_req   = 1'b1;
      aram_req  = 1'b1;
      ram_we    = 1'b1;
      ram_addr  = fill_line;
      ram_wdata = mem_rsp_rdata_i;
    end else if (wbread_now) begin
      ram_req  = 1'b1;
      aram_req = 1'b1;
      ram_addr = line_of(set_of(m_qpn_q[sched]), m_way_q[sched]);
    end else if (xread_now) begin
      ram_req  = 1'b1;
      aram_req = 1'b1;
      ram_addr = x_line_q;
    end else if (p_act == PReadHit) begin
      ram_req = 1'b1;
    end else if (p_act == PWriteHit) begin
      ram_req = 1'b1;
      ram_we  = 1'b1;
    end
  end

  // ---------------------------------------------------------------------------------
  // State update
  // ---------------------------------------------------------------------------------
  logic                 rsp_valid_q, rsp_from_ram_q;
  logic [qpm_pkg::CtxTagW-1:0] rsp_tag_q;
  qpm_pkg::ctx_status_e rsp_status_q;
  logic [qpm_pkg::NumCounters-1:0] count_d;
  logic                 stall_counted_q;

  // Directory-cache side effects.
  logic maint_rsp, walk_unmapped;
  assign maint_rsp     = mem_rsp_valid_i && mem_rsp_id_i == MaintId;
  assign walk_unmapped = mem_rsp_valid_i && !mem_rsp_write_i && (32'(mem_rsp_id_i) < Mshrs)
                      && m_state_q[rsp_m] == MDirWait && !mem_rsp_error_i && !mem_rsp_rdata_i[0];
  always_comb begin
    // The cached entry goes once memory took the directory write.
    inval_idx = x_req_q.index[DirIdxW-1:0];
    dir_inval = x_state_q == XDirWait && maint_rsp && mem_rsp_write_i && !mem_rsp_error_i;
    dir_fill_valid = 1'b0;
    fill_idx       = page_of(m_qpn_q[rsp_m]);
    dir_fill_page  = mem_rsp_rdata_i[63:12];
    if (mem_rsp_valid_i && !mem_rsp_write_i && (32'(mem_rsp_id_i) < Mshrs)
        && m_state_q[rsp_m] == MDirWait && !mem_rsp_error_i
        && mem_rsp_rdata_i[0]) begin
      dir_fill_valid = 1'b1;
    end
  end
  assign mapped_any_o = mapped_count_q != '0;

  // Event counters (registered one cycle late; docs/qp-table.md says what each counts).
  logic p_hit_served, pipe_wait_starts, victim_taken, victim_wait_starts;
  assign p_hit_served = p_act == PReadHit || p_act == PWriteHit
                     || (p_act == PRespond && r_hit && !p_refused
                         && !(r_is_replay && m_status_q[r_replay_mshr] != qpm_pkg::CtxOk));
  assign pipe_wait_starts   = p_act == PStall && p_wait && !r_is_replay && !stall_counted_q;
  assign victim_taken       = sched_any && m_state_q[sched] == MVictim && v_found;
  assign victim_wait_starts = sched_any && m_state_q[sched] == MVictim && !v_found
                           && !m_waited_q[sched];
  always_comb begin
    count_d = '0;
    count_d[qpm_pkg::CntHits]       = p_hit_served && !r_is_replay && r.op != qpm_pkg::CtxPrefetch;
    count_d[qpm_pkg::CntMisses]     = p_act == PPark && p_new_miss;
    count_d[qpm_pkg::CntMerged]     = p_act == PPark && p_merge;
    count_d[qpm_pkg::CntEvictions]  = victim_taken && valid_q[v_line];
    count_d[qpm_pkg::CntWritebacks] = mem_rsp_valid_i && mem_rsp_write_i
                                   && (mem_rsp_id_i != MaintId || x_state_q == XWbWait);
    count_d[qpm_pkg::CntWalks]      = sched_any && m_state_q[sched] == MDir;
    count_d[qpm_pkg::CntDirHits]    = sched_any && m_state_q[sched] == MDir && dir_walk_hit;
    count_d[qpm_pkg::CntRefused]    = p_refused || walk_unmapped;
    count_d[qpm_pkg::CntMemErrors]  = mem_rsp_valid_i && mem_rsp_error_i;
    count_d[qpm_pkg::CntMissWaits]  = pipe_wait_starts || victim_wait_starts;
  end

  // Next-state copies of every register (STYLE.md §2.4: flops only take q <= d).
  logic [Lines-1:0]            valid_d, dirty_d, pinned_d, reserved_d;
  logic [TagW-1:0]             tag_d [Lines];
  logic [Ways-2:0]             plru_d [Sets];
  mshr_e                       m_state_d [Mshrs];
  logic [QpnW-1:0]             m_qpn_d [Mshrs];
  logic [WayW-1:0]             m_way_d [Mshrs];
  logic [QpnW-1:0]             m_vqpn_d [Mshrs];
  logic [AddrW-1:0]            m_addr_d [Mshrs];
  qpm_pkg::ctx_status_e        m_status_d [Mshrs];
  logic [SeqW-1:0]             m_enq_d [Mshrs];
  logic [SeqW-1:0]             m_deq_d [Mshrs];
  logic [Mshrs-1:0]            m_waited_d;
  logic [ParkDepth-1:0]        p_valid_d;
  logic [MshrW-1:0]            p_mshr_d [ParkDepth];
  logic [SeqW-1:0]             p_seq_d [ParkDepth];
  logic                        wb_load_d, wb_valid_d;
  logic [MemIdW-1:0]           wb_load_id_d, wb_id_d;
  logic [DataW-1:0]            wb_data_d;
  maint_e                      x_state_d;
  qpm_pkg::ctx_req_t           x_req_d;
  logic [LineW-1:0]            x_line_d;
  logic                        x_error_d, x_old_valid_d;
  logic [63:12]                x_old_page_d;
  logic [PageBits-1:0]         x_slot_d;
  logic [DirIdxW:0]            mapped_count_d;
  logic                        rsp_valid_d, rsp_from_ram_d, stall_counted_d;
  logic [qpm_pkg::CtxTagW-1:0] rsp_tag_d;
  qpm_pkg::ctx_status_e        rsp_status_d;

  // Next state of everything: registers hold, then the pipe, the scheduled miss
  // register, the write-back buffer, memory responses and the maintenance engine act.
  always_comb begin
    valid_d = valid_q;
    dirty_d = dirty_q;
    pinned_d = pinned_q;
    reserved_d = reserved_q;
    m_waited_d = m_waited_q;
    p_valid_d = p_valid_q;
    wb_load_d = wb_load_q;
    wb_load_id_d = wb_load_id_q;
    wb_valid_d = wb_valid_q;
    wb_id_d = wb_id_q;
    wb_data_d = wb_data_q;
    x_state_d = x_state_q;
    x_req_d = x_req_q;
    x_line_d = x_line_q;
    x_error_d = x_error_q;
    x_old_valid_d  = x_old_valid_q;
    x_old_page_d   = x_old_page_q;
    x_slot_d       = x_slot_q;
    mapped_count_d = mapped_count_q;
    rsp_valid_d = rsp_valid_q;
    rsp_from_ram_d = rsp_from_ram_q;
    rsp_tag_d = rsp_tag_q;
    rsp_status_d = rsp_status_q;
    stall_counted_d = stall_counted_q;
    stage_valid_d   = stage_valid_q;
    stage_idx_d     = stage_idx_q;
    if (stage_now) begin
      stage_valid_d = 1'b1;
      stage_idx_d   = replay_idx;
    end
    for (int unsigned i = 0; i < Mshrs; i++) begin
      m_state_d[i] = m_state_q[i];
      m_qpn_d[i] = m_qpn_q[i];
      m_way_d[i] = m_way_q[i];
      m_vqpn_d[i] = m_vqpn_q[i];
      m_addr_d[i] = m_addr_q[i];
      m_status_d[i] = m_status_q[i];
      m_enq_d[i] = m_enq_q[i];
      m_deq_d[i] = m_deq_q[i];
    end
    for (int unsigned i = 0; i < ParkDepth; i++) begin
      p_mshr_d[i] = p_mshr_q[i];
      p_seq_d[i] = p_seq_q[i];
    end
    rsp_valid_d    = 1'b0;
    rsp_from_ram_d = 1'b0;

    // ---- the pipe
    if (p_act != PStall) begin
      rsp_tag_d = r.tag;
      if (r_is_replay) begin
        stage_valid_d = 1'b0;
        p_valid_d[stage_idx_q] = 1'b0;
        m_deq_d[r_replay_mshr] = m_deq_q[r_replay_mshr] + SeqW'(1);
      end
    end
    unique case (p_act)
      PRespond: begin
        rsp_valid_d  = 1'b1;
        rsp_status_d = p_status;
        if (r_hit && p_status == qpm_pkg::CtxOk && !(r_is_replay && m_status_q[r_replay_mshr] != qpm_pkg::CtxOk)) begin
          if (r.op == qpm_pkg::CtxPin)   pinned_d[r_line] = 1'b1;
          if (r.op == qpm_pkg::CtxUnpin) pinned_d[r_line] = 1'b0;
        end
      end
      PReadHit: begin
        rsp_valid_d    = 1'b1;
        rsp_status_d   = qpm_pkg::CtxOk;
        rsp_from_ram_d = 1'b1;
      end
      PWriteHit: begin
        rsp_valid_d      = 1'b1;
        rsp_status_d     = qpm_pkg::CtxOk;
        dirty_d[r_line]  = 1'b1;
        // A context written invalid (DESTROY_QP) is no longer pinned.
        if (!r.wdata.valid) pinned_d[r_line] = 1'b0;
      end
      PPark: begin
        p_valid_d[park_free_idx] = 1'b1;
        if (p_new_miss) begin
          p_mshr_d[park_free_idx]   = mshr_free_idx;
          p_seq_d[park_free_idx]    = m_enq_q[mshr_free_idx];
          m_enq_d[mshr_free_idx]    = m_enq_q[mshr_free_idx] + SeqW'(1);
          m_state_d[mshr_free_idx]  = MVictim;
          m_qpn_d[mshr_free_idx]    = r.index;
          m_status_d[mshr_free_idx] = qpm_pkg::CtxOk;
          m_waited_d[mshr_free_idx] = 1'b0;
        end else begin
          p_mshr_d[park_free_idx] = r_mshr;
          p_seq_d[park_free_idx]  = m_enq_q[r_mshr];
          m_enq_d[r_mshr]         = m_enq_q[r_mshr] + SeqW'(1);
        end
      end
      PMaint: begin
        x_req_d   = r;
        x_line_d  = '0;
        x_slot_d  = '0;
        x_error_d = 1'b0;
        x_state_d = (r.op == qpm_pkg::CtxDirWrite) ? XOldReq : XScan;
      end
      default: ;
    endcase
    if (p_act != PStall) begin
      stall_counted_d = 1'b0;
    end else if (pipe_wait_starts) begin
      stall_counted_d = 1'b1;
    end

    // ---- the scheduled MSHR
    if (sched_any) begin
      unique case (m_state_q[sched])
        MVictim: begin
          if (v_found) begin
            m_way_d[sched]     = v_way;
            reserved_d[v_line] = 1'b1;
            valid_d[v_line]    = 1'b0;
            pinned_d[v_line]   = 1'b0;
            dirty_d[v_line]    = 1'b0;
            if (valid_q[v_line] && dirty_q[v_line]) begin
              m_vqpn_d[sched]  = {tag_q[v_line], v_set};
              m_state_d[sched] = MWbRead;
            end else begin
              m_state_d[sched] = MDir;
            end
          end else begin
            m_waited_d[sched] = 1'b1;
          end
        end
        MWbRead: begin
          wb_load_d        = 1'b1;
          wb_load_id_d     = MemIdW'(sched);
          m_state_d[sched] = MWbWait;
        end
        MDir: begin
          if (dir_walk_hit) begin
            m_addr_d[sched]  = {dir_walk_page, 6'(m_qpn_q[sched][PageBits-1:0])};
            m_state_d[sched] = MFillReq;
          end else begin
            m_state_d[sched] = MDirReq;
          end
        end
        MDirReq, MFillReq: begin
          if (mem_req_ready_i) m_state_d[sched] = (m_state_q[sched] == MDirReq) ? MDirWait : MFillWait;
        end
        default: ;
      endcase
    end

    // ---- the write-back buffer
    if (wb_load_q) begin
      wb_valid_d = 1'b1;
      wb_id_d    = wb_load_id_q;
      wb_data_d  = {aram_rdata, ram_rdata};
      wb_load_d  = 1'b0;
    end else if (wb_valid_q && mem_req_ready_i) begin
      wb_valid_d = 1'b0;
    end

    // ---- memory responses
    if (mem_rsp_valid_i) begin
      if (32'(mem_rsp_id_i) < Mshrs) begin
        unique case (m_state_q[rsp_m])
          MWbWait: m_state_d[rsp_m] = MDir;  // an error here loses the victim; counted
          MDirWait: begin
            if (mem_rsp_error_i) begin
              m_status_d[rsp_m] = qpm_pkg::CtxMemErr;
              m_state_d[rsp_m]  = MReplay;
            end else if (!mem_rsp_rdata_i[0]) begin
              m_status_d[rsp_m] = qpm_pkg::CtxUnmapped;
              m_state_d[rsp_m]  = MReplay;
            end else begin
              m_addr_d[rsp_m]  = {mem_rsp_rdata_i[63:12], 6'(m_qpn_q[rsp_m][PageBits-1:0])};
              m_state_d[rsp_m] = MFillReq;
            end
          end
          MFillWait: begin
            m_state_d[rsp_m] = MReplay;
            if (mem_rsp_error_i) begin
              m_status_d[rsp_m] = qpm_pkg::CtxMemErr;
            end else begin
              valid_d[fill_line]     = 1'b1;
              dirty_d[fill_line]     = 1'b0;
              pinned_d[fill_line]    = 1'b0;
            end
          end
          default: ;
        endcase
      end
    end

    // ---- miss registers done replaying
    for (int unsigned m = 0; m < Mshrs; m++) begin
      if (m_state_q[m] == MReplay && m_enq_q[m] == m_deq_q[m]
          && !(p_act == PPark && !p_new_miss && r_mshr == MshrW'(m))) begin
        m_state_d[m] = MFree;
        reserved_d[line_of(set_of(m_qpn_q[m]), m_way_q[m])] = 1'b0;
      end
    end

    // ---- maintenance engine
    unique case (x_state_q)
      XScan: begin
        if (x_needs_wb) begin
          if (!wb_valid_q) begin
            wb_load_d    = 1'b1;
            wb_load_id_d = MaintId;
            x_state_d    = XWbLoad;
          end
        end else begin
          if (32'(x_line_q) == Lines - 1) begin
            x_line_d = '0;
            // A failed write-back leaves the directory entry as it was (INT_ERR).
            if (x_req_q.op == qpm_pkg::CtxSync || x_error_q) begin
              x_state_d    = XIdle;
              rsp_valid_d  = 1'b1;
              rsp_tag_d    = x_req_q.tag;
              rsp_status_d = x_error_q ? qpm_pkg::CtxMemErr : qpm_pkg::CtxOk;
            end else begin
              // Memory now holds every QPC of the page: look for a valid one.
              x_state_d = x_old_valid_q ? XPageReq : XDirReq;
            end
          end else begin
            x_line_d = x_line_q + LineW'(1);
          end
        end
      end
      XWbLoad: x_state_d = XWbWait;
      XWbWait: begin
        if (mem_rsp_valid_i && mem_rsp_write_i && mem_rsp_id_i == MaintId) begin
          x_error_d         = x_error_q || mem_rsp_error_i;
          dirty_d[x_line_q] = 1'b0;
          x_state_d         = XScan;   // the same line again: now clean
        end
      end
      XOldReq: if (mem_x_dir && mem_req_ready_i) x_state_d = XOldWait;
      XOldWait: begin
        if (maint_rsp && !mem_rsp_write_i) begin
          x_old_valid_d = mem_rsp_rdata_i[0];
          x_old_page_d  = mem_rsp_rdata_i[63:12];
          if (mem_rsp_error_i) begin
            x_state_d    = XIdle;     // nothing changed
            rsp_valid_d  = 1'b1;
            rsp_tag_d    = x_req_q.tag;
            rsp_status_d = qpm_pkg::CtxMemErr;
          end else begin
            x_state_d = XScan;
          end
        end
      end
      XPageReq: if (mem_x_dir && mem_req_ready_i) x_state_d = XPageWait;
      XPageWait: begin
        if (maint_rsp && !mem_rsp_write_i) begin
          if (mem_rsp_error_i || mem_rsp_rdata_i[0]) begin
            // A valid QP (or a word that cannot be read) keeps the page: nothing changes.
            x_state_d    = XIdle;
            rsp_valid_d  = 1'b1;
            rsp_tag_d    = x_req_q.tag;
            rsp_status_d = mem_rsp_error_i ? qpm_pkg::CtxMemErr : qpm_pkg::CtxBusy;
          end else if (32'(x_slot_q) == (1 << PageBits) - 1) begin
            x_state_d = XDrop;
          end else begin
            x_slot_d  = x_slot_q + PageBits'(1);
            x_state_d = XPageReq;
          end
        end
      end
      XDrop: begin
        if (x_drops) valid_d[x_line_q] = 1'b0;
        if (32'(x_line_q) == Lines - 1) x_state_d = XDirReq;
        else                            x_line_d = x_line_q + LineW'(1);
      end
      XDirReq: if (mem_x_dir && mem_req_ready_i) x_state_d = XDirWait;
      XDirWait: begin
        if (maint_rsp && mem_rsp_write_i) begin
          x_state_d    = XIdle;
          rsp_valid_d  = 1'b1;
          rsp_tag_d    = x_req_q.tag;
          rsp_status_d = (x_error_q || mem_rsp_error_i) ? qpm_pkg::CtxMemErr : qpm_pkg::CtxOk;
          // Entries mapped since reset; an entry software left mapped across a reset
          // is not counted, and its unmap does not wrap the count below zero.
          if (!mem_rsp_error_i && x_old_valid_q != x_req_q.dir_entry[0]) begin
            if (x_req_q.dir_entry[0]) begin
              mapped_count_d = mapped_count_q + (DirIdxW + 1)'(1);
            end else if (mapped_count_q != '0) begin
              mapped_count_d = mapped_count_q - (DirIdxW + 1)'(1);
            end
          end
        end
      end
      default: ;
    endcase

  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= '0;
      dirty_q <= '0;
      pinned_q <= '0;
      reserved_q <= '0;
      m_waited_q <= '0;
      p_valid_q <= '0;
      wb_load_q <= 1'b0;
      wb_load_id_q <= '0;
      wb_valid_q <= 1'b0;
      wb_id_q <= '0;
      wb_data_q <= '0;
      x_state_q <= XIdle;
      x_req_q <= '0;
      x_line_q <= '0;
      x_error_q <= 1'b0;
      x_old_valid_q  <= 1'b0;
      x_old_page_q   <= '0;
      x_slot_q       <= '0;
      mapped_count_q <= '0;
      rsp_valid_q <= 1'b0;
      rsp_from_ram_q <= 1'b0;
      rsp_tag_q <= '0;
      rsp_status_q <= qpm_pkg::CtxOk;
      stall_counted_q <= 1'b0;
      stage_valid_q <= 1'b0;
      stage_idx_q <= '0;
      count_o <= '0;
    end else begin
      valid_q <= valid_d;
      dirty_q <= dirty_d;
      pinned_q <= pinned_d;
      reserved_q <= reserved_d;
      m_waited_q <= m_waited_d;
      p_valid_q <= p_valid_d;
      wb_load_q <= wb_load_d;
      wb_load_id_q <= wb_load_id_d;
      wb_valid_q <= wb_valid_d;
      wb_id_q <= wb_id_d;
      wb_data_q <= wb_data_d;
      x_state_q <= x_state_d;
      x_req_q <= x_req_d;
      x_line_q <= x_line_d;
      x_error_q <= x_error_d;
      x_old_valid_q  <= x_old_valid_d;
      x_old_page_q   <= x_old_page_d;
      x_slot_q       <= x_slot_d;
      mapped_count_q <= mapped_count_d;
      rsp_valid_q <= rsp_valid_d;
      rsp_from_ram_q <= rsp_from_ram_d;
      rsp_tag_q <= rsp_tag_d;
      rsp_status_q <= rsp_status_d;
      stall_counted_q <= stall_counted_d;
      stage_valid_q <= stage_valid_d;
      stage_idx_q <= stage_idx_d;
      count_o <= count_d;
    end
  end

  // Tags and PLRU bits: next state per element with explicit enables. (In one big
  // process, Yosys turns every indexed write into a copy of the whole array.)
  logic             pipe_touch, fill_touch;
  logic [SetW-1:0]  fill_set;
  logic [Ways-2:0]  pipe_touch_bits, fill_touch_bits;
  assign pipe_touch = p_act == PReadHit || p_act == PWriteHit
                   || (p_act == PRespond && r_hit && p_status == qpm_pkg::CtxOk && !p_refused);
  assign fill_set   = set_of(m_qpn_q[rsp_m]);
  assign fill_touch = fill_now;
  assign pipe_touch_bits = touch(plru_q[r_set], r_way);
  // A fill and a hit in one set in one cycle: both accesses count.
  assign fill_touch_bits = touch((pipe_touch && r_set == fill_set) ? pipe_touch_bits
                                                                    : plru_q[fill_set],
                                 m_way_q[rsp_m]);
  for (genvar g = 0; g < Lines; g++) begin : gen_tag_d
    assign tag_d[g] = (fill_now && fill_line == LineW'(g)) ? tag_of(m_qpn_q[rsp_m]) : tag_q[g];
  end
  for (genvar g = 0; g < Sets; g++) begin : gen_plru_d
    assign plru_d[g] = (fill_touch && fill_set == SetW'(g)) ? fill_touch_bits
                     : (pipe_touch && r_set == SetW'(g))    ? pipe_touch_bits
                     : plru_q[g];
  end

  for (genvar g = 0; g < Lines; g++) begin : gen_line_ff
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        tag_q[g] <= '0;
      end else begin
        tag_q[g] <= tag_d[g];
      end
    end
  end

  for (genvar g = 0; g < Sets; g++) begin : gen_set_ff
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        plru_q[g] <= '0;
      end else begin
        plru_q[g] <= plru_d[g];
      end
    end
  end

  for (genvar g = 0; g < Mshrs; g++) begin : gen_mshr_ff
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        m_state_q[g] <= MFree;
        m_qpn_q[g] <= '0;
        m_way_q[g] <= '0;
        m_vqpn_q[g] <= '0;
        m_addr_q[g] <= '0;
        m_status_q[g] <= qpm_pkg::CtxOk;
        m_enq_q[g] <= '0;
        m_deq_q[g] <= '0;
      end else begin
        m_state_q[g] <= m_state_d[g];
        m_qpn_q[g] <= m_qpn_d[g];
        m_way_q[g] <= m_way_d[g];
        m_vqpn_q[g] <= m_vqpn_d[g];
        m_addr_q[g] <= m_addr_d[g];
        m_status_q[g] <= m_status_d[g];
        m_enq_q[g] <= m_enq_d[g];
        m_deq_q[g] <= m_deq_d[g];
      end
    end
  end

  for (genvar g = 0; g < ParkDepth; g++) begin : gen_park_ff
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        p_mshr_q[g] <= '0;
        p_seq_q[g] <= '0;
      end else begin
        p_mshr_q[g] <= p_mshr_d[g];
        p_seq_q[g] <= p_seq_d[g];
      end
    end
  end



  // ---------------------------------------------------------------------------------
  // Contract
  // ---------------------------------------------------------------------------------
  // A fill lands only in the way its miss register reserved.
  `QPM_ASSERT(FillIntoReservedWay_A, fill_now |-> reserved_q[fill_line])
  // A replay of a successful fill hits: the line stays reserved until its waiters ran.
  logic r_replay_of_fill;  // (a named signal: Verilator 5.006 cannot index in SVA here)
  assign r_replay_of_fill = r_is_replay && m_status_q[r_replay_mshr] == qpm_pkg::CtxOk;
  `QPM_ASSERT(ReplayHits_A, r_replay_of_fill |-> r_hit)
  // At least one way of every set can always be evicted.
  `QPM_ASSERT(PinCapacity_A, 32'(r_pinned_in_set) < Ways)
`ifndef SYNTHESIS
  // Two miss registers never work on the same QPN.
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      for (int unsigned a = 0; a < Mshrs; a++) begin
        for (int unsigned b = a + 1; b < Mshrs; b++) begin
          assert (!(m_state_q[a] != MFree && m_state_q[b] != MFree && m_qpn_q[a] == m_qpn_q[b]))
            else $error("[ASSERT FAILED] %m: two miss registers for one QPN");
        end
      end
    end
  end
`endif

  assign rsp_valid_o  = rsp_valid_q;
  assign rsp_o.tag    = rsp_tag_q;
  assign rsp_o.status = rsp_status_q;
  assign rsp_o.rdata  = rsp_from_ram_q ? ram_rdata[qpm_pkg::QpcW-1:0] : '0;

endmodule
