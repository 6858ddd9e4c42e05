// Golden-model tests: the model alone, against values worked out by hand from SPEC.md
// §3.1/§4/§5, docs/state-machine.md and ib-qp-state-table.md (§1.3 matrix, §1.6
// corollaries). Expectations are literals, never computed with the model's helpers.
#include <algorithm>
#include <catch2/catch.hpp>
#include <set>
#include <stdexcept>
#include <tuple>

#include "golden_model.h"
#include "qp_trans_table.h"

using namespace qpm;

namespace {

constexpr uint32_t kRc = 2, kUc = 3, kUd = 4;
constexpr uint32_t kReset = 0, kInit = 1, kRtr = 2, kRts = 3, kSqd = 4, kSqe = 5, kErr = 6;
constexpr uint32_t kQpn = 0x10;

Command create_cmd(uint32_t qpn, uint32_t type) {
  Command c;
  c.op = Opcode::CreateQp;
  c.qpn = qpn;
  c.qp_type = type;
  c.pd = 3;
  c.cqn_snd = 1;
  c.cqn_rcv = 2;
  c.log_sq_size = 6;
  c.log_rq_size = 6;
  return c;
}

Command simple_cmd(Opcode op, uint32_t qpn) {
  Command c;
  c.op = op;
  c.qpn = qpn;
  return c;
}

// A MODIFY_QP with every attribute set to a valid, recognisable value; the mask decides
// which of them count.
Command modify_cmd(uint32_t qpn, uint32_t mask, uint32_t next = kReset) {
  Command c;
  c.op = Opcode::ModifyQp;
  c.qpn = qpn;
  c.attr_mask = mask;
  c.qp_state = next;
  c.qp_access_flags = 0xe;
  c.pkey_index = 5;
  c.port_num = 1;
  c.qkey = 0x80010000;
  c.av = {0x1234, 3, 7};
  c.path_mtu = 5;
  c.timeout = 14;
  c.retry_cnt = 6;
  c.rnr_retry = 7;
  c.rq_psn = 0x123456;
  c.max_rd_atomic = 4;
  c.alt_av = {0x4321, 9, 2};
  c.alt_pkey_index = 6;
  c.alt_port_num = 2;
  c.alt_timeout = 18;
  c.min_rnr_timer = 12;
  c.sq_psn = 0xabcdef;
  c.max_dest_rd_atomic = 8;
  c.path_mig_state = 2;
  c.dest_qp_num = 0x654321;
  return c;
}

// Hand-written masks: the REQUIRED sets of ib-qp-state-table.md §1.4, plus STATE.
constexpr uint32_t kRcUcInitMask = 0x1 | 0x38;     // STATE|ACCESS_FLAGS|PKEY_INDEX|PORT
constexpr uint32_t kUdInitMask = 0x1 | 0x70;       // STATE|PKEY_INDEX|PORT|QKEY
constexpr uint32_t kRcRtrMask = 0x1 | 0x129180;    // + AV|MTU|RQ_PSN|MIN_RNR|MAX_DEST|DQPN
constexpr uint32_t kUcRtrMask = 0x1 | 0x101180;    // + AV|PATH_MTU|RQ_PSN|DEST_QPN
constexpr uint32_t kRcRtsMask = 0x1 | 0x12e00;     // + TIMEOUT|RETRY|RNR|MAX_QP_RD|SQ_PSN
constexpr uint32_t kSqPsnRtsMask = 0x1 | 0x10000;  // UC/UD: + SQ_PSN

Status modify_status(GoldenModel &m, uint32_t qpn, uint32_t mask, uint32_t next) {
  return m.execute(modify_cmd(qpn, mask, next)).status;
}

// Creates qpn and walks it RESET -> ... -> target through the legal sequence.
void bring_to(GoldenModel &m, uint32_t qpn, uint32_t type, uint32_t target) {
  REQUIRE(m.execute(create_cmd(qpn, type)).status == Status::Ok);
  if (target == kReset) return;
  const uint32_t init = type == kUd ? kUdInitMask : kRcUcInitMask;
  REQUIRE(modify_status(m, qpn, init, kInit) == Status::Ok);
  if (target == kInit) return;
  if (target == kErr) {
    REQUIRE(modify_status(m, qpn, attr::kState, kErr) == Status::Ok);
    return;
  }
  const uint32_t rtr = type == kRc ? kRcRtrMask : type == kUc ? kUcRtrMask : attr::kState;
  REQUIRE(modify_status(m, qpn, rtr, kRtr) == Status::Ok);
  if (target == kRtr) return;
  const uint32_t rts = type == kRc ? kRcRtsMask : kSqPsnRtsMask;
  REQUIRE(modify_status(m, qpn, rts, kRts) == Status::Ok);
  if (target == kRts) return;
  REQUIRE(target == kSqd);
  REQUIRE(modify_status(m, qpn, attr::kState, kSqd) == Status::Ok);
}

Command map_cmd(uint32_t index, uint64_t address) {
  Command c;
  c.op = Opcode::MapPage;
  c.dir_index = index;
  c.page_address = address;
  return c;
}

Command unmap_cmd(uint32_t index) {
  Command c;
  c.op = Opcode::UnmapPage;
  c.dir_index = index;
  return c;
}

// Page i of the test tables: distinct, zeroed (never written), 4 KiB apart.
constexpr uint64_t kPageBase = 0x1000000;
uint64_t page_addr(uint32_t i) { return kPageBase + uint64_t{i} * 4096; }

// Maps every directory entry software may map (qpn_limit >> page_bits of them) to
// page_addr(i), so every QPN below the limit has a place in memory.
void map_all(GoldenModel &m) {
  const Config &cfg = m.config();
  for (uint32_t i = 0; i < (cfg.qpn_limit >> cfg.page_bits); ++i) {
    REQUIRE(m.execute(map_cmd(i, page_addr(i))).status == Status::Ok);
  }
}

GoldenModel mapped_model(const Config &cfg = Config{}) {
  GoldenModel m(cfg);
  map_all(m);
  return m;
}

Syndrome syn(uint32_t missing, uint32_t forbidden, uint32_t bad_value) {
  Syndrome s;
  s.missing = missing;
  s.forbidden = forbidden;
  s.bad_value = bad_value;
  return s;
}

}  // namespace

// ---------------------------------------------------------------------------------
// The transition table as data.

TEST_CASE("table has 66 rows, 22 per type", "[model]") {
  CHECK(kTransTable.size() == 66);
  int per_type[3] = {0, 0, 0};
  for (const auto &r : kTransTable) {
    const uint32_t t = static_cast<uint32_t>(r.type);
    REQUIRE(t >= kRc);
    REQUIRE(t <= kUd);
    ++per_type[t - kRc];
  }
  CHECK(per_type[0] == 22);
  CHECK(per_type[1] == 22);
  CHECK(per_type[2] == 22);
}

TEST_CASE("table holds exactly the valid pairs of the section 1.3 matrix", "[model]") {
  // Rows = current state, columns = next state; 1 = valid (mainline: RESET->ERR invalid).
  const int kMatrix[7][7] = {
      // RESET INIT RTR RTS SQD SQE ERR
      {1, 1, 0, 0, 0, 0, 0},  // RESET
      {1, 1, 1, 0, 0, 0, 1},  // INIT
      {1, 0, 0, 1, 0, 0, 1},  // RTR
      {1, 0, 0, 1, 1, 0, 1},  // RTS
      {1, 0, 0, 1, 1, 0, 1},  // SQD
      {1, 0, 0, 1, 0, 0, 1},  // SQE
      {1, 0, 0, 0, 0, 0, 1},  // ERR
  };
  for (uint32_t type : {kRc, kUc, kUd}) {
    std::set<std::pair<uint32_t, uint32_t>> rows;
    for (const auto &r : kTransTable) {
      if (static_cast<uint32_t>(r.type) != type) continue;
      const bool fresh =
          rows.insert({static_cast<uint32_t>(r.cur), static_cast<uint32_t>(r.next)}).second;
      CHECK(fresh);  // no duplicate rows
    }
    int valid_count = 0;
    for (uint32_t cur = 0; cur < 7; ++cur) {
      for (uint32_t next = 0; next < 7; ++next) {
        INFO("type " << type << " " << cur << "->" << next);
        const bool expect = kMatrix[cur][next] != 0;
        valid_count += expect;
        CHECK((rows.count({cur, next}) == 1) == expect);
        CHECK(lookup_transition(type, cur, next).valid == expect);
      }
    }
    CHECK(valid_count == 22);
  }
}

TEST_CASE("table spot checks against the kernel hex values", "[model]") {
  using E = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, uint32_t>;
  for (const E &e :
       {E{kRc, kInit, kRtr, 0x0129180, 0x0004018}, E{kRc, kRtr, kRts, 0x0012e00, 0x004c00a},
        E{kRc, kSqd, kSqd, 0x0000000, 0x006eeb8}, E{kRc, kSqe, kRts, 0x0000000, 0x0000000},
        E{kRc, kRts, kSqd, 0x0000000, 0x0000004}, E{kUc, kInit, kRtr, 0x0101180, 0x0004018},
        E{kUc, kSqd, kSqd, 0x0000000, 0x0044098}, E{kUc, kSqe, kRts, 0x0000000, 0x000000a},
        E{kUd, kReset, kInit, 0x0000070, 0x0000000},
        E{kUd, kInit, kRtr, 0x0000000, 0x0000050}, E{kUd, kRtr, kRts, 0x0010000, 0x0000042},
        E{kUd, kErr, kErr, 0x0000000, 0x0000000}}) {
    const TransEntry t = lookup_transition(std::get<0>(e), std::get<1>(e), std::get<2>(e));
    CHECK(t.valid);
    CHECK(t.req == std::get<3>(e));
    CHECK(t.opt == std::get<4>(e));
  }
}

TEST_CASE("lookup_transition rejects out-of-range type and state", "[model]") {
  for (uint32_t type : {0u, 1u, 5u, 8u, 255u}) {
    const TransEntry t = lookup_transition(type, kReset, kInit);
    CHECK_FALSE(t.valid);
    CHECK(t.req == 0);
    CHECK(t.opt == 0);
  }
  CHECK_FALSE(lookup_transition(kRc, 7, kReset).valid);
  CHECK_FALSE(lookup_transition(kRc, kReset, 7).valid);
  CHECK_FALSE(lookup_transition(kRc, 0xffffffff, kErr).valid);
  CHECK_FALSE(lookup_transition(kRc, kReset, kErr).valid);  // mainline
}

// ---------------------------------------------------------------------------------
// Step 3 as a free function (corollaries of section 1.6).

