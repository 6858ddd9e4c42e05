// qpm_qpc_store: all-on-chip QPC storage behind the QPC-access interface.
//
// One context per QPN below QpnLimit in a single-port RAM. After reset it sweeps the RAM
// to zero (QpnLimit cycles, not ready meanwhile), so that every entry starts invalid with
// epoch 0. Takes one request per cycle and answers it on the next. Directory writes are
// acknowledged and dropped: with every QPN owning a slot there is no page table to walk.
// The QP-table issue replaces this block with the QP cache and the table walker behind
// the same interface; it can stay as the all-on-chip configuration.
`include "qpm_assert.svh"

module qpm_qpc_store #(
  parameter int unsigned QpnLimit = 4096  // number of QPCs held
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  input  logic              req_valid_i,
  output logic              req_ready_o,
  input  qpm_pkg::ctx_req_t req_i,
  output logic              rsp_valid_o,  // the requester always takes a response
  output qpm_pkg::ctx_rsp_t rsp_o
);

  localparam int unsigned AddrW = (QpnLimit > 1) ? $clog2(QpnLimit) : 1;

  if (QpnLimit < 2 || QpnLimit > (1 << qpm_pkg::QpnW)) begin : gen_bad_limit
    $error("QpnLimit must be in 2 .. 2**QpnW");
  end

  // Reset sweep.
  logic             init_done_q, init_done_d;
  logic [AddrW-1:0] init_idx_q, init_idx_d;
  always_comb begin
    init_done_d = init_done_q;
    init_idx_d  = init_idx_q;
    if (!init_done_q) begin
      init_idx_d = init_idx_q + AddrW'(1);
      if (32'(init_idx_q) == QpnLimit - 1) init_done_d = 1'b1;
    end
  end

  // A request is taken whenever the sweep is over.
  logic accept, in_range;
  assign req_ready_o = init_done_q;
  assign accept      = req_valid_i && init_done_q;
  assign in_range    = 32'(req_i.index) < QpnLimit;

  logic ram_req, ram_we;
  logic [AddrW-1:0] ram_addr;
  logic [qpm_pkg::QpcW-1:0] ram_wdata, ram_rdata;
  always_comb begin
    if (!init_done_q) begin
      ram_req   = 1'b1;
      ram_we    = 1'b1;
      ram_addr  = init_idx_q;
      ram_wdata = '0;
    end else begin
      ram_req   = accept && in_range && (req_i.op != qpm_pkg::CtxDirWrite);
      ram_we    = req_i.op == qpm_pkg::CtxWrite;
      ram_addr  = req_i.index[AddrW-1:0];
      ram_wdata = req_i.wdata;
    end
  end

  qpm_ram_1p #(
    .Width (qpm_pkg::QpcW),
    .Depth (QpnLimit)
  ) u_ram (
    .clk_i   (clk_i),
    .req_i   (ram_req),
    .we_i    (ram_we),
    .addr_i  (ram_addr),
    .wdata_i (ram_wdata),
    .rdata_o (ram_rdata)
  );

  // The response follows its request by one cycle.
  logic        rsp_valid_q, rsp_read_q, rsp_in_range_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      init_done_q    <= 1'b0;
      init_idx_q     <= '0;
      rsp_valid_q    <= 1'b0;
      rsp_read_q     <= 1'b0;
      rsp_in_range_q <= 1'b0;
    end else begin
      init_done_q    <= init_done_d;
      init_idx_q     <= init_idx_d;
      rsp_valid_q    <= accept;
      rsp_read_q     <= accept && (req_i.op == qpm_pkg::CtxRead);
      rsp_in_range_q <= in_range;
    end
  end

  assign rsp_valid_o  = rsp_valid_q;
  assign rsp_o.status = rsp_in_range_q ? qpm_pkg::CtxOk : qpm_pkg::CtxUnmapped;
  assign rsp_o.rdata  = (rsp_read_q && rsp_in_range_q) ? ram_rdata : '0;

  logic unused_req;
  assign unused_req = ^req_i.dir_entry;  // no directory in the all-on-chip store

  `QPM_ASSERT(NoRequestDuringSweep_A, !init_done_q |-> !accept)

endmodule
