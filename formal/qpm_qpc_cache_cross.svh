// Proof properties of qpm_qpc_cache across its blocks (formal/cache.toml,
// docs/formal.md), included inside the module under `ifdef FORMAL: they read the
// module's own signals, and Yosys 0.23 has no bind. Kept here so the RTL file holds
// the RTL.

  // ---------------------------------------------------------------------------------
  // Proof properties across the blocks (formal/cache.toml, docs/formal.md), each under
  // its proof's define; immediate, so each holds in the cycle it is about. They read the
  // pipe only through its ports.
  // ---------------------------------------------------------------------------------
  // P0 changes the looked-up line now: a write hit (dirty), a PIN/UNPIN that takes effect
  // or a context written invalid (pin), a read-modify-write (a CtxDp that touches its
  // line: any other outcome of a CtxDp touches nothing).
  logic f_p0_write, f_p0_rmw;
  assign f_p0_rmw   = touch && req_pipe.op == qpm_pkg::CtxDp;
  assign f_p0_write = dirty || pin || f_p0_rmw;
  // P1 writes the QPC RAM now for a write hit (decided in P0 the cycle before; a fill
  // never meets one, OneWrite_A) or a read-modify-write (dirty_p1): line p1_line.
  logic f_p1_wh_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) f_p1_wh_q <= 1'b0;
    else         f_p1_wh_q <= dirty;
  end
