// qpm_top: the queue-pair management subsystem of an RDMA NIC (SPEC.md §2).
//
// Today: the control path. Commands enter the command unit, which checks them against
// the hardware-enforced QP state machine and reads and writes QP contexts through the
// QPC-access interface, implemented here by the all-on-chip QPC store. The QP cache and
// table walker (AXI4 to host memory), the datapath, the flush and the event queue attach
// to the same interfaces in later steps; see docs/architecture.md.
module qpm_top #(
  parameter int unsigned QpnLimit    = 4096,  // QPNs 0 .. QpnLimit-1 (0 and 1 reserved)
  parameter int unsigned PageBits    = 6,     // QPCs per QP-table page = 2**PageBits
  parameter int unsigned NumPorts    = 2,     // physical ports, numbered 1 .. NumPorts
  parameter int unsigned PkeyTbl     = 128,   // P_Key table entries per port
  parameter int unsigned MaxRdAtomic = 16     // largest max_rd_atomic / max_dest_rd_atomic
) (
  input  logic          clk_i,
  input  logic          rst_ni,
  // control-plane commands and their responses, in order
  input  logic          cmd_valid_i,
  output logic          cmd_ready_o,
  input  qpm_pkg::cmd_t cmd_i,
  output logic          rsp_valid_o,
  input  logic          rsp_ready_i,
  output qpm_pkg::rsp_t rsp_o
);

  logic              ctx_req_valid, ctx_req_ready, ctx_rsp_valid;
  qpm_pkg::ctx_req_t ctx_req;
  qpm_pkg::ctx_rsp_t ctx_rsp;

  qpm_cmd_unit #(
    .QpnLimit    (QpnLimit),
    .PageBits    (PageBits),
    .NumPorts    (NumPorts),
    .PkeyTbl     (PkeyTbl),
    .MaxRdAtomic (MaxRdAtomic)
  ) u_cmd_unit (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .cmd_valid_i     (cmd_valid_i),
    .cmd_ready_o     (cmd_ready_o),
    .cmd_i           (cmd_i),
    .rsp_valid_o     (rsp_valid_o),
    .rsp_ready_i     (rsp_ready_i),
    .rsp_o           (rsp_o),
    .ctx_req_valid_o (ctx_req_valid),
    .ctx_req_ready_i (ctx_req_ready),
    .ctx_req_o       (ctx_req),
    .ctx_rsp_valid_i (ctx_rsp_valid),
    .ctx_rsp_i       (ctx_rsp)
  );

  qpm_qpc_store #(
    .QpnLimit (QpnLimit)
  ) u_qpc_store (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .req_valid_i (ctx_req_valid),
    .req_ready_o (ctx_req_ready),
    .req_i       (ctx_req),
    .rsp_valid_o (ctx_rsp_valid),
    .rsp_o       (ctx_rsp)
  );

endmodule
