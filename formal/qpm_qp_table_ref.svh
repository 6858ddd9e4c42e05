// The reference for the state-enforcer proofs (docs/formal.md): the Linux kernel's
// qp_state_table (mainline drivers/infiniband/core/verbs.c) and ib_modify_qp_is_ok(),
// encoded a second time, independently of rtl/cmd/qpm_qp_trans_table.sv and of
// rtl/qpm_pkg.sv: numbers only, as include/rdma/ib_verbs.h defines them, and the 66 rows
// TYPE,CUR,NEXT,REQ,OPT one per line exactly as the kernel table lists them (this file
// is the project's copy of those facts; nothing reads the source at build time).
//
// Included inside a property module. Written in the Yosys 0.23 subset.

// enum ib_qp_state
localparam logic [2:0] RefRst  = 3'd0;
localparam logic [2:0] RefInit = 3'd1;
localparam logic [2:0] RefRtr  = 3'd2;
localparam logic [2:0] RefRts  = 3'd3;
localparam logic [2:0] RefSqd  = 3'd4;
localparam logic [2:0] RefSqe  = 3'd5;
localparam logic [2:0] RefErr  = 3'd6;
// enum ib_qp_type: the three types the table holds (SMI=0, GSI=1, RAW_IPV6=5,
// RAW_ETHERTYPE=6 and 7 have no entry here: req = opt = 0, validity per transition).
localparam logic [2:0] RefRc = 3'd2;
localparam logic [2:0] RefUc = 3'd3;
localparam logic [2:0] RefUd = 3'd4;
// enum ib_qp_attr_mask: the two bits the algorithm itself looks at.
localparam logic [31:0] RefMaskState    = 32'h0000001;  // IB_QP_STATE
localparam logic [31:0] RefMaskCurState = 32'h0000002;  // IB_QP_CUR_STATE

