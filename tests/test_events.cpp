// The event queue of SPEC §8 through qpm_top's EQE port (docs/events.md): PORT_FAULT, a
// storm of events from many QPs drained by a slow consumer, and commands that wait for a
// QP's pending events. Every case is also checked against the golden model by the
// harness: each QP's (and port's) events exactly once in the order raised, and fatal
// events overtaken by no more informational ones than the EQ holds (EventChecker).
#include <fmt/format.h>

#include <map>
#include <set>

#include "sim_run.h"
#include "test_helpers.h"

using namespace qpm;
using namespace qpm::test;

namespace {

constexpr uint32_t kRc = 2, kUc = 3, kUd = 4;

Command attrs_on(uint32_t port, uint32_t access_flags) {
  Command a = valid_attributes();
  a.port_num = port;
  a.qp_access_flags = access_flags;
  a.rq_psn = 100;
  return a;
}

void bring_up(QpmEnv &env, uint32_t qpn, uint32_t type, QpState target, uint32_t port,
              uint32_t access_flags = access::kRemoteWrite) {
  REQUIRE(env.execute(create_cmd(qpn, type)).status == Status::Ok);
  if (target == QpState::Reset) return;
  for (const Command &m : walk_cmds(qpn, type, target, attrs_on(port, access_flags))) {
    REQUIRE(env.execute(m).status == Status::Ok);
  }
}

Command port_fault(uint32_t port) {
  Command c;
  c.op = Opcode::PortFault;
  c.port_num = port;
  return c;
}

uint32_t state_of(QpmEnv &env, uint32_t qpn) {
  const Response r = env.execute(qpn_cmd(Opcode::QueryQp, qpn));
  REQUIRE(r.status == Status::Ok);
  return r.qpc.state;
}

constexpr uint32_t st(QpState s) { return static_cast<uint32_t>(s); }

}  // namespace

TEST_CASE("PORT_FAULT: PORT_ERR first, then one QP_FATAL for each QP of the port in neither "
          "RESET nor ERR",
          "[events]") {
  EnvOptions eo;
  eo.seed = 81;
  eo.config = GENERATE("default", "tiny");
  QpmEnv env(eo);
  bring_up(env, 0x20, kRc, QpState::Reset, 2);
  bring_up(env, 0x21, kRc, QpState::Init, 2);
  bring_up(env, 0x22, kUc, QpState::Rtr, 2);
  bring_up(env, 0x23, kRc, QpState::Rts, 2);
  bring_up(env, 0x24, kRc, QpState::Sqd, 2);
  bring_up(env, 0x25, kRc, QpState::Err, 2);
  bring_up(env, 0x26, kRc, QpState::Rts, 1);   // another port
  bring_up(env, 0x127, kRc, QpState::Rts, 2);  // another page
  // Both ends of the QPN range: the first QPN a QP may have, and QPN_LIMIT - 1.
  const uint32_t top = env.read_csr(csr::kQpnLimit) - 1;
  bring_up(env, 2, kUd, QpState::Rts, 2);
  bring_up(env, top, kRc, QpState::Rtr, 2);
  env.drain();
  env.events().take_arrivals();

  // A port that does not exist: BAD_PARAM, no event, nobody moves.
  CHECK(env.execute(port_fault(0)).status == Status::BadParam);
  CHECK(env.execute(port_fault(3)).status == Status::BadParam);
  env.drain();
  CHECK(env.events().take_arrivals().empty());
  CHECK(state_of(env, 0x23) == st(QpState::Rts));

  REQUIRE(env.execute(port_fault(2)).status == Status::Ok);
  env.drain();
  const std::vector<Event> got = env.events().take_arrivals();
  REQUIRE(!got.empty());
  CHECK(got.front() == (Event{true, 2, EventType::PortErr, 0}));
  std::multiset<uint32_t> fatal;
  for (size_t i = 1; i < got.size(); ++i) {
    CHECK(got[i].type == EventType::QpFatal);
    CHECK(got[i].syndrome == 9);  // PORT_FAULT
    fatal.insert(got[i].qpn);
  }
  CHECK(fatal == std::multiset<uint32_t>{2, 0x21, 0x22, 0x23, 0x24, 0x127, top});
  for (uint32_t q : {2u, 0x21u, 0x22u, 0x23u, 0x24u, 0x25u, 0x127u, top}) {
    INFO("qpn " << q);
    CHECK(state_of(env, q) == st(QpState::Err));
  }
  CHECK(state_of(env, 0x20) == st(QpState::Reset));
  CHECK(state_of(env, 0x26) == st(QpState::Rts));
  CHECK(csr_counter(env, "ev_port_err") == 1);
  CHECK(csr_counter(env, "ev_qp_fatal") == 7);
  CHECK(csr_counter(env, "pf_qps_moved") == 7);
  CHECK(csr_counter(env, "pf_qpcs_read") >= 10);
  // A second fault of the port finds nobody left to move: PORT_ERR only.
  REQUIRE(env.execute(port_fault(2)).status == Status::Ok);
  env.drain();
  CHECK(env.events().take_arrivals() == std::vector<Event>{Event{true, 2, EventType::PortErr, 0}});
  require_final_check_clean(env);
}

