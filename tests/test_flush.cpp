// The flush of SPEC §7 through qpm_top's CQE port (docs/errors.md): one directed case per
// item of issue 7, each stating the completions it expects from SPEC §7 itself, and each
// also checked against the golden model by the harness (CqeChecker, final_check).
#include <fmt/format.h>

#include <map>

#include "sim_run.h"
#include "test_helpers.h"

using namespace qpm;
using namespace qpm::test;

namespace {

constexpr uint32_t kRc = 2, kUc = 3, kUd = 4;

Command flush_attrs() {
  Command a = valid_attributes();
  a.qp_access_flags = access::kRemoteWrite | access::kRemoteRead | access::kRemoteAtomic;
  a.max_rd_atomic = 4;
  a.max_dest_rd_atomic = 4;
  a.rq_psn = 100;
  a.sq_psn = 200;
  a.retry_cnt = 0;  // the first TIMEOUT / RNR_NAK is fatal
  a.rnr_retry = 0;
  return a;
}

// Create qpn with 8-entry queues and walk it to target.
void bring_up(QpmEnv &env, uint32_t qpn, uint32_t type, QpState target) {
  CreateAttrs c;
  c.log_sq_size = 3;
  c.log_rq_size = 3;
  REQUIRE(env.execute(create_cmd(qpn, type, c)).status == Status::Ok);
  for (const Command &m : walk_cmds(qpn, type, target, flush_attrs())) {
    REQUIRE(env.execute(m).status == Status::Ok);
  }
}

// A QP about to fail, with 8 send and 8 receive WQEs posted, and a healthy neighbour
// with 8 receive WQEs whose line is cached.
void sick_and_healthy(QpmEnv &env, uint32_t sick, uint32_t healthy) {
  bring_up(env, sick, kRc, QpState::Rts);
  bring_up(env, healthy, kRc, QpState::Rts);
  REQUIRE(env.ring(sq_db(sick, 8)));
  REQUIRE(env.ring(rq_db(sick, 8)));
  REQUIRE(env.ring(rq_db(healthy, 8)));
  env.execute(qpn_cmd(Opcode::QueryQp, healthy));  // cached
}

uint32_t cqn_snd(uint32_t qpn) { return 0x100 + qpn; }
uint32_t cqn_rcv(uint32_t qpn) { return 0x200 + qpn; }

// The completions of one queue, from..to-1, the first with `first` status.
std::vector<Cqe> stream(uint32_t qpn, bool rq, uint16_t from, uint16_t to,
                        WcStatus first = WcStatus::WrFlushErr) {
  std::vector<Cqe> out;
  for (uint16_t i = from; i != to; ++i) {
    out.push_back(Cqe{rq ? cqn_rcv(qpn) : cqn_snd(qpn), qpn, rq, i,
                      i == from ? first : WcStatus::WrFlushErr});
  }
  return out;
}

// The CQEs taken off the port, per (qpn, queue), in arrival order.
std::map<std::pair<uint32_t, bool>, std::vector<Cqe>> by_stream(const std::vector<Cqe> &all) {
  std::map<std::pair<uint32_t, bool>, std::vector<Cqe>> out;
  for (const Cqe &c : all) out[{c.qpn, c.rq}].push_back(c);
  return out;
}

void require_clean(QpmEnv &env) {
  const auto problems = env.final_check();
  for (const auto &p : problems) UNSCOPED_INFO(p);
  REQUIRE(problems.empty());
}

uint32_t counter(QpmEnv &env, const char *name) {
  return env.read_counters()[counter_index(name)];
}

// Keeps the datapath port full of WRITEs to `healthy` until no command is in flight (at
// most 20,000 operations); returns how many it pushed.
uint32_t saturate_until_commands_done(QpmEnv &env, uint32_t healthy) {
  uint32_t ops = 0;
  while (env.commands_in_flight() > 0 && ops < 20000) {
    while (env.dp_queued() < 4) {
      env.push_dp(rx(healthy, MsgClass::Write, PktPos::Only, 100 + ops));
      ++ops;
    }
    env.run_cycles(1);
  }
  return ops;
}

}  // namespace

