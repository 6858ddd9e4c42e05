// qpm_pf_exec: the compute of one step of PORT_FAULT's scan (SPEC.md §8; docs/events.md,
// "PORT_FAULT"; the golden model's port_fault). A valid QP bound to the faulted port and
// in neither RESET nor ERR moves to ERR (a modify to ERR changes only the state). Its
// QP_FATAL (syndrome PORT_FAULT) leaves with the step's answer, which holds room in the
// EQ, unless an event of the QP waits in its QPC already: then it is set pending behind
// it (cause ev_fatal_port), so the QP's events leave in the order raised. Pure
// combinational, beside qpm_dp_exec, qpm_doorbell_exec and qpm_flush_exec under
// qpm_rmw_exec.
module qpm_pf_exec (
  input  qpm_pkg::pf_req_t req_i,
  input  logic             exists_i,    // QPN below the limit, page mapped, QPC valid
  input  logic             mem_err_i,   // the QPC could not be read
  input  qpm_pkg::qpc_t    qpc_i,
  output qpm_pkg::qpc_t    qpc_o,
  output logic             moved_o,     // the QP moved to ERR (write qpc_o)
  output logic             event_valid_o, // its QP_FATAL leaves now ...
  output qpm_pkg::eqe_t    event_o,
  output logic             pending_o,   // ... or waits in ev_pending (to the fatal engine)
  output logic             owes_o       // it owes completions: to the flush engine
);

  logic moves, now;
  assign moves = exists_i && !mem_err_i && qpc_i.port == req_i.port
              && qpc_i.state != qpm_pkg::StReset && qpc_i.state != qpm_pkg::StErr;
  assign now   = moves && qpc_i.ev_pending == '0;

  always_comb begin
    qpc_o       = qpc_i;
    qpc_o.state = qpm_pkg::StErr;
    if (!now) begin
      qpc_o.ev_pending    = qpc_i.ev_pending | (5'd1 << qpm_event_pkg::EvBitFatal);
      qpc_o.ev_fatal_port = 1'b1;
    end
    event_o            = '0;
    event_o.qpn        = req_i.qpn;
    event_o.event_type = qpm_event_pkg::EvQpFatal;
    event_o.syndrome   = qpm_event_pkg::SynPortFault;
  end

  assign moved_o       = moves;
  assign event_valid_o = now;
  assign pending_o     = moves && !now;
  // In ERR a QP owes every posted WQE not yet completed (qpm_flush_exec).
  assign owes_o = moves && (qpc_i.sq_ci != qpc_i.sq_pi || qpc_i.rq_ci != qpc_i.rq_pi);

endmodule
