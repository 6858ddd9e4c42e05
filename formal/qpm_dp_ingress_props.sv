// Properties of qpm_dp_ingress (docs/formal.md, formal/ingress.toml): a port's lock park
// lets requests of different QPNs pass each other, never two of one QPN, loses or
// duplicates none, and a first offer to the front is never of the locked QPN. Two QPNs
// (0 and 1) meet in it; the producer numbers each QPN's requests ({qpn, n}: a datapath
// operation's tag, a doorbell's count), and what the front takes must carry, per QPN,
// the numbers in sequence. Doorbells = 0 drives the datapath port, 1 the doorbell port
// (the other port idle). The park's embedded assertions come along (an offer stays until
// taken, a first offer is never of the locked QPN as the park sees it, the input's
// request never passes an older one of its QPN).
// Run with the real 4 entries: a park of two cannot show an operation passing a parked
// one of its QPN (docs/formal.md).
// Environment: the driven port keeps the valid/ready rule. Free: the lock (either QPN,
// any time), the front's ready. The other fields are zero and the port not driven is
// idle: the park moves a request whole, and they only widen the model.
module qpm_dp_ingress_props #(
  parameter int unsigned Depth = 2,
  parameter int unsigned Doorbells = 0
) (
  input logic                     clk_i,
  input logic                     rst_ni,
  input logic                     dp_valid_i,   // the driven port's valid
  input logic                     dp_qpn_i,     // the request's QPN: 0 or 1
  input logic                     lock_valid_i,
  input logic [qpm_pkg::QpnW-1:0] lock_qpn_i,
  input logic                     dp_ready_i    // the front's ready, both lanes
);

  logic               dp_ready, dp_valid, db_ready, db_valid;
  logic [1:0]         park_wait;
  qpm_pkg::dp_req_t   dp_out;
  qpm_pkg::doorbell_t db_out;
  qpm_pkg::dp_req_t   dp_i;
  qpm_pkg::doorbell_t db_i;
  logic [6:0]         in_q [2];
  logic [6:0]         out_q [2];
  // The port: the n-th request of QPN q carries {q, n}.
  always_comb begin
    dp_i       = '0;
    dp_i.qpn   = qpm_pkg::QpnW'(dp_qpn_i);
    dp_i.tag   = {dp_qpn_i, in_q[dp_qpn_i]};
    db_i       = '0;
    db_i.qpn   = qpm_pkg::QpnW'(dp_qpn_i);
    db_i.count = 16'({dp_qpn_i, in_q[dp_qpn_i]});
  end
  qpm_dp_ingress #(.Depth(Depth)) u_dut (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .dp_valid_i   (dp_valid_i && (Doorbells == 0)),
    .dp_ready_o   (dp_ready),
    .dp_i         (dp_i),
    .db_valid_i   (dp_valid_i && Doorbells != 0),
    .db_ready_o   (db_ready),
    .db_i         (db_i),
    .lock_valid_i (lock_valid_i),
    .lock_qpn_i   (lock_qpn_i),
    .dp_valid_o   (dp_valid),
    .dp_ready_i   (dp_ready_i),
    .dp_o         (dp_out),
    .db_valid_o   (db_valid),
    .db_ready_i   (dp_ready_i),
    .db_o         (db_out),
    .dp_park_wait_o (park_wait[0]),
    .db_park_wait_o (park_wait[1])
  );

  `include "qpm_formal_reset.svh"

  // The driven lane: its port's ready, its offer to the front, the offer's QPN and number.
  logic       port_ready, out_valid, out_qpn;
  logic [7:0] out_num;
  assign port_ready = (Doorbells != 0) ? db_ready : dp_ready;
  assign out_valid  = (Doorbells != 0) ? db_valid : dp_valid;
  assign out_qpn    = (Doorbells != 0) ? db_out.qpn[0] : dp_out.qpn[0];
  assign out_num    = (Doorbells != 0) ? db_out.count[7:0] : dp_out.tag;

  // Per QPN: requests taken at the port (in_q) and by the front (out_q).
  logic            in_take, out_take;
  assign in_take  = dp_valid_i && port_ready;
  assign out_take = out_valid && dp_ready_i;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      in_q[0]  <= '0;
      in_q[1]  <= '0;
      out_q[0] <= '0;
      out_q[1] <= '0;
    end else begin
      if (in_take)  in_q[dp_i.qpn[0]]    <= in_q[dp_i.qpn[0]] + 7'd1;
      if (out_take) out_q[out_qpn] <= out_q[out_qpn] + 7'd1;
    end
  end

  // A request offered is held until taken (its number cannot move meanwhile); the
  // ingress's offer to the front likewise (offered_q: not taken last cycle).
  logic dp_qpn_q, dp_wait_q, offered_q;
  always_ff @(posedge clk_i) begin
    dp_qpn_q  <= dp_qpn_i;
    dp_wait_q <= rst_ni && dp_valid_i && !port_ready;
    offered_q <= rst_ni && out_valid && !dp_ready_i;
  end
  always_comb begin
    assume (lock_qpn_i[qpm_pkg::QpnW-1:1] == '0);
    if (dp_wait_q) assume (dp_valid_i && dp_qpn_i == dp_qpn_q);
  end

  logic [7:0] inside;   // requests in the ingress
  assign inside = 8'(7'(in_q[0] - out_q[0])) + 8'(7'(in_q[1] - out_q[1]));
  always_ff @(posedge clk_i) begin
    if (past_valid) begin
      // Each QPN's requests leave in the order taken, each once; none is made up.
      if (out_take) assert (out_num == {out_qpn, out_q[out_qpn]});
      assert (32'(inside) <= Depth + 2);
      // A first offer is never of the locked QPN (the front would refuse it and stop).
      if (out_valid && !offered_q && lock_valid_i) assert (lock_qpn_i[0] != out_qpn);
    end
  end

endmodule
