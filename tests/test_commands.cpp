// Directed tests of the command unit through qpm_top: every kind of bad input with the
// status SPEC §4/§5 gives it, all-or-nothing modify, and the attribute writes. Expected
// values are written from the spec; the scoreboard also checks RTL == model throughout.
#include <fmt/format.h>

#include "test_helpers.h"

using namespace qpm;
using namespace qpm::test;

namespace {

EnvOptions env_options(uint64_t seed) {
  EnvOptions o;
  o.seed = seed;
  o.cmd_idle_prob = 0.2;
  o.rsp_stall_prob = 0.3;
  return o;
}

void require_clean(QpmEnv &env) {
  REQUIRE(env.scoreboard().mismatches() == 0);
  REQUIRE_FALSE(env.tb().assertion_failed());
}

}  // namespace

TEST_CASE("QPN checks: reserved, at or above the limit, never created", "[commands]") {
  QpmEnv env(env_options(11));
  const uint32_t limit = env.model().config().qpn_limit;
  CHECK(env.execute(create_cmd(0, 2)).status == Status::BadParam);
  CHECK(env.execute(create_cmd(1, 3)).status == Status::BadParam);
  CHECK(env.execute(create_cmd(limit, 2)).status == Status::BadRes);
  CHECK(env.execute(create_cmd(0xffffffffu, 2)).status == Status::BadRes);
  // Bits above the 24-bit QPN: refused, never folded onto QP 0x10.
  REQUIRE(env.execute(create_cmd(0x10, 2)).status == Status::Ok);
  CHECK(env.execute(qpn_cmd(Opcode::QueryQp, 0x01000010)).status == Status::BadRes);
  CHECK(env.execute(qpn_cmd(Opcode::DestroyQp, 0x01000010)).status == Status::BadRes);
  CHECK(env.execute(create_cmd(0x01000000, 2)).status == Status::BadRes);
  CHECK(env.execute(create_cmd(0x80000012, 3)).status == Status::BadRes);
  CHECK(env.execute(qpn_cmd(Opcode::QueryQp, 0x10)).status == Status::Ok);
  CHECK(env.execute(qpn_cmd(Opcode::QueryQp, 0x12)).status == Status::BadRes);
  for (uint32_t qpn : {0u, 1u, 5u, limit, limit + 1}) {
    CHECK(env.execute(qpn_cmd(Opcode::QueryQp, qpn)).status == Status::BadRes);
    CHECK(env.execute(qpn_cmd(Opcode::DestroyQp, qpn)).status == Status::BadRes);
    CHECK(env.execute(modify_cmd(qpn, attr::kState, 0)).status == Status::BadRes);
    CHECK(env.execute(qpn_cmd(Opcode::PinQp, qpn)).status == Status::BadRes);
  }
  require_clean(env);
}

TEST_CASE("create twice, destroy twice, use after destroy", "[commands]") {
  QpmEnv env(env_options(12));
  const Response created = env.execute(create_cmd(0x10, 2));
  REQUIRE(created.status == Status::Ok);
  CHECK(created.qpc.valid == 1);
  CHECK(created.qpc.state == 0);
  CHECK(created.qpc.cqn_snd == 0x110);
  CHECK(env.execute(create_cmd(0x10, 4)).status == Status::ResBusy);
  CHECK(env.execute(qpn_cmd(Opcode::QueryQp, 0x10)).qpc.qp_type == 2);  // unchanged
  CHECK(env.execute(qpn_cmd(Opcode::DestroyQp, 0x10)).status == Status::Ok);
  CHECK(env.execute(qpn_cmd(Opcode::DestroyQp, 0x10)).status == Status::BadRes);
  CHECK(env.execute(qpn_cmd(Opcode::QueryQp, 0x10)).status == Status::BadRes);
  CHECK(env.execute(modify_cmd(0x10, attr::kState, 0)).status == Status::BadRes);
  // A new incarnation starts in RESET with the epoch advanced by the destroy.
  const Response again = env.execute(create_cmd(0x10, 3));
  REQUIRE(again.status == Status::Ok);
  CHECK(again.qpc.epoch == created.qpc.epoch + 1);
  require_clean(env);
}

