// qpm_lock_park: one port's lock park. Requests on the QPN a command holds (qpm_cmd_unit's
// lock) wait here, so the requests on other QPNs behind them go on (docs/datapath.md, "The
// command lock and its park"). qpm_dp_ingress has one for the datapath port and one for
// the doorbell port; the request is opaque here but for its QPN field, at QpnLsb.
//
//   input register ─┬────────────────┬─► the front
//                   └─► park ────────┘   (Depth entries, in order)
//
// A request parks when its QPN is locked, or when an older request of its QPN is parked
// (one QPN's requests stay in port order, SPEC §2). Each cycle the front is offered, in
// this order: last cycle's offer if it was not taken (the valid/ready rule;
// qpm_front_arbiter holds its grant), the park's head once its QPN is free, the input's
// request if it need not park. Requests of different QPNs may so reach the front out of
// port order; the harness follows the front's takes (a probe).
//
// The front still refuses a request on the locked QPN (its own check, which the lock
// proof covers). An offer made in the cycle before its QPN's lock began stays offered and
// waits for the lock to end, holding up the port (the one case left). A full park holds
// up the port too: park_wait_o pulses once per request that finds it full.
`include "qpm_assert.svh"

module qpm_lock_park #(
  parameter int unsigned Width = 32,
  parameter int unsigned QpnLsb = 0,   // where the request's QPN is, in_data_i[QpnLsb +: QpnW]
  parameter int unsigned Depth = 4,
  localparam int unsigned CntW = $clog2(Depth + 1),
  localparam int unsigned PtrW = $clog2(Depth),
  localparam int unsigned QpnW = qpm_pkg::QpnW
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  // from the port's input register
  input  logic             in_valid_i,
  output logic             in_ready_o,
  input  logic [Width-1:0] in_data_i,
  // the QPN the command unit is reading and writing back
  input  logic             lock_valid_i,
  input  logic [QpnW-1:0]  lock_qpn_i,
  // to qpm_dp_front
  output logic             out_valid_o,
  input  logic             out_ready_i,
  output logic [Width-1:0] out_data_o,
  output logic             park_wait_o   // a request finds the park full
);

  if (Depth < 2) begin : gen_bad_depth
    $error("the lock park needs at least two entries");
  end
  if (QpnLsb + QpnW > Width) begin : gen_bad_qpn_field
    $error("the QPN field must lie within the request");
  end

  // ---- the park: a FIFO that shifts toward entry 0, its head, so the offer reads a
  // flop, not a pointer's mux; every entry's QPN is compared with the input's
  logic [CntW-1:0]  count_q;        // entries used, 0 .. Depth
  logic [Width-1:0] req_q [Depth];
  logic [QpnW-1:0]  qpn_q [Depth];  // the entries' QPN fields (wires)
  logic [QpnW-1:0]  in_qpn;
  assign in_qpn = in_data_i[QpnLsb +: QpnW];
  for (genvar g = 0; g < Depth; g++) begin : gen_qpn
    assign qpn_q[g] = req_q[g][QpnLsb +: QpnW];
  end
  logic head_ok, in_behind, in_parks, push, pop;
  logic lock_eq_in, lock_eq0, lock_eq1;   // the lock's QPN is the input's, entry 0's, 1's
  assign lock_eq_in = in_qpn == lock_qpn_i;
  assign lock_eq0   = qpn_q[0] == lock_qpn_i;
  assign lock_eq1   = qpn_q[1] == lock_qpn_i;
  assign head_ok    = count_q != '0 && !(lock_valid_i && lock_eq0);
  always_comb begin
    in_behind = 1'b0;
    for (int unsigned i = 0; i < Depth; i++) begin
      in_behind = in_behind || (32'(count_q) > i && qpn_q[i] == in_qpn);
    end
  end
  assign in_parks = in_behind || (lock_valid_i && lock_eq_in);

  // ---- the offer. Which one (from_park) comes from flops: a held offer's source, else
  // the park when it holds a request whose QPN was free last cycle (head_locked_q).
  // Whether there is one (out_valid_o) looks at the lock now: a lock that began this
  // cycle on the park's head costs a cycle with no offer, never an offer of it.
  logic offer_q, from_park_q, head_locked_q;   // offered last cycle and not taken, ...
  logic from_park, held_in;
  logic [QpnW-1:0] out_qpn;   // the offer's QPN (the contract's only)
  assign from_park   = offer_q ? from_park_q : (count_q != '0 && !head_locked_q);
  assign held_in     = offer_q && !from_park_q;   // the input's request, held
  assign out_valid_o = offer_q || (from_park ? head_ok : in_valid_i && !in_parks);
  assign out_data_o  = from_park ? req_q[0] : in_data_i;
  assign out_qpn     = from_park ? qpn_q[0] : in_qpn;
  assign pop         = out_valid_o && out_ready_i && from_park;
  assign push        = in_valid_i && in_parks && !held_in && 32'(count_q) < Depth;
  assign in_ready_o  = (out_valid_o && out_ready_i && !from_park) || push;

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
      offer_q       <= out_valid_o && !out_ready_i;
      from_park_q   <= from_park;
      head_locked_q <= head_locked_d;
    end
  end

  // A pop shifts every entry down; a push writes the first free entry after it.
  always_ff @(posedge clk_i) begin
    for (int unsigned i = 0; i + 1 < Depth; i++) begin
      if (pop) req_q[i] <= req_q[i+1];
    end
    if (push) req_q[wr_idx] <= in_data_i;
  end

  // ---- one pulse per request that must park and finds the park full
  logic full_wait, waited_q;
  assign full_wait   = in_valid_i && in_parks && !held_in && !push;
  assign park_wait_o = full_wait && !waited_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) waited_q <= 1'b0;
    else         waited_q <= in_valid_i && !in_ready_o && (waited_q || full_wait);
  end

  // ---- contract
  // An offer stays until taken; a first offer is never of the locked QPN; the input's
  // request never goes past an older one of its QPN.
  `QPM_ASSERT_NEXT(OfferStable_A, out_valid_o && !out_ready_i,
                   out_valid_o && $stable(out_data_o) && $stable(out_qpn))
  `QPM_ASSERT_IMPL(NoLockedOffer_A, out_valid_o && !offer_q,
                   !(lock_valid_i && out_qpn == lock_qpn_i))
  `QPM_ASSERT_IMPL(InOrder_A, out_valid_o && !from_park, !in_behind)
  `QPM_ASSERT(CountInRange_A, 32'(count_q) <= Depth)
  `QPM_ASSERT_IMPL(ParkOnlyWhenDue_A, push, in_parks)

endmodule
