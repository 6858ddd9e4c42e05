#include "sim_run.h"

#include "replacement.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <stdexcept>

#include "dp_stimulus.h"
#include "random_stimulus.h"
#include "script.h"

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
  app.add_option("--evict-policy", o.evict_policy,
                 "the QP cache's replacement policy, written to EVICT_POLICY")
      ->check(CLI::IsMember({"plru", "lru", "random", "trap"}))
      ->capture_default_str();
  app.add_option("--trap-latency", o.trap_latency,
                 "trap: cycles the eviction-trap agent takes to answer (it also answers a "
                 "wrong way 10% of the time and never 5%)")
      ->check(CLI::Range(0u, 100000u))
      ->capture_default_str();
  app.add_flag("--mem-interleave", o.mem_interleave,
               "memory interleaves the R beats of bursts with different IDs");
  app.add_flag("--mem-aw-waits-for-w", o.mem_aw_waits_for_w,
               "memory holds AWREADY until it has the burst's first W beat (AXI4 allows it)");
  app.add_option("--mem-backpressure", o.mem_backpressure,
                 "chance a memory ready/valid is held low in a cycle")
      ->check(CLI::Range(0.0, 0.95));
  // Below 1: a walk sends every failed read again until memory answers it.
  app.add_option("--mem-read-error-rate", o.mem_read_error_rate,
                 "chance a memory read burst answers SLVERR (a walk reads again; a failed "
                 "context read makes a live QP fatal)")
      ->check(CLI::Range(0.0, 0.9));
  // Below 1: every failed write is sent again until memory takes it.
  app.add_option("--mem-write-error-rate", o.mem_write_error_rate,
                 "chance a memory write burst answers SLVERR (the write is retried)")
      ->check(CLI::Range(0.0, 0.9));
  app.add_option("--dp-rate", o.dp_rate,
                 "share of datapath operations among everything sent (0: commands only)")
      ->check(CLI::Range(0.0, 0.95));
  app.add_option("--db-rate", o.db_rate, "share of doorbells among everything sent")
      ->check(CLI::Range(0.0, 0.5));
  app.add_option("--dp-illegal-rate", o.dp_illegal_rate,
                 "share of datapath operations and doorbells broken on purpose")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--dp-idle", o.dp_idle,
                 "chance of an idle cycle before a datapath operation or doorbell")
      ->check(CLI::Range(0.0, 0.95));
  app.add_option("--dp-rsp-stall", o.dp_rsp_stall, "chance of dp_rsp_ready low in a cycle")
      ->check(CLI::Range(0.0, 0.95));
  app.add_option("--eqe-stall", o.eqe_stall, "chance of eqe_ready low in a cycle")
      ->check(CLI::Range(0.0, 0.95));
  app.add_option("--cqe-stall", o.cqe_stall, "chance of cqe_ready low in a cycle")
      ->check(CLI::Range(0.0, 0.95));
}