TEST_CASE("create refuses out-of-range values", "[commands]") {
  QpmEnv env(env_options(13));
  auto bad = [&](auto mutate) {
    Command c = create_cmd(0x20, 2);
    mutate(c);
    return env.execute(c).status;
  };
  CHECK(bad([](Command &c) { c.qp_type = 0; }) == Status::BadParam);   // SMI
  CHECK(bad([](Command &c) { c.qp_type = 5; }) == Status::BadParam);
  CHECK(bad([](Command &c) { c.pd = 1u << 24; }) == Status::BadParam);
  CHECK(bad([](Command &c) { c.cqn_snd = 1u << 24; }) == Status::BadParam);
  CHECK(bad([](Command &c) { c.cqn_rcv = 0xffffffffu; }) == Status::BadParam);
  CHECK(bad([](Command &c) { c.log_sq_size = 16; }) == Status::BadParam);
  CHECK(bad([](Command &c) { c.log_rq_size = 200; }) == Status::BadParam);
  CHECK(env.execute(qpn_cmd(Opcode::QueryQp, 0x20)).status == Status::BadRes);  // nothing made
  CHECK(bad([](Command &) {}) == Status::Ok);
  require_clean(env);
}

TEST_CASE("unknown opcodes answer BAD_OP and change nothing", "[commands]") {
  QpmEnv env(env_options(14));
  REQUIRE(env.execute(create_cmd(0x30, 2)).status == Status::Ok);
  const Qpc before = env.execute(qpn_cmd(Opcode::QueryQp, 0x30)).qpc;
  for (uint32_t op : {0x00u, 0x03u, 0x14u, 0x7fu, 0xffu}) {
    Command c;
    c.use_raw_op = true;
    c.raw_op = static_cast<uint8_t>(op);
    c.qpn = 0x30;
    CHECK(env.execute(c).status == Status::BadOp);
  }
  CHECK(env.execute(qpn_cmd(Opcode::QueryQp, 0x30)).qpc == before);
  require_clean(env);
}

