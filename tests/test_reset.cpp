// Reset in the middle of a transaction (SPEC §10, docs/reset.md, issue 10): one directed
// case per named situation, each stating what SPEC §10 says must happen, and each also
// checked against the golden model by the harness (scoreboards, reset fence,
// final_check); then reset under stress on both configurations, also with memory errors.
#include "sim_run.h"
#include "test_helpers.h"

using namespace qpm;
using namespace qpm::test;

namespace {

constexpr uint32_t kRc = 2, kUc = 3;
constexpr uint32_t kQ = 0x20, kOther = 0x21;

Command reset_attrs() {
  Command a = valid_attributes();
  a.qp_access_flags = access::kRemoteWrite | access::kRemoteRead | access::kRemoteAtomic;
  a.max_rd_atomic = 4;
  a.max_dest_rd_atomic = 4;
  a.rq_psn = 100;
  a.sq_psn = 200;
  return a;
}

// Move a QP that exists (in RESET) or a new one (create) to target.
void bring_up(QpmEnv &env, uint32_t qpn, uint32_t type, QpState target, bool create = true) {
  if (create) {
    CreateAttrs c;
    c.log_sq_size = 3;
    c.log_rq_size = 3;
    REQUIRE(env.execute(create_cmd(qpn, type, c)).status == Status::Ok);
  }
  for (const Command &m : walk_cmds(qpn, type, target, reset_attrs())) {
    REQUIRE(env.execute(m).status == Status::Ok);
  }
}

Command to_reset(uint32_t qpn) {
  Command c = qpn_cmd(Opcode::ModifyQp, qpn);
  c.attr_mask = attr::kState;
  c.qp_state = static_cast<uint32_t>(QpState::Reset);
  return c;
}

uint8_t epoch_of(QpmEnv &env, uint32_t qpn) {
  return static_cast<uint8_t>(env.model().qpc(qpn).epoch);
}

// A token of the given epoch.
DpRequest with_epoch(DpRequest r, uint8_t epoch) {
  r.epoch = epoch;
  return r;
}

// Send one operation while other things may be in flight and wait for its answer only.
DpResponse answer(QpmEnv &env, const DpRequest &r, uint64_t limit = 4000) {
  const uint64_t before = env.dp_scoreboard().checked();
  env.push_dp(r);
  for (uint64_t i = 0; i < limit && env.dp_scoreboard().checked() == before; ++i) env.tb().tick();
  REQUIRE(env.dp_scoreboard().checked() == before + 1);
  return env.dp_scoreboard().last_response();
}

// Cycles until no command is in flight (at most limit).
uint64_t wait_commands(QpmEnv &env, uint64_t limit) {
  const uint64_t t0 = env.tb().cycles();
  while (env.commands_in_flight() > 0 && env.tb().cycles() - t0 < limit) env.tb().tick();
  return env.tb().cycles() - t0;
}

void expect_reset_qpc(const Qpc &q, uint8_t old_epoch) {
  CHECK(q.state == static_cast<uint32_t>(QpState::Reset));
  CHECK(q.epoch == ((old_epoch + 1u) & 0xffu));
  CHECK(q.dma_inflight == 0);
  CHECK(q.quiesce == 0);
  CHECK(q.rx_msg_open == 0);
  CHECK(q.sq_pi == 0);
  CHECK(q.sq_ci == 0);
  CHECK(q.sq_issued == 0);
  CHECK(q.rq_pi == 0);
  CHECK(q.rq_ci == 0);
}

}  // namespace

