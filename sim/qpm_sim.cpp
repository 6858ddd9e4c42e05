// qpm_sim: runs qpm_top against the golden model, randomly or from a script.
//
//   qpm_sim                       the default randomized run (seed printed first): commands,
//                                 datapath operations and doorbells mixed
//   qpm_sim --seed 7 --cmds 20000 --qps 500
//   qpm_sim --dp-rate 0 --db-rate 0   commands only
//   qpm_sim --script walk.qpm     replay a script (SPEC.md §13)
//
// Exits 0 when every response, verdict and event matched the model, 1 on any mismatch,
// RTL assertion, protocol violation, lost or extra event or counter disagreement, 2 on
// bad input (CLI or script).
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>

#include "datapath.h"
#include "dut.h"
#include "qpm_env.h"
#include "script.h"
#include "script_runner.h"
#include "sim_run.h"

namespace {

int report_random(const qpm::SimOptions &o, qpm::QpmEnv &env, const std::string &program,
                  const std::string &fcov_path) {
  const qpm::SimResult r = qpm::run_random(o, env);
  const auto &sb = env.scoreboard();
  const auto &counters = r.counters;
  fmt::print("qpm_sim: config {}, seed {}, {} QPs\n", o.config, o.seed, o.qps);
  fmt::print("  commands    {}\n", sb.checked());
  for (const auto &[status, n] : sb.status_counts()) {
    fmt::print("    {:<13}{}\n", qpm::status_name(status), n);
  }
  const auto &dp = env.dp_scoreboard();
  if (dp.checked() > 0 || env.doorbells().posted() + env.doorbells().refused() > 0) {
    fmt::print("  datapath    {} operations\n", dp.checked());
    for (const auto &[verdict, n] : dp.verdict_counts()) {
      fmt::print("    {:<13}{}\n", qpm::to_string(verdict), n);
    }
    fmt::print("  drops      ");
    for (int i = 1; i < qpm::kNumDropReasons; ++i) {
      const auto reason = static_cast<qpm::DropReason>(i);
      fmt::print(" {}={}", qpm::to_string(reason), dp.expected_drops(reason));
    }
    fmt::print("\n  doorbells   {} posted, {} refused\n", env.doorbells().posted(),
               env.doorbells().refused());
    fmt::print("  mem faults  {} QPs made fatal by a failed context read\n", env.qps_made_fatal());
    fmt::print("  events     ");
    for (const auto &[type, n] : env.events().counts()) {
      fmt::print(" {}={}", qpm::to_string(type), n);
    }
    fmt::print(" ({} delivered)\n", env.events().delivered());
    fmt::print("  completions");
    for (const auto &[status, n] : env.cqes().counts()) {
      fmt::print(" {}={}", qpm::to_string(status), n);
    }
    fmt::print(" ({} delivered, {} owed when a reset stopped the flush)\n",
               env.cqes().delivered(), env.cqes().cut_off());
  }
  if (r.transport) {
    fmt::print("  transport   {} pairs: {} WQEs posted, {} issued (RC {} READ, {} ATOMIC; {} "
               "acknowledged), {} packets ({} lost, {} duplicated, {} reordered), {} WQEs sent "
               "again, {} acknowledgements, {} DMAs, {} SQ drains (RTS -> SQD -> RTS), {} pairs "
               "brought up again, {} resets beside traffic, {} commands beside traffic ({} met "
               "their QP's operations)\n",
               r.tp_pairs, r.tp_wqes_posted, r.tp_wqes_issued, r.tp_reads_issued,
               r.tp_atomics_issued, r.tp_reads_acked, r.tp_packets, r.tp_lost, r.tp_duplicated,
               r.tp_reordered, r.tp_retransmits, r.tp_acks, r.tp_dmas, r.tp_sq_drains, r.tp_recoveries,
               r.tp_stress_resets, r.tp_side_commands, r.tp_side_met);
  }
  if (o.reset_stress > 0.0) {
    auto count = [&](const char *name) { return counters[qpm::counter_index(name)]; };
    fmt::print("  resets      resets_waited={} resets_forced={} stale_dropped={} quiesce_dropped={} "
               "(placed by the answers {}, judged after their QP's traffic {})\n",
               count("resets_waited"), count("resets_forced"), count("drop_stale"),
               count("drop_quiesce"), env.reset_fence().placed_by_answers(),
               env.reset_fence().deferred());
    fmt::print("  dma bursts  {} begun, {} ended, {} never ended\n", r.dma_begun, r.dma_ended,
               r.dma_never);
  }
  if (o.mem_dead_pages > 0 || env.write_fault_notices() > 0) {
    std::string pages;
    for (uint64_t page : env.dead_pages()) pages += fmt::format(" {:#x}", page);
    fmt::print("  dead pages {} ({} writes refused there; {} write-backs given up, {} of them "
               "told to the harness)\n",
               pages.empty() ? std::string(" none") : pages, env.memory().dead_page_write_errors(),
               counters[qpm::counter_index("wb_given_up")], env.write_fault_notices());
  }
  fmt::print("  mismatches  {}\n", sb.mismatches() + dp.mismatches() + env.events().mismatches() +
                                       env.cqes().mismatches());
  fmt::print("  cycles      {}\n", r.cycles);
  fmt::print("  dp rate     {:.3f} datapath operations per cycle\n",
             r.cycles ? static_cast<double>(dp.checked()) / static_cast<double>(r.cycles) : 0.0);
  fmt::print("  speed       {:.1f} kHz simulated ({:.2f} s)\n",
             r.seconds > 0 ? r.cycles / r.seconds / 1000.0 : 0.0, r.seconds);
  const uint64_t hits = counters[0], misses = counters[1], merged = counters[2];
  const uint64_t lookups = hits + misses + merged;
  fmt::print("  hit rate    {:.1f}% of {} lookups\n",
             lookups ? 100.0 * static_cast<double>(hits) / static_cast<double>(lookups) : 0.0,
             lookups);
  fmt::print("  counters   ");
  for (size_t i = 0; i < counters.size(); ++i) {
    fmt::print(" {}={}", qpm::kCounterNames[i], counters[i]);
  }
  const qpm::MemoryTraffic &t = env.traffic();
  fmt::print("\n  memory      {} reads ({} directory), {} writes ({} directory), {} read errors "
             "injected\n",
             t.dir_reads + t.qpc_reads, t.dir_reads, t.dir_writes + t.qpc_writes, t.dir_writes,
             t.dir_read_errors + t.qpc_read_errors);
  fmt::print("  cross-check counters = memory traffic {}\n",
             env.counter_check().empty() ? "exact" : "DIFFER");
  const auto unhit = r.coverage.unhit();
  fmt::print("  coverage    {} of {} functional bins hit\n", r.coverage.bins().size() - unhit.size(),
             r.coverage.bins().size());
  for (const auto &[name, n] : r.coverage.undeclared()) {
    fmt::print("    hit outside the coverage plan: {} ({})\n", name, n);
  }
  if (!fcov_path.empty()) {
    std::ofstream out(fcov_path);
    out << r.coverage.to_json() << "\n";
    if (!out) {
      fmt::print(stderr, "qpm_sim: cannot write --fcov {}: {}\n", fcov_path, std::strerror(errno));
      return 2;
    }
  }
  fmt::print("  final image {}\n", r.problems.empty() ? "matches the model (after SYNC_CACHE)"
                                                      : "PROBLEMS");
  for (const auto &p : r.problems) fmt::print("    {}\n", p);
  if (!r.problems.empty()) {
    fmt::print("FAIL. Reproduce with:\n  {}\n", qpm::replay_line(o, program));
    for (const auto &m : sb.first_mismatches()) {
      fmt::print("  command #{}: {}\n{}", m.index, qpm::format_command(m.cmd), m.difference);
    }
    for (const auto &m : dp.first_mismatches()) {
      fmt::print("  datapath operation #{}: {}\n{}", m.index, qpm::format_dp_request(m.req),
                 m.difference);
    }
    return 1;
  }
  fmt::print("PASS\n");
  return 0;
}

// The trace file must be writable before the run starts, not silently missing after it.
bool trace_writable(const std::string &path) {
  std::ofstream probe(path, std::ios::app);
  return static_cast<bool>(probe);
}

}  // namespace

