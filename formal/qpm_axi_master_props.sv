// Properties of qpm_axi_master (docs/formal.md, formal/handshakes.toml): the AXI4 master's
// AR, AW and W channels keep the valid/ready rule (AXI4 A3.2.1: once VALID is high it
// stays high, with every payload signal unchanged, until READY), and every write burst
// has AWLEN + 1 beats on W with WLAST on the last one and only there, one burst at a time
// (docs/qp-cache.md section 12: "One burst at a time on AW/W. W does not wait for the AW
// handshake"). The embedded assertions (ArHeldUntilReady_A, AwHeldUntilReady_A) are
// proven with every property.
//
// Environment: none. The cache's memory requests (rd_req_*, wr_req_*) and every input from the AXI4
// slave (the readies, R and B, whatever their IDs, order or timing) are free in every
// cycle. In particular no property relies on the slave answering only outstanding
// requests, nor on the requester keeping one request per ID.
module qpm_axi_master_props #(
  parameter int unsigned IdW    = 2,
  parameter int unsigned NumIds = 3
) (
  input logic           clk_i,
  input logic           rst_ni,
  input logic           rd_req_valid_i,
  input logic [IdW-1:0] rd_req_id_i,
  input logic [63:0]    rd_req_addr_i,
  input logic           rd_req_line_i,
  input logic           wr_req_valid_i,
  input logic [IdW-1:0] wr_req_id_i,
  input logic [63:0]    wr_req_addr_i,
  input logic           wr_req_line_i,
  input logic [511:0]   wr_req_wdata_i,
  input logic           m_axi_awready_i,
  input logic           m_axi_wready_i,
  input logic           m_axi_bvalid_i,
  input logic [IdW-1:0] m_axi_bid_i,
  input logic [1:0]     m_axi_bresp_i,
  input logic           m_axi_arready_i,
  input logic           m_axi_rvalid_i,
  input logic [IdW-1:0] m_axi_rid_i,
  input logic [255:0]   m_axi_rdata_i,
  input logic [1:0]     m_axi_rresp_i,
  input logic           m_axi_rlast_i
);

  logic           rd_req_ready, wr_req_ready, rsp_valid, rsp_write, rsp_error;
  logic [IdW-1:0] rsp_id;
  logic [511:0]   rsp_rdata;
  logic           awvalid, wvalid, wlast, bready, arvalid, rready;
  logic [IdW-1:0] awid, arid;
  logic [63:0]    awaddr, araddr;
  logic [7:0]     awlen, arlen;
  logic [2:0]     awsize, arsize, awprot, arprot;
  logic [1:0]     awburst, arburst;
  logic [3:0]     awcache, arcache;
  logic [255:0]   wdata;
  logic [31:0]    wstrb;
  qpm_axi_master #(.IdW(IdW), .NumIds(NumIds)) u_dut (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .rd_req_valid_i  (rd_req_valid_i),
    .rd_req_ready_o  (rd_req_ready),
    .rd_req_id_i     (rd_req_id_i),
    .rd_req_addr_i   (rd_req_addr_i),
    .rd_req_line_i   (rd_req_line_i),
    .wr_req_valid_i  (wr_req_valid_i),
    .wr_req_ready_o  (wr_req_ready),
    .wr_req_id_i     (wr_req_id_i),
    .wr_req_addr_i   (wr_req_addr_i),
    .wr_req_line_i   (wr_req_line_i),
    .wr_req_wdata_i  (wr_req_wdata_i),
    .rsp_valid_o     (rsp_valid),
    .rsp_write_o     (rsp_write),
    .rsp_id_o        (rsp_id),
    .rsp_error_o     (rsp_error),
    .rsp_rdata_o     (rsp_rdata),
    .m_axi_awvalid_o (awvalid),
    .m_axi_awready_i (m_axi_awready_i),
    .m_axi_awid_o    (awid),
    .m_axi_awaddr_o  (awaddr),
    .m_axi_awlen_o   (awlen),
    .m_axi_awsize_o  (awsize),
    .m_axi_awburst_o (awburst),
    .m_axi_awcache_o (awcache),
    .m_axi_awprot_o  (awprot),
    .m_axi_wvalid_o  (wvalid),
    .m_axi_wready_i  (m_axi_wready_i),
    .m_axi_wdata_o   (wdata),
    .m_axi_wstrb_o   (wstrb),
    .m_axi_wlast_o   (wlast),
    .m_axi_bvalid_i  (m_axi_bvalid_i),
    .m_axi_bready_o  (bready),
    .m_axi_bid_i     (m_axi_bid_i),
    .m_axi_bresp_i   (m_axi_bresp_i),
    .m_axi_arvalid_o (arvalid),
    .m_axi_arready_i (m_axi_arready_i),
    .m_axi_arid_o    (arid),
    .m_axi_araddr_o  (araddr),
    .m_axi_arlen_o   (arlen),
    .m_axi_arsize_o  (arsize),
    .m_axi_arburst_o (arburst),
    .m_axi_arcache_o (arcache),
    .m_axi_arprot_o  (arprot),
    .m_axi_rvalid_i  (m_axi_rvalid_i),
    .m_axi_rready_o  (rready),
    .m_axi_rid_i     (m_axi_rid_i),
    .m_axi_rdata_i   (m_axi_rdata_i),
    .m_axi_rresp_i   (m_axi_rresp_i),
    .m_axi_rlast_i   (m_axi_rlast_i)
  );

  `include "qpm_formal_reset.svh"

  // Every payload signal of a channel, for the stability checks.
  logic [IdW+64+8+3+2+4+3-1:0] ar_pay, aw_pay;
  logic [256+32+1-1:0]         w_pay;
  assign ar_pay = {arid, araddr, arlen, arsize, arburst, arcache, arprot};
  assign aw_pay = {awid, awaddr, awlen, awsize, awburst, awcache, awprot};
  assign w_pay  = {wdata, wstrb, wlast};

  // ---- write bursts: AW and W of one burst paired, in order, one burst at a time
  logic       aw_hs, w_hs;
  assign aw_hs = awvalid && m_axi_awready_i;
  assign w_hs  = wvalid && m_axi_wready_i;
  logic       aw_taken_q;   // the burst's AW was taken (its W not finished yet)
  logic [7:0] len_q;        // its AWLEN
  logic       w_done_q;     // the burst's W ended (WLAST taken) before its AW was taken
  logic [8:0] w_beats_q;    // W beats of the burst taken so far
  logic       aw_known, w_done_now, aw_now;
  logic [7:0] len;
  logic [8:0] beats_now;
  assign aw_known   = aw_taken_q || aw_hs;
  assign len        = aw_taken_q ? len_q : awlen;
  assign beats_now  = w_beats_q + 9'(w_hs);
  assign w_done_now = w_done_q || (w_hs && wlast);
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      aw_taken_q <= 1'b0;
      len_q      <= '0;
      w_done_q   <= 1'b0;
      w_beats_q  <= '0;
    end else if (w_done_now && aw_known) begin  // the burst is complete on both channels
      aw_taken_q <= 1'b0;
      w_done_q   <= 1'b0;
      w_beats_q  <= '0;
    end else begin
      aw_taken_q <= aw_known;
      if (aw_hs) len_q <= awlen;
      w_done_q   <= w_done_now;
      w_beats_q  <= beats_now;
    end
  end

  always_ff @(posedge clk_i) begin
    if (past_valid) begin
`ifdef P_AR_HELD
      if ($past(arvalid && !m_axi_arready_i)) assert (arvalid && ar_pay == $past(ar_pay));