TEST_CASE("a requester-side error completes its WQE first with its status, then flushes "
          "the full SQ and RQ",
          "[flush]") {
  struct Cause {
    const char *name;
    DpRequest op;
    WcStatus status;
  };
  const uint32_t q = 0x30;
  const Cause cause = GENERATE_COPY(values<Cause>({
      {"TIMEOUT", plain(DpOp::Timeout, 0x30), WcStatus::RetryExcErr},
      {"RNR_NAK", plain(DpOp::RnrNak, 0x30), WcStatus::RnrRetryExcErr},
      {"RX_NAK ACCESS", nak(0x30, NakCode::Access), WcStatus::RemAccessErr},
      {"RX_NAK INVALID", nak(0x30, NakCode::Invalid), WcStatus::RemInvReqErr},
      {"RX_NAK OPERATION", nak(0x30, NakCode::Operation), WcStatus::RemOpErr},
  }));
  INFO(cause.name);
  EnvOptions eo;
  eo.seed = 71;
  QpmEnv env(eo);
  bring_up(env, q, kRc, QpState::Rts);
  REQUIRE(env.ring(sq_db(q, 8)));  // full
  REQUIRE(env.ring(rq_db(q, 8)));  // full
  REQUIRE(env.execute_dp(tx(q, MsgClass::Send)).verdict == Verdict::Issue);
  REQUIRE(env.execute_dp(tx(q, MsgClass::Send)).verdict == Verdict::Issue);
  REQUIRE(env.execute_dp(ack(q, 1)).verdict == Verdict::Accept);  // WQE 0 done
  REQUIRE(env.execute_dp(cause.op).verdict == Verdict::Fatal);
  const auto got = by_stream(env.cqes().take_arrivals());
  // WQE 1 (sq_ci) failed; 2..7 were never issued; every receive WQE is flushed.
  CHECK(got.at({q, false}) == stream(q, false, 1, 8, cause.status));
  CHECK(got.at({q, true}) == stream(q, true, 0, 8));
  const Response r = env.execute(qpn_cmd(Opcode::QueryQp, q));
  CHECK(r.qpc.state == static_cast<uint32_t>(QpState::Err));
  CHECK(r.qpc.sq_ci == 8);
  CHECK(r.qpc.sq_issued == 8);
  CHECK(r.qpc.rq_ci == 8);
  CHECK(r.qpc.sq_err_pending == 0);
  CHECK(counter(env, "cqes") == 15);
  CHECK(counter(env, "wqes_flushed") == 14);
  require_clean(env);
}

TEST_CASE("a MODIFY to ERR flushes with WR_FLUSH_ERR only, WQEs posted in ERR are flushed "
          "at once, a count beyond the queue is refused",
          "[flush]") {
  EnvOptions eo;
  eo.seed = 72;
  QpmEnv env(eo);
  const uint32_t q = 0x31;
  bring_up(env, q, kRc, QpState::Rts);
  REQUIRE(env.ring(sq_db(q, 3)));
  REQUIRE(env.ring(rq_db(q, 2)));
  REQUIRE(env.execute_dp(tx(q, MsgClass::Write)).verdict == Verdict::Issue);
  const Response m = env.execute(modify_cmd(q, attr::kState, static_cast<uint32_t>(QpState::Err),
                                            flush_attrs()));
  REQUIRE(m.status == Status::Ok);
  auto got = by_stream(env.cqes().take_arrivals());
  CHECK(got.at({q, false}) == stream(q, false, 0, 3));
  CHECK(got.at({q, true}) == stream(q, true, 0, 2));
  // Posting in ERR: flushed at once, in index order, queue by queue.
  REQUIRE(env.ring(sq_db(q, 5)));
  REQUIRE(env.ring(rq_db(q, 8)));  // a full queue's worth: nothing stays queued in ERR
  got = by_stream(env.cqes().take_arrivals());
  CHECK(got.at({q, false}) == stream(q, false, 3, 8));
  CHECK(got.at({q, true}) == stream(q, true, 2, 10));
  CHECK_FALSE(env.ring(sq_db(q, 9)));  // more than the queue holds: refused
  CHECK(env.cqes().take_arrivals().empty());
  require_clean(env);
}

