// A cut point for the cache proofs (formal/cache.toml, docs/formal.md): the datapath
// compute qpm_dp_exec (rtl/dp/qpm_dp_exec.sv) with the same ports and free outputs. The
// pipe writes back whatever it returns, so every cache property proven with this stub
// holds whatever the compute does, the real one included; the compute's own properties
// are its tests'. Keep the ports in step with rtl/dp/qpm_dp_exec.sv (Yosys stops on a
// port the pipe connects and the stub lacks).
//
// cache.forward_newest (P_FORWARD_NEWEST) makes the compute transparent on the four bits
// of the QPC that proof follows (511:510 and 1:0): the answer's rsp[3:0] echoes them
// from the QPC the operation read, and the QPC it writes is {q[1:0], .., q[3:2]}, q the
// request's qpn bits 3:0 (any values: the request is free), so the proof sees what every
// read-modify-write read and knows what it wrote. The doorbell and flush-step stubs
// write the same bits of their QPN (the pipe hands them the request's qpn). All other
// outputs stay free.
module qpm_dp_exec (
  input  qpm_pkg::dp_req_t req_i,
  input  logic             exists_i,
  input  logic             mem_err_i,
  input  qpm_pkg::qpc_t    qpc_i,
  output qpm_pkg::dp_rsp_t rsp_o,
  output qpm_pkg::qpc_t    qpc_o,
  output logic             write_o,
  output logic             event_valid_o,
  output qpm_pkg::eqe_t    event_o,
  output logic             flush_req_o
);
  (* anyseq *) qpm_pkg::dp_rsp_t any_rsp;
  (* anyseq *) qpm_pkg::qpc_t    any_qpc;
  (* anyseq *) logic             any_write, any_event_valid, any_flush_req;
  (* anyseq *) qpm_pkg::eqe_t    any_event;
`ifdef P_FORWARD_NEWEST
  logic [qpm_pkg::QpcW-1:0] qpc_in, qpc_any;
  assign qpc_in  = qpc_i;
  assign qpc_any = any_qpc;
  assign rsp_o   = {any_rsp[$bits(any_rsp)-1:4], qpc_in[qpm_pkg::QpcW-1 -: 2], qpc_in[1:0]};
  assign qpc_o   = {req_i.qpn[1:0], qpc_any[qpm_pkg::QpcW-3:2], req_i.qpn[3:2]};
`else
  assign rsp_o   = any_rsp;
  assign qpc_o   = any_qpc;
`endif
  assign write_o       = any_write;
  // (as qpm_dp_exec: an operation that raises an event writes its QPC, EventWritten_A)
  assign event_valid_o = any_event_valid && any_write;
  assign event_o       = any_event;
  assign flush_req_o   = any_flush_req;
  logic unused;
  assign unused = ^{req_i, exists_i, mem_err_i, qpc_i};
endmodule
