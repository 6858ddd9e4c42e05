// qpm_csr: the AXI4-Lite register block of qpm (docs/qp-table.md, "Registers").
//
// 32-bit data, 12-bit byte address; the two low address bits are ignored. One write and
// one read may be outstanding at a time. AW and W are taken in either order or together
// and held until both are present; the write then takes effect in that cycle and its
// response is raised on the next. A read is decoded in the cycle its AR handshake
// happens and answered on the next. Write strobes are honoured per byte, then the
// register's own rules apply (alignment of QPT_BASE, clamping of QPN_LIMIT, supported
// eviction policies). Read-only registers ignore writes (OKAY); addresses outside the
// map answer SLVERR.
//
// The event counters are plain 32-bit wrapping flops in one flat vector, one
// counter_inc_i bit each, at 0x040 + 4*i in the order of the register table.
`include "qpm_assert.svh"

module qpm_csr #(
  parameter int unsigned SetsLog2    = 6,    // log2 of the QP cache's sets (CONFIG)
  parameter int unsigned Ways        = 4,    // QP cache ways (CONFIG)
  parameter int unsigned Mshrs       = 8,    // miss registers (CONFIG)
  parameter int unsigned PageBits    = 6,    // QPCs per QP-table page = 2**PageBits
  parameter int unsigned DirEntries  = 1 << 18,  // directory entries (QPN_LIMIT maximum / 64)
  parameter int unsigned NumCounters = 10,   // event counters from 0x040 on, from counter_inc_i
  // and one more of the CSR block's own, refused writes of QPT_BASE/QPN_LIMIT (while a
  // page is mapped) and of EVICT_POLICY (an unsupported value), at this
  // index of the map (the counters from counter_inc_i[OwnCounterIdx] on follow it)
  parameter int unsigned OwnCounterIdx = NumCounters,
  localparam int unsigned AllCounters = NumCounters + 1
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  // AXI4-Lite slave
  input  logic                   s_axil_awvalid_i,
  output logic                   s_axil_awready_o,
  input  logic [11:0]            s_axil_awaddr_i,
  input  logic                   s_axil_wvalid_i,
  output logic                   s_axil_wready_o,
  input  logic [31:0]            s_axil_wdata_i,
  input  logic [3:0]             s_axil_wstrb_i,
  output logic                   s_axil_bvalid_o,
  input  logic                   s_axil_bready_i,
  output logic [1:0]             s_axil_bresp_o,
  input  logic                   s_axil_arvalid_i,
  output logic                   s_axil_arready_o,
  input  logic [11:0]            s_axil_araddr_i,
  output logic                   s_axil_rvalid_o,
  input  logic                   s_axil_rready_i,
  output logic [31:0]            s_axil_rdata_o,
  output logic [1:0]             s_axil_rresp_o,
  // register values
  output logic [63:0]            qpt_base_o,      // directory base, 8-byte aligned
  output logic [31:0]            qpn_limit_o,     // QPNs at or above are refused
  output logic [1:0]             evict_policy_o,  // 0 = tree-PLRU
  output logic [15:0]            trap_timeout_o,  // cycles a trap question may wait
  output logic [15:0]            reset_timeout_o, // cycles a reset may wait for DMAs
  output logic [7:0]             wb_retry_budget_o, // tries of a write-back before it is given up
  // some directory entry is mapped: QPT_BASE and QPN_LIMIT are read-only (SPEC §3.2)
  input  logic                   table_locked_i,
  // event counters: bit i adds one to counter i this cycle
  input  logic [NumCounters-1:0] counter_inc_i
);

  // Word offsets (byte offset >> 2) of the register map.
  localparam logic [9:0] WordId          = 10'h000;
  localparam logic [9:0] WordConfig      = 10'h001;
  localparam logic [9:0] WordQptBaseLo   = 10'h002;
  localparam logic [9:0] WordQptBaseHi   = 10'h003;
  localparam logic [9:0] WordQpnLimit    = 10'h004;
  localparam logic [9:0] WordEvictPolicy = 10'h005;
  localparam logic [9:0] WordTrapTimeout = 10'h006;
  localparam logic [9:0] WordResetTimeout = 10'h007;
  localparam logic [9:0] WordWbRetryBudget = 10'h008;
  localparam int unsigned CntWordBase    = 16;  // HITS at 0x040

  localparam logic [31:0] IdValue = 32'h5150_4d31;  // "QPM1"
  localparam logic [31:0] ConfigValue = {8'(PageBits), 8'(Mshrs), 8'(Ways), 8'(SetsLog2)};
  // Hardware maximum of QPN_LIMIT (checked below to fit the 24-bit QPN space).
  localparam logic [31:0] MaxQpnLimit = 32'(64'(DirEntries) << PageBits);
  localparam logic [1:0] PolicyPlru = qpm_pkg::EvictPlru;

  localparam logic [1:0] RespOkay   = 2'b00;
  localparam logic [1:0] RespSlvErr = 2'b10;

  if (SetsLog2 > 255 || Ways > 255 || Mshrs > 255 || PageBits > 255) begin : gen_bad_config
    $error("SetsLog2, Ways, Mshrs and PageBits must fit the 8-bit fields of CONFIG");
  end
  if (DirEntries < 1 || PageBits > qpm_pkg::QpnW ||
      (64'(DirEntries) << PageBits) > (64'd1 << qpm_pkg::QpnW)) begin : gen_bad_dir
    $error("DirEntries << PageBits must be in 1 .. 2**QpnW");
  end
  if (OwnCounterIdx > NumCounters) begin : gen_bad_own_counter
    $error("OwnCounterIdx must be at most NumCounters");
  end
  if (NumCounters < 1 || NumCounters > 1024 - CntWordBase) begin : gen_bad_counters
    $error("NumCounters must be in 1 .. 1008 (the counters must fit the 4 KiB map)");
  end

  function automatic logic [31:0] merge_bytes(input logic [31:0] old_v,
                                              input logic [31:0] new_v,
                                              input logic [31:0] mask);
    merge_bytes = (old_v & ~mask) | (new_v & mask);
  endfunction

  // EVICT_POLICY values (docs/eviction.md): all four codes of qpm_pkg::Evict*.
  function automatic logic policy_supported(input logic [31:0] v);
    policy_supported = v < 32'd4;
  endfunction

  // ---------------------------------------------------------------------------------
  // Registers

  logic [63:3]               qpt_base_q, qpt_base_d;
  logic [31:0]               qpn_limit_q, qpn_limit_d;
  logic [1:0]                policy_q, policy_d;
  logic [15:0]               trap_timeout_q, trap_timeout_d;
  logic [15:0]               reset_timeout_q, reset_timeout_d;
  logic [7:0]                wb_budget_q, wb_budget_d;
  logic [AllCounters*32-1:0] cnt_q, cnt_d;
  logic                      table_write_refused;

  // write channel
  logic        aw_hold_q, aw_hold_d;
  logic [9:0]  aw_word_q, aw_word_d;
  logic        w_hold_q, w_hold_d;
  logic [31:0] wdata_q, wdata_d;
  logic [3:0]  wstrb_q, wstrb_d;
  logic        bvalid_q, bvalid_d;
  logic [1:0]  bresp_q, bresp_d;

  // read channel
  logic        rvalid_q, rvalid_d;
  logic [31:0] rdata_q, rdata_d;
  logic [1:0]  rresp_q, rresp_d;

  // ---------------------------------------------------------------------------------
  // Write channel: AW and W are each held until the other is there too.

  logic        aw_hs, w_hs, wr_fire;
  logic [9:0]  wr_word;
  logic [31:0] wr_data, wr_mask;
  logic [3:0]  wr_strb;

  assign s_axil_awready_o = !aw_hold_q && !bvalid_q;
  assign s_axil_wready_o  = !w_hold_q && !bvalid_q;
  assign aw_hs   = s_axil_awvalid_i && s_axil_awready_o;
  assign w_hs    = s_axil_wvalid_i && s_axil_wready_o;
  assign wr_fire = (aw_hold_q || aw_hs) && (w_hold_q || w_hs);
  assign wr_word = aw_hold_q ? aw_word_q : s_axil_awaddr_i[11:2];
  assign wr_data = w_hold_q ? wdata_q : s_axil_wdata_i;
  assign wr_strb = w_hold_q ? wstrb_q : s_axil_wstrb_i;

  always_comb begin
    for (int b = 0; b < 4; b++) begin
      wr_mask[8*b +: 8] = {8{wr_strb[b]}};
    end
  end

  always_comb begin
    aw_hold_d = aw_hold_q;
    aw_word_d = aw_word_q;
    w_hold_d  = w_hold_q;
    wdata_d   = wdata_q;
    wstrb_d   = wstrb_q;
    bvalid_d  = bvalid_q;
    if (aw_hs) begin
      aw_hold_d = 1'b1;
      aw_word_d = s_axil_awaddr_i[11:2];
    end
    if (w_hs) begin
      w_hold_d = 1'b1;
      wdata_d  = s_axil_wdata_i;
      wstrb_d  = s_axil_wstrb_i;
    end
    if (s_axil_bready_i) bvalid_d = 1'b0;
    if (wr_fire) begin
      aw_hold_d = 1'b0;
      w_hold_d  = 1'b0;
      bvalid_d  = 1'b1;
    end
  end

  // Register writes, after the byte strobes.
  logic [31:0] base_lo_new, base_hi_new, limit_new, policy_new, timeout_new, rst_timeout_new;
  logic [31:0] wb_budget_new;
  logic        wr_counter;
  assign base_lo_new = merge_bytes({qpt_base_q[31:3], 3'b000}, wr_data, wr_mask);
  assign base_hi_new = merge_bytes(qpt_base_q[63:32], wr_data, wr_mask);
  assign limit_new   = merge_bytes(qpn_limit_q, wr_data, wr_mask);
  assign policy_new  = merge_bytes({30'd0, policy_q}, wr_data, wr_mask);
  assign timeout_new = merge_bytes({16'd0, trap_timeout_q}, wr_data, wr_mask);
  assign rst_timeout_new = merge_bytes({16'd0, reset_timeout_q}, wr_data, wr_mask);
  assign wb_budget_new   = merge_bytes({24'd0, wb_budget_q}, wr_data, wr_mask);
  logic [55:0] unused_timeout_hi;   // EVICT_TRAP_TIMEOUT and RESET_TIMEOUT are 16 bits, WB_RETRY_BUDGET 8
  assign unused_timeout_hi = {timeout_new[31:16], rst_timeout_new[31:16], wb_budget_new[31:8]};
  assign wr_counter  = (32'(wr_word) >= CntWordBase) &&
                       (32'(wr_word) < CntWordBase + AllCounters);

  always_comb begin
    qpt_base_d  = qpt_base_q;
    qpn_limit_d = qpn_limit_q;
    policy_d    = policy_q;
    trap_timeout_d = trap_timeout_q;
    reset_timeout_d = reset_timeout_q;
    wb_budget_d     = wb_budget_q;
    bresp_d     = bresp_q;
    table_write_refused = 1'b0;
    if (wr_fire) begin
      bresp_d = RespOkay;
      unique case (wr_word)
        WordId, WordConfig: begin
          // read-only: ignored
        end
        // While a page is mapped, a cached line or directory entry could point into the
        // old table: the write is refused, changes nothing and is counted.
        WordQptBaseLo, WordQptBaseHi, WordQpnLimit: begin
          if (table_locked_i) begin
            bresp_d             = RespSlvErr;
            table_write_refused = 1'b1;
          end else if (wr_word == WordQptBaseLo) begin
            qpt_base_d[31:3] = base_lo_new[31:3];
          end else if (wr_word == WordQptBaseHi) begin
            qpt_base_d[63:32] = base_hi_new;
          end else begin
            qpn_limit_d = (limit_new > MaxQpnLimit) ? MaxQpnLimit : limit_new;
          end
        end
        // An unsupported policy is refused (SLVERR, counted), not mapped to another.
        WordEvictPolicy: begin
          if (policy_supported(policy_new)) begin
            policy_d = policy_new[1:0];
          end else begin
            bresp_d             = RespSlvErr;
            table_write_refused = 1'b1;
          end
        end
        // 16 bits; the upper half is ignored (reads back 0).
        WordTrapTimeout: trap_timeout_d = timeout_new[15:0];
        WordResetTimeout: reset_timeout_d = rst_timeout_new[15:0];
        WordWbRetryBudget: wb_budget_d    = wb_budget_new[7:0];
        default: begin
          // counters are read-only; everything else is outside the map
          if (!wr_counter) bresp_d = RespSlvErr;
        end
      endcase
    end
  end

  // ---------------------------------------------------------------------------------
  // Event counters: 32-bit, wrapping. The events are registered first (cnt_inc_q): a
  // counter counts an event one cycle after it, and the blocks' event logic and the
  // 32-bit increments are in different cycles (docs/capacity.md, "Timing proxy").

  logic [AllCounters-1:0] cnt_inc, cnt_inc_q;
  always_comb begin
    for (int i = 0; i < AllCounters; i++) begin
      if (i < OwnCounterIdx)       cnt_inc[i] = counter_inc_i[i];
      else if (i == OwnCounterIdx) cnt_inc[i] = table_write_refused;
      else                         cnt_inc[i] = counter_inc_i[i-1];
    end
    for (int i = 0; i < AllCounters; i++) begin
      cnt_d[32*i +: 32] = cnt_q[32*i +: 32] + 32'(cnt_inc_q[i]);
    end
  end

  // ---------------------------------------------------------------------------------
  // Read channel: decoded at the AR handshake, answered on the next cycle.

  logic       ar_hs;
  logic [9:0] rd_word;
  assign s_axil_arready_o = !rvalid_q;
  assign ar_hs   = s_axil_arvalid_i && s_axil_arready_o;
  assign rd_word = s_axil_araddr_i[11:2];

  // The counters' word, by a multiplexer tree on its index (log2 levels; a compare per
  // counter would chain them all).
  localparam int unsigned CntSelW = $clog2(AllCounters);
  logic [9:0]   cnt_word;
  logic [31:0]  cnt_value;
  logic         cnt_mapped;
  assign cnt_word   = rd_word - 10'(CntWordBase);
  assign cnt_mapped = 32'(rd_word) >= CntWordBase && 32'(cnt_word) < AllCounters;
  qpm_mux_tree #(.N(AllCounters), .W(32)) u_cnt_read (
    .in_i  (cnt_q),
    .sel_i (cnt_word[CntSelW-1:0]),
    .out_o (cnt_value)
  );

  logic [31:0] rd_value;
  logic        rd_mapped;
  always_comb begin
    rd_value  = '0;
    rd_mapped = 1'b1;
    unique case (rd_word)
      WordId:          rd_value = IdValue;
      WordConfig:      rd_value = ConfigValue;
      WordQptBaseLo:   rd_value = {qpt_base_q[31:3], 3'b000};
      WordQptBaseHi:   rd_value = qpt_base_q[63:32];
      WordQpnLimit:    rd_value = qpn_limit_q;
      WordEvictPolicy: rd_value = {30'd0, policy_q};
      WordTrapTimeout: rd_value = {16'd0, trap_timeout_q};
      WordResetTimeout: rd_value = {16'd0, reset_timeout_q};
      WordWbRetryBudget: rd_value = {24'd0, wb_budget_q};
      default: begin
        rd_mapped = cnt_mapped;
        if (cnt_mapped) rd_value = cnt_value;
      end
    endcase
  end

  always_comb begin
    rvalid_d = rvalid_q;
    rdata_d  = rdata_q;
    rresp_d  = rresp_q;
    if (s_axil_rready_i) rvalid_d = 1'b0;
    if (ar_hs) begin
      rvalid_d = 1'b1;
      rdata_d  = rd_value;
      rresp_d  = rd_mapped ? RespOkay : RespSlvErr;
    end
  end

  // ---------------------------------------------------------------------------------
  // Flops

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      qpt_base_q  <= '0;
      qpn_limit_q <= '0;
      policy_q    <= PolicyPlru;
      trap_timeout_q <= 16'd256;
      reset_timeout_q <= 16'd4096;
      wb_budget_q     <= 8'd0;   // retry for ever until software sets a budget
      cnt_q       <= '0;
      cnt_inc_q   <= '0;
      aw_hold_q   <= 1'b0;
      aw_word_q   <= '0;
      w_hold_q    <= 1'b0;
      wdata_q     <= '0;
      wstrb_q     <= '0;
      bvalid_q    <= 1'b0;
      bresp_q     <= RespOkay;
      rvalid_q    <= 1'b0;
      rdata_q     <= '0;
      rresp_q     <= RespOkay;
    end else begin
      qpt_base_q  <= qpt_base_d;
      qpn_limit_q <= qpn_limit_d;
      policy_q    <= policy_d;
      trap_timeout_q <= trap_timeout_d;
      reset_timeout_q <= reset_timeout_d;
      wb_budget_q     <= wb_budget_d;
      cnt_q       <= cnt_d;
      cnt_inc_q   <= cnt_inc;
      aw_hold_q   <= aw_hold_d;
      aw_word_q   <= aw_word_d;
      w_hold_q    <= w_hold_d;
      wdata_q     <= wdata_d;
      wstrb_q     <= wstrb_d;
      bvalid_q    <= bvalid_d;
      bresp_q     <= bresp_d;
      rvalid_q    <= rvalid_d;
      rdata_q     <= rdata_d;
      rresp_q     <= rresp_d;
    end
  end

  assign s_axil_bvalid_o = bvalid_q;
  assign s_axil_bresp_o  = bresp_q;
  assign s_axil_rvalid_o = rvalid_q;
  assign s_axil_rdata_o  = rdata_q;
  assign s_axil_rresp_o  = rresp_q;

  assign qpt_base_o     = {qpt_base_q, 3'b000};
  assign qpn_limit_o    = qpn_limit_q;
  assign evict_policy_o = policy_q;
  assign trap_timeout_o = trap_timeout_q;
  assign reset_timeout_o = reset_timeout_q;
  assign wb_retry_budget_o = wb_budget_q;

  // Byte-address bits below the word and the masked-off bits of QPT_BASE_LO.
  logic unused_csr;
  assign unused_csr = ^{s_axil_awaddr_i[1:0], s_axil_araddr_i[1:0], base_lo_new[2:0]};

  // ---------------------------------------------------------------------------------
  // Contract

  // A response is held until it is taken (AXI4-Lite).
  `QPM_ASSERT_NEXT(BValidHeld_A, s_axil_bvalid_o && !s_axil_bready_i,
                                 s_axil_bvalid_o && $stable(s_axil_bresp_o))
  `QPM_ASSERT_NEXT(RValidHeld_A, s_axil_rvalid_o && !s_axil_rready_i,
                                 s_axil_rvalid_o && $stable(s_axil_rdata_o) &&
                                 $stable(s_axil_rresp_o))
  // One write at a time: a write never completes while its predecessor's response waits.
  `QPM_ASSERT_IMPL(OneWriteOutstanding_A, wr_fire, !bvalid_q)
  // The register rules hold whatever was written.
  `QPM_ASSERT(QptBaseAligned_A, qpt_base_o[2:0] == 3'b000)
  `QPM_ASSERT(QpnLimitClamped_A, qpn_limit_o <= MaxQpnLimit)

endmodule
