// qpm_axi_master: the AXI4 master of qpm (SPEC.md §2, memory port).
//
// Turns the cache's memory requests into AXI4 bursts: a QPC line is 64 bytes, two beats
// of the 256-bit bus (INCR, size 32 bytes); a directory entry is one 8-byte beat on its
// byte lanes. Reads and writes come on ports of their own (AR and AW/W are independent
// channels: a write waiting for AW/W never holds back a read). The requester tags each
// request with an ID; a read response is returned whole (both beats) with that ID, in
// whatever order the memory answers across IDs, and R beats of different IDs may
// interleave. Writes go out one burst at a time. The caller keeps at most one request
// outstanding per ID and always accepts responses.
//
// A line read's first beat waits for its last in a RAM of one 256-bit word per ID (a
// qpm_ram_2p, not NumIds x 256 flip-flops: 65 IDs in the large configuration): written
// in the first beat's cycle, read in the last beat's, so it comes out of the RAM in the
// cycle the response register holds the last beat. One R beat a cycle, and a first beat
// is never a last, so the RAM never sees a read and a write in one cycle.
`include "qpm_assert.svh"

module qpm_axi_master #(
  parameter int unsigned IdW    = 4,
  parameter int unsigned NumIds = 9   // IDs 0 .. NumIds-1 are used
) (
  input  logic           clk_i,
  input  logic           rst_ni,
  // memory reads ...
  input  logic           rd_req_valid_i,
  output logic           rd_req_ready_o,
  input  logic [IdW-1:0] rd_req_id_i,
  input  logic [63:0]    rd_req_addr_i,
  input  logic           rd_req_line_i,    // 1: a 64-byte line, 0: an 8-byte word
  // ... and writes
  input  logic           wr_req_valid_i,
  output logic           wr_req_ready_o,
  input  logic [IdW-1:0] wr_req_id_i,
  input  logic [63:0]    wr_req_addr_i,
  input  logic           wr_req_line_i,
  input  logic [511:0]   wr_req_wdata_i,   // a word travels in bits 63:0
  // responses, one per request
  output logic           rsp_valid_o,
  output logic           rsp_write_o,
  output logic [IdW-1:0] rsp_id_o,
  output logic           rsp_error_o,   // SLVERR or DECERR on any beat
  output logic [511:0]   rsp_rdata_o,   // a word returns in bits 63:0
  // AXI4 master
  output logic           m_axi_awvalid_o,
  input  logic           m_axi_awready_i,
  output logic [IdW-1:0] m_axi_awid_o,
  output logic [63:0]    m_axi_awaddr_o,
  output logic [7:0]     m_axi_awlen_o,
  output logic [2:0]     m_axi_awsize_o,
  output logic [1:0]     m_axi_awburst_o,
  output logic [3:0]     m_axi_awcache_o,
  output logic [2:0]     m_axi_awprot_o,
  output logic           m_axi_wvalid_o,
  input  logic           m_axi_wready_i,
  output logic [255:0]   m_axi_wdata_o,
  output logic [31:0]    m_axi_wstrb_o,
  output logic           m_axi_wlast_o,
  input  logic           m_axi_bvalid_i,
  output logic           m_axi_bready_o,
  input  logic [IdW-1:0] m_axi_bid_i,
  input  logic [1:0]     m_axi_bresp_i,
  output logic           m_axi_arvalid_o,
  input  logic           m_axi_arready_i,
  output logic [IdW-1:0] m_axi_arid_o,
  output logic [63:0]    m_axi_araddr_o,
  output logic [7:0]     m_axi_arlen_o,
  output logic [2:0]     m_axi_arsize_o,
  output logic [1:0]     m_axi_arburst_o,
  output logic [3:0]     m_axi_arcache_o,
  output logic [2:0]     m_axi_arprot_o,
  input  logic           m_axi_rvalid_i,
  output logic           m_axi_rready_o,
  input  logic [IdW-1:0] m_axi_rid_i,
  input  logic [255:0]   m_axi_rdata_i,
  input  logic [1:0]     m_axi_rresp_i,
  input  logic           m_axi_rlast_i
);

  if (NumIds > (1 << IdW)) begin : gen_bad_ids
    $error("NumIds does not fit IdW");
  end

  localparam logic [2:0] SizeLine = 3'd5;  // 32-byte beats
  localparam logic [2:0] SizeWord = 3'd3;  // one 8-byte beat
  localparam logic [1:0] BurstIncr = 2'b01;

  // ---------------------------------------------------------------------------------
  // Read address: one AR at a time in a register
  // ---------------------------------------------------------------------------------
  logic           ar_valid_q;
  logic [IdW-1:0] ar_id_q;
  logic [63:0]    ar_addr_q;
  logic           ar_line_q;
  logic           take_read, take_write;

  // Per-ID read state: is it a word (and on which lane), error so far.
  logic [NumIds-1:0] rd_word_q;
  logic [1:0]        rd_lane_q  [NumIds];
  logic [NumIds-1:0] rd_error_q;

  // ---------------------------------------------------------------------------------
  // Write: one burst in flight on AW/W at a time
  // ---------------------------------------------------------------------------------
  logic           aw_valid_q, w_active_q, w_beat_q;
  logic [IdW-1:0] aw_id_q;
  logic [63:0]    aw_addr_q;
  logic           w_line_q;
  logic [511:0]   w_data_q;

  assign rd_req_ready_o = !ar_valid_q;
  assign wr_req_ready_o = !aw_valid_q && !w_active_q;
  assign take_read      = rd_req_valid_i && rd_req_ready_o;
  assign take_write     = wr_req_valid_i && wr_req_ready_o;

  // ---------------------------------------------------------------------------------
  // Responses: a read completes on its last beat, a write on B. B is taken into a
  // one-entry register (bready is that register's "empty", a flop: no input reaches
  // an output through logic, docs/qp-cache.md "Registered boundaries") and completes
  // from there in a cycle without a last R beat.
  // ---------------------------------------------------------------------------------
  logic r_take, r_done, b_take, b_done;
  logic b_held_q, b_error_q;
  logic [IdW-1:0] b_id_q;
  assign m_axi_rready_o = 1'b1;
  assign r_take = m_axi_rvalid_i;
  assign r_done = r_take && m_axi_rlast_i;
  assign m_axi_bready_o = !b_held_q;
  assign b_take = m_axi_bvalid_i && m_axi_bready_o;
  assign b_done = b_held_q && !r_done;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      b_held_q  <= 1'b0;
      b_error_q <= 1'b0;
      b_id_q    <= '0;
    end else begin
      b_held_q <= b_take || (b_held_q && !b_done);
      if (b_take) begin
        b_error_q <= m_axi_bresp_i[1];
        b_id_q    <= m_axi_bid_i;
      end
    end
  end

  logic [NumIds-1:0] rid_hit;
  always_comb begin
    for (int unsigned i = 0; i < NumIds; i++) rid_hit[i] = (32'(m_axi_rid_i) == i);
  end

  // Each ID's lane, in a block of its own (a loop of array writes in one always_ff is
  // not unrolled by Verilator past 64 IDs).
  for (genvar g = 0; g < NumIds; g++) begin : gen_id
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        rd_lane_q[g] <= '0;
      end else begin
        if (take_read && 32'(rd_req_id_i) == g) rd_lane_q[g] <= rd_req_addr_i[4:3];
      end
    end
  end

  // Each ID's first beat of a line, until its last beat (above).
  localparam int unsigned BeatAddrW = (NumIds > 1) ? $clog2(NumIds) : 1;
  logic [255:0] beat0;   // the first beat of the line answered last cycle
  qpm_ram_2p #(
    .Width (256),
    .Depth (NumIds)
  ) u_beat0_ram (
    .clk_i   (clk_i),
    .re_i    (r_done),
    .raddr_i (BeatAddrW'(m_axi_rid_i)),
    .rdata_o (beat0),
    .we_i    (r_take && !m_axi_rlast_i),
    .waddr_i (BeatAddrW'(m_axi_rid_i)),
    .wdata_i (m_axi_rdata_i),
    .wmask_i ('1)
  );

  // The word of a one-beat read, picked from its byte lanes. The beat's ID state is an
  // OR of one-hot terms (rid_hit), which synthesis balances into a log-deep tree; a
  // priority chain of ifs over the IDs was 73 levels at 64 miss registers.
  logic [255:0] r_beat;
  logic [1:0]   r_lane;
  logic         r_word, r_err_so_far;
  always_comb begin
    r_lane       = '0;
    r_word       = 1'b0;
    r_err_so_far = 1'b0;
    for (int unsigned i = 0; i < NumIds; i++) begin
      r_lane       = r_lane | (rd_lane_q[i] & {2{rid_hit[i]}});
      r_word       = r_word | (rd_word_q[i] & rid_hit[i]);
      r_err_so_far = r_err_so_far | (rd_error_q[i] & rid_hit[i]);
    end
    r_beat = m_axi_rdata_i;
  end

  // The response register: a line's last beat (its first comes out of the RAM beside
  // it), a word's lane, or nothing for a write.
  logic           rsp_valid_q, rsp_write_q, rsp_error_q, rsp_line_q;
  logic [IdW-1:0] rsp_id_q;
  logic [255:0]   rsp_beat_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ar_valid_q      <= 1'b0;
      ar_id_q         <= '0;
      ar_addr_q       <= '0;
      ar_line_q       <= 1'b0;
      rd_word_q       <= '0;
      rd_error_q      <= '0;
      aw_valid_q      <= 1'b0;
      w_active_q      <= 1'b0;
      w_beat_q        <= 1'b0;
      aw_id_q         <= '0;
      aw_addr_q       <= '0;
      w_line_q        <= 1'b0;
      w_data_q        <= '0;
      rsp_valid_q     <= 1'b0;
      rsp_write_q     <= 1'b0;
      rsp_error_q     <= 1'b0;
      rsp_id_q        <= '0;
      rsp_line_q      <= 1'b0;
      rsp_beat_q      <= '0;
    end else begin
      // AR
      if (take_read) begin
        ar_valid_q <= 1'b1;
        ar_id_q    <= rd_req_id_i;
        ar_addr_q  <= rd_req_addr_i;
        ar_line_q  <= rd_req_line_i;
        for (int unsigned i = 0; i < NumIds; i++) begin
          if (32'(rd_req_id_i) == i) begin
            rd_word_q[i]       <= !rd_req_line_i;
            rd_error_q[i]      <= 1'b0;
          end
        end
      end else if (m_axi_arready_i) begin
        ar_valid_q <= 1'b0;
      end
      // R beats
      if (r_take) begin
        for (int unsigned i = 0; i < NumIds; i++) begin
          if (rid_hit[i]) begin
            rd_error_q[i]      <= rd_error_q[i] || m_axi_rresp_i[1];
          end
        end
      end
      // AW / W
      if (take_write) begin
        aw_valid_q <= 1'b1;
        w_active_q <= 1'b1;
        w_beat_q   <= 1'b0;
        aw_id_q    <= wr_req_id_i;
        aw_addr_q  <= wr_req_addr_i;
        w_line_q   <= wr_req_line_i;
        w_data_q   <= wr_req_wdata_i;
      end else begin
        if (aw_valid_q && m_axi_awready_i) aw_valid_q <= 1'b0;
        if (m_axi_wvalid_o && m_axi_wready_i) begin
          if (m_axi_wlast_o) w_active_q <= 1'b0;
          w_beat_q <= 1'b1;
        end
      end
      // The response register
      rsp_valid_q <= r_done || b_done;
      if (r_done) begin
        rsp_write_q <= 1'b0;
        rsp_id_q    <= m_axi_rid_i;
        rsp_error_q <= r_err_so_far || m_axi_rresp_i[1];
        rsp_line_q  <= !r_word;
        rsp_beat_q  <= r_word ? {192'b0, r_beat[64*r_lane +: 64]} : r_beat;
      end else if (b_done) begin
        rsp_write_q <= 1'b1;
        rsp_id_q    <= b_id_q;
        rsp_error_q <= b_error_q;
        rsp_line_q  <= 1'b0;
        rsp_beat_q  <= '0;
      end
    end
  end

  assign rsp_valid_o = rsp_valid_q;
  assign rsp_write_o = rsp_write_q;
  assign rsp_id_o    = rsp_id_q;
  assign rsp_error_o = rsp_error_q;
  assign rsp_rdata_o = rsp_line_q ? {rsp_beat_q, beat0} : {256'b0, rsp_beat_q};

  assign m_axi_arvalid_o = ar_valid_q;
  assign m_axi_arid_o    = ar_id_q;
  assign m_axi_araddr_o  = ar_addr_q;
  assign m_axi_arlen_o   = ar_line_q ? 8'd1 : 8'd0;
  assign m_axi_arsize_o  = ar_line_q ? SizeLine : SizeWord;
  assign m_axi_arburst_o = BurstIncr;
  assign m_axi_arcache_o = 4'b0011;  // normal, bufferable, non-cacheable
  assign m_axi_arprot_o  = 3'b000;

  assign m_axi_awvalid_o = aw_valid_q;
  assign m_axi_awid_o    = aw_id_q;
  assign m_axi_awaddr_o  = aw_addr_q;
  assign m_axi_awlen_o   = w_line_q ? 8'd1 : 8'd0;
  assign m_axi_awsize_o  = w_line_q ? SizeLine : SizeWord;
  assign m_axi_awburst_o = BurstIncr;
  assign m_axi_awcache_o = 4'b0011;
  assign m_axi_awprot_o  = 3'b000;

  // W does not wait for AW (AXI4 A3.3.1: a slave may wait for WVALID before AWREADY).
  assign m_axi_wvalid_o = w_active_q;
  assign m_axi_wlast_o  = !w_line_q || w_beat_q;
  always_comb begin
    if (w_line_q) begin
      m_axi_wdata_o = w_beat_q ? w_data_q[511:256] : w_data_q[255:0];
      m_axi_wstrb_o = '1;
    end else begin
      m_axi_wdata_o = '0;
      m_axi_wdata_o[64*aw_addr_q[4:3] +: 64] = w_data_q[63:0];
      m_axi_wstrb_o = 32'hff << (8 * aw_addr_q[4:3]);
    end
  end

  // AXI4: a valid address stays, unchanged, until it is taken.
  `QPM_ASSERT_NEXT(ArHeldUntilReady_A, m_axi_arvalid_o && !m_axi_arready_i,
                   m_axi_arvalid_o && $stable(m_axi_araddr_o) && $stable(m_axi_arid_o))
  `QPM_ASSERT_NEXT(AwHeldUntilReady_A, m_axi_awvalid_o && !m_axi_awready_i,
                   m_axi_awvalid_o && $stable(m_axi_awaddr_o) && $stable(m_axi_awid_o))

  // Bit 1 of a response tells an error (SLVERR, DECERR) from OKAY/EXOKAY.
  logic unused_resp;
  assign unused_resp = m_axi_bresp_i[0] ^ m_axi_rresp_i[0];

endmodule
