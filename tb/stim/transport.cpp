// The engines of the loopback transport model (tb/stim/transport.h): the fabric, the
// packets, the timers and what each answer makes an engine do next. What the QPs' software
// does (bring-up, recovery, SQ drains, posting) is in transport_software.cpp.
#include "transport.h"

#include <algorithm>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "builders.h"

namespace qpm {

namespace {

bool msn_le(uint32_t a, uint32_t b) { return static_cast<int32_t>(a - b) <= 0; }
uint32_t psn_add(uint32_t psn, uint32_t n) { return (psn + n) & kPsnMask; }

}  // namespace

TransportModel::TransportModel(std::mt19937_64 &rng, const std::vector<uint32_t> &qpns,
                               const TransportOptions &opt, std::function<bool(uint32_t)> pending)
    : rng_(rng), opt_(opt), db_pending_(std::move(pending)), qpns_(qpns) {
  if (qpns_.size() % 2 != 0 || qpns_.empty()) {
    throw std::invalid_argument("transport: an even, non-zero number of QPNs");
  }
  qps_.resize(qpns_.size());
  pair_commands_.resize(qpns_.size() / 2);
  for (size_t i = 0; i < qps_.size(); ++i) {
    qps_[i].qpn = qpns_[i];
    qps_[i].peer = i ^ 1;
    // Queue sizes are the QP's for life: a reset keeps them (only CREATE_QP sets them).
    qps_[i].log_sq = pick(4, 7);
    qps_[i].log_rq = pick(4, 6);
    // Four RC pairs to one UC and one UD pair.
    const size_t pair = i / 2;
    qps_[i].type = static_cast<uint32_t>(pair % 6 == 4   ? QpType::UC
                                         : pair % 6 == 5 ? QpType::UD
                                                         : QpType::RC);
  }
}

uint32_t TransportModel::pick(uint32_t lo, uint32_t hi) {
  return std::uniform_int_distribution<uint32_t>(lo, hi)(rng_);
}
bool TransportModel::chance(double p) { return p > 0.0 && std::bernoulli_distribution(p)(rng_); }

size_t TransportModel::index(uint32_t qpn) const {
  const auto it = std::find(qpns_.begin(), qpns_.end(), qpn);
  if (it == qpns_.end()) throw std::logic_error("transport: a QPN it does not own");
  return static_cast<size_t>(it - qpns_.begin());
}

bool TransportModel::owns(uint32_t qpn) const {
  return std::find(qpns_.begin(), qpns_.end(), qpn) != qpns_.end();
}

uint32_t TransportModel::port_of(uint32_t qpn) const { return qps_[index(qpn)].port; }

bool TransportModel::running_away_from(uint32_t qpn, uint32_t port) const {
  const size_t i = index(qpn);
  return running(i) && qps_[i].port != port;
}

bool TransportModel::idle() const {
  if (!timed_.empty()) return false;
  for (const Qp &q : qps_) {
    if (!q.outbox.empty() || !q.sent.empty() || !q.doorbells.empty() || q.db_in_flight) return false;
  }
  return true;
}

size_t TransportModel::running_pairs() const {
  size_t n = 0;
  for (size_t a = 0; a < qps_.size(); a += 2) n += running(a) && running(a + 1);
  return n;
}

std::string TransportModel::describe() const {
  std::string out = "transport: " + std::to_string(timed_.size()) + " timed";
  for (const Qp &q : qps_) {
    if (q.outbox.empty() && q.sent.empty() && q.doorbells.empty() && !q.db_in_flight) continue;
    out += " | qpn " + std::to_string(q.qpn) + " phase " + std::to_string(static_cast<int>(q.phase)) +
           " outbox " + std::to_string(q.outbox.size()) + " sent " + std::to_string(q.sent.size()) +
           " doorbells " + std::to_string(q.doorbells.size()) + (q.db_in_flight ? " db" : "");
  }
  return out;
}

// ---------------------------------------------------------------------------------
// Operations, packets and time

DpRequest TransportModel::plain(size_t i, DpOp op) const { return builders::plain(op, qps_[i].qpn); }

void TransportModel::queue_op(size_t i, const DpRequest &r, const Packet &pkt) {
  Op op{r, pkt};
  // A token carries the incarnation it belongs to; a DMA_END the one its DMA began in.
  if (dp_is_token(r.op) && r.op != DpOp::DmaEnd) op.req.epoch = qps_[i].epoch;
  qps_[i].outbox.push_back(op);
}

void TransportModel::queue_op(size_t i, const DpRequest &r) { queue_op(i, r, Packet{}); }

void TransportModel::schedule(uint64_t at, Timed::Kind kind, size_t qp, const Packet &p,
                              uint8_t epoch) {
  Timed t;
  t.at = at;
  t.seq = seq_++;
  t.kind = kind;
  t.qp = qp;
  t.pkt = p;
  t.epoch = epoch;
  timed_.push(t);
}

void TransportModel::send_packet(size_t from, Packet p) {
  Qp &q = qps_[from];
  p.dst = q.peer;
  p.incarnation = q.incarnation;
  ++stats_.packets;
  if (chance(opt_.loss)) {
    ++stats_.lost;
    return;
  }
  // The path is in order: a packet never arrives before the one sent ahead of it.
  uint64_t at = std::max<uint64_t>(now_ + pick(opt_.fabric_min, opt_.fabric_max), q.path_free);
  if (chance(opt_.reorder)) {
    ++stats_.reordered;
    schedule(at + pick(30, 120), Timed::Deliver, from, p);  // overtaken by what follows
  } else {
    q.path_free = at;
    schedule(at, Timed::Deliver, from, p);
  }
  if (chance(opt_.dup)) {
    ++stats_.duplicated;
    schedule(at + pick(1, 60), Timed::Deliver, from, p);
  }
}

void TransportModel::dma_begin(size_t i, uint32_t length) {
  Qp &q = qps_[i];
  DpRequest r = builders::dma(DpOp::DmaBegin, q.qpn, q.epoch);
  queue_op(i, r);
  ++q.dma_open;
  ++stats_.dmas;
  schedule(now_ + length, Timed::DmaEnd, i, Packet{}, q.epoch);
}

void TransportModel::fire(const Timed &t) {
  Qp &q = qps_[t.qp];
  switch (t.kind) {
    case Timed::DmaEnd:
      // Every DMA that began ends, whatever became of its QP since (a stale epoch).
      queue_op(t.qp, builders::dma(DpOp::DmaEnd, q.qpn, t.epoch));
      break;
    case Timed::Deliver:
      deliver(t.pkt);
      break;
    case Timed::Resend:
      if (running(t.qp) && t.pkt.incarnation == q.incarnation) resend(t.qp);
      break;
    case Timed::RespDone:
      if (running(t.qp) && t.pkt.incarnation == q.incarnation) {
        Packet p;
        p.msn = t.pkt.msn;
        queue_op(t.qp, plain(t.qp, DpOp::RxRespDone), p);
      }
      break;
  }
}

void TransportModel::deliver(const Packet &p) {
  const size_t i = p.dst;
  Qp &q = qps_[i];
  if (!running(i) || p.incarnation != q.incarnation) return;  // an old incarnation's
  switch (p.kind) {
    case PktKind::Req:
      queue_op(i, builders::rx(q.qpn, p.cls, p.pos, p.psn, p.qkey), p);
      break;
    case PktKind::Ack:
      ack_arrived(i, p.msn);
      break;
    case PktKind::SeqNak:
    case PktKind::RnrNak:
      // A sequence NAK costs a retry like a timeout (as rxe counts it); the RTL's answer
      // says whether one is left.
      if (!q.unacked.empty() && !q.retry_asked && q.acks_in_flight == 0) {
        q.retry_asked = true;
        queue_op(i, plain(i, p.kind == PktKind::SeqNak ? DpOp::Timeout : DpOp::RnrNak));
      }
      break;
    case PktKind::FatalNak:
      if (!q.unacked.empty() && !q.retry_asked) {
        q.retry_asked = true;
        queue_op(i, builders::nak(q.qpn, p.code));
      }
      break;
  }
}

void TransportModel::send_wqe(size_t i, const Wqe &w) {
  const Qp &peer = qps_[qps_[i].peer];
  for (uint32_t k = 0; k < w.npkts; ++k) {
    Packet p;
    p.psn = psn_add(w.psn, k);
    p.cls = w.cls;
    p.pos = w.npkts == 1 ? PktPos::Only
            : k == 0     ? PktPos::First
            : k + 1 == w.npkts ? PktPos::Last
                               : PktPos::Middle;
    p.msn = w.msn;
    p.qkey = is_ud(i) && chance(opt_.bad_qkey) ? peer.qkey ^ 1 : peer.qkey;
    send_packet(i, p);
  }
}

// Go back N: every WQE not acknowledged is sent again from its first packet.
void TransportModel::resend(size_t i) {
  Qp &q = qps_[i];
  q.last_progress = now_;
  for (const Wqe &w : q.unacked) {
    ++stats_.retransmits;
    send_wqe(i, w);
  }
}

void TransportModel::ack_arrived(size_t i, uint32_t msn) {
  Qp &q = qps_[i];
  uint32_t wqes = 0, reads = 0;
  while (!q.unacked.empty() && msn_le(q.unacked.front().msn, msn)) {
    if (reads_memory(q.unacked.front().cls)) ++reads;
    q.unacked.pop_front();
    ++wqes;
  }
  if (wqes == 0) return;  // a duplicate acknowledgement
  // Read responses carry data: written to host memory before the WQE completes.
  if (reads != 0) dma_begin(i, kDmaCycles);
  DpRequest r = builders::ack(q.qpn, static_cast<uint16_t>(wqes), static_cast<uint8_t>(reads));
  queue_op(i, r);
  ++q.acks_in_flight;
  stats_.reads_acked += reads;
  q.rd_out -= reads;
  q.last_progress = now_;
  ++stats_.acks;
}

void TransportModel::emit_responses(size_t i) {
  Qp &q = qps_[i];
  while (!q.responses.empty() && q.responses.front().ready) {
    Packet p;
    p.msn = q.responses.front().msn;
    q.responses.pop_front();
    if (chance(opt_.peer_nak)) {
      p.kind = PktKind::FatalNak;
      p.code = static_cast<NakCode>(pick(0, 2));
    } else {
      p.kind = PktKind::Ack;
    }
    send_packet(i, p);
  }
}

void TransportModel::tick(uint64_t now) {
  now_ = now;
  while (!timed_.empty() && timed_.top().at <= now) {
    const Timed t = timed_.top();
    timed_.pop();
    fire(t);
  }
  // This cycle's pairs (kPollStride).
  for (size_t a = 2 * (now % kPollStride); a < qps_.size(); a += 2 * kPollStride) {
    for (size_t i : {a, a + 1}) {
      Qp &q = qps_[i];
      if (q.db_in_flight && !db_pending_(q.qpn)) {
        if (!q.db_in_flight->rq) q.sq_visible += q.db_in_flight->count;
        q.db_in_flight.reset();
      }
      if (running(i)) software(i);
    }
  }
}

std::optional<DpRequest> TransportModel::next_op(const QpnFilter &usable) {
  for (size_t n = 0; n < qps_.size(); ++n) {
    const size_t i = (rr_op_ + n) % qps_.size();
    Qp &q = qps_[i];
    const bool held = q.drain == Drain::ToSqdWait || q.drain == Drain::ToSqdSent ||
                      q.drain == Drain::ToRtsWait || q.drain == Drain::ToRtsSent;
    if (q.outbox.empty() || held || !usable(q.qpn)) continue;
    Op op = q.outbox.front();
    q.outbox.pop_front();
    q.sent.push_back(op);
    // Half the time the same QP again: a burst of one QP's packets, as an engine sends.
    rr_op_ = chance(0.5) ? i : i + 1;
    return op.req;
  }
  return std::nullopt;
}

std::optional<Doorbell> TransportModel::next_doorbell(const QpnFilter &usable) {
  for (size_t n = 0; n < qps_.size(); ++n) {
    const size_t i = (rr_db_ + n) % qps_.size();
    Qp &q = qps_[i];
    if (q.doorbells.empty() || q.db_in_flight || !usable(q.qpn)) continue;
    q.db_in_flight = q.doorbells.front();
    q.doorbells.pop_front();
    rr_db_ = i + 1;
    return q.db_in_flight;
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------
// Answers

void TransportModel::on_answer(const DpRequest &req, const DpResponse &rsp, uint64_t now) {
  now_ = now;
  const size_t i = index(req.qpn);
  Qp &q = qps_[i];
  if (q.sent.empty() || q.sent.front().req.op != req.op) {
    throw std::logic_error("transport: an answer to an operation it did not send");
  }
  const Op op = q.sent.front();
  q.sent.pop_front();
  if (req.op == DpOp::DmaEnd) --q.dma_open;
  if (req.op == DpOp::RxAck) --q.acks_in_flight;
  if (req.op == DpOp::TxWqe) --q.tx_asks;
  if (!running(i)) return;
  // An answer from another incarnation than the one software brought up, or from a QP
  // that is gone or fenced: software's QP broke under it.
  const bool gone = rsp.verdict == Verdict::Drop &&
                    (rsp.drop == DropReason::NoQp || rsp.drop == DropReason::State ||
                     rsp.drop == DropReason::Quiesce || rsp.drop == DropReason::MemErr ||
                     rsp.drop == DropReason::Stale || rsp.drop == DropReason::Count ||
                     rsp.drop == DropReason::Type || rsp.drop == DropReason::Opcode ||
                     rsp.drop == DropReason::Access);
  if (gone || rsp.epoch != q.epoch) {
    spdlog::debug("transport: qpn {} broke: {} answered {} {} (epoch {}, expected {})", q.qpn,
                  to_string(req.op), to_string(rsp.verdict), to_string(rsp.drop), rsp.epoch, q.epoch);
    break_qp(i);
    return;
  }
  switch (req.op) {
    case DpOp::TxWqe:
    case DpOp::RxAck:
    case DpOp::Timeout:
    case DpOp::RnrNak:
    case DpOp::RxNak:
      answer_requester(i, op, rsp);
      break;
    default:
      answer_responder(i, op, rsp);
      break;
  }
}

void TransportModel::answer_requester(size_t i, const Op &op, const DpResponse &rsp) {
  Qp &q = qps_[i];
  const DpRequest &req = op.req;
  switch (req.op) {
    case DpOp::TxWqe:
      if (rsp.verdict == Verdict::Issue) {
        ++stats_.wqes_issued;
        if (is_rc(i) && req.cls == MsgClass::Read) ++stats_.reads_issued;
        if (is_rc(i) && req.cls == MsgClass::Atomic) ++stats_.atomics_issued;
        q.head_cls.reset();
        ++q.sq_started;
        const Wqe w{q.next_msn++, rsp.psn, req.npkts, req.cls};
        if (is_rc(i)) {
          if (q.unacked.empty()) q.last_progress = now_;
          q.unacked.push_back(w);
          if (reads_memory(w.cls)) ++q.rd_out;
        } else {
          ++q.sq_done;  // UC and UD complete at issue
        }
        // The payload is read from host memory while the packets go out.
        if (!reads_memory(w.cls)) dma_begin(i, kDmaCycles * w.npkts);
        send_wqe(i, w);
      } else if (rsp.verdict == Verdict::Stall || rsp.verdict == Verdict::Empty) {
        q.next_tx = now_ + (rsp.verdict == Verdict::Stall ? 40 : 16);  // try again later
      } else {
        spdlog::debug("transport: qpn {} broke: TX_WQE {}", q.qpn, to_string(rsp.verdict));
        break_qp(i);  // LOCAL_ERR: the QP went to SQE
      }
      break;
    case DpOp::Timeout:
    case DpOp::RnrNak:
    case DpOp::RxNak:
      q.retry_asked = false;
      if (rsp.verdict == Verdict::Retry) {
        if (req.op == DpOp::RnrNak) {
          Packet p;
          p.incarnation = q.incarnation;
          schedule(now_ + kRnrDelay, Timed::Resend, i, p);
          q.last_progress = now_ + kRnrDelay;
        } else {
          resend(i);
        }
      } else {
        spdlog::debug("transport: qpn {} broke: {} {}", q.qpn, to_string(req.op), to_string(rsp.verdict));
        break_qp(i);  // FATAL (or a DROP: nothing outstanding any more)
      }
      break;
    default:  // RX_ACK: ACCEPT. Software reuses the WQEs once the RTL has taken it.
      q.sq_done += req.wqes;
      break;
  }
}

void TransportModel::answer_responder(size_t i, const Op &op, const DpResponse &rsp) {
  Qp &q = qps_[i];
  const Packet &p = op.pkt;
  switch (op.req.op) {
    case DpOp::RxReq: {
      const bool last = p.pos == PktPos::Last || p.pos == PktPos::Only;
      switch (rsp.verdict) {
        case Verdict::Accept:
          q.nak_sent = false;
          if (p.cls == MsgClass::Send && last) ++q.rq_used;
          if (!reads_memory(p.cls)) dma_begin(i, kDmaCycles);  // the payload to host memory
          if (!is_rc(i)) break;
          if (reads_memory(p.cls)) {
            // The response's data is read from host memory, then the response is done.
            dma_begin(i, kDmaCycles);
            q.responses.push_back(Resp{p.msn, false});
            Packet done;
            done.msn = p.msn;
            done.incarnation = q.incarnation;
            schedule(now_ + kDmaCycles + 1, Timed::RespDone, i, done);
          } else if (last) {
            q.responses.push_back(Resp{p.msn, true});
            emit_responses(i);
          }
          break;
        case Verdict::Duplicate:
          // A retransmission of a message already done: acknowledge it again.
          if (last && q.responses.empty()) {
            Packet a;
            a.kind = PktKind::Ack;
            a.msn = p.msn;
            send_packet(i, a);
          }
          break;
        case Verdict::NakSeq:
        case Verdict::Rnr:
          if (!q.nak_sent) {
            q.nak_sent = true;
            Packet n;
            n.kind = rsp.verdict == Verdict::Rnr ? PktKind::RnrNak : PktKind::SeqNak;
            send_packet(i, n);
          }
          break;
        case Verdict::NakAccess:
        case Verdict::NakInvalid: {
          Packet n;
          n.kind = PktKind::FatalNak;
          n.code = rsp.verdict == Verdict::NakAccess ? NakCode::Access : NakCode::Invalid;
          send_packet(i, n);
          break_qp(i);  // this end is in ERR now
          break;
        }
        default:  // DROP: a UC PSN or sequence error, a wrong Q_Key, no receive WQE
          break;
      }
      break;
    }
    case DpOp::RxRespDone:
      for (Resp &r : q.responses) {
        if (r.msn == p.msn) r.ready = true;
      }
      emit_responses(i);
      break;
    default:  // DMA_BEGIN, DMA_END: ACCEPT
      break;
  }
}

}  // namespace qpm
