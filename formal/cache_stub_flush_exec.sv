// A cut point for the cache proofs (see cache_stub_dp_exec.sv): qpm_flush_exec
// (rtl/dp/qpm_flush_exec.sv) with the same ports and free outputs. Under
// P_FORWARD_NEWEST the QPC it writes carries its QPN's bits 3:0 in the four followed
// bits, as the datapath stub's.
module qpm_flush_exec (
  input  logic [qpm_pkg::QpnW-1:0] qpn_i,
  input  logic                     exists_i,
  input  logic                     mem_err_i,
  input  logic                     ev_ok_i,
  input  logic                     cqe_ok_i,
  input  logic                     fatal_only_i,
  input  qpm_pkg::qpc_t            qpc_i,
  output qpm_pkg::qpc_t            qpc_o,
  output logic                     write_o,
  output logic                     cqe_valid_o,
  output qpm_pkg::cqe_t            cqe_o,
  output logic                     more_o,
  output logic                     event_valid_o,
  output qpm_pkg::eqe_t            event_o,
  output logic                     ev_more_o
);
  (* anyseq *) logic          any_ev_valid, any_ev_more;
  (* anyseq *) qpm_pkg::eqe_t any_event;
  assign event_valid_o = any_ev_valid;
  assign event_o       = any_event;
  assign ev_more_o     = any_ev_more;
  (* anyseq *) qpm_pkg::qpc_t any_qpc;
  (* anyseq *) logic          any_write, any_cqe_valid, any_more;
  (* anyseq *) qpm_pkg::cqe_t any_cqe;
`ifdef P_FORWARD_NEWEST
  logic [qpm_pkg::QpcW-1:0] qpc_any;
  assign qpc_any = any_qpc;
  assign qpc_o   = {qpn_i[1:0], qpc_any[qpm_pkg::QpcW-3:2], qpn_i[3:2]};
`else
  assign qpc_o  = any_qpc;
`endif
  assign write_o     = any_write;
  assign cqe_valid_o = any_cqe_valid;
  assign cqe_o       = any_cqe;
  assign more_o      = any_more;
  logic unused;
  assign unused = ^{qpn_i, exists_i, mem_err_i, ev_ok_i, cqe_ok_i, fatal_only_i, qpc_i};
endmodule