int main(int argc, char **argv) {
  qpm::SimOptions o = qpm::qpm_sim_defaults();
  o.traffic = "transport";  // qpm_sim's own default (docs/verification.md)
  std::string log_level = "warn", trace, script, fcov;
  CLI::App app{"qpm_sim: qpm_top (Verilator) checked against the golden model"};
  app.failure_message(CLI::FailureMessage::help);  // a bad flag prints the usage
  qpm::add_sim_options(app, o);
  app.add_option("--log-level", log_level, "spdlog level")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "critical", "off"}));
  app.add_option("--trace", trace, "write an FST waveform to this file");
  uint64_t trace_from = 0;
  app.add_option("--trace-from", trace_from, "first cycle the FST waveform holds (with --trace)");
  app.add_option("--script", script, "replay a script instead of a random run")
      ->check(CLI::ExistingFile);
  app.add_option("--fcov", fcov, "write the functional coverage bins of the run as JSON");
  CLI11_PARSE(app, argc, argv);
  // More QPs than the default table holds: use the whole 24-bit QPN space.
  if (app.count("--qpn-limit") == 0 && o.qps > o.qpn_limit - 2) o.qpn_limit = 1u << 24;
  if (app.count("--seed") == 0) {
    o.seed = std::random_device{}() ^ (uint64_t{std::random_device{}()} << 32);
  }
  if (!trace.empty() && !trace_writable(trace)) {
    fmt::print(stderr, "qpm_sim: --trace {}: cannot write there: {}\n", trace, std::strerror(errno));
    return 2;
  }
  spdlog::set_level(spdlog::level::from_str(log_level));
  spdlog::set_pattern("[%l] %v");

  qpm::EnvOptions eo;
  try {
    eo = qpm::env_options(o);
  } catch (const std::invalid_argument &e) {
    fmt::print(stderr, "{}\n{}", e.what(), app.help());
    return 2;
  }
  eo.trace_path = trace;
  eo.trace_from = trace_from;
  const std::string program = argv[0];
  if (script.empty()) {
    // The seed first, so a run that hangs or crashes can still be replayed.
    fmt::print("qpm_sim: seed {}; replay with:\n  {}\n", o.seed, qpm::replay_line(o, program));
    std::fflush(stdout);
    if (o.qps > o.qpn_limit - 2) {
      fmt::print(stderr, "--qps {} exceeds the {} usable QPNs below --qpn-limit {}\n", o.qps,
                 o.qpn_limit - 2, o.qpn_limit);
      return 2;
    }
  } else {
    eo.cmd_idle_prob = eo.rsp_stall_prob = 0.0;
    eo.dp_idle_prob = eo.dp_rsp_stall_prob = eo.eqe_stall_prob = 0.0;
  }

  try {
    qpm::QpmEnv env(eo);
    if (script.empty()) return report_random(o, env, program, fcov);
    std::ifstream in(script);
    const qpm::ScriptResult r = qpm::run_script(env, in, std::cout);
    if (!r.error.empty()) {
      fmt::print(stderr, "{}: {}\n", script, r.error);  // "walk.qpm: line 3: ..."
      return 2;
    }
    const std::vector<std::string> problems = env.final_check();
    for (const auto &p : problems) fmt::print(stderr, "{}: {}\n", script, p);
    if (env.tb().assertion_failed() || !problems.empty()) return 1;
    if (r.mismatches) {
      fmt::print(stderr, "{}: {} answer(s) differ from the golden model\n", script, r.mismatches);
      return 1;
    }
    return 0;
  } catch (const std::exception &e) {
    fmt::print(stderr, "qpm_sim: {}\nReproduce with:\n  {}\n", e.what(),
               qpm::replay_line(o, program));
    return 1;
  }
}