TEST_CASE("check_modify_mask: required minima and extras", "[model]") {
  // Corollary 7: RC INIT->RTR.
  CHECK(check_modify_mask(kRc, kInit, kRtr, 0x129181) == syn(0, 0, 0));
  CHECK(check_modify_mask(kRc, kInit, kRtr, 0x129181 & ~attr::kMinRnrTimer) ==
        syn(attr::kMinRnrTimer, 0, 0));
  CHECK(check_modify_mask(kRc, kInit, kRtr, 0x129181 | attr::kQkey) ==
        syn(0, attr::kQkey, 0));
  CHECK(check_modify_mask(kRc, kInit, kRtr, 0x129181 | 0x4018) == syn(0, 0, 0));
  // Both sets at once.
  CHECK(check_modify_mask(kRc, kInit, kRtr, 0x1 | 0x80 | attr::kQkey | attr::kCap) ==
        syn(0x129100, attr::kQkey | attr::kCap, 0));
  // Corollary 1: ->RESET and ->ERR accept only STATE.
  CHECK(check_modify_mask(kRc, kRts, kErr, 0x1) == syn(0, 0, 0));
  CHECK(check_modify_mask(kRc, kRts, kErr, 0x3) == syn(0, attr::kCurState, 0));
  CHECK(check_modify_mask(kUd, kSqd, kReset, 0x41) == syn(0, attr::kQkey, 0));
  // Corollary 3: CUR_STATE only on ->RTS from RTR/RTS/SQD (and SQE for UC/UD).
  CHECK(check_modify_mask(kUd, kSqe, kRts, 0x3) == syn(0, 0, 0));
  CHECK(check_modify_mask(kRc, kSqe, kRts, 0x3) == syn(0, attr::kCurState, 0));
  CHECK(check_modify_mask(kRc, kRts, kSqd, 0x3) == syn(0, attr::kCurState, 0));
  // Corollary 8: UD RESET->INIT requires QKEY; UD never takes ACCESS_FLAGS.
  CHECK(check_modify_mask(kUd, kReset, kInit, 0x31) == syn(attr::kQkey, 0, 0));
  CHECK(check_modify_mask(kUd, kReset, kInit, 0x79) == syn(0, attr::kAccessFlags, 0));
  // Corollary 10: RC SQD->SQD re-parameterises; UC does not take TIMEOUT there.
  CHECK(check_modify_mask(kRc, kSqd, kSqd, 0x6eeb9) == syn(0, 0, 0));
  CHECK(check_modify_mask(kUc, kSqd, kSqd, 0x1 | attr::kTimeout) ==
        syn(0, attr::kTimeout, 0));
  // Bits never allowed: CAP, reserved 21..24, RATE_LIMIT.
  CHECK(check_modify_mask(kRc, kRts, kRts, 0x1 | (1u << 19) | (1u << 22) | (1u << 25)) ==
        syn(0, (1u << 19) | (1u << 22) | (1u << 25), 0));
}

// ---------------------------------------------------------------------------------
// Step 4 as a free function: every range check, at its boundaries.

TEST_CASE("bad_value_bits: each range check", "[model]") {
  const Config cfg;  // NUM_PORTS 2, PKEY_TBL 128, MAX_RD_ATOMIC 16
  Command c = modify_cmd(kQpn, 0xffffffff);
  REQUIRE(bad_value_bits(c, cfg) == 0);  // the defaults are all valid

  struct Case {
    const char *name;
    uint32_t bit;
    void (*set)(Command &, uint32_t);
    uint32_t good_lo, good_hi, bad;  // two in-range values and one out of range
  };
  const Case cases[] = {
      {"port low", 0x20, [](Command &x, uint32_t v) { x.port_num = v; }, 1, 2, 0},
      {"port high", 0x20, [](Command &x, uint32_t v) { x.port_num = v; }, 1, 2, 3},
      {"pkey_index", 0x10, [](Command &x, uint32_t v) { x.pkey_index = v; }, 0, 127, 128},
      {"path_mtu low", 0x100, [](Command &x, uint32_t v) { x.path_mtu = v; }, 1, 5, 0},
      {"path_mtu high", 0x100, [](Command &x, uint32_t v) { x.path_mtu = v; }, 1, 5, 6},
      {"timeout", 0x200, [](Command &x, uint32_t v) { x.timeout = v; }, 0, 31, 32},
      {"retry_cnt", 0x400, [](Command &x, uint32_t v) { x.retry_cnt = v; }, 0, 7, 8},
      {"rnr_retry", 0x800, [](Command &x, uint32_t v) { x.rnr_retry = v; }, 0, 7, 8},
      {"min_rnr_timer", 0x8000, [](Command &x, uint32_t v) { x.min_rnr_timer = v; }, 0, 31,
       32},
      {"max_rd_atomic", 0x2000, [](Command &x, uint32_t v) { x.max_rd_atomic = v; }, 0, 16,
       17},
      {"max_dest_rd_atomic", 0x20000,
       [](Command &x, uint32_t v) { x.max_dest_rd_atomic = v; }, 0, 16, 17},
      {"access_flags", 0x8, [](Command &x, uint32_t v) { x.qp_access_flags = v; }, 0, 0xf,
       0x10},
      {"sq_psn", 0x10000, [](Command &x, uint32_t v) { x.sq_psn = v; }, 0, 0xffffff,
       0x1000000},
      {"rq_psn", 0x1000, [](Command &x, uint32_t v) { x.rq_psn = v; }, 0, 0xffffff,
       0x1000000},
      {"dest_qpn", 0x100000, [](Command &x, uint32_t v) { x.dest_qp_num = v; }, 0, 0xffffff,
       0x1000000},
      {"av sl", 0x80, [](Command &x, uint32_t v) { x.av.sl = v; }, 0, 15, 16},
      {"alt sl", 0x4000, [](Command &x, uint32_t v) { x.alt_av.sl = v; }, 0, 15, 16},
      {"alt port low", 0x4000, [](Command &x, uint32_t v) { x.alt_port_num = v; }, 1, 2, 0},
      {"alt port high", 0x4000, [](Command &x, uint32_t v) { x.alt_port_num = v; }, 1, 2,
       3},
      {"alt pkey_index", 0x4000, [](Command &x, uint32_t v) { x.alt_pkey_index = v; }, 0,
       127, 128},
      {"alt timeout", 0x4000, [](Command &x, uint32_t v) { x.alt_timeout = v; }, 0, 31, 32},
      {"path_mig_state", 0x40000, [](Command &x, uint32_t v) { x.path_mig_state = v; }, 0,
       2, 3},
      {"en_sqd_async_notify", 0x4,
       [](Command &x, uint32_t v) { x.en_sqd_async_notify = v; }, 0, 1, 2},
  };
  for (const Case &k : cases) {
    INFO(k.name);
    Command x = modify_cmd(kQpn, 0xffffffff);
    k.set(x, k.good_lo);
    CHECK(bad_value_bits(x, cfg) == 0);
    k.set(x, k.good_hi);
    CHECK(bad_value_bits(x, cfg) == 0);
    k.set(x, k.bad);
    CHECK(bad_value_bits(x, cfg) == k.bit);
    x.attr_mask = ~k.bit;  // an attribute absent from the mask is not checked
    CHECK(bad_value_bits(x, cfg) == 0);
  }
}

TEST_CASE("bad_value_bits: several at once, QKEY unchecked, config-dependent", "[model]") {
  Command c = modify_cmd(kQpn, 0xffffffff);
  c.port_num = 0;
  c.path_mtu = 7;
  c.sq_psn = 0xffffffff;
  c.qkey = 0xffffffff;
  c.av.dlid = 0xffff;
  c.av.sgid_index = 0xff;
  CHECK(bad_value_bits(c, Config{}) == (0x20u | 0x100u | 0x10000u));

  Config small;
  small.num_ports = 1;
  small.pkey_tbl = 16;
  small.max_rd_atomic = 4;
  Command d = modify_cmd(kQpn, 0xffffffff);
  d.port_num = 2;
  d.pkey_index = 16;
  d.max_rd_atomic = 5;
  d.max_dest_rd_atomic = 4;
  d.alt_port_num = 1;
  d.alt_pkey_index = 15;
  CHECK(bad_value_bits(d, small) == (0x20u | 0x10u | 0x2000u));
}

// ---------------------------------------------------------------------------------
// MODIFY_QP through the model.

TEST_CASE("RC INIT->RTR: required set passes, missing and extra bits named", "[model]") {
  GoldenModel m = mapped_model();
  bring_to(m, kQpn, kRc, kInit);
  const Qpc before = m.qpc(kQpn);

  Response r = m.execute(modify_cmd(kQpn, kRcRtrMask & ~attr::kMinRnrTimer, kRtr));
  CHECK(r.status == Status::BadParam);
  CHECK(r.syndrome == syn(attr::kMinRnrTimer, 0, 0));
  CHECK(r.qpc == Qpc{});
  CHECK(m.qpc(kQpn) == before);

  r = m.execute(modify_cmd(kQpn, kRcRtrMask | attr::kQkey, kRtr));
  CHECK(r.status == Status::BadParam);
  CHECK(r.syndrome == syn(0, attr::kQkey, 0));
  CHECK(m.qpc(kQpn) == before);

  r = m.execute(modify_cmd(kQpn, kRcRtrMask, kRtr));
  CHECK(r.status == Status::Ok);
  CHECK(r.syndrome == syn(0, 0, 0));
  CHECK(r.qpc == m.qpc(kQpn));
  const Qpc &q = m.qpc(kQpn);
  CHECK(q.state == kRtr);
  CHECK(q.av_dlid == 0x1234);
  CHECK(q.av_sl == 3);
  CHECK(q.av_sgid_index == 7);
  CHECK(q.path_mtu == 5);
  CHECK(q.rq_psn == 0x123456);
  CHECK(q.expected_psn == 0x123456);  // the running PSN starts at the initial one
  CHECK(q.min_rnr_timer == 12);
  CHECK(q.max_dest_rd_atomic == 8);
  CHECK(q.dest_qpn == 0x654321);
  // Not in the mask: untouched.
  CHECK(q.sq_psn == 0);
  CHECK(q.next_send_psn == 0);
  CHECK(q.max_rd_atomic == 0);
  CHECK(q.qkey == 0);
  CHECK(q.alt_port == 0);
}

TEST_CASE("modify step 2: invalid transitions are BAD_QP_STATE", "[model]") {
  GoldenModel m = mapped_model();
  bring_to(m, kQpn, kRc, kReset);
  const Qpc reset_qpc = m.qpc(kQpn);
  // Mainline: RESET->ERR is not valid.
  Response r = m.execute(modify_cmd(kQpn, attr::kState, kErr));
  CHECK(r.status == Status::BadQpState);
  CHECK(r.syndrome == syn(0, 0, 0));
  CHECK(r.qpc == Qpc{});
  CHECK(m.qpc(kQpn) == reset_qpc);
  // A next state above ERR is an invalid transition, not a range error.
  CHECK(modify_status(m, kQpn, attr::kState, 7) == Status::BadQpState);
  CHECK(modify_status(m, kQpn, attr::kState, 0xff) == Status::BadQpState);
  // Step 2 comes before step 3: a bad transition with a bad mask is still BAD_QP_STATE.
  CHECK(modify_status(m, kQpn, attr::kState | attr::kCap, kRts) == Status::BadQpState);

  GoldenModel m2 = mapped_model();
  bring_to(m2, kQpn, kRc, kRtr);
  const Qpc rtr_qpc = m2.qpc(kQpn);
  // Corollary 4: RTR without STATE is RTR->RTR, never valid, even with mask 0.
  r = m2.execute(modify_cmd(kQpn, 0));
  CHECK(r.status == Status::BadQpState);
  CHECK(r.syndrome == syn(0, 0, 0));
  CHECK(modify_status(m2, kQpn, attr::kState, kRtr) == Status::BadQpState);
  CHECK(modify_status(m2, kQpn, attr::kState, kInit) == Status::BadQpState);
  CHECK(modify_status(m2, kQpn, attr::kState, kSqd) == Status::BadQpState);
  CHECK(modify_status(m2, kQpn, attr::kState, kSqe) == Status::BadQpState);
  CHECK(m2.qpc(kQpn) == rtr_qpc);
}

