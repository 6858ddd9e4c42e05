// qpm_doorbell_exec: the compute of one doorbell (SPEC.md §6 "Doorbells",
// docs/datapath.md).
//
// Pure combinational. Software posted count WQEs on the send or receive queue. Refused
// (nothing changes; the caller counts it) when the QP does not exist, for the SQ in
// RESET, INIT or RTR, for the RQ in RESET, or when the queue would overflow:
// (pi - ci) + count > 2^log_size, with pi - ci the 16-bit difference. Otherwise
// pi += count modulo 2^16, in every other state, ERR included (SQ WQEs posted in SQD or
// SQE wait; the flush of WQEs posted in ERR is SPEC §7's). A doorbell of count 0 that
// is not refused changes nothing.
//
// In ERR and SQE the queue is measured as software sees it (docs/errors.md): every WQE
// a flush owes has already completed, however far the flush engine has got. In ERR
// nothing stays queued, so only a count beyond the queue's size overflows (and, as a
// guard no software that respects its queue size reaches, a count that would carry pi
// a whole 2^16 ahead of the flush cursor ci). In SQE the SQ's owed WQEs end at
// sq_issued, so the SQ is measured from there.
module qpm_doorbell_exec (
  input  qpm_pkg::doorbell_t db_i,
  input  logic               exists_i,   // QPN below the limit, page mapped, QPC valid
  input  qpm_pkg::qpc_t      qpc_i,      // the QPC before the doorbell
  output logic               refused_o,
  output qpm_pkg::qpc_t      qpc_o,      // the QPC after (qpc_i when refused)
  output logic               flush_req_o // WQEs posted in ERR: the flush owes them
);

  // Whether s + k + d reaches 2^19 (the three kept below 2^20 by the callers): one more
  // carry-save step, then the carry of a single addition.
  function automatic logic reaches(logic [19:0] s, logic [19:0] k, logic [19:0] d);
    logic [19:0] s2, k2;
    s2      = s ^ k ^ d;
    k2      = (s & k) | (s & d) | (k & d);
    reaches = 1'(({1'b0, s2} + {k2, 1'b0}) >> 19);
  endfunction

  // The queue's indices and size.
  logic [15:0] pi, ci, cursor;
  logic [4:0]  log_size;
  logic        st_err, st_sqe;
  assign st_err   = qpc_i.state == qpm_pkg::StErr;
  assign st_sqe   = qpc_i.state == qpm_pkg::StSqe;
  assign pi       = db_i.rq ? qpc_i.rq_pi       : qpc_i.sq_pi;
  assign cursor   = db_i.rq ? qpc_i.rq_ci       : qpc_i.sq_ci;
  assign ci       = (!db_i.rq && st_sqe) ? qpc_i.sq_issued : cursor;
  assign log_size = db_i.rq ? qpc_i.log_rq_size : qpc_i.log_sq_size;

  // Posting allowed: the RQ in any state but RESET, the SQ from RTS on (RTS, SQD, SQE,
  // ERR).
  logic st_reset, st_init, st_rtr, state_refuses;
  assign st_reset      = qpc_i.state == qpm_pkg::StReset;
  assign st_init       = qpc_i.state == qpm_pkg::StInit;
  assign st_rtr        = qpc_i.state == qpm_pkg::StRtr;
  assign state_refuses = db_i.rq ? st_reset : (st_reset | st_init | st_rtr);

  // Overflow: (pi - ci) + count > 2^log_size, pi - ci modulo 2^16. With
  // y = pi + ~ci + count (~ci = 2^16 - 1 - ci), (pi - ci mod 2^16) + count - 1 is y when
  // pi < ci and y - 2^16 when pi >= ci. So the doorbell overflows when y >= T, with
  // T = 2^log_size, or 2^16 + 2^log_size when pi >= ci (and log_size at most 16): the
  // carry into bit 19 of y + (2^19 - T). Both constants are masks of log_size
  // (2^19 - 2^log_size: the bits at or above it; less 2^16: bits 18 and 17 and the bits
  // at or above it below 16). y stays a carry-save pair and each answer is one carry
  // chain, formed beside the compare of pi and ci that chooses between them (not a sum,
  // then a compare of its bits: 26 levels -> 22, docs/capacity.md).
  logic [18:0] at_or_above;  // bit k: k >= log_size; 2^19 - 2^log_size
  always_comb begin
    for (int k = 0; k < 19; k++) begin
      at_or_above[k] = 5'(k) >= log_size;
    end
  end

  logic [19:0] y_sum, y_carry;  // y as a carry-save pair
  logic        no_wrap, overflow;
  assign y_sum    = {4'b0000, pi ^ ~ci ^ db_i.count};
  assign y_carry  = {3'b000, (pi & ~ci) | (pi & db_i.count) | (~ci & db_i.count), 1'b0};
  assign no_wrap  = pi >= ci;
  assign overflow = no_wrap
                  ? at_or_above[16] && reaches(y_sum, y_carry, {4'b0110, at_or_above[15:0]})
                  : reaches(y_sum, y_carry, {1'b0, at_or_above});

  // ERR: the count alone against the size, and the 16-bit guard on the flush's lag.
  logic [16:0] size, lag_total;
  logic        err_overflow;
  assign size         = (log_size >= 5'd17) ? '1 : (17'd1 << log_size);
  assign lag_total    = {1'b0, pi - cursor} + {1'b0, db_i.count};
  assign err_overflow = ({1'b0, db_i.count} > size) || lag_total > 17'hffff;

  // A QP whose reset waits for its DMAs takes no new work (docs/reset.md).
  assign refused_o = !exists_i || qpc_i.quiesce || state_refuses || (st_err ? err_overflow : overflow);
  assign flush_req_o = !refused_o && st_err && db_i.count != '0;

  logic [15:0] pi_next;
  assign pi_next = pi + db_i.count;

  always_comb begin
    qpc_o = qpc_i;
    if (!refused_o) begin
      if (db_i.rq) begin
        qpc_o.rq_pi = pi_next;
      end else begin
        qpc_o.sq_pi = pi_next;
      end
    end
  end

  // The QPN selects the QPC upstream.
  logic unused_qpn;
  assign unused_qpn = ^db_i.qpn;

endmodule
