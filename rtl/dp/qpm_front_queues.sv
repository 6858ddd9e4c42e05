// qpm_front_queues: the three queues behind the QP cache's answers, for qpm_dp_front
// (docs/datapath.md, "The ports"; docs/events.md): datapath responses (in RAM, 2 x Mshrs
// deep), CQEs of the flush, and the EQ, which takes the engines' and PORT_FAULT's events
// and the command unit's (PORT_ERR) in a cycle no step's event arrives. The front admits
// nothing without room reserved here (its credits), so a push is never refused
// (RspRoom_A, CqeRoom_A, EqRoom_A). Also the counters' pulses of what goes through.
`include "qpm_assert.svh"

module qpm_front_queues #(
  parameter int unsigned DpRspDepth = 16,
  parameter int unsigned EqDepth    = 16,
  parameter int unsigned CqeDepth   = 8,
  localparam int unsigned RspCntW = $clog2(DpRspDepth) + 1,
  localparam int unsigned EqCntW  = $clog2(EqDepth) + 1,
  localparam int unsigned CqeCntW = $clog2(CqeDepth) + 1
) (
  input  logic                     clk_i,
  input  logic                     rst_ni,
  // the cache's answer (qpm_pkg::dp_exec_rsp_t's fields), and what it is
  input  logic                     rsp_dp_i,     // a datapath operation's: rsp_i
  input  qpm_pkg::dp_rsp_t         rsp_i,
  input  logic                     rsp_db_i,     // a doorbell's: refused or not
  input  logic                     db_refused_i,
  input  logic                     cqe_push_i,   // a flush step's, with a CQE
  input  qpm_pkg::cqe_t            cqe_i,
  input  logic                     ev_push_i,    // a step's, with an EQE
  input  qpm_pkg::eqe_t            ev_i,
  // the command unit's event, taken (the front checked its room)
  input  logic                     cmd_ev_take_i,
  input  qpm_pkg::eqe_t            cmd_ev_i,
  // the ports
  output logic                     dp_rsp_valid_o,
  input  logic                     dp_rsp_ready_i,
  output qpm_pkg::dp_rsp_t         dp_rsp_o,
  output logic                     cqe_valid_o,
  input  logic                     cqe_ready_i,
  output qpm_pkg::cqe_t            cqe_o,
  output logic                     eqe_valid_o,
  input  logic                     eqe_ready_i,
  output qpm_pkg::eqe_t            eqe_o,
  // what each queue holds (the front's credit checks), and an EQE pushed
  output logic [RspCntW-1:0]       rsp_count_o,
  output logic [CqeCntW-1:0]       cqe_count_o,
  output logic [EqCntW-1:0]        eq_count_o,
  output logic                     eq_push_o,
  // one pulse per event: a DROP (by reason), a refused doorbell, an EQE in, a CQE out
  output logic [qpm_pkg::NumDropReasons-1:0] drop_o,
  output logic                     db_refused_o,
  output logic                     event_o,
  output logic                     cqe_sent_o,       // a CQE left on the port ...
  output logic                     wqe_flushed_o,    // ... with status WR_FLUSH_ERR
  output logic [5:0]               ev_type_o,        // an EQE in: QP_FATAL, QP_REQ_ERR,
                                                     // QP_ACCESS_ERR, COMM_EST, SQ_DRAINED, PORT_ERR
  output logic                     eq_hwm_o          // the EQ holds more than it ever did
);

  logic rsp_fifo_ready, cqe_fifo_ready, eq_in_ready;

  qpm_fifo_sram #(   // 2 x Mshrs deep: in RAM (docs/datapath.md, "The ports")
    .Width ($bits(dp_rsp_o)),
    .Depth (DpRspDepth)
  ) u_rsp_fifo (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (rsp_dp_i),
    .in_ready_o  (rsp_fifo_ready),
    .in_data_i   (rsp_i),
    .out_valid_o (dp_rsp_valid_o),
    .out_ready_i (dp_rsp_ready_i),
    .out_data_o  (dp_rsp_o),
    .count_o     (rsp_count_o)
  );

  qpm_fifo #(
    .Width ($bits(cqe_o)),
    .Depth (CqeDepth)
  ) u_cqe_fifo (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (cqe_push_i),
    .in_ready_o  (cqe_fifo_ready),
    .in_data_i   (cqe_i),
    .out_valid_o (cqe_valid_o),
    .out_ready_i (cqe_ready_i),
    .out_data_o  (cqe_o),
    .count_o     (cqe_count_o)
  );
  assign cqe_sent_o    = cqe_valid_o && cqe_ready_i;
  assign wqe_flushed_o = cqe_sent_o && cqe_o.status == qpm_event_pkg::WcWrFlushErr;

  // A command event takes a slot no step in flight has reserved, in a cycle no step's
  // event arrives (the front's cmd_ev_take).
  qpm_pkg::eqe_t eq_in;
  assign eq_push_o = ev_push_i || cmd_ev_take_i;
  assign eq_in     = ev_push_i ? ev_i : cmd_ev_i;
  qpm_fifo #(
    .Width ($bits(eqe_o)),
    .Depth (EqDepth)
  ) u_eq_fifo (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (eq_push_o),
    .in_ready_o  (eq_in_ready),
    .in_data_i   (eq_in),
    .out_valid_o (eqe_valid_o),
    .out_ready_i (eqe_ready_i),
    .out_data_o  (eqe_o),
    .count_o     (eq_count_o)
  );

  always_comb begin
    drop_o = '0;
    if (rsp_dp_i && rsp_i.verdict == qpm_pkg::VDrop) drop_o[rsp_i.drop] = 1'b1;
  end
  assign db_refused_o = rsp_db_i && db_refused_i;
  assign event_o      = eq_push_o && eq_in_ready;
  // Per event type, in the order of ev_type_o; and the EQ's high-water mark, one pulse
  // each time the FIFO holds more than it ever did (the counter then holds the mark).
  always_comb begin
    ev_type_o = '0;
    if (event_o) begin
      ev_type_o[0] = eq_in.event_type == qpm_event_pkg::EvQpFatal;
      ev_type_o[1] = eq_in.event_type == qpm_event_pkg::EvQpReqErr;
      ev_type_o[2] = eq_in.event_type == qpm_event_pkg::EvQpAccessErr;
      ev_type_o[3] = eq_in.event_type == qpm_event_pkg::EvCommEst;
      ev_type_o[4] = eq_in.event_type == qpm_event_pkg::EvSqDrained;
      ev_type_o[5] = eq_in.event_type == qpm_event_pkg::EvPortErr;
    end
  end
  logic [EqCntW-1:0] eq_hwm_q;
  assign eq_hwm_o = event_o && !(eqe_valid_o && eqe_ready_i) && eq_count_o == eq_hwm_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni)       eq_hwm_q <= '0;
    else if (eq_hwm_o) eq_hwm_q <= eq_hwm_q + 1'b1;
  end

  // ---- contract: the front's credits make room for every answer and event it admits.
  `QPM_ASSERT_IMPL(RspRoom_A, rsp_dp_i, rsp_fifo_ready)
  `QPM_ASSERT_IMPL(EqRoom_A, eq_push_o, eq_in_ready)
  `QPM_ASSERT_IMPL(CqeRoom_A, cqe_push_i, cqe_fifo_ready)

endmodule
