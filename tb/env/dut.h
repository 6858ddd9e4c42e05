// The ports of one Verilated qpm_top, whichever configuration it was built as.
//
// Each configuration is Verilated once with its own PREFIX (CMakeLists.txt); make_dut()
// picks one by name, so drivers, monitors and tests are written once against Dut.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "qpm_types.h"

class VerilatedContext;

namespace qpm {

// AXI4 memory port of qpm_top, master side as the memory model sees it: what the
// master drives (sampled by the model) and what the model drives back.
constexpr unsigned kAxiDataBytes = 32;  // 256-bit data bus
using AxiBeat = std::array<uint8_t, kAxiDataBytes>;

struct AxiMasterOut {
  bool awvalid = false;
  uint32_t awid = 0;
  uint64_t awaddr = 0;
  uint32_t awlen = 0;    // beats - 1
  uint32_t awsize = 0;   // log2 bytes per beat
  uint32_t awburst = 1;  // INCR
  bool wvalid = false;
  AxiBeat wdata{};
  uint32_t wstrb = 0;    // one bit per byte lane
  bool wlast = false;
  bool bready = false;
  bool arvalid = false;
  uint32_t arid = 0;
  uint64_t araddr = 0;
  uint32_t arlen = 0;
  uint32_t arsize = 0;
  uint32_t arburst = 1;
  bool rready = false;
};

struct AxiSlaveOut {
  bool awready = false;
  bool wready = false;
  bool bvalid = false;
  uint32_t bid = 0;
  uint32_t bresp = 0;  // 0 OKAY, 2 SLVERR
  bool arready = false;
  bool rvalid = false;
  uint32_t rid = 0;
  AxiBeat rdata{};
  uint32_t rresp = 0;
  bool rlast = false;
};

// AXI4-Lite CSR port of qpm_top (32-bit data), slave side.
struct AxiLiteMasterOut {
  bool awvalid = false;
  uint32_t awaddr = 0;
  bool wvalid = false;
  uint32_t wdata = 0;
  uint32_t wstrb = 0xf;
  bool bready = false;
  bool arvalid = false;
  uint32_t araddr = 0;
  bool rready = false;
};

struct AxiLiteSlaveOut {
  bool awready = false;
  bool wready = false;
  bool bvalid = false;
  uint32_t bresp = 0;
  bool arready = false;
  bool rvalid = false;
  uint32_t rdata = 0;
  uint32_t rresp = 0;
};

class Dut {
 public:
  virtual ~Dut() = default;
  virtual void eval() = 0;
  virtual void final() = 0;
  virtual void set_clk(bool v) = 0;
  virtual void set_rst_n(bool v) = 0;
  // command / response streams
  virtual void set_cmd_valid(bool v) = 0;
  virtual void set_cmd(const BitVec &bits) = 0;
  // What the command pins carry now (monitors read the pins, not the driver).
  virtual bool cmd_valid() const = 0;
  virtual BitVec cmd() const = 0;
  virtual bool cmd_ready() const = 0;
  virtual bool rsp_ready() const = 0;
  virtual bool rsp_valid() const = 0;
  virtual void set_rsp_ready(bool v) = 0;
  virtual BitVec rsp() const = 0;
  // Datapath request / response, doorbell and EQE streams (SPEC §2, §6), as bit vectors
  // of dp_req_t, dp_rsp_t, doorbell_t and eqe_t (port_codec.h packs them). The getters
  // of an input read back what the harness drives (monitors read the pins).
  virtual void set_dp_req_valid(bool v) = 0;
  virtual void set_dp_req(const BitVec &bits) = 0;
  virtual bool dp_req_valid() const = 0;
  virtual BitVec dp_req() const = 0;
  virtual bool dp_req_ready() const = 0;
  virtual bool dp_rsp_valid() const = 0;
  virtual void set_dp_rsp_ready(bool v) = 0;
  virtual bool dp_rsp_ready() const = 0;
  virtual BitVec dp_rsp() const = 0;
  virtual void set_db_valid(bool v) = 0;
  virtual void set_db(const BitVec &bits) = 0;
  virtual bool db_valid() const = 0;
  virtual BitVec db() const = 0;
  virtual bool db_ready() const = 0;
  virtual bool eqe_valid() const = 0;
  virtual void set_eqe_ready(bool v) = 0;
  virtual bool eqe_ready() const = 0;
  virtual BitVec eqe() const = 0;
  // CQE port (SPEC §2, §7): cqe_t
  virtual bool cqe_valid() const = 0;
  virtual void set_cqe_ready(bool v) = 0;
  virtual bool cqe_ready() const = 0;
  virtual BitVec cqe() const = 0;
  virtual bool flush_busy() const = 0;
  // The eviction trap (docs/eviction.md): the question {tag 4, set, per way {eligible,
  // pinned, dirty, valid, qpn 24}} of evict_req_bits() bits, and the answer.
  virtual bool evict_req_valid() const = 0;
  virtual BitVec evict_req() const = 0;
  virtual void set_evict_req_ready(bool v) = 0;
  virtual void set_evict_rsp(bool valid, uint32_t tag, uint32_t way) = 0;
  virtual unsigned evict_req_bits() const = 0;
  // Backdoor: CQEs waiting in the CQE FIFO (the one on the port included).
  virtual unsigned cqe_fifo_count() const = 0;
  // Backdoor: events waiting in the event queue (the EQE on the port included).
  virtual unsigned eq_fifo_count() const = 0;
  // Probes (simulation only), sampled before the edge: the QPN of a doorbell the QP
  // cache answered in this cycle, and of a QP a memory fault made fatal in this cycle
  // (docs/events.md, "Memory faults"): a fill after a failed read of its context, or,
  // with write set, a write-back of its context given up (qpm_top.mem_fatal_write).
  virtual std::optional<uint32_t> doorbell_done() const = 0;
  // ... and of a datapath operation the QP cache answered in this cycle.
  virtual std::optional<uint32_t> dp_done() const = 0;
  struct FatalNotice {
    uint32_t qpn = 0;
    bool write = false;  // a write fault (a write-back given up), else a read fault
  };
  virtual std::optional<FatalNotice> fatal_fill() const = 0;
  // ... and a take-back: a miss register's fill from the write-back buffer (an entry
  // given up or still in flight), not memory.
  virtual bool take_back() const = 0;
  // ... and whether the command unit is in Execute (deciding on the context it read).
  virtual bool cmd_executing() const = 0;
  // ... and whether the datapath front takes a datapath operation (its tag), or a
  // doorbell (its bits, doorbell_t), from the ports' ingress in this cycle: the order in
  // which they reach the QP cache (docs/datapath.md "Order"; requests of different QPNs
  // may pass each other in the ingress's lock parks, one QPN's never do).
  virtual std::optional<uint32_t> front_took_dp() const = 0;
  virtual std::optional<BitVec> front_took_db() const = 0;
  // ... and the QPN the command unit holds locked (its read to its write), if any.
  virtual std::optional<uint32_t> command_lock() const = 0;
  // AXI4 memory port (qpm_top is the master)
  virtual AxiMasterOut mem_out() const = 0;
  virtual void set_mem_in(const AxiSlaveOut &in) = 0;
  // AXI4-Lite CSR port (qpm_top is the slave)
  virtual AxiLiteSlaveOut csr_out() const = 0;
  virtual void set_csr_in(const AxiLiteMasterOut &in) = 0;
  // Backdoor (simulation only): if qpn's context is in the QP cache, replace it there
  // (marked dirty) and return true; else return false and the caller writes memory.
  virtual bool backdoor_write_cached_qpc(uint32_t qpn, const BitVec &qpc) = 0;
  // FST waveforms
  virtual void open_trace(const std::string &path) = 0;
  virtual void dump_trace(uint64_t time) = 0;
  virtual void close_trace() = 0;
};

// A named build of qpm_top and the parameters software sees.
struct DutConfig {
  std::string name;
  std::string description;
  Config params;     // what software sees (cache geometry for PIN_QP's capacity)
  uint32_t mshrs;    // miss registers
};

const std::vector<DutConfig> &dut_configs();
const DutConfig *find_dut_config(const std::string &name);
// Throws std::invalid_argument for an unknown configuration name.
std::unique_ptr<Dut> make_dut(const std::string &config, VerilatedContext *ctx);

}  // namespace qpm
