// The ports of one Verilated qpm_top, whichever configuration it was built as.
//
// Each configuration is Verilated once with its own PREFIX (CMakeLists.txt); make_dut()
// picks one by name, so drivers, monitors and tests are written once against Dut.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "qpm_types.h"

class VerilatedContext;

namespace qpm {

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
  virtual bool cmd_ready() const = 0;
  virtual bool rsp_valid() const = 0;
  virtual void set_rsp_ready(bool v) = 0;
  virtual BitVec rsp() const = 0;
  // Backdoor to the QPC storage (simulation only): read or replace the context of qpn
  // without a command. The caller keeps the golden model in step.
  virtual BitVec backdoor_read_qpc(uint32_t qpn) = 0;
  virtual void backdoor_write_qpc(uint32_t qpn, const BitVec &qpc) = 0;
  // FST waveforms
  virtual void open_trace(const std::string &path) = 0;
  virtual void dump_trace(uint64_t time) = 0;
  virtual void close_trace() = 0;
};

// A named build of qpm_top and the parameters software sees.
struct DutConfig {
  std::string name;
  std::string description;
  Config params;
};

const std::vector<DutConfig> &dut_configs();
const DutConfig *find_dut_config(const std::string &name);
// Throws std::invalid_argument for an unknown configuration name.
std::unique_ptr<Dut> make_dut(const std::string &config, VerilatedContext *ctx);

}  // namespace qpm
