// The loopback transport model (tb/stim/transport.h) on its own, against the golden
// model with every answer at once (no RTL): does it speak the protocol it claims? On a
// perfect fabric a correct engine never draws a DROP, a NAK or a retry: every ACK counts
// only what was issued, every PSN is the one expected, every DMA carries its epoch. With
// faults on, each shows up as the verdict it should. Then, on the RTL, the numbers a
// default run must reach (issue: traffic a NIC would send).
#include <fmt/format.h>

#include <map>

#include "golden_model.h"
#include "qpm_env.h"
#include "sim_run.h"
#include "test_helpers.h"
#include "transport.h"

using namespace qpm;

namespace {

struct ModelRun {
  std::map<Verdict, uint64_t> verdicts;
  std::map<DropReason, uint64_t> drops;
  TransportModel::Stats stats;
  uint64_t ops = 0, commands_failed = 0, doorbells_refused = 0, sq_drained = 0;
};

// Runs the transport model for `cycles` against the golden model alone.
ModelRun run_on_model(const TransportOptions &opt, uint64_t seed, uint64_t cycles) {
  GoldenModel m;
  const Config &cfg = m.config();
  for (uint32_t i = 0; i < (cfg.qpn_limit >> cfg.page_bits); ++i) {
    Command map;
    map.op = Opcode::MapPage;
    map.dir_index = i;
    map.page_address = kFirstPage + uint64_t{i} * 4096;
    REQUIRE(m.execute(map).status == Status::Ok);
  }
  std::vector<uint32_t> qpns;
  for (uint32_t n = 0; n < 2 * opt.pairs; ++n) qpns.push_back(100 + 37 * n);
  std::mt19937_64 rng(seed);
  TransportModel tm(rng, qpns, opt, [](uint32_t) { return false; });
  auto view = [&](uint32_t qpn) {
    TransportModel::QpStatus st;
    const Qpc &q = m.qpc(qpn);
    st.exists = q.valid != 0;
    st.rts = st.exists && q.state == static_cast<uint32_t>(QpState::Rts);
    st.sqd = st.exists && q.state == static_cast<uint32_t>(QpState::Sqd);
    st.epoch = static_cast<uint8_t>(q.epoch);
    return st;
  };
  auto any = [](uint32_t) { return true; };
  ModelRun out;
  for (uint64_t now = 0; now < cycles; ++now) {
    tm.tick(now);
    tm.maintain(view, any);
    while (const std::optional<Command> c = tm.next_command(any)) {
      out.commands_failed += m.execute(*c).status != Status::Ok;
    }
    while (const std::optional<Doorbell> db = tm.next_doorbell(any)) {
      out.doorbells_refused += !m.doorbell(*db);
    }
    // The port's rate: one operation a cycle.
    if (const std::optional<DpRequest> r = tm.next_op(any)) {
      const DpResponse rsp = m.datapath(*r);
      ++out.ops;
      ++out.verdicts[rsp.verdict];
      if (rsp.verdict == Verdict::Drop) ++out.drops[rsp.drop];
      tm.on_answer(*r, rsp, now);
    }
    for (const Event &e : m.take_events()) out.sq_drained += e.type == EventType::SqDrained;
  }
  out.stats = tm.stats();
  return out;
}

TransportOptions perfect_fabric() {
  TransportOptions o;
  o.pairs = 12;
  o.loss = o.dup = o.reorder = o.peer_nak = 0.0;
  o.short_rq = o.bad_qkey = o.access_fault = o.local_err = 0.0;
  o.sqd_rate = 1e-4;  // SQ drains often: each must end in SQ_DRAINED and back in RTS
  return o;
}

// A run on the RTL whose final check must be clean.
SimResult run_clean(const SimOptions &o, QpmEnv &env) {
  const SimResult r = run_random(o, env);
  for (const auto &p : r.problems) UNSCOPED_INFO(p);
  REQUIRE(r.problems.empty());
  return r;
}

}  // namespace

