#include "sim_run.h"

#include "replacement.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <set>
#include <stdexcept>

#include "dma_engine.h"
#include "dp_stimulus.h"
#include "random_stimulus.h"
#include "script.h"
#include "transport_run.h"

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
  app.add_option("--mem-dead-pages", o.mem_dead_pages,
                 "QP-table pages (drawn from the seed once mapped) whose every write answers "
                 "SLVERR for the whole run: their write-backs are given up once "
                 "WB_RETRY_BUDGET tries have failed, and their live QPs made fatal (syndrome 11)")
      ->check(CLI::Range(0u, 1u << 18));
  app.add_option("--wb-retry-budget", o.wb_retry_budget,
                 "WB_RETRY_BUDGET to program: tries of a failing write-back before it is "
                 "given up (0: retry forever; not given: the hardware's 0)")
      ->check(CLI::Range(0, 255));
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
  app.add_option("--eqe-hold", o.eqe_hold,
                 "cycles eqe_ready stays low after each EQE taken: a consumer that drains "
                 "rarely, so the EQ fills and stays full (0: none)")
      ->check(CLI::Range(0u, 100000u));
  app.add_option("--reset-stress", o.reset_stress,
                 "chance a command is a MODIFY to RESET or a DESTROY of a QP with work in "
                 "flight, beside its traffic (the random mix: with a DMA engine's bursts; needs --dp-rate > 0)")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--traffic", o.traffic,
                 "what drives the datapath: transport (connected QP pairs run by a loopback "
                 "transport model) or random (the random mix of operations and doorbells)")
      ->check(CLI::IsMember({"transport", "random"}))
      ->capture_default_str();
  app.add_option("--pairs", o.pairs,
                 "transport: connected QP pairs (at most --qps / 2; 0: an eighth of the "
                 "cache's lines, 4 to 32)")
      ->check(CLI::Range(0u, 4096u))
      ->capture_default_str();
  app.add_option("--hostile-rate", o.hostile_rate,
                 "transport: share of datapath operations drawn from the random mix (QPs "
                 "that do not exist, stale epochs, bad op codes) on QPNs outside the pairs")
      ->check(CLI::Range(0.0, 0.9))
      ->capture_default_str();
  app.add_option("--flush-storm", o.flush_storm,
                 "transport, pressure: chance per cycle of a doorbell on a QP in ERR or SQE "
                 "outside the pairs (flush work renewed while its flush runs)")
      ->check(CLI::Range(0.0, 0.5))
      ->capture_default_str();
  app.add_option("--meet-rate", o.meet_rate,
                 "transport: chance that a free command slot goes to a QUERY, a MODIFY RTS -> "
                 "RTS or a PIN/UNPIN to a running pair's QP beside its traffic (on top of --cmds)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  app.add_option("--loss", o.loss, "transport: chance a packet is lost on the fabric")
      ->check(CLI::Range(0.0, 0.5))
      ->capture_default_str();
  app.add_option("--dup", o.dup, "transport: chance a packet is delivered twice")
      ->check(CLI::Range(0.0, 0.5))
      ->capture_default_str();
  app.add_option("--reorder", o.reorder,
                 "transport: chance a packet is overtaken by the ones behind it")
      ->check(CLI::Range(0.0, 0.5))
      ->capture_default_str();
  app.add_option("--peer-nak", o.peer_nak,
                 "transport: chance a peer answers a message with a fatal NAK (RX_NAK)")
      ->check(CLI::Range(0.0, 0.5))
      ->capture_default_str();
  app.add_option("--short-rq", o.short_rq,
                 "transport: share of QPs whose software posts receives late (RNR)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  app.add_option("--bad-qkey", o.bad_qkey, "transport: chance a UD send carries a wrong Q_Key")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  app.add_option("--access-fault", o.access_fault,
                 "transport: share of RC QPs brought up without one remote access flag")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  app.add_option("--local-err", o.local_err,
                 "transport: chance a UC/UD send WQE is a READ (LOCAL_ERR, the QP to SQE)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  app.add_option("--reset-timeout", o.reset_timeout,
                 "RESET_TIMEOUT: cycles a reset waits for its DMAs (0: the hardware's 4096)")
      ->check(CLI::Range(0u, 65535u));
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
  if (o.reset_stress > 0.0) line += fmt::format(" --reset-stress {}", o.reset_stress);
  if (o.reset_timeout != 0) line += fmt::format(" --reset-timeout {}", o.reset_timeout);
  if (o.eqe_hold != 0) line += fmt::format(" --eqe-hold {}", o.eqe_hold);
  if (o.mem_dead_pages != 0) line += fmt::format(" --mem-dead-pages {}", o.mem_dead_pages);
  if (o.wb_retry_budget >= 0) line += fmt::format(" --wb-retry-budget {}", o.wb_retry_budget);
  line += " --traffic " + o.traffic;
  if (o.traffic == "transport") {
    line += fmt::format(
        " --pairs {} --hostile-rate {} --loss {} --dup {} --reorder {} --peer-nak {} "
        "--short-rq {} --bad-qkey {} --access-fault {} --local-err {}",
        o.pairs, o.hostile_rate, o.loss, o.dup, o.reorder, o.peer_nak, o.short_rq, o.bad_qkey,
        o.access_fault, o.local_err);
    if (o.flush_storm > 0.0) line += fmt::format(" --flush-storm {}", o.flush_storm);
    line += fmt::format(" --meet-rate {}", o.meet_rate);
  }
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
  e.mem_dead_pages = o.mem_dead_pages;
  if (o.wb_retry_budget >= 0) e.wb_retry_budget = static_cast<uint32_t>(o.wb_retry_budget);
  // Every page is mapped at start (below 65536): the dead ones are drawn among them.
  if (const DutConfig *cfg = find_dut_config(o.config); cfg && e.map_all_pages) {
    const uint32_t pages = o.qpn_limit >> cfg->params.page_bits;
    if (o.mem_dead_pages > pages) {
      throw std::invalid_argument(fmt::format(
          "--mem-dead-pages {}: more than the {} QP-table pages a QPN_LIMIT of {} maps",
          o.mem_dead_pages, pages, o.qpn_limit));
    }
  }
  e.dp_idle_prob = o.dp_idle;
  e.dp_rsp_stall_prob = o.dp_rsp_stall;
  e.eqe_stall_prob = o.eqe_stall;
  e.cqe_stall_prob = o.cqe_stall;
  e.eqe_hold = o.eqe_hold;
  e.reset_timeout = o.reset_timeout;
  // Resets under stress go beside datapath traffic; a command-only run has none.
  if (o.traffic == "transport" && o.qps < 2) {
    throw std::invalid_argument("--traffic transport needs --qps 2 or more (a pair of QPs)");
  }
  if (o.reset_stress > 0.0 && o.traffic != "transport" && o.dp_rate <= 0.0 && o.db_rate <= 0.0) {
    throw std::invalid_argument("--reset-stress needs datapath traffic (--dp-rate > 0)");
  }
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
//
// Under --reset-stress a drawn command is, with that chance, a MODIFY to RESET or a
// DESTROY of a live QP sent whatever its datapath operations: it needs no quiet QPN, and
// operations (a DMA engine's DMA_ENDs above all) keep going to its QPN while it waits;
// the reset fence (reset_fence.h) places it among them from the answers. Its QPN takes
// no other command and no doorbell until the fence lets go.
void run_mixed(const SimOptions &o, QpmEnv &env, RandomStimulus &stim, SimResult &result) {
  constexpr size_t kCmdDepth = 2;       // commands queued or in flight, as run_stream
  constexpr size_t kDpInFlight = 48;    // datapath operations sent and not answered
  constexpr size_t kDpQueued = 4;       // ... of which waiting for the port
  std::mt19937_64 &rng = env.dp_rng();
  DpStimulusOptions dso;
  dso.illegal_rate = o.dp_illegal_rate;
  const bool stress = o.reset_stress > 0.0;
  dso.dma_brackets = !stress;  // under stress the DMA engine brackets its bursts
  DpStimulus dps(rng, env.model(), stim.qpns(), dso);
  DmaEngine dma(rng, DmaEngineOptions{});
  std::set<uint32_t> stress_resets;  // QPNs with a stress reset sent, until the fence lets go
  auto fence_free = [&](uint32_t qpn) {
    return !env.reset_fence().busy(qpn) && stress_resets.count(qpn) == 0;
  };
  auto command_ok = [&](uint32_t qpn) {
    return env.dp_in_flight(qpn) == 0 && !env.doorbell_pending(qpn) && fence_free(qpn);
  };
  // With the order of doorbells and operations known, both go to a QPN freely (only not
  // beside a command); else a doorbell keeps its QPN to itself until resolved.
  const bool ordered = env.doorbell_order_known();
  auto dp_ok = [&](uint32_t qpn) {
    return (env.commands_in_flight(qpn) == 0 || stress_resets.count(qpn) != 0) &&
           (ordered || !env.doorbell_pending(qpn));
  };
  auto db_ok = [&](uint32_t qpn) {
    return env.commands_in_flight(qpn) == 0 && !env.doorbell_pending(qpn) &&
           (ordered || env.dp_in_flight(qpn) == 0) && fence_free(qpn);
  };
  // A stress reset's target: a live QP with no command or doorbell of its own in flight,
  // mostly one with a DMA burst open (the reset then waits for its DMA_END).
  std::bernoulli_distribution busy_draw(0.7);
  auto stress_target = [&]() -> std::optional<uint32_t> {
    std::vector<uint32_t> live, busy;
    for (uint32_t qpn : stim.qpns()) {
      if (env.commands_in_flight(qpn) == 0 && !env.doorbell_pending(qpn) && fence_free(qpn) &&
          env.model().qpc_address(qpn) && env.model().qpc(qpn).valid) {
        live.push_back(qpn);
        if (dma.open(qpn) != 0) busy.push_back(qpn);
      }
    }
    const std::vector<uint32_t> &from = !busy.empty() && busy_draw(rng) ? busy : live;
    if (from.empty()) return std::nullopt;
    return from[std::uniform_int_distribution<size_t>(0, from.size() - 1)(rng)];
  };
  std::bernoulli_distribution stress_draw(o.reset_stress), destroy_draw(0.3), dma_draw(0.2);
  stim.set_filter(command_ok);
  std::discrete_distribution<int> kind({o.dp_rate, o.db_rate, 1.0 - o.dp_rate - o.db_rate});

  uint64_t cmds = 0, owed_dp = 0, owed_db = 0;
  bool cmd_drawn = false;  // the kind draws have reached the next command
  bool stress_next = false;  // ... and it is a stress reset
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
        default:
          cmd_drawn = true;
          stress_next = stress && stress_draw(rng);
          break;
      }
    }
    const bool global_busy = held || env.global_commands_in_flight() > 0;
    for (auto it = stress_resets.begin(); it != stress_resets.end();) {
      if (env.commands_in_flight(*it) == 0 && !env.reset_fence().busy(*it)) {
        it = stress_resets.erase(it);
      } else {
        ++it;
      }
    }
    // A stress reset instead of the drawn command.
    if (stress_next && cmd_drawn && !held && env.commands_in_flight() < kCmdDepth) {
      stress_next = false;  // with no QP to reset, an ordinary command instead
      if (const std::optional<uint32_t> qpn = stress_target()) {
        env.push_command(stress_reset_command(*qpn, destroy_draw(rng)));
        stress_resets.insert(*qpn);
        ++cmds;
        cmd_drawn = false;
      }
    }
    // Commands: keep kCmdDepth queued or in flight, on QPNs free of datapath traffic.
    if (cmd_drawn && !stress_next && !held && env.commands_in_flight() < kCmdDepth &&
        std::any_of(stim.qpns().begin(), stim.qpns().end(), command_ok)) {
      const Command c = stim.next();
      ++cmds;
      cmd_drawn = false;
      if (RandomStimulus::is_global(c)) {
        held = c;
      } else {
        // Under stress an ordinary reset is one too: the DMA_ENDs it waits for may go.
        const bool stressed = stress && ResetFence::is_reset(c) && c.qpn <= kPsnMask &&
                              env.commands_in_flight(c.qpn) == 0;
        env.push_command(c);
        if (stressed) stress_resets.insert(c.qpn);
      }
    }
    // (not behind a stress reset: it could wait for DMA_ENDs the held datapath keeps back)
    if (held && env.dp_in_flight() == 0 && env.doorbells_pending() == 0 && stress_resets.empty() &&
        env.commands_in_flight() < kCmdDepth) {
      env.push_command(*held);
      held.reset();
    }
    // The DMA engine's DMA_ENDs that are due go whatever the draws owe: a reset may be
    // waiting for them while the command stream stands still.
    while (stress && !global_busy && env.dp_queued() < kDpQueued && env.dp_in_flight() < kDpInFlight) {
      const std::optional<DpRequest> end = dma.take_due(env.tb().cycles(), dp_ok);
      if (!end) break;
      env.push_dp(*end);
    }
    // Datapath operations, as fast as the port takes them.
    while (owed_dp > 0 && !global_busy && env.dp_queued() < kDpQueued &&
           env.dp_in_flight() < kDpInFlight) {
      // Under stress, now and then a burst begins.
      std::optional<DpRequest> dma_op;
      if (stress && dma_draw(rng)) {
        const auto usable = [&](uint32_t qpn) { return dp_ok(qpn) && dma.can_begin(qpn); };
        if (const std::optional<uint32_t> qpn = dps.pick_qpn(usable)) {
          const uint32_t epoch = env.model().qpc_address(*qpn) ? env.model().qpc(*qpn).epoch : 0;
          dma_op = dma.begin(*qpn, epoch, env.tb().cycles());
        }
      }
      if (dma_op) {
        env.push_dp(*dma_op);
        --owed_dp;
        continue;
      }
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
  result.dma_begun = dma.begun();
  result.dma_ended = dma.ended();
  result.dma_never = dma.abandoned();
}

}  // namespace

