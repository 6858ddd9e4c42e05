#include "datapath.h"

#include <array>
#include <utility>

namespace qpm {
namespace {

constexpr uint32_t kIndexMask = 0xffff;  // queue indices: modulo 2^16
constexpr uint32_t kHalfPsn = 1u << 23;
constexpr uint32_t kDmaMax = 0xff;  // dma_inflight is 8 bits

constexpr uint32_t st(QpState s) { return static_cast<uint32_t>(s); }
constexpr uint32_t ty(QpType t) { return static_cast<uint32_t>(t); }

bool is_read_atomic(MsgClass c) { return c == MsgClass::Read || c == MsgClass::Atomic; }

// The response fields every verdict carries, from the QPC before the operation.
DpResponse base_response(const Qpc &q, const DpRequest &req) {
  DpResponse r;
  r.tag = req.tag;
  r.qpn = req.qpn;
  r.psn = (req.op == DpOp::RxReq ? q.expected_psn : q.next_send_psn) & kPsnMask;
  r.qp_type = static_cast<uint8_t>(q.qp_type);
  r.dest_qpn = q.dest_qpn;
  r.av_dlid = static_cast<uint16_t>(q.av_dlid);
  r.av_sl = static_cast<uint8_t>(q.av_sl);
  r.av_sgid_index = static_cast<uint8_t>(q.av_sgid_index);
  r.epoch = static_cast<uint8_t>(q.epoch);
  return r;
}

// Builds an outcome step by step: the first check that fires decides it. Checks read
// q(), the QPC before the operation; effects write next(), the QPC after it.
class Op {
 public:
  Op(const Qpc &before, const DpRequest &req)
      : req_(req), before_(before), out_{base_response(before, req), before, std::nullopt} {}
  const DpRequest &req() const { return req_; }
  const Qpc &q() const { return before_; }
  Qpc &next() { return out_.after; }

  DpOutcome drop(DropReason why) {
    out_.rsp.verdict = Verdict::Drop;
    out_.rsp.drop = why;
    return out_;
  }
  // A verdict with whatever next() now holds.
  DpOutcome verdict(Verdict v) {
    out_.rsp.verdict = v;
    return out_;
  }
  void raise(EventType type, uint8_t syn) { out_.event = Event{false, req_.qpn, type, syn}; }
  // Hardware moves the QP to ERR or SQE by itself, recording the cause.
  // SPEC §7: a requester-side error names WQE sq_ci, which completes first with the
  // error's status; a move to SQE flushes only the SQ WQEs posted so far (sq_issued
  // marks their end; later ones wait for RTS). The completions themselves are the
  // flush's (flush.h).
  void move_to(QpState s, uint8_t syn) {
    out_.after.state = st(s);
    out_.after.err_syndrome = syn;
    out_.after.sq_err_pending = syn >= syndrome::kRetryExc ? 1 : 0;
    if (s == QpState::Sqe) out_.after.sq_issued = before_.sq_pi;
  }

