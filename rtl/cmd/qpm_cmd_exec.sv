// qpm_cmd_exec: the decision of a QP command on the context the command unit read
// (SPEC.md §4, §5, §8): its response, whether and what to write back, whether it must
// first wait for the QP's flush or events. The MODIFY_QP rules live in
// qpm_state_enforcer. Pure combinational (qpm_cmd_unit's Execute state;
// docs/architecture.md).
module qpm_cmd_exec #(
  parameter int unsigned NumPorts    = 2,
  parameter int unsigned PkeyTbl     = 128,
  parameter int unsigned MaxRdAtomic = 16
) (
  input  qpm_pkg::cmd_t  cmd_i,
  input  qpm_pkg::qpc_t  qpc_i,            // the context read (valid clear: none)
  output qpm_pkg::rsp_t  rsp_o,            // the answer, unless the command waits
  output logic           write_o,          // write qpc_o back before answering
  output qpm_pkg::qpc_t  qpc_o,
  output logic           waits_for_flush_o, // answer only once flush and events are done
  output logic           is_reset_o        // an accepted MODIFY to RESET, or DESTROY:
                                           // it waits for the QP's DMAs (docs/reset.md)
);

  logic [7:0]         modify_status;
  qpm_pkg::syndrome_t modify_syndrome;
  qpm_pkg::qpc_t      modify_qpc;
  logic               waits_for_flush;
  qpm_pkg::rsp_t      exec_rsp;
  logic               exec_write;
  qpm_pkg::qpc_t      exec_qpc;

  qpm_state_enforcer #(
    .NumPorts    (NumPorts),
    .PkeyTbl     (PkeyTbl),
    .MaxRdAtomic (MaxRdAtomic)
  ) u_state_enforcer (
    .qpc_i      (qpc_i),
    .cmd_i      (cmd_i),
    .status_o   (modify_status),
    .syndrome_o (modify_syndrome),
    .qpc_o      (modify_qpc)
  );

  logic       create_type_ok, create_values_ok;
  logic [7:0] create_status;
  assign create_type_ok = (cmd_i.qp_type == 8'(qpm_pkg::TypeRc))
                       || (cmd_i.qp_type == 8'(qpm_pkg::TypeUc))
                       || (cmd_i.qp_type == 8'(qpm_pkg::TypeUd));
  assign create_values_ok = create_type_ok && (cmd_i.pd[31:24] == '0)
                         && (cmd_i.cqn_snd[31:24] == '0) && (cmd_i.cqn_rcv[31:24] == '0)
                         && (32'(cmd_i.log_sq_size) <= qpm_pkg::MaxLogQ)
                         && (32'(cmd_i.log_rq_size) <= qpm_pkg::MaxLogQ);
  assign create_status = (cmd_i.qpn < 32'd2)  ? qpm_pkg::StatusBadParam :
                         !create_values_ok    ? qpm_pkg::StatusBadParam :
                         qpc_i.valid          ? qpm_pkg::StatusResBusy  :
                                                qpm_pkg::StatusOk;

  // A fresh context; the epoch carries over so a stale operation of an earlier
  // incarnation cannot touch this one.
  qpm_pkg::qpc_t created_qpc, destroyed_qpc;
  always_comb begin
    created_qpc             = '0;
    created_qpc.valid       = 1'b1;
    created_qpc.state       = qpm_pkg::StReset;
    created_qpc.qp_type     = cmd_i.qp_type[2:0];
    created_qpc.pd          = cmd_i.pd[23:0];
    created_qpc.cqn_snd     = cmd_i.cqn_snd[23:0];
    created_qpc.cqn_rcv     = cmd_i.cqn_rcv[23:0];
    created_qpc.log_sq_size = cmd_i.log_sq_size[4:0];
    created_qpc.log_rq_size = cmd_i.log_rq_size[4:0];
    created_qpc.epoch       = qpc_i.epoch;
    // Destroy resets the QP (epoch advances) and then invalidates it.
    destroyed_qpc           = '0;
    destroyed_qpc.epoch     = qpc_i.epoch + 8'd1;
  end

  // The context still owes completions (qpm_flush_exec's rule), and the command must
  // see them sent.
  logic owes_flush;
  assign owes_flush = qpc_i.valid
                   && (((qpc_i.state == qpm_pkg::StErr)
                        && (qpc_i.sq_ci != qpc_i.sq_pi || qpc_i.rq_ci != qpc_i.rq_pi))
                       || ((qpc_i.state == qpm_pkg::StSqe) && qpc_i.sq_ci != qpc_i.sq_issued));
  logic answers_qpc, owes_events;
  assign answers_qpc = (cmd_i.opcode == qpm_pkg::OpQueryQp)
                    || (cmd_i.opcode == qpm_pkg::OpPinQp)
                    || (cmd_i.opcode == qpm_pkg::OpUnpinQp)
                    || ((cmd_i.opcode == qpm_pkg::OpModifyQp)
                        && modify_status == qpm_pkg::StatusOk);
  assign owes_events = qpc_i.valid && qpc_i.ev_pending != '0;
  assign waits_for_flush = (owes_flush && answers_qpc
                            && !(cmd_i.opcode == qpm_pkg::OpModifyQp
                                 && modify_qpc.state == qpm_pkg::StReset))
                        || (owes_events && (answers_qpc || cmd_i.opcode == qpm_pkg::OpDestroyQp));

  // SQ_DRAINED raised by a modify RTS->SQD that finds nothing outstanding (SPEC §5).
  logic drains_now;
  assign drains_now = cmd_i.opcode == qpm_pkg::OpModifyQp && modify_status == qpm_pkg::StatusOk
                   && qpc_i.state == qpm_pkg::StRts && modify_qpc.state == qpm_pkg::StSqd
                   && modify_qpc.en_sqd_async_notify && qpc_i.sq_ci == qpc_i.sq_issued;

  // The decision: response, and whether and what to write back.
  always_comb begin
    exec_rsp        = '0;
    exec_write      = 1'b0;
    exec_qpc        = qpc_i;
    exec_rsp.status = qpc_i.valid ? qpm_pkg::StatusOk : qpm_pkg::StatusBadRes;
    unique case (cmd_i.opcode)
      qpm_pkg::OpCreateQp: begin
        exec_rsp.status = create_status;
        exec_qpc        = created_qpc;
      end
      qpm_pkg::OpModifyQp: begin
        exec_rsp.status   = modify_status;
        exec_rsp.syndrome = modify_syndrome;
        exec_qpc          = modify_qpc;
        if (drains_now) exec_qpc.ev_pending[qpm_event_pkg::EvBitSqDrained] = 1'b1;
      end
      qpm_pkg::OpDestroyQp: begin
        exec_qpc = destroyed_qpc;
      end
      default: ;  // QUERY_QP, PIN_QP, UNPIN_QP: read only
    endcase
    if (exec_rsp.status == qpm_pkg::StatusOk) begin
      exec_write = (cmd_i.opcode == qpm_pkg::OpCreateQp) || (cmd_i.opcode == qpm_pkg::OpModifyQp)
                || (cmd_i.opcode == qpm_pkg::OpDestroyQp);
      if (cmd_i.opcode != qpm_pkg::OpDestroyQp) exec_rsp.qpc = exec_qpc;
      // Pending events are the hardware's bookkeeping, not part of the context
      // software sees.
      exec_rsp.qpc.ev_pending    = '0;
      exec_rsp.qpc.ev_fatal_port = 1'b0;
      exec_rsp.qpc.ev_fatal_write = 1'b0;
    end
  end

  assign rsp_o             = exec_rsp;
  assign write_o           = exec_write;
  assign qpc_o             = exec_qpc;
  assign waits_for_flush_o = waits_for_flush;
  assign is_reset_o        = exec_write && ((cmd_i.opcode == qpm_pkg::OpDestroyQp)
                                            || (exec_qpc.state == qpm_pkg::StReset
                                                && cmd_i.opcode == qpm_pkg::OpModifyQp));

endmodule
