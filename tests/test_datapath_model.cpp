// Golden-model tests of the datapath port (SPEC.md §2, §3.1, §5, §6, §13;
// docs/datapath.md): every operation against the states and types that matter, every
// verdict and drop reason, events, doorbells, and the script words. The model alone, no
// Verilated library. QPs are driven into their states by real commands (CREATE_QP and
// MODIFY_QP with the kernel table's masks) and, where only hardware leads, by traffic or
// the force_qpc/force_state backdoors. Expectations are literals worked out by hand from
// the spec, never computed with the model's own helpers.
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "builders.h"
#include "datapath.h"
#include "golden_model.h"
#include "script.h"

using namespace qpm;
using namespace qpm::builders;

namespace {

constexpr uint32_t kRc = 2, kUc = 3, kUd = 4;
constexpr uint32_t kReset = 0, kInit = 1, kRtr = 2, kRts = 3, kSqd = 4, kSqe = 5, kErr = 6;
constexpr uint32_t kQpn = 0x10;
constexpr uint32_t kQkey = 0x80010000;
constexpr uint32_t kDestQpn = 0x654321;

// Hand-written masks: STATE plus the REQUIRED sets of ib-qp-state-table.md §1.4.
constexpr uint32_t kRcUcInitMask = 0x39;    // STATE|ACCESS_FLAGS|PKEY_INDEX|PORT
constexpr uint32_t kUdInitMask = 0x71;      // STATE|PKEY_INDEX|PORT|QKEY
constexpr uint32_t kRcRtrMask = 0x129181;   // + AV|PATH_MTU|RQ_PSN|MIN_RNR|MAX_DEST|DEST_QPN
constexpr uint32_t kUcRtrMask = 0x101181;   // + AV|PATH_MTU|RQ_PSN|DEST_QPN
constexpr uint32_t kRcRtsMask = 0x12e01;    // + TIMEOUT|RETRY|RNR|MAX_QP_RD|SQ_PSN
constexpr uint32_t kUcUdRtsMask = 0x10001;  // + SQ_PSN
constexpr uint32_t kToSqdMask = 0x5;        // STATE|EN_SQD_ASYNC_NOTIFY

// CREATE_QP's values.
CreateAttrs create_attrs() {
  CreateAttrs a;
  a.pd = 3;
  a.cqn_snd = 1;
  a.cqn_rcv = 2;
  a.log_sq_size = 6;  // 64 WQEs
  a.log_rq_size = 5;  // 32 WQEs
  return a;
}

// The attribute values the modifies of a walk write (MODIFY_QP's fields of a Command;
// tests change single values).
Command model_attrs() {
  Command a;
  a.qp_access_flags = 0xe;  // REMOTE_WRITE|REMOTE_READ|REMOTE_ATOMIC
  a.port_num = 1;
  a.qkey = kQkey;
  a.av = {0x1234, 3, 7};
  a.path_mtu = 5;
  a.timeout = 14;
  a.retry_cnt = 2;
  a.rnr_retry = 3;
  a.rq_psn = 0x100;
  a.sq_psn = 0x200;
  a.max_rd_atomic = 2;
  a.max_dest_rd_atomic = 1;
  a.min_rnr_timer = 12;
  a.dest_qp_num = kDestQpn;
  a.en_sqd_async_notify = 1;  // of RTS->SQD
  return a;
}

// The hand-written mask of each move of a walk (walk_cmds); a move to ERR names STATE only.
uint32_t hand_mask(uint32_t type, QpState, QpState next) {
  switch (next) {
    case QpState::Init:
      return type == kUd ? kUdInitMask : kRcUcInitMask;
    case QpState::Rtr:
      return type == kRc ? kRcRtrMask : type == kUc ? kUcRtrMask : 0x1;
    case QpState::Rts:
      return type == kRc ? kRcRtsMask : kUcUdRtsMask;
    case QpState::Sqd:
      return kToSqdMask;
    default:
      return 0x1;
  }
}

void modify_ok(GoldenModel &m, const Command &c) {
  REQUIRE(m.execute(c).status == Status::Ok);
  REQUIRE(m.qpc(c.qpn).state == c.qp_state);
}

void modify_ok(GoldenModel &m, uint32_t qpn, uint32_t mask, uint32_t next,
               const Command &a = model_attrs()) {
  modify_ok(m, modify_cmd(qpn, mask, next, a));
}

// The legal walk of a created QP from RESET to target with the hand-written masks:
// RESET -> INIT -> RTR -> RTS, stopping at the target, then RTS -> SQD or RTS -> ERR; SQE
// stops at RTS.
void walk_up(GoldenModel &m, uint32_t qpn, uint32_t type, uint32_t target, const Command &a) {
  for (const Command &c : walk_cmds(qpn, type, static_cast<QpState>(target), a, hand_mask)) {
    modify_ok(m, c);
  }
}

// Creates qpn and brings it to target: RESET..RTS by the legal walk, SQD and ERR by a
// modify from RTS, SQE by the backdoor from RTS (only hardware enters SQE; tests below
// also reach it by traffic). Events raised on the way are discarded.
void bring_to(GoldenModel &m, uint32_t qpn, uint32_t type, uint32_t target,
              const Command &a = model_attrs()) {
  REQUIRE(m.execute(create_cmd(qpn, type, create_attrs())).status == Status::Ok);
  walk_up(m, qpn, type, target, a);
  if (target == kSqe) {
    m.force_state(qpn, QpState::Sqe);
  }
  REQUIRE(m.qpc(qpn).state == target);
  m.take_events();
}

// A model with pages 0 and 1 mapped: QPNs 2..127 can be created.
GoldenModel mapped_model() {
  GoldenModel m;
  for (uint32_t i = 0; i < 2; ++i) {
    Command c;
    c.op = Opcode::MapPage;
    c.dir_index = i;
    c.page_address = 0x100000 + uint64_t{i} * 4096;
    REQUIRE(m.execute(c).status == Status::Ok);
  }
  return m;
}

void post(GoldenModel &m, const Doorbell &db) { REQUIRE(m.doorbell(db)); }

// SPEC §7 as these tests state it: a QP in ERR has completed every WQE it held (sq_ci =
// sq_issued = sq_pi, rq_ci = rq_pi), one in SQE every SQ WQE up to sq_issued; a
// completed failing WQE clears sq_err_pending. The completions themselves are checked
// where a test takes them (take_cqes).
Qpc flushed(Qpc q) {
  if (q.state == 6 /* ERR */) {
    if (q.sq_ci != q.sq_pi) q.sq_err_pending = 0;
    q.sq_ci = q.sq_pi;
    q.sq_issued = q.sq_pi;
    q.rq_ci = q.rq_pi;
  } else if (q.state == 5 /* SQE */) {
    if (q.sq_ci != q.sq_issued) q.sq_err_pending = 0;
    q.sq_ci = q.sq_issued;
  }
  return q;
}

// The verdict of one operation, checking its drop reason.
Verdict run(GoldenModel &m, const DpRequest &r, DropReason drop = DropReason::None) {
  const DpResponse rsp = m.datapath(r);
  CHECK(rsp.drop == drop);
  return rsp.verdict;
}

Event qp_event(uint32_t qpn, EventType t, uint8_t syn) { return Event{false, qpn, t, syn}; }

DpResponse zero_rsp(uint8_t tag, uint32_t qpn, DropReason why) {
  DpResponse r;
  r.tag = tag;
  r.qpn = qpn;
  r.verdict = Verdict::Drop;
  r.drop = why;
  return r;
}

const DpOp kAllOps[] = {DpOp::RxReq,  DpOp::RxRespDone, DpOp::TxWqe,
                        DpOp::RxAck,  DpOp::Timeout,    DpOp::RnrNak,
                        DpOp::RxNak,  DpOp::DmaBegin,   DpOp::DmaEnd};

}  // namespace

// ---------------------------------------------------------------------------------
// Names and encodings

TEST_CASE("datapath names and codes match SPEC 13 and the port encodings", "[datapath]") {
  const char *ops[] = {"RX_REQ",  "RX_RESP_DONE", "TX_WQE",    "RX_ACK", "TIMEOUT",
                       "RNR_NAK", "RX_NAK",       "DMA_BEGIN", "DMA_END"};
  for (int i = 0; i < 9; ++i) {
    CHECK(to_string(static_cast<DpOp>(i)) == ops[i]);
    CHECK(from_string<DpOp>(ops[i]) == static_cast<DpOp>(i));
  }
  const char *verdicts[] = {"ACCEPT", "DUPLICATE", "DROP",  "NAK_SEQ",   "NAK_ACCESS",
                            "NAK_INVALID", "RNR",  "ISSUE", "STALL",     "EMPTY",
                            "LOCAL_ERR", "RETRY",  "FATAL"};
  for (int i = 0; i < 13; ++i) {
    CHECK(to_string(static_cast<Verdict>(i)) == verdicts[i]);
    CHECK(from_string<Verdict>(verdicts[i]) == static_cast<Verdict>(i));
  }
  const char *drops[] = {"NONE", "NO_QP", "STATE",  "TYPE",  "OPCODE", "QKEY",   "PSN",
                         "SEQ",  "ACCESS", "NO_WQE", "COUNT", "STALE",  "MEM_ERR"};
  for (int i = 0; i < 13; ++i) {
    CHECK(to_string(static_cast<DropReason>(i)) == drops[i]);
    CHECK(from_string<DropReason>(drops[i]) == static_cast<DropReason>(i));
  }
  const char *classes[] = {"SEND", "WRITE", "READ", "ATOMIC"};
  const char *positions[] = {"FIRST", "MIDDLE", "LAST", "ONLY"};
  for (int i = 0; i < 4; ++i) {
    CHECK(to_string(static_cast<MsgClass>(i)) == classes[i]);
    CHECK(from_string<MsgClass>(classes[i]) == static_cast<MsgClass>(i));
    CHECK(to_string(static_cast<PktPos>(i)) == positions[i]);
    CHECK(from_string<PktPos>(positions[i]) == static_cast<PktPos>(i));
  }
  CHECK(to_string(NakCode::Access) == "ACCESS");
  CHECK(to_string(NakCode::Invalid) == "INVALID");
  CHECK(to_string(NakCode::Operation) == "OPERATION");
  CHECK(from_string<NakCode>("INVALID") == NakCode::Invalid);
  // enum ibv_event_type values.
  CHECK(static_cast<int>(EventType::QpFatal) == 1);
  CHECK(static_cast<int>(EventType::QpReqErr) == 2);
  CHECK(static_cast<int>(EventType::QpAccessErr) == 3);
  CHECK(static_cast<int>(EventType::CommEst) == 4);
  CHECK(static_cast<int>(EventType::SqDrained) == 5);
  CHECK(static_cast<int>(EventType::PortErr) == 10);
  CHECK(to_string(EventType::QpAccessErr) == "QP_ACCESS_ERR");
  CHECK(to_string(EventType::SqDrained) == "SQ_DRAINED");
  CHECK(from_string<EventType>("COMM_EST") == EventType::CommEst);
  CHECK(from_string<EventType>("PORT_ERR") == EventType::PortErr);
  // Unknown names and values.
  CHECK_FALSE(from_string<Verdict>("accept"));
  CHECK_FALSE(from_string<DpOp>(""));
  CHECK_FALSE(from_string<DropReason>("NOQP"));
  CHECK(to_string(static_cast<Verdict>(13)) == "UNKNOWN");
  CHECK(to_string(static_cast<EventType>(6)) == "UNKNOWN");
}

TEST_CASE("PSN ahead is 1 to 2^23-1 past expected modulo 2^24", "[datapath]") {
  CHECK_FALSE(psn_ahead(0x100, 0x100));
  CHECK_FALSE(psn_behind(0x100, 0x100));
  CHECK(psn_ahead(0x101, 0x100));
  CHECK(psn_ahead(0x8000ff, 0x100));      // + 0x7fffff
  CHECK(psn_behind(0x800100, 0x100));     // + 0x800000
  CHECK(psn_behind(0xff, 0x100));
  CHECK(psn_behind(0xffffff, 0x100));
  CHECK(psn_ahead(0x000005, 0xfffff0));   // across the wrap
  CHECK(psn_ahead(0x7fffef, 0xfffff0));   // + 0x7fffff
  CHECK(psn_behind(0x7ffff0, 0xfffff0));  // + 0x800000
  CHECK(psn_behind(0xffffef, 0xfffff0));
  CHECK(psn_ahead(0, 0xffffff));
  CHECK(psn_behind(0xffffff, 0));
}

