// qpm_ram_2p: two-port RAM, one read port and one write port, registered read.
//
// The QP cache's read-modify-write pipeline reads one line and writes another (or the
// same) in every cycle (docs/qp-cache.md). Like qpm_ram_1p this is a wrapper: a
// technology 1R1W macro drops in, and `make synth` keeps it a black box and counts its
// bits. A read and a write of one address in one cycle return the OLD contents (the
// usual behaviour of a 1R1W SRAM macro, and what the pipeline's forwarding assumes).
// The write has a bit mask (the bit-write enable such macros offer): only the bits set
// in wmask_i change. The QP cache's line state is written through it, one field of a
// set's word at a time (docs/qp-cache.md section 19); every other user writes whole
// words (wmask_i all ones).
module qpm_ram_2p #(
  parameter int unsigned Width = 32,  // bits per word
  parameter int unsigned Depth = 16,  // words
  localparam int unsigned AddrW = (Depth > 1) ? $clog2(Depth) : 1
) (
  input  logic             clk_i,
  input  logic             re_i,      // read raddr_i this cycle
  input  logic [AddrW-1:0] raddr_i,
  output logic [Width-1:0] rdata_o,   // one cycle after re_i
  input  logic             we_i,      // write wdata_i to waddr_i this cycle
  input  logic [AddrW-1:0] waddr_i,
  input  logic [Width-1:0] wdata_i,
  input  logic [Width-1:0] wmask_i    // the bits of wdata_i written
);

  logic [Width-1:0] mem_q [Depth];

  always_ff @(posedge clk_i) begin
    if (re_i) rdata_o <= mem_q[raddr_i];
  end

  always_ff @(posedge clk_i) begin
    if (we_i) mem_q[waddr_i] <= (mem_q[waddr_i] & ~wmask_i) | (wdata_i & wmask_i);
  end

endmodule
