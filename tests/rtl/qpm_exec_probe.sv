// qpm_exec_probe: qpm_dp_exec and qpm_doorbell_exec side by side with flat ports, for
// tests/test_dp_exec.cpp, which compares them with the golden model's pure functions
// (tb/model/datapath.h). Each request field is its own port; the QPCs cross as the
// 512-bit qpm_pkg::qpc_t vector, packed and unpacked by the model's own pack_qpc /
// unpack_qpc.
module qpm_exec_probe (
  // ---- datapath operation
  input  logic [7:0]   tag_i,
  input  logic [23:0]  qpn_i,
  input  logic [3:0]   op_i,
  input  logic [1:0]   cls_i,
  input  logic [1:0]   pos_i,
  input  logic [23:0]  psn_i,
  input  logic [31:0]  qkey_i,
  input  logic [23:0]  npkts_i,
  input  logic [15:0]  wqes_i,
  input  logic [7:0]   reads_i,
  input  logic [1:0]   code_i,
  input  logic [7:0]   epoch_i,
  input  logic         exists_i,
  input  logic         mem_err_i,
  input  logic [511:0] qpc_i,
  output logic [7:0]   rsp_tag_o,
  output logic [23:0]  rsp_qpn_o,
  output logic [3:0]   rsp_verdict_o,
  output logic [3:0]   rsp_drop_o,
  output logic [23:0]  rsp_psn_o,
  output logic [2:0]   rsp_qp_type_o,
  output logic [23:0]  rsp_dest_qpn_o,
  output logic [15:0]  rsp_av_dlid_o,
  output logic [3:0]   rsp_av_sl_o,
  output logic [7:0]   rsp_av_sgid_index_o,
  output logic [7:0]   rsp_epoch_o,
  output logic [511:0] qpc_o,
  output logic         write_o,
  output logic         event_valid_o,
  output logic         event_is_port_o,
  output logic [23:0]  event_qpn_o,
  output logic [4:0]   event_type_o,
  output logic [7:0]   event_syndrome_o,
  // ---- doorbell
  input  logic [23:0]  db_qpn_i,
  input  logic         db_rq_i,
  input  logic [15:0]  db_count_i,
  input  logic         db_exists_i,
  input  logic [511:0] db_qpc_i,
  output logic         db_refused_o,
  output logic [511:0] db_qpc_o
);

  // The request as one packed vector in dp_req_t's field order (most significant first):
  // a whole-struct assignment, so op_i needs no cast to the enum.
  qpm_pkg::dp_req_t req;
  assign req = {tag_i, qpn_i, op_i, cls_i, pos_i, psn_i, qkey_i, npkts_i, wqes_i, reads_i,
                code_i, epoch_i};

  qpm_pkg::qpc_t    dp_qpc_in, dp_qpc_out;
  qpm_pkg::dp_rsp_t rsp;
  qpm_pkg::eqe_t    ev;
  assign dp_qpc_in = qpc_i;

  qpm_dp_exec u_dp_exec (
    .req_i         (req),
    .exists_i      (exists_i),
    .mem_err_i     (mem_err_i),
    .qpc_i         (dp_qpc_in),
    .rsp_o         (rsp),
    .qpc_o         (dp_qpc_out),
    .write_o       (write_o),
    .event_valid_o (event_valid_o),
    .event_o       (ev)
  );

  assign qpc_o               = dp_qpc_out;
  assign rsp_tag_o           = rsp.tag;
  assign rsp_qpn_o           = rsp.qpn;
  assign rsp_verdict_o       = rsp.verdict;
  assign rsp_drop_o          = rsp.drop;
  assign rsp_psn_o           = rsp.psn;
  assign rsp_qp_type_o       = rsp.qp_type;
  assign rsp_dest_qpn_o      = rsp.dest_qpn;
  assign rsp_av_dlid_o       = rsp.av_dlid;
  assign rsp_av_sl_o         = rsp.av_sl;
  assign rsp_av_sgid_index_o = rsp.av_sgid_index;
  assign rsp_epoch_o         = rsp.epoch;
  assign event_is_port_o     = ev.is_port;
  assign event_qpn_o         = ev.qpn;
  assign event_type_o        = ev.event_type;
  assign event_syndrome_o    = ev.syndrome;

  qpm_pkg::doorbell_t db;
  qpm_pkg::qpc_t      db_qpc_in, db_qpc_out;
  assign db.qpn     = db_qpn_i;
  assign db.rq      = db_rq_i;
  assign db.count   = db_count_i;
  assign db_qpc_in  = db_qpc_i;

  qpm_doorbell_exec u_doorbell_exec (
    .db_i      (db),
    .exists_i  (db_exists_i),
    .qpc_i     (db_qpc_in),
    .refused_o (db_refused_o),
    .qpc_o     (db_qpc_out)
  );

  assign db_qpc_o = db_qpc_out;

endmodule
