#include "dp_stimulus.h"

#include <algorithm>

namespace qpm {

namespace {

constexpr uint32_t st(QpState s) { return static_cast<uint32_t>(s); }
bool is_rc(const Qpc &q) { return q.qp_type == static_cast<uint32_t>(QpType::RC); }
bool is_ud(const Qpc &q) { return q.qp_type == static_cast<uint32_t>(QpType::UD); }

uint32_t access_needed(MsgClass c) {
  switch (c) {
    case MsgClass::Write:
      return access::kRemoteWrite;
    case MsgClass::Read:
      return access::kRemoteRead;
    case MsgClass::Atomic:
      return access::kRemoteAtomic;
    default:
      return 0;
  }
}

}  // namespace

DpStimulus::DpStimulus(std::mt19937_64 &rng, const GoldenModel &model, std::vector<uint32_t> qpns,
                       const DpStimulusOptions &opt)
    : rng_(rng), model_(model), qpns_(std::move(qpns)), opt_(opt) {}

uint32_t DpStimulus::pick(uint32_t lo, uint32_t hi) {
  return std::uniform_int_distribution<uint32_t>(lo, hi)(rng_);
}

bool DpStimulus::chance(double p) { return std::bernoulli_distribution(p)(rng_); }

uint32_t DpStimulus::random_qpn() {
  const uint32_t limit = model_.config().qpn_limit;
  // Below the limit (a QPN no QP was created at, or 0/1), or at/above it (24 bits).
  if (limit < kPsnMask && chance(0.4))
    return pick(limit, kPsnMask);
  return pick(0, limit - 1);
}

bool DpStimulus::exists(uint32_t qpn, const Qpc &q) const {
  return model_.qpc_address(qpn) && q.valid != 0;
}

bool DpStimulus::active(uint32_t qpn, bool doorbell) const {
  if (!model_.qpc_address(qpn))
    return false;
  const Qpc &q = model_.qpc(qpn);
  if (!q.valid)
    return false;
  if (!doorbell)
    return q.state >= st(QpState::Rtr) && q.state <= st(QpState::Sqe);
  // A doorbell is worth most where a queue runs dry.
  const bool sq_dry = ((q.sq_pi - q.sq_issued) & 0xffff) < 2;
  const bool rq_dry = ((q.rq_pi - q.rq_ci) & 0xffff) < 2;
  return q.state != st(QpState::Reset) && (sq_dry || rq_dry);
}

Qpc &DpStimulus::projected(uint32_t qpn, size_t in_flight) {
  auto it = shadow_.find(qpn);
  if (in_flight == 0 || it == shadow_.end()) {
    // Nothing of qpn unanswered: the model is up to date.
    const Qpc q = model_.qpc_address(qpn) ? model_.qpc(qpn) : Qpc{};
    it = shadow_.insert_or_assign(qpn, q).first;
  }
  return it->second;
}

DpOp DpStimulus::choose_op(const Qpc &q, bool exists) {
  if (!exists)
    return static_cast<DpOp>(pick(0, 8));
  // Weights per operation: RX_REQ, RX_RESP_DONE, TX_WQE, RX_ACK, TIMEOUT, RNR_NAK,
  // RX_NAK, DMA_BEGIN, DMA_END, by what the QP can do in its state.
  std::vector<double> w(9, 1.0);
  const uint32_t s = q.state;
  const bool receives = s == st(QpState::Rtr) || s == st(QpState::Rts) || s == st(QpState::Sqd) ||
                        s == st(QpState::Sqe);
  const bool sends = s == st(QpState::Rts);
  const bool acks = is_rc(q) && (s == st(QpState::Rts) || s == st(QpState::Sqd));
  const bool posted = ((q.sq_pi - q.sq_issued) & 0xffff) != 0;
  const bool outstanding = ((q.sq_issued - q.sq_ci) & 0xffff) != 0;
  // Acknowledgements lag behind in RTS (so an RTS->SQD modify finds WQEs outstanding
  // and SQD drains), and hurry in SQD.
  const bool sqd = s == st(QpState::Sqd);
  w[0] = receives ? 30 : 3;
  w[1] = q.dest_rd_atomic_inflight > 0 ? 5 : 1;
  w[2] = sends ? (posted ? 30 : 3) : 2;
  w[3] = acks ? (outstanding ? (sqd ? 25 : 8) : 1) : 0.3;
  w[4] = acks ? (outstanding ? 5 : 0.5) : 0.3;
  w[5] = acks ? (outstanding ? 5 : 0.5) : 0.3;
  w[6] = 0.3;
  w[7] = opt_.dma_brackets ? 3 : 0;
  w[8] = !opt_.dma_brackets ? 0 : q.dma_inflight > 0 ? 4 : 1;
  return static_cast<DpOp>(std::discrete_distribution<int>(w.begin(), w.end())(rng_));
}

void DpStimulus::rx_req(DpRequest &r, const Qpc &q) {
  const bool plausible = !chance(opt_.illegal_rate);
  if (is_ud(q)) {
    r.cls = plausible ? MsgClass::Send : static_cast<MsgClass>(pick(0, 3));
    r.pos = plausible ? PktPos::Only : static_cast<PktPos>(pick(0, 3));
    r.qkey = plausible || chance(0.5) ? q.qkey : pick(0, 0xffffffffu);
    r.psn = pick(0, kPsnMask);
    return;
  }
  // The PSN: the expected one, or a little ahead or behind, or anywhere.
  const uint32_t roll = pick(0, 99);
  if (roll < 80 || (plausible && roll < 90)) {
    r.psn = q.expected_psn;
  } else if (roll < 95) {
    r.psn = (q.expected_psn + pick(0, 6) - 3) & kPsnMask;
  } else {
    r.psn = pick(0, kPsnMask);
  }
  // Class and position: continue an open message, or start one the QP allows.
  if (q.rx_msg_open && plausible) {
    r.cls = static_cast<MsgClass>(q.rx_msg_class & 3);
    r.pos = chance(0.5) ? PktPos::Middle : PktPos::Last;
    return;
  }
  if (!plausible) {
    r.cls = static_cast<MsgClass>(pick(0, 3));
    r.pos = static_cast<PktPos>(pick(0, 3));
    return;
  }
  // A SEND needs a receive WQE (else RNR, or a NO_WQE drop): without one, mostly not.
  const bool rq_empty = ((q.rq_pi - q.rq_ci) & 0xffff) == 0;
  std::vector<MsgClass> ok;
  if (!rq_empty || chance(0.2))
    ok.push_back(MsgClass::Send);
  for (MsgClass c : {MsgClass::Write, MsgClass::Read, MsgClass::Atomic}) {
    const bool allowed = (q.access_flags & access_needed(c)) != 0;
    const bool reads_left = q.dest_rd_atomic_inflight < q.max_dest_rd_atomic;
    const bool uc_ok = is_rc(q) || c == MsgClass::Write;
    if (allowed && uc_ok && (c == MsgClass::Write || reads_left))
      ok.push_back(c);
  }
  if (ok.empty())
    ok.push_back(MsgClass::Send);
  r.cls = ok[pick(0, static_cast<uint32_t>(ok.size() - 1))];
  if (r.cls == MsgClass::Read || r.cls == MsgClass::Atomic) {
    r.pos = PktPos::Only;
  } else {
    r.pos = chance(0.6) ? PktPos::Only : PktPos::First;
  }
}

void DpStimulus::tx_wqe(DpRequest &r, const Qpc &q) {
  const uint32_t roll = pick(0, 99);
  // UC/UD READ/ATOMIC sends the QP to SQE: now and then, not all the time.
  const uint32_t rd = is_rc(q) ? 25 : 3;
  if (roll < rd) {
    r.cls = chance(0.6) ? MsgClass::Read : MsgClass::Atomic;
  } else {
    r.cls = chance(0.6) ? MsgClass::Send : MsgClass::Write;
  }
  r.npkts = chance(opt_.illegal_rate) ? pick(0, kPsnMask) : pick(1, 8);
}

DpRequest DpStimulus::op(uint32_t qpn, size_t in_flight) {
  Qpc &q = projected(qpn, in_flight);
  const bool there = exists(qpn, q);
  DpRequest r;
  r.qpn = qpn;
  r.op = choose_op(q, there);
  // Fields an operation does not use carry anything.
  r.qkey = static_cast<uint32_t>(rng_());
  r.psn = pick(0, kPsnMask);
  r.epoch = static_cast<uint8_t>(pick(0, 255));
  const bool plausible = !chance(opt_.illegal_rate);
  const uint32_t outstanding = (q.sq_issued - q.sq_ci) & 0xffff;
  switch (r.op) {
    case DpOp::RxReq:
      rx_req(r, q);
      break;
    case DpOp::TxWqe:
      tx_wqe(r, q);
      break;
    case DpOp::RxAck:
      if (plausible) {
        r.wqes = static_cast<uint16_t>(outstanding ? pick(1, outstanding) : 0);
        r.reads = static_cast<uint8_t>(pick(0, std::min<uint32_t>(q.rd_atomic_outstanding, 255)));
      } else {
        r.wqes = static_cast<uint16_t>(outstanding + pick(0, 3));
        r.reads = static_cast<uint8_t>(q.rd_atomic_outstanding + pick(0, 2));
      }
      break;
    case DpOp::RxNak:
      r.code = static_cast<NakCode>(pick(0, 3));  // 3 reads as OPERATION
      break;
    default:
      break;
  }
  // A token carries its incarnation's epoch; a broken one (mostly a DMA's) another.
  const bool stale = r.op == DpOp::DmaBegin || r.op == DpOp::DmaEnd ? !plausible
                                                                      : chance(opt_.illegal_rate / 4);
  if (dp_is_token(r.op) && !stale)
    r.epoch = static_cast<uint8_t>(q.epoch);
  if (chance(opt_.illegal_rate / 20))
    r.op = static_cast<DpOp>(pick(9, 15));  // no such op
  // Follow the operation, so the next one of this QPN sees its effect.
  if (there)
    q = dp_execute(q, true, r).after;
  return r;
}

Doorbell DpStimulus::doorbell(uint32_t qpn, size_t in_flight) {
  Qpc &q = projected(qpn, in_flight);
  Doorbell db;
  db.qpn = qpn;
  const uint32_t s = q.state;
  const bool sq_ok = s == st(QpState::Rts) || s == st(QpState::Sqd) || s == st(QpState::Sqe) ||
                     s == st(QpState::Err);
  // The queue the QP can take WQEs on, mostly the one that runs dry.
  const bool sq_dry = ((q.sq_pi - q.sq_issued) & 0xffff) < 2;
  const bool rq_dry = ((q.rq_pi - q.rq_ci) & 0xffff) < 2;
  if (chance(opt_.illegal_rate)) {
    db.rq = chance(0.5);
  } else if (!sq_ok) {
    db.rq = true;
  } else if (sq_dry != rq_dry) {
    db.rq = rq_dry ? chance(0.8) : chance(0.2);
  } else {
    db.rq = chance(0.5);
  }
  const uint32_t pi = db.rq ? q.rq_pi : q.sq_pi, ci = db.rq ? q.rq_ci : q.sq_ci;
  const uint32_t log = db.rq ? q.log_rq_size : q.log_sq_size;
  const uint32_t room =
      (1u << std::min<uint32_t>(log, 16)) - std::min<uint32_t>((pi - ci) & 0xffff, 1u << 16);
  if (chance(opt_.illegal_rate)) {
    db.count = static_cast<uint16_t>(std::min<uint32_t>(room + pick(1, 4), 0xffff));  // overflows
  } else {
    db.count = static_cast<uint16_t>(std::clamp<uint32_t>(pick(1, 8), 1, std::max(room, 1u)));
  }
  db.count = static_cast<uint16_t>(std::min<uint32_t>(db.count, opt_.max_doorbell_count));
  if (db.count == 0 && !doorbell_execute(q, exists(qpn, q), db).refused)
    db.count = 1;
  // Operations sent after it most likely meet it (the two ports are apart, so not surely).
  q = doorbell_execute(q, exists(qpn, q), db).after;
  return db;
}

}  // namespace qpm
