// qpm_front_arbiter: which requester qpm_dp_front offers to the QP cache this cycle
// (docs/datapath.md, "Arbitration"). Fixed priority with aging, and a lock:
//
//   1. the offer of the last cycle, if the cache did not take it (held until taken, even
//      if a higher priority requester arrives meanwhile: the AXI-style rule the cache's
//      spill register relies on)
//   2. a command, then a doorbell, then a fatal-engine step that has waited CmdMaxWait
//      cycles or is urgent, then a flush step that has waited FlushMaxWait cycles or is
//      urgent (its engine steps a QP a command waits for: qpm_flush_engine)
//   3. the datapath, doorbells, commands, fatal-engine steps, flush steps
//
// A requester ages while it is valid and not taken (*_waits_i), and is granted only when
// eligible (*_ok_i: valid, with the credits it needs, and its QPN not locked by a
// command); the front decides eligibility.
module qpm_front_arbiter #(
  parameter int unsigned CmdMaxWait   = 16,
  parameter int unsigned FlushMaxWait = 64
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                  dp_ok_i,
  input  logic                  db_ok_i,
  input  logic                  cmd_ok_i,
  input  logic                  fl_ok_i,
  input  logic                  fa_ok_i,
  input  logic                  db_waits_i,
  input  logic                  cmd_waits_i,
  input  logic                  fl_waits_i,
  input  logic                  fa_waits_i,
  input  logic                  fl_urgent_i,
  input  logic                  fa_urgent_i,
  input  logic                  ready_i,     // the cache takes this cycle's offer
  output qpm_pkg::front_grant_e grant_o,
  output qpm_pkg::front_grant_e held_o      // last cycle's offer, not taken (the lock)
);

  localparam int unsigned CmdWaitW   = $clog2(CmdMaxWait + 1);
  localparam int unsigned FlushWaitW = $clog2(FlushMaxWait + 1);

  qpm_pkg::front_grant_e held_q;
  logic [CmdWaitW-1:0]   cmd_wait_q, db_wait_q, fa_wait_q;
  logic [FlushWaitW-1:0] fl_wait_q;
  logic cmd_aged, db_aged, fa_aged, fl_aged;
  assign cmd_aged = 32'(cmd_wait_q) >= CmdMaxWait;
  assign db_aged  = 32'(db_wait_q) >= CmdMaxWait;
  assign fa_aged  = 32'(fa_wait_q) >= CmdMaxWait;
  assign fl_aged  = 32'(fl_wait_q) >= FlushMaxWait;

  always_comb begin
    if (held_q != qpm_pkg::GNone)  grant_o = held_q;
    else if (cmd_ok_i && cmd_aged) grant_o = qpm_pkg::GCmd;
    else if (db_ok_i && db_aged)   grant_o = qpm_pkg::GDb;
    else if (fa_ok_i && (fa_aged || fa_urgent_i)) grant_o = qpm_pkg::GFatal;
    else if (fl_ok_i && (fl_aged || fl_urgent_i)) grant_o = qpm_pkg::GFlush;
    else if (dp_ok_i)              grant_o = qpm_pkg::GDp;
    else if (db_ok_i)              grant_o = qpm_pkg::GDb;
    else if (cmd_ok_i)             grant_o = qpm_pkg::GCmd;
    else if (fa_ok_i)              grant_o = qpm_pkg::GFatal;
    else if (fl_ok_i)              grant_o = qpm_pkg::GFlush;
    else                           grant_o = qpm_pkg::GNone;
  end
  assign held_o = held_q;

  logic taken;
  assign taken = grant_o != qpm_pkg::GNone && ready_i;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      held_q     <= qpm_pkg::GNone;
      cmd_wait_q <= '0;
      db_wait_q  <= '0;
      fa_wait_q  <= '0;
      fl_wait_q  <= '0;
    end else begin
      held_q <= taken ? qpm_pkg::GNone : grant_o;
      if (!cmd_waits_i || (taken && grant_o == qpm_pkg::GCmd))  cmd_wait_q <= '0;
      else if (!cmd_aged)                                      cmd_wait_q <= cmd_wait_q + 1'b1;
      if (!db_waits_i || (taken && grant_o == qpm_pkg::GDb))    db_wait_q <= '0;
      else if (!db_aged)                                       db_wait_q <= db_wait_q + 1'b1;
      if (!fa_waits_i || (taken && grant_o == qpm_pkg::GFatal)) fa_wait_q <= '0;
      else if (!fa_aged)                                       fa_wait_q <= fa_wait_q + 1'b1;
      if (!fl_waits_i || (taken && grant_o == qpm_pkg::GFlush)) fl_wait_q <= '0;
      else if (!fl_aged)                                       fl_wait_q <= fl_wait_q + 1'b1;
    end
  end

endmodule