TEST_CASE("modify without STATE is the self-transition", "[model]") {
  GoldenModel m = mapped_model();
  bring_to(m, kQpn, kRc, kReset);
  CHECK(modify_status(m, kQpn, 0, 0) == Status::Ok);  // RESET->RESET, empty mask
  // ...but the self-transition to RESET is a reset: epoch 0 -> 1.
  CHECK(m.qpc(kQpn).epoch == 1);
  Response r = m.execute(modify_cmd(kQpn, attr::kPort));
  CHECK(r.status == Status::BadParam);
  CHECK(r.syndrome == syn(0, attr::kPort, 0));

  GoldenModel m2 = mapped_model();
  bring_to(m2, kQpn, kRc, kInit);
  Command c = modify_cmd(kQpn, attr::kPort | attr::kPkeyIndex);
  c.port_num = 2;
  c.pkey_index = 9;
  r = m2.execute(c);
  CHECK(r.status == Status::Ok);
  CHECK(m2.qpc(kQpn).state == kInit);
  CHECK(m2.qpc(kQpn).port == 2);
  CHECK(m2.qpc(kQpn).pkey_index == 9);

  GoldenModel m3 = mapped_model();
  bring_to(m3, kQpn, kRc, kErr);
  CHECK(modify_status(m3, kQpn, 0, 0) == Status::Ok);  // ERR->ERR
  CHECK(m3.qpc(kQpn).state == kErr);
  CHECK(modify_status(m3, kQpn, attr::kPort, 0) == Status::BadParam);
}

TEST_CASE("modify: CUR_STATE rules", "[model]") {
  GoldenModel m = mapped_model();
  bring_to(m, kQpn, kRc, kRts);
  const Qpc rts_qpc = m.qpc(kQpn);

  // Correct value, but CUR_STATE is not allowed on RTS->ERR: forbidden.
  Command c = modify_cmd(kQpn, attr::kState | attr::kCurState, kErr);
  c.cur_qp_state = kRts;
  Response r = m.execute(c);
  CHECK(r.status == Status::BadParam);
  CHECK(r.syndrome == syn(0, attr::kCurState, 0));
  CHECK(m.qpc(kQpn) == rts_qpc);

  // Wrong value: BAD_QP_STATE, before the mask is looked at.
  c = modify_cmd(kQpn, attr::kState | attr::kCurState, kErr);
  c.cur_qp_state = kRtr;
  r = m.execute(c);
  CHECK(r.status == Status::BadQpState);
  CHECK(r.syndrome == syn(0, 0, 0));

  // CUR_STATE without STATE asserting RTS: RTS->RTS, which allows it.
  c = modify_cmd(kQpn, attr::kCurState);
  c.cur_qp_state = kRts;
  CHECK(m.execute(c).status == Status::Ok);
  CHECK(m.qpc(kQpn) == rts_qpc);  // CUR_STATE writes nothing

  // RTS->RTS with STATE and CUR_STATE, changing min_rnr_timer.
  c = modify_cmd(kQpn, attr::kState | attr::kCurState | attr::kMinRnrTimer, kRts);
  c.cur_qp_state = kRts;
  c.min_rnr_timer = 20;
  CHECK(m.execute(c).status == Status::Ok);
  CHECK(m.qpc(kQpn).min_rnr_timer == 20);

  // Asserting a state the kernel never allows with CUR_STATE (INIT), even if true.
  GoldenModel m2 = mapped_model();
  bring_to(m2, kQpn, kRc, kInit);
  c = modify_cmd(kQpn, attr::kState | attr::kCurState, kInit);
  c.cur_qp_state = kInit;
  CHECK(m2.execute(c).status == Status::BadQpState);
  c.cur_qp_state = 9;  // out of range
  CHECK(m2.execute(c).status == Status::BadQpState);
}

TEST_CASE("UD RESET->INIT requires QKEY", "[model]") {
  GoldenModel m = mapped_model();
  bring_to(m, kQpn, kUd, kReset);
  Response r = m.execute(modify_cmd(kQpn, 0x31, kInit));  // STATE|PKEY_INDEX|PORT
  CHECK(r.status == Status::BadParam);
  CHECK(r.syndrome == syn(attr::kQkey, 0, 0));
  r = m.execute(modify_cmd(kQpn, 0x79, kInit));  // + QKEY + ACCESS_FLAGS
  CHECK(r.status == Status::BadParam);
  CHECK(r.syndrome == syn(0, attr::kAccessFlags, 0));
  CHECK(m.qpc(kQpn).state == kReset);
  r = m.execute(modify_cmd(kQpn, 0x71, kInit));
  CHECK(r.status == Status::Ok);
  CHECK(r.qpc.state == kInit);
  CHECK(r.qpc.qkey == 0x80010000);
  CHECK(r.qpc.port == 1);
  CHECK(r.qpc.pkey_index == 5);
  // Corollary 8: UD INIT->RTR needs nothing beyond STATE.
  CHECK(modify_status(m, kQpn, attr::kState, kRtr) == Status::Ok);
}

TEST_CASE("modify step 4: out-of-range values through execute", "[model]") {
  GoldenModel m = mapped_model();
  bring_to(m, kQpn, kRc, kInit);
  const Qpc before = m.qpc(kQpn);

  Command c = modify_cmd(kQpn, kRcRtrMask, kRtr);
  c.path_mtu = 6;
  Response r = m.execute(c);
  CHECK(r.status == Status::BadParam);
  CHECK(r.syndrome == syn(0, 0, attr::kPathMtu));
  CHECK(r.qpc == Qpc{});
  CHECK(m.qpc(kQpn) == before);

  // Every offending attribute is named.
  c.rq_psn = 1u << 24;
  c.max_dest_rd_atomic = 17;
  c.dest_qp_num = 0xffffffff;
  c.min_rnr_timer = 32;
  c.av.sl = 16;
  r = m.execute(c);
  CHECK(r.status == Status::BadParam);
  CHECK(r.syndrome == syn(0, 0, 0x100u | 0x1000u | 0x20000u | 0x100000u | 0x8000u | 0x80u));
  CHECK(m.qpc(kQpn) == before);

  // Step 3 before step 4: a missing bit hides the bad values.
  c.attr_mask = kRcRtrMask & ~attr::kDestQpn;
  r = m.execute(c);
  CHECK(r.status == Status::BadParam);
  CHECK(r.syndrome == syn(attr::kDestQpn, 0, 0));

  // A bad value on an attribute not in the mask is ignored.
  c = modify_cmd(kQpn, kRcRtrMask, kRtr);
  c.timeout = 99;
  c.sq_psn = 0xffffffff;
  CHECK(m.execute(c).status == Status::Ok);

  // RESET->INIT with port 0 and access bit 4.
  GoldenModel m2 = mapped_model();
  bring_to(m2, kQpn, kUc, kReset);
  c = modify_cmd(kQpn, kRcUcInitMask, kInit);
  c.port_num = 0;
  c.qp_access_flags = 0x1f;
  c.pkey_index = 128;
  r = m2.execute(c);
  CHECK(r.status == Status::BadParam);
  CHECK(r.syndrome == syn(0, 0, attr::kPort | attr::kAccessFlags | attr::kPkeyIndex));
  CHECK(m2.qpc(kQpn).state == kReset);
}

TEST_CASE("modify step 4: RTR->RTS, ALT_PATH, PATH_MIG_STATE, EN_SQD_ASYNC_NOTIFY",
          "[model]") {
  GoldenModel m = mapped_model();
  bring_to(m, kQpn, kRc, kRtr);
  Command c = modify_cmd(kQpn, kRcRtsMask | attr::kAltPath | attr::kPathMigState, kRts);
  c.retry_cnt = 8;
  c.rnr_retry = 8;
  c.timeout = 32;
  c.max_rd_atomic = 17;
  c.alt_port_num = 3;
  c.path_mig_state = 3;
  Response r = m.execute(c);
  CHECK(r.status == Status::BadParam);
  CHECK(r.syndrome == syn(0, 0, 0x400u | 0x800u | 0x200u | 0x2000u | 0x4000u | 0x40000u));
  CHECK(m.qpc(kQpn).state == kRtr);

  c = modify_cmd(kQpn, kRcRtsMask, kRts);
  REQUIRE(m.execute(c).status == Status::Ok);
  c = modify_cmd(kQpn, attr::kState | attr::kEnSqdAsyncNotify, kSqd);
  c.en_sqd_async_notify = 2;
  r = m.execute(c);
  CHECK(r.status == Status::BadParam);
  CHECK(r.syndrome == syn(0, 0, attr::kEnSqdAsyncNotify));
  CHECK(m.qpc(kQpn).state == kRts);
}

TEST_CASE("RTR->RTS writes the send side and loads the running copies", "[model]") {
  GoldenModel m = mapped_model();
  bring_to(m, kQpn, kRc, kRtr);
  Command c = modify_cmd(kQpn, kRcRtsMask | attr::kAltPath | attr::kPathMigState, kRts);
  Response r = m.execute(c);
  REQUIRE(r.status == Status::Ok);
  const Qpc &q = m.qpc(kQpn);
  CHECK(q.state == kRts);
  CHECK(q.timeout == 14);
  CHECK(q.retry_cnt == 6);
  CHECK(q.cur_retry_cnt == 6);
  CHECK(q.rnr_retry == 7);
  CHECK(q.cur_rnr_retry == 7);
  CHECK(q.sq_psn == 0xabcdef);
  CHECK(q.next_send_psn == 0xabcdef);
  CHECK(q.max_rd_atomic == 4);
  CHECK(q.alt_av_dlid == 0x4321);
  CHECK(q.alt_av_sl == 9);
  CHECK(q.alt_av_sgid_index == 2);
  CHECK(q.alt_pkey_index == 6);
  CHECK(q.alt_port == 2);
  CHECK(q.alt_timeout == 18);
  CHECK(q.path_mig_state == 2);
  CHECK(r.qpc == q);
}