// For a MODIFY to RESET and for a DESTROY_QP alike (SPEC §10): the fence stands from the
// command's start, so an operation arriving during the wait is checked against SPEC,
// not against where the harness saw the fence.
TEST_CASE("a reset with a DMA mid-burst waits for its DMA_END: the QP's operations DROP QUIESCE, "
          "doorbells are refused, other QPs run",
          "[reset]") {
  EnvOptions eo;
  eo.seed = 1001;
  QpmEnv env(eo);
  const bool destroy = GENERATE(false, true);
  INFO((destroy ? "DESTROY_QP" : "MODIFY to RESET"));
  bring_up(env, kQ, kRc, QpState::Rts);
  bring_up(env, kOther, kRc, QpState::Rts);
  REQUIRE(env.ring(rq_db(kQ, 2)));
  REQUIRE(env.ring(sq_db(kOther, 4)));
  const uint8_t e0 = epoch_of(env, kQ);
  REQUIRE(env.execute_dp(dma(DpOp::DmaBegin, kQ, e0)).verdict == Verdict::Accept);
  REQUIRE(env.execute_dp(dma(DpOp::DmaBegin, kQ, e0)).verdict == Verdict::Accept);

  env.push_command(destroy ? qpn_cmd(Opcode::DestroyQp, kQ) : to_reset(kQ));
  env.run_cycles(300);
  CHECK(env.commands_in_flight() == 1);  // two DMAs in flight: no answer yet

  // The QP admits nothing new: a packet that would be accepted is DROPped, counted.
  DpResponse r = answer(env, rx(kQ, MsgClass::Send, PktPos::Only, 100));
  CHECK(r.verdict == Verdict::Drop);
  CHECK(r.drop == DropReason::Quiesce);
  CHECK(r.epoch == e0);  // the old incarnation still answers
  // So does every other operation but DMA_END (SPEC §10), each with its own epoch.
  for (const DpOp op : {DpOp::RxRespDone, DpOp::TxWqe, DpOp::RxAck, DpOp::RxNak, DpOp::RnrNak,
                        DpOp::Timeout, DpOp::DmaBegin}) {
    INFO("operation " << static_cast<int>(op));
    DpRequest req = plain(op, kQ);
    req.epoch = e0;
    r = answer(env, req);
    CHECK(r.verdict == Verdict::Drop);
    CHECK(r.drop == DropReason::Quiesce);
  }
  env.push_doorbell(rq_db(kQ, 1));  // refused: checked by the db_refused counter below
  env.run_cycles(50);

  // Another QP is not stalled: its operations answer at once.
  for (int i = 0; i < 4; ++i) {
    const uint64_t t0 = env.tb().cycles();
    CHECK(answer(env, tx(kOther, MsgClass::Send)).verdict == Verdict::Issue);
    CHECK(env.tb().cycles() - t0 < 40);
  }

  // The first DMA_END is accepted; the reset still waits for the second.
  CHECK(answer(env, dma(DpOp::DmaEnd, kQ, e0)).verdict == Verdict::Accept);
  env.run_cycles(100);
  CHECK(env.commands_in_flight() == 1);
  CHECK(answer(env, dma(DpOp::DmaEnd, kQ, e0)).verdict == Verdict::Accept);
  CHECK(wait_commands(env, 200) < 200);  // now it answers
  env.drain();
  CHECK(env.scoreboard().last_response().status == Status::Ok);
  if (destroy) {
    CHECK(env.model().qpc(kQ).valid == 0);
    CHECK(env.model().qpc(kQ).epoch == e0 + 1u);
    // Gone: a packet for it now DROPs as NO_QP.
    r = answer(env, rx(kQ, MsgClass::Send, PktPos::Only, 100));
    CHECK(r.verdict == Verdict::Drop);
    CHECK(r.drop == DropReason::NoQp);
  } else {
    expect_reset_qpc(env.model().qpc(kQ), e0);
  }
  CHECK(env.read_csr(csr::kResetTimeout) == 4096);
  CHECK(csr_counter(env, "resets_waited") == 1);
  CHECK(csr_counter(env, "resets_forced") == 0);
  CHECK(csr_counter(env, "drop_quiesce") == 8);
  CHECK(csr_counter(env, "db_refused") == 1);
  require_final_check_clean(env);
}

TEST_CASE("a DMA that never ends: the reset completes after RESET_TIMEOUT, forced, and the late "
          "DMA_END is STALE",
          "[reset]") {
  EnvOptions eo;
  eo.seed = 1002;
  eo.reset_timeout = 300;
  QpmEnv env(eo);
  CHECK(env.read_csr(csr::kResetTimeout) == 300);
  const bool destroy = GENERATE(false, true);
  INFO((destroy ? "DESTROY_QP" : "MODIFY to RESET"));
  bring_up(env, kQ, kRc, QpState::Rts);
  const uint8_t e0 = epoch_of(env, kQ);
  REQUIRE(env.execute_dp(dma(DpOp::DmaBegin, kQ, e0)).verdict == Verdict::Accept);
  env.push_command(destroy ? qpn_cmd(Opcode::DestroyQp, kQ) : to_reset(kQ));
  const uint64_t waited = wait_commands(env, 2000);
  CHECK(waited >= 300);        // the whole timeout ...
  CHECK(waited < 300 + 100);   // ... and not much more
  env.drain();
  CHECK(csr_counter(env, "resets_forced") == 1);
  CHECK(csr_counter(env, "resets_waited") == 0);
  if (destroy) {
    CHECK(env.model().qpc(kQ).valid == 0);
    CHECK(env.model().qpc(kQ).epoch == e0 + 1u);
    bring_up(env, kQ, kRc, QpState::Rts);  // the QPN again, from the advanced epoch
  } else {
    expect_reset_qpc(env.model().qpc(kQ), e0);
    bring_up(env, kQ, kRc, QpState::Rts, false);
  }
  // The burst ends at last: it belongs to the old incarnation and changes nothing.
  const DpResponse r = env.execute_dp(dma(DpOp::DmaEnd, kQ, e0));
  CHECK(r.verdict == Verdict::Drop);
  CHECK(r.drop == DropReason::Stale);
  CHECK(env.model().qpc(kQ).dma_inflight == 0);
  CHECK(csr_counter(env, "drop_stale") == 1);
  require_final_check_clean(env);
}