// ---------------------------------------------------------------------------------
// Existence, memory errors, purity

TEST_CASE("every operation on a missing QP is DROP NO_QP with zero fields", "[datapath]") {
  GoldenModel m = mapped_model();
  bring_to(m, 0x12, kRc, kRts);
  REQUIRE(m.execute([] {
            Command c;
            c.op = Opcode::DestroyQp;
            c.qpn = 0x12;
            return c;
          }()).status == Status::Ok);
  const auto image = m.memory_qpcs(false);
  // Never created; destroyed; page 4 unmapped; at the QPN limit (4096).
  const uint32_t missing[] = {0x11, 0x12, 0x100, 4096};
  uint8_t tag = 1;
  for (uint32_t qpn : missing) {
    for (DpOp op : kAllOps) {
      DpRequest r = plain(op, qpn);
      r.tag = tag;
      INFO("qpn " << qpn << " op " << op);
      CHECK(m.datapath(r) == zero_rsp(tag, qpn, DropReason::NoQp));
      ++tag;
    }
    CHECK_FALSE(m.doorbell(sq_db(qpn, 1)));
    CHECK_FALSE(m.doorbell(rq_db(qpn, 1)));
  }
  CHECK(m.drops(DropReason::NoQp) == 36);
  CHECK(m.doorbells_refused() == 8);
  CHECK(m.memory_qpcs(false) == image);
  CHECK(m.take_events().empty());
}

TEST_CASE("dp_execute without a QP ignores the context it is given", "[datapath]") {
  Qpc before;
  before.valid = 1;
  before.state = kRts;
  before.qp_type = kRc;
  before.dest_qpn = 0x777;
  before.next_send_psn = 0x55;
  before.sq_pi = 3;
  before.epoch = 9;
  for (DpOp op : kAllOps) {
    DpRequest r = plain(op, 0x42);
    r.tag = 0xab;
    const DpOutcome out = dp_execute(before, false, r);
    CHECK(out.rsp == zero_rsp(0xab, 0x42, DropReason::NoQp));
    CHECK(out.after == before);
    CHECK_FALSE(out.event);
  }
  const DoorbellOutcome d = doorbell_execute(before, false, sq_db(0x42, 1));
  CHECK(d.refused);
  CHECK(d.after == before);
}

TEST_CASE("memory error on the QPC read: DROP MEM_ERR and nothing changes", "[datapath]") {
  GoldenModel m = mapped_model();
  bring_to(m, kQpn, kRc, kRtr);
  post(m, rq_db(kQpn, 1));
  const Qpc before = m.qpc(kQpn);
  // Without the error this would ACCEPT and raise COMM_EST.
  DpRequest r = rx(kQpn, MsgClass::Send, PktPos::Only, 0x100);
  r.tag = 5;
  CHECK(m.datapath(r, true) == zero_rsp(5, kQpn, DropReason::MemErr));
  CHECK(m.qpc(kQpn) == before);
  CHECK(m.take_events().empty());
  CHECK(m.drops(DropReason::MemErr) == 1);
  // A mapped QPC that is not valid: the read fails before its valid bit is known.
  CHECK(m.datapath(plain(DpOp::Timeout, 0x11), true) == zero_rsp(0, 0x11, DropReason::MemErr));
  // Beyond the limit nothing is read: NO_QP whatever memory does.
  CHECK(m.datapath(plain(DpOp::Timeout, 4096), true) == zero_rsp(0, 4096, DropReason::NoQp));
  // An unmapped page is learned from the directory read; when that read fails, the
  // page is not known to be unmapped: MEM_ERR. Without the error: NO_QP.
  CHECK(m.datapath(plain(DpOp::Timeout, 0x100), true) == zero_rsp(0, 0x100, DropReason::MemErr));
  CHECK(m.datapath(plain(DpOp::Timeout, 0x100)) == zero_rsp(0, 0x100, DropReason::NoQp));
  CHECK(m.drops(DropReason::MemErr) == 3);
  CHECK(m.drops(DropReason::NoQp) == 2);
  // A doorbell whose read failed is refused and counted, on a mapped QP and beyond it.
  const uint64_t refused = m.doorbells_refused();
  CHECK_FALSE(m.doorbell(rq_db(kQpn, 1), true));
  CHECK_FALSE(m.doorbell(rq_db(0x100, 1), true));
  CHECK(m.doorbells_refused() == refused + 2);
  CHECK(m.qpc(kQpn) == before);
  // And then the same request is served normally.
  CHECK(m.datapath(r).verdict == Verdict::Accept);
  CHECK(m.take_events() == std::vector<Event>{qp_event(kQpn, EventType::CommEst, 0)});
}

TEST_CASE("request fields are taken at their port widths", "[datapath]") {
  GoldenModel m = mapped_model();
  bring_to(m, kQpn, kRc, kRts);
  post(m, rq_db(kQpn, 1));
  post(m, sq_db(kQpn, 1));
  // psn and qpn are 24 bits: the bits above are not seen.
  const DpResponse a = m.datapath(rx(0x1000000 | kQpn, MsgClass::Send, PktPos::Only,
                                     0x3000100));
  CHECK(a.verdict == Verdict::Accept);
  CHECK(a.qpn == kQpn);
  CHECK(m.qpc(kQpn).expected_psn == 0x101);
  // npkts is 24 bits.
  CHECK(m.datapath(tx(kQpn, MsgClass::Send, 0x1000002)).verdict == Verdict::Issue);
  CHECK(m.qpc(kQpn).next_send_psn == 0x202);
  // The 4-bit op field's codes 9..15 name no operation (docs/datapath.md).
  const Qpc before = m.qpc(kQpn);
  for (int code = 9; code < 16; ++code) {
    CHECK(run(m, plain(static_cast<DpOp>(code), kQpn), DropReason::Opcode) == Verdict::Drop);
  }
  CHECK(m.qpc(kQpn) == before);
  CHECK(run(m, plain(static_cast<DpOp>(9), 0x11), DropReason::NoQp) == Verdict::Drop);
}

// ---------------------------------------------------------------------------------
// RX_REQ

TEST_CASE("RX_REQ drops by state in RESET INIT ERR and is served in RTR RTS SQD SQE",
          "[datapath][rx]") {
  for (uint32_t type : {kRc, kUc, kUd}) {
    for (uint32_t state : {kReset, kInit, kRtr, kRts, kSqd, kSqe, kErr}) {
      INFO("type " << type << " state " << state);
      GoldenModel m = mapped_model();
      bring_to(m, kQpn, type, state);
      if (state != kReset) post(m, rq_db(kQpn, 1));
      const Qpc before = m.qpc(kQpn);
      const DpRequest r = rx(kQpn, MsgClass::Send, PktPos::Only, 0x100, kQkey);
      const bool served = state == kRtr || state == kRts || state == kSqd || state == kSqe;
      if (!served) {
        CHECK(run(m, r, DropReason::State) == Verdict::Drop);
        CHECK(m.qpc(kQpn) == before);
        CHECK(m.drops(DropReason::State) == 1);
        continue;
      }
      CHECK(run(m, r) == Verdict::Accept);
      CHECK(m.qpc(kQpn).rq_ci == 1);
      CHECK(m.qpc(kQpn).state == state);
      // UD has no PSN check and no PSN state (UD never sets RQ_PSN).
      CHECK(m.qpc(kQpn).expected_psn == (type == kUd ? 0u : 0x101u));
      const auto events = m.take_events();
      if (state == kRtr && type != kUd) {
        CHECK(events == std::vector<Event>{qp_event(kQpn, EventType::CommEst, 0)});
      } else {
        CHECK(events.empty());
      }
    }
  }
}

TEST_CASE("UD RX_REQ: opcode then Q_Key then receive WQE and no PSN", "[datapath][rx]") {
  GoldenModel m = mapped_model();
  bring_to(m, kQpn, kUd, kRtr);
  const Qpc before = m.qpc(kQpn);
  const uint32_t wrong_qkey = kQkey + 1;
  CHECK(run(m, rx(kQpn, MsgClass::Write, PktPos::Only, 0, wrong_qkey), DropReason::Opcode) ==
        Verdict::Drop);
  CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::First, 0, kQkey), DropReason::Opcode) ==
        Verdict::Drop);
  CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::Last, 0, kQkey), DropReason::Opcode) ==
        Verdict::Drop);
  CHECK(run(m, rx(kQpn, MsgClass::Read, PktPos::Only, 0, kQkey), DropReason::Opcode) ==
        Verdict::Drop);
  CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::Only, 0, wrong_qkey), DropReason::Qkey) ==
        Verdict::Drop);
  CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::Only, 0, kQkey), DropReason::NoWqe) ==
        Verdict::Drop);
  CHECK(m.qpc(kQpn) == before);
  CHECK(m.drops(DropReason::Opcode) == 4);
  CHECK(m.drops(DropReason::Qkey) == 1);
  CHECK(m.drops(DropReason::NoWqe) == 1);

  post(m, rq_db(kQpn, 2));
  // Any PSN: UD has none to check.
  CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::Only, 0x777, kQkey)) == Verdict::Accept);
  CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::Only, 0x123, kQkey)) == Verdict::Accept);
  CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::Only, 0x123, kQkey), DropReason::NoWqe) ==
        Verdict::Drop);
  const Qpc &q = m.qpc(kQpn);
  CHECK(q.rq_ci == 2);
  CHECK(q.rq_pi == 2);
  CHECK(q.expected_psn == 0);
  CHECK(q.rx_msg_open == 0);
  CHECK(q.comm_est_seen == 0);  // COMM_EST is RC and UC only
  CHECK(m.take_events().empty());
}

TEST_CASE("UC RX_REQ: drops in order and PSN resynchronisation", "[datapath][rx]") {
  GoldenModel m = mapped_model();
  bring_to(m, kQpn, kUc, kRts);
  post(m, rq_db(kQpn, 4));
  auto q = [&] { return m.qpc(kQpn); };
  // READ/ATOMIC come before the PSN check: no resync.
  CHECK(run(m, rx(kQpn, MsgClass::Read, PktPos::Only, 0x100), DropReason::Opcode) ==
        Verdict::Drop);
  CHECK(run(m, rx(kQpn, MsgClass::Atomic, PktPos::Only, 0x105), DropReason::Opcode) ==
        Verdict::Drop);
  CHECK(q().expected_psn == 0x100);

  CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::First, 0x100)) == Verdict::Accept);
  CHECK(q().expected_psn == 0x101);
  CHECK(q().rx_msg_open == 1);
  CHECK(q().rx_msg_class == 0);  // SEND
  CHECK(q().rq_ci == 0);         // FIRST does not consume the WQE

  // PSN mismatch: resynchronise to psn + 1 and close the open message.
  CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::Middle, 0x105), DropReason::Psn) ==
        Verdict::Drop);
  CHECK(q().expected_psn == 0x106);
  CHECK(q().rx_msg_open == 0);

  // Out of sequence: nothing changes.
  const Qpc closed = q();
  CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::Middle, 0x106), DropReason::Seq) ==
        Verdict::Drop);
  CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::Last, 0x106), DropReason::Seq) ==
        Verdict::Drop);
  CHECK(q() == closed);

  CHECK(run(m, rx(kQpn, MsgClass::Write, PktPos::First, 0x106)) == Verdict::Accept);
  CHECK(q().rx_msg_open == 1);
  CHECK(q().rx_msg_class == 1);  // WRITE
  const Qpc open = q();
  CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::Last, 0x107), DropReason::Seq) ==
        Verdict::Drop);  // another class
  CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::Only, 0x107), DropReason::Seq) ==
        Verdict::Drop);  // ONLY while open
  CHECK(run(m, rx(kQpn, MsgClass::Write, PktPos::First, 0x107), DropReason::Seq) ==
        Verdict::Drop);  // FIRST while open
  CHECK(q() == open);
  CHECK(run(m, rx(kQpn, MsgClass::Write, PktPos::Middle, 0x107)) == Verdict::Accept);
  CHECK(q().rx_msg_open == 1);
  CHECK(run(m, rx(kQpn, MsgClass::Write, PktPos::Last, 0x108)) == Verdict::Accept);
  CHECK(q().rx_msg_open == 0);
  CHECK(q().rq_ci == 0);  // a WRITE consumes no receive WQE
  CHECK(q().expected_psn == 0x109);

  CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::Only, 0x109)) == Verdict::Accept);
  CHECK(q().rq_ci == 1);
  CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::First, 0x10a)) == Verdict::Accept);
  CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::Middle, 0x10b)) == Verdict::Accept);
  CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::Last, 0x10c)) == Verdict::Accept);
  CHECK(q().rq_ci == 2);
  CHECK(q().expected_psn == 0x10d);
  CHECK(m.drops(DropReason::Opcode) == 2);
  CHECK(m.drops(DropReason::Psn) == 1);
  CHECK(m.drops(DropReason::Seq) == 5);
  CHECK(q().state == kRts);
  CHECK(m.take_events().empty());  // UC drops raise nothing; RTS raises no COMM_EST
}

