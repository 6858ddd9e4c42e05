// Memory write errors through qpm_top (issue 8, docs/qp-cache.md section 10): a write of a
// QPC (a victim's write-back or a SYNC_CACHE write) or of a directory entry answered
// BRESP SLVERR is sent again until memory answers OKAY, so no context is ever lost and no
// answer shows the error. A directed case on the tiny configuration, where nearly every
// command evicts a dirty line, with half of all writes failing; and random runs with
// write (and read) errors on both configurations. Each ends with the memory image after
// SYNC_CACHE against the model and the counters WB_RETRIES = write errors injected.
#include <fmt/format.h>

#include "sim_run.h"
#include "test_helpers.h"

using namespace qpm;
using namespace qpm::test;

namespace {

uint32_t counter(QpmEnv &env, const char *name) { return env.read_counters()[counter_index(name)]; }

void require_clean(QpmEnv &env) {
  const auto problems = env.final_check();
  for (const auto &p : problems)
    UNSCOPED_INFO(p);
  REQUIRE(problems.empty());
}

}  // namespace

TEST_CASE("write errors at rate 0.5 while evicting and syncing lose no context", "[mem_faults]") {
  EnvOptions o;
  o.config = "tiny";  // 2 sets x 2 ways, 2 MSHRs
  o.seed = 81;
  o.mem.latency_min = 10;
  o.mem.latency_max = 60;
  o.mem.reorder = true;
  o.mem.write_error_rate = 0.5;  // from after the initial MAP_PAGEs on
  QpmEnv env(o);
  const uint32_t types[3] = {static_cast<uint32_t>(QpType::RC), static_cast<uint32_t>(QpType::UC),
                             static_cast<uint32_t>(QpType::UD)};
  // 40 QPs on pages 0..4: every one walked to RTS, four commands each, each command a
  // miss that evicts a dirty line; a SYNC_CACHE after every eighth.
  std::vector<uint32_t> qpns;
  for (uint32_t i = 0; i < 40; ++i)
    qpns.push_back(2 + 7 * i);
  Command sync;
  sync.op = Opcode::SyncCache;
  for (size_t i = 0; i < qpns.size(); ++i) {
    walk_to(env, qpns[i], types[i % 3], QpState::Rts);
    if (i % 8 == 7)
      REQUIRE(env.execute(sync).status == Status::Ok);
  }
  // Some QPs change again (ERR), some are destroyed (a lost write-back of an invalid
  // context would leave memory saying valid).
  for (size_t i = 0; i < qpns.size(); i += 5) {
    REQUIRE(env.execute(modify_cmd(qpns[i], attr::kState, static_cast<uint32_t>(QpState::Err)))
                .status == Status::Ok);
  }
  for (size_t i = 3; i < qpns.size(); i += 6) {
    REQUIRE(env.execute(qpn_cmd(Opcode::DestroyQp, qpns[i])).status == Status::Ok);
  }
  // MAP/UNMAP's directory write fails too, and is retried: a page of no QP, unmapped and
  // mapped again at another address.
  Command unmap;
  unmap.op = Opcode::UnmapPage;
  unmap.dir_index = 40;
  CHECK(env.execute(unmap).status == Status::Ok);
  Command map = unmap;
  map.op = Opcode::MapPage;
  map.page_address = 0x7000000000;
  CHECK(env.execute(map).status == Status::Ok);
  // Every context read back through QUERY_QP is the model's, field by field.
  for (uint32_t q : qpns) {
    const Response r = env.execute(qpn_cmd(Opcode::QueryQp, q));
    INFO("qpn " << q);
    CHECK(Scoreboard::difference(env.last_expected(), r).empty());
  }
  CHECK(env.scoreboard().mismatches() == 0);
  // SYNC_CACHE (still with write errors) and memory holds every QPC and directory entry.
  const auto image = env.memory_image_check();
  for (const auto &p : image)
    UNSCOPED_INFO(p);
  CHECK(image.empty());
  CHECK(env.scoreboard().status_counts().count(Status::IntErr) == 0);
  // The failed writes were many, and each one was sent again.
  CHECK(env.memory().injected_write_errors() > 30);
  CHECK(env.traffic().dir_write_errors + env.traffic().qpc_write_errors ==
        env.memory().injected_write_errors());
  CHECK(counter(env, "wb_retries") == env.memory().injected_write_errors());
  require_clean(env);  // also: no protocol violation, no RTL assertion, exact counters
}

