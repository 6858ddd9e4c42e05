// qpm_replay_gate: when the staged replay enters the QP cache's pipe (docs/qp-cache.md
// section 5, "Replays").
//
// A staged replay goes at once, unless it is a PIN or UNPIN: only those read their set's
// word (its pinned bits) and wait until it is at hand (qpm_tag_views, a register). Any
// other replay hits the way its miss register owns, valid since its fill, or answers its
// register's failure without a lookup: no word to wait for.
//
// A replay that needs a RAM port a fill or a read-out may take this cycle stands aside
// for that cycle, and the port's request goes instead: most often a miss, which needs no
// RAM port. Both are told from flip-flops (a memory response for a miss register; the
// cache lane's registered pick in WbRead), not from fill_may, whose response-ID lookup
// of the register's state put this select 8 levels deeper across blocks (49 against 41
// in make synth). A take-back's fill is not in them: its replay stalls that cycle in P0,
// as every replay did before. (Read-outs standing aside for a hit at the port
// in the cycle after it lost the read port to one were tried: no gain on `large` over
// 65,536 QPs, zipf-0.99 0.483 either way, uniform 0.355 -> 0.347; not kept.)
module qpm_replay_gate (
  // the park pool's staged replay, and its word from the tags
  input  logic                pool_valid_i,
  input  qpm_pkg::ctx_op_e    pool_op_i,
  input  logic                word_ok_i,
  output logic                word_want_o,     // it reads its set's word
  output logic                stage_valid_o,   // it goes to the pipe now
  // what may take the RAM's ports this cycle (qpm_mshr_file)
  input  logic                fill_may_i,      // a memory fill may land
  input  logic                wbread_may_i     // a miss register's read-out may
);

  logic yield;
  assign word_want_o   = pool_op_i == qpm_pkg::CtxPin || pool_op_i == qpm_pkg::CtxUnpin;
  assign yield         = fill_may_i   // every hit waits for a fill (the line state's write)
                      || (wbread_may_i && (pool_op_i == qpm_pkg::CtxDp
                                        || pool_op_i == qpm_pkg::CtxRead));
  assign stage_valid_o = pool_valid_i && (word_ok_i || !word_want_o) && !yield;

endmodule