TEST_CASE("each out-of-range value of SPEC §5 step 4 is BAD_PARAM naming it", "[commands]") {
  QpmEnv env(env_options(15));
  const Config &cfg = env.model().config();
  // RC at SQD accepts the widest set of attributes (SQD -> SQD).
  walk_to(env, 0x40, 2, QpState::Sqd);
  const uint32_t sqd = static_cast<uint32_t>(QpState::Sqd);
  struct Case {
    const char *what;
    uint32_t bit;
    std::function<void(Command &)> set;
  };
  const std::vector<Case> cases = {
      {"port 0", attr::kPort, [](Command &c) { c.port_num = 0; }},
      {"port NUM_PORTS+1", attr::kPort, [&](Command &c) { c.port_num = cfg.num_ports + 1; }},
      {"pkey_index PKEY_TBL", attr::kPkeyIndex, [&](Command &c) { c.pkey_index = cfg.pkey_tbl; }},
      {"timeout 32", attr::kTimeout, [](Command &c) { c.timeout = 32; }},
      {"retry_cnt 8", attr::kRetryCnt, [](Command &c) { c.retry_cnt = 8; }},
      {"rnr_retry 8", attr::kRnrRetry, [](Command &c) { c.rnr_retry = 8; }},
      {"min_rnr_timer 32", attr::kMinRnrTimer, [](Command &c) { c.min_rnr_timer = 32; }},
      {"max_rd_atomic 17", attr::kMaxQpRdAtomic, [](Command &c) { c.max_rd_atomic = 17; }},
      {"max_dest_rd_atomic 255", attr::kMaxDestRdAtomic,
       [](Command &c) { c.max_dest_rd_atomic = 255; }},
      {"access flag bit 4", attr::kAccessFlags, [](Command &c) { c.qp_access_flags = 0x10; }},
      {"access flag bit 31", attr::kAccessFlags,
       [](Command &c) { c.qp_access_flags = 0x80000001u; }},
      {"av sl 16", attr::kAv, [](Command &c) { c.av.sl = 16; }},
      {"alt port 0", attr::kAltPath, [](Command &c) { c.alt_port_num = 0; }},
      {"alt timeout 32", attr::kAltPath, [](Command &c) { c.alt_timeout = 32; }},
      {"path_mig_state 3", attr::kPathMigState, [](Command &c) { c.path_mig_state = 3; }},
  };
  const Qpc before = env.model().qpc(0x40);
  for (const auto &k : cases) {
    Command c = modify_cmd(0x40, attr::kState | k.bit, sqd);
    k.set(c);
    const Response r = env.execute(c);
    INFO(k.what);
    CHECK(r.status == Status::BadParam);
    CHECK(r.syndrome.bad_value == k.bit);
    CHECK(r.syndrome.missing == 0);
    CHECK(r.syndrome.forbidden == 0);
  }
  // The limits themselves are accepted.
  Command edge = modify_cmd(0x40, attr::kState | attr::kPort | attr::kTimeout |
                                      attr::kMaxQpRdAtomic | attr::kPkeyIndex, sqd);
  edge.port_num = cfg.num_ports;
  edge.timeout = 31;
  edge.max_rd_atomic = cfg.max_rd_atomic;
  edge.pkey_index = cfg.pkey_tbl - 1;
  CHECK(env.model().qpc(0x40) == before);
  CHECK(env.execute(edge).status == Status::Ok);

  // PSNs and QPNs must fit 24 bits, path_mtu 1..5: checked where the transition takes them.
  walk_to(env, 0x41, 2, QpState::Init);
  const uint32_t rtr = static_cast<uint32_t>(QpState::Rtr);
  const uint32_t rtr_mask = attr::kState | required(2, QpState::Init, QpState::Rtr);
  for (auto set : std::vector<std::pair<uint32_t, std::function<void(Command &)>>>{
           {attr::kRqPsn, [](Command &c) { c.rq_psn = 1u << 24; }},
           {attr::kDestQpn, [](Command &c) { c.dest_qp_num = 0x01000000; }},
           {attr::kPathMtu, [](Command &c) { c.path_mtu = 0; }},
           {attr::kPathMtu, [](Command &c) { c.path_mtu = 6; }}}) {
    Command c = modify_cmd(0x41, rtr_mask, rtr);
    set.second(c);
    const Response r = env.execute(c);
    CHECK(r.status == Status::BadParam);
    CHECK(r.syndrome.bad_value == set.first);
  }
  walk_to(env, 0x42, 2, QpState::Rtr);
  Command sq = modify_cmd(0x42, attr::kState | required(2, QpState::Rtr, QpState::Rts),
                          static_cast<uint32_t>(QpState::Rts));
  sq.sq_psn = 0xffffffffu;
  CHECK(env.execute(sq).syndrome.bad_value == attr::kSqPsn);
  require_clean(env);
}

TEST_CASE("state checks: CUR_STATE, invalid transitions, state values above ERR",
          "[commands]") {
  QpmEnv env(env_options(16));
  walk_to(env, 0x50, 3, QpState::Rts);  // UC
  const uint32_t rts = static_cast<uint32_t>(QpState::Rts);
  Command lie = modify_cmd(0x50, attr::kState | attr::kCurState, rts);
  lie.cur_qp_state = static_cast<uint32_t>(QpState::Sqd);  // allowed name, but not true
  CHECK(env.execute(lie).status == Status::BadQpState);
  Command truth = lie;
  truth.cur_qp_state = rts;
  CHECK(env.execute(truth).status == Status::Ok);
  CHECK(env.execute(modify_cmd(0x50, attr::kState, 7)).status == Status::BadQpState);
  CHECK(env.execute(modify_cmd(0x50, attr::kState, 0xff)).status == Status::BadQpState);
  CHECK(env.execute(modify_cmd(0x50, attr::kState, 1)).status == Status::BadQpState);  // ->INIT
  // RESET -> ERR is not valid in mainline Linux.
  REQUIRE(env.execute(create_cmd(0x51, 2)).status == Status::Ok);
  CHECK(env.execute(modify_cmd(0x51, attr::kState, 6)).status == Status::BadQpState);
  require_clean(env);
}