TEST_CASE("transport model: on a perfect fabric every answer is one a correct engine expects",
          "[transport]") {
  const uint64_t seed = GENERATE(1, 2, 3);
  const ModelRun r = run_on_model(perfect_fabric(), seed, 60000);
  INFO("seed " << seed);
  CHECK(r.commands_failed == 0);
  CHECK(r.doorbells_refused == 0);  // software never overfills a queue
  CHECK(r.stats.recoveries == 0);
  for (const auto &[v, n] : r.verdicts) {
    INFO(to_string(v) << " " << n);
    // STALL: reads beyond max_rd_atomic wait, as an engine's would; EMPTY: the engine
    // asked before its doorbell's WQEs were there (never here: doorbells apply at once).
    CHECK((v == Verdict::Accept || v == Verdict::Issue || v == Verdict::Stall));
  }
  CHECK(r.verdicts.count(Verdict::Drop) == 0);
  CHECK(r.stats.sq_drains > 5);
  CHECK(r.sq_drained >= r.stats.sq_drains);  // every drain announced (RX_ACK or MODIFY_QP)
  // Real work: every pair issued, RC reads and atomics went out and were acknowledged.
  CHECK(r.stats.wqes_issued > 2000);
  CHECK(r.stats.reads_issued > 50);
  CHECK(r.stats.atomics_issued > 30);
  CHECK(r.stats.reads_acked > 80);
  CHECK(r.verdicts.at(Verdict::Issue) * 20 > r.ops);  // at least 5 % of operations
}

TEST_CASE("transport model: each fault shows up as its verdict, and never as a miscount",
          "[transport]") {
  TransportOptions o = perfect_fabric();
  o.loss = 0.01;
  o.dup = 0.01;
  o.reorder = 0.01;
  o.short_rq = 0.3;
  o.peer_nak = 0.002;
  o.bad_qkey = 0.05;
  o.access_fault = 0.2;
  o.local_err = 0.01;
  const ModelRun r = run_on_model(o, 7, 150000);
  for (Verdict v : {Verdict::Duplicate, Verdict::NakSeq, Verdict::Rnr, Verdict::Retry,
                    Verdict::Fatal, Verdict::NakAccess, Verdict::LocalErr}) {
    INFO(to_string(v));
    CHECK(r.verdicts.count(v) == 1);
  }
  CHECK(r.stats.lost > 0);
  CHECK(r.stats.retransmits > 0);
  CHECK(r.stats.recoveries > 0);  // broken pairs were reset and brought up again
  CHECK(r.commands_failed == 0);
  CHECK(r.doorbells_refused == 0);  // ... with the queues they were created with
  // Faults break QPs; the engine never sends what a correct engine would not: no count
  // beyond what is outstanding, no stale epoch, no unknown class.
  CHECK(r.drops.count(DropReason::Count) == 0);
  CHECK(r.drops.count(DropReason::Stale) == 0);
  CHECK(r.drops.count(DropReason::Opcode) == 0);
  CHECK(r.drops.count(DropReason::Qkey) == 1);  // the wrong Q_Keys were sent on purpose
}

TEST_CASE("transport traffic on the RTL reaches the hot path", "[transport][system]") {
  SimOptions o = qpm_sim_defaults();
  o.traffic = "transport";
  o.seed = 4242;
  o.cmds = 1500;
  o.qps = 400;
  INFO("replay: " << replay_line(o));
  QpmEnv env(env_options(o));
  const SimResult r = run_clean(o, env);
  const auto &dp = env.dp_scoreboard();
  const auto &v = dp.verdict_counts();
  auto count = [&](Verdict x) { return v.count(x) ? v.at(x) : 0; };
  const double ops = static_cast<double>(dp.checked());
  CHECK(ops / static_cast<double>(r.cycles) >= 0.3);  // the issue's floor
  CHECK(ops - count(Verdict::Drop) - count(Verdict::Empty) >= ops / 2);
  CHECK(count(Verdict::Issue) >= ops / 20);
  for (Verdict x : {Verdict::Retry, Verdict::NakSeq, Verdict::Duplicate}) {
    INFO(to_string(x));
    CHECK(count(x) > 0);
  }
  CHECK(r.tp_reads_issued > 0);
  CHECK(r.tp_atomics_issued > 0);
  CHECK(r.tp_reads_acked > 0);
  CHECK(r.counters[counter_index("resets_forced")] <= 10);
  // Coverage: nothing hit outside the plan; every operation on a QP that exists lands in
  // exactly one operation x type x state bin and one verdict x type bin.
  CHECK(r.coverage.undeclared().empty());
  uint64_t crossed = 0, by_verdict = 0;
  for (const auto &[name, n] : r.coverage.bins()) {
    if (name.rfind("dp_state.", 0) == 0) crossed += n;
    if (name.rfind("verdict_type.", 0) == 0) by_verdict += n;
  }
  CHECK(crossed > ops / 2);
  CHECK(crossed <= dp.checked());
  CHECK(by_verdict == crossed);
  CHECK(r.coverage.bins().at("dp_state.TX_WQE.RC.RTS") > 0);
  CHECK(r.coverage.bins().at("verdict_type.RETRY.RC") > 0);
}