TEST_CASE("UC RX_REQ: WRITE without REMOTE_WRITE and SEND without a WQE", "[datapath][rx]") {
  GoldenModel m = mapped_model();
  Command a = model_attrs();
  a.qp_access_flags = 0x4;  // REMOTE_READ only
  bring_to(m, kQpn, kUc, kRts, a);
  const Qpc before = m.qpc(kQpn);
  CHECK(run(m, rx(kQpn, MsgClass::Write, PktPos::Only, 0x100), DropReason::Access) ==
        Verdict::Drop);
  CHECK(run(m, rx(kQpn, MsgClass::Write, PktPos::First, 0x100), DropReason::Access) ==
        Verdict::Drop);
  CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::Only, 0x100), DropReason::NoWqe) ==
        Verdict::Drop);
  CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::First, 0x100), DropReason::NoWqe) ==
        Verdict::Drop);
  CHECK(m.qpc(kQpn) == before);
  // Sequence comes before access: a WRITE MIDDLE with nothing open.
  CHECK(run(m, rx(kQpn, MsgClass::Write, PktPos::Middle, 0x100), DropReason::Seq) ==
        Verdict::Drop);

  post(m, rq_db(kQpn, 1));
  CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::First, 0x100)) == Verdict::Accept);
  CHECK(m.qpc(kQpn).rq_ci == 0);
  CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::Last, 0x101)) == Verdict::Accept);
  CHECK(m.qpc(kQpn).rq_ci == 1);
  CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::First, 0x102), DropReason::NoWqe) ==
        Verdict::Drop);
  // The PSN check precedes access.
  CHECK(run(m, rx(kQpn, MsgClass::Write, PktPos::Only, 0x200), DropReason::Psn) ==
        Verdict::Drop);
  CHECK(m.qpc(kQpn).expected_psn == 0x201);
}

TEST_CASE("UC PSN resynchronisation and acceptance wrap at 2^24", "[datapath][rx]") {
  GoldenModel m = mapped_model();
  Command a = model_attrs();
  a.rq_psn = 0xfffffe;
  bring_to(m, kQpn, kUc, kRts, a);
  post(m, rq_db(kQpn, 2));
  CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::Only, 0xffffff), DropReason::Psn) ==
        Verdict::Drop);
  CHECK(m.qpc(kQpn).expected_psn == 0);
  CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::Only, 0)) == Verdict::Accept);
  CHECK(m.qpc(kQpn).expected_psn == 1);

  a.rq_psn = 0xffffff;
  bring_to(m, 0x11, kUc, kRts, a);
  post(m, rq_db(0x11, 1));
  CHECK(run(m, rx(0x11, MsgClass::Send, PktPos::Only, 0xffffff)) == Verdict::Accept);
  CHECK(m.qpc(0x11).expected_psn == 0);
}

TEST_CASE("RC RX_REQ: NAK_SEQ ahead and DUPLICATE behind change nothing", "[datapath][rx]") {
  GoldenModel m = mapped_model();
  bring_to(m, kQpn, kRc, kRts);
  post(m, rq_db(kQpn, 1));
  const Qpc before = m.qpc(kQpn);
  for (uint32_t psn : {0x101u, 0x8000ffu}) {
    CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::Only, psn)) == Verdict::NakSeq);
  }
  for (uint32_t psn : {0x800100u, 0xffu, 0u, 0xffffffu}) {
    CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::Only, psn)) == Verdict::Duplicate);
  }
  // The PSN decides before the sequence and access checks would.
  CHECK(run(m, rx(kQpn, MsgClass::Read, PktPos::First, 0x102)) == Verdict::NakSeq);
  CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::Middle, 0xff)) == Verdict::Duplicate);
  CHECK(m.qpc(kQpn) == before);
  CHECK(m.take_events().empty());
  for (int r = 1; r < kNumDropReasons; ++r) CHECK(m.drops(static_cast<DropReason>(r)) == 0);

  // Across the wrap: expected 0xfffff0.
  Command a = model_attrs();
  a.rq_psn = 0xfffff0;
  bring_to(m, 0x11, kRc, kRts, a);
  CHECK(run(m, rx(0x11, MsgClass::Write, PktPos::Only, 0x000005)) == Verdict::NakSeq);
  CHECK(run(m, rx(0x11, MsgClass::Write, PktPos::Only, 0x7fffef)) == Verdict::NakSeq);
  CHECK(run(m, rx(0x11, MsgClass::Write, PktPos::Only, 0x7ffff0)) == Verdict::Duplicate);
  CHECK(run(m, rx(0x11, MsgClass::Write, PktPos::Only, 0xffffef)) == Verdict::Duplicate);
  CHECK(m.qpc(0x11).expected_psn == 0xfffff0);
  // Accepted at 0xffffff, expected wraps to 0.
  a.rq_psn = 0xffffff;
  bring_to(m, 0x12, kRc, kRts, a);
  CHECK(run(m, rx(0x12, MsgClass::Write, PktPos::Only, 0xffffff)) == Verdict::Accept);
  CHECK(m.qpc(0x12).expected_psn == 0);
  CHECK(run(m, rx(0x12, MsgClass::Write, PktPos::Only, 0xffffff)) == Verdict::Duplicate);
  CHECK(run(m, rx(0x12, MsgClass::Write, PktPos::Only, 0)) == Verdict::Accept);
}

TEST_CASE("RC RX_REQ: out of sequence or READ/ATOMIC not ONLY is NAK_INVALID to ERR",
          "[datapath][rx]") {
  struct Case {
    bool open_send_first;  // a SEND FIRST at 0x100 accepted before the request
    MsgClass cls;
    PktPos pos;
    uint32_t access;
  };
  const Case cases[] = {
      {false, MsgClass::Send, PktPos::Middle, 0xe},  {false, MsgClass::Send, PktPos::Last, 0xe},
      {false, MsgClass::Read, PktPos::First, 0xe},   {false, MsgClass::Atomic, PktPos::Last, 0xe},
      {false, MsgClass::Read, PktPos::Middle, 0xe},  {false, MsgClass::Read, PktPos::First, 0x0},
      {true, MsgClass::Send, PktPos::Only, 0xe},     {true, MsgClass::Send, PktPos::First, 0xe},
      {true, MsgClass::Write, PktPos::Middle, 0xe},  {true, MsgClass::Read, PktPos::Only, 0xe},
  };
  for (const Case &c : cases) {
    INFO("open " << c.open_send_first << " " << c.cls << " " << c.pos);
    GoldenModel m = mapped_model();
    Command a = model_attrs();
    a.qp_access_flags = c.access;
    bring_to(m, kQpn, kRc, kRts, a);
    post(m, rq_db(kQpn, 2));
    uint32_t psn = 0x100;
    if (c.open_send_first) {
      REQUIRE(run(m, rx(kQpn, MsgClass::Send, PktPos::First, psn)) == Verdict::Accept);
      ++psn;
    }
    const Qpc before = m.qpc(kQpn);
    const DpResponse r = m.datapath(rx(kQpn, c.cls, c.pos, psn));
    CHECK(r.verdict == Verdict::NakInvalid);
    CHECK(r.drop == DropReason::None);
    CHECK(r.psn == psn);
    Qpc expect = before;
    expect.state = kErr;
    expect.err_syndrome = 2;
    CHECK(m.qpc(kQpn) == flushed(expect));
    CHECK(m.take_events() == std::vector<Event>{qp_event(kQpn, EventType::QpReqErr, 2)});
    // A responder-side error names no WQE: both receive WQEs are flushed.
    const std::vector<Cqe> cqes = m.take_cqes();
    REQUIRE(cqes.size() == 2);
    CHECK(cqes[1] == Cqe{before.cqn_rcv, kQpn, true, 1, WcStatus::WrFlushErr});
  }
}

TEST_CASE("RC RX_REQ: a missing access flag is NAK_ACCESS to ERR with QP_ACCESS_ERR",
          "[datapath][rx]") {
  struct Case {
    MsgClass cls;
    uint32_t access;  // every remote flag but the one the class needs
  };
  for (const Case &c : {Case{MsgClass::Write, 0xc}, Case{MsgClass::Read, 0xa},
                        Case{MsgClass::Atomic, 0x6}}) {
    INFO(c.cls);
    GoldenModel m = mapped_model();
    Command a = model_attrs();
    a.qp_access_flags = c.access;
    a.max_dest_rd_atomic = 0;  // access is checked before the responder limit
    bring_to(m, kQpn, kRc, kRtr, a);
    const Qpc before = m.qpc(kQpn);
    const PktPos pos = c.cls == MsgClass::Write ? PktPos::First : PktPos::Only;
    CHECK(run(m, rx(kQpn, c.cls, pos, 0x100)) == Verdict::NakAccess);
    Qpc expect = before;
    expect.state = kErr;
    expect.err_syndrome = 1;
    CHECK(m.qpc(kQpn) == expect);
    CHECK(m.take_events() == std::vector<Event>{qp_event(kQpn, EventType::QpAccessErr, 1)});
  }
  // Each flag is enough for its class; SEND needs none.
  GoldenModel m = mapped_model();
  Command a = model_attrs();
  a.qp_access_flags = 0x2;
  bring_to(m, kQpn, kRc, kRts, a);
  CHECK(run(m, rx(kQpn, MsgClass::Write, PktPos::Only, 0x100)) == Verdict::Accept);
  a.qp_access_flags = 0x0;
  bring_to(m, 0x11, kRc, kRts, a);
  post(m, rq_db(0x11, 1));
  CHECK(run(m, rx(0x11, MsgClass::Send, PktPos::Only, 0x100)) == Verdict::Accept);
  a.qp_access_flags = 0x8;
  bring_to(m, 0x12, kRc, kRts, a);
  CHECK(run(m, rx(0x12, MsgClass::Atomic, PktPos::Only, 0x100)) == Verdict::Accept);
  CHECK(m.qpc(0x12).dest_rd_atomic_inflight == 1);
}

TEST_CASE("RC RX_REQ: SEND FIRST or ONLY without a receive WQE is RNR", "[datapath][rx]") {
  GoldenModel m = mapped_model();
  bring_to(m, kQpn, kRc, kRts);
  const Qpc before = m.qpc(kQpn);
  CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::Only, 0x100)) == Verdict::Rnr);
  CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::First, 0x100)) == Verdict::Rnr);
  CHECK(m.qpc(kQpn) == before);
  CHECK(run(m, rx(kQpn, MsgClass::Write, PktPos::Only, 0x100)) == Verdict::Accept);
  post(m, rq_db(kQpn, 1));
  CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::First, 0x101)) == Verdict::Accept);
  CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::Middle, 0x102)) == Verdict::Accept);
  CHECK(m.qpc(kQpn).rq_ci == 0);
  CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::Last, 0x103)) == Verdict::Accept);
  CHECK(m.qpc(kQpn).rq_ci == 1);
  CHECK(m.qpc(kQpn).expected_psn == 0x104);
  CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::Only, 0x104)) == Verdict::Rnr);
  CHECK(m.qpc(kQpn).state == kRts);
  CHECK(m.take_events().empty());
  for (int r = 1; r < kNumDropReasons; ++r) CHECK(m.drops(static_cast<DropReason>(r)) == 0);
}

