// qpm_event_pkg: the codes of qpm's events and completions.
//
// Event types (enum ibv_event_type values) and the syndromes hardware records with them
// (SPEC.md §8), the bits of a QP's pending events in qpc_t.ev_pending, and the work
// completion statuses of the CQE port (enum ibv_wc_status, SPEC.md §7). The records that
// carry them (eqe_t, cqe_t) stay in qpm_pkg with the other port records. Constants only:
// Yosys 0.23 takes no item of one package inside another, so this package names nothing
// of qpm_pkg. Every use is scoped as qpm_event_pkg::name (STYLE.md §1.1).
package qpm_event_pkg;

  // Asynchronous events (enum ibv_event_type values) and the causes hardware records in
  // err_syndrome and the EQE's syndrome when it moves a QP to ERR or SQE by itself.
  parameter logic [4:0] EvQpFatal     = 5'd1;
  parameter logic [4:0] EvQpReqErr    = 5'd2;
  parameter logic [4:0] EvQpAccessErr = 5'd3;
  parameter logic [4:0] EvCommEst     = 5'd4;
  parameter logic [4:0] EvSqDrained   = 5'd5;
  parameter logic [4:0] EvPortErr     = 5'd10;

  parameter logic [7:0] SynNone        = 8'd0;
  parameter logic [7:0] SynNakAccess   = 8'd1;   // RX_REQ refused: access   (QP_ACCESS_ERR)
  parameter logic [7:0] SynNakInvalid  = 8'd2;   // RX_REQ refused: invalid  (QP_REQ_ERR)
  parameter logic [7:0] SynRetryExc    = 8'd3;   // TIMEOUT with no retries left
  parameter logic [7:0] SynRnrRetryExc = 8'd4;   // RNR_NAK with no retries left
  parameter logic [7:0] SynRemAccess   = 8'd5;   // RX_NAK ACCESS
  parameter logic [7:0] SynRemInvReq   = 8'd6;   // RX_NAK INVALID
  parameter logic [7:0] SynRemOp       = 8'd7;   // RX_NAK OPERATION
  parameter logic [7:0] SynLocQpOp     = 8'd8;   // UC/UD TX_WQE READ/ATOMIC (to SQE)
  parameter logic [7:0] SynPortFault   = 8'd9;   // PORT_FAULT moved the QP to ERR (QP_FATAL)
  parameter logic [7:0] SynMemFatal    = 8'd10;  // its QPC could not be read   (QP_FATAL)
  parameter logic [7:0] SynWbFatal     = 8'd11;  // its QPC could not be written (QP_FATAL)

  // A QP's pending events, one bit each in qpc_t.ev_pending. The bit order is the order
  // a QP can raise them in (COMM_EST only in RTR, SQ_DRAINED only in SQD, the errors end
  // in ERR, QP_FATAL never follows itself), so the lowest set bit is always the oldest.
  // Bits 2..4 are the fatal class, served before the informational bits 0..1.
  parameter int unsigned EvBitCommEst   = 0;
  parameter int unsigned EvBitSqDrained = 1;
  parameter int unsigned EvBitReqErr    = 2;
  parameter int unsigned EvBitAccessErr = 3;
  parameter int unsigned EvBitFatal     = 4;
  parameter logic [4:0]  EvFatalClass   = 5'b11100;

  // The ev_pending bit of a QP event type (0 for a type kept in no bit).
  function automatic logic [4:0] ev_bit(logic [4:0] ev_type);
    ev_bit = 5'b0;
    if (ev_type == qpm_event_pkg::EvCommEst)     ev_bit = 5'b00001;
    if (ev_type == qpm_event_pkg::EvSqDrained)   ev_bit = 5'b00010;
    if (ev_type == qpm_event_pkg::EvQpReqErr)    ev_bit = 5'b00100;
    if (ev_type == qpm_event_pkg::EvQpAccessErr) ev_bit = 5'b01000;
    if (ev_type == qpm_event_pkg::EvQpFatal)     ev_bit = 5'b10000;
  endfunction

  // Work completion status values (enum ibv_wc_status) of the CQE port (SPEC.md §7).
  parameter logic [7:0] WcLocQpOpErr    = 8'd2;
  parameter logic [7:0] WcWrFlushErr    = 8'd5;
  parameter logic [7:0] WcRemInvReqErr  = 8'd9;
  parameter logic [7:0] WcRemAccessErr  = 8'd10;
  parameter logic [7:0] WcRemOpErr      = 8'd11;
  parameter logic [7:0] WcRetryExcErr   = 8'd12;
  parameter logic [7:0] WcRnrRetryExcErr = 8'd13;

endpackage
