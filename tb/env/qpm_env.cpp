#include "qpm_env.h"

#include <stdexcept>

namespace qpm {

QpmEnv::QpmEnv(const EnvOptions &opt)
    : opt_(opt),
      rng_(opt.seed),
      tb_(opt.config, opt.seed, opt.trace_path),
      model_(tb_.config().params),
      scoreboard_(model_),
      driver_(rng_, [this](const Command &c) { scoreboard_.on_accept(c); }, opt.cmd_idle_prob),
      monitor_(rng_, [this](const Response &r) { scoreboard_.on_response(r); },
               opt.rsp_stall_prob) {
  tb_.add(&driver_);
  tb_.add(&monitor_);
  tb_.reset();
}

void QpmEnv::drain() {
  uint64_t last_progress = tb_.cycles();
  uint64_t answered = scoreboard_.checked();
  while (!driver_.idle() || scoreboard_.outstanding() > 0) {
    tb_.tick();
    if (scoreboard_.checked() != answered) {
      answered = scoreboard_.checked();
      last_progress = tb_.cycles();
    }
    if (tb_.cycles() - last_progress > opt_.timeout_cycles) {
      throw std::runtime_error("timeout: no response for " + std::to_string(opt_.timeout_cycles) +
                               " cycles");
    }
  }
}

Response QpmEnv::execute(const Command &cmd) {
  driver_.push(cmd);
  drain();
  return scoreboard_.last_response();
}

void QpmEnv::force_qpc(uint32_t qpn, const Qpc &q) {
  model_.force_qpc(qpn, q);
  tb_.dut().backdoor_write_qpc(qpn, pack_qpc(model_.qpc(qpn)));
  tb_.dut().eval();
}

void QpmEnv::run_cycles(uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) tb_.tick();
}

}  // namespace qpm