TEST_CASE("a transport run's replay line reproduces it", "[transport][system]") {
  SimOptions o = qpm_sim_defaults();
  o.traffic = "transport";
  o.seed = 77;
  o.cmds = 300;
  o.loss = 0.01;
  o.pairs = 8;
  const std::string line = replay_line(o);
  SimOptions back;
  CLI::App app;
  add_sim_options(app, back);
  app.parse(line.substr(line.find(' ') + 1));
  CHECK(replay_line(back) == line);
  uint64_t first_cycles = 0;
  std::vector<uint32_t> first_counters;
  {
    QpmEnv env(env_options(o));
    const SimResult r = run_random(o, env);
    CHECK(r.problems.empty());
    first_cycles = r.cycles;
    first_counters = r.counters;
  }
  QpmEnv env(env_options(back));
  const SimResult again = run_random(back, env);
  CHECK(again.cycles == first_cycles);
  CHECK(again.counters == first_counters);
}

// Pressure (issue: traffic a NIC would send): the EQE consumer takes one event and then
// holds ready low for 3,000 cycles, so the 16-entry EQ fills and stays full while the
// pairs keep raising events (NAK_ACCESS from QPs brought up without an access flag). No
// event may be lost or doubled (the final check), the EQ must really have been full, and
// the datapath must not wait for it (SPEC §8).
TEST_CASE("transport traffic with the EQ full: nothing lost, the datapath keeps its rate",
          "[transport][system]") {
  SimOptions o = qpm_sim_defaults();
  o.traffic = "transport";
  o.seed = 8;
  o.cmds = 1500;
  o.qps = 256;
  o.eqe_hold = 3000;
  o.access_fault = 0.5;
  INFO("replay: " << replay_line(o));
  QpmEnv env(env_options(o));
  const SimResult r = run_clean(o, env);
  CHECK(r.counters[counter_index("eq_high_water")] == 16);  // the EQ's depth
  CHECK(env.events().delivered() > 100);
  CHECK(static_cast<double>(env.dp_scoreboard().checked()) / static_cast<double>(r.cycles) >= 0.3);
}

// Commands beside traffic (issue: traffic a NIC would send): software queries, modifies
// (RTS -> RTS), pins and unpins the pairs' QPs while their operations run. The command
// unit's lock keeps each command atomic among them; the placer (command_placer.h) puts
// it where the probes say the RTL ran it, and every answer on both sides must then be
// the model's. Command answers are held back half the time, so some arrive after
// operations that follow them, and operation answers too, so some arrive after the
// command they precede: both orders are seen.
TEST_CASE("commands beside their QP's traffic are placed where the lock ran them",
          "[transport][system]") {
  SimOptions o = qpm_sim_defaults();
  o.traffic = "transport";
  o.seed = GENERATE(31, 32);
  o.cmds = 800;
  o.qps = 64;
  o.pairs = 4;
  o.meet_rate = 0.6;
  o.rsp_stall = 0.5;
  o.dp_rsp_stall = 0.3;
  INFO("replay: " << replay_line(o));
  QpmEnv env(env_options(o));
  const SimResult r = run_clean(o, env);
  CHECK(r.tp_side_commands >= 200);
  CHECK(r.tp_side_met >= 20);
  for (const char *bin : {"busy.QUERY_QP", "busy.MODIFY_QP", "busy.PIN_QP", "busy.UNPIN_QP",
                          "placed.command_waited", "placed.ops_waited"}) {
    INFO(bin);
    CHECK(r.coverage.bins().at(bin) > 0);
  }
}