// PORT_FAULT's step carries its QP's QP_FATAL to the EQ itself (docs/events.md), but only
// when no event of the QP waits before it: a QP whose COMM_EST is still pending gets its
// QP_FATAL after it (per-QP order), through the fatal engine. The steps need room in the
// EQ, so while the consumer takes nothing the scan waits, and goes on once it drains.
TEST_CASE("PORT_FAULT: a QP's QP_FATAL leaves after the events the QP raised before it, and "
          "the scan waits for room in the EQ",
          "[events]") {
  EnvOptions eo;
  eo.seed = 85;
  eo.config = GENERATE("default", "tiny");
  QpmEnv env(eo);
  constexpr uint32_t kBase = 2, kQps = 40;   // the first QPNs the scan steps
  for (uint32_t i = 0; i < kQps; ++i) bring_up(env, kBase + i, kRc, QpState::Rtr, 2);
  env.drain();
  env.events().take_arrivals();

  // Every QP raises COMM_EST; the EQ takes 16 of them, the rest wait in their QPCs.
  env.eqe_sink().hold(true);
  for (uint32_t i = 0; i < kQps; ++i) {
    env.push_dp(rx(kBase + i, MsgClass::Write, PktPos::Only, 100));
  }
  for (int c = 0; c < 3000 && (env.dp_in_flight() || env.dp_queued()); ++c) env.run_cycles(1);
  for (int c = 0; c < 5000 && env.tb().dut().eq_fifo_count() < 16; ++c) env.run_cycles(1);
  REQUIRE(env.tb().dut().eq_fifo_count() == 16);

  env.push_command(port_fault(2));
  env.run_cycles(2000);
  CHECK(env.commands_in_flight() == 1);        // the scan waits for room in the EQ
  CHECK(csr_counter(env, "pf_qps_moved") == 0);
  env.eqe_sink().hold(false);
  env.drain();

  const std::vector<Event> got = env.events().take_arrivals();
  CHECK(got.size() == 1 + 2 * kQps);
  std::map<uint32_t, std::vector<EventType>> per_qp;
  for (const Event &e : got) {
    if (!e.is_port) per_qp[e.qpn].push_back(e.type);
  }
  for (uint32_t i = 0; i < kQps; ++i) {
    INFO("qpn " << kBase + i);
    CHECK(per_qp[kBase + i] == std::vector<EventType>{EventType::CommEst, EventType::QpFatal});
    CHECK(state_of(env, kBase + i) == st(QpState::Err));
  }
  CHECK(csr_counter(env, "pf_qps_moved") == kQps);
  CHECK(env.events().class_violations() == 0);
  require_final_check_clean(env);
}