TEST_CASE("a UC or UD send error goes to SQE: its WQE completes with LOC_QP_OP_ERR, the SQ "
          "as it stood is flushed, the RQ keeps working, WQEs posted in SQE wait for RTS",
          "[flush]") {
  const uint32_t type = GENERATE(kUc, kUd);
  INFO((type == kUc ? "UC" : "UD"));
  EnvOptions eo;
  eo.seed = 73;
  QpmEnv env(eo);
  const uint32_t q = 0x32;
  bring_up(env, q, type, QpState::Rts);
  REQUIRE(env.ring(sq_db(q, 4)));
  REQUIRE(env.ring(rq_db(q, 2)));
  REQUIRE(env.execute_dp(tx(q, MsgClass::Send)).verdict == Verdict::Issue);  // WQE 0
  REQUIRE(env.execute_dp(tx(q, MsgClass::Read)).verdict == Verdict::LocalErr);  // WQE 1
  auto got = by_stream(env.cqes().take_arrivals());
  CHECK(got.at({q, false}) == stream(q, false, 1, 4, WcStatus::LocQpOpErr));
  CHECK(got.count({q, true}) == 0);
  // The receive side still works in SQE.
  CHECK(env.execute_dp(rx(q, MsgClass::Send, PktPos::Only, 100, flush_attrs().qkey)).verdict ==
        Verdict::Accept);
  // Posted in SQE: waits (no completion), then issues after SQE -> RTS.
  REQUIRE(env.ring(sq_db(q, 2)));
  CHECK(env.cqes().take_arrivals().empty());
  const Response r = env.execute(qpn_cmd(Opcode::QueryQp, q));
  CHECK(r.qpc.state == static_cast<uint32_t>(QpState::Sqe));
  CHECK(r.qpc.sq_ci == 4);
  CHECK(r.qpc.sq_issued == 4);
  CHECK(r.qpc.sq_pi == 6);
  CHECK(r.qpc.rq_ci == 1);
  REQUIRE(env.execute(modify_cmd(q, attr::kState, static_cast<uint32_t>(QpState::Rts),
                                 flush_attrs()))
              .status == Status::Ok);
  CHECK(env.execute_dp(tx(q, MsgClass::Send)).verdict == Verdict::Issue);
  CHECK(env.execute_dp(tx(q, MsgClass::Send)).verdict == Verdict::Issue);
  CHECK(env.execute_dp(tx(q, MsgClass::Send)).verdict == Verdict::Empty);
  CHECK(env.cqes().take_arrivals().empty());
  require_clean(env);
}

