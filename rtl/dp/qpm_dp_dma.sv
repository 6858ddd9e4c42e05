// qpm_dp_dma: the datapath's DMA bracket operations, DMA_BEGIN and DMA_END (SPEC.md §6,
// docs/datapath.md), for a QP that exists.
//
// Pure combinational, one of qpm_dp_exec's operation blocks: qpm_dp_exec checks that the
// QP exists, selects this outcome for the two opcodes and applies its effects. The
// check: COUNT (the 8-bit counter never wraps). STALE, another epoch, is qpm_dp_exec's
// fence, checked before any block.
module qpm_dp_dma (
  input  qpm_pkg::dp_req_t     req_i,  // DMA_BEGIN or DMA_END
  input  qpm_pkg::qpc_t        qpc_i,  // the QPC before the operation
  output qpm_pkg::dp_outcome_t out_o
);

  logic op_begin;  // else DMA_END
  assign op_begin = req_i.op == qpm_pkg::DpDmaBegin;

  logic at_bound;  // DMA_BEGIN at 255, DMA_END at 0
  assign at_bound = op_begin ? (qpc_i.dma_inflight == 8'hff) : (qpc_i.dma_inflight == 8'h00);

  always_comb begin
    out_o         = '0;
    out_o.verdict = qpm_pkg::VDrop;
    if (at_bound) out_o.drop = qpm_pkg::DropCount;
    else begin
      out_o.verdict    = qpm_pkg::VAccept;
      out_o.fx.write   = 1'b1;
      out_o.fx.dma_inc = op_begin;
      out_o.fx.dma_dec = req_i.op == qpm_pkg::DpDmaEnd;
    end
  end

  // The request and the QPC come whole; this block reads the fields of its operations.
  logic unused_fields;
  assign unused_fields = ^{req_i, qpc_i};

endmodule
