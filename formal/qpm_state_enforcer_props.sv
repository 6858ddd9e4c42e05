// Properties of the QP state enforcer (docs/formal.md), against an independent encoding
// of the Linux kernel's qp_state_table and ib_modify_qp_is_ok() (qpm_qp_table_ref.svh)
// plus the two rules qpm adds (docs/state-machine.md, SPEC.md §5): IB_QP_CUR_STATE must
// equal the actual state, and a draining SQD QP only goes to RESET or ERR.
//
// qpm_state_enforcer_props: qpm_state_enforcer alone. Combinational: `sat` proves each
// property for every QPC and every command at once, so for every QP type, current
// state, requested state, claimed current state and all 2^32 attribute masks (the 21
// standard bits and every bit above them).
//
//   QpType 0..7  the QP type under proof (RC = 2, UC = 3, UD = 4; 0, 1, 5, 6, 7 are
//                encodings CREATE_QP never writes)
//   QpType 8     every type other than RC, UC and UD
//   QpType 9     every type
module qpm_state_enforcer_props #(
  parameter int unsigned QpType      = 2,
  parameter int unsigned NumPorts    = 2,
  parameter int unsigned PkeyTbl     = 128,
  parameter int unsigned MaxRdAtomic = 16
) (
  input qpm_pkg::qpc_t qpc_i,
  input qpm_pkg::cmd_t cmd_i
);

  logic [7:0]         status;
  qpm_pkg::syndrome_t syndrome;
  qpm_pkg::qpc_t      qpc_new;
  qpm_state_enforcer #(
    .NumPorts    (NumPorts),
    .PkeyTbl     (PkeyTbl),
    .MaxRdAtomic (MaxRdAtomic)
  ) u_dut (
    .qpc_i      (qpc_i),
    .cmd_i      (cmd_i),
    .status_o   (status),
    .syndrome_o (syndrome),
    .qpc_o      (qpc_new)
  );

  `include "qpm_qp_table_ref.svh"

  // mlx5 command status values (SPEC.md §4), as numbers.
  localparam logic [7:0] RefOk         = 8'h00;
  localparam logic [7:0] RefBadParam   = 8'h03;
  localparam logic [7:0] RefBadRes     = 8'h05;
  localparam logic [7:0] RefBadQpState = 8'h10;

  logic sel;  // the QP type is one this proof covers
  assign sel = (QpType < 8) ? (32'(qpc_i.qp_type) == QpType)
             : (QpType == 8) ? !ref_type_listed(qpc_i.qp_type)
             : 1'b1;

  logic [31:0] mask;
  logic [7:0]  nxt;
  assign mask = cmd_i.attr_mask;
  assign nxt  = ref_next(qpc_i.state, mask, cmd_i.cur_qp_state, cmd_i.qp_state);

  // qpm's additions to the kernel's check.
  logic truthful, draining, drain_ok;
  assign truthful = ((mask & RefMaskCurState) == 32'h0)
                 || (cmd_i.cur_qp_state == {5'b0, qpc_i.state});
  assign draining = (qpc_i.state == RefSqd) && (qpc_i.sq_ci != qpc_i.sq_issued);
  assign drain_ok = !draining || (nxt == 8'(RefRst)) || (nxt == 8'(RefErr));

  // Step 4: the attributes supplied with a value out of range (docs/state-machine.md,
  // SPEC.md §5), by their ib_qp_attr_mask bit. QKEY takes any value.
  function automatic logic port_bad(logic [7:0] port);
    port_bad = (port == 8'd0) || (32'(port) > NumPorts);
  endfunction
  logic [31:0] out_of_range, bad;
  always_comb begin
    out_of_range = 32'h0;
    out_of_range[2]  = cmd_i.en_sqd_async_notify > 8'd1;         // EN_SQD_ASYNC_NOTIFY
    out_of_range[3]  = cmd_i.qp_access_flags > 32'd15;           // ACCESS_FLAGS
    out_of_range[4]  = 32'(cmd_i.pkey_index) >= PkeyTbl;         // PKEY_INDEX
    out_of_range[5]  = port_bad(cmd_i.port_num);                 // PORT
    out_of_range[7]  = cmd_i.av.sl > 8'd15;                      // AV
    out_of_range[8]  = (cmd_i.path_mtu == 8'd0) || (cmd_i.path_mtu > 8'd5);  // PATH_MTU
    out_of_range[9]  = cmd_i.timeout > 8'd31;                    // TIMEOUT
    out_of_range[10] = cmd_i.retry_cnt > 8'd7;                   // RETRY_CNT
    out_of_range[11] = cmd_i.rnr_retry > 8'd7;                   // RNR_RETRY
    out_of_range[12] = cmd_i.rq_psn > 32'hff_ffff;               // RQ_PSN
    out_of_range[13] = 32'(cmd_i.max_rd_atomic) > MaxRdAtomic;   // MAX_QP_RD_ATOMIC
    out_of_range[14] = (cmd_i.alt_av.sl > 8'd15) || port_bad(cmd_i.alt_port_num)
                    || (32'(cmd_i.alt_pkey_index) >= PkeyTbl)
                    || (cmd_i.alt_timeout > 8'd31);              // ALT_PATH
    out_of_range[15] = cmd_i.min_rnr_timer > 8'd31;              // MIN_RNR_TIMER
    out_of_range[16] = cmd_i.sq_psn > 32'hff_ffff;               // SQ_PSN
    out_of_range[17] = 32'(cmd_i.max_dest_rd_atomic) > MaxRdAtomic;  // MAX_DEST_RD_ATOMIC
    out_of_range[18] = cmd_i.path_mig_state > 8'd2;              // PATH_MIG_STATE
    out_of_range[20] = cmd_i.dest_qp_num > 32'hff_ffff;          // DEST_QPN
    bad = out_of_range & cmd_i.attr_mask;
  end

  // The verdict the reference gives, steps 1-3.
  logic        exists, state_ok, kernel_ok, ok;
  logic [64:0] entry;  // the row of (type, actual state, next)
  logic [31:0] req, opt, missing, forbidden;
  assign exists    = qpc_i.valid;
  assign state_ok  = truthful && drain_ok
                  && ref_kernel_state_ok(qpc_i.qp_type, qpc_i.state, mask,
                                         cmd_i.cur_qp_state, cmd_i.qp_state);
  assign kernel_ok = ref_kernel_ok(qpc_i.qp_type, qpc_i.state, mask, cmd_i.cur_qp_state,
                                   cmd_i.qp_state);
  assign ok        = exists && truthful && drain_ok && kernel_ok;
  assign entry     = ref_entry(qpc_i.qp_type, qpc_i.state, nxt[2:0]);
  assign req       = entry[63:32];
  assign opt       = entry[31:0];
  assign missing   = req & ~mask;
  assign forbidden = mask & ~(req | opt | RefMaskState);

  logic [64:0] self_row;
  always_comb begin
    // The reference itself: for RC, UC and UD the 66 rows are exactly the valid
    // transitions of the matrix.
    for (int t = 2; t <= 4; t++) begin
      for (int c = 0; c < 8; c++) begin
        for (int n = 0; n < 8; n++) begin
          self_row = ref_row(3'(t), 3'(c), 3'(n));
          assert (self_row[64] == ref_pair_valid(3'(c), 3'(n)));
        end
      end
    end
`ifdef P_ACCEPT
    // Accepted exactly when the kernel accepts, the QP exists, a claimed current state
    // is the actual one, a draining SQD QP goes to RESET or ERR, and every supplied
    // value is in range.
    if (sel) assert ((status == RefOk) == (ok && bad == 32'h0));
`endif
`ifdef P_VERDICT
    // The first failing step names the status; the syndrome says what step 3 or step 4
    // found, and is zero otherwise.
    if (sel) begin
      if (!exists) begin
        assert (status == RefBadRes && syndrome == '0);
      end else if (!state_ok) begin
        assert (status == RefBadQpState && syndrome == '0);
      end else if ((missing | forbidden) != 32'h0) begin
        assert (status == RefBadParam && syndrome.missing == missing
                && syndrome.forbidden == forbidden && syndrome.bad_value == '0);
      end else if (bad != 32'h0) begin
        assert (status == RefBadParam && syndrome.bad_value == bad
                && syndrome.forbidden == '0 && syndrome.missing == '0);
      end else begin
        assert (status == RefOk && syndrome == '0);
      end
    end
`endif
  end

  logic unused;
  assign unused = ^qpc_new;

endmodule

// qpm_state_enforcer_cmd_props: a refused MODIFY_QP leaves the QPC unchanged. The
// enforcer has no write enable: it computes a new context for every modify (qpc_o, to
// be used only with status OK), and qpm_cmd_unit decides whether to write it back. So
// this wrapper runs qpm_cmd_unit (with the real enforcer) from reset on one MODIFY_QP of
// any QPN, against a cache that answers after any delay with any QPC and any status.
//
// NOT RUN by scripts/formal.py yet: its `bmc` (yosys-smtbmc with z3 4.8.12) runs out of
// memory while z3 loads the model (an 8-bit compare with 0 of a three-way mux in
// qpm_cmd_unit takes z3 exponential time in the width), while Yosys' own solver proves it
// in about 15 s (docs/formal.md, "Not covered"):
//   sat -seq 10 -prove-asserts -set-assumes -set-init-zero -verify
module qpm_state_enforcer_cmd_props #(
  parameter int unsigned NumPorts    = 2,
  parameter int unsigned PkeyTbl     = 128,
  parameter int unsigned MaxRdAtomic = 16
) (
  input logic              clk_i,
  input logic              rst_ni,
  input logic [31:0]       qpn_limit_i,
  input logic [15:0]       reset_timeout_i,
  input logic              cmd_valid_i,
  input qpm_pkg::cmd_t     cmd_i,
  input logic              rsp_ready_i,
  input logic              ctx_req_ready_i,
  input logic              ctx_rsp_valid_i,
  input qpm_pkg::ctx_rsp_t ctx_rsp_i,
  input logic              event_ready_i
);

  logic              cmd_ready, rsp_valid, ctx_req_valid, lock_valid, event_valid, refused;
  qpm_pkg::rsp_t     rsp;
  qpm_pkg::ctx_req_t ctx_req;
  logic [qpm_pkg::QpnW-1:0] lock_qpn;
  logic                     flush_wait, flush_wait_poll;
  qpm_pkg::eqe_t     event_data;
  qpm_cmd_unit #(
    .NumPorts    (NumPorts),
    .PkeyTbl     (PkeyTbl),
    .MaxRdAtomic (MaxRdAtomic)
  ) u_dut (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .qpn_limit_i     (qpn_limit_i),
    .reset_timeout_i (reset_timeout_i),
    .refused_o       (refused),
    .cmd_valid_i     (cmd_valid_i),
    .cmd_ready_o     (cmd_ready),
    .cmd_i           (cmd_i),
    .rsp_valid_o     (rsp_valid),
    .rsp_ready_i     (rsp_ready_i),
    .rsp_o           (rsp),
    .ctx_req_valid_o (ctx_req_valid),
    .ctx_req_ready_i (ctx_req_ready_i),
    .ctx_req_o       (ctx_req),
    .ctx_rsp_valid_i (ctx_rsp_valid_i),
    .ctx_rsp_i       (ctx_rsp_i),
    .lock_valid_o    (lock_valid),
    .lock_qpn_o      (lock_qpn),
    .flush_wait_o      (flush_wait),
    .flush_wait_poll_o (flush_wait_poll),
    .event_valid_o   (event_valid),
    .event_ready_i   (event_ready_i),
    .event_o         (event_data)
  );

  `include "qpm_formal_reset.svh"
  `include "qpm_qp_table_ref.svh"

  localparam logic [7:0] RefOpModifyQp = 8'h11;  // MODIFY_QP (our encoding, SPEC.md §4)
  localparam logic [7:0] RefOk         = 8'h00;  // mlx5 status values
  localparam logic [7:0] RefBadParam   = 8'h03;
  localparam logic [7:0] RefBadRes     = 8'h05;
  localparam logic [7:0] RefBadQpState = 8'h10;

  // The command unit's own (tag 0) requests to the cache and their answers.
  logic offer0, take0, answer0, is_write;
  assign offer0   = ctx_req_valid && ctx_req.tag == '0;
  assign take0    = offer0 && ctx_req_ready_i;
  assign answer0  = ctx_rsp_valid_i && ctx_rsp_i.tag == '0;
  assign is_write = ctx_req.op == qpm_pkg::CtxWrite;

  logic          taken_q = 1'b0;          // the one command was accepted
  qpm_pkg::cmd_t cmd_q;                   // ... and what it is
  logic          pending_q = 1'b0;        // a tag-0 request taken, not yet answered
  logic          pending_read_q = 1'b0;   // ... and it is the context read
  logic          pending_write_q = 1'b0;  // ... and it is a write
  logic          read_q = 1'b0;           // the context read was answered OK
  qpm_pkg::qpc_t qpc_q;                   // ... with this context
  logic          wrote_q = 1'b0;          // a tag-0 CtxWrite was offered
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      if (cmd_valid_i && cmd_ready) begin
        taken_q <= 1'b1;
        cmd_q   <= cmd_i;
      end
      if (take0) begin
        pending_q       <= 1'b1;
        pending_read_q  <= ctx_req.op == qpm_pkg::CtxRead;
        pending_write_q <= is_write;
      end else if (answer0) begin
        pending_q <= 1'b0;
      end
      if (answer0 && pending_read_q && ctx_rsp_i.status == qpm_pkg::CtxOk) begin
        read_q <= 1'b1;
        qpc_q  <= ctx_rsp_i.rdata;
      end
      if (offer0 && is_write) wrote_q <= 1'b1;
    end
  end

  // The environment: exactly one command, a MODIFY_QP; the cache answers a tag-0
  // request only while one is outstanding (a cycle after taking it at the earliest), and
  // never answers a write "unmapped" (the read before it found the QPC).
  always_comb begin
    if (cmd_valid_i) assume (!taken_q && cmd_i.opcode == RefOpModifyQp);
    if (answer0) assume (pending_q && !(pending_write_q && ctx_rsp_i.status == qpm_pkg::CtxUnmapped));
  end

  // The reference verdict on the context read, steps 1-3 (step 4 can only refuse more).
  logic [31:0] mask;
  logic [7:0]  nxt;
  logic        ok;
  assign mask = cmd_q.attr_mask;
  assign nxt  = ref_next(qpc_q.state, mask, cmd_q.cur_qp_state, cmd_q.qp_state);
  assign ok   = qpc_q.valid
             && (((mask & RefMaskCurState) == 32'h0)
                 || (cmd_q.cur_qp_state == {5'b0, qpc_q.state}))
             && !((qpc_q.state == RefSqd) && (qpc_q.sq_ci != qpc_q.sq_issued)
                  && (nxt != 8'(RefRst)) && (nxt != 8'(RefErr)))
             && ref_kernel_ok(qpc_q.qp_type, qpc_q.state, mask, cmd_q.cur_qp_state,
                              cmd_q.qp_state);

  logic refusal;  // a status the enforcer refuses a modify with
  assign refusal = (rsp.status == RefBadRes) || (rsp.status == RefBadQpState)
                || (rsp.status == RefBadParam);

  always_comb begin
    if (!init_q) begin
`ifdef P_NO_WRITE
      // The context is written back only under the verdict OK, for a modify the
      // reference accepts ...
      if (offer0 && is_write) assert (rsp.status == RefOk && read_q && ok);
      // ... and a refused one (BAD_RES, BAD_QP_STATE, BAD_PARAM) has written nothing
      // and answers with no context.
      if (rsp_valid && refusal) assert (!wrote_q && rsp.qpc == '0);
      if (rsp_valid && read_q && !ok) assert (refusal);
`endif
    end
  end

  logic unused;
  assign unused = ^{refused, lock_valid, lock_qpn, event_valid, event_data, flush_wait,
                    flush_wait_poll};

endmodule
