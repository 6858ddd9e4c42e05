// Included inside qpm_mshr_file under FORMAL (formal/cache.toml, docs/formal.md): the
// views the cache's cross-block proofs read (f_owned_o, f_unfilled_o) and the miss
// registers' own proof properties, each under its proof's define.
  // The lines registers own (m_owns: from the victim choice until free), and those of
  // them whose fill has not landed or failed.
  always_comb begin
    f_owned_o    = '0;
    f_unfilled_o = '0;
    for (int unsigned m = 0; m < Mshrs; m++) begin
      if (m_owns[m]) begin
        f_owned_o[line_of(m_qpn_q[m][SetW-1:0], m_way_q[m])] = 1'b1;
        if (m_state_q[m] != qpm_pipe_pkg::MReplay || m_status_q[m] != qpm_pkg::CtxOk)
          f_unfilled_o[line_of(m_qpn_q[m][SetW-1:0], m_way_q[m])] = 1'b1;
      end
    end
  end
`ifdef P_ONE_MSHR_PER_QPN
  // Besides OneRegisterPerQpn_A: a register is taken only when free, and only for a QPN
  // no register works on.
  logic f_alloc_busy_qpn;
  logic two_on_one_qpn;
  always_comb begin
    two_on_one_qpn = 1'b0;
    for (int unsigned a = 0; a < Mshrs; a++) begin
      for (int unsigned b = a + 1; b < Mshrs; b++) begin
        if (m_state_q[a] != qpm_pipe_pkg::MFree && m_state_q[b] != qpm_pipe_pkg::MFree && m_qpn_q[a] == m_qpn_q[b])
          two_on_one_qpn = 1'b1;
      end
    end
  end
  always_comb begin
    f_alloc_busy_qpn = 1'b0;
    for (int unsigned m = 0; m < Mshrs; m++) begin
      if (m_state_q[m] != qpm_pipe_pkg::MFree && m_qpn_q[m] == alloc_qpn_i) f_alloc_busy_qpn = 1'b1;
    end
    if (rst_ni && park_i && alloc_i)
      FAllocFresh_A: assert (m_state_q[park_idx_i] == qpm_pipe_pkg::MFree && !f_alloc_busy_qpn);
    if (rst_ni) FOneRegisterPerQpn_A: assert (!two_on_one_qpn);
  end
`endif