TEST_CASE("max_rd_atomic and max_dest_rd_atomic are independent", "[model]") {
  GoldenModel m = mapped_model();
  bring_to(m, kQpn, kRc, kInit);
  Command c = modify_cmd(kQpn, kRcRtrMask, kRtr);
  c.max_dest_rd_atomic = 3;
  c.max_rd_atomic = 11;  // not in the mask: ignored
  REQUIRE(m.execute(c).status == Status::Ok);
  CHECK(m.qpc(kQpn).max_dest_rd_atomic == 3);
  CHECK(m.qpc(kQpn).max_rd_atomic == 0);

  c = modify_cmd(kQpn, kRcRtsMask, kRts);
  c.max_rd_atomic = 5;
  c.max_dest_rd_atomic = 12;  // not in the mask: ignored
  REQUIRE(m.execute(c).status == Status::Ok);
  CHECK(m.qpc(kQpn).max_rd_atomic == 5);
  CHECK(m.qpc(kQpn).max_dest_rd_atomic == 3);

  REQUIRE(modify_status(m, kQpn, attr::kState, kSqd) == Status::Ok);
  // SQD->SQD accepts both for RC; set each alone.
  c = modify_cmd(kQpn, attr::kMaxQpRdAtomic);
  c.max_rd_atomic = 16;
  c.max_dest_rd_atomic = 1;
  REQUIRE(m.execute(c).status == Status::Ok);
  CHECK(m.qpc(kQpn).max_rd_atomic == 16);
  CHECK(m.qpc(kQpn).max_dest_rd_atomic == 3);

  c = modify_cmd(kQpn, attr::kMaxDestRdAtomic);
  c.max_rd_atomic = 2;
  c.max_dest_rd_atomic = 0;
  REQUIRE(m.execute(c).status == Status::Ok);
  CHECK(m.qpc(kQpn).max_rd_atomic == 16);
  CHECK(m.qpc(kQpn).max_dest_rd_atomic == 0);

  // Out of range on one names only that one.
  c = modify_cmd(kQpn, attr::kMaxDestRdAtomic | attr::kMaxQpRdAtomic);
  c.max_rd_atomic = 16;
  c.max_dest_rd_atomic = 17;
  Response r = m.execute(c);
  CHECK(r.status == Status::BadParam);
  CHECK(r.syndrome == syn(0, 0, attr::kMaxDestRdAtomic));
}

TEST_CASE("en_sqd_async_notify is taken from every RTS->SQD", "[model]") {
  GoldenModel m = mapped_model();
  bring_to(m, kQpn, kUd, kRts);
  Command c = modify_cmd(kQpn, attr::kState | attr::kEnSqdAsyncNotify, kSqd);
  c.en_sqd_async_notify = 1;
  REQUIRE(m.execute(c).status == Status::Ok);
  CHECK(m.qpc(kQpn).state == kSqd);
  CHECK(m.qpc(kQpn).en_sqd_async_notify == 1);

  // SQD->RTS and RTS->RTS do not touch it.
  REQUIRE(modify_status(m, kQpn, attr::kState, kRts) == Status::Ok);
  CHECK(m.qpc(kQpn).en_sqd_async_notify == 1);
  REQUIRE(modify_status(m, kQpn, attr::kQkey, 0) == Status::Ok);
  CHECK(m.qpc(kQpn).en_sqd_async_notify == 1);

  // RTS->SQD without the bit: 0.
  REQUIRE(modify_status(m, kQpn, attr::kState, kSqd) == Status::Ok);
  CHECK(m.qpc(kQpn).en_sqd_async_notify == 0);

  // EN_SQD_ASYNC_NOTIFY is not allowed on SQD->SQD.
  Response r = m.execute(modify_cmd(kQpn, attr::kEnSqdAsyncNotify));
  CHECK(r.status == Status::BadParam);
  CHECK(r.syndrome == syn(0, attr::kEnSqdAsyncNotify, 0));
}

TEST_CASE("SQD draining refuses all but RESET and ERR", "[model]") {
  GoldenModel m = mapped_model();
  bring_to(m, kQpn, kRc, kSqd);
  Qpc q = m.qpc(kQpn);
  q.sq_issued = 3;
  q.sq_ci = 1;
  m.force_qpc(kQpn, q);
  const Qpc draining = m.qpc(kQpn);

  CHECK(modify_status(m, kQpn, attr::kState, kRts) == Status::BadQpState);
  CHECK(modify_status(m, kQpn, attr::kState, kSqd) == Status::BadQpState);
  CHECK(modify_status(m, kQpn, attr::kTimeout, 0) == Status::BadQpState);  // next = SQD
  // Draining is checked before the mask: a forbidden bit still gives BAD_QP_STATE.
  CHECK(modify_status(m, kQpn, attr::kState | attr::kQkey, kRts) == Status::BadQpState);
  CHECK(m.qpc(kQpn) == draining);

  // ERR is allowed.
  Response r = m.execute(modify_cmd(kQpn, attr::kState, kErr));
  CHECK(r.status == Status::Ok);
  CHECK(r.qpc.state == kErr);
  CHECK(r.qpc.sq_issued == 3);  // no flush modelled here; ERR keeps the counters

  // RESET is allowed and clears the counters.
  m.force_qpc(kQpn, draining);
  r = m.execute(modify_cmd(kQpn, attr::kState, kReset));
  CHECK(r.status == Status::Ok);
  CHECK(r.qpc.state == kReset);
  CHECK(r.qpc.sq_issued == 0);
  CHECK(r.qpc.sq_ci == 0);

  // Drained (sq_ci == sq_issued != 0): SQD->RTS is fine.
  GoldenModel m2 = mapped_model();
  bring_to(m2, kQpn, kRc, kSqd);
  q = m2.qpc(kQpn);
  q.sq_issued = 4;
  q.sq_ci = 4;
  m2.force_qpc(kQpn, q);
  CHECK(modify_status(m2, kQpn, attr::kState, kRts) == Status::Ok);
}

TEST_CASE("SQE is reached by the backdoor and left only for RTS, RESET, ERR", "[model]") {
  GoldenModel m = mapped_model();
  bring_to(m, kQpn, kUd, kRts);
  m.force_state(kQpn, QpState::Sqe);
  CHECK(m.qpc(kQpn).state == kSqe);
  CHECK(modify_status(m, kQpn, 0, 0) == Status::BadQpState);  // SQE->SQE
  CHECK(modify_status(m, kQpn, attr::kState, kSqd) == Status::BadQpState);
  Command c = modify_cmd(kQpn, attr::kState | attr::kCurState | attr::kQkey, kRts);
  c.cur_qp_state = kSqe;
  c.qkey = 0x1234;
  Response r = m.execute(c);
  CHECK(r.status == Status::Ok);
  CHECK(r.qpc.state == kRts);
  CHECK(r.qpc.qkey == 0x1234);

  // Corollary 6: RC SQE->RTS passes with STATE alone; CUR_STATE is forbidden there.
  GoldenModel m2 = mapped_model();
  bring_to(m2, kQpn, kRc, kRts);
  m2.force_state(kQpn, QpState::Sqe);
  c = modify_cmd(kQpn, attr::kState | attr::kCurState, kRts);
  c.cur_qp_state = kSqe;
  r = m2.execute(c);
  CHECK(r.status == Status::BadParam);
  CHECK(r.syndrome == syn(0, attr::kCurState, 0));
  CHECK(modify_status(m2, kQpn, attr::kState, kRts) == Status::Ok);
}

TEST_CASE("a move to RESET clears hardware fields, keeps software fields, epoch++", "[model]") {
  GoldenModel m = mapped_model();
  bring_to(m, kQpn, kRc, kRts);
  Qpc q = m.qpc(kQpn);
  REQUIRE(q.next_send_psn == 0xabcdef);
  REQUIRE(q.expected_psn == 0x123456);
  REQUIRE(q.cur_retry_cnt == 6);
  // Pretend the datapath ran: every hardware-updated field non-zero.
  q.rd_atomic_outstanding = 2;
  q.dest_rd_atomic_inflight = 1;
  q.sq_pi = 9;
  q.rq_pi = 8;
  q.sq_ci = 3;
  q.rq_ci = 2;
  q.sq_issued = 5;
  q.rx_msg_open = 1;
  q.rx_msg_class = 2;
  q.comm_est_seen = 1;
  q.dma_inflight = 4;
  q.epoch = 41;
  q.err_syndrome = 0x77;
  m.force_qpc(kQpn, q);

  Response r = m.execute(modify_cmd(kQpn, attr::kState, kReset));
  REQUIRE(r.status == Status::Ok);
  Qpc expect = q;  // software fields unchanged...
  expect.state = kReset;
  expect.next_send_psn = 0;  // ...hardware fields cleared
  expect.expected_psn = 0;
  expect.rd_atomic_outstanding = 0;
  expect.dest_rd_atomic_inflight = 0;
  expect.sq_pi = 0;
  expect.rq_pi = 0;
  expect.sq_ci = 0;
  expect.rq_ci = 0;
  expect.sq_issued = 0;
  expect.cur_retry_cnt = 0;
  expect.cur_rnr_retry = 0;
  expect.rx_msg_open = 0;
  expect.rx_msg_class = 0;
  expect.comm_est_seen = 0;
  expect.dma_inflight = 0;
  expect.err_syndrome = 0;
  expect.epoch = 42;
  CHECK(r.qpc == expect);
  CHECK(m.qpc(kQpn) == expect);
  CHECK(m.qpc(kQpn).sq_psn == 0xabcdef);  // the initial PSN is a software field
  CHECK(m.qpc(kQpn).retry_cnt == 6);
  CHECK(m.qpc(kQpn).port == 1);
}

TEST_CASE("epoch increments on every reset and wraps at 256", "[model]") {
  GoldenModel m = mapped_model();
  bring_to(m, kQpn, kUc, kReset);
  CHECK(m.qpc(kQpn).epoch == 0);
  for (int i = 1; i <= 255; ++i) {
    REQUIRE(modify_status(m, kQpn, attr::kState, kReset) == Status::Ok);
  }
  CHECK(m.qpc(kQpn).epoch == 255);
  REQUIRE(modify_status(m, kQpn, attr::kState, kReset) == Status::Ok);
  CHECK(m.qpc(kQpn).epoch == 0);
  // ->ERR is not a reset.
  REQUIRE(modify_status(m, kQpn, kRcUcInitMask, kInit) == Status::Ok);
  REQUIRE(modify_status(m, kQpn, attr::kState, kErr) == Status::Ok);
  CHECK(m.qpc(kQpn).epoch == 0);
  REQUIRE(modify_status(m, kQpn, attr::kState, kReset) == Status::Ok);
  CHECK(m.qpc(kQpn).epoch == 1);
}