TEST_CASE("an SQD QP that is still draining accepts only RESET and ERR", "[commands]") {
  QpmEnv env(env_options(17));
  walk_to(env, 0x60, 2, QpState::Sqd);
  Qpc q = env.model().qpc(0x60);
  q.sq_issued = 3;  // three send WQEs started, one completed: draining
  q.sq_ci = 1;
  env.force_qpc(0x60, q);
  const uint32_t sqd = static_cast<uint32_t>(QpState::Sqd);
  CHECK(env.execute(modify_cmd(0x60, attr::kState, sqd)).status == Status::BadQpState);
  CHECK(env.execute(modify_cmd(0x60, attr::kState, 3)).status == Status::BadQpState);
  CHECK(env.execute(modify_cmd(0x60, attr::kState, 6)).status == Status::Ok);  // ERR
  require_clean(env);
}

TEST_CASE("a refused modify leaves the QPC bit-for-bit unchanged", "[commands]") {
  QpmEnv env(env_options(18));
  std::mt19937_64 rng(18);
  const uint32_t types[] = {2, 3, 4};
  const QpState states[] = {QpState::Reset, QpState::Init, QpState::Rtr, QpState::Rts,
                            QpState::Sqd, QpState::Sqe, QpState::Err};
  int refused = 0;
  uint32_t qpn = 0x100;
  for (uint32_t type : types) {
    for (QpState s : states) {
      walk_to(env, qpn, type, s);
      for (int i = 0; i < 40; ++i) {
        Command c = modify_cmd(qpn, static_cast<uint32_t>(rng()) | attr::kState,
                               static_cast<uint32_t>(rng() % 9));
        c.port_num = rng() % 4;  // sometimes out of range
        c.cur_qp_state = rng() % 8;
        const BitVec before = pack_qpc(env.execute(qpn_cmd(Opcode::QueryQp, qpn)).qpc);
        const Response r = env.execute(c);
        if (r.status == Status::Ok) continue;
        ++refused;
        const BitVec after = pack_qpc(env.execute(qpn_cmd(Opcode::QueryQp, qpn)).qpc);
        REQUIRE(after == before);
        REQUIRE(r.qpc == Qpc{});  // a refusal carries no context
      }
      ++qpn;
    }
  }
  CHECK(refused > 500);
  require_clean(env);
}

TEST_CASE("max_rd_atomic and max_dest_rd_atomic are independent fields", "[commands]") {
  QpmEnv env(env_options(19));
  walk_to(env, 0x70, 2, QpState::Init);
  Command rtr = modify_cmd(0x70, attr::kState | required(2, QpState::Init, QpState::Rtr),
                           static_cast<uint32_t>(QpState::Rtr));
  rtr.max_dest_rd_atomic = 3;  // responder resources
  rtr.max_rd_atomic = 15;      // not in this mask: must not be written
  Response r = env.execute(rtr);
  REQUIRE(r.status == Status::Ok);
  CHECK(r.qpc.max_dest_rd_atomic == 3);
  CHECK(r.qpc.max_rd_atomic == 0);
  Command rts = modify_cmd(0x70, attr::kState | required(2, QpState::Rtr, QpState::Rts),
                           static_cast<uint32_t>(QpState::Rts));
  rts.max_rd_atomic = 9;          // initiator depth
  rts.max_dest_rd_atomic = 1;     // not in this mask
  r = env.execute(rts);
  REQUIRE(r.status == Status::Ok);
  CHECK(r.qpc.max_rd_atomic == 9);
  CHECK(r.qpc.max_dest_rd_atomic == 3);
  require_clean(env);
}

