// qpm_state_enforcer: decides a MODIFY_QP and computes the context it leaves behind.
//
// Pure combinational. Runs the four checks of SPEC.md §5 in order; the first that fails
// names the status, and the syndrome carries what that step found. When every check
// passes, qpc_o is the context with the attributes written, the retry counters and
// running PSNs loaded, and, on a move to RESET, the hardware-updated fields cleared.
// docs/state-machine.md records every decision taken where the spec is silent.
module qpm_state_enforcer #(
  parameter int unsigned NumPorts    = 2,
  parameter int unsigned PkeyTbl     = 128,
  parameter int unsigned MaxRdAtomic = 16
) (
  input  qpm_pkg::qpc_t      qpc_i,       // the QP's current context
  input  qpm_pkg::cmd_t      cmd_i,       // the MODIFY_QP command
  output logic [7:0]         status_o,
  output qpm_pkg::syndrome_t syndrome_o,
  output qpm_pkg::qpc_t      qpc_o        // the context after an accepted modify
);

  logic [31:0] mask;
  assign mask = cmd_i.attr_mask;

  // ---------------------------------------------------------------------------------
  // Step 2: the states
  // ---------------------------------------------------------------------------------
  logic [7:0] cur_state;  // the actual state, at command width
  logic [7:0] next_state;
  assign cur_state  = {5'b0, qpc_i.state};
  assign next_state = (mask & qpm_pkg::AttrState) != 0 ? cmd_i.qp_state : cur_state;

  // IB_QP_CUR_STATE may only assert RTR, RTS, SQD or SQE, and must tell the truth.
  logic cur_state_claim_ok;
  always_comb begin
    cur_state_claim_ok = 1'b1;
    if ((mask & qpm_pkg::AttrCurState) != 0) begin
      cur_state_claim_ok = (cmd_i.cur_qp_state >= 8'(qpm_pkg::StRtr))
                        && (cmd_i.cur_qp_state <= 8'(qpm_pkg::StSqe))
                        && (cmd_i.cur_qp_state == cur_state);
    end
  end

  logic        trans_valid;
  logic [31:0] trans_req, trans_opt;
  qpm_qp_trans_table u_trans_table (
    .qp_type_i (qpc_i.qp_type),
    .cur_i     (qpc_i.state),
    .next_i    (next_state[2:0]),
    .valid_o   (trans_valid),
    .req_o     (trans_req),
    .opt_o     (trans_opt)
  );

  logic next_in_range, draining, to_reset_or_err, state_ok;
  assign next_in_range   = next_state <= 8'(qpm_pkg::StErr);
  assign to_reset_or_err = (next_state == 8'(qpm_pkg::StReset))
                        || (next_state == 8'(qpm_pkg::StErr));
  // An SQD QP with send WQEs still in flight accepts only moves to RESET or ERR.
  assign draining  = (qpc_i.state == qpm_pkg::StSqd) && (qpc_i.sq_ci != qpc_i.sq_issued);
  assign state_ok  = cur_state_claim_ok && next_in_range && trans_valid
                  && !(draining && !to_reset_or_err);

  // ---------------------------------------------------------------------------------
  // Step 3: the mask
  // ---------------------------------------------------------------------------------
  logic [31:0] missing, forbidden;
  assign missing   = trans_req & ~mask;
  assign forbidden = mask & ~(trans_req | trans_opt | qpm_pkg::AttrState);

  // ---------------------------------------------------------------------------------
  // Step 4: the values of the attributes present in the mask
  // ---------------------------------------------------------------------------------
  function automatic logic port_ok(logic [7:0] port);
    port_ok = (port >= 8'd1) && (32'(port) <= NumPorts);
  endfunction

  logic [31:0] bad_value;
  always_comb begin
    bad_value = '0;
    if (cmd_i.en_sqd_async_notify > 8'd1)        bad_value |= qpm_pkg::AttrEnSqdAsyncNotify;
    if (cmd_i.qp_access_flags[31:4] != '0)       bad_value |= qpm_pkg::AttrAccessFlags;
    if (32'(cmd_i.pkey_index) >= PkeyTbl)        bad_value |= qpm_pkg::AttrPkeyIndex;
    if (!port_ok(cmd_i.port_num))                bad_value |= qpm_pkg::AttrPort;
    if (cmd_i.av.sl > 8'd15)                     bad_value |= qpm_pkg::AttrAv;
    if ((cmd_i.path_mtu < 8'd1) || (cmd_i.path_mtu > 8'd5))
                                                 bad_value |= qpm_pkg::AttrPathMtu;
    if (cmd_i.timeout > 8'd31)                   bad_value |= qpm_pkg::AttrTimeout;
    if (cmd_i.retry_cnt > 8'd7)                  bad_value |= qpm_pkg::AttrRetryCnt;
    if (cmd_i.rnr_retry > 8'd7)                  bad_value |= qpm_pkg::AttrRnrRetry;
    if (cmd_i.rq_psn[31:24] != '0)               bad_value |= qpm_pkg::AttrRqPsn;
    if (32'(cmd_i.max_rd_atomic) > MaxRdAtomic)  bad_value |= qpm_pkg::AttrMaxQpRdAtomic;
    if ((cmd_i.alt_av.sl > 8'd15) || !port_ok(cmd_i.alt_port_num)
        || (32'(cmd_i.alt_pkey_index) >= PkeyTbl) || (cmd_i.alt_timeout > 8'd31))
                                                 bad_value |= qpm_pkg::AttrAltPath;
    if (cmd_i.min_rnr_timer > 8'd31)             bad_value |= qpm_pkg::AttrMinRnrTimer;
    if (cmd_i.sq_psn[31:24] != '0)               bad_value |= qpm_pkg::AttrSqPsn;
    if (32'(cmd_i.max_dest_rd_atomic) > MaxRdAtomic)
                                                 bad_value |= qpm_pkg::AttrMaxDestRdAtomic;
    if (cmd_i.path_mig_state > 8'd2)             bad_value |= qpm_pkg::AttrPathMigState;
    if (cmd_i.dest_qp_num[31:24] != '0)          bad_value |= qpm_pkg::AttrDestQpn;
    bad_value &= mask;  // only supplied attributes are checked
  end

  // ---------------------------------------------------------------------------------
  // The verdict: first failing step wins
  // ---------------------------------------------------------------------------------
  always_comb begin
    status_o   = qpm_pkg::StatusOk;
    syndrome_o = '0;
    if (!qpc_i.valid) begin
      status_o = qpm_pkg::StatusBadRes;
    end else if (!state_ok) begin
      status_o = qpm_pkg::StatusBadQpState;
    end else if ((missing | forbidden) != '0) begin
      status_o             = qpm_pkg::StatusBadParam;
      syndrome_o.missing   = missing;
      syndrome_o.forbidden = forbidden;
    end else if (bad_value != '0) begin
      status_o             = qpm_pkg::StatusBadParam;
      syndrome_o.bad_value = bad_value;
    end
  end

  // ---------------------------------------------------------------------------------
  // The context an accepted modify leaves (only used when status_o is OK)
  // ---------------------------------------------------------------------------------
  function automatic logic has(logic [31:0] m, logic [31:0] bit_mask);
    has = (m & bit_mask) != '0;
  endfunction

  qpm_pkg::qpc_t written;
  always_comb begin
    written = qpc_i;
    written.state = next_state[2:0];
    if (has(mask, qpm_pkg::AttrAccessFlags)) written.access_flags = cmd_i.qp_access_flags[3:0];
    if (has(mask, qpm_pkg::AttrPkeyIndex))   written.pkey_index   = cmd_i.pkey_index;
    if (has(mask, qpm_pkg::AttrPort))        written.port         = cmd_i.port_num[1:0];
    if (has(mask, qpm_pkg::AttrQkey))        written.qkey         = cmd_i.qkey;
    if (has(mask, qpm_pkg::AttrAv)) begin
      written.av_dlid       = cmd_i.av.dlid;
      written.av_sl         = cmd_i.av.sl[3:0];
      written.av_sgid_index = cmd_i.av.sgid_index;
    end
    if (has(mask, qpm_pkg::AttrPathMtu))     written.path_mtu = cmd_i.path_mtu[2:0];
    if (has(mask, qpm_pkg::AttrTimeout))     written.timeout  = cmd_i.timeout[4:0];
    if (has(mask, qpm_pkg::AttrRetryCnt)) begin
      written.retry_cnt     = cmd_i.retry_cnt[2:0];
      written.cur_retry_cnt = cmd_i.retry_cnt[2:0];
    end
    if (has(mask, qpm_pkg::AttrRnrRetry)) begin
      written.rnr_retry     = cmd_i.rnr_retry[2:0];
      written.cur_rnr_retry = cmd_i.rnr_retry[2:0];
    end
    if (has(mask, qpm_pkg::AttrRqPsn)) begin
      written.rq_psn       = cmd_i.rq_psn[23:0];
      written.expected_psn = cmd_i.rq_psn[23:0];
    end
    if (has(mask, qpm_pkg::AttrMaxQpRdAtomic))   written.max_rd_atomic = cmd_i.max_rd_atomic[4:0];
    if (has(mask, qpm_pkg::AttrAltPath)) begin
      written.alt_av_dlid       = cmd_i.alt_av.dlid;
      written.alt_av_sl         = cmd_i.alt_av.sl[3:0];
      written.alt_av_sgid_index = cmd_i.alt_av.sgid_index;
      written.alt_pkey_index    = cmd_i.alt_pkey_index;
      written.alt_port          = cmd_i.alt_port_num[1:0];
      written.alt_timeout       = cmd_i.alt_timeout[4:0];
    end
    if (has(mask, qpm_pkg::AttrMinRnrTimer))     written.min_rnr_timer = cmd_i.min_rnr_timer[4:0];
    if (has(mask, qpm_pkg::AttrSqPsn)) begin
      written.sq_psn        = cmd_i.sq_psn[23:0];
      written.next_send_psn = cmd_i.sq_psn[23:0];
    end
    if (has(mask, qpm_pkg::AttrMaxDestRdAtomic)) begin
      written.max_dest_rd_atomic = cmd_i.max_dest_rd_atomic[4:0];
    end
    if (has(mask, qpm_pkg::AttrPathMigState))    written.path_mig_state = cmd_i.path_mig_state[1:0];
    if (has(mask, qpm_pkg::AttrDestQpn))         written.dest_qpn = cmd_i.dest_qp_num[23:0];
    // en_sqd_async_notify is taken from every RTS->SQD modify; absent means 0.
    if ((qpc_i.state == qpm_pkg::StRts) && (next_state == 8'(qpm_pkg::StSqd))) begin
      written.en_sqd_async_notify = has(mask, qpm_pkg::AttrEnSqdAsyncNotify)
                                  && cmd_i.en_sqd_async_notify[0];
    end
  end

  // A move to RESET (RESET -> RESET included) resets the QP after the writes.
  qpm_pkg::qpc_t written_reset;
  qpm_qpc_reset u_reset (
    .qpc_i (written),
    .qpc_o (written_reset)
  );
  assign qpc_o = (next_state == 8'(qpm_pkg::StReset)) ? written_reset : written;

  // The command fields that belong to other opcodes.
  logic unused_cmd;
  assign unused_cmd = ^{cmd_i.page_address, cmd_i.dir_index, cmd_i.log_rq_size,
                        cmd_i.log_sq_size, cmd_i.cqn_rcv, cmd_i.cqn_snd, cmd_i.pd,
                        cmd_i.qp_type, cmd_i.qpn, cmd_i.opcode};

endmodule
