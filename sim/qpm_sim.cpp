// qpm_sim: runs qpm_top against the golden model, randomly or from a script.
//
//   qpm_sim                       the default randomized run (seed printed)
//   qpm_sim --seed 7 --cmds 20000 --qps 500
//   qpm_sim --script walk.qpm     replay a script (SPEC.md §13)
//
// Exits 0 when every response matched the model, 1 on any mismatch or RTL assertion,
// 2 on bad input (CLI or script).
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <random>

#include "dut.h"
#include "qpm_env.h"
#include "random_stimulus.h"
#include "script.h"
#include "script_runner.h"

namespace {

struct Options {
  uint64_t seed = 0;
  bool seed_given = false;
  uint64_t cmds = 5000;
  uint32_t qps = 256;
  std::string config = "default";
  std::string log_level = "warn";
  std::string trace;
  std::string script;
  double illegal_rate = 0.2;
  double cmd_idle = 0.1;
  double rsp_stall = 0.1;
};

std::string replay_line(const Options &o) {
  return fmt::format("qpm_sim --config {} --seed {} --cmds {} --qps {} --illegal-rate {} "
                     "--cmd-idle {} --rsp-stall {}",
                     o.config, o.seed, o.cmds, o.qps, o.illegal_rate, o.cmd_idle, o.rsp_stall);
}

int run_random(const Options &o, qpm::QpmEnv &env) {
  qpm::StimulusOptions so;
  so.qps = o.qps;
  so.illegal_rate = o.illegal_rate;
  qpm::RandomStimulus stim(env.rng(), env.model(), so);

  const auto t0 = std::chrono::steady_clock::now();
  const uint64_t c0 = env.tb().cycles();
  for (uint64_t i = 0; i < o.cmds; ++i) {
    env.execute(stim.next());
    if (env.tb().assertion_failed()) break;
  }
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const uint64_t cycles = env.tb().cycles() - c0;

  const auto &sb = env.scoreboard();
  fmt::print("qpm_sim: config {}, seed {}, {} QPs\n", o.config, o.seed, o.qps);
  fmt::print("  commands    {}\n", sb.checked());
  for (const auto &[status, n] : sb.status_counts()) {
    fmt::print("    {:<13}{}\n", qpm::status_name(status), n);
  }
  fmt::print("  mismatches  {}\n", sb.mismatches());
  fmt::print("  cycles      {}\n", cycles);
  fmt::print("  speed       {:.1f} kHz simulated ({:.2f} s)\n",
             secs > 0 ? cycles / secs / 1000.0 : 0.0, secs);
  const bool failed = sb.mismatches() != 0 || env.tb().assertion_failed();
  if (env.tb().assertion_failed()) fmt::print("  an RTL assertion failed (see above)\n");
  if (failed) {
    fmt::print("FAIL. Reproduce with:\n  {}\n", replay_line(o));
    for (const auto &m : sb.first_mismatches()) {
      fmt::print("  command #{}: {}\n{}", m.index, qpm::format_command(m.cmd), m.difference);
    }
    return 1;
  }
  fmt::print("PASS\n");
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  Options o;
  CLI::App app{"qpm_sim: qpm_top (Verilator) checked against the golden model"};
  app.add_option("--seed", o.seed, "random seed (default: a fresh one, printed)");
  app.add_option("--cmds", o.cmds, "commands in a random run")->check(CLI::Range(1ull, 100000000ull));
  app.add_option("--qps", o.qps, "distinct QPNs a random run works on")
      ->check(CLI::Range(1u, 1u << 24));
  std::vector<std::string> names;
  for (const auto &c : qpm::dut_configs()) names.push_back(c.name);
  app.add_option("--config", o.config, "RTL configuration")->check(CLI::IsMember(names));
  app.add_option("--log-level", o.log_level, "spdlog level")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "critical", "off"}));
  app.add_option("--trace", o.trace, "write an FST waveform to this file");
  app.add_option("--script", o.script, "replay a script instead of a random run")
      ->check(CLI::ExistingFile);
  app.add_option("--illegal-rate", o.illegal_rate, "share of deliberately invalid commands")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--cmd-idle", o.cmd_idle, "chance of an idle cycle before a command")
      ->check(CLI::Range(0.0, 0.95));
  app.add_option("--rsp-stall", o.rsp_stall, "chance of rsp_ready low in a cycle")
      ->check(CLI::Range(0.0, 0.95));
  CLI11_PARSE(app, argc, argv);
  o.seed_given = app.count("--seed") > 0;
  if (!o.seed_given) o.seed = std::random_device{}() ^ (uint64_t{std::random_device{}()} << 32);

  spdlog::set_level(spdlog::level::from_str(o.log_level));
  spdlog::set_pattern("[%l] %v");

  try {
    qpm::EnvOptions eo;
    eo.config = o.config;
    eo.seed = o.seed;
    eo.trace_path = o.trace;
    if (o.script.empty()) {
      eo.cmd_idle_prob = o.cmd_idle;
      eo.rsp_stall_prob = o.rsp_stall;
    }
    const auto *cfg = qpm::find_dut_config(o.config);
    if (o.script.empty() && o.qps > cfg->params.qpn_limit - 2) {
      fmt::print(stderr, "--qps {} exceeds the {} usable QPNs of config {}\n", o.qps,
                 cfg->params.qpn_limit - 2, o.config);
      return 2;
    }
    qpm::QpmEnv env(eo);

    if (!o.script.empty()) {
      std::ifstream in(o.script);
      const qpm::ScriptResult r = qpm::run_script(env, in, std::cout);
      if (!r.error.empty()) {
        fmt::print(stderr, "{}: {}\n", o.script, r.error);  // "walk.qpm: line 3: ..."
        return 2;
      }
      if (env.tb().assertion_failed()) return 1;
      if (r.mismatches) {
        fmt::print(stderr, "{}: {} answer(s) differ from the golden model\n", o.script,
                   r.mismatches);
        return 1;
      }
      return 0;
    }
    return run_random(o, env);
  } catch (const std::exception &e) {
    fmt::print(stderr, "qpm_sim: {}\nReproduce with:\n  {}\n", e.what(), replay_line(o));
    return 1;
  }
}