TEST_CASE("failed modifies leave the QPC identical", "[model]") {
  GoldenModel m = mapped_model();
  bring_to(m, kQpn, kRc, kRts);
  const Qpc before = m.qpc(kQpn);
  Command bad_cur = modify_cmd(kQpn, attr::kState | attr::kCurState, kRts);
  bad_cur.cur_qp_state = kSqd;
  Command bad_val = modify_cmd(kQpn, attr::kState | attr::kAccessFlags, kRts);
  bad_val.qp_access_flags = 0x100;
  for (const Command &c :
       {modify_cmd(kQpn, attr::kState, kInit),
        modify_cmd(kQpn, attr::kState | attr::kTimeout, kRts),
        modify_cmd(kQpn, attr::kState | attr::kQkey, kSqd),
        modify_cmd(kQpn, attr::kState | attr::kPort, kErr),
        modify_cmd(kQpn, attr::kState | attr::kPort, kReset), bad_cur, bad_val}) {
    const Response r = m.execute(c);
    CHECK(r.status != Status::Ok);
    CHECK(r.qpc == Qpc{});
    CHECK(m.qpc(kQpn) == before);
  }
}

TEST_CASE("modify on a missing QP is BAD_RES", "[model]") {
  GoldenModel m = mapped_model();
  for (uint32_t qpn : {0u, 1u, kQpn, 4095u, 4096u, 0xffffffu}) {
    INFO("qpn " << qpn);
    const Response r = m.execute(modify_cmd(qpn, attr::kState, kReset));
    CHECK(r.status == Status::BadRes);
    CHECK(r.syndrome == syn(0, 0, 0));
  }
  // Existence comes first, before any state or mask check.
  CHECK(modify_status(m, kQpn, attr::kCap, 9) == Status::BadRes);
}

TEST_CASE("QPC fields are stored at their widths", "[model]") {
  GoldenModel m = mapped_model();
  bring_to(m, kQpn, kRc, kInit);
  Command c = modify_cmd(kQpn, kRcRtrMask, kRtr);
  c.av = {0x12345, 15, 0x1ff};  // dlid 16 bits, sgid_index 8 bits on the command port
  REQUIRE(m.execute(c).status == Status::Ok);
  CHECK(m.qpc(kQpn).av_dlid == 0x2345);
  CHECK(m.qpc(kQpn).av_sl == 15);
  CHECK(m.qpc(kQpn).av_sgid_index == 0xff);

  Qpc q = m.qpc(kQpn);
  q.sq_pi = 0x1ffff;             // 16 bits
  q.epoch = 0x1ff;               // 8 bits
  q.next_send_psn = 0xffffffff;  // 24 bits
  m.force_qpc(kQpn, q);
  CHECK(m.qpc(kQpn).sq_pi == 0xffff);
  CHECK(m.qpc(kQpn).epoch == 0xff);
  CHECK(m.qpc(kQpn).next_send_psn == 0xffffff);
  m.force_state(kQpn, static_cast<QpState>(9));  // 3 bits
  CHECK(m.qpc(kQpn).state == 1);
}

// ---------------------------------------------------------------------------------
// The other commands.

TEST_CASE("CREATE_QP: checks in order and the fresh context", "[model]") {
  GoldenModel m = mapped_model();
  Response r = m.execute(create_cmd(kQpn, kRc));
  CHECK(r.status == Status::Ok);
  CHECK(r.syndrome == syn(0, 0, 0));
  Qpc expect;
  expect.valid = 1;
  expect.state = kReset;
  expect.qp_type = kRc;
  expect.pd = 3;
  expect.cqn_snd = 1;
  expect.cqn_rcv = 2;
  expect.log_sq_size = 6;
  expect.log_rq_size = 6;
  CHECK(r.qpc == expect);
  CHECK(m.qpc(kQpn) == expect);

  // Twice: RES_BUSY, nothing changes.
  r = m.execute(create_cmd(kQpn, kUd));
  CHECK(r.status == Status::ResBusy);
  CHECK(r.qpc == Qpc{});
  CHECK(m.qpc(kQpn) == expect);

  // Reserved QPNs, and the limit.
  CHECK(m.execute(create_cmd(0, kRc)).status == Status::BadParam);
  CHECK(m.execute(create_cmd(1, kRc)).status == Status::BadParam);
  CHECK(m.execute(create_cmd(4096, kRc)).status == Status::BadRes);
  CHECK(m.execute(create_cmd(0xffffff, kRc)).status == Status::BadRes);
  CHECK(m.execute(create_cmd(4095, kUd)).status == Status::Ok);
  CHECK(m.execute(create_cmd(2, kUc)).status == Status::Ok);
  CHECK(m.qpc(0) == Qpc{});
  CHECK(m.qpc(1) == Qpc{});

  // Parameter checks.
  auto with = [](void (*set)(Command &)) {
    Command c = create_cmd(0x20, kRc);
    set(c);
    return c;
  };
  CHECK(m.execute(with([](Command &c) { c.qp_type = 0; })).status == Status::BadParam);
  CHECK(m.execute(with([](Command &c) { c.qp_type = 1; })).status == Status::BadParam);
  CHECK(m.execute(with([](Command &c) { c.qp_type = 5; })).status == Status::BadParam);
  CHECK(m.execute(with([](Command &c) { c.qp_type = 8; })).status == Status::BadParam);
  CHECK(m.execute(with([](Command &c) { c.pd = 1u << 24; })).status == Status::BadParam);
  CHECK(m.execute(with([](Command &c) { c.cqn_snd = 1u << 24; })).status ==
        Status::BadParam);
  CHECK(m.execute(with([](Command &c) { c.cqn_rcv = 1u << 24; })).status ==
        Status::BadParam);
  CHECK(m.execute(with([](Command &c) { c.log_sq_size = 16; })).status == Status::BadParam);
  CHECK(m.execute(with([](Command &c) { c.log_rq_size = 16; })).status == Status::BadParam);
  CHECK(m.qpc(0x20) == Qpc{});
  r = m.execute(with([](Command &c) {
    c.pd = 0xffffff;
    c.cqn_snd = 0xffffff;
    c.cqn_rcv = 0;
    c.log_sq_size = 15;
    c.log_rq_size = 0;
  }));
  CHECK(r.status == Status::Ok);
  CHECK(r.qpc.pd == 0xffffff);
  CHECK(r.qpc.log_sq_size == 15);

  // Order: limit before reserved/params; params before RES_BUSY.
  Command c = create_cmd(4096, 9);
  CHECK(m.execute(c).status == Status::BadRes);
  c = create_cmd(kQpn, 9);  // kQpn is valid, but the type is bad
  CHECK(m.execute(c).status == Status::BadParam);
  c = create_cmd(1, 9);
  CHECK(m.execute(c).status == Status::BadParam);
}

TEST_CASE("DESTROY_QP: resets, invalidates, keeps only the epoch", "[model]") {
  GoldenModel m = mapped_model();
  bring_to(m, kQpn, kRc, kRts);
  Response r = m.execute(simple_cmd(Opcode::DestroyQp, kQpn));
  CHECK(r.status == Status::Ok);
  CHECK(r.qpc == Qpc{});
  Qpc expect;
  expect.epoch = 1;
  CHECK(m.qpc(kQpn) == expect);

  // Twice: BAD_RES.
  r = m.execute(simple_cmd(Opcode::DestroyQp, kQpn));
  CHECK(r.status == Status::BadRes);
  CHECK(m.qpc(kQpn).epoch == 1);
  CHECK(m.execute(simple_cmd(Opcode::DestroyQp, 4096)).status == Status::BadRes);
  CHECK(m.execute(simple_cmd(Opcode::DestroyQp, 0)).status == Status::BadRes);

  // The next incarnation starts from the old epoch; its own reset moves it on.
  r = m.execute(create_cmd(kQpn, kUd));
  CHECK(r.status == Status::Ok);
  CHECK(r.qpc.epoch == 1);
  CHECK(r.qpc.qp_type == kUd);
  CHECK(r.qpc.port == 0);  // nothing of the old incarnation survives
  REQUIRE(modify_status(m, kQpn, attr::kState, kReset) == Status::Ok);
  CHECK(m.qpc(kQpn).epoch == 2);
  REQUIRE(m.execute(simple_cmd(Opcode::DestroyQp, kQpn)).status == Status::Ok);
  CHECK(m.qpc(kQpn).epoch == 3);
  CHECK(m.qpc(kQpn).valid == 0);

  // Any command on a destroyed QP is BAD_RES.
  for (Opcode op : {Opcode::QueryQp, Opcode::PinQp, Opcode::UnpinQp, Opcode::ModifyQp}) {
    CHECK(m.execute(simple_cmd(op, kQpn)).status == Status::BadRes);
  }
}

TEST_CASE("QUERY_QP, PIN_QP, UNPIN_QP return the context unchanged", "[model]") {
  GoldenModel m = mapped_model();
  bring_to(m, kQpn, kUc, kRtr);
  const Qpc q = m.qpc(kQpn);
  for (Opcode op : {Opcode::QueryQp, Opcode::PinQp, Opcode::UnpinQp}) {
    const Response r = m.execute(simple_cmd(op, kQpn));
    CHECK(r.status == Status::Ok);
    CHECK(r.syndrome == syn(0, 0, 0));
    CHECK(r.qpc == q);
    CHECK(r.qpc.state == kRtr);
    CHECK(m.qpc(kQpn) == q);
    for (uint32_t qpn : {0u, 1u, 0x11u, 4096u}) {
      const Response bad = m.execute(simple_cmd(op, qpn));
      CHECK(bad.status == Status::BadRes);
      CHECK(bad.qpc == Qpc{});
    }
  }
}

TEST_CASE("SYNC_CACHE, PORT_FAULT and unknown opcodes", "[model]") {
  GoldenModel m = mapped_model();
  bring_to(m, kQpn, kRc, kRts);
  const Qpc q = m.qpc(kQpn);

  Response r = m.execute(simple_cmd(Opcode::SyncCache, 0));
  CHECK(r.status == Status::Ok);
  CHECK(r.qpc == Qpc{});

  Command pf = simple_cmd(Opcode::PortFault, 0);
  pf.port_num = 1;
  r = m.execute(pf);
  CHECK(r.status == Status::Ok);  // the QP's move to ERR: tests/test_events.cpp
  CHECK(r.qpc == Qpc{});
  CHECK(m.qpc(kQpn).state == static_cast<uint32_t>(QpState::Err));
  CHECK(q.state != static_cast<uint32_t>(QpState::Err));

  for (uint8_t raw : {0x00, 0x03, 0x14, 0x23, 0x31, 0x7f, 0xff}) {
    Command c = create_cmd(0x30, kRc);  // a command that would succeed as CREATE
    c.use_raw_op = true;
    c.raw_op = raw;
    r = m.execute(c);
    CHECK(r.status == Status::BadOp);
    CHECK(r.syndrome == syn(0, 0, 0));
    CHECK(r.qpc == Qpc{});
    CHECK(m.qpc(0x30) == Qpc{});
  }
  // A raw opcode equal to a known one is that command.
  Command c = create_cmd(0x30, kRc);
  c.op = Opcode::QueryQp;
  c.use_raw_op = true;
  c.raw_op = 0x10;
  CHECK(m.execute(c).status == Status::Ok);
  CHECK(m.qpc(0x30).valid == 1);
}

