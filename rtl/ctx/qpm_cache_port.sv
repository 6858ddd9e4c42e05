// qpm_cache_port: the QP cache's request port, a spill register (qpm_spill_reg's two
// entries and rules: in_ready_o comes from flops) whose entries also carry the tags and
// line bits of their QPN's set (docs/qp-cache.md section 19, "Tags and line bits in RAM").
//
// The cache has one copy of the tags (qpm_tag_views owns it). The port asks it for the
// set of a request as the request is written into the register (ram_re_o), or for an
// entry still without its word; the copy answers in the next cycle (ram_fresh_i, a
// register there) unless a miss register's victim step, a staged replay, a mark or the
// maintenance scan read it, and then answers the port's next ask first. The entry takes
// the word the RAM returns, and every later line write of its set is applied to the word
// it keeps. So the pipe's P0 decides with a word that is already at hand: no RAM access
// and no Sets:1 multiplexer on the decision's path, and no cycle added to a hit; the
// head is valid (out_valid_o) once its word is. out_tags_o is the set's {tag, valid,
// pinned} per way as they were at the end of the cycle before (a write in this cycle is
// not in it, as a lookup of flip-flops would not see it either). The port takes nothing
// while the line bits' reset sweep runs (hold_i, a register).
//
// The entries also carry whether their request is a deferred one again (in_retry_i,
// out_retry_o), and the port says how many it holds (occupied_o): qpm_parking_port's
// rules (docs/qp-cache.md section 21).
//
// A miss register's take (write B: the line invalid and unpinned) comes late in its
// cycle, after the victim choice; the entries apply it a cycle later (qpm_lw_keep), so the
// choice ends at a flip-flop here: the kept words take this cycle's write A and last
// cycle's write B, and out_tags_o clears last cycle's B line on its way out. A and B of
// adjacent cycles never meet on one line (a take keeps out the lines the pipe, a pin or
// a fill may write, qpm_cache_tags), so their order does not matter.
`include "qpm_assert.svh"

module qpm_cache_port #(
  parameter int unsigned Sets = 64,
  parameter int unsigned Ways = 4,
  localparam int unsigned SetW = (Sets > 1) ? $clog2(Sets) : 1,
  localparam int unsigned WayW = (Ways > 1) ? $clog2(Ways) : 1,
  localparam int unsigned TagW = qpm_pkg::QpnW - SetW,
  localparam int unsigned EntW = TagW + 2,
  localparam int unsigned LwW  = 2 * (SetW + WayW) + EntW + 6
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic                 in_valid_i,
  output logic                 in_ready_o,
  input  qpm_pkg::ctx_req_t    in_req_i,
  input  logic                 in_retry_i,  // a deferred request again (qpm_defer_queue)
  output logic                 out_valid_o,
  input  logic                 out_ready_i,
  output qpm_pkg::ctx_req_t    out_req_o,
  output logic                 out_retry_o,
  output logic [1:0]           occupied_o,  // entries held (a register's count)
  output logic [Ways*EntW-1:0] out_tags_o,
  input  logic                 hold_i,      // the reset sweep: take nothing
  input  logic [LwW-1:0]       lw_i,        // the cycle's line writes
  // the tag copy's read (qpm_tag_views)
  output logic                 ram_re_o,
  output logic [SetW-1:0]      ram_set_o,
  input  logic                 ram_fresh_i, // a register: ram_word_i is last cycle's ask
  input  logic [Ways*EntW-1:0] ram_word_i
);

  logic              a_full_q, b_full_q, a_has_q, b_has_q, a_ask_q, b_ask_q;
  logic              a_retry_q, b_retry_q;
  qpm_pkg::ctx_req_t a_req_q, b_req_q;
  logic [Ways*EntW-1:0] a_word_q, b_word_q, a_word, b_word, a_word_d, b_word_d;
  logic              a_fill, a_drain, b_fill, b_drain, in_take;
  logic              a_fresh, b_fresh, a_has, b_has, ask_a, ask_b, ask_in;

`include "qpm_line_write.svh"

  // This cycle's write A with last cycle's write B: what the kept words apply.
  logic [LwW-1:0] lw_keep;
  qpm_lw_keep #(.Sets(Sets), .Ways(Ways), .TagW(TagW)) u_lw_keep (
    .clk_i     (clk_i),
    .rst_ni    (rst_ni),
    .lw_i      (lw_i),
    .lw_keep_o (lw_keep)
  );

  // A takes from B first (order), else from the input; B takes the input when A cannot.
  assign in_take = in_valid_i && in_ready_o;
  assign a_drain = a_full_q && out_ready_i;
  assign a_fill  = (!a_full_q || a_drain) && (b_full_q || in_take);
  assign b_fill  = in_take && a_full_q && !a_drain;
  assign b_drain = b_full_q && a_fill;

  // An entry has its word (kept, or the RAM's answer to its ask now); the oldest entry
  // without one asks, else the request coming in. At most one entry has asked.
  assign a_fresh  = a_ask_q && ram_fresh_i;
  assign b_fresh  = b_ask_q && ram_fresh_i;
  assign a_has    = a_has_q || a_fresh;
  assign b_has    = b_has_q || b_fresh;
  assign a_word   = a_fresh ? ram_word_i : a_word_q;
  assign b_word   = b_fresh ? ram_word_i : b_word_q;
  assign ask_a    = a_full_q && !a_has;
  assign ask_b    = b_full_q && !b_has && !ask_a;
  assign ask_in   = in_take && !ask_a && !ask_b;
  assign ram_re_o  = ask_a || ask_b || in_take;
  assign ram_set_o = ask_a ? a_req_q.index[SetW-1:0] : ask_b ? b_req_q.index[SetW-1:0]
                           : in_req_i.index[SetW-1:0];

  // The word each entry keeps, with this cycle's writes of its set applied. A takes B's
  // patched word when B drains into it: chosen after the patch, so the pipe's ready (which
  // decides the drain) meets only that last multiplexer (docs/capacity.md).
  logic [Ways*EntW-1:0] a_word_kept;
  qpm_tag_patch #(.Sets(Sets), .Ways(Ways), .TagW(TagW)) u_patch_a (
    .lw_i   (lw_keep),
    .set_i  (a_req_q.index[SetW-1:0]),
    .word_i (a_word),
    .word_o (a_word_kept)
  );
  qpm_tag_patch #(.Sets(Sets), .Ways(Ways), .TagW(TagW)) u_patch_b (
    .lw_i   (lw_keep),
    .set_i  (b_req_q.index[SetW-1:0]),
    .word_i (b_word),
    .word_o (b_word_d)
  );
  assign a_word_d = b_drain ? b_word_d : a_word_kept;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      a_full_q <= 1'b0;
      b_full_q <= 1'b0;
      a_has_q  <= 1'b0;
      b_has_q  <= 1'b0;
      a_ask_q  <= 1'b0;
      b_ask_q  <= 1'b0;
      a_retry_q <= 1'b0;
      b_retry_q <= 1'b0;
    end else begin
      if (a_fill) a_retry_q <= b_full_q ? b_retry_q : in_retry_i;
      if (b_fill) b_retry_q <= in_retry_i;
      a_full_q <= a_fill || (a_full_q && !a_drain);
      b_full_q <= b_fill || (b_full_q && !b_drain);
      // A from B takes B's word and ask, from the input the input's ask
      a_has_q  <= a_fill ? b_full_q && b_has : a_full_q && !a_drain && a_has;
      a_ask_q  <= a_fill ? (b_full_q ? ask_b : ask_in) : a_full_q && !a_drain && ask_a;
      b_has_q  <= !b_fill && b_full_q && !b_drain && b_has;
      b_ask_q  <= b_fill ? ask_in : b_full_q && !b_drain && ask_b;
    end
  end

  always_ff @(posedge clk_i) begin
    if (a_fill) a_req_q <= b_full_q ? b_req_q : in_req_i;
    if (b_fill) b_req_q <= in_req_i;
    // from B, or kept: the word at hand with this cycle's writes
    if ((a_fill && b_full_q) || (a_full_q && !a_drain)) a_word_q <= a_word_d;
    if (b_full_q && !b_drain) b_word_q <= b_word_d;
  end

  assign in_ready_o  = !b_full_q && !hold_i;
  assign out_valid_o = a_full_q && a_has;
  assign out_req_o   = a_req_q;
  assign out_retry_o = a_retry_q;
  assign occupied_o  = 2'(a_full_q) + 2'(b_full_q);
  // The head's word with last cycle's write B (valid and pinned cleared on its way), on
  // the ways it hit: compared last cycle with the set the head has now (B's entry when
  // it moves up, else the head's own; a head from the input reads the RAM, whose word
  // has that write already; so has a word read later, and clearing twice is once),
  // and registered.
  logic [Ways-1:0] a_b_q, b_hit_a, b_hit_b;
  assign b_hit_a = lw_b_hit(lw_i, a_req_q.index[SetW-1:0]);
  assign b_hit_b = lw_b_hit(lw_i, b_req_q.index[SetW-1:0]);
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) a_b_q <= '0;
    else         a_b_q <= !a_fill ? b_hit_a : b_full_q ? b_hit_b : '0;
  end
  for (genvar w = 0; w < Ways; w++) begin : gen_out
    assign out_tags_o[w*EntW +: EntW] = {a_word[w*EntW + 2 +: TagW],
                                         a_word[w*EntW +: 2] & {2{!a_b_q[w]}}};
  end

`ifndef SYNTHESIS
  // One ask at a time; an answer finds the entry that asked; a head leaves with its word.
  `QPM_ASSERT_IMPL(OneAsk_A, 1'b1, !(a_ask_q && b_ask_q))
  `QPM_ASSERT_IMPL(AnswerAsked_A, ram_fresh_i, a_ask_q || b_ask_q)
  `QPM_ASSERT_IMPL(DrainHasWord_A, a_drain, a_has)
`endif

endmodule
