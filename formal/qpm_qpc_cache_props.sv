// Properties of the QP cache (docs/formal.md, docs/qp-cache.md): qpm_qpc_cache with all
// its blocks at a tiny configuration, bounded model check from reset (formal/cache.toml).
//
// The cache's own assertions (QPM_ASSERT* in its blocks) are live in every proof: FORMAL
// turns them into clocked immediate assertions. Each proof's define switches on one more
// property; where it needs internal signals it sits beside the RTL (`ifdef FORMAL,
// `ifdef P_<NAME> at the end of rtl/ctx/qpm_cache_lines.sv, qpm_mshr_file.sv,
// qpm_qpc_cache.sv), here only what the ports show. The datapath computes inside the
// pipe are cut out (formal/cache_stub_*.sv: free outputs).
//
// Environment (C1 .. C4), each something the real neighbours guarantee; every assumption
// is stated about the cycle it constrains (registered copies of the cycle before), so
// none acts a cycle late:
//   C1 reset in cycle 0 only (qpm_formal_reset.svh); nothing offered or answered during it.
//   C2 the request port keeps the valid/ready rule: a request offered and not taken is
//      offered again, unchanged, in the next cycle (qpm_dp_front, proven there:
//      front.ctx_req). Any op, QPN, tag and data in any cycle otherwise.
//   C3 QPT_BASE and QPN_LIMIT are constants (any values): qpm_csr locks them once a
//      directory entry is mapped, and software does not move them under traffic before.
//   C4 memory (qpm_axi_master's contract, docs/qp-cache.md section 12): a response comes
//      only for a request of that ID and kind (read or write) that the port took in an
//      earlier cycle and that has not been answered yet; any latency, any order across
//      IDs, any data, any error bit; the port's ready is free (any back-pressure).
//      Its model: the two "outstanding" vectors below, set when the port takes a
//      request, cleared by its response.
//   C5 WB_RETRY_BUDGET is 0 and no command lock: a refused write is retried for ever,
//      as before issue 27 item 3; give-ups, returns and marks are simulation's.
module qpm_qpc_cache_props #(
  parameter int unsigned Sets       = 2,
  parameter int unsigned Ways       = 2,
  parameter int unsigned Mshrs      = 2,
  parameter int unsigned DirEntries = 4,
  parameter int unsigned ParkDepth  = 2 * Mshrs,
  parameter int unsigned WbDepth    = 2,
  parameter int unsigned MemIdW     = 2,
  localparam int unsigned Ids       = 1 << MemIdW
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                  req_valid_i,
  input  qpm_pkg::ctx_req_t     req_i,
  input  logic                  mem_rd_ready_i,
  input  logic                  mem_wr_ready_i,
  input  logic                  mem_rsp_valid_i,
  input  logic                  mem_rsp_write_i,
  input  logic [MemIdW-1:0]     mem_rsp_id_i,
  input  logic                  mem_rsp_error_i,
  input  logic [511:0]          mem_rsp_rdata_i,
  input  logic [1:0]            evict_policy_i,  // free: any policy, changing any cycle
  input  logic [15:0]           trap_timeout_i,  // free, as is the whole eviction-trap agent
  input  logic                  trap_req_ready_i,
  input  logic                  trap_rsp_valid_i,
  input  logic [3:0]            trap_rsp_tag_i,
  input  logic [$clog2(Ways)-1:0] trap_rsp_way_i
);

  // C3
  (* anyconst *) logic [63:0] qpt_base;
  (* anyconst *) logic [31:0] qpn_limit;

  logic                  req_ready, rsp_valid, mapped_any;
  qpm_pkg::ctx_rsp_t     rsp;
  logic                  mem_rd_valid, mem_rd_line, mem_wr_valid, mem_wr_line;
  logic [MemIdW-1:0]     mem_rd_id, mem_wr_id;
  logic [63:0]           mem_rd_addr, mem_wr_addr;
  logic [511:0]          mem_wr_wdata;
  logic [qpm_pipe_pkg::NumCounters-1:0] count;

  qpm_qpc_cache #(
    .Sets       (Sets),
    .Ways       (Ways),
    .Mshrs      (Mshrs),
    .DirEntries (DirEntries),
    .ParkDepth  (ParkDepth),
    .WbDepth    (WbDepth),
    .MemIdW     (MemIdW)
  ) u_dut (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .qpt_base_i      (qpt_base),
    .qpn_limit_i     (qpn_limit),
    .evict_policy_i  (evict_policy_i),
    .trap_timeout_i  (trap_timeout_i),
    .trap_req_valid_o (),
    .trap_req_ready_i (trap_req_ready_i),
    .trap_req_o      (),
    .trap_rsp_valid_i (trap_rsp_valid_i),
    .trap_rsp_tag_i  (trap_rsp_tag_i),
    .trap_rsp_way_i  (trap_rsp_way_i),
    .trap_cnt_o      (),
    .req_valid_i     (req_valid_i),
    .req_ready_o     (req_ready),
    .req_i           (req_i),
    .rsp_valid_o     (rsp_valid),
    .rsp_o           (rsp),
    .mem_fatal_o     (),
    .mem_fatal_qpn_o (),
    .mem_fatal_write_o (),
    // C5: WB_RETRY_BUDGET 0 (a refused write is retried for ever): the write-fault
    // returns and marks (docs/qp-cache.md section 20) are covered by simulation
    .wb_retry_budget_i (8'd0),
    .cnt_given_up_o  (),
    .cnt_take_back_o (),
    .lock_valid_i    (1'b0),
    .lock_qpn_i      ('0),
    .mem_rd_valid_o (mem_rd_valid),
    .mem_wr_valid_o (mem_wr_valid),
    .mem_rd_ready_i (mem_rd_ready_i),
    .mem_wr_ready_i (mem_wr_ready_i),
    .mem_rd_id_o    (mem_rd_id),
    .mem_wr_id_o    (mem_wr_id),
    .mem_rd_addr_o  (mem_rd_addr),
    .mem_wr_addr_o  (mem_wr_addr),
    .mem_rd_line_o  (mem_rd_line),
    .mem_wr_line_o  (mem_wr_line),
    .mem_wr_wdata_o (mem_wr_wdata),
    .mem_rsp_valid_i (mem_rsp_valid_i),
    .mem_rsp_write_i (mem_rsp_write_i),
    .mem_rsp_id_i    (mem_rsp_id_i),
    .mem_rsp_error_i (mem_rsp_error_i),
    .mem_rsp_rdata_i (mem_rsp_rdata_i),
    .count_o         (count),
    .mapped_any_o    (mapped_any)
  );

  `include "qpm_formal_reset.svh"

  // ---- C4's model: requests the port took and memory has not answered, per kind and ID
  logic [Ids-1:0] rd_out_q, wr_out_q;
  logic           rd_take, wr_take;
  assign rd_take = mem_rd_valid && mem_rd_ready_i;
  assign wr_take = mem_wr_valid && mem_wr_ready_i;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      rd_out_q <= '0;
      wr_out_q <= '0;
    end else begin
      if (mem_rsp_valid_i && !mem_rsp_write_i) rd_out_q[mem_rsp_id_i] <= 1'b0;
      if (mem_rsp_valid_i && mem_rsp_write_i)  wr_out_q[mem_rsp_id_i] <= 1'b0;
      if (rd_take)                             rd_out_q[mem_rd_id]    <= 1'b1;
      if (wr_take)                             wr_out_q[mem_wr_id]    <= 1'b1;
    end
  end

  // ---- C2's memory: the request offered and not taken in the cycle before
  logic              req_wait_q;
  qpm_pkg::ctx_req_t req_q;
  always_ff @(posedge clk_i) begin
    req_wait_q <= rst_ni && req_valid_i && !req_ready;
    req_q      <= req_i;
  end

  always_comb begin
    // C1
    if (!rst_ni) assume (!req_valid_i && !mem_rsp_valid_i);
    // C2
    if (req_wait_q) assume (req_valid_i && req_i == req_q);
    // C4: only an outstanding request of that kind and ID is answered
    if (mem_rsp_valid_i) assume (mem_rsp_write_i ? wr_out_q[mem_rsp_id_i] : rd_out_q[mem_rsp_id_i]);
  end

  // ---- properties on the ports
`ifdef P_ONE_PER_ID
  // The cache never offers a request with an ID (of that kind) whose previous request is
  // still unanswered: at most one request per ID in flight (qpm_axi_master keeps one
  // first beat and one error flag per ID).
  always_comb begin
    if (rst_ni && mem_rd_valid) FOnePerRdId_A: assert (!rd_out_q[mem_rd_id]);
    if (rst_ni && mem_wr_valid) FOnePerWrId_A: assert (!wr_out_q[mem_wr_id]);
  end
`endif

  // ---- reachability checks, not proofs (run by hand, docs/formal.md): each asserts that
  // an event never happens, so its counterexample shows the first cycle it can.
`ifdef C_FILL_REPLAY
  // a read answered OK (tag 9 kept for reads in this check only): the cache starts
  // empty, so this is a miss, its walk, its fill and its replay
  always_comb if (rst_ni && req_valid_i) assume (req_i.tag != 4'd9 || req_i.op == qpm_pkg::CtxRead);
  always_comb if (rst_ni) CFillReplay_C: assert (!(rsp_valid && rsp.status == qpm_pkg::CtxOk
                                                   && rsp.tag == 4'd9));
`endif
`ifdef C_WRITEBACK
  // a dirty victim's write-back acknowledged (WRITEBACKS counts it)
  always_comb if (rst_ni) CWriteback_C: assert (!count[qpm_pipe_pkg::CntWritebacks]);
`endif
`ifdef C_SYNC
  // a SYNC_CACHE answered (tag 15 is kept for SYNC in this check only)
  always_comb if (rst_ni && req_valid_i) assume ((req_i.tag == 4'd15) == (req_i.op == qpm_pkg::CtxSync));
  always_comb if (rst_ni) CSync_C: assert (!(rsp_valid && rsp.tag == 4'd15));
`endif

  logic unused;
  assign unused = ^{rsp_valid, rsp, mem_rd_addr, mem_rd_line, mem_wr_addr, mem_wr_line,
                    mem_wr_wdata, count, mapped_any, past_valid};

endmodule
