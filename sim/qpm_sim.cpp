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
  std::string mem_latency = "20:60";
  bool mem_reorder = false;
  double mem_backpressure = 0.0;
  double mem_read_error_rate = 0.0;
  bool mem_aw_waits_for_w = false;
};

// "MIN" or "MIN:MAX" cycles.
bool parse_latency(const std::string &text, uint32_t *lo, uint32_t *hi) {
  const auto colon = text.find(':');
  try {
    size_t used = 0;
    *lo = static_cast<uint32_t>(std::stoul(text.substr(0, colon), &used));
    if (used != (colon == std::string::npos ? text.size() : colon)) return false;
    *hi = *lo;
    if (colon != std::string::npos) {
      const std::string rest = text.substr(colon + 1);
      *hi = static_cast<uint32_t>(std::stoul(rest, &used));
      if (used != rest.size()) return false;
    }
  } catch (const std::exception &) {
    return false;
  }
  return *lo <= *hi && *hi <= 100000;
}

std::string replay_line(const Options &o) {
  return fmt::format("qpm_sim --config {} --seed {} --cmds {} --qps {} --illegal-rate {} "
                     "--cmd-idle {} --rsp-stall {} --mem-latency {}{} --mem-backpressure {} "
                     "--mem-read-error-rate {}",
                     o.config, o.seed, o.cmds, o.qps, o.illegal_rate, o.cmd_idle, o.rsp_stall,
                     o.mem_latency,
                     std::string(o.mem_reorder ? " --mem-reorder" : "") +
                         (o.mem_aw_waits_for_w ? " --mem-aw-waits-for-w" : ""),
                     o.mem_backpressure, o.mem_read_error_rate);
}

int run_random(const Options &o, qpm::QpmEnv &env) {
  qpm::StimulusOptions so;
  so.qps = o.qps;
  so.illegal_rate = o.illegal_rate;
  qpm::RandomStimulus stim(env.rng(), env.model(), so);

  const auto t0 = std::chrono::steady_clock::now();
  const uint64_t c0 = env.tb().cycles();
  env.run_stream(o.cmds, [&] { return stim.next(); });
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const uint64_t cycles = env.tb().cycles() - c0;
  const std::vector<std::string> problems = env.final_check();
  const std::vector<uint32_t> counters = env.read_counters();

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
  const uint64_t hits = counters[0], misses = counters[1], merged = counters[2];
  const uint64_t lookups = hits + misses + merged;
  fmt::print("  hit rate    {:.1f}% of {} lookups\n",
             lookups ? 100.0 * static_cast<double>(hits) / static_cast<double>(lookups) : 0.0,
             lookups);
  fmt::print("  counters   ");
  for (size_t i = 0; i < counters.size(); ++i) {
    fmt::print(" {}={}", qpm::kCounterNames[i], counters[i]);
  }
  fmt::print("\n  memory      {} reads, {} writes, {} read errors injected\n",
             env.memory().reads(), env.memory().writes(), env.memory().injected_read_errors());
  fmt::print("  final image {}\n", problems.empty() ? "matches the model (after SYNC_CACHE)"
                                                    : "PROBLEMS");
  for (const auto &p : problems) fmt::print("    {}\n", p);
  const bool failed = !problems.empty();
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
  app.failure_message(CLI::FailureMessage::help);  // a bad flag prints the usage
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
  app.add_option("--mem-latency", o.mem_latency, "memory latency in cycles, MIN or MIN:MAX")
      ->capture_default_str();
  app.add_flag("--mem-reorder", o.mem_reorder, "memory answers out of order across AXI IDs");
  app.add_flag("--mem-aw-waits-for-w", o.mem_aw_waits_for_w,
               "memory holds AWREADY until it has the burst's first W beat (AXI4 allows it)");
  app.add_option("--mem-backpressure", o.mem_backpressure,
                 "chance a memory ready/valid is held low in a cycle")
      ->check(CLI::Range(0.0, 0.95));
  app.add_option("--mem-read-error-rate", o.mem_read_error_rate,
                 "chance a memory read burst answers SLVERR")
      ->check(CLI::Range(0.0, 1.0));
  CLI11_PARSE(app, argc, argv);
  uint32_t lat_lo = 0, lat_hi = 0;
  if (!parse_latency(o.mem_latency, &lat_lo, &lat_hi)) {
    fmt::print(stderr, "--mem-latency: expected MIN or MIN:MAX cycles (MIN <= MAX), got '{}'\n{}",
               o.mem_latency, app.help());
    return 2;
  }
  o.seed_given = app.count("--seed") > 0;
  if (!o.seed_given) o.seed = std::random_device{}() ^ (uint64_t{std::random_device{}()} << 32);

  spdlog::set_level(spdlog::level::from_str(o.log_level));
  spdlog::set_pattern("[%l] %v");

  try {
    qpm::EnvOptions eo;
    eo.config = o.config;
    eo.seed = o.seed;
    eo.trace_path = o.trace;
    eo.mem.latency_min = lat_lo;
    eo.mem.latency_max = lat_hi;
    eo.mem.reorder = o.mem_reorder;
    eo.mem.backpressure = o.mem_backpressure;
    eo.mem.read_error_rate = o.mem_read_error_rate;
    eo.mem.aw_waits_for_w = o.mem_aw_waits_for_w;
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
      const std::vector<std::string> problems = env.final_check();
      for (const auto &p : problems) fmt::print(stderr, "{}: {}\n", o.script, p);
      if (env.tb().assertion_failed() || !problems.empty()) return 1;
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