SimOptions qpm_sim_defaults() {
  SimOptions o;
  o.dp_rate = 0.8;
  o.db_rate = 0.05;
  o.dp_idle = 0.05;
  o.dp_rsp_stall = 0.1;
  o.eqe_stall = 0.2;
  o.cqe_stall = 0.2;
  return o;
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
      "--mem-read-error-rate {} --mem-write-error-rate {} --dp-rate {} --db-rate {} "
      "--dp-illegal-rate {} --dp-idle {} --dp-rsp-stall {} --eqe-stall {} --cqe-stall {}",
      program, o.config, o.seed, o.cmds, o.qps, o.qpn_limit, o.illegal_rate, o.cmd_idle,
      o.rsp_stall, o.csr_stall, o.mem_latency, o.mem_backpressure, o.mem_read_error_rate,
      o.mem_write_error_rate, o.dp_rate, o.db_rate, o.dp_illegal_rate, o.dp_idle, o.dp_rsp_stall, o.eqe_stall, o.cqe_stall);
  if (o.mem_reorder) line += " --mem-reorder";
  if (o.evict_policy != "plru") line += " --evict-policy " + o.evict_policy;
  if (o.evict_policy == "trap") line += fmt::format(" --trap-latency {}", o.trap_latency);
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
  e.evict_policy = o.evict_policy == "lru"      ? static_cast<uint32_t>(EvictPolicy::Lru)
                   : o.evict_policy == "random" ? static_cast<uint32_t>(EvictPolicy::Random)
                   : o.evict_policy == "trap"   ? static_cast<uint32_t>(EvictPolicy::Trap)
                                                : static_cast<uint32_t>(EvictPolicy::Plru);
  e.trap.latency = o.trap_latency;
  e.trap.seed = o.seed ^ 0x7a9;
  e.mem.interleave = o.mem_interleave;
  e.mem.aw_waits_for_w = o.mem_aw_waits_for_w;
  e.mem.backpressure = o.mem_backpressure;
  e.mem.read_error_rate = o.mem_read_error_rate;
  e.mem.write_error_rate = o.mem_write_error_rate;
  e.dp_idle_prob = o.dp_idle;
  e.dp_rsp_stall_prob = o.dp_rsp_stall;
  e.eqe_stall_prob = o.eqe_stall;
  e.cqe_stall_prob = o.cqe_stall;
  return e;
}

