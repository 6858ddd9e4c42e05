// qpm_qpc_fatal: a QPC as a memory fault leaves it (docs/events.md, "Memory faults";
// docs/qp-cache.md section 20). A valid QP in neither RESET nor ERR goes to ERR with
// QP_FATAL pending; the event's cause is a failed read (write_i 0) or a write-back given
// up (write_i 1, ev_fatal_write). Any other QPC is kept as it is. Pure combinational.
module qpm_qpc_fatal (
  input  qpm_pkg::qpc_t qpc_i,
  input  logic          write_i,
  output logic          live_o,    // the QP is made fatal
  output qpm_pkg::qpc_t qpc_o
);

  assign live_o = qpc_i.valid && qpc_i.state != qpm_pkg::StReset
               && qpc_i.state != qpm_pkg::StErr;
  always_comb begin
    qpc_o = qpc_i;
    if (live_o) begin
      qpc_o.state          = qpm_pkg::StErr;
      qpc_o.ev_pending     = qpc_i.ev_pending | (5'd1 << qpm_event_pkg::EvBitFatal);
      qpc_o.ev_fatal_port  = 1'b0;
      qpc_o.ev_fatal_write = write_i;
    end
  end

endmodule