// The valid-transition matrix (all QP types): bit [7*cur + next], rows = current state
// RESET..ERR, columns = next state RESET..ERR. Written as the 7x7 grid, one row a line,
// each row's columns from RESET (right) to ERR (left).
//                                     ERR SQE SQD RTS RTR INIT RESET
localparam logic [48:0] RefValidPairs = {7'b1_0_0_0_0_0_1,    // from ERR
                                         7'b1_0_0_1_0_0_1,    // from SQE
                                         7'b1_0_1_1_0_0_1,    // from SQD
                                         7'b1_0_1_1_0_0_1,    // from RTS
                                         7'b1_0_0_1_0_0_1,    // from RTR
                                         7'b1_0_0_0_1_1_1,    // from INIT
                                         7'b0_0_0_0_0_1_1};   // from RESET

function automatic logic ref_pair_valid(logic [2:0] cur, logic [2:0] nxt);
  ref_pair_valid = (cur <= RefErr) && (nxt <= RefErr)
                && RefValidPairs[7 * 32'(cur) + 32'(nxt)];
endfunction

// One row of the kernel table for RC, UC and UD: {present, REQUIRED, OPTIONAL}.
// Absent rows are invalid transitions for that type.
function automatic logic [64:0] ref_row(logic [2:0] qp_type, logic [2:0] cur, logic [2:0] nxt);
  ref_row = {1'b0, 32'h0, 32'h0};
  case ({qp_type, cur, nxt})
    // TYPE  CUR       NEXT                     REQ            OPT
    {RefRc, RefRst,  RefRst }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    {RefRc, RefRst,  RefInit}: ref_row = {1'b1, 32'h0000038, 32'h0000000};
    {RefRc, RefInit, RefRst }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    {RefRc, RefInit, RefInit}: ref_row = {1'b1, 32'h0000000, 32'h0000038};
    {RefRc, RefInit, RefRtr }: ref_row = {1'b1, 32'h0129180, 32'h0004018};
    {RefRc, RefInit, RefErr }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    {RefRc, RefRtr,  RefRst }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    {RefRc, RefRtr,  RefRts }: ref_row = {1'b1, 32'h0012e00, 32'h004c00a};
    {RefRc, RefRtr,  RefErr }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    {RefRc, RefRts,  RefRst }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    {RefRc, RefRts,  RefRts }: ref_row = {1'b1, 32'h0000000, 32'h004c00a};
    {RefRc, RefRts,  RefSqd }: ref_row = {1'b1, 32'h0000000, 32'h0000004};
    {RefRc, RefRts,  RefErr }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    {RefRc, RefSqd,  RefRst }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    {RefRc, RefSqd,  RefRts }: ref_row = {1'b1, 32'h0000000, 32'h004c00a};
    {RefRc, RefSqd,  RefSqd }: ref_row = {1'b1, 32'h0000000, 32'h006eeb8};
    {RefRc, RefSqd,  RefErr }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    {RefRc, RefSqe,  RefRst }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    {RefRc, RefSqe,  RefRts }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    {RefRc, RefSqe,  RefErr }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    {RefRc, RefErr,  RefRst }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    {RefRc, RefErr,  RefErr }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    {RefUc, RefRst,  RefRst }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    {RefUc, RefRst,  RefInit}: ref_row = {1'b1, 32'h0000038, 32'h0000000};
    {RefUc, RefInit, RefRst }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    {RefUc, RefInit, RefInit}: ref_row = {1'b1, 32'h0000000, 32'h0000038};
    {RefUc, RefInit, RefRtr }: ref_row = {1'b1, 32'h0101180, 32'h0004018};
    {RefUc, RefInit, RefErr }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    {RefUc, RefRtr,  RefRst }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    {RefUc, RefRtr,  RefRts }: ref_row = {1'b1, 32'h0010000, 32'h004400a};
    {RefUc, RefRtr,  RefErr }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    {RefUc, RefRts,  RefRst }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    {RefUc, RefRts,  RefRts }: ref_row = {1'b1, 32'h0000000, 32'h004400a};
    {RefUc, RefRts,  RefSqd }: ref_row = {1'b1, 32'h0000000, 32'h0000004};
    {RefUc, RefRts,  RefErr }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    {RefUc, RefSqd,  RefRst }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    {RefUc, RefSqd,  RefRts }: ref_row = {1'b1, 32'h0000000, 32'h004400a};
    {RefUc, RefSqd,  RefSqd }: ref_row = {1'b1, 32'h0000000, 32'h0044098};
    {RefUc, RefSqd,  RefErr }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    {RefUc, RefSqe,  RefRst }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    {RefUc, RefSqe,  RefRts }: ref_row = {1'b1, 32'h0000000, 32'h000000a};
    {RefUc, RefSqe,  RefErr }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    {RefUc, RefErr,  RefRst }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    {RefUc, RefErr,  RefErr }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    {RefUd, RefRst,  RefRst }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    {RefUd, RefRst,  RefInit}: ref_row = {1'b1, 32'h0000070, 32'h0000000};
    {RefUd, RefInit, RefRst }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    {RefUd, RefInit, RefInit}: ref_row = {1'b1, 32'h0000000, 32'h0000070};
    {RefUd, RefInit, RefRtr }: ref_row = {1'b1, 32'h0000000, 32'h0000050};
    {RefUd, RefInit, RefErr }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    {RefUd, RefRtr,  RefRst }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    {RefUd, RefRtr,  RefRts }: ref_row = {1'b1, 32'h0010000, 32'h0000042};
    {RefUd, RefRtr,  RefErr }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    {RefUd, RefRts,  RefRst }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    {RefUd, RefRts,  RefRts }: ref_row = {1'b1, 32'h0000000, 32'h0000042};
    {RefUd, RefRts,  RefSqd }: ref_row = {1'b1, 32'h0000000, 32'h0000004};
    {RefUd, RefRts,  RefErr }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    {RefUd, RefSqd,  RefRst }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    {RefUd, RefSqd,  RefRts }: ref_row = {1'b1, 32'h0000000, 32'h0000042};
    {RefUd, RefSqd,  RefSqd }: ref_row = {1'b1, 32'h0000000, 32'h0000050};
    {RefUd, RefSqd,  RefErr }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    {RefUd, RefSqe,  RefRst }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    {RefUd, RefSqe,  RefRts }: ref_row = {1'b1, 32'h0000000, 32'h0000042};
    {RefUd, RefSqe,  RefErr }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    {RefUd, RefErr,  RefRst }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    {RefUd, RefErr,  RefErr }: ref_row = {1'b1, 32'h0000000, 32'h0000000};
    default: ;
  endcase
endfunction

// Whether qp_type is one the table holds rows for.
function automatic logic ref_type_listed(logic [2:0] qp_type);
  ref_type_listed = (qp_type == RefRc) || (qp_type == RefUc) || (qp_type == RefUd);
endfunction

// {valid, REQUIRED, OPTIONAL} of (type, cur, next): the type's row for RC, UC and UD;
// for any other type the transition's validity with empty masks.
function automatic logic [64:0] ref_entry(logic [2:0] qp_type, logic [2:0] cur, logic [2:0] nxt);
  ref_entry = ref_type_listed(qp_type) ? ref_row(qp_type, cur, nxt)
                                       : {ref_pair_valid(cur, nxt), 32'h0, 32'h0};
endfunction

// The state part of ib_modify_qp_is_ok() (no mask test): cur and next within RESET..ERR,
// IB_QP_CUR_STATE only asserting RTR, RTS, SQD or SQE, and (cur, next) a valid entry.
// cur and next as the drivers compute them: ref_cur(), ref_next().
function automatic logic [7:0] ref_cur(logic [2:0] recorded, logic [31:0] mask,
                                       logic [7:0] cur_qp_state);
  ref_cur = ((mask & RefMaskCurState) != 32'h0) ? cur_qp_state : {5'b0, recorded};
endfunction

function automatic logic [7:0] ref_next(logic [2:0] recorded, logic [31:0] mask,
                                        logic [7:0] cur_qp_state, logic [7:0] qp_state);
  ref_next = ((mask & RefMaskState) != 32'h0) ? qp_state
                                               : ref_cur(recorded, mask, cur_qp_state);
endfunction

function automatic logic ref_kernel_state_ok(logic [2:0] qp_type, logic [2:0] recorded,
                                             logic [31:0] mask, logic [7:0] cur_qp_state,
                                             logic [7:0] qp_state);
  logic [7:0]  cur, nxt;
  logic [64:0] e;
  cur = ref_cur(recorded, mask, cur_qp_state);
  nxt = ref_next(recorded, mask, cur_qp_state, qp_state);
  e   = ref_entry(qp_type, cur[2:0], nxt[2:0]);
  ref_kernel_state_ok = (cur <= 8'(RefErr)) && (nxt <= 8'(RefErr))
                     && (((mask & RefMaskCurState) == 32'h0)
                         || ((cur >= 8'(RefRtr)) && (cur <= 8'(RefSqe))))
                     && e[64];
endfunction

// ib_modify_qp_is_ok(cur, next, type, mask), with cur and next computed the way the
// drivers compute them (cur: cur_qp_state if IB_QP_CUR_STATE, else the recorded state;
// next: qp_state if IB_QP_STATE, else cur) and the uverbs range check (both <= ERR).
function automatic logic ref_kernel_ok(logic [2:0] qp_type, logic [2:0] recorded,
                                       logic [31:0] mask, logic [7:0] cur_qp_state,
                                       logic [7:0] qp_state);
  logic [7:0]  cur, nxt;
  logic [64:0] e;
  logic [31:0] req, opt;
  cur = ref_cur(recorded, mask, cur_qp_state);
  nxt = ref_next(recorded, mask, cur_qp_state, qp_state);
  e   = ref_entry(qp_type, cur[2:0], nxt[2:0]);
  req = e[63:32];
  opt = e[31:0];
  ref_kernel_ok = ref_kernel_state_ok(qp_type, recorded, mask, cur_qp_state, qp_state)
               && ((mask & req) == req)
               && ((mask & ~(req | opt | RefMaskState)) == 32'h0);
endfunction