TEST_CASE("RESET and DESTROY during a flush stop it (an in-order prefix, then nothing), and "
          "the QPN is reused",
          "[flush]") {
  const bool destroy = GENERATE(false, true);
  INFO((destroy ? "DESTROY_QP" : "MODIFY to RESET"));
  EnvOptions eo;
  eo.seed = 74;
  QpmEnv env(eo);
  const uint32_t q = 0x33;
  bring_up(env, q, kRc, QpState::Rts);
  REQUIRE(env.ring(sq_db(q, 8)));
  REQUIRE(env.ring(rq_db(q, 8)));
  // Hold the CQE port so the flush cannot finish, and let a few completions through.
  env.cqe_sink().hold(true);
  env.push_command(
      modify_cmd(q, attr::kState, static_cast<uint32_t>(QpState::Err), flush_attrs()));
  env.run_cycles(300);
  env.cqe_sink().hold(false);
  env.run_cycles(3);
  env.cqe_sink().hold(true);
  Command stop = destroy ? qpn_cmd(Opcode::DestroyQp, q)
                         : modify_cmd(q, attr::kState, static_cast<uint32_t>(QpState::Reset),
                                      flush_attrs());
  env.push_command(stop);
  env.run_cycles(300);
  env.cqe_sink().hold(false);
  env.drain();
  const auto got = env.cqes().take_arrivals();
  // What came out is SQ 0.. in order (the SQ goes first), and far from all 16.
  REQUIRE(!got.empty());
  REQUIRE(got.size() < 16);
  for (size_t i = 0; i < got.size(); ++i) {
    const bool rq = i >= 8;
    CHECK(got[i] == stream(q, rq, 0, 8)[rq ? i - 8 : i]);
  }
  // The QPN again: a new incarnation that owes nothing until its own error.
  if (destroy) {
    CreateAttrs c;
    c.log_sq_size = 3;
    c.log_rq_size = 3;
    REQUIRE(env.execute(create_cmd(q, kRc, c)).status == Status::Ok);
  }
  for (const Command &m : walk_cmds(q, kRc, QpState::Rts, flush_attrs())) {
    REQUIRE(env.execute(m).status == Status::Ok);
  }
  REQUIRE(env.ring(sq_db(q, 2)));
  REQUIRE(env.execute_dp(tx(q, MsgClass::Send)).verdict == Verdict::Issue);
  // A token carries the new incarnation's epoch (docs/reset.md).
  DpRequest timeout = plain(DpOp::Timeout, q);
  timeout.epoch = static_cast<uint8_t>(env.model().qpc(q).epoch);
  REQUIRE(timeout.epoch != 0);
  REQUIRE(env.execute_dp(timeout).verdict == Verdict::Fatal);
  const auto again = by_stream(env.cqes().take_arrivals());
  CHECK(again.at({q, false}) == stream(q, false, 0, 2, WcStatus::RetryExcErr));
  require_clean(env);
}

TEST_CASE("CQE back-pressure slows only the flush: a healthy QP keeps its full rate",
          "[flush]") {
  EnvOptions eo;
  eo.seed = 75;
  QpmEnv env(eo);
  const uint32_t sick = 0x34, healthy = 0x35;
  sick_and_healthy(env, sick, healthy);
  env.cqe_sink().hold(true);
  REQUIRE(env.execute(modify_cmd(sick, attr::kState, static_cast<uint32_t>(QpState::Err),
                                 flush_attrs()))
              .status == Status::Ok);
  // 200 operations of the healthy QP while the CQE port is stopped: answered at the
  // port's rate, with the flush's CQE FIFO full behind them.
  const uint64_t start = env.tb().cycles();
  for (uint32_t i = 0; i < 200; ++i) env.push_dp(rx(healthy, MsgClass::Write, PktPos::Only, 100 + i));
  while (env.dp_in_flight() > 0 || env.dp_queued() > 0) env.run_cycles(1);
  const uint64_t cycles = env.tb().cycles() - start;
  CHECK(cycles < 200 + 40);  // one a cycle, plus the pipeline's latency
  CHECK(env.cqes().delivered() == 0);
  env.cqe_sink().hold(false);
  env.drain();
  CHECK(env.cqes().delivered() == 16);
  require_clean(env);
}