TEST_CASE("only SEND FIRST and ONLY look for a receive WQE", "[datapath][rx]") {
  // A message already open needs no WQE for its MIDDLE packets, even with the RQ found
  // empty (set through the backdoor: traffic cannot empty it mid-message).
  for (uint32_t type : {kRc, kUc}) {
    INFO("type " << type);
    GoldenModel m = mapped_model();
    bring_to(m, kQpn, type, kRts);
    post(m, rq_db(kQpn, 1));
    CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::First, 0x100)) == Verdict::Accept);
    Qpc q = m.qpc(kQpn);
    q.rq_ci = 1;
    m.force_qpc(kQpn, q);
    CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::Middle, 0x101)) == Verdict::Accept);
    CHECK(m.qpc(kQpn).expected_psn == 0x102);
    CHECK(m.qpc(kQpn).rq_ci == 1);
  }
}

TEST_CASE("the two read/atomic counters are independent", "[datapath][rx][tx]") {
  // max_rd_atomic = 2 (this QP as requester), max_dest_rd_atomic = 1 (as responder).
  GoldenModel m = mapped_model();
  bring_to(m, kQpn, kRc, kRts);
  REQUIRE(m.qpc(kQpn).max_rd_atomic == 2);
  REQUIRE(m.qpc(kQpn).max_dest_rd_atomic == 1);
  post(m, sq_db(kQpn, 6));
  auto q = [&] { return m.qpc(kQpn); };

  DpResponse r = m.datapath(tx(kQpn, MsgClass::Read));
  CHECK(r.verdict == Verdict::Issue);
  CHECK(r.psn == 0x200);
  r = m.datapath(tx(kQpn, MsgClass::Atomic));
  CHECK(r.verdict == Verdict::Issue);
  CHECK(r.psn == 0x201);
  CHECK(q().rd_atomic_outstanding == 2);
  CHECK(q().sq_issued == 2);
  // The third outgoing read stalls and changes nothing.
  const Qpc full = q();
  r = m.datapath(tx(kQpn, MsgClass::Read));
  CHECK(r.verdict == Verdict::Stall);
  CHECK(r.psn == 0x202);
  CHECK(q() == full);
  // A SEND is not held back by the read limit.
  CHECK(run(m, tx(kQpn, MsgClass::Send, 2)) == Verdict::Issue);
  CHECK(q().next_send_psn == 0x204);
  CHECK(q().rd_atomic_outstanding == 2);

  // The responder side has its own counter: one incoming READ is accepted.
  CHECK(run(m, rx(kQpn, MsgClass::Read, PktPos::Only, 0x100)) == Verdict::Accept);
  CHECK(q().dest_rd_atomic_inflight == 1);
  CHECK(q().rd_atomic_outstanding == 2);
  CHECK(q().expected_psn == 0x101);
  CHECK(run(m, tx(kQpn, MsgClass::Read)) == Verdict::Stall);

  // A read response frees one requester slot, not the responder's.
  CHECK(run(m, ack(kQpn, 1, 1)) == Verdict::Accept);
  CHECK(q().rd_atomic_outstanding == 1);
  CHECK(q().dest_rd_atomic_inflight == 1);
  CHECK(run(m, tx(kQpn, MsgClass::Read)) == Verdict::Issue);
  CHECK(q().rd_atomic_outstanding == 2);

  // The second incoming READ is refused and moves the QP to ERR with QP_REQ_ERR.
  CHECK(m.take_events().empty());
  Qpc expect = q();
  r = m.datapath(rx(kQpn, MsgClass::Read, PktPos::Only, 0x101));
  CHECK(r.verdict == Verdict::NakInvalid);
  expect.state = kErr;
  expect.err_syndrome = 2;
  CHECK(q() == flushed(expect));
  CHECK(q().dest_rd_atomic_inflight == 1);
  CHECK(q().rd_atomic_outstanding == 2);
  CHECK(m.take_events() == std::vector<Event>{qp_event(kQpn, EventType::QpReqErr, 2)});

  // RX_RESP_DONE frees the responder slot: the next incoming ATOMIC is accepted.
  bring_to(m, 0x11, kRc, kRts);
  CHECK(run(m, rx(0x11, MsgClass::Read, PktPos::Only, 0x100)) == Verdict::Accept);
  CHECK(run(m, plain(DpOp::RxRespDone, 0x11)) == Verdict::Accept);
  CHECK(m.qpc(0x11).dest_rd_atomic_inflight == 0);
  CHECK(run(m, rx(0x11, MsgClass::Atomic, PktPos::Only, 0x101)) == Verdict::Accept);
  CHECK(m.qpc(0x11).dest_rd_atomic_inflight == 1);
  CHECK(m.qpc(0x11).rd_atomic_outstanding == 0);
  CHECK(m.qpc(0x11).state == kRts);
}

TEST_CASE("limits lowered below the counts refuse like limits reached", "[datapath][rx][tx]") {
  // RC SQD->SQD may lower both limits while reads are outstanding.
  GoldenModel m = mapped_model();
  Command a = model_attrs();
  a.max_rd_atomic = 3;
  a.max_dest_rd_atomic = 3;
  bring_to(m, kQpn, kRc, kRts, a);
  post(m, sq_db(kQpn, 4));
  CHECK(run(m, tx(kQpn, MsgClass::Read)) == Verdict::Issue);
  CHECK(run(m, tx(kQpn, MsgClass::Read)) == Verdict::Issue);
  CHECK(run(m, ack(kQpn, 2, 0)) == Verdict::Accept);  // drained, reads still outstanding
  CHECK(run(m, rx(kQpn, MsgClass::Read, PktPos::Only, 0x100)) == Verdict::Accept);
  CHECK(run(m, rx(kQpn, MsgClass::Read, PktPos::Only, 0x101)) == Verdict::Accept);
  modify_ok(m, kQpn, kToSqdMask, kSqd, a);
  a.max_rd_atomic = 1;
  a.max_dest_rd_atomic = 1;
  modify_ok(m, kQpn, 0x22000, kSqd, a);  // MAX_QP_RD_ATOMIC|MAX_DEST_RD_ATOMIC
  modify_ok(m, kQpn, 0x1, kRts, a);
  CHECK(m.qpc(kQpn).rd_atomic_outstanding == 2);
  CHECK(m.qpc(kQpn).dest_rd_atomic_inflight == 2);
  CHECK(run(m, tx(kQpn, MsgClass::Atomic)) == Verdict::Stall);
  CHECK(run(m, rx(kQpn, MsgClass::Atomic, PktPos::Only, 0x102)) == Verdict::NakInvalid);
  CHECK(m.qpc(kQpn).state == kErr);
}

// ---------------------------------------------------------------------------------
// RX_RESP_DONE, TX_WQE

TEST_CASE("RX_RESP_DONE: DROP COUNT at zero and no state check", "[datapath]") {
  GoldenModel m = mapped_model();
  bring_to(m, kQpn, kRc, kRts);
  CHECK(run(m, plain(DpOp::RxRespDone, kQpn), DropReason::Count) == Verdict::Drop);
  CHECK(run(m, rx(kQpn, MsgClass::Read, PktPos::Only, 0x100)) == Verdict::Accept);
  CHECK(run(m, plain(DpOp::RxRespDone, kQpn)) == Verdict::Accept);
  CHECK(m.qpc(kQpn).dest_rd_atomic_inflight == 0);
  CHECK(run(m, plain(DpOp::RxRespDone, kQpn), DropReason::Count) == Verdict::Drop);
  // In ERR a response still finishes.
  CHECK(run(m, rx(kQpn, MsgClass::Atomic, PktPos::Only, 0x101)) == Verdict::Accept);
  modify_ok(m, kQpn, 0x1, kErr);
  CHECK(run(m, plain(DpOp::RxRespDone, kQpn)) == Verdict::Accept);
  CHECK(m.qpc(kQpn).dest_rd_atomic_inflight == 0);
  // UD never has one in flight.
  bring_to(m, 0x11, kUd, kRts);
  CHECK(run(m, plain(DpOp::RxRespDone, 0x11), DropReason::Count) == Verdict::Drop);
  CHECK(m.drops(DropReason::Count) == 3);
}

TEST_CASE("TX_WQE: only RTS sends and EMPTY then ISSUE for every type", "[datapath][tx]") {
  for (uint32_t type : {kRc, kUc, kUd}) {
    for (uint32_t state : {kReset, kInit, kRtr, kSqd, kSqe, kErr}) {
      INFO("type " << type << " state " << state);
      GoldenModel m = mapped_model();
      bring_to(m, kQpn, type, state);
      // SQ doorbells are taken in SQD, SQE and ERR: posted WQEs still do not start.
      if (state >= kSqd) post(m, sq_db(kQpn, 1));
      const Qpc before = m.qpc(kQpn);
      CHECK(run(m, tx(kQpn, MsgClass::Send), DropReason::State) == Verdict::Drop);
      CHECK(m.qpc(kQpn) == before);
    }
    INFO("type " << type << " RTS");
    GoldenModel m = mapped_model();
    bring_to(m, kQpn, type, kRts);
    const Qpc before = m.qpc(kQpn);
    DpResponse r = m.datapath(tx(kQpn, MsgClass::Send, 3));
    CHECK(r.verdict == Verdict::Empty);
    CHECK(r.psn == 0x200);
    CHECK(m.qpc(kQpn) == before);
    post(m, sq_db(kQpn, 2));
    r = m.datapath(tx(kQpn, MsgClass::Send, 3));
    CHECK(r.verdict == Verdict::Issue);
    CHECK(r.psn == 0x200);
    CHECK(m.qpc(kQpn).next_send_psn == 0x203);
    CHECK(m.qpc(kQpn).sq_issued == 1);
    CHECK(m.qpc(kQpn).sq_ci == (type == kRc ? 0u : 1u));  // UC/UD complete at issue
    r = m.datapath(tx(kQpn, MsgClass::Write, 1));       // a UD WRITE is issued like a SEND
    CHECK(r.verdict == Verdict::Issue);
    CHECK(r.psn == 0x203);
    CHECK(m.qpc(kQpn).next_send_psn == 0x204);
    CHECK(m.qpc(kQpn).sq_issued == 2);
    CHECK(m.qpc(kQpn).sq_ci == (type == kRc ? 0u : 2u));
    CHECK(m.qpc(kQpn).rd_atomic_outstanding == 0);
    CHECK(run(m, tx(kQpn, MsgClass::Send)) == Verdict::Empty);
    CHECK(m.qpc(kQpn).state == kRts);
    CHECK(m.take_events().empty());
  }
}

TEST_CASE("TX_WQE: next_send_psn wraps at 2^24", "[datapath][tx]") {
  GoldenModel m = mapped_model();
  Command a = model_attrs();
  a.sq_psn = 0xfffffe;
  bring_to(m, kQpn, kRc, kRts, a);
  post(m, sq_db(kQpn, 2));
  DpResponse r = m.datapath(tx(kQpn, MsgClass::Send, 3));
  CHECK(r.psn == 0xfffffe);
  CHECK(m.qpc(kQpn).next_send_psn == 0x000001);
  r = m.datapath(tx(kQpn, MsgClass::Send, 0xffffff));
  CHECK(r.psn == 0x000001);
  CHECK(m.qpc(kQpn).next_send_psn == 0);
}