namespace {

// The random run with datapath traffic. Items are drawn one after another: a datapath
// operation with probability dp_rate, a doorbell with db_rate, else a command; the run
// ends after o.cmds commands. Each kind has its own stream and they run side by side:
// the datapath port gets every operation drawn since the last command as fast as it
// takes them. What keeps them sound (docs/verification.md): a QP command goes only to
// a QPN with no datapath operation or doorbell in flight, and neither goes to a QPN with
// a command in flight; a doorbell goes only to a QPN with nothing in flight and keeps
// it to itself until resolved; MAP/UNMAP_PAGE and PORT_FAULT wait until the datapath
// is idle and hold it idle until answered.
void run_mixed(const SimOptions &o, QpmEnv &env, RandomStimulus &stim) {
  constexpr size_t kCmdDepth = 2;       // commands queued or in flight, as run_stream
  constexpr size_t kDpInFlight = 48;    // datapath operations sent and not answered
  constexpr size_t kDpQueued = 4;       // ... of which waiting for the port
  std::mt19937_64 &rng = env.dp_rng();
  DpStimulusOptions dso;
  dso.illegal_rate = o.dp_illegal_rate;
  DpStimulus dps(rng, env.model(), stim.qpns(), dso);
  auto command_ok = [&](uint32_t qpn) {
    return env.dp_in_flight(qpn) == 0 && !env.doorbell_pending(qpn);
  };
  // With the order of doorbells and operations known, both go to a QPN freely (only not
  // beside a command); else a doorbell keeps its QPN to itself until resolved.
  const bool ordered = env.doorbell_order_known();
  auto dp_ok = [&](uint32_t qpn) {
    return env.commands_in_flight(qpn) == 0 && (ordered || !env.doorbell_pending(qpn));
  };
  auto db_ok = [&](uint32_t qpn) {
    return env.commands_in_flight(qpn) == 0 && !env.doorbell_pending(qpn) &&
           (ordered || env.dp_in_flight(qpn) == 0);
  };
  stim.set_filter(command_ok);
  std::discrete_distribution<int> kind({o.dp_rate, o.db_rate, 1.0 - o.dp_rate - o.db_rate});

  uint64_t cmds = 0, owed_dp = 0, owed_db = 0;
  bool cmd_drawn = false;  // the kind draws have reached the next command
  std::optional<Command> held;  // a global command waiting for the datapath to go idle
  uint64_t last_progress = env.tb().cycles(), seen = 0;
  auto traffic = [&] {
    return env.commands_in_flight() + env.dp_in_flight() + env.doorbells_pending() > 0;
  };
  while (cmds < o.cmds || held || owed_dp || owed_db || traffic()) {
    // Draw kinds until the next command: what comes before it is owed to the datapath.
    while (cmds < o.cmds && !cmd_drawn) {
      switch (kind(rng)) {
        case 0: ++owed_dp; break;
        case 1: ++owed_db; break;
        default: cmd_drawn = true; break;
      }
    }
    const bool global_busy = held || env.global_commands_in_flight() > 0;
    // Commands: keep kCmdDepth queued or in flight, on QPNs free of datapath traffic.
    if (cmd_drawn && !held && env.commands_in_flight() < kCmdDepth &&
        std::any_of(stim.qpns().begin(), stim.qpns().end(), command_ok)) {
      const Command c = stim.next();
      ++cmds;
      cmd_drawn = false;
      if (RandomStimulus::is_global(c)) {
        held = c;
      } else {
        env.push_command(c);
      }
    }
    if (held && env.dp_in_flight() == 0 && env.doorbells_pending() == 0 &&
        env.commands_in_flight() < kCmdDepth) {
      env.push_command(*held);
      held.reset();
    }
    // Datapath operations, as fast as the port takes them.
    while (owed_dp > 0 && !global_busy && env.dp_queued() < kDpQueued &&
           env.dp_in_flight() < kDpInFlight) {
      const std::optional<uint32_t> qpn = dps.pick_qpn(dp_ok);
      if (!qpn) break;
      env.push_dp(dps.op(*qpn, env.dp_in_flight(*qpn) + env.doorbell_pending(*qpn)));
      --owed_dp;
    }
    if (owed_db > 0 && !global_busy && env.doorbells().awaiting_counter() == 0) {
      if (const std::optional<uint32_t> qpn = dps.pick_qpn(db_ok, true)) {
        env.push_doorbell(dps.doorbell(*qpn, env.dp_in_flight(*qpn)));  // none pending
        --owed_db;
      }
    }
    env.tb().tick();
    if (env.tb().assertion_failed()) return;
    if (env.progress() != seen) {
      seen = env.progress();
      last_progress = env.tb().cycles();
    }
    if (env.tb().cycles() - last_progress > env.command_timeout()) {
      for (const Command &c : env.commands_pending()) spdlog::error("in flight: {}", format_command(c));
      throw std::runtime_error(fmt::format(
          "timeout: no progress for {} cycles ({} commands, {} datapath operations, {} "
          "doorbells in flight, {} completions owed, flush engine {})",
          env.command_timeout(), env.commands_in_flight(), env.dp_in_flight(),
          env.doorbells_pending(), env.cqes().outstanding(),
          env.tb().dut().flush_busy() ? "busy" : "idle"));
    }
  }
  env.drain();
}

}  // namespace

SimResult run_random(const SimOptions &o, QpmEnv &env) {
  StimulusOptions so;
  so.qps = o.qps;
  so.illegal_rate = o.illegal_rate;
  so.qps_per_page = large_qpn_space(o) ? 32 : 0;
  RandomStimulus stim(env.rng(), env.model(), so);
  if (large_qpn_space(o)) env.map_pages(stim.pages());
  SimResult r;
  env.set_coverage(&r.coverage);
  const auto t0 = std::chrono::steady_clock::now();
  const uint64_t c0 = env.tb().cycles();
  if (o.dp_rate <= 0.0 && o.db_rate <= 0.0) {
    env.run_stream(o.cmds, [&] { return stim.next(); });
  } else {
    run_mixed(o, env, stim);
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.cycles = env.tb().cycles() - c0;
  r.problems = env.final_check();
  env.set_coverage(nullptr);
  r.counters = env.read_counters();
  r.coverage.sample_counters(kCounterNames, r.counters);
  return r;
}

}  // namespace qpm
