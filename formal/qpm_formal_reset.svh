// Included in a property wrapper with clk_i and rst_ni: reset is asserted in the first
// cycle and never again, and past_valid says $past() reaches a cycle after reset.
logic init_q = 1'b1;
logic past_valid;
always_ff @(posedge clk_i) init_q <= 1'b0;
always_comb assume (rst_ni == !init_q);
logic past_valid_q = 1'b0;
always_ff @(posedge clk_i) past_valid_q <= !init_q;
assign past_valid = past_valid_q;