TEST_CASE("tokens of the old epoch after a reset are ignored: ACK, RX_RESP_DONE, TIMEOUT, RX_NAK, "
          "DMA_END",
          "[reset]") {
  EnvOptions eo;
  eo.seed = 1003;
  QpmEnv env(eo);
  bring_up(env, kQ, kRc, QpState::Rts);
  const uint8_t e0 = epoch_of(env, kQ);
  // Unacknowledged packets and a read in flight as responder.
  REQUIRE(env.ring(sq_db(kQ, 3)));
  REQUIRE(env.execute_dp(tx(kQ, MsgClass::Send)).verdict == Verdict::Issue);
  REQUIRE(env.execute_dp(tx(kQ, MsgClass::Read)).verdict == Verdict::Issue);
  REQUIRE(env.execute_dp(rx(kQ, MsgClass::Read, PktPos::Only, 100)).verdict == Verdict::Accept);
  REQUIRE(env.execute(to_reset(kQ)).status == Status::Ok);  // nothing to wait for
  expect_reset_qpc(env.model().qpc(kQ), e0);
  CHECK(env.model().qpc(kQ).rd_atomic_outstanding == 0);
  CHECK(env.model().qpc(kQ).dest_rd_atomic_inflight == 0);
  bring_up(env, kQ, kRc, QpState::Rts, false);
  REQUIRE(env.ring(sq_db(kQ, 1)));
  REQUIRE(env.execute_dp(tx(kQ, MsgClass::Send)).verdict == Verdict::Issue);
  const uint8_t e1 = epoch_of(env, kQ);
  REQUIRE(e1 == e0 + 1);

  // Each would act on the new incarnation (it has one WQE outstanding); each is STALE.
  for (const DpRequest &old : {with_epoch(ack(kQ, 1, 1), e0),
                               with_epoch(plain(DpOp::RxRespDone, kQ), e0),
                               with_epoch(plain(DpOp::Timeout, kQ), e0),
                               with_epoch(nak(kQ, NakCode::Access), e0),
                               dma(DpOp::DmaEnd, kQ, e0)}) {
    const DpResponse r = env.execute_dp(old);
    CHECK(r.verdict == Verdict::Drop);
    CHECK(r.drop == DropReason::Stale);
    CHECK(r.epoch == e1);
  }
  CHECK(env.model().qpc(kQ).state == static_cast<uint32_t>(QpState::Rts));
  CHECK(env.model().qpc(kQ).sq_ci == 0);
  // The new incarnation's own acknowledgement is taken.
  CHECK(env.execute_dp(with_epoch(ack(kQ, 1), e1)).verdict == Verdict::Accept);
  CHECK(csr_counter(env, "drop_stale") == 5);
  require_final_check_clean(env);
}

TEST_CASE("a reset with a half-arrived message: the message is gone in the new incarnation",
          "[reset]") {
  EnvOptions eo;
  eo.seed = 1004;
  QpmEnv env(eo);
  bring_up(env, kQ, kUc, QpState::Rts);
  REQUIRE(env.ring(rq_db(kQ, 2)));
  REQUIRE(env.execute_dp(rx(kQ, MsgClass::Send, PktPos::First, 100)).verdict == Verdict::Accept);
  REQUIRE(env.model().qpc(kQ).rx_msg_open == 1);
  const uint8_t e0 = epoch_of(env, kQ);
  const Response rsp = env.execute(to_reset(kQ));
  REQUIRE(rsp.status == Status::Ok);
  CHECK(rsp.qpc.rx_msg_open == 0);
  CHECK(rsp.qpc.epoch == e0 + 1u);
  bring_up(env, kQ, kUc, QpState::Rts, false);
  REQUIRE(env.ring(rq_db(kQ, 2)));
  // The rest of the old message: no message is open any more (SEQ), the PSN is right.
  const DpResponse r = env.execute_dp(rx(kQ, MsgClass::Send, PktPos::Last, 100));
  CHECK(r.verdict == Verdict::Drop);
  CHECK(r.drop == DropReason::Seq);
  CHECK(env.execute_dp(rx(kQ, MsgClass::Send, PktPos::Only, 100)).verdict == Verdict::Accept);
  require_final_check_clean(env);
}