TEST_CASE("a saturated datapath does not starve a flush: a QUERY waiting for it answers "
          "while the traffic runs, at a bounded cost to it",
          "[flush]") {
  EnvOptions eo;
  eo.seed = 77;
  QpmEnv env(eo);
  const uint32_t sick = 0x36, healthy = 0x37;
  sick_and_healthy(env, sick, healthy);
  env.execute(qpn_cmd(Opcode::QueryQp, sick));
  // The MODIFY to ERR answers at once; the QUERY behind it waits in FlushWait until the
  // 16 completions are out, and the flush steps only ever find the datapath port busy:
  // the front keeps it full for the whole loop.
  env.push_command(modify_cmd(sick, attr::kState, static_cast<uint32_t>(QpState::Err),
                              flush_attrs()));
  env.push_command(qpn_cmd(Opcode::QueryQp, sick));
  const uint64_t start = env.tb().cycles();
  const uint32_t ops = saturate_until_commands_done(env, healthy);
  INFO(fmt::format("{} operations pushed", ops));
  REQUIRE(env.commands_in_flight() == 0);  // without aging the flush never ran
  CHECK(env.cqes().delivered() == 16);
  // A flush step goes first after 64 cycles of waiting (FlushMaxWait): the healthy QP
  // loses at most one cycle in 65, plus the two commands' and the steps' own cycles.
  while (env.dp_in_flight() > 0 || env.dp_queued() > 0) env.run_cycles(1);
  const uint64_t cycles = env.tb().cycles() - start;
  CHECK(cycles < ops + ops / 64 + 100);
  env.drain();
  require_clean(env);
}

// Issue 27 item 5: a command that waits for one QP's flush is bounded by that flush, not
// by the others or by the datapath's load. Four QPs owe 2,048 completions each and hold
// every flush slot; a fifth QP's flush (16 completions) overflows into the summary; then
// a QUERY of the fifth waits for it while a healthy QP keeps the datapath port full.
// Before, the QUERY waited for the 8,192 steps ahead (one per 65 cycles under that
// load, about half a million cycles); now its polls claim the flush engine's wait slot
// and that QP's steps go first.
TEST_CASE("a command waiting for one QP's flush waits for that flush only, not for the "
          "slots' long flushes under a full datapath",
          "[flush]") {
  EnvOptions eo;
  eo.seed = 79;
  QpmEnv env(eo);
  const std::vector<uint32_t> hogs = {0x50, 0x51, 0x52, 0x53};
  const uint32_t sick = 0x54, healthy = 0x55;
  for (uint32_t h : hogs) {
    CreateAttrs c;
    c.log_sq_size = 10;
    c.log_rq_size = 10;
    REQUIRE(env.execute(create_cmd(h, kRc, c)).status == Status::Ok);
    for (const Command &m : walk_cmds(h, kRc, QpState::Rts, flush_attrs())) {
      REQUIRE(env.execute(m).status == Status::Ok);
    }
    REQUIRE(env.ring(sq_db(h, 1024)));
    REQUIRE(env.ring(rq_db(h, 1024)));
  }
  sick_and_healthy(env, sick, healthy);
  const auto to_err = [](uint32_t q) {
    return modify_cmd(q, attr::kState, static_cast<uint32_t>(QpState::Err), flush_attrs());
  };
  // (env.execute would wait for the flushes to end: push them all at once.)
  for (uint32_t h : hogs) env.push_command(to_err(h));
  env.push_command(to_err(sick));
  env.push_command(qpn_cmd(Opcode::QueryQp, sick));
  const uint64_t start = env.tb().cycles();
  const uint32_t ops = saturate_until_commands_done(env, healthy);
  const uint64_t waited = env.tb().cycles() - start;
  INFO(fmt::format("the QUERY answered after {} cycles, {} operations pushed", waited, ops));
  REQUIRE(env.commands_in_flight() == 0);
  // Six commands, then 16 steps, each a round trip through the pipeline, and the
  // QUERY's polls.
  CHECK(waited < 1500);
  CHECK(env.cqes().delivered() < 2000);   // the long flushes were still running
  CHECK(counter(env, "flush_overflows") > 0);  // every slot was taken
  env.drain();
  const auto got = by_stream(env.cqes().take_arrivals());
  CHECK(got.at({sick, false}) == stream(sick, false, 0, 8));
  CHECK(got.at({sick, true}) == stream(sick, true, 0, 8));
  for (uint32_t h : hogs) {
    CHECK(got.at({h, false}).size() == 1024);
    CHECK(got.at({h, true}).size() == 1024);
  }
  require_clean(env);
}

