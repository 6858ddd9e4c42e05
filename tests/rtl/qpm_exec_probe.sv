// qpm_exec_probe: qpm_dp_exec, qpm_doorbell_exec and qpm_flush_exec side by side, for
// tests/test_dp_exec.cpp, which compares them with the golden model's pure functions
// (tb/model/datapath.h). The request, response, event and doorbell cross as the
// qpm_pkg structs themselves, packed and unpacked by the harness's port codecs
// (tb/env/port_codec.h), the same the system tests drive qpm_top's ports with; the QPCs
// cross as the 512-bit qpm_pkg::qpc_t vector.
module qpm_exec_probe (
  // ---- datapath operation
  input  qpm_pkg::dp_req_t   req_i,
  input  logic               exists_i,
  input  logic               mem_err_i,
  input  logic [511:0]       qpc_i,
  output qpm_pkg::dp_rsp_t   rsp_o,
  output logic [511:0]       qpc_o,
  output logic               write_o,
  output logic               event_valid_o,
  output qpm_pkg::eqe_t      event_o,
  output logic               flush_req_o,
  // ---- doorbell
  input  qpm_pkg::doorbell_t db_i,
  input  logic               db_exists_i,
  input  logic [511:0]       db_qpc_i,
  output logic               db_refused_o,
  output logic [511:0]       db_qpc_o,
  output logic               db_flush_req_o,
  // ---- flush step
  input  logic [23:0]        fl_qpn_i,
  input  logic               fl_exists_i,
  input  logic               fl_mem_err_i,
  input  logic               fl_ev_ok_i,
  input  logic               fl_cqe_ok_i,
  input  logic [511:0]       fl_qpc_i,
  output logic [511:0]       fl_qpc_o,
  output logic               fl_write_o,
  output logic               fl_cqe_valid_o,
  output qpm_pkg::cqe_t      fl_cqe_o,
  output logic               fl_more_o,
  output logic               fl_ev_valid_o,
  output qpm_pkg::eqe_t      fl_event_o,
  output logic               fl_ev_more_o
);

  qpm_pkg::qpc_t dp_qpc_in, dp_qpc_out;
  assign dp_qpc_in = qpc_i;

  qpm_dp_exec u_dp_exec (
    .req_i         (req_i),
    .exists_i      (exists_i),
    .mem_err_i     (mem_err_i),
    .qpc_i         (dp_qpc_in),
    .rsp_o         (rsp_o),
    .qpc_o         (dp_qpc_out),
    .write_o       (write_o),
    .event_valid_o (event_valid_o),
    .event_o       (event_o),
    .flush_req_o   (flush_req_o)
  );
  assign qpc_o = dp_qpc_out;

  qpm_pkg::qpc_t db_qpc_in, db_qpc_out;
  assign db_qpc_in = db_qpc_i;

  qpm_doorbell_exec u_doorbell_exec (
    .db_i      (db_i),
    .exists_i  (db_exists_i),
    .qpc_i     (db_qpc_in),
    .refused_o   (db_refused_o),
    .qpc_o       (db_qpc_out),
    .flush_req_o (db_flush_req_o)
  );
  assign db_qpc_o = db_qpc_out;

  qpm_pkg::qpc_t fl_qpc_in, fl_qpc_out;
  assign fl_qpc_in = fl_qpc_i;

  qpm_flush_exec u_flush_exec (
    .qpn_i       (fl_qpn_i),
    .exists_i    (fl_exists_i),
    .mem_err_i   (fl_mem_err_i),
    .ev_ok_i     (fl_ev_ok_i),
    .cqe_ok_i    (fl_cqe_ok_i),
    .fatal_only_i (1'b0),
    .qpc_i       (fl_qpc_in),
    .qpc_o       (fl_qpc_out),
    .write_o     (fl_write_o),
    .cqe_valid_o (fl_cqe_valid_o),
    .cqe_o       (fl_cqe_o),
    .more_o      (fl_more_o),
    .event_valid_o (fl_ev_valid_o),
    .event_o       (fl_event_o),
    .ev_more_o     (fl_ev_more_o)
  );
  assign fl_qpc_o = fl_qpc_out;

endmodule