// Issue 8's "done when": port faults, read errors and write errors together.
TEST_CASE("random runs with port faults and memory read and write errors have zero mismatches",
          "[mem_faults][system]") {
  const std::string config = GENERATE(as<std::string>{}, "default", "tiny");
  SimOptions o = qpm_sim_defaults();  // commands, datapath operations and doorbells
  // Seeds whose random stream draws a PORT_FAULT (about one command in 2000 is one);
  // the checks below fail if a timing change makes a seed lose it (tiny: 826, default:
  // 833 since the write-back buffer moved to RAM, 2026-12-04).
  o.seed = config == "tiny" ? 826 : 833;
  o.config = config;
  o.cmds = 2500;
  o.qps = config == "tiny" ? 40 : 400;  // more than the cache holds: contexts are re-read
  o.mem_latency = "20:60";
  o.mem_reorder = true;
  o.mem_read_error_rate = 0.02;
  o.mem_write_error_rate = 0.25;
  INFO("replay: " << replay_line(o));
  QpmEnv env(env_options(o));
  const SimResult r = run_random(o, env);
  for (const auto &p : r.problems)
    UNSCOPED_INFO(p);
  // Mismatches, the memory image after SYNC_CACHE, protocol, assertions, and the
  // counters: WB_RETRIES = write errors, WRITEBACKS = QPC writes answered OKAY.
  REQUIRE(r.problems.empty());
  CHECK(env.scoreboard().mismatches() == 0);
  CHECK(env.dp_scoreboard().mismatches() == 0);
  CHECK(env.traffic().qpc_write_errors > 20);
  CHECK(r.counters[counter_index("wb_retries")] == env.memory().injected_write_errors());
  CHECK(r.coverage.bins().at("cache.wb_retry") > 0);
  // The random stream sent PORT_FAULTs, and failed context reads made live QPs fatal
  // (docs/events.md, "Memory faults"); no datapath operation failed for memory.
  auto events = env.events().counts();
  CHECK(events[EventType::PortErr] > 0);
  CHECK(env.qps_made_fatal() > 0);
  CHECK(events[EventType::QpFatal] > env.qps_made_fatal());  // PORT_FAULT's as well
  CHECK(env.dp_scoreboard().expected_drops(DropReason::MemErr) == 0);
}

// The nightly's first failure in the 2^24 QPN space with read errors (2026-12-02, run
// 14 of make regress, docs/verification.md), kept as a replay: under plru it timed out
// (a MODIFY to ERR behind an overflow pass over 65,536 QPNs, issue 27 item 6), and with
// that fixed the harness judged two WRITEs the RTL accepted before a fill made their QP
// fatal as if they came after it (CommandPlacer::on_fatal_fill).
TEST_CASE("the nightly's tiny errors run in the 2^24 QPN space passes", "[mem_faults][system]") {
  SimOptions o = qpm_sim_defaults();
  o.traffic = "transport";
  o.config = "tiny";
  o.seed = 2009222625;
  o.cmds = 2000;
  o.qps = 4096;
  o.qpn_limit = 1u << 24;
  o.evict_policy = "plru";
  o.mem_latency = "20:60";
  o.mem_reorder = true;
  o.mem_read_error_rate = 0.02;
  o.mem_write_error_rate = 0.05;
  INFO("replay: " << replay_line(o));
  QpmEnv env(env_options(o));
  const SimResult r = run_random(o, env);
  for (const auto &p : r.problems) UNSCOPED_INFO(p);
  REQUIRE(r.problems.empty());
  CHECK(env.qps_made_fatal() > 0);
  CHECK(r.counters[counter_index("flush_overflows")] > 0);
}