TEST_CASE("create, traffic, reset and reuse of one QPN many times", "[reset]") {
  EnvOptions eo;
  eo.seed = 1005;
  QpmEnv env(eo);
  constexpr int kRounds = 12;
  for (int i = 0; i < kRounds; ++i) {
    const bool destroy = i % 2 == 1;
    INFO("round " << i);
    bring_up(env, kQ, kRc, QpState::Rts, i == 0 || i % 2 == 0);
    const uint8_t e = epoch_of(env, kQ);
    CHECK(e == static_cast<uint8_t>(i));
    REQUIRE(env.ring(sq_db(kQ, 2)));
    REQUIRE(env.ring(rq_db(kQ, 1)));
    REQUIRE(env.execute_dp(tx(kQ, MsgClass::Send)).verdict == Verdict::Issue);
    REQUIRE(env.execute_dp(with_epoch(ack(kQ, 1), e)).verdict == Verdict::Accept);
    REQUIRE(env.execute_dp(tx(kQ, MsgClass::Write)).verdict == Verdict::Issue);
    REQUIRE(env.execute_dp(dma(DpOp::DmaBegin, kQ, e)).verdict == Verdict::Accept);
    env.push_command(destroy ? qpn_cmd(Opcode::DestroyQp, kQ) : to_reset(kQ));
    env.run_cycles(60);
    CHECK(env.commands_in_flight() == 1);
    CHECK(answer(env, dma(DpOp::DmaEnd, kQ, e)).verdict == Verdict::Accept);
    CHECK(wait_commands(env, 200) < 200);
    env.drain();
    CHECK(env.model().qpc(kQ).epoch == e + 1u);
  }
  CHECK(csr_counter(env, "resets_waited") == kRounds);
  CHECK(csr_counter(env, "resets_forced") == 0);
  require_final_check_clean(env);
}

TEST_CASE("a reset whose QPC must be walked or was evicted: slow memory, small cache", "[reset]") {
  SimOptions o;
  o.config = "tiny";
  o.mem_latency = "150:300";
  o.mem_reorder = true;
  QpmEnv env(env_options(o));
  bring_up(env, kQ, kRc, QpState::Rts);
  const uint8_t e0 = epoch_of(env, kQ);
  REQUIRE(env.execute_dp(dma(DpOp::DmaBegin, kQ, e0)).verdict == Verdict::Accept);
  // Evict kQ's line: tiny holds 16 contexts; query 40 other QPNs.
  for (uint32_t q = 0x100; q < 0x128; ++q) env.push_command(qpn_cmd(Opcode::QueryQp, q));
  env.drain();
  const uint64_t walks = csr_counter(env, "walks");
  // The reset and the DMA_END both miss: the reset's walk is outstanding when the DMA_END
  // arrives (or the other way round); either way the reset ends with the DMA.
  env.push_command(to_reset(kQ));
  env.push_dp(dma(DpOp::DmaEnd, kQ, e0));
  CHECK(wait_commands(env, 6000) < 6000);
  env.drain();
  CHECK(csr_counter(env, "walks") > walks);
  expect_reset_qpc(env.model().qpc(kQ), e0);
  CHECK(csr_counter(env, "resets_forced") == 0);
  require_final_check_clean(env);
}