TEST_CASE("UC and UD READ or ATOMIC TX_WQE is LOCAL_ERR to SQE", "[datapath][tx]") {
  for (uint32_t type : {kUc, kUd}) {
    for (MsgClass cls : {MsgClass::Read, MsgClass::Atomic}) {
      INFO("type " << type << " " << cls);
      GoldenModel m = mapped_model();
      bring_to(m, kQpn, type, kRts);
      // Nothing posted: EMPTY comes first.
      CHECK(run(m, tx(kQpn, cls)) == Verdict::Empty);
      post(m, sq_db(kQpn, 2));
      post(m, rq_db(kQpn, 1));
      CHECK(run(m, tx(kQpn, MsgClass::Send)) == Verdict::Issue);
      Qpc expect = m.qpc(kQpn);
      const DpResponse r = m.datapath(tx(kQpn, cls, 4));
      CHECK(r.verdict == Verdict::LocalErr);
      CHECK(r.psn == 0x201);
      expect.state = kSqe;
      expect.err_syndrome = 8;
      expect.sq_issued = 2;  // the end of the SQE flush: the SQ as it stood
      CHECK(m.qpc(kQpn) == flushed(expect));
      CHECK(m.qpc(kQpn).sq_issued == 2);
      CHECK(m.qpc(kQpn).sq_ci == 2);
      CHECK(m.qpc(kQpn).sq_err_pending == 0);
      CHECK(m.take_events().empty());
      // The failing WQE (sq_ci was 1) completes with LOC_QP_OP_ERR; the RQ is untouched.
      CHECK(m.take_cqes() ==
            std::vector<Cqe>{Cqe{expect.cqn_snd, kQpn, false, 1, WcStatus::LocQpOpErr}});

      // SQE reached by traffic: the send side stops, the receive side works.
      CHECK(run(m, tx(kQpn, MsgClass::Send), DropReason::State) == Verdict::Drop);
      CHECK(m.doorbell(sq_db(kQpn, 1)));
      CHECK(m.qpc(kQpn).sq_pi == 3);
      CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::Only, 0x100, kQkey)) == Verdict::Accept);
      CHECK(run(m, ack(kQpn, 0, 0), DropReason::Type) == Verdict::Drop);
      // SQE -> RTS recovers; the WQE posted in SQE (index 2) starts, and only it.
      modify_ok(m, kQpn, 0x1, kRts);
      CHECK(run(m, tx(kQpn, MsgClass::Send)) == Verdict::Issue);
      CHECK(m.qpc(kQpn).sq_issued == 3);
      CHECK(run(m, tx(kQpn, MsgClass::Send)) == Verdict::Empty);
      CHECK(m.take_cqes().empty());
    }
  }
}

// ---------------------------------------------------------------------------------
// Requester operations: RX_ACK, TIMEOUT, RNR_NAK, RX_NAK

TEST_CASE("RX_ACK: TYPE then STATE then COUNT and its effects", "[datapath][ack]") {
  GoldenModel m = mapped_model();
  bring_to(m, 0x11, kUd, kRts);
  bring_to(m, 0x12, kUc, kRts);
  bring_to(m, 0x13, kUd, kReset);  // TYPE comes before STATE
  for (uint32_t qpn : {0x11u, 0x12u, 0x13u}) {
    CHECK(run(m, ack(qpn, 0, 0), DropReason::Type) == Verdict::Drop);
  }
  uint32_t qpn = 0x20;
  for (uint32_t state : {kReset, kInit, kRtr, kSqe, kErr}) {
    bring_to(m, qpn, kRc, state);
    CHECK(run(m, ack(qpn, 0, 0), DropReason::State) == Verdict::Drop);
    ++qpn;
  }
  CHECK(m.drops(DropReason::Type) == 3);
  CHECK(m.drops(DropReason::State) == 5);

  bring_to(m, kQpn, kRc, kRts);
  post(m, sq_db(kQpn, 3));
  CHECK(run(m, tx(kQpn, MsgClass::Send)) == Verdict::Issue);
  CHECK(run(m, tx(kQpn, MsgClass::Read)) == Verdict::Issue);
  const Qpc sent = m.qpc(kQpn);
  CHECK(run(m, ack(kQpn, 3, 0), DropReason::Count) == Verdict::Drop);
  CHECK(run(m, ack(kQpn, 0, 2), DropReason::Count) == Verdict::Drop);
  CHECK(m.qpc(kQpn) == sent);
  // Use up one retry of each kind; an accepted RX_ACK reloads both.
  CHECK(run(m, plain(DpOp::Timeout, kQpn)) == Verdict::Retry);
  CHECK(run(m, plain(DpOp::RnrNak, kQpn)) == Verdict::Retry);
  CHECK(m.qpc(kQpn).cur_retry_cnt == 1);
  CHECK(m.qpc(kQpn).cur_rnr_retry == 2);
  const DpResponse r = m.datapath(ack(kQpn, 1, 1));
  CHECK(r.verdict == Verdict::Accept);
  CHECK(r.psn == 0x202);  // next_send_psn
  CHECK(m.qpc(kQpn).sq_ci == 1);
  CHECK(m.qpc(kQpn).rd_atomic_outstanding == 0);
  CHECK(m.qpc(kQpn).cur_retry_cnt == 2);
  CHECK(m.qpc(kQpn).cur_rnr_retry == 3);
  CHECK(run(m, ack(kQpn, 0, 0)) == Verdict::Accept);
  CHECK(run(m, ack(kQpn, 1, 0)) == Verdict::Accept);
  CHECK(m.qpc(kQpn).sq_ci == 2);
  CHECK(run(m, ack(kQpn, 1, 0), DropReason::Count) == Verdict::Drop);
  CHECK(m.drops(DropReason::Count) == 3);

  // 16-bit indices: outstanding = sq_issued - sq_ci modulo 2^16.
  Qpc w = m.qpc(kQpn);
  w.sq_ci = 0xfffe;
  w.sq_issued = 0x0001;
  w.sq_pi = 0x0001;
  m.force_qpc(kQpn, w);
  CHECK(run(m, ack(kQpn, 4, 0), DropReason::Count) == Verdict::Drop);
  CHECK(run(m, ack(kQpn, 3, 0)) == Verdict::Accept);
  CHECK(m.qpc(kQpn).sq_ci == 1);
  CHECK(m.take_events().empty());
}

TEST_CASE("SQ_DRAINED when an RX_ACK completes the last WQE in SQD", "[datapath][ack]") {
  for (uint32_t notify : {1u, 0u}) {
    INFO("en_sqd_async_notify " << notify);
    GoldenModel m = mapped_model();
    Command a = model_attrs();
    a.en_sqd_async_notify = notify;
    bring_to(m, kQpn, kRc, kRts, a);
    post(m, sq_db(kQpn, 3));
    CHECK(run(m, tx(kQpn, MsgClass::Send)) == Verdict::Issue);
    CHECK(run(m, tx(kQpn, MsgClass::Send)) == Verdict::Issue);
    modify_ok(m, kQpn, kToSqdMask, kSqd, a);
    CHECK(m.take_events().empty());  // still draining
    // SQD starts nothing new; the outstanding WQEs still get retries.
    CHECK(run(m, tx(kQpn, MsgClass::Send), DropReason::State) == Verdict::Drop);
    CHECK(run(m, plain(DpOp::Timeout, kQpn)) == Verdict::Retry);
    CHECK(run(m, ack(kQpn, 1, 0)) == Verdict::Accept);
    CHECK(m.take_events().empty());
    CHECK(run(m, ack(kQpn, 1, 0)) == Verdict::Accept);
    CHECK(m.qpc(kQpn).state == kSqd);
    if (notify) {
      CHECK(m.take_events() == std::vector<Event>{qp_event(kQpn, EventType::SqDrained, 0)});
    } else {
      CHECK(m.take_events().empty());
    }
    // Already drained: no second event.
    CHECK(run(m, ack(kQpn, 0, 0)) == Verdict::Accept);
    CHECK(m.take_events().empty());
    // Drained: SQD -> RTS is allowed again.
    modify_ok(m, kQpn, 0x1, kRts, a);
  }
  // Draining in RTS raises nothing.
  GoldenModel m = mapped_model();
  bring_to(m, kQpn, kRc, kRts);
  post(m, sq_db(kQpn, 1));
  CHECK(run(m, tx(kQpn, MsgClass::Send)) == Verdict::Issue);
  CHECK(run(m, ack(kQpn, 1, 0)) == Verdict::Accept);
  CHECK(m.take_events().empty());
}

TEST_CASE("SQ_DRAINED at once when RTS to SQD finds nothing outstanding", "[datapath][ack]") {
  for (uint32_t type : {kRc, kUc, kUd}) {
    INFO("type " << type);
    GoldenModel m = mapped_model();
    bring_to(m, kQpn, type, kRts);
    post(m, sq_db(kQpn, 1));
    if (type == kRc) {
      // Everything issued is acknowledged.
      CHECK(run(m, tx(kQpn, MsgClass::Send)) == Verdict::Issue);
      CHECK(run(m, ack(kQpn, 1, 0)) == Verdict::Accept);
    } else {
      CHECK(run(m, tx(kQpn, MsgClass::Send)) == Verdict::Issue);  // completes at issue
    }
    modify_ok(m, kQpn, kToSqdMask, kSqd);
    CHECK(m.take_events() == std::vector<Event>{qp_event(kQpn, EventType::SqDrained, 0)});
    CHECK(m.take_events().empty());
    // Without EN_SQD_ASYNC_NOTIFY in the mask: no notification.
    modify_ok(m, kQpn, 0x1, kRts);
    modify_ok(m, kQpn, 0x1, kSqd);
    CHECK(m.qpc(kQpn).en_sqd_async_notify == 0);
    CHECK(m.take_events().empty());
    // With the bit and value 0: none either.
    modify_ok(m, kQpn, 0x1, kRts);
    Command off = model_attrs();
    off.en_sqd_async_notify = 0;
    modify_ok(m, kQpn, kToSqdMask, kSqd, off);
    CHECK(m.take_events().empty());
    // A refused RTS -> SQD raises nothing.
    modify_ok(m, kQpn, 0x1, kRts);
    CHECK(m.execute(modify_cmd(kQpn, kToSqdMask | 0x40, kSqd, model_attrs())).status ==
          Status::BadParam);  // QKEY
    CHECK(m.take_events().empty());
    // SQD -> SQD is not an entry into SQD.
    modify_ok(m, kQpn, kToSqdMask, kSqd);
    CHECK(m.take_events().size() == 1);
    modify_ok(m, kQpn, 0x1, kSqd);
    CHECK(m.take_events().empty());
  }
}

