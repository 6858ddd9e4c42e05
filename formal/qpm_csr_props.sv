// Properties of qpm_csr (docs/formal.md, formal/handshakes.toml): the AXI4-Lite slave's
// B and R channels keep the valid/ready rule (valid stays high and the response stable
// until ready), and every request gets exactly one response, with at most one write and
// one read outstanding (docs/architecture.md section 6). The embedded assertions
// (BValidHeld_A, RValidHeld_A, OneWriteOutstanding_A, QptBaseAligned_A,
// QpnLimitClamped_A, PolicySupported_A) are proven with every property.
//
// Environment: none. The AXI4-Lite master's inputs (AW, W, AR valids and payloads, the
// B and R readies), table_locked_i and counter_inc_i are free in every cycle: the
// properties hold even against a master that breaks the valid/ready rule.
module qpm_csr_props #(
  parameter int unsigned NumCounters = 2
) (
  input logic                   clk_i,
  input logic                   rst_ni,
  input logic                   s_axil_awvalid_i,
  input logic [11:0]            s_axil_awaddr_i,
  input logic                   s_axil_wvalid_i,
  input logic [31:0]            s_axil_wdata_i,
  input logic [3:0]             s_axil_wstrb_i,
  input logic                   s_axil_bready_i,
  input logic                   s_axil_arvalid_i,
  input logic [11:0]            s_axil_araddr_i,
  input logic                   s_axil_rready_i,
  input logic                   table_locked_i,
  input logic [NumCounters-1:0] counter_inc_i
);

  logic        awready, wready, bvalid, arready, rvalid;
  logic [1:0]  bresp, rresp;
  logic [31:0] rdata, qpn_limit;
  logic [63:0] qpt_base;
  logic [1:0]  evict_policy;
  qpm_csr #(.NumCounters(NumCounters)) u_dut (
    .clk_i            (clk_i),
    .rst_ni           (rst_ni),
    .s_axil_awvalid_i (s_axil_awvalid_i),
    .s_axil_awready_o (awready),
    .s_axil_awaddr_i  (s_axil_awaddr_i),
    .s_axil_wvalid_i  (s_axil_wvalid_i),
    .s_axil_wready_o  (wready),
    .s_axil_wdata_i   (s_axil_wdata_i),
    .s_axil_wstrb_i   (s_axil_wstrb_i),
    .s_axil_bvalid_o  (bvalid),
    .s_axil_bready_i  (s_axil_bready_i),
    .s_axil_bresp_o   (bresp),
    .s_axil_arvalid_i (s_axil_arvalid_i),
    .s_axil_arready_o (arready),
    .s_axil_araddr_i  (s_axil_araddr_i),
    .s_axil_rvalid_o  (rvalid),
    .s_axil_rready_i  (s_axil_rready_i),
    .s_axil_rdata_o   (rdata),
    .s_axil_rresp_o   (rresp),
    .qpt_base_o       (qpt_base),
    .qpn_limit_o      (qpn_limit),
    .evict_policy_o   (evict_policy),
    .table_locked_i   (table_locked_i),
    .counter_inc_i    (counter_inc_i)
  );

  `include "qpm_formal_reset.svh"

  // Requests taken and not yet answered, per channel (a scoreboard of counts).
  logic aw_hs, w_hs, b_hs, ar_hs, r_hs;
  assign aw_hs = s_axil_awvalid_i && awready;
  assign w_hs  = s_axil_wvalid_i && wready;
  assign b_hs  = bvalid && s_axil_bready_i;
  assign ar_hs = s_axil_arvalid_i && arready;
  assign r_hs  = rvalid && s_axil_rready_i;
  logic [2:0] aw_open_q, w_open_q, ar_open_q;  // handshakes minus responses
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      aw_open_q <= '0;
      w_open_q  <= '0;
      ar_open_q <= '0;
    end else begin
      aw_open_q <= aw_open_q + 3'(aw_hs) - 3'(b_hs);
      w_open_q  <= w_open_q + 3'(w_hs) - 3'(b_hs);
      ar_open_q <= ar_open_q + 3'(ar_hs) - 3'(r_hs);
    end
  end

  always_ff @(posedge clk_i) begin
    if (past_valid) begin
`ifdef P_B_HELD
      // B: valid and BRESP held until BREADY.
      if ($past(bvalid && !s_axil_bready_i)) assert (bvalid && bresp == $past(bresp));
`endif
`ifdef P_R_HELD
      // R: valid, RDATA and RRESP held until RREADY.
      if ($past(rvalid && !s_axil_rready_i))
        assert (rvalid && rdata == $past(rdata) && rresp == $past(rresp));
`endif
    end
    if (rst_ni) begin
`ifdef P_ONE_ANSWER
      // Exactly one B per write (its AW and its W both taken) and one R per read; at most
      // one write and one read outstanding.
      // (Exact: an AW or W is outstanding exactly while its ready is low, a read exactly
      // while R is valid.)
      if (bvalid) assert (aw_open_q == 3'd1 && w_open_q == 3'd1);
      else        assert (aw_open_q == 3'(!awready) && w_open_q == 3'(!wready));
      assert (ar_open_q == 3'(rvalid));
`endif
    end
  end

endmodule