TEST_CASE("MAP_PAGE / UNMAP_PAGE", "[model]") {
  GoldenModel m;  // 4096 QPNs >> 6 = 64 directory entries
  Command c = simple_cmd(Opcode::MapPage, 0);
  c.dir_index = 0;
  c.page_address = 0x100000;
  Response r = m.execute(c);
  CHECK(r.status == Status::Ok);
  CHECK(r.qpc == Qpc{});
  CHECK(m.dir_entry(0).valid);
  CHECK(m.dir_entry(0).page_address == 0x100000);

  c.dir_index = 63;
  c.page_address = 0xfffffffffffff000ull;
  CHECK(m.execute(c).status == Status::Ok);
  CHECK(m.dir_entry(63).page_address == 0xfffffffffffff000ull);

  c.dir_index = 64;
  c.page_address = 0x2000;
  CHECK(m.execute(c).status == Status::BadParam);

  c.dir_index = 5;
  c.page_address = 0x100800;  // 2 KiB aligned only
  CHECK(m.execute(c).status == Status::BadParam);
  c.page_address = 0x1;
  CHECK(m.execute(c).status == Status::BadParam);
  CHECK_FALSE(m.dir_entry(5).valid);
  CHECK(m.dir_entry(5).page_address == 0);
  // Index is checked before alignment; both give BAD_PARAM.
  c.dir_index = 1000;
  CHECK(m.execute(c).status == Status::BadParam);

  Command u = simple_cmd(Opcode::UnmapPage, 0);
  u.dir_index = 0;
  CHECK(m.execute(u).status == Status::Ok);
  CHECK_FALSE(m.dir_entry(0).valid);
  CHECK(m.dir_entry(0).page_address == 0);
  CHECK(m.dir_entry(63).valid);
  u.dir_index = 64;
  r = m.execute(u);
  CHECK(r.status == Status::BadParam);
  CHECK(r.qpc == Qpc{});

  Config small;
  small.qpn_limit = 256;
  small.page_bits = 4;
  GoldenModel m2(small);  // 16 entries
  c.dir_index = 15;
  c.page_address = 0x3000;
  CHECK(m2.execute(c).status == Status::Ok);
  c.dir_index = 16;
  CHECK(m2.execute(c).status == Status::BadParam);
  CHECK(m2.config().qpn_limit == 256);
  // Pages of 16 QPCs are 1 KiB: the alignment follows page_bits.
  c.dir_index = 3;
  c.page_address = 0x3400;
  CHECK(m2.execute(c).status == Status::Ok);
  c.page_address = 0x3200;
  CHECK(m2.execute(c).status == Status::BadParam);
  CHECK(m2.dir_entry(3).page_address == 0x3400);

  // The directory has dir_entries (2^18) entries; only the first 64 can be mapped.
  CHECK_FALSE(m.dir_entry(64).valid);
  CHECK_FALSE(m.dir_entry((1u << 18) - 1).valid);
  CHECK_THROWS_AS(m.dir_entry(1u << 18), std::out_of_range);
}

TEST_CASE("a small configuration bounds QPNs and values", "[model]") {
  Config cfg;
  cfg.qpn_limit = 64;
  cfg.num_ports = 1;
  GoldenModel m = mapped_model(cfg);
  CHECK(m.execute(create_cmd(64, kRc)).status == Status::BadRes);
  REQUIRE(m.execute(create_cmd(63, kRc)).status == Status::Ok);
  Command c = modify_cmd(63, kRcUcInitMask, kInit);
  c.port_num = 2;
  Response r = m.execute(c);
  CHECK(r.status == Status::BadParam);
  CHECK(r.syndrome == syn(0, 0, attr::kPort));
  c.port_num = 1;
  CHECK(m.execute(c).status == Status::Ok);
}

TEST_CASE("a full RC bring-up and teardown", "[model]") {
  GoldenModel m = mapped_model();
  bring_to(m, kQpn, kRc, kSqd);
  CHECK(m.qpc(kQpn).state == kSqd);
  // RC SQD->SQD full re-parameterisation (corollary 10).
  Command c = modify_cmd(kQpn, 0x6eeb8);
  c.port_num = 2;
  c.timeout = 3;
  c.path_mtu = 1;  // PATH_MTU is not in the SQD->SQD set
  REQUIRE(m.execute(c).status == Status::Ok);
  CHECK(m.qpc(kQpn).port == 2);
  CHECK(m.qpc(kQpn).timeout == 3);
  CHECK(m.qpc(kQpn).path_mtu == 5);
  CHECK(modify_status(m, kQpn, attr::kState | attr::kPathMtu, kSqd) == Status::BadParam);
  REQUIRE(modify_status(m, kQpn, attr::kState, kRts) == Status::Ok);
  REQUIRE(modify_status(m, kQpn, attr::kState, kErr) == Status::Ok);
  CHECK(modify_status(m, kQpn, attr::kState, kRts) == Status::BadQpState);
  REQUIRE(modify_status(m, kQpn, attr::kState, kReset) == Status::Ok);
  CHECK(m.qpc(kQpn).state == kReset);
  CHECK(m.qpc(kQpn).epoch == 1);
  CHECK(m.qpc(kQpn).valid == 1);
}

// ---------------------------------------------------------------------------------
// The QP table in host memory (SPEC §3.2, docs/qp-table.md).

TEST_CASE("configuration: qpn_limit within dir_entries << page_bits", "[model][qpt]") {
  Config c;
  c.dir_entries = 256;
  c.qpn_limit = 16384;  // 256 << 6
  CHECK_NOTHROW(GoldenModel(c));
  c.qpn_limit = 16385;
  CHECK_THROWS_AS(GoldenModel(c), std::invalid_argument);
  c.dir_entries = 4;
  c.qpn_limit = 256;
  CHECK_NOTHROW(GoldenModel(c));
  c.qpn_limit = 257;
  CHECK_THROWS_AS(GoldenModel(c), std::invalid_argument);
  Config z;
  z.sets = 0;
  CHECK_THROWS_AS(GoldenModel(z), std::invalid_argument);
  z.sets = 64;
  z.ways = 0;
  CHECK_THROWS_AS(GoldenModel(z), std::invalid_argument);
  CHECK(Config{}.dir_entries == 1u << 18);  // the whole 24-bit QPN space
  Config full;
  full.qpn_limit = 1u << 24;
  CHECK_NOTHROW(GoldenModel(full));
  CHECK(Config{}.sets == 64);
  CHECK(Config{}.ways == 4);
}

TEST_CASE("unmapped page: BAD_RES, before the reserved-QPN and parameter checks",
          "[model][qpt]") {
  GoldenModel m;  // nothing mapped
  for (uint32_t qpn : {0u, 1u, 2u, kQpn, 63u, 4095u}) {
    INFO("qpn " << qpn);
    Response r = m.execute(create_cmd(qpn, kRc));
    CHECK(r.status == Status::BadRes);
    CHECK(r.syndrome == syn(0, 0, 0));
    CHECK(r.qpc == Qpc{});
    CHECK(m.execute(create_cmd(qpn, 9)).status == Status::BadRes);  // bad type too
    for (Opcode op : {Opcode::QueryQp, Opcode::DestroyQp, Opcode::PinQp, Opcode::UnpinQp}) {
      CHECK(m.execute(simple_cmd(op, qpn)).status == Status::BadRes);
    }
    CHECK(m.execute(modify_cmd(qpn, attr::kCap, 9)).status == Status::BadRes);
    CHECK(m.qpc(qpn) == Qpc{});
    CHECK_FALSE(m.qpc_address(qpn).has_value());
  }
  CHECK(m.memory_qpcs().empty());

  // Page 0 mapped: the reserved QPNs are now BAD_PARAM, page 1 is still refused.
  REQUIRE(m.execute(map_cmd(0, 0x100000)).status == Status::Ok);
  CHECK(m.execute(create_cmd(0, kRc)).status == Status::BadParam);
  CHECK(m.execute(create_cmd(1, kRc)).status == Status::BadParam);
  CHECK(m.execute(create_cmd(kQpn, 9)).status == Status::BadParam);
  CHECK(m.execute(simple_cmd(Opcode::QueryQp, kQpn)).status == Status::BadRes);  // not valid
  CHECK(m.execute(create_cmd(kQpn, kRc)).status == Status::Ok);
  CHECK(m.execute(create_cmd(63, kUd)).status == Status::Ok);
  CHECK(m.execute(create_cmd(64, kRc)).status == Status::BadRes);
  CHECK(m.execute(create_cmd(0x7f, kRc)).status == Status::BadRes);
  CHECK(m.qpc_address(0).value() == 0x100000);
  CHECK(m.qpc_address(kQpn).value() == 0x100400);
  CHECK(m.qpc_address(63).value() == 0x100fc0);
  CHECK_FALSE(m.qpc_address(64).has_value());
  CHECK_FALSE(m.qpc_address(4096).has_value());
  CHECK(m.qpc(kQpn).valid == 1);
  CHECK(m.qpc(kQpn).qp_type == kRc);

  // qpc() answers zero up to dir_entries << page_bits (2^24), throws beyond.
  CHECK(m.qpc(4096) == Qpc{});
  CHECK(m.qpc((1u << 24) - 1) == Qpc{});
  CHECK_THROWS_AS(m.qpc(1u << 24), std::out_of_range);
  // The backdoors refuse a QPN without a place in memory.
  CHECK_THROWS_AS(m.force_qpc(64, Qpc{}), std::out_of_range);
  CHECK_THROWS_AS(m.force_state(64, QpState::Err), std::out_of_range);
  CHECK_THROWS_AS(m.force_qpc(4096, Qpc{}), std::out_of_range);
  CHECK_NOTHROW(m.force_state(kQpn, QpState::Init));
  CHECK(m.qpc(kQpn).state == kInit);

  // The last page of the table.
  REQUIRE(m.execute(map_cmd(63, 0xfffffffffffff000ull)).status == Status::Ok);
  CHECK(m.qpc_address(4095).value() == 0xffffffffffffffc0ull);
  CHECK(m.execute(create_cmd(4095, kUc)).status == Status::Ok);
}

TEST_CASE("a QPN limit that is not a multiple of the page size", "[model][qpt]") {
  Config cfg;
  cfg.qpn_limit = 100;  // two entries: the second page is partly below the limit
  GoldenModel m(cfg);
  CHECK(m.execute(map_cmd(2, 0x3000)).status == Status::BadParam);
  CHECK(m.execute(map_cmd(0, 0x1000)).status == Status::Ok);
  CHECK(m.execute(create_cmd(99, kRc)).status == Status::BadRes);  // page not mapped yet
  CHECK(m.execute(map_cmd(1, 0x2000)).status == Status::Ok);
  CHECK(m.execute(create_cmd(63, kRc)).status == Status::Ok);
  CHECK(m.execute(create_cmd(64, kRc)).status == Status::Ok);
  CHECK(m.execute(create_cmd(99, kRc)).status == Status::Ok);
  CHECK(m.execute(create_cmd(100, kRc)).status == Status::BadRes);  // at the limit
  CHECK(m.qpc(100) == Qpc{});
}