TEST_CASE("TIMEOUT: RETRY while cur_retry_cnt lasts then FATAL to ERR", "[datapath][ack]") {
  GoldenModel m = mapped_model();
  bring_to(m, 0x11, kUc, kRts);
  CHECK(run(m, plain(DpOp::Timeout, 0x11), DropReason::Type) == Verdict::Drop);
  bring_to(m, 0x12, kRc, kRtr);
  CHECK(run(m, plain(DpOp::Timeout, 0x12), DropReason::State) == Verdict::Drop);

  bring_to(m, kQpn, kRc, kRts);  // retry_cnt 2, rnr_retry 3
  CHECK(run(m, plain(DpOp::Timeout, kQpn), DropReason::Count) == Verdict::Drop);
  post(m, sq_db(kQpn, 2));
  CHECK(run(m, tx(kQpn, MsgClass::Send)) == Verdict::Issue);
  CHECK(run(m, plain(DpOp::Timeout, kQpn)) == Verdict::Retry);
  CHECK(m.qpc(kQpn).cur_retry_cnt == 1);
  CHECK(run(m, plain(DpOp::Timeout, kQpn)) == Verdict::Retry);
  CHECK(m.qpc(kQpn).cur_retry_cnt == 0);
  CHECK(m.qpc(kQpn).cur_rnr_retry == 3);  // the other counter is untouched
  Qpc expect = m.qpc(kQpn);
  CHECK(run(m, plain(DpOp::Timeout, kQpn)) == Verdict::Fatal);
  expect.state = kErr;
  expect.err_syndrome = 3;
  CHECK(m.qpc(kQpn) == flushed(expect));
  CHECK(m.take_events().empty());  // surfaces as a completion, not an event
  const std::vector<Cqe> cqes = m.take_cqes();
  REQUIRE(cqes.size() == 2);  // WQE 0 failed, WQE 1 never started
  CHECK(cqes[0] == Cqe{expect.cqn_snd, kQpn, false, 0, WcStatus::RetryExcErr});
  CHECK(cqes[1] == Cqe{expect.cqn_snd, kQpn, false, 1, WcStatus::WrFlushErr});
  CHECK(run(m, plain(DpOp::Timeout, kQpn), DropReason::State) == Verdict::Drop);

  // retry_cnt 0: the first TIMEOUT is fatal, here in a draining SQD (a draining SQD
  // refuses the SQD->SQD modify that would reload the count).
  Command a = model_attrs();
  a.retry_cnt = 0;
  bring_to(m, 0x13, kRc, kRts, a);
  post(m, sq_db(0x13, 1));
  CHECK(run(m, tx(0x13, MsgClass::Write)) == Verdict::Issue);
  modify_ok(m, 0x13, kToSqdMask, kSqd, a);
  a.retry_cnt = 5;
  CHECK(m.execute(modify_cmd(0x13, 0x400, kSqd, a)).status == Status::BadQpState);
  CHECK(run(m, plain(DpOp::Timeout, 0x13)) == Verdict::Fatal);
  CHECK(m.qpc(0x13).state == kErr);
  CHECK(m.qpc(0x13).err_syndrome == 3);

  // A drained SQD takes RETRY_CNT (SQD->SQD, RC), which reloads the running copy.
  a.retry_cnt = 2;
  bring_to(m, 0x14, kRc, kRts, a);
  post(m, sq_db(0x14, 1));
  CHECK(run(m, tx(0x14, MsgClass::Send)) == Verdict::Issue);
  CHECK(run(m, plain(DpOp::Timeout, 0x14)) == Verdict::Retry);
  CHECK(run(m, plain(DpOp::Timeout, 0x14)) == Verdict::Retry);
  CHECK(m.qpc(0x14).cur_retry_cnt == 0);
  modify_ok(m, 0x14, kToSqdMask, kSqd, a);  // draining
  CHECK(run(m, ack(0x14, 1, 0)) == Verdict::Accept);
  CHECK(m.qpc(0x14).cur_retry_cnt == 2);  // reloaded by the RX_ACK
  CHECK(run(m, ack(0x14, 0, 0)) == Verdict::Accept);
  a.retry_cnt = 5;
  modify_ok(m, 0x14, 0x400, kSqd, a);  // RETRY_CNT
  CHECK(m.qpc(0x14).retry_cnt == 5);
  CHECK(m.qpc(0x14).cur_retry_cnt == 5);
}

TEST_CASE("RNR_NAK counts cur_rnr_retry down but never when rnr_retry is 7",
          "[datapath][ack]") {
  GoldenModel m = mapped_model();
  Command a = model_attrs();
  a.rnr_retry = 1;
  bring_to(m, kQpn, kRc, kRts, a);
  post(m, sq_db(kQpn, 1));
  CHECK(run(m, plain(DpOp::RnrNak, kQpn), DropReason::Count) == Verdict::Drop);
  CHECK(run(m, tx(kQpn, MsgClass::Send)) == Verdict::Issue);
  CHECK(run(m, plain(DpOp::RnrNak, kQpn)) == Verdict::Retry);
  CHECK(m.qpc(kQpn).cur_rnr_retry == 0);
  CHECK(m.qpc(kQpn).cur_retry_cnt == 2);
  CHECK(run(m, plain(DpOp::RnrNak, kQpn)) == Verdict::Fatal);
  CHECK(m.qpc(kQpn).state == kErr);
  CHECK(m.qpc(kQpn).err_syndrome == 4);
  CHECK(m.take_events().empty());

  a.rnr_retry = 7;
  bring_to(m, 0x11, kRc, kRts, a);
  post(m, sq_db(0x11, 1));
  CHECK(run(m, tx(0x11, MsgClass::Send)) == Verdict::Issue);
  for (int i = 0; i < 20; ++i) CHECK(run(m, plain(DpOp::RnrNak, 0x11)) == Verdict::Retry);
  CHECK(m.qpc(0x11).cur_rnr_retry == 7);
  CHECK(m.qpc(0x11).state == kRts);
  // The counter decides (SPEC §6): a running copy of 0 (only a backdoor makes one while
  // rnr_retry is 7) is FATAL.
  Qpc q = m.qpc(0x11);
  q.cur_rnr_retry = 0;
  m.force_qpc(0x11, q);
  CHECK(run(m, plain(DpOp::RnrNak, 0x11)) == Verdict::Fatal);
  CHECK(m.qpc(0x11).state == kErr);
  // retry_cnt 7 is an ordinary count.
  a.retry_cnt = 7;
  bring_to(m, 0x12, kRc, kRts, a);
  post(m, sq_db(0x12, 1));
  CHECK(run(m, tx(0x12, MsgClass::Send)) == Verdict::Issue);
  CHECK(run(m, plain(DpOp::Timeout, 0x12)) == Verdict::Retry);
  CHECK(m.qpc(0x12).cur_retry_cnt == 6);

  a.rnr_retry = 0;
  bring_to(m, 0x13, kRc, kRts, a);
  post(m, sq_db(0x13, 1));
  CHECK(run(m, tx(0x13, MsgClass::Send)) == Verdict::Issue);
  CHECK(run(m, plain(DpOp::RnrNak, 0x13)) == Verdict::Fatal);
  CHECK(m.qpc(0x13).err_syndrome == 4);
}

TEST_CASE("RX_NAK is FATAL to ERR with the code's syndrome", "[datapath][ack]") {
  struct Case {
    NakCode code;
    uint32_t syndrome;
  };
  for (const Case &c : {Case{NakCode::Access, 5}, Case{NakCode::Invalid, 6},
                        Case{NakCode::Operation, 7}, Case{static_cast<NakCode>(3), 7}}) {
    INFO("code " << static_cast<int>(c.code));
    GoldenModel m = mapped_model();
    bring_to(m, kQpn, kRc, kRts);
    CHECK(run(m, nak(kQpn, c.code), DropReason::Count) == Verdict::Drop);
    post(m, sq_db(kQpn, 2));
    CHECK(run(m, tx(kQpn, MsgClass::Send)) == Verdict::Issue);
    Qpc expect = m.qpc(kQpn);
    CHECK(run(m, nak(kQpn, c.code)) == Verdict::Fatal);
    expect.state = kErr;
    expect.err_syndrome = c.syndrome;
    CHECK(m.qpc(kQpn) == flushed(expect));
    CHECK(m.take_events().empty());
    const WcStatus status = c.syndrome == 5   ? WcStatus::RemAccessErr
                            : c.syndrome == 6 ? WcStatus::RemInvReqErr
                                              : WcStatus::RemOpErr;
    const std::vector<Cqe> cqes = m.take_cqes();
    REQUIRE(cqes.size() == 2);
    CHECK(cqes[0] == Cqe{expect.cqn_snd, kQpn, false, 0, status});
  }
  GoldenModel m = mapped_model();
  bring_to(m, 0x11, kUd, kRts);
  CHECK(run(m, nak(0x11, NakCode::Access), DropReason::Type) == Verdict::Drop);
  bring_to(m, 0x12, kRc, kInit);
  CHECK(run(m, nak(0x12, NakCode::Access), DropReason::State) == Verdict::Drop);
  // Served in a draining SQD.
  bring_to(m, 0x13, kRc, kRts);
  post(m, sq_db(0x13, 1));
  CHECK(run(m, tx(0x13, MsgClass::Send)) == Verdict::Issue);
  modify_ok(m, 0x13, kToSqdMask, kSqd);
  CHECK(run(m, nak(0x13, NakCode::Invalid)) == Verdict::Fatal);
  CHECK(m.qpc(0x13).state == kErr);
  CHECK(m.take_events().empty());  // no SQ_DRAINED from a fatal error
}

// ---------------------------------------------------------------------------------
// DMA_BEGIN / DMA_END

TEST_CASE("DMA_BEGIN and DMA_END: STALE epoch then COUNT bounds", "[datapath]") {
  GoldenModel m = mapped_model();
  bring_to(m, kQpn, kRc, kRts);
  REQUIRE(m.qpc(kQpn).epoch == 0);
  CHECK(run(m, dma(DpOp::DmaBegin, kQpn, 1), DropReason::Stale) == Verdict::Drop);
  CHECK(run(m, dma(DpOp::DmaEnd, kQpn, 0), DropReason::Count) == Verdict::Drop);
  CHECK(run(m, dma(DpOp::DmaBegin, kQpn, 0)) == Verdict::Accept);
  CHECK(run(m, dma(DpOp::DmaBegin, kQpn, 0)) == Verdict::Accept);
  CHECK(m.qpc(kQpn).dma_inflight == 2);
  CHECK(run(m, dma(DpOp::DmaEnd, kQpn, 0)) == Verdict::Accept);
  CHECK(m.qpc(kQpn).dma_inflight == 1);
  // STALE is checked before COUNT.
  Qpc q = m.qpc(kQpn);
  q.dma_inflight = 0;
  m.force_qpc(kQpn, q);
  CHECK(run(m, dma(DpOp::DmaEnd, kQpn, 5), DropReason::Stale) == Verdict::Drop);
  q.dma_inflight = 255;
  m.force_qpc(kQpn, q);
  CHECK(run(m, dma(DpOp::DmaBegin, kQpn, 0), DropReason::Count) == Verdict::Drop);
  CHECK(m.qpc(kQpn).dma_inflight == 255);
  CHECK(run(m, dma(DpOp::DmaEnd, kQpn, 0)) == Verdict::Accept);
  CHECK(m.qpc(kQpn).dma_inflight == 254);

  // A reset starts epoch 1: the old incarnation's DMAs are stale; no state check.
  modify_ok(m, kQpn, 0x1, kReset);
  CHECK(m.qpc(kQpn).epoch == 1);
  CHECK(m.qpc(kQpn).dma_inflight == 0);
  CHECK(run(m, dma(DpOp::DmaEnd, kQpn, 0), DropReason::Stale) == Verdict::Drop);
  const DpResponse r = m.datapath(dma(DpOp::DmaBegin, kQpn, 1));
  CHECK(r.verdict == Verdict::Accept);
  CHECK(r.epoch == 1);
  CHECK(m.qpc(kQpn).dma_inflight == 1);
  // DESTROY resets too (epoch 2) and CREATE keeps the epoch.
  Command d;
  d.op = Opcode::DestroyQp;
  d.qpn = kQpn;
  REQUIRE(m.execute(d).status == Status::Ok);
  CHECK(run(m, dma(DpOp::DmaEnd, kQpn, 1), DropReason::NoQp) == Verdict::Drop);
  REQUIRE(m.execute(create_cmd(kQpn, kUd, create_attrs())).status == Status::Ok);
  CHECK(run(m, dma(DpOp::DmaEnd, kQpn, 1), DropReason::Stale) == Verdict::Drop);
  CHECK(run(m, dma(DpOp::DmaBegin, kQpn, 2)) == Verdict::Accept);
  CHECK(m.drops(DropReason::Stale) == 4);
  CHECK(m.drops(DropReason::Count) == 2);
}

// ---------------------------------------------------------------------------------
// COMM_EST, response fields, doorbells

