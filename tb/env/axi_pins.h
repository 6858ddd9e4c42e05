// Reading and driving the AXI4 memory pins of any Verilated model whose ports follow
// qpm_top's m_axi_* names (qpm_top itself, and the cache block-test top).
#pragma once

#include "dut.h"

namespace qpm {

template <class V>
AxiMasterOut axi_master_pins(const V &top) {
  AxiMasterOut m;
  m.awvalid = top.m_axi_awvalid_o;
  m.awid = top.m_axi_awid_o;
  m.awaddr = top.m_axi_awaddr_o;
  m.awlen = top.m_axi_awlen_o;
  m.awsize = top.m_axi_awsize_o;
  m.awburst = top.m_axi_awburst_o;
  m.wvalid = top.m_axi_wvalid_o;
  for (unsigned i = 0; i < kAxiDataBytes; ++i) {
    m.wdata[i] = static_cast<uint8_t>(top.m_axi_wdata_o[i / 4] >> (8 * (i % 4)));
  }
  m.wstrb = top.m_axi_wstrb_o;
  m.wlast = top.m_axi_wlast_o;
  m.bready = top.m_axi_bready_o;
  m.arvalid = top.m_axi_arvalid_o;
  m.arid = top.m_axi_arid_o;
  m.araddr = top.m_axi_araddr_o;
  m.arlen = top.m_axi_arlen_o;
  m.arsize = top.m_axi_arsize_o;
  m.arburst = top.m_axi_arburst_o;
  m.rready = top.m_axi_rready_o;
  return m;
}
template <class V>
void drive_axi_slave_pins(V &top, const AxiSlaveOut &in) {
  top.m_axi_awready_i = in.awready;
  top.m_axi_wready_i = in.wready;
  top.m_axi_bvalid_i = in.bvalid;
  top.m_axi_bid_i = in.bid;
  top.m_axi_bresp_i = in.bresp;
  top.m_axi_arready_i = in.arready;
  top.m_axi_rvalid_i = in.rvalid;
  top.m_axi_rid_i = in.rid;
  for (unsigned w = 0; w < kAxiDataBytes / 4; ++w) {
    top.m_axi_rdata_i[w] = uint32_t{in.rdata[4 * w]} | uint32_t{in.rdata[4 * w + 1]} << 8 |
                             uint32_t{in.rdata[4 * w + 2]} << 16 |
                             uint32_t{in.rdata[4 * w + 3]} << 24;
  }
  top.m_axi_rresp_i = in.rresp;
  top.m_axi_rlast_i = in.rlast;
}

}  // namespace qpm
