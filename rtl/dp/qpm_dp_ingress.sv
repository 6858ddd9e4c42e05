// qpm_dp_ingress: the datapath and doorbell ports' input registers, and the lock park:
// datapath operations on the QPN a command holds (qpm_cmd_unit's lock) wait here, so
// the operations on other QPNs behind them go on (docs/datapath.md, "The command lock").
//
//   datapath port ─► spill register ─┬───────────────┬─► qpm_dp_front's datapath lane
//                                    └─► lock park ──┘   (Depth entries, in order)
//   doorbell port ─► spill register ───────────────────► qpm_dp_front's doorbell lane
//
// An operation parks when its QPN is locked, or when an older operation of its QPN is
// parked (one QPN's operations stay in port order, SPEC §2). Each cycle the front is
// offered, in this order: last cycle's offer if it was not taken (the valid/ready rule;
// qpm_front_arbiter holds its grant), the park's head once its QPN is free, the input
// register's operation if it need not park. Operations of different QPNs may so reach
// the front out of port order; the harness follows the front's takes (a probe).
//
// The front still refuses an operation on the locked QPN (its own check, which the lock
// proof covers). An offer made in the cycle before its QPN's lock began stays offered
// and waits for the lock to end, holding up the port as before (the one case left). A
// full park holds up the port too: park_wait_o pulses once per operation that finds
// it full.
`include "qpm_assert.svh"

module qpm_dp_ingress #(
  parameter int unsigned Depth = 4,
  localparam int unsigned CntW = $clog2(Depth + 1),
  localparam int unsigned PtrW = $clog2(Depth)
) (
  input  logic                     clk_i,
  input  logic                     rst_ni,
  // the ports
  input  logic                     dp_valid_i,
  output logic                     dp_ready_o,
  input  qpm_pkg::dp_req_t         dp_i,
  input  logic                     db_valid_i,
  output logic                     db_ready_o,
  input  qpm_pkg::doorbell_t       db_i,
  // the QPN the command unit is reading and writing back
  input  logic                     lock_valid_i,
  input  logic [qpm_pkg::QpnW-1:0] lock_qpn_i,
  // to qpm_dp_front
  output logic                     dp_valid_o,
  input  logic                     dp_ready_i,
  output qpm_pkg::dp_req_t         dp_o,
  output logic                     db_valid_o,
  input  logic                     db_ready_i,
  output qpm_pkg::doorbell_t       db_o,
  output logic                     park_wait_o   // an operation finds the park full
);

  localparam int unsigned ReqW = $bits(dp_i);
  if (Depth < 2) begin : gen_bad_depth
    $error("the lock park needs at least two entries");
  end

  // ---- the ports' input registers: their readies are flip-flops
  logic             in_valid, in_ready;
  qpm_pkg::dp_req_t in_req;
  qpm_spill_reg #(.Width(ReqW)) u_dp_reg (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (dp_valid_i),
    .in_ready_o  (dp_ready_o),
    .in_data_i   (dp_i),
    .out_valid_o (in_valid),
    .out_ready_i (in_ready),
    .out_data_o  (in_req)
  );

  qpm_spill_reg #(.Width($bits(db_i))) u_db_reg (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (db_valid_i),
    .in_ready_o  (db_ready_o),
    .in_data_i   (db_i),
    .out_valid_o (db_valid_o),
    .out_ready_i (db_ready_i),
    .out_data_o  (db_o)
  );

  // ---- the park: a FIFO that shifts toward entry 0, its head, so the offer reads a
  // flop, not a pointer's mux; every entry's QPN is compared with the input's
  localparam int unsigned QpnW = qpm_pkg::QpnW;
  logic [CntW-1:0] count_q;        // entries used, 0 .. Depth
  logic [ReqW-1:0] req_q [Depth];
  logic [QpnW-1:0] qpn_q [Depth];
  logic head_ok, in_behind, in_parks, push, pop;
  logic lock_eq_in, lock_eq0, lock_eq1;   // the lock's QPN is the input's, entry 0's, 1's
  assign lock_eq_in = in_req.qpn == lock_qpn_i;
  assign lock_eq0   = qpn_q[0] == lock_qpn_i;
  assign lock_eq1   = qpn_q[1] == lock_qpn_i;
  assign head_ok    = count_q != '0 && !(lock_valid_i && lock_eq0);
  always_comb begin
    in_behind = 1'b0;
    for (int unsigned i = 0; i < Depth; i++) begin
      in_behind = in_behind || (32'(count_q) > i && qpn_q[i] == in_req.qpn);
    end
  end
  assign in_parks = in_behind || (lock_valid_i && lock_eq_in);

  // ---- the offer. Which one (from_park) comes from flops: a held offer's source, else
  // the park when it holds an operation whose QPN was free last cycle (head_locked_q).
  // Whether there is one (dp_valid_o) looks at the lock now: a lock that began this
  // cycle on the park's head costs a cycle with no offer, never an offer of it.
  logic offer_q, from_park_q, head_locked_q;   // offered last cycle and not taken, ...
  logic from_park, held_in;
  assign from_park  = offer_q ? from_park_q : (count_q != '0 && !head_locked_q);
  assign held_in    = offer_q && !from_park_q;   // the input's operation, held
  assign dp_valid_o = offer_q || (from_park ? head_ok : in_valid && !in_parks);
  assign dp_o       = from_park ? req_q[0] : in_req;
  assign pop        = dp_valid_o && dp_ready_i && from_park;
  assign push       = in_valid && in_parks && !held_in && 32'(count_q) < Depth;
  assign in_ready   = (dp_valid_o && dp_ready_i && !from_park) || push;

  // The head of the next cycle and its lock as of this cycle (the three compares run
  // beside the offer; the pop only selects).
  logic [CntW-1:0] count_d;
  logic [PtrW-1:0] wr_idx;   // the first free entry after a pop (a push needs one)
  logic            head_locked_d;
  assign wr_idx        = PtrW'(count_q - CntW'(pop));
  assign count_d       = count_q - CntW'(pop) + CntW'(push);
  assign head_locked_d = lock_valid_i && ((count_q == CntW'(pop)) ? lock_eq_in
                                          : pop ? lock_eq1 : lock_eq0);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      count_q       <= '0;
      offer_q       <= 1'b0;
      from_park_q   <= 1'b0;
      head_locked_q <= 1'b0;
    end else begin
      count_q       <= count_d;
      offer_q       <= dp_valid_o && !dp_ready_i;
      from_park_q   <= from_park;
      head_locked_q <= head_locked_d;
    end
  end

  // A pop shifts every entry down; a push writes the first free entry after it.
  always_ff @(posedge clk_i) begin
    for (int unsigned i = 0; i + 1 < Depth; i++) begin
      if (pop) begin
        req_q[i] <= req_q[i+1];
        qpn_q[i] <= qpn_q[i+1];
      end
    end
    if (push) begin
      req_q[wr_idx] <= in_req;
      qpn_q[wr_idx] <= in_req.qpn;
    end
  end

  // ---- one pulse per operation that must park and finds the park full
  logic full_wait, waited_q;
  assign full_wait   = in_valid && in_parks && !held_in && !push;
  assign park_wait_o = full_wait && !waited_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) waited_q <= 1'b0;
    else         waited_q <= in_valid && !in_ready && (waited_q || full_wait);
  end

  // ---- contract
  // An offer stays until taken; a first offer is never of the locked QPN; the input's
  // operation never goes past an older one of its QPN.
  `QPM_ASSERT_NEXT(OfferStable_A, dp_valid_o && !dp_ready_i, dp_valid_o && $stable(dp_o))
  `QPM_ASSERT_IMPL(NoLockedOffer_A, dp_valid_o && !offer_q,
                   !(lock_valid_i && dp_o.qpn == lock_qpn_i))
  `QPM_ASSERT_IMPL(InOrder_A, dp_valid_o && !from_park, !in_behind)
  `QPM_ASSERT(CountInRange_A, 32'(count_q) <= Depth)
  `QPM_ASSERT_IMPL(ParkOnlyWhenDue_A, push, in_parks)

endmodule