TEST_CASE("modify writes attributes, loads running copies, RESET clears hardware fields",
          "[commands]") {
  QpmEnv env(env_options(20));
  walk_to(env, 0x80, 2, QpState::Rts);
  const Qpc q = env.execute(qpn_cmd(Opcode::QueryQp, 0x80)).qpc;
  // Values from set_valid_attributes(), written by the walk's required masks.
  CHECK(q.state == 3);
  CHECK(q.port == 2);
  CHECK(q.pkey_index == 3);
  CHECK(q.access_flags == (access::kRemoteWrite | access::kRemoteRead));
  CHECK(q.av_dlid == 0x1234);
  CHECK(q.av_sl == 5);
  CHECK(q.path_mtu == 4);
  CHECK(q.dest_qpn == 0xabcdef);
  CHECK(q.rq_psn == 0x123456);
  CHECK(q.expected_psn == 0x123456);
  CHECK(q.sq_psn == 0x654321);
  CHECK(q.next_send_psn == 0x654321);
  CHECK(q.retry_cnt == 6);
  CHECK(q.cur_retry_cnt == 6);
  CHECK(q.rnr_retry == 5);
  CHECK(q.cur_rnr_retry == 5);
  CHECK(q.qkey == 0);  // RC never takes QKEY
  // RTS -> SQD takes en_sqd_async_notify from the command, or 0 when absent.
  Command sqd = modify_cmd(0x80, attr::kState | attr::kEnSqdAsyncNotify, 4);
  CHECK(env.execute(sqd).qpc.en_sqd_async_notify == 1);
  CHECK(env.execute(modify_cmd(0x80, attr::kState, 3)).status == Status::Ok);
  CHECK(env.execute(modify_cmd(0x80, attr::kState, 4)).qpc.en_sqd_async_notify == 0);
  // To RESET: hardware fields cleared, epoch advanced, software fields kept.
  const Response reset = env.execute(modify_cmd(0x80, attr::kState, 0));
  REQUIRE(reset.status == Status::Ok);
  CHECK(reset.qpc.state == 0);
  CHECK(reset.qpc.next_send_psn == 0);
  CHECK(reset.qpc.expected_psn == 0);
  CHECK(reset.qpc.cur_retry_cnt == 0);
  CHECK(reset.qpc.epoch == q.epoch + 1);
  CHECK(reset.qpc.sq_psn == 0x654321);
  CHECK(reset.qpc.dest_qpn == 0xabcdef);
  require_clean(env);
}

TEST_CASE("MAP_PAGE / UNMAP_PAGE validate the directory index and alignment", "[commands]") {
  QpmEnv env(env_options(21));
  const Config &cfg = env.model().config();
  const uint32_t dirs = cfg.qpn_limit >> cfg.page_bits;
  Command map;
  map.op = Opcode::MapPage;
  map.dir_index = dirs - 1;
  map.page_address = 0x100000;
  CHECK(env.execute(map).status == Status::Ok);
  map.dir_index = dirs;
  CHECK(env.execute(map).status == Status::BadParam);
  map.dir_index = 0;
  map.page_address = 0x100040;  // not page aligned
  CHECK(env.execute(map).status == Status::BadParam);
  Command unmap;
  unmap.op = Opcode::UnmapPage;
  unmap.dir_index = 0;
  CHECK(env.execute(unmap).status == Status::Ok);
  unmap.dir_index = 0xffffffffu;
  CHECK(env.execute(unmap).status == Status::BadParam);
  Command sync;
  sync.op = Opcode::SyncCache;
  CHECK(env.execute(sync).status == Status::Ok);
  require_clean(env);
}
