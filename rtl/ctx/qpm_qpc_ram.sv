// qpm_qpc_ram: the QP cache's QPC RAM and its line-address RAM, with the write of the
// cycle before forwarded to the read data (docs/qp-cache.md, "P1").
//
// One read and one write a cycle, read data a cycle after the read. The RAMs return the
// old contents for a line written in the cycle it is read, so P1's write is kept for a
// cycle (w_*) and replaces the read data when the line read is the line written: a read
// right behind a write of its line, a fill's included, sees the new QPC. A fill writes
// the line's QPC page too (read when the line is written back); other writes leave it.
// The page (address bits 63:12) is all that is kept: bits 11:6 of a QPC's address are
// the low bits of its QPN (docs/qp-table.md), which the write-back buffer has.
module qpm_qpc_ram #(
  parameter int unsigned Lines = 256,
  parameter int unsigned QpcW  = 512,
  parameter int unsigned AddrW = 52,   // QPC address bits 63:12, the page
  localparam int unsigned LineW = $clog2(Lines)
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  // read: the QPC (re_i), and the address too (addr_re_i); data the next cycle
  input  logic             re_i,
  input  logic             addr_re_i,
  input  logic [LineW-1:0] raddr_i,
  output logic [QpcW-1:0]  rdata_o,
  output logic [AddrW-1:0] raddr_data_o,
  // write: the QPC, and with a fill (addr_we_i) its address
  input  logic             we_i,
  input  logic             addr_we_i,
  input  logic [LineW-1:0] wline_i,
  input  logic [QpcW-1:0]  wdata_i,
  input  logic [AddrW-1:0] waddr_i
);

  logic [QpcW-1:0]  ram_rdata;
  logic [AddrW-1:0] aram_rdata;

  qpm_ram_2p #(
    .Width (QpcW),
    .Depth (Lines)
  ) u_data_ram (
    .clk_i   (clk_i),
    .re_i    (re_i),
    .raddr_i (raddr_i),
    .rdata_o (ram_rdata),
    .we_i    (we_i),
    .waddr_i (wline_i),
    .wdata_i (wdata_i),
    .wmask_i ('1)
  );
  qpm_ram_2p #(
    .Width (AddrW),
    .Depth (Lines)
  ) u_addr_ram (
    .clk_i   (clk_i),
    .re_i    (addr_re_i),
    .raddr_i (raddr_i),
    .rdata_o (aram_rdata),
    .we_i    (addr_we_i),
    .waddr_i (wline_i),
    .wdata_i (waddr_i),
    .wmask_i ('1)
  );

  // the line read last cycle, and the write made then
  logic             w_valid_q, w_fill_q;
  logic [LineW-1:0] rline_q, w_line_q;
  logic [QpcW-1:0]  w_data_q;
  logic [AddrW-1:0] w_addr_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rline_q   <= '0;
      w_valid_q <= 1'b0;
      w_fill_q  <= 1'b0;
      w_line_q  <= '0;
      w_data_q  <= '0;
      w_addr_q  <= '0;
    end else begin
      rline_q   <= raddr_i;
      w_valid_q <= we_i;
      w_fill_q  <= addr_we_i;
      w_line_q  <= wline_i;
      w_data_q  <= wdata_i;
      w_addr_q  <= waddr_i;
    end
  end

  logic fwd_data, fwd_addr;
  assign fwd_data     = w_valid_q && w_line_q == rline_q;
  assign fwd_addr     = fwd_data && w_fill_q;
  assign rdata_o      = fwd_data ? w_data_q : ram_rdata;
  assign raddr_data_o = fwd_addr ? w_addr_q : aram_rdata;

endmodule
