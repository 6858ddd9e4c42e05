// Memory write errors through qpm_top (issue 8, docs/qp-cache.md section 10): a write of a
// QPC (a victim's write-back or a SYNC_CACHE write) or of a directory entry answered
// BRESP SLVERR is sent again until memory answers OKAY, so no context is ever lost and no
// answer shows the error. A directed case on the tiny configuration, where nearly every
// command evicts a dirty line, with half of all writes failing; and random runs with
// write (and read) errors on both configurations. Each ends with the memory image after
// SYNC_CACHE against the model and the counters WB_RETRIES = write errors injected.
#include <fmt/format.h>

#include <string>
#include <utility>

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
  // The random stream draws a PORT_FAULT about once in 2000 commands, so whether a seed
  // draws one moves with the RTL's timing (a command is drawn when a slot frees). Each
  // seed from the base on must pass every check; the first that draws a PORT_FAULT ends
  // the search, and one of the first eight must (seed fixing after every timing change
  // until 2026-12-06: default 833, tiny 826, 800, 804).
  const uint64_t base = config == "tiny" ? 800 : 833;
  bool port_fault_seen = false;
  for (uint64_t seed = base; seed < base + 8 && !port_fault_seen; ++seed) {
    SimOptions o = qpm_sim_defaults();  // commands, datapath operations and doorbells
    o.seed = seed;
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
    // Failed context reads made live QPs fatal (docs/events.md, "Memory faults"); no
    // datapath operation failed for memory; a PORT_FAULT's QPs add their QP_FATALs.
    auto events = env.events().counts();
    CHECK(env.qps_made_fatal() > 0);
    CHECK(env.dp_scoreboard().expected_drops(DropReason::MemErr) == 0);
    if (events[EventType::PortErr] > 0) {
      port_fault_seen = true;
      CHECK(events[EventType::QpFatal] > env.qps_made_fatal());
    }
  }
  CHECK(port_fault_seen);
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

// Issue 27 item 3, write faults: the two knobs of qpm_sim survive the replay line, and
// more dead pages than the run maps is bad input.
TEST_CASE("the write-fault knobs of qpm_sim replay and too many dead pages is refused",
          "[mem_faults]") {
  SimOptions o;
  o.mem_dead_pages = 3;
  o.wb_retry_budget = 0;  // retry forever, written all the same
  const std::string line = replay_line(o);
  CHECK(line.find(" --mem-dead-pages 3") != std::string::npos);
  CHECK(line.find(" --wb-retry-budget 0") != std::string::npos);
  SimOptions back;
  CLI::App app;
  add_sim_options(app, back);
  app.parse(line.substr(line.find(' ') + 1));
  CHECK(replay_line(back) == line);
  const EnvOptions e = env_options(back);
  CHECK(e.mem_dead_pages == 3);
  REQUIRE(e.wb_retry_budget);
  CHECK(*e.wb_retry_budget == 0);
  // Not given: neither is in the line, and the budget is not written.
  CHECK(replay_line(SimOptions{}).find("dead-pages") == std::string::npos);
  CHECK(replay_line(SimOptions{}).find("retry-budget") == std::string::npos);
  CHECK_FALSE(env_options(SimOptions{}).wb_retry_budget);
  // QPN_LIMIT 4096 maps 64 pages at start.
  o.mem_dead_pages = 64;
  CHECK_NOTHROW(env_options(o));
  o.mem_dead_pages = 65;
  CHECK_THROWS_AS(env_options(o), std::invalid_argument);
  CHECK_THROWS_AS(app.parse("--wb-retry-budget 256"), CLI::ValidationError);
}

