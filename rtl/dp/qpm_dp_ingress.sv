// qpm_dp_ingress: the datapath and doorbell ports' input registers, and a lock park
// behind each: requests on the QPN a command holds (qpm_cmd_unit's lock) wait there, so
// the requests on other QPNs behind them go on (docs/datapath.md, "The command lock").
//
//   datapath port ─► spill register ─┬───────────────┬─► qpm_dp_front's datapath lane
//                                    └─► lock park ──┘   (Depth entries, in order)
//   doorbell port ─► spill register ─┬───────────────┬─► qpm_dp_front's doorbell lane
//                                    └─► lock park ──┘   (Depth entries, in order)
//
// qpm_lock_park has the rule: a request parks when its QPN is locked or an older request
// of its QPN (on the same port) is parked, so each port keeps each QPN's order. Requests
// of different QPNs may reach the front out of port order; the harness follows the
// front's takes (a probe). The two parks count full waits apart (two CSR counters).
`include "qpm_assert.svh"

module qpm_dp_ingress #(
  parameter int unsigned Depth = 4
) (
  input  logic                     clk_i,
  input  logic                     rst_ni,
  // the ports
  input  logic                     dp_valid_i,
  output logic                     dp_ready_o,
  input  qpm_pkg::dp_req_t         dp_i,
  input  logic                     db_valid_i,
  output logic                     db_ready_o,
  input  qpm_pkg::doorbell_t       db_i,
  // the QPN the command unit is reading and writing back
  input  logic                     lock_valid_i,
  input  logic [qpm_pkg::QpnW-1:0] lock_qpn_i,
  // to qpm_dp_front
  output logic                     dp_valid_o,
  input  logic                     dp_ready_i,
  output qpm_pkg::dp_req_t         dp_o,
  output logic                     db_valid_o,
  input  logic                     db_ready_i,
  output qpm_pkg::doorbell_t       db_o,
  output logic                     dp_park_wait_o,  // an operation finds its park full
  output logic                     db_park_wait_o   // a doorbell finds its park full
);

  localparam int unsigned ReqW = $bits(dp_i);
  localparam int unsigned DbW  = $bits(db_i);
  // Where each request's QPN field lies (dp_req_t: below the tag; doorbell_t: on top);
  // the assertions at the end hold the parks to the structs.
  localparam int unsigned DpQpnLsb = ReqW - qpm_pkg::DpTagW - qpm_pkg::QpnW;
  localparam int unsigned DbQpnLsb = DbW - qpm_pkg::QpnW;

  // ---- the ports' input registers: their readies are flip-flops
  logic             in_valid, in_ready;
  qpm_pkg::dp_req_t in_req;
  qpm_spill_reg #(.Width(ReqW)) u_dp_reg (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (dp_valid_i),
    .in_ready_o  (dp_ready_o),
    .in_data_i   (dp_i),
    .out_valid_o (in_valid),
    .out_ready_i (in_ready),
    .out_data_o  (in_req)
  );

  logic               db_in_valid, db_in_ready;
  qpm_pkg::doorbell_t db_in;
  qpm_spill_reg #(.Width(DbW)) u_db_reg (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (db_valid_i),
    .in_ready_o  (db_ready_o),
    .in_data_i   (db_i),
    .out_valid_o (db_in_valid),
    .out_ready_i (db_in_ready),
    .out_data_o  (db_in)
  );

  // ---- the lock parks, one per port (the same rule: a request on the locked QPN, or
  // behind a parked one of its QPN, waits out of the way of the other QPNs')
  qpm_lock_park #(.Width(ReqW), .QpnLsb(DpQpnLsb), .Depth(Depth)) u_dp_park (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .in_valid_i   (in_valid),
    .in_ready_o   (in_ready),
    .in_data_i    (in_req),
    .lock_valid_i (lock_valid_i),
    .lock_qpn_i   (lock_qpn_i),
    .out_valid_o  (dp_valid_o),
    .out_ready_i  (dp_ready_i),
    .out_data_o   (dp_o),
    .park_wait_o  (dp_park_wait_o)
  );

  qpm_lock_park #(.Width(DbW), .QpnLsb(DbQpnLsb), .Depth(Depth)) u_db_park (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .in_valid_i   (db_in_valid),
    .in_ready_o   (db_in_ready),
    .in_data_i    (db_in),
    .lock_valid_i (lock_valid_i),
    .lock_qpn_i   (lock_qpn_i),
    .out_valid_o  (db_valid_o),
    .out_ready_i  (db_ready_i),
    .out_data_o   (db_o),
    .park_wait_o  (db_park_wait_o)
  );

  // The parks read each request's QPN at the offsets above (a packed struct's bits).
  `QPM_ASSERT(DpQpnField_A, in_req[DpQpnLsb +: qpm_pkg::QpnW] == in_req.qpn)
  `QPM_ASSERT(DbQpnField_A, db_in[DbQpnLsb +: qpm_pkg::QpnW] == db_in.qpn)

endmodule
