// qpm_state_shadow: assertion support for the line state in RAM (qpm_cache_lines,
// docs/qp-cache.md section 19), instantiated under `ifndef SYNTHESIS` only: nothing
// synthesized reads it. It keeps every set's word in flip-flops, written by the same
// masked writes as the RAM, and checks the two words the RAM's readers use against it:
// the word that comes back the cycle after a read (the RAM's output with the read
// cycle's write applied: the victim decision's), and the maintenance scan's kept word
// (every later write applied). Only the bits that count are compared: a line's dirty and
// held bits while it is valid, a set's replacement bits once every way is valid (the
// RAM is not reset; by then each of those bits has been written); not the bits of a line
// whose fill writes them now (valid since the cycle before, written at this edge).
// Nothing reads those: the line is its miss register's, and the scan waits a cycle.
`include "qpm_assert.svh"

module qpm_state_shadow #(
  parameter int unsigned Sets   = 64,
  parameter int unsigned Ways   = 4,
  parameter int unsigned StateW = 17,
  localparam int unsigned SetW  = (Sets > 1) ? $clog2(Sets) : 1,
  localparam int unsigned WayW  = (Ways > 1) ? $clog2(Ways) : 1
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  // the RAM's write
  input  logic              we_i,
  input  logic [SetW-1:0]   wset_i,
  input  logic [StateW-1:0] wmask_i,
  input  logic [StateW-1:0] wdata_i,
  input  logic              wfill_i,       // ... a fill's, of this way
  input  logic [WayW-1:0]   wway_i,
  // the word read in the cycle before, for its set
  input  logic              word_valid_i,
  input  logic [SetW-1:0]   word_set_i,
  input  logic [StateW-1:0] word_i,
  input  logic [Ways-1:0]   word_lines_i,  // ... its lines' valid bits (the tags' word)
  // the scan's kept word, for its set
  input  logic              kept_valid_i,
  input  logic [SetW-1:0]   kept_set_i,
  input  logic [StateW-1:0] kept_i,
  input  logic [Ways-1:0]   kept_lines_i   // ... its lines' valid bits (the tags' word)
);

  logic [StateW-1:0] state_q [Sets];
  always_ff @(posedge clk_i) begin
    if (we_i) state_q[wset_i] <= (state_q[wset_i] & ~wmask_i) | (wdata_i & wmask_i);
  end

  // The bits of a set's word that count now: dirty and held (the low 2 x Ways bits) of
  // its valid lines, the replacement bits once all its lines are valid.
  function automatic logic [StateW-1:0] counted(logic [SetW-1:0] set, logic [Ways-1:0] lines);
    logic [Ways-1:0] valid;
    valid   = lines;
    if (we_i && wfill_i && set == wset_i) valid[wway_i] = 1'b0;
    counted = {{(StateW - 2 * Ways){valid == '1}}, valid, valid};
  endfunction

  logic word_ok, kept_ok;
  assign word_ok = ((word_i ^ state_q[word_set_i]) & counted(word_set_i, word_lines_i)) == '0;
  assign kept_ok = ((kept_i ^ state_q[kept_set_i]) & counted(kept_set_i, kept_lines_i)) == '0;
  `QPM_ASSERT_IMPL(StateWord_A, word_valid_i, word_ok)
  `QPM_ASSERT_IMPL(StateKept_A, kept_valid_i, kept_ok)

endmodule
