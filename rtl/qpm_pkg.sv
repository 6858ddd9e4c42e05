// qpm_pkg: the one source of truth for qpm's types and constants.
//
// The QP context (SPEC.md §3.1), QP states and types, the ib_qp_attr_mask bit positions,
// command opcodes and mlx5 status codes (SPEC.md §4), and the records that cross the
// command and context-access ports. Written in the Yosys 0.23 subset: every use of a
// package item is scoped as qpm_pkg::name, even inside this package (STYLE.md §1.1).
package qpm_pkg;

  // QPN width on the ports and in the QPC (SPEC.md §2, QPN_W).
  parameter int unsigned QpnW = 24;

  // enum ib_qp_state.
  typedef enum logic [2:0] {
    StReset = 3'd0,
    StInit  = 3'd1,
    StRtr   = 3'd2,
    StRts   = 3'd3,
    StSqd   = 3'd4,
    StSqe   = 3'd5,
    StErr   = 3'd6
  } qp_state_e;

  // enum ib_qp_type values of the supported types.
  parameter logic [2:0] TypeRc = 3'd2;
  parameter logic [2:0] TypeUc = 3'd3;
  parameter logic [2:0] TypeUd = 3'd4;

  // enum ib_qp_attr_mask bit positions.
  parameter logic [31:0] AttrState            = 32'h0000_0001;
  parameter logic [31:0] AttrCurState         = 32'h0000_0002;
  parameter logic [31:0] AttrEnSqdAsyncNotify = 32'h0000_0004;
  parameter logic [31:0] AttrAccessFlags      = 32'h0000_0008;
  parameter logic [31:0] AttrPkeyIndex        = 32'h0000_0010;
  parameter logic [31:0] AttrPort             = 32'h0000_0020;
  parameter logic [31:0] AttrQkey             = 32'h0000_0040;
  parameter logic [31:0] AttrAv               = 32'h0000_0080;
  parameter logic [31:0] AttrPathMtu          = 32'h0000_0100;
  parameter logic [31:0] AttrTimeout          = 32'h0000_0200;
  parameter logic [31:0] AttrRetryCnt         = 32'h0000_0400;
  parameter logic [31:0] AttrRnrRetry         = 32'h0000_0800;
  parameter logic [31:0] AttrRqPsn            = 32'h0000_1000;
  parameter logic [31:0] AttrMaxQpRdAtomic    = 32'h0000_2000;
  parameter logic [31:0] AttrAltPath          = 32'h0000_4000;
  parameter logic [31:0] AttrMinRnrTimer      = 32'h0000_8000;
  parameter logic [31:0] AttrSqPsn            = 32'h0001_0000;
  parameter logic [31:0] AttrMaxDestRdAtomic  = 32'h0002_0000;
  parameter logic [31:0] AttrPathMigState     = 32'h0004_0000;
  parameter logic [31:0] AttrDestQpn          = 32'h0010_0000;

  // Command opcodes (our encoding).
  parameter logic [7:0] OpMapPage   = 8'h01;
  parameter logic [7:0] OpUnmapPage = 8'h02;
  parameter logic [7:0] OpCreateQp  = 8'h10;
  parameter logic [7:0] OpModifyQp  = 8'h11;
  parameter logic [7:0] OpQueryQp   = 8'h12;
  parameter logic [7:0] OpDestroyQp = 8'h13;
  parameter logic [7:0] OpPinQp     = 8'h20;
  parameter logic [7:0] OpUnpinQp   = 8'h21;
  parameter logic [7:0] OpSyncCache = 8'h22;
  parameter logic [7:0] OpPortFault = 8'h30;
  // A command on one QP: it reads (and may write) that QP's context.
  function automatic logic is_qp_opcode(logic [7:0] opcode);
    is_qp_opcode = opcode == qpm_pkg::OpCreateQp || opcode == qpm_pkg::OpModifyQp
                || opcode == qpm_pkg::OpQueryQp  || opcode == qpm_pkg::OpDestroyQp
                || opcode == qpm_pkg::OpPinQp    || opcode == qpm_pkg::OpUnpinQp;
  endfunction

  // mlx5 command status values.
  parameter logic [7:0] StatusOk         = 8'h00;
  parameter logic [7:0] StatusIntErr     = 8'h01;
  parameter logic [7:0] StatusBadOp      = 8'h02;
  parameter logic [7:0] StatusBadParam   = 8'h03;
  parameter logic [7:0] StatusBadRes     = 8'h05;
  parameter logic [7:0] StatusResBusy    = 8'h06;
  parameter logic [7:0] StatusBadQpState = 8'h10;

  // Largest log2 queue size CREATE_QP accepts.
  parameter int unsigned MaxLogQ = 15;

  // The QP context: 512 bits, 64 bytes little-endian in memory. The last field sits at
  // bit 0. Hardware-updated fields first, software-set fields last.
  typedef struct packed {
    logic [4:0]  reserved;
    logic        ev_fatal_write;   // the pending QP_FATAL's cause: a write-back given up
                                   // (docs/errors.md); ev_fatal_port wins
    // --- updated by hardware on its own
    logic        quiesce;          // a reset waits for its DMAs: operations DROP (§10)
    logic        ev_fatal_port;    // the pending QP_FATAL's cause: PORT_FAULT (else memory)
    logic [4:0]  ev_pending;       // events raised, not yet in the EQ (qpm_event_pkg::EvBit*);
                                   // the lowest set bit leaves first (docs/events.md)
    logic        sq_err_pending;   // WQE sq_ci completes with err_syndrome's status (§7)
    logic [7:0]  err_syndrome;
    logic [7:0]  epoch;
    logic [7:0]  dma_inflight;
    logic        comm_est_seen;
    logic [1:0]  rx_msg_class;
    logic        rx_msg_open;
    logic [2:0]  cur_rnr_retry;
    logic [2:0]  cur_retry_cnt;
    logic [15:0] sq_issued;
    logic [15:0] rq_ci;
    logic [15:0] sq_ci;
    logic [15:0] rq_pi;
    logic [15:0] sq_pi;
    logic [4:0]  dest_rd_atomic_inflight;
    logic [4:0]  rd_atomic_outstanding;
    logic [23:0] expected_psn;
    logic [23:0] next_send_psn;
    // --- set by software (CREATE_QP / MODIFY_QP)
    logic        en_sqd_async_notify;
    logic [4:0]  log_rq_size;
    logic [4:0]  log_sq_size;
    logic [23:0] cqn_rcv;
    logic [23:0] cqn_snd;
    logic [4:0]  max_dest_rd_atomic;
    logic [4:0]  max_rd_atomic;
    logic [23:0] rq_psn;
    logic [23:0] sq_psn;
    logic [4:0]  min_rnr_timer;
    logic [2:0]  rnr_retry;
    logic [2:0]  retry_cnt;
    logic [4:0]  timeout;
    logic [1:0]  path_mig_state;
    logic [4:0]  alt_timeout;
    logic [1:0]  alt_port;
    logic [15:0] alt_pkey_index;
    logic [7:0]  alt_av_sgid_index;
    logic [3:0]  alt_av_sl;
    logic [15:0] alt_av_dlid;
    logic [7:0]  av_sgid_index;
    logic [3:0]  av_sl;
    logic [15:0] av_dlid;
    logic [23:0] dest_qpn;
    logic [2:0]  path_mtu;
    logic [3:0]  access_flags;
    logic [31:0] qkey;
    logic [15:0] pkey_index;
    logic [1:0]  port;
    logic [23:0] pd;
    logic [2:0]  qp_type;
    logic [2:0]  state;     // a qp_state_e value
    logic        valid;
  } qpc_t;

  parameter int unsigned QpcW = 512;

  // An address vector as a command carries it (struct ibv_ah_attr widths).
  typedef struct packed {
    logic [15:0] dlid;
    logic [7:0]  sl;
    logic [7:0]  sgid_index;
  } cmd_av_t;

  // One command. Attribute values have the widths of struct ibv_qp_attr so that every
  // range check happens here, in hardware (SPEC.md §4).
  typedef struct packed {
    logic [63:0] page_address;         // MAP_PAGE
    logic [31:0] dir_index;            // MAP_PAGE / UNMAP_PAGE
    logic [7:0]  log_rq_size;          // CREATE_QP ...
    logic [7:0]  log_sq_size;
    logic [31:0] cqn_rcv;
    logic [31:0] cqn_snd;
    logic [31:0] pd;
    logic [7:0]  qp_type;              // ... CREATE_QP
    logic [31:0] dest_qp_num;          // MODIFY_QP attributes ...
    logic [7:0]  path_mig_state;
    logic [7:0]  max_dest_rd_atomic;
    logic [31:0] sq_psn;
    logic [7:0]  min_rnr_timer;
    logic [7:0]  alt_timeout;
    logic [7:0]  alt_port_num;
    logic [15:0] alt_pkey_index;
    cmd_av_t     alt_av;
    logic [7:0]  max_rd_atomic;
    logic [31:0] rq_psn;
    logic [7:0]  rnr_retry;
    logic [7:0]  retry_cnt;
    logic [7:0]  timeout;
    logic [7:0]  path_mtu;
    cmd_av_t     av;
    logic [31:0] qkey;
    logic [7:0]  port_num;             // also PORT_FAULT's port
    logic [15:0] pkey_index;
    logic [31:0] qp_access_flags;
    logic [7:0]  en_sqd_async_notify;
    logic [7:0]  cur_qp_state;
    logic [7:0]  qp_state;             // ... MODIFY_QP attributes
    logic [31:0] attr_mask;
    logic [31:0] qpn;
    logic [7:0]  opcode;
  } cmd_t;

  // What a refused command names: attribute bits in ib_qp_attr_mask positions.
  typedef struct packed {
    logic [31:0] bad_value;  // out-of-range values (step 4)
    logic [31:0] forbidden;  // bits outside REQUIRED | OPTIONAL | STATE (step 3)
    logic [31:0] missing;    // REQUIRED bits absent (step 3)
  } syndrome_t;

  // One response. qpc is the context after the command for OK answers of CREATE, MODIFY,
  // QUERY, PIN and UNPIN; zero otherwise.
  typedef struct packed {
    qpc_t        qpc;
    syndrome_t   syndrome;
    logic [7:0]  status;
  } rsp_t;

  // The QPC-access interface between the command unit (later also the datapath) and
  // the QP cache. Requests carry a tag; each gets exactly one response with its tag.
  // Responses to one QPN come back in request order; across QPNs they may not.
  parameter int unsigned CtxTagW = 4;

  typedef enum logic [2:0] {
    CtxRead     = 3'd0,  // read the QPC of index (a QPN)
    CtxWrite    = 3'd1,  // write the payload as the QPC of index
    CtxDirWrite = 3'd2,  // write the payload's entry as directory entry index (MAP/UNMAP)
    CtxPin      = 3'd3,  // keep the QPC of index cached (eviction hint)
    CtxUnpin    = 3'd4,
    CtxSync     = 3'd5,  // write every dirty line back to memory
    CtxPrefetch = 3'd6,  // bring the QPC of index into the cache; no data returned
    CtxDp       = 3'd7   // a datapath operation, doorbell, engine step or PORT_FAULT
                         // step: read, decide and write the QPC in one pass (the payload
                         // carries it, rdata answers a dp_exec_rsp_t)
  } ctx_op_e;

  // Which requester qpm_dp_front offers to the QP cache (qpm_front_arbiter).
  typedef enum logic [2:0] {
    GNone  = 3'd0,
    GDp    = 3'd1,
    GDb    = 3'd2,
    GCmd   = 3'd3,
    GFlush = 3'd4,
    GFatal = 3'd5
  } front_grant_e;

  typedef enum logic [1:0] {
    CtxOk       = 2'd0,
    CtxMemErr   = 2'd1,  // the memory answered with an error
    CtxUnmapped = 2'd2,  // QPN at or above QPN_LIMIT, or its page is not mapped:
                         // refused without any memory access
    CtxBusy     = 2'd3   // pin beyond capacity, or (un)map of a page holding valid QPs
  } ctx_status_e;

  // A request on the QPC-access interface. Its payload, as op and tag say: CtxWrite the
  // qpc_t; CtxDirWrite the directory entry {page_address, valid} in bits 63:0 (SPEC.md
  // §3.2); CtxDp, in the low bits, a dp_req_t (TagDp), doorbell_t (TagDoorbell),
  // step_req_t (tag_is_step) or pf_req_t (TagCmd); else zero. One field for all, so a
  // parked request is no wider than a write (QpcW + 31 bits).
  typedef struct packed {
    logic [CtxTagW-1:0] tag;
    logic [QpnW-1:0]    index;      // QPN, or directory index for CtxDirWrite
    logic [QpcW-1:0]    payload;
    ctx_op_e            op;
  } ctx_req_t;

  typedef struct packed {
    logic [CtxTagW-1:0] tag;
    qpc_t               rdata;
    ctx_status_e        status;
  } ctx_rsp_t;

  // ---------------------------------------------------------------------------------
  // The datapath port (SPEC.md §2, §6; docs/datapath.md)
  // ---------------------------------------------------------------------------------
  parameter int unsigned DpTagW = 8;

  typedef enum logic [3:0] {
    DpRxReq      = 4'd0,
    DpRxRespDone = 4'd1,
    DpTxWqe      = 4'd2,
    DpRxAck      = 4'd3,
    DpTimeout    = 4'd4,
    DpRnrNak     = 4'd5,
    DpRxNak      = 4'd6,
    DpDmaBegin   = 4'd7,
    DpDmaEnd     = 4'd8
  } dp_op_e;

  // Message class (RX_REQ, TX_WQE) and packet position (RX_REQ).
  parameter logic [1:0] ClsSend   = 2'd0;
  parameter logic [1:0] ClsWrite  = 2'd1;
  parameter logic [1:0] ClsRead   = 2'd2;
  parameter logic [1:0] ClsAtomic = 2'd3;

  // EVICT_POLICY values (docs/eviction.md); a write of anything else is refused.
  parameter logic [1:0] EvictPlru   = 2'd0;
  parameter logic [1:0] EvictLru    = 2'd1;
  parameter logic [1:0] EvictRandom = 2'd2;
  parameter logic [1:0] EvictTrap   = 2'd3;
  parameter logic [1:0] PosFirst  = 2'd0;
  parameter logic [1:0] PosMiddle = 2'd1;
  parameter logic [1:0] PosLast   = 2'd2;
  parameter logic [1:0] PosOnly   = 2'd3;
  // RX_NAK codes.
  parameter logic [1:0] NakAccess    = 2'd0;
  parameter logic [1:0] NakInvalid   = 2'd1;
  parameter logic [1:0] NakOperation = 2'd2;

  typedef enum logic [3:0] {
    VAccept     = 4'd0,
    VDuplicate  = 4'd1,
    VDrop       = 4'd2,
    VNakSeq     = 4'd3,
    VNakAccess  = 4'd4,
    VNakInvalid = 4'd5,
    VRnr        = 4'd6,
    VIssue      = 4'd7,
    VStall      = 4'd8,
    VEmpty      = 4'd9,
    VLocalErr   = 4'd10,
    VRetry      = 4'd11,
    VFatal      = 4'd12
  } dp_verdict_e;

  // Why a DROP, in the order of the checks (one CSR counter each).
  typedef enum logic [3:0] {
    DropNone   = 4'd0,
    DropNoQp   = 4'd1,   // QPN beyond the limit, page unmapped, QPC invalid
    DropState  = 4'd2,   // the operation is not allowed in this state
    DropType   = 4'd3,   // an RC-only operation on UC/UD
    DropOpcode = 4'd4,   // UD: not SEND ONLY; UC: READ/ATOMIC
    DropQkey   = 4'd5,   // UD Q_Key mismatch
    DropPsn    = 4'd6,   // UC: PSN differs from the expected one (resynchronised)
    DropSeq    = 4'd7,   // UC: packet position out of sequence
    DropAccess = 4'd8,   // UC: WRITE without REMOTE_WRITE
    DropNoWqe  = 4'd9,   // UC/UD: no receive WQE posted
    DropCount  = 4'd10,  // a count beyond what is outstanding (or a counter at its bound)
    DropStale  = 4'd11,  // a token of an earlier incarnation (another epoch)
    DropMemErr = 4'd12,  // the QPC could not be read (memory error): nothing changes
    DropQuiesce = 4'd13  // the QP's reset waits for its DMAs (docs/reset.md)
  } dp_drop_e;
  parameter int unsigned NumDropReasons = 14;

  typedef struct packed {
    logic [DpTagW-1:0] tag;
    logic [QpnW-1:0]   qpn;
    dp_op_e            op;
    logic [1:0]        cls;     // RX_REQ, TX_WQE
    logic [1:0]        pos;     // RX_REQ
    logic [23:0]       psn;     // RX_REQ
    logic [31:0]       qkey;    // RX_REQ (UD)
    logic [23:0]       npkts;   // TX_WQE
    logic [15:0]       wqes;    // RX_ACK
    logic [7:0]        reads;   // RX_ACK
    logic [1:0]        code;    // RX_NAK
    logic [7:0]        epoch;   // the tokens: RX_RESP_DONE, RX_ACK, TIMEOUT, RNR_NAK,
                                // RX_NAK, DMA_BEGIN, DMA_END (docs/reset.md)
  } dp_req_t;

  // A verdict and what the engines need from the QPC (taken before the operation; all
  // zero when the QP does not exist). psn: TX_WQE the PSN of the WQE's first packet
  // (next_send_psn before the operation), RX_REQ the expected PSN before it, every other
  // operation next_send_psn.
  typedef struct packed {
    logic [DpTagW-1:0] tag;
    logic [QpnW-1:0]   qpn;
    dp_verdict_e       verdict;
    dp_drop_e          drop;
    logic [23:0]       psn;
    logic [2:0]        qp_type;
    logic [23:0]       dest_qpn;
    logic [15:0]       av_dlid;
    logic [3:0]        av_sl;
    logic [7:0]        av_sgid_index;
    logic [7:0]        epoch;
  } dp_rsp_t;

  // The QP types the datapath tells apart. CREATE_QP admits only RC, UC and UD; any other
  // type value (only a backdoor writes one) is handled as RC, as the golden model does.
  function automatic logic dp_is_rc(logic [2:0] qp_type);
    dp_is_rc = (qp_type != qpm_pkg::TypeUc) && (qp_type != qpm_pkg::TypeUd);
  endfunction

  // What a datapath operation does to the QPC and which event it raises, as one of
  // qpm_dp_exec's operation blocks decides it; qpm_dp_exec applies it. Each bit selects
  // one field's candidate value.
  typedef struct packed {
    logic       write;       // some effect below is set: the QPC is to be written
    logic       rx_accept;   // RX_REQ ACCEPT on UC/RC: expected_psn++
    logic       msg_open;    // ... of a FIRST: rx_msg_open = 1, rx_msg_class = cls
    logic       msg_close;   // ... of a LAST: rx_msg_open = 0
    logic       rq_consume;  // rq_ci++
    logic       comm_est;    // comm_est_seen = 1 (with the COMM_EST event)
    logic       resync;      // UC PSN drop: expected_psn = psn + 1, rx_msg_open = 0
    logic       dest_inc;    // dest_rd_atomic_inflight++
    logic       dest_dec;    // dest_rd_atomic_inflight--
    logic       issue;       // next_send_psn += npkts, sq_issued++
    logic       rd_inc;      // rd_atomic_outstanding++
    logic       sq_ci_inc;   // UC/UD: the WQE completes at issue
    logic       ack;         // sq_ci += wqes, rd_atomic_outstanding -= reads, reload
    logic       retry_dec;   // cur_retry_cnt--
    logic       rnr_dec;     // cur_rnr_retry-- (unless rnr_retry is 7)
    logic       dma_inc;     // dma_inflight++
    logic       dma_dec;     // dma_inflight--
    logic       to_err;      // state = ERR, err_syndrome = fail_syn
    logic       to_sqe;      // state = SQE, err_syndrome = fail_syn
    logic [7:0] fail_syn;    // the cause: err_syndrome, and the event's syndrome
    logic       ev_valid;    // the event raised, if any
    logic [4:0] ev_type;
  } dp_effects_t;

  // One operation's answer inside qpm_dp_exec: the verdict, the drop reason (DropNone
  // unless a DROP) and the effects. A package type: the blocks' ports carry it, and
  // Yosys 0.23 takes no package enum inside a module's own struct.
  typedef struct packed {
    dp_verdict_e verdict;
    dp_drop_e    drop;
    dp_effects_t fx;
  } dp_outcome_t;

  // Doorbell: software posted count WQEs on a queue (SPEC.md §2, §6).
  parameter logic QueueSq = 1'b0;
  parameter logic QueueRq = 1'b1;
  typedef struct packed {
    logic [QpnW-1:0] qpn;
    logic            rq;        // QueueRq: the receive queue, else the send queue
    logic [15:0]     count;
  } doorbell_t;

  // A step of the flush or fatal engine (docs/events.md, docs/errors.md): the QP and what
  // the step may emit, for which the front reserved room.
  typedef struct packed {
    logic [QpnW-1:0] qpn;
    logic            ev_ok;       // an EQE
    logic            cqe_ok;      // a CQE
    logic            fatal_only;  // only a QP's fatal-class events, "more" while one is
  } step_req_t;

  // One QPN of PORT_FAULT's scan, a CtxDp of tag TagCmd (qpm_pf_scan, qpm_rmw_exec).
  typedef struct packed {
    logic [QpnW-1:0] qpn;
    logic [1:0]      port;
  } pf_req_t;

  typedef struct packed {
    logic            is_port;   // a port event: qpn holds the port number
    logic [QpnW-1:0] qpn;
    logic [4:0]      event_type;
    logic [7:0]      syndrome;
  } eqe_t;

  // A completion on the CQE port: the flush and error completions of SPEC §7.
  typedef struct packed {
    logic [QpnW-1:0] cqn;
    logic [QpnW-1:0] qpn;
    logic            rq;          // QueueRq: a receive WQE, else a send WQE
    logic [15:0]     wqe_index;
    logic [7:0]      status;      // enum ibv_wc_status
  } cqe_t;

  typedef struct packed {
    logic    step_moved;      // a PORT_FAULT step moved its QP to ERR
    logic    event_valid;     // a step delivered one of its QP's pending events ...
    eqe_t    event_data;      // ... this one
    logic    ev_req_fatal;    // the QP has a fatal-class event pending now (a datapath
    logic    ev_req_info;     // operation raised it), or an informational one
    logic    ev_more;         // after this step the QP still has events pending (or the
                              // step could not read the QPC: try again)
    logic    step_ev_ok;      // a step's reservations, echoed: room for an EQE ...
    logic    step_cqe_ok;     // ... and for a CQE
    logic    db_refused;      // a doorbell was refused
    logic    flush_req;       // the QP owes completions now: start (or renew) its flush
    logic    cqe_valid;       // a flush step completed one WQE ...
    cqe_t    cqe;             // ... this one
    logic    flush_more;      // after this flush step the QP still owes completions (or
                              // the step could not read the QPC: try again)
    dp_rsp_t rsp;
  } dp_exec_rsp_t;

  // ctx tags of the requesters sharing the cache (qpm_dp_front).
  parameter logic [CtxTagW-1:0] TagCmd      = 4'd0;   // the command unit's access
  parameter logic [CtxTagW-1:0] TagPrefetch = 4'd1;   // the command unit's prefetch
  parameter logic [CtxTagW-1:0] TagDp       = 4'd2;   // a datapath operation
  parameter logic [CtxTagW-1:0] TagDoorbell = 4'd3;   // a doorbell
  // A step of owed work (qpm_flush_engine, qpm_flush_exec): the flush engine's tags
  // are 8 + its slot (0 .. 7; 7 is the scan), the fatal-event engine's 4 + its slot
  // (0 .. 3; 3 is the scan).
  function automatic logic tag_is_step(logic [CtxTagW-1:0] tag);
    tag_is_step = tag[CtxTagW-1] || tag[CtxTagW-2];
  endfunction
  function automatic logic tag_is_flush(logic [CtxTagW-1:0] tag);
    tag_is_flush = tag[CtxTagW-1];
  endfunction
  function automatic logic tag_is_fatal(logic [CtxTagW-1:0] tag);
    tag_is_fatal = !tag[CtxTagW-1] && tag[CtxTagW-2];
  endfunction

endpackage
