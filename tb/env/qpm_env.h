// One qpm_top with its golden model, driver, monitor and scoreboard: what the simulator
// and every system-level test run on.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>

#include "command_agent.h"
#include "golden_model.h"
#include "scoreboard.h"
#include "testbench.h"

namespace qpm {

struct EnvOptions {
  std::string config = "default";
  uint64_t seed = 1;
  std::string trace_path;     // FST file, empty for none
  double cmd_idle_prob = 0.0;    // chance of an idle cycle before a command
  double rsp_stall_prob = 0.0;   // chance rsp_ready is low in a cycle
  uint64_t timeout_cycles = 20000;  // per command, after reset
};

class QpmEnv {
 public:
  explicit QpmEnv(const EnvOptions &opt);

  // Drive one command and wait for its response (which the scoreboard checks).
  // Throws std::runtime_error when no response arrives within timeout_cycles.
  Response execute(const Command &cmd);
  // Queue a command without waiting.
  void submit(const Command &cmd) { driver_.push(cmd); }
  // Run until every queued command has been answered.
  void drain();
  void run_cycles(uint64_t n);
  // Test backdoor: replace a QP's context in the RTL and the model alike, as the
  // datapath would have left it (SQE, SQD while draining). Call between commands.
  void force_qpc(uint32_t qpn, const Qpc &q);

  GoldenModel &model() { return model_; }
  Scoreboard &scoreboard() { return scoreboard_; }
  Testbench &tb() { return tb_; }
  std::mt19937_64 &rng() { return rng_; }
  const EnvOptions &options() const { return opt_; }

 private:
  EnvOptions opt_;
  std::mt19937_64 rng_;
  Testbench tb_;
  GoldenModel model_;
  Scoreboard scoreboard_;
  CommandDriver driver_;
  ResponseMonitor monitor_;
};

}  // namespace qpm
