// qpm_qpc_reset: what resetting a QP does to its context (SPEC.md §5, §10).
//
// Clears every hardware-updated field and advances the epoch, so that anything still
// carrying the old epoch can no longer touch the QP. Software-set fields are kept.
// Combinational; a module rather than a package function because Yosys 0.23 cannot
// assign struct members inside functions.
module qpm_qpc_reset (
  input  qpm_pkg::qpc_t qpc_i,
  output qpm_pkg::qpc_t qpc_o
);

  always_comb begin
    qpc_o                         = qpc_i;
    qpc_o.reserved                = '0;
    qpc_o.quiesce                 = 1'b0;
    qpc_o.sq_err_pending          = 1'b0;
    qpc_o.err_syndrome            = '0;
    qpc_o.epoch                   = qpc_i.epoch + 8'd1;
    qpc_o.dma_inflight            = '0;
    qpc_o.comm_est_seen           = 1'b0;
    qpc_o.rx_msg_class            = '0;
    qpc_o.rx_msg_open             = 1'b0;
    qpc_o.cur_rnr_retry           = '0;
    qpc_o.cur_retry_cnt           = '0;
    qpc_o.sq_issued               = '0;
    qpc_o.rq_ci                   = '0;
    qpc_o.sq_ci                   = '0;
    qpc_o.rq_pi                   = '0;
    qpc_o.sq_pi                   = '0;
    qpc_o.dest_rd_atomic_inflight = '0;
    qpc_o.rd_atomic_outstanding   = '0;
    qpc_o.expected_psn            = '0;
    qpc_o.next_send_psn           = '0;
  end

endmodule
