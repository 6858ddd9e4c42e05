#include "sim_run.h"

#include <fmt/format.h>

#include <chrono>
#include <stdexcept>

#include "random_stimulus.h"

namespace qpm {

void add_sim_options(CLI::App &app, SimOptions &o) {
  app.add_option("--seed", o.seed, "random seed (default: a fresh one, printed)");
  app.add_option("--cmds", o.cmds, "commands in a random run")
      ->check(CLI::Range(1ull, 100000000ull));
  app.add_option("--qps", o.qps, "distinct QPNs a random run works on")
      ->check(CLI::Range(1u, 1u << 24));
  app.add_option("--qpn-limit", o.qpn_limit,
                 "QPN_LIMIT (up to 2^24; above 65536 the run maps only the pages it uses)")
      ->check(CLI::Range(64u, 1u << 24));
  std::vector<std::string> names;
  for (const auto &c : dut_configs()) names.push_back(c.name);
  app.add_option("--config", o.config, "RTL configuration")->check(CLI::IsMember(names));
  app.add_option("--illegal-rate", o.illegal_rate, "share of deliberately invalid commands")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--cmd-idle", o.cmd_idle, "chance of an idle cycle before a command")
      ->check(CLI::Range(0.0, 0.95));
  app.add_option("--rsp-stall", o.rsp_stall, "chance of rsp_ready low in a cycle")
      ->check(CLI::Range(0.0, 0.95));
  app.add_option("--csr-stall", o.csr_stall,
                 "AXI4-Lite master: chance per cycle that a valid or ready waits")
      ->check(CLI::Range(0.0, 0.95));
  app.add_option("--mem-latency", o.mem_latency, "memory latency in cycles, MIN or MIN:MAX")
      ->capture_default_str();
  app.add_flag("--mem-reorder", o.mem_reorder, "memory answers out of order across AXI IDs");
  app.add_flag("--mem-interleave", o.mem_interleave,
               "memory interleaves the R beats of bursts with different IDs");
  app.add_flag("--mem-aw-waits-for-w", o.mem_aw_waits_for_w,
               "memory holds AWREADY until it has the burst's first W beat (AXI4 allows it)");
  app.add_option("--mem-backpressure", o.mem_backpressure,
                 "chance a memory ready/valid is held low in a cycle")
      ->check(CLI::Range(0.0, 0.95));
  app.add_option("--mem-read-error-rate", o.mem_read_error_rate,
                 "chance a memory read burst answers SLVERR")
      ->check(CLI::Range(0.0, 1.0));
}

bool large_qpn_space(const SimOptions &o) { return o.qpn_limit > 65536; }

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

std::string replay_line(const SimOptions &o, const std::string &program) {
  std::string line = fmt::format(
      "{} --config {} --seed {} --cmds {} --qps {} --qpn-limit {} --illegal-rate {} "
      "--cmd-idle {} --rsp-stall {} --csr-stall {} --mem-latency {} --mem-backpressure {} "
      "--mem-read-error-rate {}",
      program, o.config, o.seed, o.cmds, o.qps, o.qpn_limit, o.illegal_rate, o.cmd_idle,
      o.rsp_stall,
      o.csr_stall, o.mem_latency, o.mem_backpressure, o.mem_read_error_rate);
  if (o.mem_reorder) line += " --mem-reorder";
  if (o.mem_interleave) line += " --mem-interleave";
  if (o.mem_aw_waits_for_w) line += " --mem-aw-waits-for-w";
  return line;
}

EnvOptions env_options(const SimOptions &o) {
  EnvOptions e;
  e.config = o.config;
  e.seed = o.seed;
  e.cmd_idle_prob = o.cmd_idle;
  e.rsp_stall_prob = o.rsp_stall;
  e.csr_stall_prob = o.csr_stall;
  e.qpn_limit = o.qpn_limit;
  e.map_all_pages = !large_qpn_space(o);
  if (!parse_latency(o.mem_latency, &e.mem.latency_min, &e.mem.latency_max)) {
    throw std::invalid_argument("--mem-latency: expected MIN or MIN:MAX cycles (MIN <= MAX), got '" +
                                o.mem_latency + "'");
  }
  e.mem.reorder = o.mem_reorder;
  e.mem.interleave = o.mem_interleave;
  e.mem.aw_waits_for_w = o.mem_aw_waits_for_w;
  e.mem.backpressure = o.mem_backpressure;
  e.mem.read_error_rate = o.mem_read_error_rate;
  return e;
}

SimResult run_random(const SimOptions &o, QpmEnv &env) {
  StimulusOptions so;
  so.qps = o.qps;
  so.illegal_rate = o.illegal_rate;
  so.qps_per_page = large_qpn_space(o) ? 32 : 0;
  RandomStimulus stim(env.rng(), env.model(), so);
  if (large_qpn_space(o)) env.map_pages(stim.pages());
  SimResult r;
  env.scoreboard().set_coverage(&r.coverage);
  const auto t0 = std::chrono::steady_clock::now();
  const uint64_t c0 = env.tb().cycles();
  env.run_stream(o.cmds, [&] { return stim.next(); });
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.cycles = env.tb().cycles() - c0;
  r.problems = env.final_check();
  env.scoreboard().set_coverage(nullptr);
  r.counters = env.read_counters();
  r.coverage.sample_counters(kCounterNames, r.counters);
  return r;
}

}  // namespace qpm
