// qpm_pf_scan: PORT_FAULT's scan (SPEC.md §8; docs/events.md, "PORT_FAULT"). One
// read-modify-write of the QP cache per QPN from 2 up to QPN_LIMIT (a pf_req_t: CtxDp,
// tag TagCmd): the cache moves the QP to ERR with QP_FATAL pending if it is valid, bound
// to the port and in neither RESET nor ERR, and names it to the engines (qpm_rmw_exec,
// qpm_dp_front). Up to Window steps are in flight, so the misses of a scan over contexts
// in host memory overlap, and a QP's step is atomic in the cache's pipe: no lock.
//
// Pages: the first step of each page is a probe, and the scan waits for its answer. A
// probe refused as unmapped skips the rest of its page (one refused step per unmapped
// page); any other answer lets the rest of the page go. Pages are (un)mapped only by
// commands, and this unit runs one at a time, so no later step of a mapped page is
// refused. A step's answer is OK or UNMAPPED (the cache retries failed reads itself).
module qpm_pf_scan #(
  parameter int unsigned PageBits = 6,   // QPNs per directory page = 2**PageBits
  parameter int unsigned Window   = 8    // steps in flight (>= 1)
) (
  input  logic                     clk_i,
  input  logic                     rst_ni,
  input  logic [31:0]              qpn_limit_i,
  input  logic                     start_i,     // scan (held until done_o)
  input  logic [1:0]               port_i,      // the faulted port (1 .. 3)
  output logic                     done_o,      // every QPN scanned and answered
  // the steps, to the cache
  output logic                     req_valid_o,
  input  logic                     req_ready_i,
  output qpm_pkg::pf_req_t         req_o,
  // their answers (the cache's TagCmd answers while start_i is high)
  input  logic                     rsp_valid_i,
  input  qpm_pkg::ctx_status_e     rsp_status_i,
  input  logic [qpm_pkg::QpnW-1:0] rsp_qpn_i,
  input  logic                     rsp_moved_i, // the step moved its QP to ERR
  output logic                     visit_o,     // a QPC read (PF_QPCS_READ)
  output logic                     moved_o      // ... and its QP moved (PF_QPS_MOVED)
);

  localparam logic [31:0] PageMask = (32'd1 << PageBits) - 32'd1;
  localparam int unsigned CountW   = $clog2(Window + 1);

  typedef enum logic [1:0] {
    SIdle = 2'd0,
    SScan = 2'd1,
    SDone = 2'd2
  } scan_e;

  scan_e       state_q, state_d;
  logic [31:0] next_q, next_d;         // the next QPN to step
  logic        more_q, more_d;         // next_q is below QPN_LIMIT
  logic        probe_q, probe_d;       // next_q begins a page: its step is a probe
  logic        wait_q, wait_d;         // a probe is in flight
  logic [31:0] probe_qpn_q, probe_qpn_d;
  logic [CountW-1:0] inflight_q;
  logic [31:0] limit_m1_q;             // QPN_LIMIT - 1 (registered: the compares below
                                       // then compare flops with flops)

  logic issue, answer, probe_answer, skip;
  assign req_valid_o  = state_q == SScan && more_q && !wait_q && 32'(inflight_q) < Window;
  assign issue        = req_valid_o && req_ready_i;
  assign answer       = state_q == SScan && rsp_valid_i;
  assign probe_answer = answer && wait_q && 32'(rsp_qpn_i) == probe_qpn_q;
  assign skip         = probe_answer && rsp_status_i == qpm_pkg::CtxUnmapped;

  always_comb begin
    state_d     = state_q;
    next_d      = next_q;
    more_d      = more_q;
    probe_d     = probe_q;
    wait_d      = wait_q;
    probe_qpn_d = probe_qpn_q;
    unique case (state_q)
      SIdle: begin
        if (start_i) begin
          state_d = SScan;
          next_d  = 32'd2;                   // QPN 0 and 1 are never valid
          more_d  = 32'd2 < qpn_limit_i;
          probe_d = 1'b1;
          wait_d  = 1'b0;
        end
      end
      SScan: begin
        if (issue) begin
          next_d  = next_q + 32'd1;
          more_d  = next_q < limit_m1_q;
          probe_d = (next_q & PageMask) == PageMask;   // the next step begins a page
          if (probe_q) begin
            wait_d      = 1'b1;
            probe_qpn_d = next_q;
          end
        end
        if (probe_answer) wait_d = 1'b0;    // (no step is issued while a probe waits)
        if (skip) begin
          next_d  = (probe_qpn_q | PageMask) + 32'd1;
          more_d  = (probe_qpn_q | PageMask) < limit_m1_q;
          probe_d = 1'b1;
        end
        if (!more_q && !wait_q && inflight_q == '0) state_d = SDone;
      end
      SDone: begin
        if (!start_i) state_d = SIdle;
      end
      default: state_d = SIdle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q     <= SIdle;
      next_q      <= '0;
      more_q      <= 1'b0;
      probe_q     <= 1'b0;
      wait_q      <= 1'b0;
      probe_qpn_q <= '0;
      inflight_q  <= '0;
      limit_m1_q  <= '0;
    end else begin
      state_q     <= state_d;
      next_q      <= next_d;
      more_q      <= more_d;
      probe_q     <= probe_d;
      wait_q      <= wait_d;
      probe_qpn_q <= probe_qpn_d;
      inflight_q  <= inflight_q + CountW'(issue) - CountW'(answer);
      limit_m1_q  <= qpn_limit_i - 32'd1;
    end
  end

  assign done_o     = state_q == SDone;
  assign req_o.qpn  = next_q[qpm_pkg::QpnW-1:0];
  assign req_o.port = port_i;
  assign visit_o    = answer && rsp_status_i == qpm_pkg::CtxOk;
  assign moved_o    = visit_o && rsp_moved_i;

endmodule
