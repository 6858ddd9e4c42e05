// The configurations Verilated into this binary (one PREFIX each, see CMakeLists.txt).
#include <stdexcept>

#include "Vqpm_top_default.h"
#include "Vqpm_top_default___024root.h"
#include "verilated_dut.h"

namespace qpm {

const std::vector<DutConfig> &dut_configs() {
  static const std::vector<DutConfig> configs = {
      {"default", "all-on-chip QPC store, QPN_LIMIT 4096", Config{}},
  };
  return configs;
}

const DutConfig *find_dut_config(const std::string &name) {
  for (const auto &c : dut_configs()) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

std::unique_ptr<Dut> make_dut(const std::string &config, VerilatedContext *ctx) {
  if (config == "default") return std::make_unique<VerilatedDut<Vqpm_top_default>>(ctx);
  throw std::invalid_argument("unknown configuration '" + config + "'");
}

}  // namespace qpm
