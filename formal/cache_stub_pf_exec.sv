// A cut point for the cache proofs (formal/cache.toml, docs/formal.md): PORT_FAULT's step
// compute qpm_pf_exec (rtl/dp/qpm_pf_exec.sv) with the same ports and free outputs, as
// formal/cache_stub_dp_exec.sv is for the datapath's. cache.forward_newest
// (P_FORWARD_NEWEST) sees the QPC it writes as {q[1:0], .., q[3:2]}, q the step's qpn
// bits 3:0, as the other stubs write theirs.
module qpm_pf_exec (
  input  qpm_pkg::pf_req_t req_i,
  input  logic             exists_i,
  input  logic             mem_err_i,
  input  qpm_pkg::qpc_t    qpc_i,
  output qpm_pkg::qpc_t    qpc_o,
  output logic             moved_o,
  output logic             event_valid_o,
  output qpm_pkg::eqe_t    event_o,
  output logic             pending_o,
  output logic             owes_o
);
  (* anyseq *) qpm_pkg::qpc_t any_qpc;
  (* anyseq *) logic          any_moved, any_event_valid, any_pending, any_owes;
  (* anyseq *) qpm_pkg::eqe_t any_event;
`ifdef P_FORWARD_NEWEST
  logic [qpm_pkg::QpcW-1:0] qpc_any;
  assign qpc_any = any_qpc;
  assign qpc_o   = {req_i.qpn[1:0], qpc_any[qpm_pkg::QpcW-3:2], req_i.qpn[3:2]};
`else
  assign qpc_o   = any_qpc;
`endif
  assign moved_o       = any_moved;
  assign event_valid_o = any_event_valid;
  assign event_o       = any_event;
  assign pending_o     = any_pending;
  assign owes_o        = any_owes;
  logic unused;
  assign unused = ^{req_i, exists_i, mem_err_i, qpc_i};
endmodule
