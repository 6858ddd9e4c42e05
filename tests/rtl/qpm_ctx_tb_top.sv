// qpm_ctx_tb_top: the QP cache and the AXI4 master on their own, for the block tests
// in tests/test_qp_cache.cpp. The QPC-access port is exposed so a test can keep many
// tagged requests in flight (the command unit keeps one), which is what exercises
// merges, hits under misses and the races between lookups and evictions.
module qpm_ctx_tb_top #(
  parameter int unsigned Sets  = 2,
  parameter int unsigned Ways  = 4,
  parameter int unsigned Mshrs = 4
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic [63:0]           qpt_base_i,
  input  logic [31:0]           qpn_limit_i,
  input  logic [1:0]            evict_policy_i,
  input  logic [15:0]           trap_timeout_i,
  output logic                  trap_req_valid_o,
  input  logic                  trap_req_ready_i,
  output logic [4 + $clog2(Sets) + Ways * 28 - 1:0] trap_req_o,
  input  logic                  trap_rsp_valid_i,
  input  logic [3:0]            trap_rsp_tag_i,
  input  logic [$clog2(Ways)-1:0] trap_rsp_way_i,
  output logic [4:0]            trap_cnt_o,
  input  logic                  req_valid_i,
  output logic                  req_ready_o,
  input  qpm_pkg::ctx_req_t     req_i,
  output logic                  rsp_valid_o,
  output qpm_pkg::ctx_rsp_t     rsp_o,
  output logic                  mem_fatal_o,
  output logic [qpm_pkg::QpnW-1:0] mem_fatal_qpn_o,
  output logic                  mem_fatal_write_o,
  input  logic [7:0]            wb_retry_budget_i,   // 0 (the tests' default): retry forever
  output logic                  cnt_given_up_o,
  input  logic                  lock_valid_i,
  input  logic [qpm_pkg::QpnW-1:0] lock_qpn_i,
  output logic [qpm_pkg::NumCounters-1:0] count_o,
  output logic                  mapped_any_o,
  output logic                  m_axi_awvalid_o,
  input  logic                  m_axi_awready_i,
  output logic [3:0]            m_axi_awid_o,
  output logic [63:0]           m_axi_awaddr_o,
  output logic [7:0]            m_axi_awlen_o,
  output logic [2:0]            m_axi_awsize_o,
  output logic [1:0]            m_axi_awburst_o,
  output logic                  m_axi_wvalid_o,
  input  logic                  m_axi_wready_i,
  output logic [255:0]          m_axi_wdata_o,
  output logic [31:0]           m_axi_wstrb_o,
  output logic                  m_axi_wlast_o,
  input  logic                  m_axi_bvalid_i,
  output logic                  m_axi_bready_o,
  input  logic [3:0]            m_axi_bid_i,
  input  logic [1:0]            m_axi_bresp_i,
  output logic                  m_axi_arvalid_o,
  input  logic                  m_axi_arready_i,
  output logic [3:0]            m_axi_arid_o,
  output logic [63:0]           m_axi_araddr_o,
  output logic [7:0]            m_axi_arlen_o,
  output logic [2:0]            m_axi_arsize_o,
  output logic [1:0]            m_axi_arburst_o,
  input  logic                  m_axi_rvalid_i,
  output logic                  m_axi_rready_o,
  input  logic [3:0]            m_axi_rid_i,
  input  logic [255:0]          m_axi_rdata_i,
  input  logic [1:0]            m_axi_rresp_i,
  input  logic                  m_axi_rlast_i
);

  logic         mem_req_valid, mem_req_ready, mem_req_write, mem_req_line;
  logic [3:0]   mem_req_id, mem_rsp_id;
  logic [63:0]  mem_req_addr;
  logic [511:0] mem_req_wdata, mem_rsp_rdata;
  logic         mem_rsp_valid, mem_rsp_write, mem_rsp_error;
  logic [3:0]   awcache, arcache;
  logic [2:0]   awprot, arprot;

  qpm_qpc_cache #(
    .Sets   (Sets),
    .Ways   (Ways),
    .Mshrs  (Mshrs),
    .MemIdW (4)
  ) u_qpc_cache (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .qpt_base_i      (qpt_base_i),
    .qpn_limit_i     (qpn_limit_i),
    .evict_policy_i  (evict_policy_i),
    .trap_timeout_i  (trap_timeout_i),
    .trap_req_valid_o (trap_req_valid_o),
    .trap_req_ready_i (trap_req_ready_i),
    .trap_req_o      (trap_req_o),
    .trap_rsp_valid_i (trap_rsp_valid_i),
    .trap_rsp_tag_i  (trap_rsp_tag_i),
    .trap_rsp_way_i  (trap_rsp_way_i),
    .trap_cnt_o      (trap_cnt_o),
    .req_valid_i     (req_valid_i),
    .req_ready_o     (req_ready_o),
    .req_i           (req_i),
    .rsp_valid_o     (rsp_valid_o),
    .rsp_o           (rsp_o),
    .mem_fatal_o     (mem_fatal_o),
    .mem_fatal_qpn_o (mem_fatal_qpn_o),
    .mem_fatal_write_o (mem_fatal_write_o),
    .wb_retry_budget_i (wb_retry_budget_i),
    .cnt_given_up_o  (cnt_given_up_o),
    .lock_valid_i    (lock_valid_i),
    .lock_qpn_i      (lock_qpn_i),
    .mem_req_valid_o (mem_req_valid),
    .mem_req_ready_i (mem_req_ready),
    .mem_req_write_o (mem_req_write),
    .mem_req_id_o    (mem_req_id),
    .mem_req_addr_o  (mem_req_addr),
    .mem_req_line_o  (mem_req_line),
    .mem_req_wdata_o (mem_req_wdata),
    .mem_rsp_valid_i (mem_rsp_valid),
    .mem_rsp_write_i (mem_rsp_write),
    .mem_rsp_id_i    (mem_rsp_id),
    .mem_rsp_error_i (mem_rsp_error),
    .mem_rsp_rdata_i (mem_rsp_rdata),
    .count_o         (count_o),
    .mapped_any_o    (mapped_any_o)
  );

  qpm_axi_master #(
    .IdW    (4),
    .NumIds (Mshrs + 1)
  ) u_axi_master (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .req_valid_i     (mem_req_valid),
    .req_ready_o     (mem_req_ready),
    .req_write_i     (mem_req_write),
    .req_id_i        (mem_req_id),
    .req_addr_i      (mem_req_addr),
    .req_line_i      (mem_req_line),
    .req_wdata_i     (mem_req_wdata),
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
    .m_axi_awcache_o (awcache),
    .m_axi_awprot_o  (awprot),
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
    .m_axi_arcache_o (arcache),
    .m_axi_arprot_o  (arprot),
    .m_axi_rvalid_i  (m_axi_rvalid_i),
    .m_axi_rready_o  (m_axi_rready_o),
    .m_axi_rid_i     (m_axi_rid_i),
    .m_axi_rdata_i   (m_axi_rdata_i),
    .m_axi_rresp_i   (m_axi_rresp_i),
    .m_axi_rlast_i   (m_axi_rlast_i)
  );

  logic unused_attrs;
  assign unused_attrs = ^{awcache, arcache, awprot, arprot};

endmodule
