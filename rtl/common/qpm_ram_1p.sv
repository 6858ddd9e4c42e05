// qpm_ram_1p: single-port RAM with registered read, the one RAM of the design.
//
// Every table goes through this wrapper (STYLE.md §2.13) so that a technology RAM can be
// dropped in and so that `make synth` can treat RAMs as black boxes: Yosys' generic
// mapping would turn a 4096 x 512 table into two million flip-flops. The contents are
// not reset; users that need a known state sweep it after reset.
module qpm_ram_1p #(
  parameter int unsigned Width = 32,  // bits per word
  parameter int unsigned Depth = 16,  // words
  localparam int unsigned AddrW = (Depth > 1) ? $clog2(Depth) : 1
) (
  input  logic             clk_i,
  input  logic             req_i,    // access this cycle
  input  logic             we_i,     // write (else read)
  input  logic [AddrW-1:0] addr_i,
  input  logic [Width-1:0] wdata_i,
  output logic [Width-1:0] rdata_o   // read data, one cycle after a read request
);

  logic [Width-1:0] mem_q [Depth];

  always_ff @(posedge clk_i) begin
    if (req_i) begin
      if (we_i) begin
        mem_q[addr_i] <= wdata_i;
      end else begin
        rdata_o <= mem_q[addr_i];
      end
    end
  end

endmodule
