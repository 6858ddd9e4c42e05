// Properties of qpm_dp_ingress (docs/formal.md, formal/ingress.toml): the lock park lets
// operations of different QPNs pass each other, never two of one QPN, and loses or
// duplicates none. Two QPNs (0 and 1) meet in it; the producer numbers each QPN's
// operations in its tag ({qpn, n}), and what the front takes must carry, per QPN, the
// numbers in sequence. The embedded assertions come along (an offer stays until taken,
// a first offer is never of the locked QPN, the input's operation never passes an older
// one of its QPN).
// Run with the real 4 entries: a park of two cannot show an operation passing a parked
// one of its QPN (docs/formal.md).
// Environment: the datapath port keeps the valid/ready rule. Free: the lock (either
// QPN, any time), the front's ready. The other fields are zero and the doorbell port
// idle: the park moves an operation whole, and they only widen the model.
module qpm_dp_ingress_props #(
  parameter int unsigned Depth = 2
) (
  input logic                     clk_i,
  input logic                     rst_ni,
  input logic                     dp_valid_i,
  input logic                     dp_qpn_i,     // the operation's QPN: 0 or 1
  input logic                     lock_valid_i,
  input logic [qpm_pkg::QpnW-1:0] lock_qpn_i,
  input logic                     dp_ready_i
);

  logic               dp_ready, dp_valid, db_ready, db_valid, park_wait;
  qpm_pkg::dp_req_t   dp_out;
  qpm_pkg::doorbell_t db_out;
  qpm_pkg::dp_req_t   dp_i;
  logic [6:0]         in_q [2];
  logic [6:0]         out_q [2];
  // The port: the n-th operation of QPN q carries the tag {q, n}.
  always_comb begin
    dp_i     = '0;
    dp_i.qpn = qpm_pkg::QpnW'(dp_qpn_i);
    dp_i.tag = {dp_qpn_i, in_q[dp_qpn_i]};
  end
  qpm_dp_ingress #(.Depth(Depth)) u_dut (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .dp_valid_i   (dp_valid_i),
    .dp_ready_o   (dp_ready),
    .dp_i         (dp_i),
    .db_valid_i   (1'b0),
    .db_ready_o   (db_ready),
    .db_i         ('0),
    .lock_valid_i (lock_valid_i),
    .lock_qpn_i   (lock_qpn_i),
    .dp_valid_o   (dp_valid),
    .dp_ready_i   (dp_ready_i),
    .dp_o         (dp_out),
    .db_valid_o   (db_valid),
    .db_ready_i   (1'b1),
    .db_o         (db_out),
    .park_wait_o  (park_wait)
  );

  `include "qpm_formal_reset.svh"

  // Per QPN: operations taken at the port (in_q) and by the front (out_q).
  logic            in_take, out_take;
  assign in_take  = dp_valid_i && dp_ready;
  assign out_take = dp_valid && dp_ready_i;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      in_q[0]  <= '0;
      in_q[1]  <= '0;
      out_q[0] <= '0;
      out_q[1] <= '0;
    end else begin
      if (in_take)  in_q[dp_i.qpn[0]]    <= in_q[dp_i.qpn[0]] + 7'd1;
      if (out_take) out_q[dp_out.qpn[0]] <= out_q[dp_out.qpn[0]] + 7'd1;
    end
  end

  // An operation offered is held until taken (its tag cannot move meanwhile).
  logic dp_qpn_q, dp_wait_q;
  always_ff @(posedge clk_i) begin
    dp_qpn_q  <= dp_qpn_i;
    dp_wait_q <= rst_ni && dp_valid_i && !dp_ready;
  end
  always_comb begin
    assume (lock_qpn_i[qpm_pkg::QpnW-1:1] == '0);
    if (dp_wait_q) assume (dp_valid_i && dp_qpn_i == dp_qpn_q);
  end

  logic [7:0] inside;   // operations in the ingress
  assign inside = 8'(7'(in_q[0] - out_q[0])) + 8'(7'(in_q[1] - out_q[1]));
  always_ff @(posedge clk_i) begin
    if (past_valid) begin
      // Each QPN's operations leave in the order taken, each once; none is made up.
      if (out_take) assert (dp_out.tag == {dp_out.qpn[0], out_q[dp_out.qpn[0]]});
      assert (32'(inside) <= Depth + 2);
    end
  end

endmodule
