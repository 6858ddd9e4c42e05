// qpm_qp_trans_table: the Linux kernel's qp_state_table in logic.
//
// For a QP type and a (current, next) state pair, says whether the transition is valid
// and which ib_qp_attr_mask bits it REQUIRES and allows (OPTIONAL). Transcribed from
// mainline drivers/infiniband/core/verbs.c for RC, UC and UD: 22 valid pairs, 66 rows.
// RESET -> ERR is not valid (mainline). Any other QP type gets empty masks, as in the
// kernel. tests/test_state_table.cpp compares this against the table held as data.
module qpm_qp_trans_table (
  input  logic [2:0]  qp_type_i,
  input  logic [2:0]  cur_i,
  input  logic [2:0]  next_i,
  output logic        valid_o,
  output logic [31:0] req_o,
  output logic [31:0] opt_o
);

  logic is_rc, is_uc, is_ud;
  assign is_rc = (qp_type_i == qpm_pkg::TypeRc);
  assign is_uc = (qp_type_i == qpm_pkg::TypeUc);
  assign is_ud = (qp_type_i == qpm_pkg::TypeUd);

  // Masks shared by several rows.
  localparam logic [31:0] InitAttrsRcUc = qpm_pkg::AttrAccessFlags | qpm_pkg::AttrPkeyIndex
                                        | qpm_pkg::AttrPort;
  localparam logic [31:0] InitAttrsUd   = qpm_pkg::AttrPkeyIndex | qpm_pkg::AttrPort
                                        | qpm_pkg::AttrQkey;
  // Optional attributes of RTR->RTS, RTS->RTS and SQD->RTS.
  localparam logic [31:0] ToRtsOptRc = qpm_pkg::AttrCurState | qpm_pkg::AttrAccessFlags
                                     | qpm_pkg::AttrAltPath | qpm_pkg::AttrMinRnrTimer
                                     | qpm_pkg::AttrPathMigState;
  localparam logic [31:0] ToRtsOptUc = qpm_pkg::AttrCurState | qpm_pkg::AttrAccessFlags
                                     | qpm_pkg::AttrAltPath | qpm_pkg::AttrPathMigState;
  localparam logic [31:0] ToRtsOptUd = qpm_pkg::AttrCurState | qpm_pkg::AttrQkey;

  // Per-type selection of a row's mask.
  function automatic logic [31:0] per_type(logic rc, logic uc, logic ud,
                                           logic [31:0] m_rc, logic [31:0] m_uc,
                                           logic [31:0] m_ud);
    per_type = rc ? m_rc : uc ? m_uc : ud ? m_ud : 32'h0;
  endfunction

  always_comb begin
    valid_o = 1'b0;
    req_o   = '0;
    opt_o   = '0;
    unique case ({cur_i, next_i})
      // --- from RESET
      {qpm_pkg::StReset, qpm_pkg::StReset}: valid_o = 1'b1;
      {qpm_pkg::StReset, qpm_pkg::StInit}: begin
        valid_o = 1'b1;
        req_o   = per_type(is_rc, is_uc, is_ud, InitAttrsRcUc, InitAttrsRcUc, InitAttrsUd);
      end
      // --- from INIT
      {qpm_pkg::StInit, qpm_pkg::StReset}: valid_o = 1'b1;
      {qpm_pkg::StInit, qpm_pkg::StInit}: begin
        valid_o = 1'b1;
        opt_o   = per_type(is_rc, is_uc, is_ud, InitAttrsRcUc, InitAttrsRcUc, InitAttrsUd);
      end
      {qpm_pkg::StInit, qpm_pkg::StRtr}: begin
        valid_o = 1'b1;
        req_o   = per_type(is_rc, is_uc, is_ud,
                           qpm_pkg::AttrAv | qpm_pkg::AttrPathMtu | qpm_pkg::AttrDestQpn
                           | qpm_pkg::AttrRqPsn | qpm_pkg::AttrMaxDestRdAtomic
                           | qpm_pkg::AttrMinRnrTimer,
                           qpm_pkg::AttrAv | qpm_pkg::AttrPathMtu | qpm_pkg::AttrDestQpn
                           | qpm_pkg::AttrRqPsn,
                           32'h0);
        opt_o   = per_type(is_rc, is_uc, is_ud,
                           qpm_pkg::AttrAltPath | qpm_pkg::AttrAccessFlags
                           | qpm_pkg::AttrPkeyIndex,
                           qpm_pkg::AttrAltPath | qpm_pkg::AttrAccessFlags
                           | qpm_pkg::AttrPkeyIndex,
                           qpm_pkg::AttrPkeyIndex | qpm_pkg::AttrQkey);
      end
      {qpm_pkg::StInit, qpm_pkg::StErr}: valid_o = 1'b1;
      // --- from RTR
      {qpm_pkg::StRtr, qpm_pkg::StReset}: valid_o = 1'b1;
      {qpm_pkg::StRtr, qpm_pkg::StRts}: begin
        valid_o = 1'b1;
        req_o   = per_type(is_rc, is_uc, is_ud,
                           qpm_pkg::AttrTimeout | qpm_pkg::AttrRetryCnt | qpm_pkg::AttrRnrRetry
                           | qpm_pkg::AttrSqPsn | qpm_pkg::AttrMaxQpRdAtomic,
                           qpm_pkg::AttrSqPsn,
                           qpm_pkg::AttrSqPsn);
        opt_o   = per_type(is_rc, is_uc, is_ud, ToRtsOptRc, ToRtsOptUc, ToRtsOptUd);
      end
      {qpm_pkg::StRtr, qpm_pkg::StErr}: valid_o = 1'b1;
      // --- from RTS
      {qpm_pkg::StRts, qpm_pkg::StReset}: valid_o = 1'b1;
      {qpm_pkg::StRts, qpm_pkg::StRts}: begin
        valid_o = 1'b1;
        opt_o   = per_type(is_rc, is_uc, is_ud, ToRtsOptRc, ToRtsOptUc, ToRtsOptUd);
      end
      {qpm_pkg::StRts, qpm_pkg::StSqd}: begin
        valid_o = 1'b1;
        opt_o   = per_type(is_rc, is_uc, is_ud, qpm_pkg::AttrEnSqdAsyncNotify,
                           qpm_pkg::AttrEnSqdAsyncNotify, qpm_pkg::AttrEnSqdAsyncNotify);
      end
      {qpm_pkg::StRts, qpm_pkg::StErr}: valid_o = 1'b1;
      // --- from SQD
      {qpm_pkg::StSqd, qpm_pkg::StReset}: valid_o = 1'b1;
      {qpm_pkg::StSqd, qpm_pkg::StRts}: begin
        valid_o = 1'b1;
        opt_o   = per_type(is_rc, is_uc, is_ud, ToRtsOptRc, ToRtsOptUc, ToRtsOptUd);
      end
      {qpm_pkg::StSqd, qpm_pkg::StSqd}: begin
        valid_o = 1'b1;
        // RC may be re-parameterised completely while drained.
        opt_o   = per_type(is_rc, is_uc, is_ud,
                           qpm_pkg::AttrPort | qpm_pkg::AttrAv | qpm_pkg::AttrTimeout
                           | qpm_pkg::AttrRetryCnt | qpm_pkg::AttrRnrRetry
                           | qpm_pkg::AttrMaxQpRdAtomic | qpm_pkg::AttrMaxDestRdAtomic
                           | qpm_pkg::AttrAltPath | qpm_pkg::AttrPkeyIndex
                           | qpm_pkg::AttrAccessFlags | qpm_pkg::AttrMinRnrTimer
                           | qpm_pkg::AttrPathMigState,
                           qpm_pkg::AttrAv | qpm_pkg::AttrAltPath | qpm_pkg::AttrAccessFlags
                           | qpm_pkg::AttrPkeyIndex | qpm_pkg::AttrPathMigState,
                           qpm_pkg::AttrPkeyIndex | qpm_pkg::AttrQkey);
      end
      {qpm_pkg::StSqd, qpm_pkg::StErr}: valid_o = 1'b1;
      // --- from SQE (entered only by hardware)
      {qpm_pkg::StSqe, qpm_pkg::StReset}: valid_o = 1'b1;
      {qpm_pkg::StSqe, qpm_pkg::StRts}: begin
        valid_o = 1'b1;
        // RC has no entry here in the kernel table: valid with empty masks.
        opt_o   = per_type(is_rc, is_uc, is_ud, 32'h0,
                           qpm_pkg::AttrCurState | qpm_pkg::AttrAccessFlags, ToRtsOptUd);
      end
      {qpm_pkg::StSqe, qpm_pkg::StErr}: valid_o = 1'b1;
      // --- from ERR
      {qpm_pkg::StErr, qpm_pkg::StReset}: valid_o = 1'b1;
      {qpm_pkg::StErr, qpm_pkg::StErr}: valid_o = 1'b1;
      default: ;  // not a valid transition
    endcase
  end

endmodule
