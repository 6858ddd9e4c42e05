// qpm_victim_guard: a miss's victim is never held off by a stream (docs/qp-cache.md,
// "Victim"; issue 27 item 1). A line the pipe writes this cycle (P1's line, or P0's at
// the take) is not taken as a victim. Under a full-rate stream of writes to one line of a
// set whose other ways are pinned or owned, that exclusion lasts as long as the stream,
// and so would the miss. This block counts, per miss register, the victim steps that
// failed only because of the pipe's exclusion (the way would otherwise have gone); after
// Tries of them in a row it asks the pipe to take no new port request (drain_o, a
// register) until that register has reserved its way. Replays still run, so the pipe
// empties in a few cycles, and the next step finds the line free: a miss waits at most
// Tries blocked steps and one drain, whatever the stream. A miss register's count
// clears when it reserves a way.
module qpm_victim_guard #(
  parameter int unsigned Ways  = 4,
  parameter int unsigned Mshrs = 8,
  parameter int unsigned Tries = 3,
  localparam int unsigned WayW  = (Ways > 1) ? $clog2(Ways) : 1,
  localparam int unsigned MshrW = (Mshrs > 1) ? $clog2(Mshrs) : 1,
  localparam int unsigned CntW  = $clog2(Tries + 1)
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  // the scheduled miss register's victim step (choose) or take step, and their outcome
  input  logic             step_i,
  input  logic             step_found_i,     // the policy's choice found a way
  input  logic             take_i,
  input  logic             take_ok_i,
  input  logic [MshrW-1:0] mshr_i,
  input  logic [WayW-1:0]  take_way_i,
  input  logic [Ways-1:0]  pinned_i,         // the set's ways that may never go ...
  input  logic [Ways-1:0]  reserved_i,       // ... or are owned by miss registers
  input  logic [Ways-1:0]  excl_p1_i,        // the way P1 writes (kept out of the choice)
  output logic             drain_o
);

  // Blocked by the pipe alone: at the choice, no way found but P1's line would have
  // gone; at the take, the chosen way is neither pinned nor owned, so it was refused for
  // the line the pipe writes (P0's or P1's).
  logic blocked;
  assign blocked = (step_i && !step_found_i && (excl_p1_i & ~pinned_i & ~reserved_i) != '0)
                || (take_i && !take_ok_i && !pinned_i[take_way_i] && !reserved_i[take_way_i]);

  logic [CntW-1:0]  tries_q [Mshrs];
  logic [Mshrs-1:0] starved;
  for (genvar g = 0; g < Mshrs; g++) begin : g_tries
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        tries_q[g] <= '0;
      end else if (mshr_i == MshrW'(g)) begin
        if (take_i && take_ok_i) tries_q[g] <= '0;
        else if (blocked && !starved[g]) tries_q[g] <= tries_q[g] + 1'b1;
      end
    end
  end
  always_comb begin
    for (int unsigned m = 0; m < Mshrs; m++) starved[m] = 32'(tries_q[m]) >= Tries;
  end
  assign drain_o = starved != '0;

endmodule