TEST_CASE("many QPs flushing at once, more than the flush slots: every stream complete, "
          "lines evicted mid-flush",
          "[flush]") {
  const std::string config = GENERATE(as<std::string>{}, "default", "tiny");
  EnvOptions eo;
  eo.config = config;
  eo.seed = 76;
  eo.cqe_stall_prob = 0.3;
  QpmEnv env(eo);
  std::vector<uint32_t> qps;
  for (uint32_t i = 0; i < 24; ++i) qps.push_back(0x40 + 37 * i);
  for (uint32_t q : qps) {
    bring_up(env, q, kRc, QpState::Rts);
    REQUIRE(env.ring(sq_db(q, 1 + q % 8)));
    REQUIRE(env.ring(rq_db(q, 8 - q % 8)));
  }
  // All 24 fail in one burst of the datapath port (retry_cnt 0: each first TIMEOUT is
  // fatal); half issue a WQE first so TIMEOUT has something outstanding.
  for (uint32_t q : qps) env.push_dp(tx(q, MsgClass::Send));
  for (uint32_t q : qps) env.push_dp(plain(DpOp::Timeout, q));
  env.drain();
  const auto got = by_stream(env.cqes().take_arrivals());
  for (uint32_t q : qps) {
    INFO(fmt::format("qpn {:#x}", q));
    CHECK(got.at({q, false}) == stream(q, false, 0, static_cast<uint16_t>(1 + q % 8),
                                       WcStatus::RetryExcErr));
    CHECK(got.at({q, true}) == stream(q, true, 0, static_cast<uint16_t>(8 - q % 8)));
  }
  CHECK(counter(env, "flush_overflows") > 0);  // the scan found the QPs beyond the slots
  if (config == "tiny") CHECK(counter(env, "evictions") > 0);
  require_clean(env);
}

// Issue 27 item 6: the overflow summary's groups are sets of QP-table pages (page mod
// 256), and a pass skips the rest of a page whose first step finds it unmapped. Eight
// QPs, twice the flush slots, on eight pages of one group in the 2^24 QPN space fail at
// once: the pass over their group reads the directory entry of each of its 1,024 pages
// and the 64 contexts of each mapped one. Grouped by QPN (qpn mod 256) as before, the
// same eight QPs shared a group whose pass stepped 65,536 QPNs, each a walk.
TEST_CASE("an overflow pass in the 2^24 QPN space walks only its group's pages, and reads "
          "contexts only on the mapped ones",
          "[flush]") {
  EnvOptions eo;
  eo.config = "default";
  eo.seed = 78;
  eo.qpn_limit = 1u << 24;
  eo.map_all_pages = false;
  QpmEnv env(eo);
  std::vector<uint32_t> qps, pages;
  for (uint32_t i = 0; i < 8; ++i) {
    const uint32_t page = 5 + 256 * (1 + 97 * i);  // one summary group: page mod 256 = 5
    pages.push_back(page);
    qps.push_back(page * 64 + 3 + i);
  }
  env.map_pages(pages);
  for (uint32_t q : qps) {
    bring_up(env, q, kRc, QpState::Rts);
    REQUIRE(env.ring(sq_db(q, 2)));
    REQUIRE(env.ring(rq_db(q, 3)));
  }
  const uint32_t walks_before = counter(env, "walks");
  for (uint32_t q : qps) env.push_dp(tx(q, MsgClass::Send));
  for (uint32_t q : qps) env.push_dp(plain(DpOp::Timeout, q));
  env.drain();
  const auto got = by_stream(env.cqes().take_arrivals());
  for (uint32_t q : qps) {
    INFO(fmt::format("qpn {:#x}", q));
    CHECK(got.at({q, false}) == stream(q, false, 0, 2, WcStatus::RetryExcErr));
    CHECK(got.at({q, true}) == stream(q, true, 0, 3));
  }
  CHECK(counter(env, "flush_overflows") > 0);  // the pass found the QPs beyond the slots
  // A pass: 1,024 pages, of which 8 mapped (64 contexts each); a few passes at most.
  const uint32_t walks = counter(env, "walks") - walks_before;
  INFO(fmt::format("{} walks", walks));
  CHECK(walks < 3 * (1024 + 8 * 64));
  require_clean(env);
}