// Issue 27 item 3, write faults (docs/errors.md, "Write faults in the harness";
// docs/qp-cache.md section 20).
TEST_CASE("a write-back given up makes its QP fatal with syndrome 11 and its neighbours work on",
          "[wb_fault]") {
  EnvOptions o;  // default: 64 sets x 4 ways, every page of QPN_LIMIT 4096 mapped
  o.seed = 2707;
  o.mem.latency_min = 20;
  o.mem.latency_max = 40;
  o.mem_dead_pages = 1;  // drawn among the 64 mapped pages
  QpmEnv env(o);
  env.write_csr(csr::kWbRetryBudget, 2);
  REQUIRE(env.read_csr(csr::kWbRetryBudget) == 2);
  REQUIRE(env.dead_pages().size() == 1);
  const uint64_t dead = env.dead_pages()[0];
  REQUIRE(env.memory().page_dead(dead));
  const uint32_t page = static_cast<uint32_t>((dead - kFirstPage) / 4096);
  REQUIRE(env.model().dir_entry(page).page_address == dead);
  const uint32_t rc = static_cast<uint32_t>(QpType::RC);
  // The victim lives on the dead page; four more QPs of its set (qpn % 64) on the pages
  // after it, healthy, push its line out of the 4-way set.
  const uint32_t victim = (page << 6) | 5;
  std::vector<uint32_t> set_mates;
  for (uint32_t k = 1; k <= 5; ++k) set_mates.push_back((((page + k) % 64) << 6) | 5);
  const uint32_t healthy = set_mates[0];
  INFO("dead page " << std::hex << dead << ", victim qpn " << victim);

  walk_to(env, victim, rc, QpState::Rts);  // its line is dirty: nothing written back yet
  REQUIRE(env.ring(sq_db(victim, 3)));     // WQEs the fault must flush
  REQUIRE(env.ring(rq_db(victim, 2)));
  walk_to(env, healthy, rc, QpState::Rts);
  env.events().take_arrivals();
  for (size_t i = 1; i < set_mates.size(); ++i) {
    REQUIRE(env.execute(create_cmd(set_mates[i], rc)).status == Status::Ok);
  }
  // The victim's write-back fails (its page refuses every write), is retried twice and
  // given up: the RTL's notice puts the fault into the model.
  for (uint64_t waited = 0; env.write_fault_notices() == 0 && waited < 400000; waited += 100) {
    env.run_cycles(100);
  }
  REQUIRE(env.write_fault_notices() >= 1);
  env.drain();
  CHECK(env.memory().dead_page_write_errors() >= 2);  // tried WB_RETRY_BUDGET times at least

  // Exactly one QP_FATAL of the victim, syndrome 11 (kWbFatal); its five WQEs flushed.
  std::vector<Event> fatal;
  for (const Event &e : env.events().take_arrivals()) {
    if (!e.is_port && e.qpn == victim && e.type == EventType::QpFatal) fatal.push_back(e);
  }
  REQUIRE(fatal.size() == 1);
  CHECK(fatal[0].syndrome == syndrome::kWbFatal);
  CHECK(int(fatal[0].syndrome) == 11);
  auto completions = env.cqes().counts();
  CHECK(completions[WcStatus::WrFlushErr] >= 5);
  CHECK(csr_counter(env, "wb_given_up") >= 1);

  // The context was kept: QUERY_QP answers OK, in ERR, as the model says.
  const Response q = env.execute(query_cmd(victim));
  CHECK(q.status == Status::Ok);
  CHECK(q.qpc.state == static_cast<uint32_t>(QpState::Err));
  CHECK(Scoreboard::difference(env.last_expected(), q).empty());

  // A QP on a healthy page works on: commands and datapath operations as the model says.
  REQUIRE(env.ring(sq_db(healthy, 2)));
  CHECK(env.execute_dp(tx(healthy, MsgClass::Send)).verdict == Verdict::Issue);
  CHECK(env.execute_dp(tx(healthy, MsgClass::Send)).verdict == Verdict::Issue);
  const Response h = env.execute(query_cmd(healthy));
  CHECK(h.status == Status::Ok);
  CHECK(h.qpc.state == static_cast<uint32_t>(QpState::Rts));
  CHECK(Scoreboard::difference(env.last_expected(), h).empty());
  for (size_t i = 1; i < set_mates.size(); ++i) {
    CHECK(env.execute(query_cmd(set_mates[i])).status == Status::Ok);
  }

  // Destroyed, the victim leaves no valid QP on the dead page, but memory still refuses
  // its newest context (the destroyed one, kept on chip): the page cannot be handed back,
  // so UNMAP_PAGE answers RES_BUSY and the entry stays (docs/qp-table.md). A healthy
  // page of no QP goes.
  REQUIRE(env.execute(qpn_cmd(Opcode::DestroyQp, victim)).status == Status::Ok);
  Command unmap;
  unmap.op = Opcode::UnmapPage;
  unmap.dir_index = page;
  CHECK(env.execute(unmap).status == Status::ResBusy);
  CHECK(env.model().dir_entry(page).valid);
  unmap.dir_index = (page + 32) % 64;  // no QP of this test lives there
  CHECK(env.execute(unmap).status == Status::Ok);

  Command sync;
  sync.op = Opcode::SyncCache;
  CHECK(env.execute(sync).status == Status::Ok);
  CHECK(env.scoreboard().mismatches() == 0);
  CHECK(env.dp_scoreboard().mismatches() == 0);
  CHECK(env.events().mismatches() == 0);
  require_clean(env);  // the image but the dead page, counters, events, completions
}