TEST_CASE("UNMAP_PAGE / MAP_PAGE over a page holding a valid QP: RES_BUSY",
          "[model][qpt]") {
  GoldenModel m = mapped_model();
  REQUIRE(m.execute(create_cmd(kQpn, kRc)).status == Status::Ok);  // page 0
  REQUIRE(m.execute(create_cmd(0x7f, kUd)).status == Status::Ok);  // last slot of page 1

  Response r = m.execute(unmap_cmd(0));
  CHECK(r.status == Status::ResBusy);
  CHECK(r.syndrome == syn(0, 0, 0));
  CHECK(r.qpc == Qpc{});
  CHECK(m.dir_entry(0).valid);
  CHECK(m.dir_entry(0).page_address == 0x1000000);
  CHECK(m.execute(unmap_cmd(1)).status == Status::ResBusy);
  CHECK(m.execute(map_cmd(0, 0x2000000)).status == Status::ResBusy);
  CHECK(m.execute(map_cmd(0, 0x1000000)).status == Status::ResBusy);  // same address too
  CHECK(m.dir_entry(0).page_address == 0x1000000);
  CHECK(m.qpc(kQpn).valid == 1);
  // Index and alignment come first.
  CHECK(m.execute(map_cmd(0, 0x2000800)).status == Status::BadParam);
  CHECK(m.execute(map_cmd(64, 0x2000000)).status == Status::BadParam);
  CHECK(m.execute(unmap_cmd(64)).status == Status::BadParam);

  // A page whose QPs are all invalid can go, twice, and come back elsewhere.
  CHECK(m.execute(unmap_cmd(2)).status == Status::Ok);
  CHECK_FALSE(m.dir_entry(2).valid);
  CHECK(m.dir_entry(2).page_address == 0);
  CHECK(m.execute(unmap_cmd(2)).status == Status::Ok);  // unmapping an unmapped entry
  CHECK(m.execute(map_cmd(2, 0x3000000)).status == Status::Ok);
  CHECK(m.execute(map_cmd(2, 0x4000000)).status == Status::Ok);  // re-point an empty page
  CHECK(m.dir_entry(2).page_address == 0x4000000);
  CHECK(m.qpc_address(0x80).value() == 0x4000000);

  // A QP moved to RESET or ERR is still valid: still busy.
  REQUIRE(modify_status(m, kQpn, kRcUcInitMask, kInit) == Status::Ok);
  REQUIRE(modify_status(m, kQpn, attr::kState, kErr) == Status::Ok);
  CHECK(m.execute(unmap_cmd(0)).status == Status::ResBusy);

  // After DESTROY_QP the page is free.
  REQUIRE(m.execute(simple_cmd(Opcode::DestroyQp, kQpn)).status == Status::Ok);
  CHECK(m.execute(unmap_cmd(0)).status == Status::Ok);
  CHECK_FALSE(m.dir_entry(0).valid);
  REQUIRE(m.execute(simple_cmd(Opcode::DestroyQp, 0x7f)).status == Status::Ok);
  CHECK(m.execute(map_cmd(1, 0x5000000)).status == Status::Ok);
  CHECK(m.dir_entry(1).page_address == 0x5000000);
}

TEST_CASE("a page whose newest QPC write memory refused stays mapped until a write lands",
          "[model][qpt]") {
  GoldenModel m = mapped_model();
  bring_to(m, kQpn, kRc, kRts);
  REQUIRE(m.execute(simple_cmd(Opcode::DestroyQp, kQpn)).status == Status::Ok);
  const uint64_t addr = m.qpc_address(kQpn).value();
  // The destroyed context's write-back is refused: memory still holds the live one.
  m.qpc_write_answered(addr, true);
  CHECK(m.execute(unmap_cmd(0)).status == Status::ResBusy);
  CHECK(m.execute(map_cmd(0, 0x2000000)).status == Status::ResBusy);
  CHECK(m.dir_entry(0).page_address == 0x1000000);
  CHECK(m.execute(unmap_cmd(1)).status == Status::Ok);  // other pages are not concerned
  // A write that lands at another slot of the page does not make this one current.
  m.qpc_write_answered(m.qpc_address(kQpn + 1).value(), false);
  CHECK(m.execute(unmap_cmd(0)).status == Status::ResBusy);
  // Once a write of that context lands, memory is current and the page goes.
  m.qpc_write_answered(addr, false);
  CHECK(m.execute(unmap_cmd(0)).status == Status::Ok);
  CHECK_FALSE(m.dir_entry(0).valid);
}

TEST_CASE("a context persists in memory across UNMAP and MAP of its page", "[model][qpt]") {
  GoldenModel m = mapped_model();
  bring_to(m, kQpn, kRc, kRts);
  REQUIRE(m.execute(simple_cmd(Opcode::DestroyQp, kQpn)).status == Status::Ok);
  CHECK(m.qpc(kQpn).epoch == 1);
  CHECK(m.qpc_address(kQpn).value() == 0x1000400);

  REQUIRE(m.execute(unmap_cmd(0)).status == Status::Ok);
  CHECK(m.qpc(kQpn) == Qpc{});
  CHECK_FALSE(m.qpc_address(kQpn).has_value());
  CHECK(m.execute(create_cmd(kQpn, kUc)).status == Status::BadRes);

  // The same page again: the destroyed incarnation's epoch is still in memory.
  REQUIRE(m.execute(map_cmd(0, 0x1000000)).status == Status::Ok);
  Qpc expect;
  expect.epoch = 1;
  CHECK(m.qpc(kQpn) == expect);
  Response r = m.execute(create_cmd(kQpn, kUc));
  REQUIRE(r.status == Status::Ok);
  CHECK(r.qpc.epoch == 1);
  CHECK(r.qpc.qp_type == kUc);
  REQUIRE(m.execute(simple_cmd(Opcode::DestroyQp, kQpn)).status == Status::Ok);
  CHECK(m.qpc(kQpn).epoch == 2);

  // A different (zeroed) page: a fresh QPC, epoch 0.
  REQUIRE(m.execute(unmap_cmd(0)).status == Status::Ok);
  REQUIRE(m.execute(map_cmd(0, 0x7000000)).status == Status::Ok);
  CHECK(m.qpc(kQpn) == Qpc{});
  r = m.execute(create_cmd(kQpn, kRc));
  REQUIRE(r.status == Status::Ok);
  CHECK(r.qpc.epoch == 0);
  CHECK(m.qpc_address(kQpn).value() == 0x7000400);
  // ...and the first page still holds epoch 2 for that slot.
  REQUIRE(m.execute(map_cmd(5, 0x1000000)).status == Status::Ok);
  CHECK(m.qpc(5 * 64 + kQpn).epoch == 2);
  CHECK(m.qpc(5 * 64 + kQpn).valid == 0);
}

TEST_CASE("PIN_QP: at most ways-1 pinned QPNs per set", "[model][qpt]") {
  Config cfg;
  cfg.sets = 2;
  cfg.ways = 2;  // one pinned QPN per set
  GoldenModel m = mapped_model(cfg);
  for (uint32_t qpn : {0x10u, 0x11u, 0x12u, 0x13u, 0x14u}) {
    REQUIRE(m.execute(create_cmd(qpn, kRc)).status == Status::Ok);
  }
  Response r = m.execute(simple_cmd(Opcode::PinQp, 0x10));  // set 0
  CHECK(r.status == Status::Ok);
  CHECK(r.qpc == m.qpc(0x10));
  CHECK(m.pinned(0x10));
  CHECK(m.execute(simple_cmd(Opcode::PinQp, 0x10)).status == Status::Ok);  // again: OK

  r = m.execute(simple_cmd(Opcode::PinQp, 0x12));  // set 0 is full
  CHECK(r.status == Status::ResBusy);
  CHECK(r.syndrome == syn(0, 0, 0));
  CHECK(r.qpc == Qpc{});
  CHECK_FALSE(m.pinned(0x12));
  CHECK(m.execute(simple_cmd(Opcode::PinQp, 0x11)).status == Status::Ok);  // set 1
  CHECK(m.execute(simple_cmd(Opcode::PinQp, 0x13)).status == Status::ResBusy);
  CHECK(m.pinned(0x11));
  CHECK_FALSE(m.pinned(0x13));
  // Existence comes before capacity.
  CHECK(m.execute(simple_cmd(Opcode::PinQp, 0x16)).status == Status::BadRes);

  // UNPIN frees the place; unpinning a QPN that is not pinned is OK.
  r = m.execute(simple_cmd(Opcode::UnpinQp, 0x10));
  CHECK(r.status == Status::Ok);
  CHECK(r.qpc == m.qpc(0x10));
  CHECK_FALSE(m.pinned(0x10));
  CHECK(m.execute(simple_cmd(Opcode::UnpinQp, 0x10)).status == Status::Ok);
  CHECK(m.execute(simple_cmd(Opcode::UnpinQp, 0x16)).status == Status::BadRes);
  CHECK(m.execute(simple_cmd(Opcode::PinQp, 0x12)).status == Status::Ok);
  CHECK(m.execute(simple_cmd(Opcode::PinQp, 0x10)).status == Status::ResBusy);

  // A modify (even to RESET) keeps the pin; DESTROY_QP drops it.
  REQUIRE(modify_status(m, 0x12, attr::kState, kReset) == Status::Ok);
  CHECK(m.pinned(0x12));
  CHECK(m.execute(simple_cmd(Opcode::PinQp, 0x14)).status == Status::ResBusy);
  REQUIRE(m.execute(simple_cmd(Opcode::DestroyQp, 0x12)).status == Status::Ok);
  CHECK_FALSE(m.pinned(0x12));
  CHECK(m.execute(simple_cmd(Opcode::PinQp, 0x14)).status == Status::Ok);
  // Re-created, the QPN starts unpinned.
  REQUIRE(m.execute(create_cmd(0x12, kUd)).status == Status::Ok);
  CHECK_FALSE(m.pinned(0x12));
  CHECK(m.execute(simple_cmd(Opcode::PinQp, 0x12)).status == Status::ResBusy);

  // The default geometry (64 sets x 4 ways): three per set.
  GoldenModel d = mapped_model();
  for (uint32_t qpn : {0x10u, 0x50u, 0x90u, 0xd0u, 0x11u}) {
    REQUIRE(d.execute(create_cmd(qpn, kRc)).status == Status::Ok);
  }
  CHECK(d.execute(simple_cmd(Opcode::PinQp, 0x10)).status == Status::Ok);
  CHECK(d.execute(simple_cmd(Opcode::PinQp, 0x50)).status == Status::Ok);
  CHECK(d.execute(simple_cmd(Opcode::PinQp, 0x90)).status == Status::Ok);
  CHECK(d.execute(simple_cmd(Opcode::PinQp, 0xd0)).status == Status::ResBusy);
  CHECK(d.execute(simple_cmd(Opcode::PinQp, 0x11)).status == Status::Ok);

  // One way: nothing can be pinned.
  Config one;
  one.ways = 1;
  GoldenModel o = mapped_model(one);
  REQUIRE(o.execute(create_cmd(kQpn, kRc)).status == Status::Ok);
  CHECK(o.execute(simple_cmd(Opcode::PinQp, kQpn)).status == Status::ResBusy);
  CHECK(o.execute(simple_cmd(Opcode::UnpinQp, kQpn)).status == Status::Ok);
}

