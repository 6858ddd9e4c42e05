// qpm_fifo_sram: a synchronous FIFO whose entries live in a RAM wrapper (qpm_ram_2p),
// with qpm_fifo's ports and behaviour: in_ready_o is !full, out_valid_o is !empty, the
// head stays on out_data_o until out_ready_i takes it (AXI rule), count_o counts every
// entry (credits).
//
// The RAM answers a read a cycle later, so the head comes from a two-entry output
// stage in flip-flops, refilled from the RAM one read per cycle: a pop every cycle is
// sustained. An item pushed while the RAM holds nothing goes straight into the stage
// (behind a read landing in that cycle), so an empty FIFO offers it in the next cycle, as
// qpm_fifo does, and a RAM round trip never leaves the stage empty while items wait.
// For the deep FIFOs (the datapath response FIFO: twice the miss registers, 128 entries
// on `large`), where flip-flops would dominate the area (docs/capacity.md). Same ports as
// qpm_fifo, so either drops in.
`include "qpm_assert.svh"

module qpm_fifo_sram #(
  parameter int unsigned Width = 8,
  parameter int unsigned Depth = 16,
  localparam int unsigned PtrW = (Depth > 1) ? $clog2(Depth) : 1
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             in_valid_i,
  output logic             in_ready_o,
  input  logic [Width-1:0] in_data_i,
  output logic             out_valid_o,
  input  logic             out_ready_i,
  output logic [Width-1:0] out_data_o,
  output logic [PtrW:0]    count_o
);

  if (Depth < 2 || (1 << PtrW) != Depth) begin : gen_bad_depth
    $error("Depth must be a power of two, at least 2");
  end

  logic [PtrW:0]    count_q;     // every entry: in the RAM, read in flight, in the stage
  logic [PtrW:0]    ram_cnt_q;   // written to the RAM and not yet read
  logic [PtrW-1:0]  wr_q, rd_q;
  logic             rd_busy_q;   // a RAM read issued last cycle: its data is out now
  logic [1:0]       stage_cnt_q;
  logic [Width-1:0] stage_q [2]; // stage_q[0] is the head
  logic [Width-1:0] ram_rdata;
  logic             push, pop, bypass, ram_we, ram_re;
  logic [1:0]       stage_left;  // the stage's entries after this cycle's pop

  assign in_ready_o  = 32'(count_q) < Depth;
  assign out_valid_o = stage_cnt_q != '0;
  assign out_data_o  = stage_q[0];
  assign count_o     = count_q;
  assign push        = in_valid_i && in_ready_o;
  assign pop         = out_valid_o && out_ready_i;
  assign stage_left  = stage_cnt_q - 2'(pop);

  // Into the stage: the read landing now, then a push with nothing older in the RAM.
  assign bypass = push && ram_cnt_q == '0 && stage_left + 2'(rd_busy_q) < 2'd2;
  assign ram_we = push && !bypass;
  // A read is issued only if the stage has room for it when it lands, without a pop
  // then: the entries left now, the read landing now, and this one, at most two.
  assign ram_re = ram_cnt_q != '0 && stage_left + 2'(rd_busy_q) < 2'd2;

  qpm_ram_2p #(
    .Width (Width),
    .Depth (Depth)
  ) u_ram (
    .clk_i   (clk_i),
    .re_i    (ram_re),
    .raddr_i (rd_q),
    .rdata_o (ram_rdata),
    .we_i    (ram_we),
    .waddr_i (wr_q),
    .wdata_i (in_data_i),
    .wmask_i ('1)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      count_q     <= '0;
      ram_cnt_q   <= '0;
      wr_q        <= '0;
      rd_q        <= '0;
      rd_busy_q   <= 1'b0;
      stage_cnt_q <= '0;
    end else begin
      count_q     <= count_q + (PtrW + 1)'(push) - (PtrW + 1)'(pop);
      ram_cnt_q   <= ram_cnt_q + (PtrW + 1)'(ram_we) - (PtrW + 1)'(ram_re);
      if (ram_we) wr_q <= wr_q + PtrW'(1);
      if (ram_re) rd_q <= rd_q + PtrW'(1);
      rd_busy_q   <= ram_re;
      stage_cnt_q <= stage_left + 2'(rd_busy_q) + 2'(bypass);
    end
  end

  // A pop moves entry 1 to the head; what comes in fills the free entries after it, the
  // landing read first.
  always_ff @(posedge clk_i) begin
    if (pop) stage_q[0] <= stage_q[1];
    if (rd_busy_q) stage_q[stage_left[0]] <= ram_rdata;
    if (bypass) stage_q[stage_left[0] | rd_busy_q] <= in_data_i;
  end

  // ---- contract
  `QPM_ASSERT(StageRoom_A, 3'(stage_left) + 3'(rd_busy_q) + 3'(bypass) <= 3'd2)
  `QPM_ASSERT(Counts_A, 32'(count_q) == 32'(ram_cnt_q) + 32'(rd_busy_q) + 32'(stage_cnt_q))

endmodule
