// Assertion macros, one source for three readers:
//   simulation and lint           real SVA (Verilator), in the one-cycle subset Verilator 5.006
//                                 evaluates (|->, |=>, $past, $stable)
//   Yosys read_verilog -formal    FORMAL is defined (make formal, docs/formal.md): the
//                                 same properties as immediate assertions in a clocked
//                                 block, the form Yosys 0.23 reads without Verific
//   Yosys synthesis               SYNTHESIS is defined: nothing
// QPM_ASSERT(name, p)              p holds in every cycle out of reset
// QPM_ASSERT_IMPL(name, a, c)      a |-> c: c holds in every cycle a does
// QPM_ASSERT_NEXT(name, a, c)      a |=> c: c holds in the cycle after every cycle a does
`ifndef QPM_ASSERT_SVH
`define QPM_ASSERT_SVH

`ifdef FORMAL
  `define QPM_ASSERT(__name, __prop, __clk = clk_i, __rst_n = rst_ni) \
    always @(posedge __clk) if (__rst_n) __name: assert (__prop);
  `define QPM_ASSERT_IMPL(__name, __ante, __cons, __clk = clk_i, __rst_n = rst_ni) \
    always @(posedge __clk) if (__rst_n) __name: assert (!(__ante) || (__cons));
  `define QPM_ASSERT_NEXT(__name, __ante, __cons, __clk = clk_i, __rst_n = rst_ni) \
    always @(posedge __clk) if (__rst_n && $past(__rst_n) && $past(__ante)) \
      __name: assert (__cons);
`elsif SYNTHESIS
  `define QPM_ASSERT(__name, __prop, __clk = clk_i, __rst_n = rst_ni)
  `define QPM_ASSERT_IMPL(__name, __ante, __cons, __clk = clk_i, __rst_n = rst_ni)
  `define QPM_ASSERT_NEXT(__name, __ante, __cons, __clk = clk_i, __rst_n = rst_ni)
`else
  `define QPM_ASSERT(__name, __prop, __clk = clk_i, __rst_n = rst_ni) \
    __name: assert property (@(posedge __clk) disable iff (!(__rst_n)) (__prop)) \
      else $error("[ASSERT FAILED] %m: %s", `"__name`");
  `define QPM_ASSERT_IMPL(__name, __ante, __cons, __clk = clk_i, __rst_n = rst_ni) \
    __name: assert property (@(posedge __clk) disable iff (!(__rst_n)) (__ante) |-> (__cons)) \
      else $error("[ASSERT FAILED] %m: %s", `"__name`");
  `define QPM_ASSERT_NEXT(__name, __ante, __cons, __clk = clk_i, __rst_n = rst_ni) \
    __name: assert property (@(posedge __clk) disable iff (!(__rst_n)) (__ante) |=> (__cons)) \
      else $error("[ASSERT FAILED] %m: %s", `"__name`");
`endif

`endif
