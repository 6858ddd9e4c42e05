// qpm_park_pool: requests waiting for a fill, and their replay (docs/qp-cache.md).
//
// A request that misses, or meets a miss under way on its QPN, is parked here with the
// index of its miss register and its place in that register's line (seq). When the
// register's fill is done (replaying_i), its requests replay in that order: the next one
// is read out of the park RAM a cycle ahead ("staged") and offered to the pipe, which
// takes it (take_i) before any new request; the next is read out in the cycle of that
// take. The staged request stays offered, unchanged, until it is taken. The requests
// themselves (a write carries a whole QPC) live in a RAM; only the small bookkeeping is
// in flops.
//
// Whether a slot holds its register's next place in line is a flip-flop per slot
// (next_q), not a compare with its register's dequeue count through a Mshrs:1
// multiplexer per slot (183 k GE at 64 miss registers): a register's count moves only
// when its staged replay is taken (qpm_qpc_pipe: deq_o is take_o), so the slot after the
// taken one learns it from that take (a compare per slot with one broadcast register and
// place), and a slot parked learns it from its register's count at the park (one
// multiplexer). NextIsCompare_A checks it against the compare it replaces.
`include "qpm_assert.svh"

module qpm_park_pool #(
  parameter int unsigned Depth = 16,
  parameter int unsigned Mshrs = 8,
  parameter int unsigned SeqW  = 5,
  parameter int unsigned ReqW  = 32,
  localparam int unsigned IdxW  = (Depth > 1) ? $clog2(Depth) : 1,
  localparam int unsigned MshrW = (Mshrs > 1) ? $clog2(Mshrs) : 1
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  output logic                  free_any_o,
  // park a request (the pipe checked free_any_o)
  input  logic                  park_i,
  input  logic [ReqW-1:0]       park_req_i,
  input  logic [MshrW-1:0]      park_mshr_i,
  input  logic [SeqW-1:0]       park_seq_i,
  // which registers replay, and whose turn it is in each
  input  logic [Mshrs-1:0]      replaying_i,
  input  logic [Mshrs*SeqW-1:0] deq_seq_i,
  input  logic [Mshrs-1:0]      line_empty_i,  // the register's count is its next park's
  // the staged replay
  output logic                  stage_valid_o,
  output logic [ReqW-1:0]       stage_req_o,
  output logic [MshrW-1:0]      stage_mshr_o,
  input  logic                  take_i
);

  logic [Depth-1:0] p_valid_q;
  logic [MshrW-1:0] p_mshr_q [Depth];
  logic [SeqW-1:0]  p_seq_q  [Depth];
  logic [Depth-1:0] next_q;
  logic             stage_valid_q;
  logic [IdxW-1:0]  stage_idx_q;

  // The free slot and the next replay, lowest index first: first-one trees, log2(Depth)
  // deep (a priority loop over the slots was 131 levels at 64 miss registers). A slot
  // replays when its register does and it holds that register's next place in line.
  logic            free_any, replay_any;
  logic [IdxW-1:0] free_idx, replay_idx;
  logic [Depth-1:0] replay_match;
  // The staged slot is not offered again: the next replay is read out in the cycle the
  // staged one is taken, so replays of different registers go one a cycle.
  for (genvar g = 0; g < Depth; g++) begin : gen_match
    assign replay_match[g] = p_valid_q[g] && next_q[g] && replaying_i[p_mshr_q[g]]
                          && !(stage_valid_q && stage_idx_q == IdxW'(g));
  end
  qpm_first_one #(.N(Depth)) u_free (.bits_i(~p_valid_q), .any_o(free_any), .idx_o(free_idx));
  qpm_first_one #(.N(Depth)) u_replay (
    .bits_i (replay_match),
    .any_o  (replay_any),
    .idx_o  (replay_idx)
  );
  assign free_any_o = free_any;

  // One RAM port: a park writes; otherwise the next replay is read out, when none is
  // staged or the staged one is taken now (its successor in its register's line is not
  // next before that take, so it follows a cycle later).
  logic stage_now;
  assign stage_now = replay_any && (!stage_valid_q || take_i) && !park_i;
  qpm_ram_1p #(
    .Width (ReqW),
    .Depth (Depth)
  ) u_park_ram (
    .clk_i   (clk_i),
    .req_i   (park_i || stage_now),
    .we_i    (park_i),
    .addr_i  (park_i ? free_idx : replay_idx),
    .wdata_i (park_req_i),
    .rdata_o (stage_req_o)
  );
  // The staged request's register is kept beside its slot index: it starts the pipe's
  // replay lookup (the register's way), so it comes from a flip-flop, not a Depth:1
  // multiplexer (StageMshr_A: the same as the slot's).
  logic [MshrW-1:0] stage_mshr_q;
  logic [SeqW-1:0]  stage_seq_q;
  assign stage_valid_o = stage_valid_q;
  assign stage_mshr_o  = stage_mshr_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      stage_valid_q <= 1'b0;
      stage_idx_q   <= '0;
      stage_mshr_q  <= '0;
      stage_seq_q   <= '0;
    end else if (stage_now) begin
      stage_valid_q <= 1'b1;
      stage_idx_q   <= replay_idx;
      stage_mshr_q  <= p_mshr_q[replay_idx];
      stage_seq_q   <= p_seq_q[replay_idx];
    end else if (take_i) begin
      stage_valid_q <= 1'b0;
    end
  end

  // A parked request is next when its place (its register's parked count) is its
  // register's dequeue count: the register's own compare (line_empty_i), chosen by the
  // park's register. No park is on the register whose staged replay is taken in that
  // cycle (ParkNotOnTake_A: a merge parks a port request, and a replay that misses again
  // parks on a new register), so that take does not move the count the park reads. The
  // take comes late (the pipe's decision) and only chooses, for the slot after the
  // staged one (succ, from flip-flops).
  logic             park_next_cnt;
  logic [Depth-1:0] succ, next_d;
  assign park_next_cnt  = line_empty_i[park_mshr_i];
  for (genvar g = 0; g < Depth; g++) begin : gen_next
    logic here, with_take, without_take;
    assign here         = park_i && free_idx == IdxW'(g);
    assign succ[g]      = p_mshr_q[g] == stage_mshr_q && p_seq_q[g] == stage_seq_q + SeqW'(1);
    assign with_take    = here ? park_next_cnt : next_q[g] || succ[g];
    assign without_take = here ? park_next_cnt : next_q[g];
    assign next_d[g]    = take_i ? with_take : without_take;
  end

  for (genvar g = 0; g < Depth; g++) begin : gen_entry
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        p_valid_q[g] <= 1'b0;
        p_mshr_q[g]  <= '0;
        p_seq_q[g]   <= '0;
        next_q[g]    <= 1'b0;
      end else begin
        next_q[g]    <= next_d[g];
        if (park_i && free_idx == IdxW'(g)) begin
          p_valid_q[g] <= 1'b1;
          p_mshr_q[g]  <= park_mshr_i;
          p_seq_q[g]   <= park_seq_i;
        end else if (take_i && stage_idx_q == IdxW'(g)) begin
          p_valid_q[g] <= 1'b0;
        end
      end
    end
  end

  `QPM_ASSERT_IMPL(ParkHasRoom_A, park_i, free_any)
  `QPM_ASSERT_IMPL(TakeStaged_A, take_i, stage_valid_q)
`ifndef SYNTHESIS
  // The kept register index is the staged slot's.
  logic [MshrW-1:0] staged_slot_mshr;
  assign staged_slot_mshr = p_mshr_q[stage_idx_q];
  `QPM_ASSERT_IMPL(StageMshr_A, stage_valid_q, stage_mshr_q == staged_slot_mshr)
  // A slot is next exactly when its place is its register's count; a take is of the
  // register's next place.
  logic [Depth-1:0] next_compare;
  for (genvar g = 0; g < Depth; g++) begin : gen_next_check
    assign next_compare[g] = p_seq_q[g] == deq_seq_i[32'(p_mshr_q[g]) * SeqW +: SeqW];
  end
  `QPM_ASSERT(NextIsCompare_A, (next_q & p_valid_q) == (next_compare & p_valid_q))
  `QPM_ASSERT_IMPL(TakeIsNext_A, take_i,
                   stage_seq_q == deq_seq_i[32'(stage_mshr_q) * SeqW +: SeqW])
  `QPM_ASSERT_IMPL(ParkNotOnTake_A, park_i && take_i, park_mshr_i != stage_mshr_q)
  `QPM_ASSERT_IMPL(ParkIsCount_A, park_i, park_next_cnt
                   == (park_seq_i == deq_seq_i[32'(park_mshr_i) * SeqW +: SeqW]))
`endif
  // A staged replay stays offered, unchanged, until taken (it is read once).
  `QPM_ASSERT_NEXT(StageStable_A, stage_valid_q && !take_i, stage_valid_q && $stable(stage_idx_q))

endmodule