// Two dead pages under random traffic, on both configurations. On `tiny` (2 x 2 lines,
// 2 write-back entries) the contexts memory refuses stay on chip, held in buffer entries
// or in lines: 40 QPs over 64 pages keep the dead ones per set below what the set and
// the buffer hold (denser runs can fill a set with them, and then its other QPs wait:
// docs/qp-cache.md section 20). Every seed gives up hundreds of write-backs. The dead
// pages come from a generator of their own (QpmEnv), so the RTL's timing does not move
// them. Each seed found a fault when it was added (the runs were different then: the
// pages were drawn from the generator the run's timing moves): `tiny` 7 and 11 timed
// out (two dead QPs of one set swapping through its ways and the buffer; notices by the
// thousand for QPs already fatal), `tiny` 10 unmapped a dead page whose QPs were all
// destroyed (RES_BUSY: memory refused their newest contexts). `default` 3 timed out on a
// SYNC: a write-back was given up in the cycle a newer context of its QPN came into the
// buffer, which then waited behind it for an answer that never came (qpm_wb_buffer's
// same_gu). `tiny` 8 replaces 11, whose dead pages hold no QP now. `default` 5 is the
// one that still makes that race once the line state moved to RAM (seed 3 no longer
// does: mutant 49 survived it). `tiny` 12 replaces 10, whose dead pages hold no QP
// once `tiny`'s directory cache became direct-mapped (2026-12-05). `tiny` 5 replaces 2, whose
// dead pages took no write once the miss registers' pick was registered (2026-12-06).
// `default` 13 makes the give-up race again once the directory cache's valid bits moved
// into its RAM (2026-12-06: seeds 3 and 5 no longer kill mutant 49; 13 and 38 of 1-40 do).
// `tiny` 20 makes a SYNC re-arm land while a miss waits on a given-up entry (mutant 48,
// RetEntryThere_A; of `tiny` 1-45, 20 and 45 do). `tiny` 45 replaces 20 since the parking
// port (2026-12-06): 20 now meets the known dead-page wedge (docs/qp-cache.md section 21).
TEST_CASE("random traffic with two dead pages has zero mismatches", "[wb_fault][system]") {
  const auto run = GENERATE(std::make_pair(std::string("tiny"), 5u),
                            std::make_pair(std::string("tiny"), 7u),
                            std::make_pair(std::string("tiny"), 12u),
                            std::make_pair(std::string("tiny"), 8u),
                            std::make_pair(std::string("tiny"), 45u),
                            std::make_pair(std::string("default"), 3u),
                            std::make_pair(std::string("default"), 5u),
                            std::make_pair(std::string("default"), 13u));
  const std::string config = run.first;
  SimOptions o = qpm_sim_defaults();  // commands, datapath operations and doorbells
  o.config = config;
  o.traffic = "random";
  o.mem_dead_pages = 2;
  o.wb_retry_budget = 2;
  o.seed = run.second;
  if (config == "tiny") {
    o.cmds = 2000;
    o.qps = 40;
  } else {
    o.cmds = 3000;
  }
  INFO("replay: " << replay_line(o));
  QpmEnv env(env_options(o));
  REQUIRE(env.dead_pages().size() == 2);
  const SimResult r = run_random(o, env);
  for (const auto &p : r.problems) UNSCOPED_INFO(p);
  REQUIRE(r.problems.empty());  // the image but the dead pages, counters, events
  CHECK(env.scoreboard().mismatches() == 0);
  CHECK(env.dp_scoreboard().mismatches() == 0);
  CHECK(env.events().mismatches() == 0);
  CHECK(env.cqes().mismatches() == 0);
  CHECK(env.memory().dead_page_write_errors() > 0);
  // Hundreds of write-backs given up; a QP made fatal once is not announced again (its
  // later contexts are held in the buffer), so far fewer notices, and held contexts are
  // taken back by the misses of their QPNs.
  CHECK(r.counters[counter_index("wb_given_up")] > 100);
  CHECK(env.write_fault_notices() > 0);
  CHECK(r.counters[counter_index("wb_given_up")] >= env.write_fault_notices());
  CHECK(env.take_backs() > 0);
  CHECK(r.counters[counter_index("wb_retries")] == env.memory().injected_write_errors());
  CHECK(r.counters[counter_index("ev_qp_fatal")] > 0);
}
