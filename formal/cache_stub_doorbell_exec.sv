// A cut point for the cache proofs (see cache_stub_dp_exec.sv): qpm_doorbell_exec
// (rtl/dp/qpm_doorbell_exec.sv) with the same ports and free outputs. Under
// P_FORWARD_NEWEST the QPC it writes carries its QPN's bits 3:0 in the four followed
// bits, as the datapath stub's.
module qpm_doorbell_exec (
  input  qpm_pkg::doorbell_t db_i,
  input  logic               exists_i,
  input  qpm_pkg::qpc_t      qpc_i,
  output logic               refused_o,
  output qpm_pkg::qpc_t      qpc_o,
  output logic               flush_req_o
);
  (* anyseq *) logic          any_refused, any_flush_req;
  (* anyseq *) qpm_pkg::qpc_t any_qpc;
`ifdef P_FORWARD_NEWEST
  logic [qpm_pkg::QpcW-1:0] qpc_any;
  assign qpc_any = any_qpc;
  assign qpc_o   = {db_i.qpn[1:0], qpc_any[qpm_pkg::QpcW-3:2], db_i.qpn[3:2]};
`else
  assign qpc_o  = any_qpc;
`endif
  assign refused_o   = any_refused;
  assign flush_req_o = any_flush_req;
  logic unused;
  assign unused = ^{db_i, exists_i, qpc_i};
endmodule