 private:
  DpRequest req_;
  Qpc before_;
  DpOutcome out_;
};

// Only RC, UC and UD can be created; a QPC with any other type code (a backdoor write)
// is treated as RC.
bool is_uc(const Qpc &q) { return q.qp_type == ty(QpType::UC); }
bool is_ud(const Qpc &q) { return q.qp_type == ty(QpType::UD); }
bool is_rc(const Qpc &q) { return !is_uc(q) && !is_ud(q); }

// MIDDLE/LAST without an open message of the same class; FIRST/ONLY while one is open.
bool out_of_sequence(const Qpc &q, const DpRequest &r) {
  const bool open = q.rx_msg_open != 0;
  switch (r.pos) {
    case PktPos::First:
    case PktPos::Only:
      return open;
    case PktPos::Middle:
    case PktPos::Last:
      return !open || q.rx_msg_class != static_cast<uint32_t>(r.cls);
  }
  return true;
}

bool rq_empty(const Qpc &q) { return (q.rq_ci & kIndexMask) == (q.rq_pi & kIndexMask); }

bool starts_send(const DpRequest &r) {
  return r.cls == MsgClass::Send && (r.pos == PktPos::First || r.pos == PktPos::Only);
}

// SPEC §6 step 5: the effects of an accepted RC or UC request.
DpOutcome accept_rc_uc(Op &op) {
  const Qpc &q = op.q();
  const DpRequest &r = op.req();
  Qpc &n = op.next();
  n.expected_psn = (q.expected_psn + 1) & kPsnMask;
  if (r.pos == PktPos::First) {
    n.rx_msg_open = 1;
    n.rx_msg_class = static_cast<uint32_t>(r.cls);
  } else if (r.pos == PktPos::Last) {
    n.rx_msg_open = 0;
  }
  if (r.cls == MsgClass::Send && (r.pos == PktPos::Last || r.pos == PktPos::Only)) {
    n.rq_ci = (q.rq_ci + 1) & kIndexMask;
  }
  if (is_read_atomic(r.cls)) n.dest_rd_atomic_inflight = q.dest_rd_atomic_inflight + 1;
  if (q.state == st(QpState::Rtr) && q.comm_est_seen == 0) {
    n.comm_est_seen = 1;
    op.raise(EventType::CommEst, syndrome::kNone);
  }
  return op.verdict(Verdict::Accept);
}

DpOutcome rx_req(Op &op) {
  const Qpc &q = op.q();
  const DpRequest &r = op.req();
  const uint32_t s = q.state;
  if (s != st(QpState::Rtr) && s != st(QpState::Rts) && s != st(QpState::Sqd) &&
      s != st(QpState::Sqe)) {
    return op.drop(DropReason::State);
  }
  if (is_ud(q)) {
    if (r.cls != MsgClass::Send || r.pos != PktPos::Only) return op.drop(DropReason::Opcode);
    if (r.qkey != q.qkey) return op.drop(DropReason::Qkey);
    if (rq_empty(q)) return op.drop(DropReason::NoWqe);
    op.next().rq_ci = (q.rq_ci + 1) & kIndexMask;
    return op.verdict(Verdict::Accept);
  }
  const uint32_t psn = r.psn & kPsnMask;
  if (is_uc(q)) {
    if (is_read_atomic(r.cls)) return op.drop(DropReason::Opcode);
    if (psn != q.expected_psn) {
      op.next().rx_msg_open = 0;  // resynchronise on the packet that arrived
      op.next().expected_psn = (psn + 1) & kPsnMask;
      return op.drop(DropReason::Psn);
    }
    if (out_of_sequence(q, r)) return op.drop(DropReason::Seq);
    if (r.cls == MsgClass::Write && !(q.access_flags & access::kRemoteWrite)) {
      return op.drop(DropReason::Access);
    }
    if (starts_send(r) && rq_empty(q)) return op.drop(DropReason::NoWqe);
    return accept_rc_uc(op);
  }
  // RC.
  if (psn_ahead(psn, q.expected_psn)) return op.verdict(Verdict::NakSeq);
  if (psn != q.expected_psn) return op.verdict(Verdict::Duplicate);
  const auto fatal = [&](Verdict v, EventType ev, uint8_t syn) {
    op.move_to(QpState::Err, syn);
    op.raise(ev, syn);
    return op.verdict(v);
  };
  if (out_of_sequence(q, r) || (is_read_atomic(r.cls) && r.pos != PktPos::Only)) {
    return fatal(Verdict::NakInvalid, EventType::QpReqErr, syndrome::kNakInvalid);
  }
  uint32_t needed = 0;
  switch (r.cls) {
    case MsgClass::Send:
      break;
    case MsgClass::Write:
      needed = access::kRemoteWrite;
      break;
    case MsgClass::Read:
      needed = access::kRemoteRead;
      break;
    case MsgClass::Atomic:
      needed = access::kRemoteAtomic;
      break;
  }
  if (needed != 0 && !(q.access_flags & needed)) {
    return fatal(Verdict::NakAccess, EventType::QpAccessErr, syndrome::kNakAccess);
  }
  // At (or, after a modify lowered the limit, above) the responder's limit.
  if (is_read_atomic(r.cls) && q.dest_rd_atomic_inflight >= q.max_dest_rd_atomic) {
    return fatal(Verdict::NakInvalid, EventType::QpReqErr, syndrome::kNakInvalid);
  }
  if (starts_send(r) && rq_empty(q)) return op.verdict(Verdict::Rnr);
  return accept_rc_uc(op);
}

DpOutcome rx_resp_done(Op &op) {
  const uint32_t inflight = op.q().dest_rd_atomic_inflight;
  if (inflight == 0) return op.drop(DropReason::Count);
  op.next().dest_rd_atomic_inflight = inflight - 1;
  return op.verdict(Verdict::Accept);
}

DpOutcome tx_wqe(Op &op) {
  const Qpc &q = op.q();
  const DpRequest &r = op.req();
  if (q.state != st(QpState::Rts)) return op.drop(DropReason::State);
  if ((q.sq_issued & kIndexMask) == (q.sq_pi & kIndexMask)) return op.verdict(Verdict::Empty);
  const bool rc = is_rc(q);
  if (!rc && is_read_atomic(r.cls)) {
    op.move_to(QpState::Sqe, syndrome::kLocQpOp);
    return op.verdict(Verdict::LocalErr);
  }
  if (rc && is_read_atomic(r.cls) && q.rd_atomic_outstanding >= q.max_rd_atomic) {
    return op.verdict(Verdict::Stall);
  }
  Qpc &n = op.next();
  n.next_send_psn = (q.next_send_psn + (r.npkts & kPsnMask)) & kPsnMask;
  n.sq_issued = (q.sq_issued + 1) & kIndexMask;
  if (rc && is_read_atomic(r.cls)) n.rd_atomic_outstanding += 1;
  if (!rc) n.sq_ci = (q.sq_ci + 1) & kIndexMask;  // UC/UD WQEs complete at issue
  return op.verdict(Verdict::Issue);
}

uint32_t sq_outstanding(const Qpc &q) { return (q.sq_issued - q.sq_ci) & kIndexMask; }

// The common checks of RX_ACK, TIMEOUT, RNR_NAK and RX_NAK: TYPE, STATE (COUNT is each
// operation's). nullopt when they pass.
std::optional<DpOutcome> requester_checks(Op &op) {
  const Qpc &q = op.q();
  if (!is_rc(q)) return op.drop(DropReason::Type);
  if (q.state != st(QpState::Rts) && q.state != st(QpState::Sqd)) {
    return op.drop(DropReason::State);
  }
  return std::nullopt;
}

DpOutcome rx_ack(Op &op) {
  if (auto d = requester_checks(op)) return *d;
  const Qpc &q = op.q();
  const DpRequest &r = op.req();
  const uint32_t outstanding = sq_outstanding(q);
  if (r.wqes > outstanding || r.reads > q.rd_atomic_outstanding) {
    return op.drop(DropReason::Count);
  }
  Qpc &n = op.next();
  n.sq_ci = (q.sq_ci + r.wqes) & kIndexMask;
  n.rd_atomic_outstanding = q.rd_atomic_outstanding - r.reads;
  n.cur_retry_cnt = q.retry_cnt;
  n.cur_rnr_retry = q.rnr_retry;
  const bool drained_now = r.wqes != 0 && r.wqes == outstanding;
  if (q.state == st(QpState::Sqd) && drained_now && q.en_sqd_async_notify) {
    op.raise(EventType::SqDrained, syndrome::kNone);
  }
  return op.verdict(Verdict::Accept);
}

DpOutcome retry_or_fatal(Op &op, bool rnr) {
  if (auto d = requester_checks(op)) return *d;
  const Qpc &q = op.q();
  if (sq_outstanding(q) == 0) return op.drop(DropReason::Count);
  // SPEC §6: the counter decides; cur_rnr_retry never decrements when rnr_retry is 7
  // (it is loaded with 7, so that is "retry forever").
  const uint32_t counter = rnr ? q.cur_rnr_retry : q.cur_retry_cnt;
  if (counter != 0) {
    if (!(rnr && q.rnr_retry == 7)) {
      (rnr ? op.next().cur_rnr_retry : op.next().cur_retry_cnt) = counter - 1;
    }
    return op.verdict(Verdict::Retry);
  }
  op.move_to(QpState::Err, rnr ? syndrome::kRnrRetryExc : syndrome::kRetryExc);
  return op.verdict(Verdict::Fatal);
}

DpOutcome rx_nak(Op &op) {
  if (auto d = requester_checks(op)) return *d;
  if (sq_outstanding(op.q()) == 0) return op.drop(DropReason::Count);
  uint8_t syn = syndrome::kRemOp;  // OPERATION, and code 3
  if (op.req().code == NakCode::Access) syn = syndrome::kRemAccess;
  if (op.req().code == NakCode::Invalid) syn = syndrome::kRemInvReq;
  op.move_to(QpState::Err, syn);
  return op.verdict(Verdict::Fatal);
}

DpOutcome dma(Op &op, bool begin) {
  const Qpc &q = op.q();
  if (begin ? q.dma_inflight >= kDmaMax : q.dma_inflight == 0) {
    return op.drop(DropReason::Count);
  }
  op.next().dma_inflight = begin ? q.dma_inflight + 1 : q.dma_inflight - 1;
  return op.verdict(Verdict::Accept);
}

DpOutcome run(Op &op) {
  // The reset's fence, before every operation's own checks: a token of another epoch
  // is STALE; while a reset waits for the DMAs, all but DMA_END are QUIESCE.
  if (dp_is_token(op.req().op) && op.req().epoch != op.q().epoch) {
    return op.drop(DropReason::Stale);
  }
  if (op.q().quiesce && op.req().op != DpOp::DmaEnd) return op.drop(DropReason::Quiesce);
  switch (op.req().op) {
    case DpOp::RxReq:
      return rx_req(op);
    case DpOp::RxRespDone:
      return rx_resp_done(op);
    case DpOp::TxWqe:
      return tx_wqe(op);
    case DpOp::RxAck:
      return rx_ack(op);
    case DpOp::Timeout:
      return retry_or_fatal(op, false);
    case DpOp::RnrNak:
      return retry_or_fatal(op, true);
    case DpOp::RxNak:
      return rx_nak(op);
    case DpOp::DmaBegin:
      return dma(op, true);
    case DpOp::DmaEnd:
      return dma(op, false);
  }
  // Op codes 9..15 name no operation: DROP with reason OPCODE, nothing changes.
  return op.drop(DropReason::Opcode);
}

}  // namespace

bool DpResponse::operator==(const DpResponse &o) const {
  return tag == o.tag && qpn == o.qpn && verdict == o.verdict && drop == o.drop &&
         psn == o.psn && qp_type == o.qp_type && dest_qpn == o.dest_qpn &&
         av_dlid == o.av_dlid && av_sl == o.av_sl && av_sgid_index == o.av_sgid_index &&
         epoch == o.epoch;
}

bool dp_is_token(DpOp o) {
  return o == DpOp::RxRespDone || o == DpOp::RxAck || o == DpOp::Timeout ||
         o == DpOp::RnrNak || o == DpOp::RxNak || o == DpOp::DmaBegin || o == DpOp::DmaEnd;
}

bool psn_ahead(uint32_t psn, uint32_t expected) {
  const uint32_t d = (psn - expected) & kPsnMask;
  return d >= 1 && d < kHalfPsn;
}

bool psn_behind(uint32_t psn, uint32_t expected) {
  return ((psn - expected) & kPsnMask) != 0 && !psn_ahead(psn, expected);
}

DpOutcome dp_execute(const Qpc &before, bool exists, const DpRequest &request) {
  DpRequest req = request;
  req.qpn &= kPsnMask;  // the port's 24-bit fields
  req.psn &= kPsnMask;
  req.npkts &= kPsnMask;
  if (!exists) {
    DpOutcome out{DpResponse{}, before, std::nullopt};
    out.rsp.tag = req.tag;
    out.rsp.qpn = req.qpn;
    out.rsp.drop = DropReason::NoQp;
    return out;
  }
  Op op(qpc_at_widths(before), req);
  DpOutcome out = run(op);
  out.after = qpc_at_widths(out.after);  // a counter at its field's top cannot spill
  return out;
}

DpResponse dp_mem_error_response(const DpRequest &req) {
  DpResponse r;
  r.tag = req.tag;
  r.qpn = req.qpn & kPsnMask;
  r.drop = DropReason::MemErr;
  return r;
}

DoorbellOutcome doorbell_execute(const Qpc &before, bool exists, const Doorbell &db) {
  DoorbellOutcome out{true, before};
  if (!exists) return out;
  const Qpc q = qpc_at_widths(before);
  out.after = q;
  const uint32_t s = q.state;
  if (s == st(QpState::Reset) || q.quiesce) return out;
  if (!db.rq && (s == st(QpState::Init) || s == st(QpState::Rtr))) return out;
  const uint32_t pi = db.rq ? q.rq_pi : q.sq_pi;
  const uint32_t cursor = db.rq ? q.rq_ci : q.sq_ci;
  const uint32_t log_size = db.rq ? q.log_rq_size : q.log_sq_size;
  const uint64_t room = uint64_t{1} << log_size;
  // docs/errors.md: in ERR and SQE the queue is measured as software sees it, every WQE
  // the flush owes already completed. ERR keeps nothing queued (only a count beyond the
  // size overflows, and a count that would carry pi 2^16 ahead of the flush cursor is
  // refused); in SQE the SQ's owed WQEs end at sq_issued.
  if (s == st(QpState::Err)) {
    if (db.count > room || uint64_t{(pi - cursor) & kIndexMask} + db.count > kIndexMask) return out;
  } else {
    const uint32_t ci = (!db.rq && s == st(QpState::Sqe)) ? q.sq_issued : cursor;
    if (uint64_t{(pi - ci) & kIndexMask} + db.count > room) return out;
  }
  out.refused = false;
  (db.rq ? out.after.rq_pi : out.after.sq_pi) = (pi + db.count) & kIndexMask;
  return out;
}

// ---------------------------------------------------------------------------------
// Names

namespace {

template <typename E, size_t N>
struct NameTable {
  std::array<std::pair<E, const char *>, N> entries;
  std::string name(E v) const {
    for (const auto &[e, n] : entries) {
      if (e == v) return n;
    }
    return "UNKNOWN";
  }
  std::optional<E> parse(std::string_view s) const {
    for (const auto &[e, n] : entries) {
      if (s == n) return e;
    }
    return std::nullopt;
  }
};

constexpr NameTable<DpOp, 9> kOpNames{{{
    {DpOp::RxReq, "RX_REQ"},
    {DpOp::RxRespDone, "RX_RESP_DONE"},
    {DpOp::TxWqe, "TX_WQE"},
    {DpOp::RxAck, "RX_ACK"},
    {DpOp::Timeout, "TIMEOUT"},
    {DpOp::RnrNak, "RNR_NAK"},
    {DpOp::RxNak, "RX_NAK"},
    {DpOp::DmaBegin, "DMA_BEGIN"},
    {DpOp::DmaEnd, "DMA_END"},
}}};
constexpr NameTable<MsgClass, 4> kClassNames{{{
    {MsgClass::Send, "SEND"},
    {MsgClass::Write, "WRITE"},
    {MsgClass::Read, "READ"},
    {MsgClass::Atomic, "ATOMIC"},
}}};
constexpr NameTable<PktPos, 4> kPosNames{{{
    {PktPos::First, "FIRST"},
    {PktPos::Middle, "MIDDLE"},
    {PktPos::Last, "LAST"},
    {PktPos::Only, "ONLY"},
}}};
constexpr NameTable<NakCode, 3> kNakNames{{{
    {NakCode::Access, "ACCESS"},
    {NakCode::Invalid, "INVALID"},
    {NakCode::Operation, "OPERATION"},
}}};
constexpr NameTable<Verdict, 13> kVerdictNames{{{
    {Verdict::Accept, "ACCEPT"},
    {Verdict::Duplicate, "DUPLICATE"},
    {Verdict::Drop, "DROP"},
    {Verdict::NakSeq, "NAK_SEQ"},
    {Verdict::NakAccess, "NAK_ACCESS"},
    {Verdict::NakInvalid, "NAK_INVALID"},
    {Verdict::Rnr, "RNR"},
    {Verdict::Issue, "ISSUE"},
    {Verdict::Stall, "STALL"},
    {Verdict::Empty, "EMPTY"},
    {Verdict::LocalErr, "LOCAL_ERR"},
    {Verdict::Retry, "RETRY"},
    {Verdict::Fatal, "FATAL"},
}}};
constexpr NameTable<DropReason, kNumDropReasons> kDropNames{{{
    {DropReason::None, "NONE"},
    {DropReason::NoQp, "NO_QP"},
    {DropReason::State, "STATE"},
    {DropReason::Type, "TYPE"},
    {DropReason::Opcode, "OPCODE"},
    {DropReason::Qkey, "QKEY"},
    {DropReason::Psn, "PSN"},
    {DropReason::Seq, "SEQ"},
    {DropReason::Access, "ACCESS"},
    {DropReason::NoWqe, "NO_WQE"},
    {DropReason::Count, "COUNT"},
    {DropReason::Stale, "STALE"},
    {DropReason::MemErr, "MEM_ERR"},
    {DropReason::Quiesce, "QUIESCE"},
}}};
constexpr NameTable<EventType, 6> kEventNames{{{
    {EventType::QpFatal, "QP_FATAL"},
    {EventType::QpReqErr, "QP_REQ_ERR"},
    {EventType::QpAccessErr, "QP_ACCESS_ERR"},
    {EventType::CommEst, "COMM_EST"},
    {EventType::SqDrained, "SQ_DRAINED"},
    {EventType::PortErr, "PORT_ERR"},
}}};

}  // namespace

std::string to_string(DpOp v) { return kOpNames.name(v); }
std::string to_string(MsgClass v) { return kClassNames.name(v); }
std::string to_string(PktPos v) { return kPosNames.name(v); }
std::string to_string(NakCode v) { return kNakNames.name(v); }
std::string to_string(Verdict v) { return kVerdictNames.name(v); }
std::string to_string(DropReason v) { return kDropNames.name(v); }
std::string to_string(EventType v) { return kEventNames.name(v); }

template <>
std::optional<DpOp> from_string<DpOp>(std::string_view s) {
  return kOpNames.parse(s);
}
template <>
std::optional<MsgClass> from_string<MsgClass>(std::string_view s) {
  return kClassNames.parse(s);
}
template <>
std::optional<PktPos> from_string<PktPos>(std::string_view s) {
  return kPosNames.parse(s);
}
template <>
std::optional<NakCode> from_string<NakCode>(std::string_view s) {
  return kNakNames.parse(s);
}
template <>
std::optional<Verdict> from_string<Verdict>(std::string_view s) {
  return kVerdictNames.parse(s);
}
template <>
std::optional<DropReason> from_string<DropReason>(std::string_view s) {
  return kDropNames.parse(s);
}
template <>
std::optional<EventType> from_string<EventType>(std::string_view s) {
  return kEventNames.parse(s);
}

std::ostream &operator<<(std::ostream &os, DpOp v) { return os << to_string(v); }
std::ostream &operator<<(std::ostream &os, MsgClass v) { return os << to_string(v); }
std::ostream &operator<<(std::ostream &os, PktPos v) { return os << to_string(v); }
std::ostream &operator<<(std::ostream &os, NakCode v) { return os << to_string(v); }
std::ostream &operator<<(std::ostream &os, Verdict v) { return os << to_string(v); }
std::ostream &operator<<(std::ostream &os, DropReason v) { return os << to_string(v); }
std::ostream &operator<<(std::ostream &os, EventType v) { return os << to_string(v); }

std::ostream &operator<<(std::ostream &os, const DpResponse &r) {
  os << "{tag=" << unsigned{r.tag} << " qpn=0x" << std::hex << r.qpn << std::dec
     << " verdict=" << r.verdict;
  if (r.drop != DropReason::None) os << " drop=" << r.drop;
  return os << " psn=" << r.psn << " qp_type=" << unsigned{r.qp_type} << " dest_qpn=0x"
            << std::hex << r.dest_qpn << std::dec << " av_dlid=" << r.av_dlid
            << " av_sl=" << unsigned{r.av_sl} << " av_sgid_index=" << unsigned{r.av_sgid_index}
            << " epoch=" << unsigned{r.epoch} << "}";
}

std::ostream &operator<<(std::ostream &os, const Event &e) {
  os << "{";
  if (e.is_port) {
    os << "port=" << e.qpn;
  } else {
    os << "qpn=0x" << std::hex << e.qpn << std::dec;
  }
  return os << " type=" << e.type << " syndrome=" << unsigned{e.syndrome} << "}";
}

}  // namespace qpm