// The hand-off where a request meets its QP's flush (qpm_flush_engine): on a QP in ERR
// that owes nothing, a doorbell of two WQEs starts a flush of two steps and a second
// doorbell follows `gap` cycles after the first was answered (the harness takes one
// doorbell of a QPN at a time), for every gap from 0 to 40, on each queue: the second
// request meets the slot with a step in flight, the cycle after its last answer freed
// it, and the engine idle again. Every WQE must complete once, in order. (A request in
// the very cycle of the slot's last answer cannot happen: NoRequestAtLastAnswer_A.)
TEST_CASE("a flush request in every cycle around its slot's last answer is never lost",
          "[flush]") {
  EnvOptions eo;
  eo.config = GENERATE("default", "tiny");
  eo.seed = 77;
  QpmEnv env(eo);
  const uint32_t q = 0x41;
  bring_up(env, q, kRc, QpState::Err);
  env.drain();
  env.cqes().take_arrivals();
  for (const bool on_rq : {false, true}) {
    uint16_t next = 0;  // the queue's next WQE index
    for (unsigned gap = 0; gap <= 40; ++gap) {
      INFO((on_rq ? "RQ" : "SQ") << ", gap " << gap);
      env.push_doorbell(Doorbell{q, on_rq, 2});
      while (env.doorbell_pending(q)) env.run_cycles(1);  // its flush starts now
      env.run_cycles(gap);
      env.push_doorbell(Doorbell{q, on_rq, 1});
      env.drain();
      auto got = by_stream(env.cqes().take_arrivals());
      REQUIRE(got[{q, on_rq}] == stream(q, on_rq, next, static_cast<uint16_t>(next + 3)));
      REQUIRE(got.size() == 1);
      next = static_cast<uint16_t>(next + 3);
    }
  }
  CHECK(counter(env, "wqes_flushed") == 2 * 41 * 3);
  require_clean(env);
}

TEST_CASE("random runs with fatal verdicts: zero mismatches in verdicts, QPCs and CQE "
          "streams",
          "[flush][system]") {
  const std::string config = GENERATE(as<std::string>{}, "default", "tiny");
  const uint64_t seed = GENERATE(701, 702);
  SimOptions o;
  o.seed = seed;
  o.config = config;
  o.cmds = 1500;
  o.qps = config == "tiny" ? 24 : 64;
  o.mem_latency = "20:60";
  o.mem_reorder = true;
  o.dp_rate = 0.8;
  o.db_rate = 0.1;
  o.dp_idle = 0.05;
  o.dp_rsp_stall = 0.2;
  o.eqe_stall = 0.3;
  o.cqe_stall = 0.5;
  INFO("replay: " << replay_line(o));
  QpmEnv env(env_options(o));
  const SimResult r = run_random(o, env);
  for (const auto &p : r.problems) UNSCOPED_INFO(p);
  REQUIRE(r.problems.empty());
  CHECK(env.cqes().delivered() > 50);
  CHECK(env.cqes().counts().count(WcStatus::WrFlushErr) == 1);
  CHECK(env.streams().cqe().stalls() > 0);
}