TEST_CASE("an event storm through a slow consumer: every event once, fatal before "
          "informational, the healthy QPs keep going",
          "[events]") {
  EnvOptions eo;
  eo.seed = 82;
  eo.config = GENERATE("default", "tiny");
  eo.eqe_stall_prob = 0.95;  // one EQE taken every twenty cycles on average
  QpmEnv env(eo);
  const uint32_t kFaulting = eo.config == "tiny" ? 96 : 320;
  constexpr uint32_t kInfo = 48, kAccess = 24;
  // Port 2: the QPs the fault moves. Port 1: QPs in RTR whose first packet raises
  // COMM_EST, and QPs without remote write whose WRITE raises QP_ACCESS_ERR.
  for (uint32_t i = 0; i < kFaulting; ++i) bring_up(env, 0x400 + i, kRc, QpState::Rts, 2);
  for (uint32_t i = 0; i < kInfo; ++i) bring_up(env, 0x100 + i, i % 2 ? kUc : kRc, QpState::Rtr, 1);
  for (uint32_t i = 0; i < kAccess; ++i) bring_up(env, 0x200 + i, kRc, QpState::Rts, 1, 0);
  env.drain();
  env.events().take_arrivals();

  env.push_command(port_fault(2));
  for (uint32_t i = 0; i < kInfo; ++i) {
    env.push_dp(rx(0x100 + i, MsgClass::Write, PktPos::Only, 100));
    env.push_dp(rx(0x100 + i, MsgClass::Write, PktPos::Only, 101));  // no second COMM_EST
    if (i < kAccess) env.push_dp(rx(0x200 + i, MsgClass::Write, PktPos::Only, 100));
  }
  env.drain();

  const std::vector<Event> got = env.events().take_arrivals();
  std::map<EventType, uint32_t> n;
  for (const Event &e : got) ++n[e.type];
  CHECK(got.size() == 1 + kFaulting + kInfo + kAccess);
  CHECK(n[EventType::PortErr] == 1);
  CHECK(n[EventType::QpFatal] == kFaulting);
  CHECK(n[EventType::CommEst] == kInfo);
  CHECK(n[EventType::QpAccessErr] == kAccess);
  CHECK(env.events().class_violations() == 0);
  WARN(fmt::format("{}: at most {} informational events overtook a fatal one", eo.config,
                   env.events().worst_overtaking()));
  CHECK(env.dp_scoreboard().checked() == 2 * kInfo + kAccess);
  // The slow consumer fills the EQ (on tiny every step misses, and events trickle).
  CHECK(csr_counter(env, "eq_high_water") <= 16);
  if (eo.config == "default") CHECK(csr_counter(env, "eq_high_water") == 16);
  CHECK(env.streams().eqe().stalls() > 1000);
  require_final_check_clean(env);
}

TEST_CASE("a command waits while its QP has events pending, and SQ_DRAINED comes twice in order",
          "[events]") {
  EnvOptions eo;
  eo.seed = 83;
  QpmEnv env(eo);
  bring_up(env, 0x30, kRc, QpState::Rts, 1);
  Command to_sqd = qpn_cmd(Opcode::ModifyQp, 0x30);
  to_sqd.attr_mask = attr::kState | attr::kEnSqdAsyncNotify;
  to_sqd.qp_state = st(QpState::Sqd);
  to_sqd.en_sqd_async_notify = 1;
  Command to_rts = qpn_cmd(Opcode::ModifyQp, 0x30);
  to_rts.attr_mask = attr::kState;
  to_rts.qp_state = st(QpState::Rts);

  // More COMM_ESTs of other QPs than the EQ holds: SQ_DRAINED stays in the QPC.
  for (uint32_t i = 0; i < 24; ++i) bring_up(env, 0x40 + i, kRc, QpState::Rtr, 1);
  env.eqe_sink().hold(true);
  for (uint32_t i = 0; i < 24; ++i) env.push_dp(rx(0x40 + i, MsgClass::Write, PktPos::Only, 100));
  for (int i = 0; i < 100 && csr_counter(env, "eq_high_water") < 16; ++i) env.run_cycles(100);
  REQUIRE(csr_counter(env, "eq_high_water") == 16);
  REQUIRE(env.execute(to_sqd).status == Status::Ok);  // SQ_DRAINED now pending
  const uint64_t answered = env.scoreboard().checked();
  env.push_command(to_rts);
  env.run_cycles(3000);
  CHECK(env.scoreboard().checked() == answered);  // waits for the event to leave
  env.eqe_sink().hold(false);
  env.drain();
  CHECK(env.scoreboard().checked() == answered + 1);
  REQUIRE(env.execute(to_sqd).status == Status::Ok);
  env.drain();
  std::vector<Event> got;
  for (const Event &e : env.events().take_arrivals())
    if (e.qpn == 0x30) got.push_back(e);
  CHECK(got == std::vector<Event>(2, Event{false, 0x30, EventType::SqDrained, 0}));
  CHECK(csr_counter(env, "ev_sq_drained") == 2);
  require_final_check_clean(env);
}