TEST_CASE("memory error: INT_ERR past the table checks, nothing changes", "[model][qpt]") {
  GoldenModel m = mapped_model();
  bring_to(m, kQpn, kRc, kRts);
  REQUIRE(m.execute(simple_cmd(Opcode::PinQp, kQpn)).status == Status::Ok);
  const Qpc before = m.qpc(kQpn);
  const auto image = m.memory_qpcs();
  REQUIRE(image.size() == 1);

  Command bad_modify = modify_cmd(kQpn, attr::kState, kErr);  // would succeed
  for (const Command &c :
       {create_cmd(kQpn, kRc), create_cmd(0x20, kRc), create_cmd(0, kRc),
        create_cmd(0x20, 9), bad_modify, modify_cmd(0x20, attr::kState, kReset),
        simple_cmd(Opcode::QueryQp, kQpn), simple_cmd(Opcode::QueryQp, 0x20),
        simple_cmd(Opcode::DestroyQp, kQpn), simple_cmd(Opcode::PinQp, kQpn),
        simple_cmd(Opcode::UnpinQp, kQpn), simple_cmd(Opcode::PinQp, 0x20)}) {
    INFO("opcode " << int(c.opcode_byte()) << " qpn " << c.qpn);
    const Response r = m.execute(c, true);
    CHECK(r.status == Status::IntErr);
    CHECK(r.syndrome == syn(0, 0, 0));
    CHECK(r.qpc == Qpc{});
  }
  CHECK(m.qpc(kQpn) == before);
  CHECK(m.qpc(0x20) == Qpc{});
  CHECK(m.pinned(kQpn));
  CHECK(m.memory_qpcs() == image);

  // The limit answers without memory: no INT_ERR.
  CHECK(m.execute(create_cmd(4096, kRc), true).status == Status::BadRes);
  CHECK(m.execute(simple_cmd(Opcode::QueryQp, 0xffffff), true).status == Status::BadRes);
  // An unmapped page is learned from the directory read, which can fail: INT_ERR.
  REQUIRE(m.execute(unmap_cmd(1)).status == Status::Ok);
  CHECK(m.execute(create_cmd(0x40, kRc), true).status == Status::IntErr);
  CHECK(m.execute(simple_cmd(Opcode::QueryQp, 0x41), true).status == Status::IntErr);
  CHECK(m.execute(simple_cmd(Opcode::QueryQp, 0x41)).status == Status::BadRes);
  // MAP/UNMAP read the directory entry and the old page: past their parameter checks
  // an error answers INT_ERR and changes nothing.
  CHECK(m.execute(map_cmd(1, 0x6000000), true).status == Status::IntErr);
  CHECK_FALSE(m.dir_entry(1).valid);
  CHECK(m.execute(unmap_cmd(0), true).status == Status::IntErr);
  CHECK(m.dir_entry(0).valid);
  CHECK(m.execute(map_cmd(1, 0x6000001), true).status == Status::BadParam);  // misaligned
  CHECK(m.execute(map_cmd(1, 0x6000000)).status == Status::Ok);
  CHECK(m.dir_entry(1).page_address == 0x6000000);
  CHECK(m.execute(unmap_cmd(0)).status == Status::ResBusy);
  CHECK(m.execute(unmap_cmd(2)).status == Status::Ok);
  // SYNC_CACHE and unknown opcodes ignore it.
  CHECK(m.execute(simple_cmd(Opcode::SyncCache, 0), true).status == Status::Ok);
  Command raw = simple_cmd(Opcode::QueryQp, kQpn);
  raw.use_raw_op = true;
  raw.raw_op = 0x7f;
  CHECK(m.execute(raw, true).status == Status::BadOp);

  // Without the error the same commands work, and execute(c) is execute(c, false).
  CHECK(m.execute(simple_cmd(Opcode::QueryQp, kQpn), false).qpc == before);
  CHECK(m.execute(simple_cmd(Opcode::QueryQp, kQpn)).qpc == before);
  CHECK(m.execute(bad_modify, false).status == Status::Ok);
  CHECK(m.qpc(kQpn).state == kErr);
}

TEST_CASE("memory_qpcs lists exactly the valid QPCs, by address", "[model][qpt]") {
  GoldenModel m = mapped_model();
  CHECK(m.memory_qpcs().empty());
  REQUIRE(m.execute(create_cmd(0xfff, kUc)).status == Status::Ok);  // page 63, slot 63
  REQUIRE(m.execute(create_cmd(0x41, kUd)).status == Status::Ok);   // page 1, slot 1
  REQUIRE(m.execute(create_cmd(kQpn, kRc)).status == Status::Ok);   // page 0, slot 16
  REQUIRE(m.execute(create_cmd(0x20, kRc)).status == Status::Ok);
  REQUIRE(m.execute(simple_cmd(Opcode::DestroyQp, 0x20)).status == Status::Ok);  // epoch 1
  REQUIRE(modify_status(m, kQpn, kRcUcInitMask, kInit) == Status::Ok);

  auto list = m.memory_qpcs();
  REQUIRE(list.size() == 3);
  CHECK(list[0].first == 0x1000400);
  CHECK(list[0].second.qp_type == kRc);
  CHECK(list[0].second.state == kInit);
  CHECK(list[0].second.port == 1);
  CHECK(list[1].first == 0x1001040);
  CHECK(list[1].second.qp_type == kUd);
  CHECK(list[1].second.state == kReset);
  CHECK(list[2].first == 0x103ffc0);
  CHECK(list[2].second.qp_type == kUc);
  for (const auto &e : list) {
    CHECK(e.second.valid == 1);
    CHECK(e.second.pd == 3);
  }

  // A destroyed QP leaves the list; its page, once free, can be unmapped.
  REQUIRE(m.execute(simple_cmd(Opcode::DestroyQp, 0x41)).status == Status::Ok);
  REQUIRE(m.execute(unmap_cmd(1)).status == Status::Ok);
  list = m.memory_qpcs();
  REQUIRE(list.size() == 2);
  CHECK(list[0].first == 0x1000400);
  CHECK(list[1].first == 0x103ffc0);
  // A backdoor write is memory too.
  Qpc q = m.qpc(0xfff);
  q.sq_pi = 7;
  m.force_qpc(0xfff, q);
  CHECK(m.memory_qpcs()[1].second.sq_pi == 7);
}

TEST_CASE("a given-up QPC write-back makes a live QP fatal with syndrome 11", "[model][qpt]") {
  // docs/events.md, "Memory faults": the context is kept, the QP goes to ERR with one
  // QP_FATAL of syndrome 11 (kWbFatal), and everything it owes is flushed.
  GoldenModel m = mapped_model();
  bring_to(m, kQpn, kRc, kRts);
  REQUIRE(m.doorbell(Doorbell{kQpn, false, 3}));
  REQUIRE(m.doorbell(Doorbell{kQpn, true, 2}));
  m.take_events();
  m.take_cqes();
  const Qpc before = m.qpc(kQpn);
  REQUIRE(before.sq_pi == 3);
  REQUIRE(before.rq_pi == 2);

  const auto named = m.qpc_write_failed(0x1000400);  // page 0, slot 0x10
  REQUIRE(named);
  CHECK(*named == kQpn);
  const Qpc after = m.qpc(kQpn);
  CHECK(after.state == kErr);
  CHECK(after.sq_ci == 3);  // flushed: ci caught up with pi
  CHECK(after.rq_ci == 2);
  // Only the state and the flush cursors moved: every other field is kept.
  Qpc expect = before;
  expect.state = kErr;
  expect.sq_ci = after.sq_ci;
  expect.rq_ci = after.rq_ci;
  expect.sq_issued = after.sq_issued;
  CHECK(after == expect);
  const std::vector<Event> events = m.take_events();
  REQUIRE(events.size() == 1);
  CHECK(events[0] == Event{false, kQpn, EventType::QpFatal, 11});
  CHECK(m.take_cqes() == std::vector<Cqe>{{1, kQpn, false, 0, WcStatus::WrFlushErr},
                                          {1, kQpn, false, 1, WcStatus::WrFlushErr},
                                          {1, kQpn, false, 2, WcStatus::WrFlushErr},
                                          {2, kQpn, true, 0, WcStatus::WrFlushErr},
                                          {2, kQpn, true, 1, WcStatus::WrFlushErr}});

  // Now in ERR: a second give-up changes nothing and raises nothing (never two
  // QP_FATALs).
  const auto image = m.memory_qpcs(false);
  CHECK(m.qpc_write_failed(0x1000400) == kQpn);
  CHECK(m.qpc(kQpn) == after);
  CHECK(m.take_events().empty());
  CHECK(m.take_cqes().empty());
  CHECK(m.memory_qpcs(false) == image);
}

TEST_CASE("a given-up write-back of a QP in RESET or ERR or of an invalid QPC changes nothing",
          "[model][qpt]") {
  GoldenModel m = mapped_model();
  bring_to(m, 0x20, kRc, kReset);  // page 0, slot 0x20: 0x1000800
  bring_to(m, 0x41, kUd, kErr);    // page 1, slot 1: 0x1001040
  REQUIRE(m.execute(create_cmd(0x42, kUc)).status == Status::Ok);
  REQUIRE(m.execute(simple_cmd(Opcode::DestroyQp, 0x42)).status == Status::Ok);  // 0x1001080
  m.take_events();
  m.take_cqes();
  const auto image = m.memory_qpcs(false);
  CHECK(m.qpc_write_failed(0x1000800) == 0x20u);
  CHECK(m.qpc_write_failed(0x1001040) == 0x41u);
  CHECK(m.qpc_write_failed(0x1001080) == 0x42u);  // destroyed: invalid, only the epoch
  CHECK(m.qpc_write_failed(0x10010c0) == 0x43u);  // never created
  CHECK(m.qpc(0x20).state == kReset);
  CHECK(m.qpc(0x41).state == kErr);
  CHECK(m.qpc(0x42).valid == 0);
  // An address that is no QPC: an unmapped page, the directory.
  REQUIRE(m.execute(unmap_cmd(2)).status == Status::Ok);
  CHECK_FALSE(m.qpc_write_failed(0x1002000));
  CHECK_FALSE(m.qpc_write_failed(0x10000000));
  CHECK(m.take_events().empty());
  CHECK(m.take_cqes().empty());
  // The unmapped page's slots left the image; every other slot is as it was.
  auto kept = image;
  kept.erase(std::remove_if(kept.begin(), kept.end(),
                            [](const auto &e) { return e.first >= 0x1002000 && e.first < 0x1003000; }),
             kept.end());
  CHECK(m.memory_qpcs(false) == kept);
}