TEST_CASE("COMM_EST on the first RTR ACCEPT once per incarnation", "[datapath][event]") {
  GoldenModel m = mapped_model();
  bring_to(m, kQpn, kRc, kRtr);
  // Nothing that is not an ACCEPT raises it.
  CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::Only, 0x100)) == Verdict::Rnr);
  post(m, rq_db(kQpn, 4));
  CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::Only, 0x105)) == Verdict::NakSeq);
  CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::Only, 0xff)) == Verdict::Duplicate);
  CHECK(m.take_events().empty());
  CHECK(m.qpc(kQpn).comm_est_seen == 0);
  CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::Only, 0x100)) == Verdict::Accept);
  CHECK(m.take_events() == std::vector<Event>{qp_event(kQpn, EventType::CommEst, 0)});
  CHECK(m.qpc(kQpn).comm_est_seen == 1);
  CHECK(m.qpc(kQpn).state == kRtr);  // the event does not move the QP
  CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::Only, 0x101)) == Verdict::Accept);
  CHECK(m.take_events().empty());
  modify_ok(m, kQpn, kRcRtsMask, kRts);
  CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::Only, 0x102)) == Verdict::Accept);
  CHECK(m.take_events().empty());

  // A new incarnation: RESET clears comm_est_seen.
  modify_ok(m, kQpn, 0x1, kReset);
  CHECK(m.qpc(kQpn).comm_est_seen == 0);
  walk_up(m, kQpn, kRc, kRtr, model_attrs());
  post(m, rq_db(kQpn, 1));
  CHECK(run(m, rx(kQpn, MsgClass::Write, PktPos::Only, 0x100)) == Verdict::Accept);
  CHECK(m.take_events() == std::vector<Event>{qp_event(kQpn, EventType::CommEst, 0)});

  // First ACCEPT in RTS: no COMM_EST, and comm_est_seen stays 0.
  bring_to(m, 0x11, kRc, kRts);
  CHECK(run(m, rx(0x11, MsgClass::Write, PktPos::Only, 0x100)) == Verdict::Accept);
  CHECK(m.qpc(0x11).comm_est_seen == 0);
  CHECK(m.take_events().empty());

  // UC: a drop raises nothing, the first ACCEPT does.
  bring_to(m, 0x12, kUc, kRtr);
  CHECK(run(m, rx(0x12, MsgClass::Write, PktPos::Only, 0x150), DropReason::Psn) ==
        Verdict::Drop);
  CHECK(m.take_events().empty());
  CHECK(run(m, rx(0x12, MsgClass::Write, PktPos::Only, 0x151)) == Verdict::Accept);
  CHECK(m.take_events() == std::vector<Event>{qp_event(0x12, EventType::CommEst, 0)});
  CHECK(run(m, rx(0x12, MsgClass::Write, PktPos::Only, 0x152)) == Verdict::Accept);
  CHECK(m.take_events().empty());
}

TEST_CASE("events leave in the order they were raised", "[datapath][event]") {
  GoldenModel m = mapped_model();
  bring_to(m, 0x11, kUc, kRtr);
  bring_to(m, 0x12, kRc, kRts);
  bring_to(m, 0x13, kUd, kRts);
  post(m, rq_db(0x11, 1));
  CHECK(run(m, rx(0x11, MsgClass::Send, PktPos::Only, 0x100)) == Verdict::Accept);
  CHECK(run(m, rx(0x12, MsgClass::Send, PktPos::Last, 0x100)) == Verdict::NakInvalid);
  modify_ok(m, 0x13, kToSqdMask, kSqd);
  CHECK(m.take_events() == std::vector<Event>{qp_event(0x11, EventType::CommEst, 0),
                                              qp_event(0x12, EventType::QpReqErr, 2),
                                              qp_event(0x13, EventType::SqDrained, 0)});
  CHECK(m.take_events().empty());
}

TEST_CASE("responses carry the QPC fields from before the operation", "[datapath]") {
  GoldenModel m = mapped_model();
  // One reset first, so the epoch is 1.
  REQUIRE(m.execute(create_cmd(kQpn, kRc, create_attrs())).status == Status::Ok);
  modify_ok(m, kQpn, kRcUcInitMask, kInit);
  modify_ok(m, kQpn, 0x1, kReset);
  walk_up(m, kQpn, kRc, kRts, model_attrs());
  auto expect = [](uint8_t tag, Verdict v, DropReason d, uint32_t psn) {
    DpResponse r;
    r.tag = tag;
    r.qpn = kQpn;
    r.verdict = v;
    r.drop = d;
    r.psn = psn;
    r.qp_type = 2;
    r.dest_qpn = kDestQpn;
    r.av_dlid = 0x1234;
    r.av_sl = 3;
    r.av_sgid_index = 7;
    r.epoch = 1;
    return r;
  };
  auto tagged = [](DpRequest r, uint8_t tag) {
    r.tag = tag;
    r.epoch = 1;  // the tokens carry this incarnation's epoch
    return r;
  };
  CHECK(m.datapath(tagged(tx(kQpn, MsgClass::Send, 4), 1)) ==
        expect(1, Verdict::Empty, DropReason::None, 0x200));
  post(m, sq_db(kQpn, 1));
  post(m, rq_db(kQpn, 1));
  CHECK(m.datapath(tagged(tx(kQpn, MsgClass::Send, 4), 2)) ==
        expect(2, Verdict::Issue, DropReason::None, 0x200));
  CHECK(m.datapath(tagged(tx(kQpn, MsgClass::Send, 4), 3)) ==
        expect(3, Verdict::Empty, DropReason::None, 0x204));
  CHECK(m.datapath(tagged(rx(kQpn, MsgClass::Send, PktPos::Only, 0x100), 4)) ==
        expect(4, Verdict::Accept, DropReason::None, 0x100));
  CHECK(m.datapath(tagged(rx(kQpn, MsgClass::Send, PktPos::Only, 0x101), 5)) ==
        expect(5, Verdict::Rnr, DropReason::None, 0x101));
  CHECK(m.datapath(tagged(plain(DpOp::Timeout, kQpn), 6)) ==
        expect(6, Verdict::Retry, DropReason::None, 0x204));
  CHECK(m.datapath(tagged(nak(kQpn, NakCode::Operation), 7)) ==
        expect(7, Verdict::Fatal, DropReason::None, 0x204));
  // In ERR, a DROP still carries the fields.
  CHECK(m.datapath(tagged(rx(kQpn, MsgClass::Send, PktPos::Only, 0x101), 8)) ==
        expect(8, Verdict::Drop, DropReason::State, 0x101));
  DpRequest stale = dma(DpOp::DmaBegin, kQpn, 0);
  stale.tag = 9;
  CHECK(m.datapath(stale) == expect(9, Verdict::Drop, DropReason::Stale, 0x204));

  // UD: no destination or path in the QPC.
  bring_to(m, 0x11, kUd, kRts);
  DpResponse ud;
  ud.qpn = 0x11;
  ud.verdict = Verdict::Drop;
  ud.drop = DropReason::NoWqe;
  ud.qp_type = 4;
  CHECK(m.datapath(rx(0x11, MsgClass::Send, PktPos::Only, 0x100, kQkey)) == ud);
}

TEST_CASE("doorbells: refused by state and for overflow and accepted otherwise",
          "[datapath][doorbell]") {
  for (uint32_t type : {kRc, kUc, kUd}) {
    for (uint32_t state : {kReset, kInit, kRtr, kRts, kSqd, kSqe, kErr}) {
      INFO("type " << type << " state " << state);
      GoldenModel m = mapped_model();
      bring_to(m, kQpn, type, state);
      const bool sq_ok = state >= kRts;  // RTS, SQD, SQE, ERR
      const bool rq_ok = state != kReset;
      const Qpc before = m.qpc(kQpn);
      CHECK(m.doorbell(sq_db(kQpn, 3)) == sq_ok);
      CHECK(m.qpc(kQpn).sq_pi == (sq_ok ? 3u : 0u));
      CHECK(m.doorbell(rq_db(kQpn, 2)) == rq_ok);
      CHECK(m.qpc(kQpn).rq_pi == (rq_ok ? 2u : 0u));
      Qpc expect = before;
      expect.sq_pi = sq_ok ? 3 : 0;
      expect.rq_pi = rq_ok ? 2 : 0;
      CHECK(m.qpc(kQpn) == flushed(expect));  // posted in ERR: flushed at once
      CHECK(m.doorbells_refused() == (sq_ok ? 0u : 1u) + (rq_ok ? 0u : 1u));
    }
  }

  GoldenModel m = mapped_model();
  bring_to(m, kQpn, kRc, kRts);  // 64 SQ and 32 RQ WQEs
  CHECK(m.doorbell(sq_db(kQpn, 60)));
  CHECK_FALSE(m.doorbell(sq_db(kQpn, 5)));
  CHECK(m.qpc(kQpn).sq_pi == 60);
  CHECK(m.doorbell(sq_db(kQpn, 4)));
  CHECK_FALSE(m.doorbell(sq_db(kQpn, 1)));
  CHECK(m.doorbell(sq_db(kQpn, 0)));  // full, but adds nothing
  CHECK(m.qpc(kQpn).sq_pi == 64);
  CHECK(m.doorbell(rq_db(kQpn, 32)));
  CHECK_FALSE(m.doorbell(rq_db(kQpn, 1)));
  CHECK_FALSE(m.doorbell(rq_db(kQpn, 0xffff)));
  CHECK(m.qpc(kQpn).rq_pi == 32);
  CHECK(m.doorbells_refused() == 4);
  // Issued is not completed: an RC WQE holds its slot until acknowledged.
  CHECK(run(m, tx(kQpn, MsgClass::Send)) == Verdict::Issue);
  CHECK_FALSE(m.doorbell(sq_db(kQpn, 1)));
  CHECK(run(m, ack(kQpn, 1, 0)) == Verdict::Accept);
  CHECK(m.doorbell(sq_db(kQpn, 1)));
  CHECK(m.qpc(kQpn).sq_pi == 65);
  // Receive WQEs consumed make room.
  CHECK(run(m, rx(kQpn, MsgClass::Send, PktPos::Only, 0x100)) == Verdict::Accept);
  CHECK(m.doorbell(rq_db(kQpn, 1)));
  CHECK_FALSE(m.doorbell(rq_db(kQpn, 1)));

  // pi - ci modulo 2^16, pi wraps.
  Qpc w = m.qpc(kQpn);
  w.sq_pi = 0xfff0;
  w.sq_ci = 0xffe0;
  w.sq_issued = 0xffe0;
  m.force_qpc(kQpn, w);
  CHECK_FALSE(m.doorbell(sq_db(kQpn, 49)));
  CHECK(m.doorbell(sq_db(kQpn, 48)));
  CHECK(m.qpc(kQpn).sq_pi == 0x0020);
  CHECK_FALSE(m.doorbell(sq_db(kQpn, 1)));

  // ERR takes the WQEs (they are flushed, SPEC §7).
  modify_ok(m, kQpn, 0x1, kErr);
  CHECK(m.doorbell(rq_db(kQpn, 0)));
  Qpc e = m.qpc(kQpn);
  e.rq_ci = e.rq_pi;
  m.force_qpc(kQpn, e);
  CHECK(m.doorbell(rq_db(kQpn, 5)));
  CHECK(m.qpc(kQpn).rq_pi == ((e.rq_pi + 5) & 0xffff));
}

