// qpm_top: the queue-pair management subsystem of an RDMA NIC (SPEC.md §2).
//
// Commands enter the command unit, which checks them against the hardware-enforced QP
// state machine and reads and writes QP contexts through the QPC-access interface. The
// QP cache behind it keeps Sets x Ways contexts on chip and walks the page-table-shaped
// QP table in host memory over the AXI4 master on a miss. Software programs the table
// base and QPN limit, and reads the event counters, over the AXI4-Lite CSR port. The
// datapath's operations and the doorbells share the cache's read-modify-write pipeline
// with the commands (qpm_dp_front); their events leave on the EQE port. A QP in ERR or
// SQE completes the WQEs it owes through the CQE port (the flush engine, qpm_dp_front,
// docs/errors.md). A QP's events wait in its context until the fatal or the flush
// engine carries them to the EQ FIFO in front of the EQE port (docs/events.md). The
// datapath and doorbell inputs and the requests between the blocks pass spill registers
// (docs/qp-cache.md §13, "Registered boundaries").
module qpm_top #(
  parameter int unsigned Sets        = 64,    // QP cache sets (power of two)
  parameter int unsigned Ways        = 4,     // QP cache ways (power of two)
  parameter int unsigned Mshrs       = 8,     // outstanding misses
  parameter int unsigned PageBits    = 6,     // QPCs per QP-table page = 2**PageBits
  parameter int unsigned DirEntries  = 1 << 18,  // directory entries; max QPN_LIMIT = DirEntries << PageBits
  parameter int unsigned NumPorts    = 2,     // physical ports, numbered 1 .. NumPorts
  parameter int unsigned PkeyTbl     = 128,   // P_Key table entries per port
  parameter int unsigned MaxRdAtomic = 16,    // largest max_rd_atomic / max_dest_rd_atomic
  parameter int unsigned CqeDepth    = 8,     // CQE FIFO entries
  parameter int unsigned EqDepth     = 16,    // EQ FIFO entries in front of the EQE port
  parameter int unsigned FlushSlots  = 4,     // QPs flushed at once before the scan (1 .. 7)
  // Write-back buffer entries (writes in flight), one per miss register, 32 at least: a
  // miss's dirty victim's write takes a round trip as its read does (docs/qp-cache.md).
  parameter int unsigned WbDepth     = (Mshrs > 32) ? Mshrs : 32,
  parameter int unsigned DirCacheEntries = 1024,  // the walker's directory cache (a power of 2)
  // One AXI read ID per miss register, one write ID per write-back buffer entry, and the
  // maintenance engine's: 4 bits up to 15 of either, wider beyond (32 entries take 6).
  localparam int unsigned AxiIds     = ((Mshrs > WbDepth) ? Mshrs : WbDepth) + 1,
  localparam int unsigned AxiIdW     = (AxiIds > 16) ? $clog2(AxiIds) : 4,
  // the eviction-trap question: {tag 4, set, per way {eligible, pinned, dirty, valid, qpn}}
  localparam int unsigned EvictReqW  = 4 + $clog2(Sets) + Ways * (qpm_pkg::QpnW + 4)
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  // control-plane commands and their responses, in order
  input  logic              cmd_valid_i,
  output logic              cmd_ready_o,
  input  qpm_pkg::cmd_t     cmd_i,
  output logic              rsp_valid_o,
  input  logic              rsp_ready_i,
  output qpm_pkg::rsp_t     rsp_o,
  // datapath operations and their verdicts (SPEC §6): in order per QPN
  input  logic              dp_req_valid_i,
  output logic              dp_req_ready_o,
  input  qpm_pkg::dp_req_t  dp_req_i,
  output logic              dp_rsp_valid_o,
  input  logic              dp_rsp_ready_i,
  output qpm_pkg::dp_rsp_t  dp_rsp_o,
  // doorbells: software posted WQEs
  input  logic              db_valid_i,
  output logic              db_ready_o,
  input  qpm_pkg::doorbell_t db_i,
  // asynchronous events
  output logic              eqe_valid_o,
  input  logic              eqe_ready_i,
  output qpm_pkg::eqe_t     eqe_o,
  // flush and error completions
  output logic              cqe_valid_o,
  input  logic              cqe_ready_i,
  output qpm_pkg::cqe_t     cqe_o,
  // the flush engine has QPs to step (a status: quiet means every owed CQE has been
  // computed; docs/errors.md)
  output logic              flush_busy_o,
  // the eviction trap (EVICT_POLICY = trap, docs/eviction.md): which way of a full set
  // to evict, asked of an external agent; its answer {tag, way} (no ready)
  output logic              evict_req_valid_o,
  input  logic              evict_req_ready_i,
  output logic [EvictReqW-1:0] evict_req_o,
  input  logic              evict_rsp_valid_i,
  input  logic [3:0]        evict_rsp_tag_i,
  input  logic [$clog2(Ways)-1:0] evict_rsp_way_i,
  // AXI4 master to the host memory holding the QP table
  output logic              m_axi_awvalid_o,
  input  logic              m_axi_awready_i,
  output logic [AxiIdW-1:0] m_axi_awid_o,
  output logic [63:0]       m_axi_awaddr_o,
  output logic [7:0]        m_axi_awlen_o,
  output logic [2:0]        m_axi_awsize_o,
  output logic [1:0]        m_axi_awburst_o,
  output logic [3:0]        m_axi_awcache_o,
  output logic [2:0]        m_axi_awprot_o,
  output logic              m_axi_wvalid_o,
  input  logic              m_axi_wready_i,
  output logic [255:0]      m_axi_wdata_o,
  output logic [31:0]       m_axi_wstrb_o,
  output logic              m_axi_wlast_o,
  input  logic              m_axi_bvalid_i,
  output logic              m_axi_bready_o,
  input  logic [AxiIdW-1:0] m_axi_bid_i,
  input  logic [1:0]        m_axi_bresp_i,
  output logic              m_axi_arvalid_o,
  input  logic              m_axi_arready_i,
  output logic [AxiIdW-1:0] m_axi_arid_o,
  output logic [63:0]       m_axi_araddr_o,
  output logic [7:0]        m_axi_arlen_o,
  output logic [2:0]        m_axi_arsize_o,
  output logic [1:0]        m_axi_arburst_o,
  output logic [3:0]        m_axi_arcache_o,
  output logic [2:0]        m_axi_arprot_o,
  input  logic              m_axi_rvalid_i,
  output logic              m_axi_rready_o,
  input  logic [AxiIdW-1:0] m_axi_rid_i,
  input  logic [255:0]      m_axi_rdata_i,
  input  logic [1:0]        m_axi_rresp_i,
  input  logic              m_axi_rlast_i,
  // AXI4-Lite CSR slave
  input  logic              s_axil_awvalid_i,
  output logic              s_axil_awready_o,
  input  logic [11:0]       s_axil_awaddr_i,
  input  logic              s_axil_wvalid_i,
  output logic              s_axil_wready_o,
  input  logic [31:0]       s_axil_wdata_i,
  input  logic [3:0]        s_axil_wstrb_i,
  output logic              s_axil_bvalid_o,
  input  logic              s_axil_bready_i,
  output logic [1:0]        s_axil_bresp_o,
  input  logic              s_axil_arvalid_i,
  output logic              s_axil_arready_o,
  input  logic [11:0]       s_axil_araddr_i,
  output logic              s_axil_rvalid_o,
  input  logic              s_axil_rready_i,
  output logic [31:0]       s_axil_rdata_o,
  output logic [1:0]        s_axil_rresp_o
);

  logic [63:0] qpt_base;
  logic [31:0] qpn_limit;
  logic [1:0]  evict_policy;
  // Counters in address order (docs/qp-table.md, "Registers", lists each): the cache's
  // up to MISS_WAITS, the datapath's DROPs by reason 1 .. 12, refused doorbells, events,
  // the flush's 3, WB_RETRIES, the events' 10, the eviction trap's 5, DROP_QUIESCE, the
  // resets' 2, WB_GIVEN_UP, TAKE_BACKS, the two lock parks' (datapath, then doorbells).
  // A counter added later goes last, so the others keep their addresses.
  localparam int unsigned NumDpCounters = qpm_pkg::NumDropReasons - 1 + 5 + 10 + 5 + 2 + 4;
  if (qpm_pipe_pkg::CntWbRetries != qpm_pipe_pkg::NumCounters - 1) begin : gen_bad_counter_map
    $error("the cache's WB_RETRIES must be its last counter: qpm_top maps it at the end");
  end
  logic [qpm_pipe_pkg::NumCounters-1:0]               cache_counts;
  logic [qpm_pipe_pkg::NumCounters+NumDpCounters-1:0] counts;
  logic [qpm_pkg::NumDropReasons-1:0]            dp_drops;
  logic                                          db_refused, event_raised;
  logic                                          cqe_sent, wqe_flushed, flush_overflow;
  logic                                          fatal_overflow, eq_hwm, pf_visit, pf_moved;
  logic [5:0]                                    ev_types;
  logic [4:0]                                    trap_counts;
  logic [15:0]                                   trap_timeout, reset_timeout;
  logic                                          reset_waited, reset_forced;
  logic                                          flush_busy, lock_park_wait, db_park_wait;
  logic                                          table_mapped;
  logic        cmd_refused;
  // QPNs refused by the command unit (beyond 24 bits) count with the cache's refusals.
  always_comb begin
    counts = {db_park_wait, lock_park_wait, take_back, wb_given_up, reset_forced, reset_waited,
              dp_drops[qpm_pkg::DropQuiesce], trap_counts, pf_moved, pf_visit, eq_hwm,
              ev_types, fatal_overflow,
              cache_counts[qpm_pipe_pkg::CntWbRetries], flush_overflow, wqe_flushed, cqe_sent,
              event_raised, db_refused, dp_drops[qpm_pkg::DropMemErr:1],
              cache_counts[qpm_pipe_pkg::CntWbRetries-1:0]};
    counts[qpm_pipe_pkg::CntRefused] = cache_counts[qpm_pipe_pkg::CntRefused] | cmd_refused;
  end
  logic unused_fatal_write;  // which fault made the QP fatal: the harness's probe only
  assign unused_fatal_write = mem_fatal_write;
  logic unused_drop_none;   // DROP always names a reason
  assign unused_drop_none = dp_drops[0];

  logic              cmd_ctx_req_valid, cmd_ctx_req_ready, cmd_ctx_rsp_valid;
  qpm_pkg::ctx_req_t cmd_ctx_req;
  qpm_pkg::ctx_rsp_t cmd_ctx_rsp;
  logic              cmd_ev_valid, cmd_ev_ready, cmd_lock_valid, cmd_pf_scan;
  logic [qpm_pkg::QpnW-1:0] cmd_lock_qpn;
  logic                     cmd_flush_wait, cmd_flush_wait_poll;  // a command waits for a flush
  qpm_pkg::eqe_t     cmd_ev;
  logic              ctx_req_valid, ctx_req_ready, ctx_rsp_valid;
  qpm_pkg::ctx_req_t ctx_req;
  qpm_pkg::ctx_rsp_t ctx_rsp;
  logic              mem_fatal;      // a fill made its QP fatal (a QPC read failed) ...
  logic              mem_fatal_write; // ... or a write-back of its QPC was given up
  logic [7:0]        wb_retry_budget;
  logic              wb_given_up, take_back;
  logic [qpm_pkg::QpnW-1:0] mem_fatal_qpn;

  qpm_cmd_unit #(
    .PageBits    (PageBits),
    .NumPorts    (NumPorts),
    .PkeyTbl     (PkeyTbl),
    .MaxRdAtomic (MaxRdAtomic),
    .PfAhead     ((Sets * Ways >= 64) ? 8 : 1)   // PORT_FAULT's steps in flight
  ) u_cmd_unit (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .qpn_limit_i     (qpn_limit),
    .reset_timeout_i (reset_timeout),
    .reset_waited_o  (reset_waited),
    .reset_forced_o  (reset_forced),
    .refused_o       (cmd_refused),
    .pf_visit_o      (pf_visit),
    .pf_moved_o      (pf_moved),
    .pf_scan_o       (cmd_pf_scan),
    .cmd_valid_i     (cmd_valid_i),
    .cmd_ready_o     (cmd_ready_o),
    .cmd_i           (cmd_i),
    .rsp_valid_o     (rsp_valid_o),
    .rsp_ready_i     (rsp_ready_i),
    .rsp_o           (rsp_o),
    .ctx_req_valid_o (cmd_ctx_req_valid),
    .ctx_req_ready_i (cmd_ctx_req_ready),
    .ctx_req_o       (cmd_ctx_req),
    .ctx_rsp_valid_i (cmd_ctx_rsp_valid),
    .ctx_rsp_i       (cmd_ctx_rsp),
    .lock_valid_o    (cmd_lock_valid),
    .lock_qpn_o      (cmd_lock_qpn),
    .flush_wait_o      (cmd_flush_wait),
    .flush_wait_poll_o (cmd_flush_wait_poll),
    .event_valid_o   (cmd_ev_valid),
    .event_ready_i   (cmd_ev_ready),
    .event_o         (cmd_ev)
  );

  // Registered boundaries (docs/qp-cache.md, "Registered boundaries"): the datapath's
  // and the doorbells' inputs (qpm_dp_ingress, with its lock parks), the command unit's
  // requests to the front and the front's to the cache (qpm_cache_port, whose entries
  // carry their set's tags) each pass a spill register, so no ready depends on another
  // block's lookup and no input reaches an output through logic.
  logic              dp_req_valid, dp_req_ready, db_valid, db_ready;
  qpm_pkg::dp_req_t  dp_req;
  qpm_pkg::doorbell_t db;
  logic              front_cmd_req_valid, front_cmd_req_ready;
  qpm_pkg::ctx_req_t front_cmd_req;

  qpm_dp_ingress u_dp_ingress (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .dp_valid_i     (dp_req_valid_i),
    .dp_ready_o     (dp_req_ready_o),
    .dp_i           (dp_req_i),
    .db_valid_i     (db_valid_i),
    .db_ready_o     (db_ready_o),
    .db_i           (db_i),
    .lock_valid_i   (cmd_lock_valid),
    .lock_qpn_i     (cmd_lock_qpn),
    .dp_valid_o     (dp_req_valid),
    .dp_ready_i     (dp_req_ready),
    .dp_o           (dp_req),
    .db_valid_o     (db_valid),
    .db_ready_i     (db_ready),
    .db_o           (db),
    .dp_park_wait_o (lock_park_wait),
    .db_park_wait_o (db_park_wait)
  );

  qpm_spill_reg #(.Width($bits(cmd_ctx_req))) u_cmd_req_reg (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (cmd_ctx_req_valid),
    .in_ready_o  (cmd_ctx_req_ready),
    .in_data_i   (cmd_ctx_req),
    .out_valid_o (front_cmd_req_valid),
    .out_ready_i (front_cmd_req_ready),
    .out_data_o  (front_cmd_req)
  );


  // Datapath operations in flight are bounded by the response FIFO's credits
  // (qpm_dp_front), so it must hold more than the miss registers can keep waiting: twice
  // Mshrs, at least 16 (default and tiny: 16), at most 128 (the in-flight count's width).
  // With 16 on `large` (64 registers) at most 16 misses were ever in flight.
  localparam int unsigned DpRspWant  = 1 << $clog2(2 * Mshrs);
  localparam int unsigned DpRspDepth = (DpRspWant < 16) ? 16 : (DpRspWant > 128) ? 128 : DpRspWant;
  qpm_dp_front #(
    .DpRspDepth (DpRspDepth),
    .CqeDepth   (CqeDepth),
    .EqDepth    (EqDepth),
    .FlushSlots (FlushSlots),
    .PageBits   (PageBits)
  ) u_dp_front (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .dp_req_valid_i  (dp_req_valid),
    .dp_req_ready_o  (dp_req_ready),
    .dp_req_i        (dp_req),
    .dp_rsp_valid_o  (dp_rsp_valid_o),
    .dp_rsp_ready_i  (dp_rsp_ready_i),
    .dp_rsp_o        (dp_rsp_o),
    .db_valid_i      (db_valid),
    .db_ready_o      (db_ready),
    .db_i            (db),
    .eqe_valid_o     (eqe_valid_o),
    .eqe_ready_i     (eqe_ready_i),
    .eqe_o           (eqe_o),
    .cqe_valid_o     (cqe_valid_o),
    .cqe_ready_i     (cqe_ready_i),
    .cqe_o           (cqe_o),
    .qpn_limit_i     (qpn_limit),
    .cmd_ev_valid_i  (cmd_ev_valid),
    .cmd_ev_ready_o  (cmd_ev_ready),
    .cmd_ev_i        (cmd_ev),
    .lock_valid_i    (cmd_lock_valid),
    .lock_qpn_i      (cmd_lock_qpn),
    .cmd_wait_i      (cmd_flush_wait),
    .cmd_wait_poll_i (cmd_flush_wait_poll),
    .cmd_req_valid_i (front_cmd_req_valid),
    .cmd_req_ready_o (front_cmd_req_ready),
    .cmd_req_i       (front_cmd_req),
    .cmd_rsp_valid_o (cmd_ctx_rsp_valid),
    .cmd_rsp_o       (cmd_ctx_rsp),
    .cmd_pf_scan_i   (cmd_pf_scan),
    .ctx_req_valid_o (ctx_req_valid),
    .ctx_req_ready_i (ctx_req_ready),
    .ctx_req_o       (ctx_req),
    .ctx_rsp_valid_i (ctx_rsp_valid),
    .ctx_rsp_i       (ctx_rsp),
    .mem_fatal_i     (mem_fatal),
    .mem_fatal_qpn_i (mem_fatal_qpn),
    .drop_o          (dp_drops),
    .db_refused_o    (db_refused),
    .event_o         (event_raised),
    .cqe_sent_o      (cqe_sent),
    .wqe_flushed_o   (wqe_flushed),
    .flush_overflow_o (flush_overflow),
    .fatal_overflow_o (fatal_overflow),
    .ev_type_o       (ev_types),
    .eq_hwm_o        (eq_hwm),
    .flush_busy_o    (flush_busy)
  );
  assign flush_busy_o = flush_busy;

  logic              mem_rd_valid, mem_rd_ready, mem_rd_line;
  logic              mem_wr_valid, mem_wr_ready, mem_wr_line;
  logic [AxiIdW-1:0] mem_rd_id, mem_wr_id, mem_rsp_id;
  logic [63:0]       mem_rd_addr, mem_wr_addr;
  logic [511:0]      mem_wr_wdata, mem_rsp_rdata;
  logic              mem_rsp_valid, mem_rsp_write, mem_rsp_error;

  qpm_qpc_cache #(
    .Sets       (Sets),
    .Ways       (Ways),
    .Mshrs      (Mshrs),
    .PageBits   (PageBits),
    .DirEntries (DirEntries),
    .WbDepth    (WbDepth),
    .DirCacheEntries (DirCacheEntries),
    .MemIdW     (AxiIdW)
  ) u_qpc_cache (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .qpt_base_i      (qpt_base),
    .qpn_limit_i     (qpn_limit),
    .evict_policy_i  (evict_policy),
    .trap_timeout_i  (trap_timeout),
    .trap_req_valid_o (evict_req_valid_o),
    .trap_req_ready_i (evict_req_ready_i),
    .trap_req_o      (evict_req_o),
    .trap_rsp_valid_i (evict_rsp_valid_i),
    .trap_rsp_tag_i  (evict_rsp_tag_i),
    .trap_rsp_way_i  (evict_rsp_way_i),
    .trap_cnt_o      (trap_counts),
    .req_valid_i     (ctx_req_valid),
    .req_ready_o     (ctx_req_ready),
    .req_i           (ctx_req),
    .rsp_valid_o     (ctx_rsp_valid),
    .rsp_o           (ctx_rsp),
    .mem_fatal_o     (mem_fatal),
    .mem_fatal_qpn_o (mem_fatal_qpn),
    .mem_fatal_write_o (mem_fatal_write),
    .wb_retry_budget_i (wb_retry_budget),
    .cnt_given_up_o  (wb_given_up),
    .cnt_take_back_o (take_back),
    .lock_valid_i    (cmd_lock_valid),
    .lock_qpn_i      (cmd_lock_qpn),
    .mem_rd_valid_o (mem_rd_valid),
    .mem_wr_valid_o (mem_wr_valid),
    .mem_rd_ready_i (mem_rd_ready),
    .mem_wr_ready_i (mem_wr_ready),
    .mem_rd_id_o    (mem_rd_id),
    .mem_wr_id_o    (mem_wr_id),
    .mem_rd_addr_o  (mem_rd_addr),
    .mem_wr_addr_o  (mem_wr_addr),
    .mem_rd_line_o  (mem_rd_line),
    .mem_wr_line_o  (mem_wr_line),
    .mem_wr_wdata_o (mem_wr_wdata),
    .mem_rsp_valid_i (mem_rsp_valid),
    .mem_rsp_write_i (mem_rsp_write),
    .mem_rsp_id_i    (mem_rsp_id),
    .mem_rsp_error_i (mem_rsp_error),
    .mem_rsp_rdata_i (mem_rsp_rdata),
    .count_o         (cache_counts),
    .mapped_any_o    (table_mapped)
  );

  qpm_axi_master #(
    .IdW    (AxiIdW),
    .NumIds (Mshrs + 1)
  ) u_axi_master (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .rd_req_valid_i  (mem_rd_valid),
    .wr_req_valid_i  (mem_wr_valid),
    .rd_req_ready_o  (mem_rd_ready),
    .wr_req_ready_o  (mem_wr_ready),
    .rd_req_id_i     (mem_rd_id),
    .wr_req_id_i     (mem_wr_id),
    .rd_req_addr_i   (mem_rd_addr),
    .wr_req_addr_i   (mem_wr_addr),
    .rd_req_line_i   (mem_rd_line),
    .wr_req_line_i   (mem_wr_line),
    .wr_req_wdata_i  (mem_wr_wdata),
    .rsp_valid_o     (mem_rsp_valid),
    .rsp_write_o     (mem_rsp_write),
    .rsp_id_o        (mem_rsp_id),
    .rsp_error_o     (mem_rsp_error),
    .rsp_rdata_o     (mem_rsp_rdata),
    .m_axi_awvalid_o (m_axi_awvalid_o),
    .m_axi_awready_i (m_axi_awready_i),
    .m_axi_awid_o    (m_axi_awid_o),
    .m_axi_awaddr_o  (m_axi_awaddr_o),
    .m_axi_awlen_o   (m_axi_awlen_o),
    .m_axi_awsize_o  (m_axi_awsize_o),
    .m_axi_awburst_o (m_axi_awburst_o),
    .m_axi_awcache_o (m_axi_awcache_o),
    .m_axi_awprot_o  (m_axi_awprot_o),
    .m_axi_wvalid_o  (m_axi_wvalid_o),
    .m_axi_wready_i  (m_axi_wready_i),
    .m_axi_wdata_o   (m_axi_wdata_o),
    .m_axi_wstrb_o   (m_axi_wstrb_o),
    .m_axi_wlast_o   (m_axi_wlast_o),
    .m_axi_bvalid_i  (m_axi_bvalid_i),
    .m_axi_bready_o  (m_axi_bready_o),
    .m_axi_bid_i     (m_axi_bid_i),
    .m_axi_bresp_i   (m_axi_bresp_i),
    .m_axi_arvalid_o (m_axi_arvalid_o),
    .m_axi_arready_i (m_axi_arready_i),
    .m_axi_arid_o    (m_axi_arid_o),
    .m_axi_araddr_o  (m_axi_araddr_o),
    .m_axi_arlen_o   (m_axi_arlen_o),
    .m_axi_arsize_o  (m_axi_arsize_o),
    .m_axi_arburst_o (m_axi_arburst_o),
    .m_axi_arcache_o (m_axi_arcache_o),
    .m_axi_arprot_o  (m_axi_arprot_o),
    .m_axi_rvalid_i  (m_axi_rvalid_i),
    .m_axi_rready_o  (m_axi_rready_o),
    .m_axi_rid_i     (m_axi_rid_i),
    .m_axi_rdata_i   (m_axi_rdata_i),
    .m_axi_rresp_i   (m_axi_rresp_i),
    .m_axi_rlast_i   (m_axi_rlast_i)
  );

  qpm_csr #(
    .SetsLog2    ($clog2(Sets)),
    .Ways        (Ways),
    .Mshrs       (Mshrs),
    .PageBits    (PageBits),
    .DirEntries  (DirEntries),
    .NumCounters   (qpm_pipe_pkg::NumCounters + NumDpCounters),
    .OwnCounterIdx (qpm_pipe_pkg::CntWbRetries)
  ) u_csr (
    .clk_i            (clk_i),
    .rst_ni           (rst_ni),
    .s_axil_awvalid_i (s_axil_awvalid_i),
    .s_axil_awready_o (s_axil_awready_o),
    .s_axil_awaddr_i  (s_axil_awaddr_i),
    .s_axil_wvalid_i  (s_axil_wvalid_i),
    .s_axil_wready_o  (s_axil_wready_o),
    .s_axil_wdata_i   (s_axil_wdata_i),
    .s_axil_wstrb_i   (s_axil_wstrb_i),
    .s_axil_bvalid_o  (s_axil_bvalid_o),
    .s_axil_bready_i  (s_axil_bready_i),
    .s_axil_bresp_o   (s_axil_bresp_o),
    .s_axil_arvalid_i (s_axil_arvalid_i),
    .s_axil_arready_o (s_axil_arready_o),
    .s_axil_araddr_i  (s_axil_araddr_i),
    .s_axil_rvalid_o  (s_axil_rvalid_o),
    .s_axil_rready_i  (s_axil_rready_i),
    .s_axil_rdata_o   (s_axil_rdata_o),
    .s_axil_rresp_o   (s_axil_rresp_o),
    .qpt_base_o       (qpt_base),
    .qpn_limit_o      (qpn_limit),
    .evict_policy_o   (evict_policy),
    .trap_timeout_o   (trap_timeout),
    .reset_timeout_o  (reset_timeout),
    .wb_retry_budget_o (wb_retry_budget),
    .table_locked_i   (table_mapped),
    .counter_inc_i    (counts)
  );



endmodule
