// The configurations Verilated into this binary (one PREFIX each, see CMakeLists.txt).
#include <stdexcept>

#include "Vqpm_top_default.h"
#include "Vqpm_top_default___024root.h"
#ifdef QPM_HAVE_LARGE
#include "Vqpm_top_large.h"
#include "Vqpm_top_large___024root.h"
#endif
#include "Vqpm_top_tiny.h"
#include "Vqpm_top_tiny___024root.h"
#include "verilated_dut.h"

namespace qpm {

const std::vector<DutConfig> &dut_configs() {
  // Keep in step with the qpm_verilate_config() calls in CMakeLists.txt.
  static const std::vector<DutConfig> configs = [] {
    Config dflt;  // 64 sets x 4 ways, 8 MSHRs
    Config tiny;
    tiny.sets = 2;
    tiny.ways = 2;
    Config large;  // the cache a NIC of a few thousand connections ships (issue 25)
    large.sets = 1024;
    large.ways = 4;
    return std::vector<DutConfig>{
        {"default", "QP cache 64 sets x 4 ways, 8 MSHRs", dflt, 8},
        {"tiny", "QP cache 2 sets x 2 ways, 2 MSHRs: an eviction on almost every command",
         tiny, 2},
        {"large", "QP cache 1,024 sets x 4 ways (4,096 entries), 64 MSHRs", large, 64},
    };
  }();
  return configs;
}

const DutConfig *find_dut_config(const std::string &name) {
  for (const auto &c : dut_configs()) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

std::unique_ptr<Dut> make_dut(const std::string &config, VerilatedContext *ctx) {
  const DutConfig *c = find_dut_config(config);
  if (config == "default") {
    return std::make_unique<VerilatedDut<Vqpm_top_default>>(ctx, c->params.sets, c->params.ways);
  }
  if (config == "tiny") {
    return std::make_unique<VerilatedDut<Vqpm_top_tiny>>(ctx, c->params.sets, c->params.ways);
  }
  if (config == "large") {
#ifdef QPM_HAVE_LARGE
    return std::make_unique<VerilatedDut<Vqpm_top_large>>(ctx, c->params.sets, c->params.ways);
#else
    // Its model is a long build (docs/architecture.md, section 1): only on request.
    throw std::invalid_argument(
        "configuration 'large' is not built here: configure with -DQPM_LARGE=ON "
        "(make sim CONFIG=large and make build LARGE=ON do)");
#endif
  }
  throw std::invalid_argument("unknown configuration '" + config + "'");
}

}  // namespace qpm
