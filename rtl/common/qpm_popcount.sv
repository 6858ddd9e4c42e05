// qpm_popcount: how many bits of a vector are set, by a binary tree of adders, log2(N)
// levels of them (a loop that adds one bit at a time chains N adders: 32 levels at 64
// miss registers in qpm_mshr_sched). N need not be a power of two: the missing leaves
// are 0.
module qpm_popcount #(
  parameter int unsigned N = 8,
  localparam int unsigned CntW = $clog2(N + 1)
) (
  input  logic [N-1:0]    bits_i,
  output logic [CntW-1:0] count_o
);

  localparam int unsigned Leaves = (N > 1) ? 1 << $clog2(N) : 1;

  // A heap: node 1 is the root (the vector starts there), node n's children are 2n and
  // 2n + 1, the leaves are Leaves .. 2 Leaves - 1 (split_var: each node is its own
  // variable to the simulator).
  logic [2*Leaves*CntW-1:CntW] node /*verilator split_var*/;

  for (genvar n = 0; n < Leaves; n++) begin : gen_leaf
    if (n < N) begin : gen_real
      assign node[(Leaves+n)*CntW +: CntW] = CntW'(bits_i[n]);
    end else begin : gen_pad
      assign node[(Leaves+n)*CntW +: CntW] = '0;
    end
  end
  for (genvar n = 1; n < Leaves; n++) begin : gen_add
    assign node[n*CntW +: CntW] = node[2*n*CntW +: CntW] + node[(2*n+1)*CntW +: CntW];
  end

  assign count_o = node[CntW +: CntW];   // the root (the one leaf when N is 1)

endmodule
