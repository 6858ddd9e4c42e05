// qpm_qpc_layout_probe: exposes the layout of qpm_pkg::qpc_t to the C++ layout test.
//
// For field number field_i (the declaration order of qpc_t, least significant field
// first: 0 = valid, 1 = state, ...) it outputs a QPC with only that field set to all
// ones. tests/test_qpc_layout.cpp compares the bits with the C++ table kQpcLayout.
module qpm_qpc_layout_probe (
  input  logic [5:0]    field_i,
  output qpm_pkg::qpc_t ones_o,
  output logic [5:0]    num_fields_o
);

  assign num_fields_o = 6'd56;

  always_comb begin
    ones_o = '0;
    unique case (field_i)
      6'd0:  ones_o.valid                   = '1;
      6'd1:  ones_o.state                   = '1;
      6'd2:  ones_o.qp_type                 = '1;
      6'd3:  ones_o.pd                      = '1;
      6'd4:  ones_o.port                    = '1;
      6'd5:  ones_o.pkey_index              = '1;
      6'd6:  ones_o.qkey                    = '1;
      6'd7:  ones_o.access_flags            = '1;
      6'd8:  ones_o.path_mtu                = '1;
      6'd9:  ones_o.dest_qpn                = '1;
      6'd10: ones_o.av_dlid                 = '1;
      6'd11: ones_o.av_sl                   = '1;
      6'd12: ones_o.av_sgid_index           = '1;
      6'd13: ones_o.alt_av_dlid             = '1;
      6'd14: ones_o.alt_av_sl               = '1;
      6'd15: ones_o.alt_av_sgid_index       = '1;
      6'd16: ones_o.alt_pkey_index          = '1;
      6'd17: ones_o.alt_port                = '1;
      6'd18: ones_o.alt_timeout             = '1;
      6'd19: ones_o.path_mig_state          = '1;
      6'd20: ones_o.timeout                 = '1;
      6'd21: ones_o.retry_cnt               = '1;
      6'd22: ones_o.rnr_retry               = '1;
      6'd23: ones_o.min_rnr_timer           = '1;
      6'd24: ones_o.sq_psn                  = '1;
      6'd25: ones_o.rq_psn                  = '1;
      6'd26: ones_o.max_rd_atomic           = '1;
      6'd27: ones_o.max_dest_rd_atomic      = '1;
      6'd28: ones_o.cqn_snd                 = '1;
      6'd29: ones_o.cqn_rcv                 = '1;
      6'd30: ones_o.log_sq_size             = '1;
      6'd31: ones_o.log_rq_size             = '1;
      6'd32: ones_o.en_sqd_async_notify     = '1;
      6'd33: ones_o.next_send_psn           = '1;
      6'd34: ones_o.expected_psn            = '1;
      6'd35: ones_o.rd_atomic_outstanding   = '1;
      6'd36: ones_o.dest_rd_atomic_inflight = '1;
      6'd37: ones_o.sq_pi                   = '1;
      6'd38: ones_o.rq_pi                   = '1;
      6'd39: ones_o.sq_ci                   = '1;
      6'd40: ones_o.rq_ci                   = '1;
      6'd41: ones_o.sq_issued               = '1;
      6'd42: ones_o.cur_retry_cnt           = '1;
      6'd43: ones_o.cur_rnr_retry           = '1;
      6'd44: ones_o.rx_msg_open             = '1;
      6'd45: ones_o.rx_msg_class            = '1;
      6'd46: ones_o.comm_est_seen           = '1;
      6'd47: ones_o.dma_inflight            = '1;
      6'd48: ones_o.epoch                   = '1;
      6'd49: ones_o.err_syndrome            = '1;
      6'd50: ones_o.sq_err_pending          = '1;
      6'd51: ones_o.ev_pending              = '1;
      6'd52: ones_o.ev_fatal_port           = '1;
      6'd53: ones_o.quiesce                 = '1;
      6'd54: ones_o.ev_fatal_write          = '1;
      6'd55: ones_o.reserved                = '1;
      default: ;
    endcase
  end

endmodule
