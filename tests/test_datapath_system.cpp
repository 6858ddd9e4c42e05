// The datapath, doorbell and EQE ports of qpm_top against the golden model (SPEC §2, §6,
// §8, §12): random runs that mix commands, datapath operations and doorbells over many
// QPs, each printing the qpm_sim line that replays it; directed cases written from
// SPEC §6 (the two read/atomic limits apart, back-to-back operations on one QPN, a MODIFY
// racing datapath traffic on its QPN, a locked QPN's operations parked, SQ_DRAINED, SQE
// reached by traffic, a long response stall and a long EQE stall); the harness's own
// datapath checks shown to fail on a wrong answer; and the traffic script of SPEC §13
// against its expected output, written by hand from SPEC §6.
#include <fmt/format.h>

#include <fstream>
#include <map>
#include <sstream>

#include "port_codec.h"
#include "script.h"
#include "script_runner.h"
#include "sim_run.h"
#include "test_helpers.h"

using namespace qpm;
using namespace qpm::test;

namespace {

constexpr uint32_t kRc = 2, kUc = 3, kUd = 4;

SimOptions mixed_seed(uint64_t seed, const std::string &config) {
  SimOptions o;
  o.seed = seed;
  o.config = config;
  o.cmds = 2500;
  o.qps = config == "tiny" ? 24 : 96;
  o.cmd_idle = 0.1;
  o.rsp_stall = 0.2;
  o.csr_stall = 0.1;
  o.mem_latency = "20:60";
  o.mem_reorder = seed % 2 == 0;
  o.mem_interleave = seed % 2 == 1;
  o.dp_rate = 0.8;
  o.db_rate = 0.06;
  o.dp_idle = 0.05;
  o.dp_rsp_stall = 0.2;
  o.eqe_stall = 0.3;
  return o;
}

// The attribute values of the QPs below: valid_attributes(), with the access flags, the
// two read/atomic depths, the PSNs and the retry counts the traffic is written for.
Command traffic_attrs() {
  Command a = valid_attributes();
  a.qp_access_flags = access::kRemoteWrite | access::kRemoteRead | access::kRemoteAtomic;
  a.max_rd_atomic = 4;
  a.max_dest_rd_atomic = 4;
  a.rq_psn = 100;
  a.sq_psn = 200;
  a.retry_cnt = 2;
  a.rnr_retry = 1;
  return a;
}

// Create qpn and move it RESET -> INIT -> RTR [-> RTS] with traffic_attrs()' values.
void bring_up(QpmEnv &env, uint32_t qpn, uint32_t type, QpState target,
              const Command &a = traffic_attrs()) {
  walk_to(env, qpn, type, target, a);
}

void require_clean(QpmEnv &env) {
  const auto problems = env.final_check();
  for (const auto &p : problems)
    UNSCOPED_INFO(p);
  REQUIRE(problems.empty());
}

std::vector<std::string> lines_of(const std::string &text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string l; std::getline(ss, l);)
    out.push_back(l);
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------------
// Random mixed traffic

TEST_CASE("random runs mixing commands, datapath operations and doorbells match the model",
          "[datapath][system]") {
  const std::string config = GENERATE(as<std::string>{}, "default", "tiny");
  // (RETRY is rare: a TIMEOUT with retries left on an RC QP with sends outstanding; seed
  // 601 stopped producing one when fatal event steps began to age past the datapath;
  // 606 replaced 602 on 2026-12-01, 608 replaced 606 on 2026-12-02 when the ports became
  // registered; 609 replaced 608 on 2026-12-04 when a miss register was kept for write
  // faults; now it is required over both seeds, below; 611 replaced 609 on 2026-12-07
  // when the miss registers got two scheduler lanes. 611 must stay last.)
  const uint64_t seed = GENERATE(603, 611);
  const SimOptions o = mixed_seed(seed, config);
  INFO("replay: " << replay_line(o));
  QpmEnv env(env_options(o));
  const SimResult r = run_random(o, env);
  for (const auto &p : r.problems)
    UNSCOPED_INFO(p);
  REQUIRE(r.problems.empty());  // verdicts, events, doorbells, QPCs, image, counters
  const auto &dp = env.dp_scoreboard();
  CHECK(dp.checked() > 3000);
  CHECK(env.events().delivered() > 20);
  CHECK(env.doorbells().posted() > 20);
  CHECK(env.doorbells().refused() > 0);
  // Every verdict but the rarest came up, and the streams were back-pressured.
  for (Verdict v : {Verdict::Accept, Verdict::Duplicate, Verdict::Drop, Verdict::NakSeq,
                    Verdict::Issue, Verdict::Empty}) {
    INFO(to_string(v));
    CHECK(dp.verdict_counts().count(v) == 1);
  }
  // RETRY over the two seeds of a configuration, not in each: its seeds kept changing
  // with timing (603 lost it on default on 2026-12-02, when a command's flush began to
  // go first); the transport runs meet it hundreds of times.
  static std::map<std::string, uint64_t> retries;
  const auto retry = dp.verdict_counts().find(Verdict::Retry);
  retries[config] += retry == dp.verdict_counts().end() ? 0 : retry->second;
  if (seed == 611) CHECK(retries[config] > 0);
  CHECK(env.streams().dp_rsp().stalls() > 100);
  CHECK(env.streams().eqe().stalls() > 0);
  CHECK(env.streams().dp_req().handshakes() == dp.checked());
  // Traffic reached the states only hardware enters.
  const auto &bins = r.coverage.bins();
  CHECK(bins.at("dp.TX_WQE.LOCAL_ERR") + bins.at("dp.RX_REQ.NAK_ACCESS") +
            bins.at("dp.RX_REQ.NAK_INVALID") + bins.at("dp.TIMEOUT.FATAL") >
        0);
}

TEST_CASE(
    "random datapath traffic with memory read errors: no operation fails, a QP whose "
    "context read failed is made fatal",
    "[datapath][system]") {
  SimOptions o = mixed_seed(611, "default");
  o.mem_read_error_rate = 0.03;
  o.cmds = 800;
  o.qps = 400;  // more than the cache holds: contexts are read again and again
  INFO("replay: " << replay_line(o));
  QpmEnv env(env_options(o));
  const SimResult r = run_random(o, env);
  for (const auto &p : r.problems)
    UNSCOPED_INFO(p);
  REQUIRE(r.problems.empty());
  // A walk reads again until it succeeds (docs/events.md, "Memory faults"): no DROP
  // MEM_ERR, and the live QPs whose context read failed went to ERR with QP_FATAL.
  CHECK(env.memory().injected_read_errors() > 20);
  CHECK(env.dp_scoreboard().expected_drops(DropReason::MemErr) == 0);
  CHECK(env.qps_made_fatal() > 0);
  CHECK(env.events().counts()[EventType::QpFatal] >= env.qps_made_fatal());  // PORT_FAULT's too
}

TEST_CASE("a replay line with the datapath knobs reproduces its run cycle for cycle",
          "[datapath][system]") {
  SimOptions o = mixed_seed(7, "tiny");
  o.cmds = 300;
  const std::string line = replay_line(o);
  SimOptions back;
  CLI::App app;
  add_sim_options(app, back);
  app.parse(line.substr(line.find(' ') + 1));
  CHECK(replay_line(back) == line);
  auto run = [](const SimOptions &opt, uint64_t *dp_ops) {
    QpmEnv env(env_options(opt));
    SimResult r = run_random(opt, env);
    *dp_ops = env.dp_scoreboard().checked();
    return r;
  };
  uint64_t first_ops = 0, again_ops = 0;
  const SimResult first = run(o, &first_ops);
  const SimResult again = run(back, &again_ops);
  CHECK(first.problems.empty());
  CHECK(again.cycles == first.cycles);
  CHECK(again.counters == first.counters);
  CHECK(again_ops == first_ops);
  CHECK(again.coverage.bins() == first.coverage.bins());
}

// ---------------------------------------------------------------------------------
// Directed, from SPEC §6

TEST_CASE("the two read/atomic limits are independent through the RTL", "[datapath]") {
  EnvOptions eo;
  eo.seed = 21;
  QpmEnv env(eo);
  Command a = traffic_attrs();
  a.max_rd_atomic = 2;       // this QP as requester: two reads outstanding
  a.max_dest_rd_atomic = 1;  // as responder: one incoming read at a time
  bring_up(env, 0x40, kRc, QpState::Rts, a);
  REQUIRE(env.ring(sq_db(0x40, 4)));
  // Outgoing: two READs issue, the third STALLs (nothing changes).
  CHECK(env.execute_dp(tx(0x40, MsgClass::Read)).verdict == Verdict::Issue);
  CHECK(env.execute_dp(tx(0x40, MsgClass::Read)).verdict == Verdict::Issue);
  CHECK(env.execute_dp(tx(0x40, MsgClass::Read)).verdict == Verdict::Stall);
  // Incoming: the responder's own limit, untouched by the two outstanding reads.
  CHECK(env.execute_dp(rx(0x40, MsgClass::Read, PktPos::Only, 100)).verdict == Verdict::Accept);
  const DpResponse second = env.execute_dp(rx(0x40, MsgClass::Read, PktPos::Only, 101));
  CHECK(second.verdict == Verdict::NakInvalid);
  const Response q = env.execute(qpn_cmd(Opcode::QueryQp, 0x40));
  CHECK(q.qpc.state == static_cast<uint32_t>(QpState::Err));
  CHECK(q.qpc.rd_atomic_outstanding == 2);
  CHECK(q.qpc.dest_rd_atomic_inflight == 1);
  CHECK(q.qpc.err_syndrome == syndrome::kNakInvalid);
  // The flush completed the four posted send WQEs (a responder-side error names no WQE:
  // all WR_FLUSH_ERR), two of them issued, so they count as issued and completed.
  CHECK(q.qpc.sq_issued == 4);
  CHECK(q.qpc.sq_ci == 4);
  const auto cqes = env.cqes().take_arrivals();
  REQUIRE(cqes.size() == 4);
  for (uint16_t i = 0; i < 4; ++i)
    CHECK(cqes[i] == Cqe{0x100 + 0x40, 0x40, false, i, WcStatus::WrFlushErr});
  const auto events = env.events().take_arrivals();
  REQUIRE(events.size() == 1);
  CHECK(events[0] == Event{false, 0x40, EventType::QpReqErr, syndrome::kNakInvalid});
  require_clean(env);
}

TEST_CASE("back-to-back operations on one QPN, at the port's full rate", "[datapath]") {
  EnvOptions eo;
  eo.seed = 22;
  QpmEnv env(eo);
  bring_up(env, 0x41, kRc, QpState::Rts);
  REQUIRE(env.ring(rq_db(0x41, 32)));
  env.execute(qpn_cmd(Opcode::QueryQp, 0x41));  // the line is cached
  // 32 SENDs with consecutive PSNs, a duplicate and one ahead in the middle, pushed
  // at once: each must see the one before it.
  const uint64_t t0 = env.tb().cycles();
  for (uint32_t i = 0; i < 32; ++i) {
    env.push_dp(rx(0x41, MsgClass::Send, PktPos::Only, 100 + i));
    if (i == 10)
      env.push_dp(rx(0x41, MsgClass::Send, PktPos::Only, 100 + i));  // DUPLICATE
    if (i == 20)
      env.push_dp(rx(0x41, MsgClass::Write, PktPos::Only, 100 + i + 2));  // NAK_SEQ
  }
  env.drain();
  const uint64_t cycles = env.tb().cycles() - t0;
  const auto &dp = env.dp_scoreboard();
  CHECK(dp.verdict_counts().at(Verdict::Accept) == 32);
  CHECK(dp.verdict_counts().at(Verdict::Duplicate) == 1);
  CHECK(dp.verdict_counts().at(Verdict::NakSeq) == 1);
  const Response q = env.execute(qpn_cmd(Opcode::QueryQp, 0x41));
  CHECK(q.qpc.expected_psn == 132);
  CHECK(q.qpc.rq_ci == 32);
  CHECK(q.qpc.comm_est_seen == 0);  // accepted in RTS: no COMM_EST
  // SPEC §11: a hit takes one operation per cycle, same QPN back to back included.
  CHECK(env.streams().dp_req().stalls() <= 4);
  WARN(fmt::format("34 operations on one QPN answered in {} cycles, {} request stalls", cycles,
                   env.streams().dp_req().stalls()));
  require_clean(env);
}

// SPEC §11, docs/datapath.md "Commands and the lock": a MODIFY reads the QPC, decides and
// writes it back cycles later; datapath operations on its QPN must be neither lost under
// that write nor see a half-done modify. The modify here (RTS -> RTS) writes only fields
// no datapath operation reads (alternate path, migration state, RNR timer), and the
// operations change only fields a modify RTS -> RTS never writes, so every order of the
// two ends in one QPC, which the test states by itself (and final_check compares every
// QPC in memory with the model's). The command is pushed at every position of a burst of
// operations that runs at the port's full rate, on a cached line and, in the tiny
// configuration, on one just evicted (the burst's first operation misses).
TEST_CASE("a MODIFY racing datapath traffic on its QPN loses no update", "[datapath][race]") {
  constexpr uint32_t kOps = 24;  // per burst: 12 RX WRITE and 12 TX SEND, alternating
  for (const std::string config : {"default", "tiny"}) {
    EnvOptions eo;
    eo.seed = 31;
    eo.config = config;
    QpmEnv env(eo);
    const bool evict = config == "tiny";
    unsigned raced = 0, bursts = 0;
    uint32_t qpn = 0x60;
    bring_up(env, 0x1f0, kRc, QpState::Rtr);  // the bystander
    for (uint32_t at : {0u, 1u, 2u, 4u, 7u, 11u, 16u, 23u}) {
      ++qpn;
      bring_up(env, qpn, kRc, QpState::Rts);  // expected_psn 100, next_send_psn 200
      REQUIRE(env.ring(sq_db(qpn, kOps / 2)));
      // The doorbell pins keep the last doorbell's QPN; a bystander's makes sure the lock
      // is checked against the datapath request, not against whatever else is on a port.
      REQUIRE(env.ring(rq_db(0x1f0, 1)));
      if (evict) {
        // Four other QPs fill the tiny cache's four lines: qpn's line leaves.
        for (uint32_t other = 0x200; other < 0x204; ++other) {
          if (!env.model().qpc(other).valid)
            bring_up(env, other, kRc, QpState::Init);
          env.execute(qpn_cmd(Opcode::QueryQp, other));
        }
      }
      Command modify = modify_cmd(qpn, attr::kAltPath | attr::kPathMigState | attr::kMinRnrTimer,
                                  static_cast<uint32_t>(QpState::Rts));
      modify.attr_mask |= attr::kState;
      modify.alt_av = {0x0bad, 3, 2};
      modify.alt_timeout = 21 + (qpn & 3);
      modify.path_mig_state = 2;
      modify.min_rnr_timer = 7;
      for (uint32_t i = 0; i < kOps; ++i) {
        if (i == at)
          env.push_command(modify);
        if (i % 2 == 0)
          env.push_dp(rx(qpn, MsgClass::Write, PktPos::Only, 100 + i / 2));
        else
          env.push_dp(tx(qpn, MsgClass::Send));
      }
      // Did the command finish while operations of its burst were still unanswered?
      bool answered = false;
      for (uint64_t c = 0; c < 20000 && !answered; ++c) {
        env.run_cycles(1);
        if (env.commands_in_flight(qpn) == 0) {
          answered = true;
          if (env.dp_in_flight(qpn) > 0 && env.dp_in_flight(qpn) < kOps)
            ++raced;
        }
      }
      REQUIRE(answered);
      env.drain();
      ++bursts;
      const Response q = env.execute(qpn_cmd(Opcode::QueryQp, qpn));
      REQUIRE(q.status == Status::Ok);
      INFO("config " << config << ", MODIFY pushed before operation " << at);
      // Every operation's update ...
      CHECK(q.qpc.expected_psn == 100 + kOps / 2);
      CHECK(q.qpc.next_send_psn == 200 + kOps / 2);
      CHECK(q.qpc.sq_issued == kOps / 2);
      // ... and the modify's.
      CHECK(q.qpc.state == static_cast<uint32_t>(QpState::Rts));
      CHECK(q.qpc.alt_av_dlid == 0x0bad);
      CHECK(q.qpc.alt_timeout == modify.alt_timeout);
      CHECK(q.qpc.path_mig_state == 2);
      CHECK(q.qpc.min_rnr_timer == 7);
    }
    const auto &dp = env.dp_scoreboard();
    CHECK(dp.verdict_counts().at(Verdict::Accept) == bursts * kOps / 2);
    CHECK(dp.verdict_counts().at(Verdict::Issue) == bursts * kOps / 2);
    // The test is only worth something if the command met the burst: most positions must.
    WARN(fmt::format("{}: {} of {} modifies answered with operations of their burst in flight",
                     config, raced, bursts));
    CHECK(raced >= bursts / 2);
    require_clean(env);
  }
}

namespace {
// Sends a CREATE_QP of a QPN never touched and runs until the command unit holds its
// lock: its read misses, so the lock lasts a memory round trip.
void create_and_wait_for_lock(QpmEnv &env, uint32_t qpn) {
  env.push_command(create_cmd(qpn, kRc));
  for (uint64_t waited = 0;
       env.tb().dut().command_lock() != std::optional<uint32_t>(qpn) && waited < 2000; ++waited)
    env.run_cycles(1);
  REQUIRE(env.tb().dut().command_lock() == std::optional<uint32_t>(qpn));
}
}  // namespace

// Issue 26, docs/datapath.md "The command lock and its park": a command holds its QPN
// from its read to its write, a memory round trip when the read misses. Operations on
// that QPN wait in the datapath ingress's lock park, and the operations on other QPNs
// behind them go on: before the park they waited at the port's head for the lock. The
// command is a CREATE_QP of a QPN never touched (its read misses; memory answers after
// 400 cycles), so an operation on it that ran before the command's write would be DROP
// NO_QP, after it DROP STATE (a new QP is in RESET).
TEST_CASE("a locked QPN's operations park while other QPNs flow", "[datapath][lock]") {
  EnvOptions eo;
  eo.seed = 26;
  eo.mem.latency_min = eo.mem.latency_max = 400;
  QpmEnv env(eo);
  constexpr uint32_t kBusy = 0x41;
  bring_up(env, kBusy, kRc, QpState::Rts);
  REQUIRE(env.ring(rq_db(kBusy, 32)));
  env.execute(qpn_cmd(Opcode::QueryQp, kBusy));  // its line is cached: its operations hit
  struct Answer {
    uint64_t cycle;
    uint32_t qpn;
    DropReason drop;
  };
  std::vector<Answer> answers;
  env.set_dp_listener([&](const DpRequest &req, const DpResponse &rsp) {
    answers.push_back({env.tb().cycles(), req.qpn, rsp.drop});
  });
  uint32_t psn = 100;
  // One burst: `locked` operations on the new QPN, then 8 SENDs on the busy one.
  auto burst = [&](uint32_t locked_qpn, uint32_t locked) {
    answers.clear();
    create_and_wait_for_lock(env, locked_qpn);
    const uint64_t t0 = env.tb().cycles();
    for (uint32_t i = 0; i < locked; ++i)
      env.push_dp(rx(locked_qpn, MsgClass::Send, PktPos::Only, 0));
    for (uint32_t i = 0; i < 8; ++i)
      env.push_dp(rx(kBusy, MsgClass::Send, PktPos::Only, psn++));
    env.drain();
    REQUIRE(answers.size() == locked + 8);
    // The command ran first on its QPN: every operation on it sees the new QP in RESET.
    for (const Answer &a : answers) {
      if (a.qpn == locked_qpn)
        CHECK(a.drop == DropReason::State);
    }
    return t0;
  };

  SECTION("two operations on the locked QPN park: the busy QP's eight answers come first") {
    const uint64_t t0 = burst(0x300, 2);
    for (size_t i = 0; i < 8; ++i) {
      INFO("answer " << i);
      CHECK(answers[i].qpn == kBusy);
      // A hit's answer: a few cycles each through the port, the ingress and the pipe, far
      // below the 400-cycle read the lock waits for.
      CHECK(answers[i].cycle - t0 < 60);
    }
    CHECK(answers[8].cycle - t0 > 400);
    CHECK(csr_counter(env, "lock_park_waits") == 0);
  }
  SECTION("more than the park holds: the port waits, counted, and nothing is lost") {
    const uint64_t t0 = burst(0x301, 6);
    // Four park; the fifth finds the park full and holds the port until the lock ends,
    // counted once (the sixth may find it full once more), and the busy QP's operations
    // behind them wait for the lock too.
    const uint32_t waits = csr_counter(env, "lock_park_waits");
    CHECK(waits >= 1);
    CHECK(waits <= 2);
    for (const Answer &a : answers) {
      if (a.qpn == kBusy)
        CHECK(a.cycle - t0 > 400);
    }
  }
  require_clean(env);
}

// The same for doorbells (issue 26): a doorbell on the locked QPN waits in the doorbell
// port's own lock park, and the doorbells of other QPNs behind it go on. Before that park
// it waited at the port's head until the command's 400-cycle read came back.
TEST_CASE("a locked QPN's doorbells park while other QPNs' doorbells flow",
          "[datapath][lock][doorbell]") {
  EnvOptions eo;
  eo.seed = 27;
  eo.mem.latency_min = eo.mem.latency_max = 400;
  QpmEnv env(eo);
  constexpr uint32_t kBusy = 0x41;
  bring_up(env, kBusy, kRc, QpState::Rts);
  env.execute(qpn_cmd(Opcode::QueryQp, kBusy));  // its line is cached: its doorbells hit
  // One burst: `locked` doorbells on the new QPN, then 8 on the busy one; the cycle and
  // QPN of each doorbell's answer, in answer order.
  auto burst = [&](uint32_t locked_qpn, uint32_t locked) {
    create_and_wait_for_lock(env, locked_qpn);
    const uint64_t t0 = env.tb().cycles();
    // Counts 1, 2, 1, 2, ...: the harness matches each doorbell the front takes to the
    // oldest of its QPN by its bits, so one QPN's doorbells out of order would show.
    for (uint32_t i = 0; i < locked; ++i) env.push_doorbell(rq_db(locked_qpn, 1 + i % 2));
    for (uint32_t i = 0; i < 8; ++i) env.push_doorbell(rq_db(kBusy, 1 + i % 2));
    std::vector<std::pair<uint64_t, uint32_t>> done;  // (cycles after t0, QPN)
    while (done.size() < locked + 8 && env.tb().cycles() - t0 < 3000) {
      if (const auto qpn = env.tb().dut().doorbell_done())
        done.emplace_back(env.tb().cycles() - t0, *qpn);
      env.run_cycles(1);
    }
    env.drain();
    REQUIRE(done.size() == locked + 8);
    return done;
  };

  SECTION("two doorbells on the locked QPN park: the busy QP's eight are answered first") {
    const auto done = burst(0x300, 2);
    for (size_t i = 0; i < 8; ++i) {
      INFO("doorbell answer " << i);
      CHECK(done[i].second == kBusy);
      CHECK(done[i].first < 60);  // hits, far below the 400-cycle read the lock waits for
    }
    CHECK(done[8].first > 400);
    CHECK(done[8].second == 0x300);
    CHECK(csr_counter(env, "db_lock_park_waits") == 0);
  }
  SECTION("more than the park holds: the port waits, counted, and nothing is lost") {
    const auto done = burst(0x301, 6);
    // Four park; the fifth finds the park full and holds the port until the lock ends,
    // counted once (the sixth may find it full once more); the busy QP's doorbells behind
    // it wait for the lock too.
    const uint32_t waits = csr_counter(env, "db_lock_park_waits");
    CHECK(waits >= 1);
    CHECK(waits <= 2);
    CHECK(csr_counter(env, "lock_park_waits") == 0);
    for (const auto &[cycle, qpn] : done) {
      INFO("doorbell of qpn " << qpn << " answered at " << cycle);
      CHECK(cycle > 400);
    }
  }
  require_clean(env);
}

TEST_CASE(
    "SQ_DRAINED: at RTS->SQD with nothing outstanding, and when a draining SQD QP's "
    "last WQE is acknowledged",
    "[datapath]") {
  EnvOptions eo;
  eo.seed = 23;
  QpmEnv env(eo);
  bring_up(env, 0x42, kRc, QpState::Rts);
  bring_up(env, 0x43, kRc, QpState::Rts);
  Command to_sqd =
      modify_cmd(0x42, attr::kState | attr::kEnSqdAsyncNotify, static_cast<uint32_t>(QpState::Sqd));
  to_sqd.en_sqd_async_notify = 1;
  // 0x42: nothing outstanding, so the modify itself raises the event.
  REQUIRE(env.execute(to_sqd).status == Status::Ok);
  auto events = env.events().take_arrivals();
  REQUIRE(events.size() == 1);
  CHECK(events[0] == Event{false, 0x42, EventType::SqDrained, 0});
  // 0x43: two WQEs in flight, SQD is draining until both are acknowledged.
  REQUIRE(env.ring(sq_db(0x43, 2)));
  CHECK(env.execute_dp(tx(0x43, MsgClass::Send)).verdict == Verdict::Issue);
  CHECK(env.execute_dp(tx(0x43, MsgClass::Write, 3)).verdict == Verdict::Issue);
  to_sqd.qpn = 0x43;
  REQUIRE(env.execute(to_sqd).status == Status::Ok);
  CHECK(env.events().take_arrivals().empty());
  // Draining: no modify but to ERR or RESET; TX_WQE starts nothing in SQD.
  CHECK(env.execute(modify_cmd(0x43, attr::kState, static_cast<uint32_t>(QpState::Rts))).status ==
        Status::BadQpState);
  CHECK(env.execute_dp(tx(0x43, MsgClass::Send)).drop == DropReason::State);
  CHECK(env.execute_dp(ack(0x43, 1)).verdict == Verdict::Accept);
  CHECK(env.events().take_arrivals().empty());
  CHECK(env.execute_dp(ack(0x43, 1)).verdict == Verdict::Accept);
  events = env.events().take_arrivals();
  REQUIRE(events.size() == 1);
  CHECK(events[0] == Event{false, 0x43, EventType::SqDrained, 0});
  // Drained: SQD -> RTS is allowed again.
  CHECK(env.execute(modify_cmd(0x43, attr::kState, static_cast<uint32_t>(QpState::Rts))).status ==
        Status::Ok);
  require_clean(env);
}

TEST_CASE("a UC READ sends the QP to SQE, where it still receives, and SQE -> RTS", "[datapath]") {
  EnvOptions eo;
  eo.seed = 24;
  QpmEnv env(eo);
  bring_up(env, 0x44, kUc, QpState::Rts);
  REQUIRE(env.ring(sq_db(0x44, 3)));
  REQUIRE(env.ring(rq_db(0x44, 2)));
  CHECK(env.execute_dp(tx(0x44, MsgClass::Send)).verdict == Verdict::Issue);
  CHECK(env.execute_dp(tx(0x44, MsgClass::Read)).verdict == Verdict::LocalErr);
  Response q = env.execute(qpn_cmd(Opcode::QueryQp, 0x44));
  CHECK(q.qpc.state == static_cast<uint32_t>(QpState::Sqe));
  CHECK(q.qpc.err_syndrome == syndrome::kLocQpOp);
  CHECK(env.execute_dp(tx(0x44, MsgClass::Send)).drop == DropReason::State);
  CHECK(env.execute_dp(rx(0x44, MsgClass::Send, PktPos::Only, 100)).verdict == Verdict::Accept);
  CHECK(env.ring(sq_db(0x44, 1)));  // SQ WQEs posted in SQE wait
  CHECK(env.execute(modify_cmd(0x44, attr::kState, static_cast<uint32_t>(QpState::Rts))).status ==
        Status::Ok);
  CHECK(env.execute_dp(tx(0x44, MsgClass::Send)).verdict == Verdict::Issue);
  CHECK(env.events().take_arrivals().empty());  // LOCAL_ERR raises no event
  require_clean(env);
}

TEST_CASE("a long datapath response stall loses nothing", "[datapath]") {
  EnvOptions eo;
  eo.seed = 25;
  QpmEnv env(eo);
  for (uint32_t i = 0; i < 4; ++i)
    bring_up(env, 0x50 + i, kRc, QpState::Rts);
  env.dp_response_sink().hold(true);
  for (uint32_t k = 0; k < 60; ++k) {
    const uint32_t qpn = 0x50 + k % 4;
    env.push_dp(rx(qpn, MsgClass::Write, PktPos::Only, 100 + k / 4));
  }
  env.run_cycles(3000);
  const uint64_t taken = env.streams().dp_req().handshakes();
  CHECK(taken < 60);  // the port pushes back instead of dropping answers
  CHECK(env.dp_scoreboard().checked() == 0);
  env.dp_response_sink().hold(false);
  env.drain();
  CHECK(env.dp_scoreboard().checked() == 60);
  CHECK(env.dp_scoreboard().verdict_counts().at(Verdict::Accept) == 60);
  CHECK(env.streams().dp_rsp().stalls() > 2000);
  WARN(fmt::format("{} of 60 requests taken during a 3000-cycle response stall", taken));
  require_clean(env);
}

TEST_CASE("a long EQE stall loses no event", "[datapath]") {
  EnvOptions eo;
  eo.seed = 26;
  QpmEnv env(eo);
  constexpr uint32_t kQps = 40;
  for (uint32_t i = 0; i < kQps; ++i)
    bring_up(env, 0x80 + i, i % 2 ? kUc : kRc, QpState::Rtr);
  env.eqe_sink().hold(true);
  // The first accepted packet of each QP in RTR raises COMM_EST: 40 events for an EQ of 16.
  for (uint32_t i = 0; i < kQps; ++i) {
    env.push_dp(rx(0x80 + i, MsgClass::Write, PktPos::Only, 100));
    env.push_dp(rx(0x80 + i, MsgClass::Write, PktPos::Only, 101));  // no second COMM_EST
  }
  env.run_cycles(4000);
  CHECK(env.events().delivered() == 0);
  // The events wait in the QPCs (ev_pending): the datapath does not wait for the EQ.
  CHECK(env.dp_scoreboard().checked() == 2 * kQps);
  env.eqe_sink().hold(false);
  env.drain();
  CHECK(env.dp_scoreboard().checked() == 2 * kQps);
  const auto events = env.events().take_arrivals();
  REQUIRE(events.size() == kQps);
  for (const Event &e : events)
    CHECK(e.type == EventType::CommEst);
  CHECK(env.streams().eqe().stalls() > 3000);
  require_clean(env);
}

TEST_CASE("doorbells: posted, refused by state and by overflow, counted", "[datapath]") {
  EnvOptions eo;
  eo.seed = 27;
  // Both ways of judging a doorbell: in the documented order, and by what a QUERY_QP and
  // the refused-doorbell counter show afterwards.
  eo.doorbell_order_known = GENERATE(true, false);
  QpmEnv env(eo);
  CHECK(env.doorbell_order_known() == eo.doorbell_order_known);
  bring_up(env, 0x45, kRc, QpState::Init);  // log_sq_size 6, log_rq_size 5
  CHECK_FALSE(env.ring(sq_db(0x45, 1)));    // SQ in INIT: refused
  CHECK(env.ring(rq_db(0x45, 30)));
  CHECK_FALSE(env.ring(rq_db(0x45, 3)));  // 30 + 3 > 32
  CHECK(env.ring(rq_db(0x45, 2)));        // exactly full
  CHECK_FALSE(env.ring(rq_db(0x46, 1)));  // no such QP
  const Response q = env.execute(qpn_cmd(Opcode::QueryQp, 0x45));
  CHECK(q.qpc.rq_pi == 32);
  CHECK(q.qpc.sq_pi == 0);
  CHECK(env.doorbells().refused() == 3);
  CHECK(env.read_counters()[counter_index("db_refused")] == 3);
  require_clean(env);
}

TEST_CASE(
    "a doorbell applies among its QPN's operations where the datapath front takes it",
    "[datapath]") {
  EnvOptions eo;
  eo.seed = 28;
  QpmEnv env(eo);
  REQUIRE(env.doorbell_order_known());
  bring_up(env, 0x47, kRc, QpState::Rts);
  env.execute(qpn_cmd(Opcode::QueryQp, 0x47));  // cached: everything below is a hit
  // An operation and a doorbell taken by their ports in one cycle: the front takes the
  // operation first (docs/datapath.md, "Arbitration"), so it does not see the doorbell.
  // One pushed after the doorbell went into the model does.
  env.push_dp(tx(0x47, MsgClass::Send));
  env.push_doorbell(sq_db(0x47, 1));
  env.run_cycles(1);
  while (env.doorbell_pending(0x47))
    env.run_cycles(1);
  env.push_dp(tx(0x47, MsgClass::Send));
  env.drain();
  const auto &dp = env.dp_scoreboard();
  CHECK(dp.verdict_counts().at(Verdict::Empty) == 1);
  CHECK(dp.verdict_counts().at(Verdict::Issue) == 1);
  // A stream of operations with doorbells among them, all on one QPN, nothing waiting.
  for (int i = 0; i < 40; ++i) {
    env.push_dp(tx(0x47, MsgClass::Send));
    if (i % 8 == 0) {
      while (env.doorbell_pending(0x47))
        env.run_cycles(1);  // one at a time per QPN
      env.push_doorbell(sq_db(0x47, 3));
    }
    env.push_dp(ack(0x47, 1));
    env.run_cycles(1);
  }
  env.drain();
  CHECK(env.doorbells().posted() == 6);
  require_clean(env);
}

// ---------------------------------------------------------------------------------
// The harness can fail

TEST_CASE("port codecs: decode reads back every field encode drove", "[datapath][harness]") {
  std::mt19937_64 rng(Catch::rngSeed());
  auto random_bits = [&](unsigned n) {
    BitVec v(n);
    for (auto &w : v.words())
      w = static_cast<uint32_t>(rng());
    if (n % 32)
      v.words().back() &= (1u << (n % 32)) - 1;
    return v;
  };
  for (int i = 0; i < 500; ++i) {
    const BitVec req = random_bits(kDpReqBits), rsp = random_bits(kDpRspBits);
    const BitVec db = random_bits(kDoorbellBits), eqe = random_bits(kEqeBits);
    REQUIRE(encode_dp_request(decode_dp_request(req)) == req);
    REQUIRE(encode_dp_response(decode_dp_response(rsp)) == rsp);
    REQUIRE(encode_doorbell(decode_doorbell(db)) == db);
    REQUIRE(encode_event(decode_event(eqe)) == eqe);
  }
  // The first field is the most significant (qpm_pkg's packed structs).
  DpRequest r;
  r.tag = 0xa5;
  CHECK(encode_dp_request(r).get(kDpReqBits - 8, 8) == 0xa5);
  Event e{true, 0, EventType::QpFatal, 0};
  CHECK(encode_event(e).get(kEqeBits - 1, 1) == 1);
}

TEST_CASE("the datapath checks fail on a wrong answer", "[datapath][harness]") {
  GoldenModel model;
  EventChecker events;
  DpScoreboard sb(model, events);
  DpRequest a = rx(0x10, MsgClass::Send, PktPos::Only, 0), b = a;
  a.tag = 1;
  b.tag = 2;
  sb.on_accept(a);
  sb.on_accept(b);
  // The second operation of a QPN answered first: out of order.
  DpResponse r;
  r.tag = 2;
  r.qpn = 0x10;
  r.drop = DropReason::NoQp;
  sb.on_response(r);
  CHECK(sb.mismatches() == 1);
  // A wrong verdict.
  r.tag = 1;
  r.verdict = Verdict::Accept;
  r.drop = DropReason::None;
  sb.on_response(r);
  CHECK(sb.mismatches() == 2);
  // A response nothing asked for.
  sb.on_response(r);
  CHECK(sb.mismatches() == 3);
  // The front takes one QPN's operations in port order (the lock park may reorder only
  // different QPNs'): a take of the second one first, or of a tag never accepted, is a
  // mismatch; a take in order is not.
  DpScoreboard order(model, events);
  order.on_accept(a);
  order.on_accept(b);
  order.on_front_take(2);
  CHECK(order.mismatches() == 1);
  order.on_front_take(1);
  order.on_front_take(2);
  CHECK(order.mismatches() == 1);
  order.on_front_take(7);
  CHECK(order.mismatches() == 2);
  CHECK(order.order_problems().size() == 2);
  // Events: a wrong one, one never delivered, one nothing raised.
  events.expect(Event{false, 0x10, EventType::CommEst, 0}, "RX_REQ");
  events.arrived(Event{false, 0x10, EventType::SqDrained, 0});
  CHECK(events.mismatches() == 1);
  events.expect(Event{false, 0x11, EventType::CommEst, 0}, "RX_REQ");
  events.arrived(Event{false, 0x12, EventType::CommEst, 0});
  CHECK(events.problems().size() == 3);  // 0x11 missing, 0x12 unexpected, the mismatch
  // An EQE ahead of its operation's response is fine once the model raises it.
  EventChecker early;
  early.arrived(Event{false, 0x13, EventType::CommEst, 0});
  early.expect(Event{false, 0x13, EventType::CommEst, 0}, "RX_REQ");
  CHECK(early.problems().empty());
}

// ---------------------------------------------------------------------------------
// Scripts

TEST_CASE("the traffic script answers as SPEC §6 says", "[datapath][script]") {
  auto read = [](const std::string &name) {
    std::ifstream f(std::string(QPM_SOURCE_DIR) + "/tests/scripts/" + name);
    REQUIRE(f.good());
    std::stringstream text;
    text << f.rdbuf();
    return text.str();
  };
  const std::string script = read("rc_traffic.qpm");
  // Written by hand from SPEC §6 and docs/datapath.md, never from the RTL's output.
  std::vector<std::string> expected;
  for (const std::string &l : lines_of(read("rc_traffic.expected"))) {
    if (!l.empty() && l[0] != '#')
      expected.push_back(l);
  }
  EnvOptions eo;
  eo.seed = 31;
  QpmEnv env(eo);
  std::istringstream in(script);
  std::ostringstream out;
  const ScriptResult r = run_script(env, in, out);
  INFO(out.str());
  REQUIRE(r.error.empty());
  CHECK(r.mismatches == 0);
  const auto got = lines_of(out.str());
  REQUIRE(got.size() == expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("output line " << i + 1);
    if (expected[i].back() == '*') {  // a QUERY: the prefix is what matters
      CHECK(got[i].rfind(expected[i].substr(0, expected[i].size() - 1), 0) == 0);
    } else {
      CHECK(got[i] == expected[i]);
    }
  }
  require_clean(env);
}