Command stress_reset_command(uint32_t qpn, bool destroy) {
  Command c;
  c.qpn = qpn;
  if (destroy) {
    c.op = Opcode::DestroyQp;
  } else {
    c.op = Opcode::ModifyQp;
    c.attr_mask = attr::kState;
    c.qp_state = static_cast<uint32_t>(QpState::Reset);
  }
  return c;
}

SimResult run_random(const SimOptions &o, QpmEnv &env) {
  StimulusOptions so;
  so.qps = o.qps;
  so.illegal_rate = o.illegal_rate;
  so.qps_per_page = large_qpn_space(o) ? 32 : 0;
  RandomStimulus stim(env.rng(), env.model(), so);
  if (large_qpn_space(o)) env.map_pages(stim.pages());
  SimResult r;
  FuncCoverage *outer = env.coverage();  // the directed tests' (QpmEnv::set_suite_coverage)
  env.set_coverage(&r.coverage);
  const auto t0 = std::chrono::steady_clock::now();
  const uint64_t c0 = env.tb().cycles();
  if (o.traffic == "transport") {
    run_transport(o, env, stim, r);
  } else if (o.dp_rate <= 0.0 && o.db_rate <= 0.0) {
    env.run_stream(o.cmds, [&] { return stim.next(); });
  } else {
    run_mixed(o, env, stim, r);
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.cycles = env.tb().cycles() - c0;
  r.problems = env.final_check();
  env.set_coverage(outer);
  r.counters = env.read_counters();
  r.coverage.sample_counters(kCounterNames, r.counters);
  if (outer) outer->merge(r.coverage);
  return r;
}

}  // namespace qpm