TEST_CASE("every verdict and every drop reason is reached and counted", "[datapath]") {
  GoldenModel m = mapped_model();
  std::set<Verdict> seen;
  auto expect = [&](const DpRequest &r, Verdict v, DropReason d = DropReason::None,
                    bool mem_err = false) {
    const DpResponse rsp = m.datapath(r, mem_err);
    CHECK(rsp.verdict == v);
    CHECK(rsp.drop == d);
    seen.insert(rsp.verdict);
  };
  constexpr uint32_t kA = 0x20, kB = 0x21, kC = 0x22, kD = 0x23, kE = 0x24, kF = 0x25,
                     kG = 0x26;
  bring_to(m, kA, kRc, kRts);
  bring_to(m, kB, kUc, kRts);
  bring_to(m, kC, kUd, kRts);
  Command no_write = model_attrs();
  no_write.qp_access_flags = 0x4;
  bring_to(m, kD, kUc, kRts, no_write);
  bring_to(m, kE, kRc, kReset);
  Command none = model_attrs();
  none.qp_access_flags = 0;
  bring_to(m, kF, kRc, kRts, none);
  bring_to(m, kG, kRc, kRts);

  expect(tx(kA, MsgClass::Send), Verdict::Empty);
  post(m, sq_db(kA, 4));
  post(m, rq_db(kA, 1));
  expect(tx(kA, MsgClass::Read), Verdict::Issue);
  expect(tx(kA, MsgClass::Read), Verdict::Issue);
  expect(tx(kA, MsgClass::Read), Verdict::Stall);
  expect(rx(kA, MsgClass::Send, PktPos::Only, 0x100), Verdict::Accept);
  expect(rx(kA, MsgClass::Send, PktPos::Only, 0x101), Verdict::Rnr);
  expect(rx(kA, MsgClass::Send, PktPos::Only, 0x105), Verdict::NakSeq);
  expect(rx(kA, MsgClass::Send, PktPos::Only, 0xff), Verdict::Duplicate);
  expect(plain(DpOp::Timeout, kA), Verdict::Retry);
  expect(tx(kA, MsgClass::Send), Verdict::Drop, DropReason::MemErr, true);
  expect(nak(kA, NakCode::Access), Verdict::Fatal);
  post(m, sq_db(kB, 1));
  expect(tx(kB, MsgClass::Read), Verdict::LocalErr);
  expect(ack(kB, 0, 0), Verdict::Drop, DropReason::Type);
  expect(rx(kB, MsgClass::Send, PktPos::Only, 0x105), Verdict::Drop, DropReason::Psn);
  expect(rx(kB, MsgClass::Send, PktPos::Middle, 0x106), Verdict::Drop, DropReason::Seq);
  expect(rx(kC, MsgClass::Write, PktPos::Only, 0, kQkey), Verdict::Drop, DropReason::Opcode);
  expect(rx(kC, MsgClass::Send, PktPos::Only, 0, 1), Verdict::Drop, DropReason::Qkey);
  expect(rx(kC, MsgClass::Send, PktPos::Only, 0, kQkey), Verdict::Drop, DropReason::NoWqe);
  expect(plain(DpOp::RxRespDone, kC), Verdict::Drop, DropReason::Count);
  expect(dma(DpOp::DmaBegin, kC, 9), Verdict::Drop, DropReason::Stale);
  m.quiesce(kC);  // a reset of kC waits for its DMAs (docs/reset.md)
  expect(tx(kC, MsgClass::Send), Verdict::Drop, DropReason::Quiesce);
  expect(rx(kD, MsgClass::Write, PktPos::Only, 0x100), Verdict::Drop, DropReason::Access);
  expect(rx(kE, MsgClass::Write, PktPos::Only, 0), Verdict::Drop, DropReason::State);
  expect(tx(0x7f, MsgClass::Send), Verdict::Drop, DropReason::NoQp);
  expect(rx(kF, MsgClass::Write, PktPos::Only, 0x100), Verdict::NakAccess);
  expect(rx(kG, MsgClass::Send, PktPos::Middle, 0x100), Verdict::NakInvalid);

  CHECK(seen.size() == 13);
  CHECK(m.drops(DropReason::None) == 0);
  for (int r = 1; r < kNumDropReasons; ++r) {
    INFO(static_cast<DropReason>(r));
    CHECK(m.drops(static_cast<DropReason>(r)) == 1);
  }
}

// ---------------------------------------------------------------------------------
// Script words (SPEC §13)

namespace {

ScriptOp parse_dp(const std::string &text) {
  const auto op = parse_script_line(text, 1, true);
  REQUIRE(op);
  return *op;
}

}  // namespace

TEST_CASE("datapath script words parse into requests and doorbells", "[script]") {
  ScriptOp op = parse_dp("doorbell qpn=0x10 queue=sq n=4");
  CHECK(op.kind == ScriptOp::Kind::Doorbell);
  CHECK(op.verb == "doorbell");
  CHECK(op.db.qpn == 0x10);
  CHECK_FALSE(op.db.rq);
  CHECK(op.db.count == 4);
  op = parse_dp("doorbell qpn=17 queue=rq n=0xffff  # a comment");
  CHECK(op.db.qpn == 17);
  CHECK(op.db.rq);
  CHECK(op.db.count == 0xffff);

  op = parse_dp("rx qpn=0x10 op=WRITE pos=ONLY psn=0");
  CHECK(op.kind == ScriptOp::Kind::Datapath);
  CHECK(op.verb == "rx");
  CHECK(op.dp.op == DpOp::RxReq);
  CHECK(op.dp.qpn == 0x10);
  CHECK(op.dp.cls == MsgClass::Write);
  CHECK(op.dp.pos == PktPos::Only);
  CHECK(op.dp.psn == 0);
  CHECK(op.dp.qkey == 0);
  CHECK(op.dp.tag == 0);
  op = parse_dp("rx qpn=0xffffff op=SEND pos=FIRST psn=0xffffff qkey=0x80010000");
  CHECK(op.dp.qpn == 0xffffff);
  CHECK(op.dp.cls == MsgClass::Send);
  CHECK(op.dp.pos == PktPos::First);
  CHECK(op.dp.psn == 0xffffff);
  CHECK(op.dp.qkey == 0x80010000);
  op = parse_dp("rx qpn=1 op=3 pos=1 psn=5");  // codes as numbers
  CHECK(op.dp.cls == MsgClass::Atomic);
  CHECK(op.dp.pos == PktPos::Middle);

  op = parse_dp("tx qpn=0x10 op=READ npkts=1");
  CHECK(op.dp.op == DpOp::TxWqe);
  CHECK(op.dp.cls == MsgClass::Read);
  CHECK(op.dp.npkts == 1);
  op = parse_dp("ack qpn=0x10 wqes=1 reads=1");
  CHECK(op.dp.op == DpOp::RxAck);
  CHECK(op.dp.wqes == 1);
  CHECK(op.dp.reads == 1);
  op = parse_dp("ack qpn=0x10 wqes=65535 reads=255");
  CHECK(op.dp.wqes == 65535);
  CHECK(op.dp.reads == 255);
  CHECK(parse_dp("rx_resp_done qpn=0x10").dp.op == DpOp::RxRespDone);
  CHECK(parse_dp("timeout qpn=0x10").dp.op == DpOp::Timeout);
  CHECK(parse_dp("rnr qpn=0x10").dp.op == DpOp::RnrNak);
  op = parse_dp("nak qpn=0x10 code=ACCESS");
  CHECK(op.dp.op == DpOp::RxNak);
  CHECK(op.dp.code == NakCode::Access);
  CHECK(parse_dp("nak qpn=0x10 code=INVALID").dp.code == NakCode::Invalid);
  CHECK(parse_dp("nak qpn=0x10 code=OPERATION").dp.code == NakCode::Operation);
  op = parse_dp("dma_begin qpn=0x10 epoch=0");
  CHECK(op.dp.op == DpOp::DmaBegin);
  CHECK(op.dp.epoch == 0);
  op = parse_dp("dma_end qpn=0x10 epoch=255");
  CHECK(op.dp.op == DpOp::DmaEnd);
  CHECK(op.dp.epoch == 255);

  // The other words still parse as before with the flag set.
  CHECK(parse_dp("sync").kind == ScriptOp::Kind::Command);
  CHECK(parse_dp("run cycles=5").kind == ScriptOp::Kind::Run);
}

TEST_CASE("datapath requests and doorbells format back to the same line", "[script]") {
  CHECK(format_dp_request(rx(0x10, MsgClass::Write, PktPos::Only, 0)) ==
        "rx qpn=0x10 op=WRITE pos=ONLY psn=0");
  CHECK(format_dp_request(rx(0x11, MsgClass::Send, PktPos::Last, 7, 0x80010000)) ==
        "rx qpn=0x11 op=SEND pos=LAST psn=7 qkey=0x80010000");
  CHECK(format_dp_request(tx(0x10, MsgClass::Atomic, 3)) == "tx qpn=0x10 op=ATOMIC npkts=3");
  CHECK(format_dp_request(ack(0x10, 2, 1)) == "ack qpn=0x10 wqes=2 reads=1");
  CHECK(format_dp_request(nak(0x10, NakCode::Operation)) == "nak qpn=0x10 code=OPERATION");
  CHECK(format_dp_request(dma(DpOp::DmaEnd, 0x10, 9)) == "dma_end qpn=0x10 epoch=9");
  CHECK(format_dp_request(plain(DpOp::RnrNak, 0x10)) == "rnr qpn=0x10");
  CHECK(format_doorbell(rq_db(0x10, 4)) == "doorbell qpn=0x10 queue=rq n=4");

  std::vector<DpRequest> all = {rx(0x10, MsgClass::Atomic, PktPos::Middle, 0xabcdef, 5),
                                tx(0x20, MsgClass::Write, 0xffffff), ack(0x30, 0xffff, 0xff),
                                nak(0x40, NakCode::Invalid), dma(DpOp::DmaBegin, 0x50, 255)};
  for (DpOp op : {DpOp::RxRespDone, DpOp::Timeout, DpOp::RnrNak}) all.push_back(plain(op, 3));
  for (const DpRequest &r : all) {
    const std::string text = format_dp_request(r);
    INFO(text);
    const ScriptOp op = parse_dp(text);
    CHECK(op.dp.op == r.op);
    CHECK(format_dp_request(op.dp) == text);
  }
  const ScriptOp op = parse_dp(format_doorbell(sq_db(0xabc, 77)));
  CHECK(op.db.qpn == 0xabc);
  CHECK_FALSE(op.db.rq);
  CHECK(op.db.count == 77);
}

TEST_CASE("malformed datapath script lines are errors naming their line", "[script]") {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"rx qpn=0x10 op=WRITE pos=ONLY", "missing 'psn='"},
      {"rx qpn=0x10 pos=ONLY psn=0", "missing 'op='"},
      {"rx qpn=0x10 op=FETCH pos=ONLY psn=0", "unknown op 'FETCH'"},
      {"rx qpn=0x10 op=SEND pos=SOLO psn=0", "unknown pos 'SOLO'"},
      {"rx qpn=0x10 op=SEND pos=ONLY psn=0x1000000", "does not fit"},
      {"rx qpn=0x1000000 op=SEND pos=ONLY psn=0", "does not fit"},
      {"rx qpn=0x10 op=4 pos=ONLY psn=0", "does not fit"},
      {"rx qpn=0x10 op=SEND pos=ONLY psn=1 qkey=0x100000000", "does not fit"},
      {"rx qpn=0x10 op=SEND pos=ONLY psn=zero", "'psn' needs a number"},
      {"tx qpn=0x10 op=READ", "missing 'npkts='"},
      {"tx qpn=0x10 op=READ npkts=1 psn=3", "'tx' takes no 'psn='"},
      {"ack qpn=0x10 wqes=1", "missing 'reads='"},
      {"ack qpn=0x10 wqes=0x10000 reads=0", "does not fit"},
      {"ack qpn=0x10 wqes=1 reads=256", "does not fit"},
      {"nak qpn=0x10 code=BOGUS", "unknown code 'BOGUS'"},
      {"nak qpn=0x10", "missing 'code='"},
      {"dma_begin qpn=0x10 epoch=256", "does not fit"},
      {"dma_end qpn=0x10", "missing 'epoch='"},
      {"doorbell qpn=0x10 queue=xq n=1", "'queue' is sq or rq"},
      {"doorbell qpn=0x10 queue=sq n=65536", "does not fit"},
      {"doorbell qpn=0x10 queue=sq", "missing 'n='"},
      {"timeout qpn=0x10 wqes=1", "'timeout' takes no 'wqes='"},
      {"rnr", "missing 'qpn='"},
      {"rx_resp_done qpn=-1", "non-negative"},
      {"dma_begin qpn=0x10 epoch=1 epoch=2", "given twice"},
  };
  for (const auto &[text, msg] : bad) {
    INFO(text);
    try {
      parse_script_line(text, 7, true);
      FAIL("no error");
    } catch (const ScriptError &e) {
      CHECK(e.line() == 7);
      CHECK(std::string(e.what()).find("line 7: ") == 0);
      CHECK(std::string(e.what()).find(msg) != std::string::npos);
    }
  }
}

TEST_CASE("without the datapath flag the datapath words are not supported yet", "[script]") {
  for (const char *text : {"doorbell qpn=0x10 queue=sq n=4", "rx qpn=0x10 op=WRITE pos=ONLY psn=0",
                           "tx qpn=0x10 op=READ npkts=1", "ack qpn=0x10 wqes=1 reads=1",
                           "rx_resp_done qpn=0x10", "timeout qpn=0x10", "rnr qpn=0x10",
                           "nak qpn=0x10 code=ACCESS", "dma_begin qpn=0x10 epoch=0",
                           "dma_end qpn=0x10 epoch=0"}) {
    INFO(text);
    try {
      parse_script_line(text, 3);
      FAIL("no error");
    } catch (const ScriptError &e) {
      CHECK(e.line() == 3);
      CHECK(std::string(e.what()).find("not supported yet") != std::string::npos);
    }
  }
  CHECK_NOTHROW(parse_script_line("port_fault port=1", 2, true));
}