// Issue 27 item 4 asked whether a reset that fenced its QP (quiesce) could fail later
// and leave the fence behind. It cannot (docs/reset.md, step 5; FencedResetNeverFails_A):
// here the reset polls for a DMA while its QP's line and its page's directory entry are
// pushed out of the caches, and the walk of its next poll meets a directory read error.
// The cache reads the entry again; the reset goes on waiting and ends OK with the DMA.
TEST_CASE("a fenced reset whose walk meets a directory read error still completes",
          "[reset]") {
  SimOptions o;
  o.config = "tiny";   // 2 sets x 2 ways, 2 miss registers, 4 directory entries cached
  QpmEnv env(env_options(o));
  std::vector<uint32_t> others;   // kQ's set (QPN mod 2) on five other pages
  for (uint32_t p = 1; p <= 5; ++p) others.push_back(kQ + 64 * p);
  for (uint32_t q : others) bring_up(env, q, kRc, QpState::Rts);
  bring_up(env, kQ, kRc, QpState::Rts);
  const uint8_t e0 = epoch_of(env, kQ);
  REQUIRE(env.execute_dp(dma(DpOp::DmaBegin, kQ, e0)).verdict == Verdict::Accept);
  env.push_command(to_reset(kQ));
  env.run_cycles(200);
  REQUIRE(env.commands_in_flight() == 1);   // fenced, polling for the DMA
  // The next read of kQ's directory entry fails; traffic on the other pages pushes kQ's
  // line and that entry out until the reset's poll has to read it.
  env.memory().fail_reads_at(kQptBase + (kQ >> 6) * 8);
  for (int i = 0; i < 400 && env.memory().injected_read_errors() == 0; ++i) {
    for (uint32_t q : others) env.push_dp(rx(q, MsgClass::Send, PktPos::Only, 7));
    env.run_cycles(100);
  }
  REQUIRE(env.memory().injected_read_errors() == 1);
  for (int i = 0; i < 20000 && (env.dp_queued() > 0 || env.dp_in_flight() > 0); ++i) env.tb().tick();
  env.run_cycles(200);
  CHECK(env.commands_in_flight() == 1);     // still waiting for the DMA, not failed
  CHECK(answer(env, dma(DpOp::DmaEnd, kQ, e0)).verdict == Verdict::Accept);
  CHECK(wait_commands(env, 2000) < 2000);
  env.drain();
  CHECK(env.scoreboard().last_response().status == Status::Ok);
  expect_reset_qpc(env.model().qpc(kQ), e0);
  CHECK(csr_counter(env, "resets_waited") == 1);
  require_final_check_clean(env);
}

TEST_CASE("reset under stress: random resets and destroys beside full traffic have zero mismatches",
          "[reset][system]") {
  const std::string config = GENERATE(as<std::string>{}, "default", "tiny");
  uint64_t waited = 0, forced = 0, stale = 0, quiesced = 0;
  for (uint64_t seed : {261201100ull, 261201101ull, 261201102ull}) {
    SimOptions o = qpm_sim_defaults();
    o.config = config;
    o.seed = seed;
    o.cmds = 800;
    o.qps = config == "tiny" ? 40 : 200;
    o.reset_stress = 0.05;
    INFO("replay: " << replay_line(o));
    QpmEnv env(env_options(o));
    const SimResult r = run_random(o, env);
    for (const auto &p : r.problems) UNSCOPED_INFO(p);
    CHECK(r.problems.empty());
    waited += r.counters[counter_index("resets_waited")];
    forced += r.counters[counter_index("resets_forced")];
    stale += r.counters[counter_index("drop_stale")];
    quiesced += r.counters[counter_index("drop_quiesce")];
  }
  // Every path of the reset was taken.
  CHECK(waited > 0);
  CHECK(forced > 0);
  CHECK(stale > 0);
  CHECK(quiesced > 0);
}

TEST_CASE("reset under stress with memory read and write errors: zero mismatches, and fills that "
          "failed made QPs fatal beside the resets",
          "[reset][system]") {
  const std::string config = GENERATE(as<std::string>{}, "default", "tiny");
  SimOptions o = qpm_sim_defaults();
  o.config = config;
  o.seed = config == "tiny" ? 261201110 : 261201111;
  o.cmds = 1200;
  o.qps = config == "tiny" ? 40 : 200;
  o.reset_stress = 0.05;
  o.mem_read_error_rate = 0.05;
  o.mem_write_error_rate = 0.1;
  INFO("replay: " << replay_line(o));
  QpmEnv env(env_options(o));
  const SimResult r = run_random(o, env);
  for (const auto &p : r.problems) UNSCOPED_INFO(p);
  REQUIRE(r.problems.empty());
  CHECK(env.scoreboard().mismatches() == 0);
  CHECK(env.dp_scoreboard().mismatches() == 0);
  // Both kinds of fault happened in the run: resets that waited, and failed context
  // reads that made a live QP fatal; written-back lines were retried.
  CHECK(r.counters[counter_index("resets_waited")] > 0);
  CHECK(env.qps_made_fatal() > 0);
  CHECK(r.counters[counter_index("wb_retries")] == env.memory().injected_write_errors());
}