`ifdef P_VICTIM_EXCL
  // The way a miss register reserves is never a line another register owns (being
  // written back, walked, filled or replayed), the line P0 changes now, or the line a
  // write hit or read-modify-write writes in P1 now (its dirty bit lands in the line
  // state's RAM with that write, so the victim would be taken as clean).
  always_comb begin
    if (rst_ni && reserve)
      FVictimNotBusy_A: assert (!f_owned[reserve_line]
                                && !(f_p0_write && look_line == reserve_line)
                                && !(dirty_p1 && p1_line == reserve_line)
                                && !(f_p1_wh_q && p1_line == reserve_line));
  end
`endif
`ifdef P_NO_EARLY_WRITE
  // No write to a line whose fill has not landed (its miss register is past the victim
  // choice and before its replays, or its fill failed): neither P1's RAM write of a write
  // hit or read-modify-write, nor P0's change of the line's dirty or pin bit.
  always_comb begin
    if (rst_ni && (f_p1_wh_q || dirty_p1)) FNoEarlyStore_A: assert (!f_unfilled[p1_line]);
    if (rst_ni && f_p0_write)              FNoEarlyState_A: assert (!f_unfilled[look_line]);
  end
`endif
`ifdef P_FORWARD_NEWEST
  // Forwarding: for one line the solver picks (f_line), a shadow of the last QPC written
  // to it (by a fill, a write hit or a read-modify-write, in P1). Whatever P1 does with
  // data it read for that line (a read hit's answer, a read-modify-write's compute, a
  // read-out into the write-back buffer) sees that QPC: the newest, forwarded when the
  // RAM still holds the older one; a read-out also sees the line's newest memory address.
  // The QPC moves as one vector (RAM, P1, forward register, buffer), every bit under the
  // same control, so the shadow keeps four bits, 511:510 and 1:0 (a forward that is
  // missing, late, of the wrong line or of the wrong data shows in them), and two of the
  // address. The compute stubs make this visible (formal/cache_stub_*.sv): a
  // read-modify-write answers the four bits it read in rsp[3:0] and writes
  // {q[1:0], .., q[3:2]}, q bits 3:0 of the QPN the request's operation names (its
  // dp_req_t's, doorbell_t's, step_req_t's or pf_req_t's, as its tag says:
  // qpm_pkg::ctx_req_t).
  (* anyconst *) logic [LineW-1:0] f_line;
  qpm_pkg::dp_req_t   f_dp_req;
  qpm_pkg::doorbell_t f_db_req;
  qpm_pkg::step_req_t f_step_req;
  qpm_pkg::pf_req_t   f_pf_req;
  logic [qpm_pkg::QpnW-1:0] f_op_qpn;
  assign f_dp_req   = req_pipe.payload[$bits(f_dp_req)-1:0];
  assign f_db_req   = req_pipe.payload[$bits(f_db_req)-1:0];
  assign f_step_req = req_pipe.payload[$bits(f_step_req)-1:0];
  assign f_pf_req   = req_pipe.payload[$bits(f_pf_req)-1:0];
  assign f_op_qpn   = req_pipe.tag == qpm_pkg::TagDoorbell ? f_db_req.qpn
                    : qpm_pkg::tag_is_step(req_pipe.tag) ? f_step_req.qpn
                    : req_pipe.tag == qpm_pkg::TagCmd ? f_pf_req.qpn : f_dp_req.qpn;
  logic [LineW-1:0] f_rline;
  assign f_rline = wbread ? wbread_line : xread_ok ? scan_line : look_line;
  logic             f_rd_q, f_rmw_q, f_fill_q, f_known_q;
  logic [LineW-1:0] f_rline_q;
  logic [3:0]       f_fill_bits_q, f_wh_bits_q, f_rmw_bits_q, f_shadow_q, f_rsp_bits;
  logic [3:0]       f_load_bits;
  logic [1:0]       f_fill_addr_q, f_addr_q;
  qpm_pkg::qpc_t    f_fill_qpc;
  logic             f_fill_makes_fatal;
  assign f_fill_qpc         = mem_rsp_rdata_i[qpm_pkg::QpcW-1:0];
  assign f_fill_makes_fatal = fill_fatal && f_fill_qpc.valid && f_fill_qpc.state != qpm_pkg::StReset
                           && f_fill_qpc.state != qpm_pkg::StErr;
  always_ff @(posedge clk_i) begin
    // P0 -> P1: what P1 reads (and for which line) and writes
    f_rd_q        <= rst_ni && touch && req_pipe.op == qpm_pkg::CtxRead;   // a read hit
    f_rmw_q       <= rst_ni && f_p0_rmw;
    f_fill_q      <= rst_ni && fill;
    f_rline_q     <= f_rline;
    // (a fill that makes its QP fatal writes ERR: state bit 0, bit 1 of the QPC, is 0)
    f_fill_bits_q <= {mem_rsp_rdata_i[511:510], mem_rsp_rdata_i[1] && !f_fill_makes_fatal,
                      mem_rsp_rdata_i[0]};
    f_fill_addr_q <= fill_addr[7:6];   // page bits 13:12: the address RAM keeps the page
    f_wh_bits_q   <= {req_pipe.payload[511:510], req_pipe.payload[1:0]};
    f_rmw_bits_q  <= {f_op_qpn[1:0], f_op_qpn[3:2]};
    // the shadow: the writes P1 makes to f_line
    if (!rst_ni) begin
      f_known_q <= 1'b0;
    end else if (p1_line == f_line) begin
      if (f_fill_q) begin
        f_known_q  <= 1'b1;
        f_shadow_q <= f_fill_bits_q;
        f_addr_q   <= f_fill_addr_q;
      end else if (f_p1_wh_q) begin
        f_shadow_q <= f_wh_bits_q;
      end else if (dirty_p1) begin
        f_shadow_q <= f_rmw_bits_q;
      end
    end
  end
  assign f_rsp_bits  = {rsp_o.rdata[511:510], rsp_o.rdata[1:0]};
  assign f_load_bits = {wb_load_data[511:510], wb_load_data[1:0]};
  always_comb begin
    if (rst_ni && f_rline_q == f_line) begin
      if (f_rd_q)  FForwardRead_A: assert (rsp_valid_o && f_known_q && f_rsp_bits == f_shadow_q);
      if (f_rmw_q) FForwardRmw_A: assert (rsp_valid_o && f_known_q && rsp_o.rdata[3:0] == f_shadow_q);
      if (wb_load) FForwardLoad_A: assert (f_known_q && f_load_bits == f_shadow_q
                                           && wb_load_page[1:0] == f_addr_q);
    end
  end
`ifdef C_FORWARD
  // Reachability, run by hand (docs/formal.md): P1 uses f_line's data in the cycle after
  // a write to it (the forward register serves it), for a read hit, a read-modify-write
  // (back to back) and a read-out; each check's first counterexample is the depth needed.
  logic f_wrote_q, f_rmw_wrote_q;   // a write to f_line in the cycle before; by a RMW
  always_ff @(posedge clk_i) f_wrote_q <= rst_ni && p1_line == f_line
                                          && (f_fill_q || f_p1_wh_q || dirty_p1);
  always_ff @(posedge clk_i) f_rmw_wrote_q <= dirty_p1;
  always_comb begin
    if (rst_ni && f_wrote_q && f_rline_q == f_line) begin
`ifdef C_FORWARD_READ
      CForwardRead_C: assert (!f_rd_q);
`endif
`ifdef C_FORWARD_RMW
      CForwardRmw_C: assert (!(f_rmw_q && f_rmw_wrote_q));
`endif
`ifdef C_FORWARD_LOAD
      CForwardLoad_C: assert (!wb_load);
`endif
    end
  end
`endif
`endif