// EQ_HIGH_WATER at the hand-off it is made of (qpm_dp_front): an event entering the EQ in
// the cycle another leaves it, with the EQ at its high-water mark. The consumer holds
// until the EQ is at its mark again, one more SQ_DRAINED is started, and the consumer
// lets go `gap` cycles later, for every gap from 0 to 40: one gap puts the push in the
// pop's cycle, others just before (the mark rises by one) or after. The counter must be
// the fullest the EQ was seen, every time.
TEST_CASE("EQ_HIGH_WATER with an event entering in every cycle around a pop at the mark",
          "[events]") {
  EnvOptions eo;
  eo.seed = 84;
  QpmEnv env(eo);
  constexpr uint32_t kBase = 0x60, kQps = 16;
  for (uint32_t i = 0; i < kQps; ++i) bring_up(env, kBase + i, kRc, QpState::Rts, 1);
  auto modify = [](uint32_t qpn, QpState to) {
    Command c = qpn_cmd(Opcode::ModifyQp, qpn);
    c.attr_mask = attr::kState;
    c.qp_state = st(to);
    if (to == QpState::Sqd) {
      c.attr_mask |= attr::kEnSqdAsyncNotify;
      c.en_sqd_async_notify = 1;  // nothing outstanding: SQ_DRAINED at once
    }
    return c;
  };
  auto settle = [&] {
    for (int i = 0; i < 5000 && env.commands_in_flight() > 0; ++i) env.run_cycles(1);
    REQUIRE(env.commands_in_flight() == 0);
  };
  env.drain();
  env.events().take_arrivals();
  unsigned coincident = 0;
  for (unsigned gap = 0; gap <= 40; ++gap) {
    const unsigned mark = std::max(1u, env.eq_fill_max());
    if (mark + 1 > kQps) break;
    INFO("gap " << gap << ", mark " << mark);
    env.eqe_sink().hold(true);
    uint32_t q = kBase;
    for (; q < kBase + mark; ++q) {
      env.push_command(modify(q, QpState::Sqd));
      settle();
    }
    // The events are delivered by flush-engine steps after the commands' writes.
    for (int i = 0; i < 2000 && env.tb().dut().eq_fifo_count() < mark; ++i) env.run_cycles(1);
    REQUIRE(env.tb().dut().eq_fifo_count() == mark);
    env.push_command(modify(q++, QpState::Sqd));
    env.run_cycles(gap);
    const unsigned before = env.eq_fill_max();
    env.eqe_sink().hold(false);
    settle();
    env.drain();
    if (env.eq_fill_max() == before && env.tb().dut().eq_fifo_count() == 0 && before == mark) {
      ++coincident;  // the event went in no earlier than the first pop
    }
    for (uint32_t r = kBase; r < q; ++r) REQUIRE(env.execute(modify(r, QpState::Rts)).status == Status::Ok);
    REQUIRE(env.events().take_arrivals().size() == q - kBase);
    CHECK(csr_counter(env, "eq_high_water") == env.eq_fill_max());
  }
  CHECK(coincident > 0);
  CHECK(env.eq_fill_max() > 2);  // later gaps let the event in before the pop
  require_final_check_clean(env);
}
