// Assertion macros: real SVA in simulation, nothing in synthesis (Yosys defines
// SYNTHESIS). Stay in the one-cycle subset Verilator 5.006 evaluates (|->, |=>, $past).
`ifndef QPM_ASSERT_SVH
`define QPM_ASSERT_SVH

`ifndef SYNTHESIS
  `define QPM_ASSERT(__name, __prop, __clk = clk_i, __rst_n = rst_ni) \
    __name: assert property (@(posedge __clk) disable iff (!(__rst_n)) (__prop)) \
      else $error("[ASSERT FAILED] %m: %s", `"__name`");
`else
  `define QPM_ASSERT(__name, __prop, __clk = clk_i, __rst_n = rst_ni)
`endif

`endif
