// qpm_first_one: the lowest set bit of a vector, by a binary tree of log2(N) levels
// (a loop that keeps the last hit would chain N levels). N need not be a power of two:
// the missing leaves never request.
module qpm_first_one #(
  parameter int unsigned N = 8,
  localparam int unsigned IdxW = (N > 1) ? $clog2(N) : 1
) (
  input  logic [N-1:0]    bits_i,
  output logic            any_o,
  output logic [IdxW-1:0] idx_o
);

  localparam int unsigned Levels = (N > 1) ? $clog2(N) : 0;
  localparam int unsigned Leaves = 1 << Levels;

  // Level l has Leaves >> l nodes; node n of level l sits at l * Leaves + n. Each keeps
  // whether its subtree has a set bit and the offset of the first one in it (split_var:
  // each node is its own variable to the simulator, not one vector feeding itself).
  logic [(Levels+1)*Leaves-1:0]      node_any /*verilator split_var*/;
  logic [(Levels+1)*Leaves*IdxW-1:0] node_idx /*verilator split_var*/;

  for (genvar n = 0; n < Leaves; n++) begin : gen_leaf
    if (n < N) begin : gen_real
      assign node_any[n] = bits_i[n];
    end else begin : gen_pad
      assign node_any[n] = 1'b0;
    end
    assign node_idx[n*IdxW +: IdxW] = '0;
  end

  for (genvar l = 0; l < Levels; l++) begin : gen_level
    for (genvar n = 0; n < Leaves; n++) begin : gen_node
      localparam int unsigned Left  = l * Leaves + 2 * n;
      localparam int unsigned Right = l * Leaves + 2 * n + 1;
      localparam int unsigned Here  = (l + 1) * Leaves + n;
      if (n < (Leaves >> (l + 1))) begin : gen_real
        assign node_any[Here] = node_any[Left] || node_any[Right];
        assign node_idx[Here*IdxW +: IdxW] = node_any[Left]
            ? node_idx[Left*IdxW +: IdxW]
            : (node_idx[Right*IdxW +: IdxW] | IdxW'(1 << l));
      end else begin : gen_none   // beyond this level's width: never read
        assign node_any[Here] = 1'b0;
        assign node_idx[Here*IdxW +: IdxW] = '0;
      end
    end
  end

  assign any_o = node_any[Levels*Leaves];
  assign idx_o = node_idx[Levels*Leaves*IdxW +: IdxW];

  // the upper nodes of each level that the tree does not use
  logic unused_nodes;
  assign unused_nodes = ^{node_any, node_idx};

endmodule
