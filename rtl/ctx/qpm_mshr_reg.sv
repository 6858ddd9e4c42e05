// qpm_mshr_reg: one miss register of the QP cache (docs/qp-cache.md, "Misses"): its
// state, the QPN it works on, its way, its victim and its place in line, and what each
// of the file's events does to them. qpm_mshr_file generates Mshrs of these beside the
// shared compares (qpm_mshr_match) and scheduler (qpm_mshr_sched), and tells each one
// when an event is its own: the pipe allocating or parking on it, the scheduler giving
// it the shared step, its victim decision in the cycle after a Victim step, a memory
// response with its ID.
//
//   Dir -> [DirReq -> DirWait] -> Victim -> [WbRead] -> FillReq -> FillWait -> Replay
//       -> Free
`include "qpm_assert.svh"

module qpm_mshr_reg #(
  parameter int unsigned Ways     = 4,
  parameter int unsigned SeqW     = 5,
  parameter int unsigned PageBits = 6,
  parameter int unsigned SetW     = 6,
  localparam int unsigned QpnW = qpm_pkg::QpnW,
  localparam int unsigned WayW = (Ways > 1) ? $clog2(Ways) : 1,
  localparam int unsigned TagW = QpnW - SetW
) (
  input  logic                         clk_i,
  input  logic                         rst_ni,
  // the pipe: a new miss on this register (its directory entry's address computed by
  // the file), a request parked on it, a replay of one through the pipe
  input  logic                         alloc_i,
  input  logic [QpnW-1:0]              alloc_qpn_i,
  input  logic [60:0]                  alloc_addr_i,  // directory entry address, bits 63:3
  input  logic                         park_i,
  input  logic                         deq_i,
  // the shared step, given to this register; what the step found
  input  logic                         step_i,
  input  logic                         walk_hit_i,    // Dir: the directory cache's answer
  input  logic [63:12]                 walk_page_i,
  input  logic                         ret_take_i,    // the fill comes from the write-back buffer
  input  logic                         ret_gu_i,      // ... from a given-up entry
  // the victim decision, the cycle after a Victim step (the set read by the step)
  input  logic                         decide_i,
  input  logic                         vict_found_i,  // a way may go ...
  input  logic [WayW-1:0]              vict_way_i,    // ... this one
  input  logic                         take_ok_i,     // ... P0 does not change it now
  input  logic                         take_room_i,   // ... and it may be taken now,
  input  logic                         vict_valid_i,  // ... holding a QPC ...
  input  logic                         vict_dirty_i,  // ... to be written back
  input  logic [Ways*TagW-1:0]         vict_tags_i,   // the set's tags
  // a memory response with this register's ID
  input  logic                         rsp_i,
  input  logic                         rsp_error_i,
  input  logic [63:0]                  rsp_word_i,    // a directory entry
  // the register
  output qpm_pipe_pkg::mshr_state_e    state_o,
  output logic [QpnW-1:0]              qpn_o,
  output logic [WayW-1:0]              way_o,
  output logic [QpnW-1:0]              vqpn_o,        // the dirty victim to read out
  output logic [60:0]                  addr_o,        // directory entry, then QPC, 63:3
  output qpm_pkg::ctx_status_e         status_o,
  output logic [SeqW-1:0]              enq_o,         // requests parked ...
  output logic [SeqW-1:0]              deq_o,         // ... and replayed
  output logic                         waited_o,      // counted once in MISS_WAITS
  output logic                         fatal_o,       // a read of the QPC failed first
  // its state, decoded for the compares and the scheduler
  output logic                         busy_o,        // not free
  output logic                         owns_o,        // holds its way
  output logic                         victim_out_o   // a dirty victim to read out
);

  qpm_pipe_pkg::mshr_state_e state_q, state_d;
  logic [QpnW-1:0]           qpn_q, qpn_d, vqpn_q, vqpn_d;
  logic [WayW-1:0]           way_q, way_d;
  logic [60:0]               addr_q, addr_d;
  qpm_pkg::ctx_status_e      status_q, status_d;
  logic [SeqW-1:0]           enq_q, enq_d, deq_q, deq_d;
  logic                      waited_q, waited_d, fatal_q, fatal_d;

  always_comb begin
    state_d  = state_q;
    qpn_d    = qpn_q;
    way_d    = way_q;
    vqpn_d   = vqpn_q;
    addr_d   = addr_q;
    status_d = status_q;
    enq_d    = enq_q;
    deq_d    = deq_q;
    waited_d = waited_q;
    fatal_d  = fatal_q;

    // the pipe: parking and replays (the allocation is last, below)
    if (park_i) enq_d = enq_q + SeqW'(1);
    if (deq_i) deq_d = deq_q + SeqW'(1);

    // the shared step
    if (step_i) begin
      unique case (state_q)
        // Victim: the file reads the set; the decision is the next cycle's (decide_i)
        qpm_pipe_pkg::MWbRead: state_d = qpm_pipe_pkg::MFillReq;  // read out this cycle
        qpm_pipe_pkg::MDir: begin
          if (walk_hit_i) begin
            addr_d  = {walk_page_i, qpn_q[PageBits-1:0], 3'b0};
            state_d = qpm_pipe_pkg::MVictim;
          end else begin
            state_d = qpm_pipe_pkg::MDirReq;
          end
        end
        qpm_pipe_pkg::MDirReq:  state_d = qpm_pipe_pkg::MDirWait;   // the file sends the read
        qpm_pipe_pkg::MFillReq: state_d = qpm_pipe_pkg::MFillWait;
        default: ;
      endcase
      // A take-back: the fill comes from the write-back buffer now; one of a given-up
      // entry makes the QP fatal (as after a failed read, its commands' writes are refused).
      if (ret_take_i) begin
        fatal_d = fatal_q || ret_gu_i;
        state_d = qpm_pipe_pkg::MReplay;
      end
    end

    // a memory response
    if (rsp_i) begin
      unique case (state_q)
        qpm_pipe_pkg::MDirWait: begin
          if (rsp_error_i) begin
            state_d = qpm_pipe_pkg::MDirReq;      // read the entry again
          end else if (!rsp_word_i[0]) begin
            status_d = qpm_pkg::CtxUnmapped;
            state_d  = qpm_pipe_pkg::MReplay;
          end else begin
            addr_d  = {rsp_word_i[63:12], qpn_q[PageBits-1:0], 3'b0};
            state_d = qpm_pipe_pkg::MVictim;
          end
        end
        // A failed read is sent again (the context must be known to flush the QP), and
        // the fill that finally lands makes the QP fatal.
        qpm_pipe_pkg::MFillWait: begin
          if (rsp_error_i) begin
            fatal_d = 1'b1;
            state_d = qpm_pipe_pkg::MFillReq;
          end else begin
            state_d = qpm_pipe_pkg::MReplay;
          end
        end
        default: ;
      endcase
    end

    // The victim decision: take the chosen way when P0 does not change it now and a
    // dirty victim has a write-back entry promised; otherwise choose again when next
    // scheduled. A dirty victim's QPN comes from the set's tags, read with its state.
    if (decide_i) begin
      if (!vict_found_i) begin
        waited_d = 1'b1;
      end else if (take_ok_i && take_room_i) begin
        way_d = vict_way_i;
        if (vict_valid_i && vict_dirty_i) begin
          vqpn_d  = {vict_tags_i[32'(vict_way_i)*TagW +: TagW], qpn_q[SetW-1:0]};
          state_d = qpm_pipe_pkg::MWbRead;
        end else begin
          state_d = qpm_pipe_pkg::MFillReq;
        end
      end
    end

    // free once its waiters have all replayed
    if (state_q == qpm_pipe_pkg::MReplay && enq_q == deq_q && !park_i) begin
      state_d = qpm_pipe_pkg::MFree;
    end

    // The pipe's allocation (the pipe's write-fault mark allocates a register with nothing
    // parked on it). A free register takes no step, answer or decision, so nothing above
    // changes it in that cycle (AllocWhenFree_A); the allocation comes last so that P0's
    // decision, which arrives late, meets only the last multiplexer.
    if (alloc_i) begin
      state_d  = qpm_pipe_pkg::MDir;
      qpn_d    = alloc_qpn_i;
      status_d = qpm_pkg::CtxOk;
      addr_d   = alloc_addr_i;
      waited_d = 1'b0;
      fatal_d  = 1'b0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q  <= qpm_pipe_pkg::MFree;
      status_q <= qpm_pkg::CtxOk;
      {qpn_q, way_q, vqpn_q, addr_q, enq_q, deq_q, waited_q, fatal_q} <= '0;
    end else begin
      state_q  <= state_d;
      status_q <= status_d;
      {qpn_q, way_q, vqpn_q, addr_q, enq_q, deq_q, waited_q, fatal_q}
        <= {qpn_d, way_d, vqpn_d, addr_d, enq_d, deq_d, waited_d, fatal_d};
    end
  end

  assign state_o  = state_q;
  assign qpn_o    = qpn_q;
  assign way_o    = way_q;
  assign vqpn_o   = vqpn_q;
  assign addr_o   = addr_q;
  assign status_o = status_q;
  assign enq_o    = enq_q;
  assign deq_o    = deq_q;
  assign waited_o = waited_q;
  assign fatal_o  = fatal_q;

  assign busy_o       = state_q != qpm_pipe_pkg::MFree;
  assign victim_out_o = state_q == qpm_pipe_pkg::MWbRead;
  // A register owns its way from taking it until it is free again; one whose page is
  // unmapped replays without ever taking one.
  assign owns_o = state_q == qpm_pipe_pkg::MWbRead
               || state_q == qpm_pipe_pkg::MFillReq || state_q == qpm_pipe_pkg::MFillWait
               || (state_q == qpm_pipe_pkg::MReplay && status_q == qpm_pkg::CtxOk);

  logic unused_word;   // a directory entry: valid in bit 0, the page in 63:12
  assign unused_word = ^rsp_word_i[11:1];

  `QPM_ASSERT_IMPL(AllocWhenFree_A, alloc_i, state_q == qpm_pipe_pkg::MFree && !step_i
                                            && !rsp_i && !decide_i)

endmodule