`endif
`ifdef P_AW_HELD
      if ($past(awvalid && !m_axi_awready_i)) assert (awvalid && aw_pay == $past(aw_pay));
`endif
`ifdef P_W_HELD
      if ($past(wvalid && !m_axi_wready_i)) assert (wvalid && w_pay == $past(w_pay));
`endif
    end
    if (rst_ni) begin
`ifdef P_W_BEATS
      // A W beat with its AW known: at most AWLEN + 1 beats, WLAST exactly on beat AWLEN + 1.
      if (w_hs && aw_known) assert (beats_now <= 9'(len) + 9'd1 && wlast == (beats_now == 9'(len) + 9'd1));
      // One burst at a time: no beat of a next burst before this burst's AW was taken ...
      if (w_hs) assert (!w_done_q);
      // ... and no next AW before this burst's W has ended.
      if (aw_hs) assert (!aw_taken_q);
      // An AW taken after W beats of its burst: those beats fit AWLEN + 1, exactly when
      // WLAST was among them.
      if (aw_hs && !aw_taken_q) begin
        if (w_done_q) assert (w_beats_q == 9'(awlen) + 9'd1);
        else          assert (w_beats_q <= 9'(awlen));
      end
`endif
    end
  end

  // Outputs no property here reads (the read and response paths).
  logic unused_props;
  assign unused_props = ^{rd_req_ready, wr_req_ready, rsp_valid, rsp_write, rsp_error, rsp_id,
                          rsp_rdata, bready, rready};

endmodule
