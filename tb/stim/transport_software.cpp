// What the QPs' software does (tb/stim/transport.h): brings the pairs up and, once
// broken, resets them and brings them up again through commands; drains an RC QP's SQ
// (RTS -> SQD -> RTS); posts WQEs by doorbells and starts them. The engines' side (the
// fabric, the packets, the answers) is in transport.cpp.
#include <algorithm>

#include <spdlog/spdlog.h>

#include "builders.h"
#include "transport.h"

namespace qpm {

// ---------------------------------------------------------------------------------
// Bring-up and recovery (software, through commands)

void TransportModel::choose_attributes(size_t a) {
  const uint32_t port = pick(1, 2);
  for (size_t i : {a, a + 1}) {
    Qp &q = qps_[i];
    q.port = port;
    q.short_rq = chance(opt_.short_rq);
    q.access = access::kLocalWrite | access::kRemoteWrite | access::kRemoteRead | access::kRemoteAtomic;
    if (is_rc(i) && chance(opt_.access_fault)) {
      q.access &= ~(access::kRemoteWrite << pick(0, 2));  // a peer that is not allowed everything
    }
    q.qkey = pick(0, 0x7fffffff);
    q.max_rd = pick(1, 4);
    // Mostly the minimum so both limits are reached, 16 at the most: max_rd_atomic of
    // the requester never exceeds what its peer accepts.
    q.retry_cnt = chance(0.15) ? pick(0, 2) : 7;
    q.rnr_retry = chance(0.5) ? 7 : pick(0, 6);
    // Some PSNs start just below the 2^24 wrap.
    q.sq_psn = chance(0.2) ? kPsnMask - pick(0, 300) : pick(0, kPsnMask);
  }
  for (size_t i : {a, a + 1}) {
    qps_[i].max_dest_rd = chance(0.8) ? qps_[i ^ 1].max_rd : pick(qps_[i ^ 1].max_rd, 16);
  }
}

std::vector<Command> TransportModel::bring_up(size_t i, const QpStatus &st) const {
  const Qp &q = qps_[i];
  const Qp &p = qps_[q.peer];
  std::vector<Command> out;
  if (!st.exists) {
    builders::CreateAttrs ca;
    ca.log_sq_size = q.log_sq;
    ca.log_rq_size = q.log_rq;
    out.push_back(builders::create_cmd(q.qpn, q.type, ca));
  }
  Command attrs = builders::valid_attributes();
  attrs.qp_access_flags = q.access;
  attrs.port_num = q.port;
  attrs.pkey_index = 0;
  attrs.qkey = q.qkey;  // what its senders put in their packets (the peer's sends too)
  attrs.dest_qp_num = p.qpn;
  attrs.sq_psn = q.sq_psn;
  attrs.rq_psn = p.sq_psn;
  attrs.max_rd_atomic = q.max_rd;
  attrs.max_dest_rd_atomic = q.max_dest_rd;
  attrs.retry_cnt = q.retry_cnt;
  attrs.rnr_retry = q.rnr_retry;
  attrs.min_rnr_timer = 1;
  attrs.en_sqd_async_notify = 0;
  for (const Command &c : builders::walk_cmds(q.qpn, q.type, QpState::Rts, attrs)) out.push_back(c);
  return out;
}

void TransportModel::start_running(size_t i, const QpStatus &st) {
  Qp &q = qps_[i];
  const Qp keep = q;
  q = Qp{};
  q.qpn = keep.qpn;
  q.peer = keep.peer;
  q.type = keep.type;
  q.port = keep.port;
  q.short_rq = keep.short_rq;
  q.access = keep.access;
  q.qkey = keep.qkey;
  q.max_rd = keep.max_rd;
  q.max_dest_rd = keep.max_dest_rd;
  q.retry_cnt = keep.retry_cnt;
  q.rnr_retry = keep.rnr_retry;
  q.sq_psn = keep.sq_psn;
  q.log_sq = keep.log_sq;
  q.log_rq = keep.log_rq;
  q.incarnation = keep.incarnation + 1;
  q.epoch = st.epoch;
  q.phase = Phase::Running;
  q.last_progress = now_;
}

void TransportModel::maintain(const QpView &view, const QpnFilter &quiet) {
  // This cycle's pairs (kPollStride), the same ones tick() visited.
  for (size_t a = 2 * (now_ % kPollStride); a < qps_.size(); a += 2 * kPollStride) {
    Qp &qa = qps_[a], &qb = qps_[a + 1];
    for (size_t i : {a, a + 1}) drain_step(i, view, quiet);
    if (qa.phase == Phase::Running && qb.phase == Phase::Running) continue;
    // One end broke: the other runs on a little (it may still be owed a fatal NAK).
    for (size_t i : {a, a + 1}) {
      const Qp &o = qps_[i ^ 1];
      if (running(i) && o.phase != Phase::Running && now_ - o.broken_at > kPeerGrace) {
        spdlog::debug("transport: qpn {} broke: its peer did", qps_[i].qpn);
        break_qp(i);
      }
    }
    if (qa.phase == Phase::Running || qb.phase == Phase::Running) continue;
    auto settled = [&](const Qp &q) {
      return q.outbox.empty() && q.sent.empty() && q.dma_open == 0 && !q.db_in_flight &&
             quiet(q.qpn);
    };
    if (!settled(qa) || !settled(qb)) continue;
    std::deque<Command> &cmds = pair_commands_[a / 2];
    if (qa.phase == Phase::Draining) {
      if (stopping_) continue;
      if (qa.incarnation != 0) ++stats_.recoveries;
      choose_attributes(a);
      const QpStatus sa = view(qa.qpn), sb = view(qb.qpn);
      // Both to RESET first (no packet of one incarnation meets the next), then up.
      // Half the time through ERR first, as a driver's error path does (a QP in SQE
      // or ERR takes that row too).
      for (const auto &[q, st] : {std::pair<Qp *, QpStatus>{&qa, sa}, {&qb, sb}}) {
        if (!st.exists) continue;
        if (chance(0.5)) {
          cmds.push_back(
              builders::modify_cmd(q->qpn, attr::kState, static_cast<uint32_t>(QpState::Err)));
        }
        cmds.push_back(
            builders::modify_cmd(q->qpn, attr::kState, static_cast<uint32_t>(QpState::Reset)));
      }
      for (const Command &c : bring_up(a, sa)) cmds.push_back(c);
      for (const Command &c : bring_up(a + 1, sb)) cmds.push_back(c);
      qa.phase = qb.phase = Phase::Recovering;
    } else if (cmds.empty()) {
      const QpStatus sa = view(qa.qpn), sb = view(qb.qpn);
      if (sa.rts && sb.rts) {
        start_running(a, sa);
        start_running(a + 1, sb);
      } else {
        qa.phase = qb.phase = Phase::Draining;  // a command failed: again from RESET
      }
    }
  }
}

void TransportModel::drain_step(size_t i, const QpView &view, const QpnFilter &quiet) {
  Qp &q = qps_[i];
  if (!running(i) || !is_rc(i)) {
    q.drain = Drain::None;
    return;
  }
  std::deque<Command> &cmds = pair_commands_[i / 2];
  auto modify = [&](QpState to) {
    Command c = builders::modify_cmd(q.qpn, attr::kState, static_cast<uint32_t>(to));
    if (to == QpState::Sqd) {
      c.attr_mask |= attr::kEnSqdAsyncNotify;
      c.en_sqd_async_notify = 1;  // SQ_DRAINED when the last WQE is acknowledged
    }
    cmds.push_back(c);
  };
  switch (q.drain) {
    case Drain::None:
      // With WQEs outstanding, so the drain ends with an RX_ACK (SQ_DRAINED).
      // No WQE being started: SQD would refuse it.
      if (!stopping_ && q.unacked.size() >= 2 && q.tx_asks == 0 && cmds.empty() &&
          chance(opt_.sqd_rate * kPollStride)) {  // visited every kPollStride cycles
        q.drain = Drain::ToSqdWait;
      }
      break;
    case Drain::ToSqdWait:
    case Drain::ToRtsWait:
      // Held: the command goes once nothing of the QPN is in flight.
      if (q.sent.empty() && quiet(q.qpn) && cmds.empty()) {
        modify(q.drain == Drain::ToSqdWait ? QpState::Sqd : QpState::Rts);
        q.drain = q.drain == Drain::ToSqdWait ? Drain::ToSqdSent : Drain::ToRtsSent;
      }
      break;
    case Drain::ToSqdSent:
    case Drain::ToRtsSent:
      if (cmds.empty() && quiet(q.qpn)) {
        const QpStatus st = view(q.qpn);
        const bool to_sqd = q.drain == Drain::ToSqdSent;
        if (to_sqd ? st.sqd : st.rts) {
          q.drain = to_sqd ? Drain::InSqd : Drain::None;
          if (!to_sqd) ++stats_.sq_drains;
        } else {
          q.drain = Drain::None;
          break_qp(i);  // the modify failed: software starts the pair again
        }
      }
      break;
    case Drain::InSqd:
      // Drained (every WQE acknowledged and the RX_ACKs answered): back to RTS.
      if (q.unacked.empty() && q.acks_in_flight == 0 && q.tx_asks == 0) q.drain = Drain::ToRtsWait;
      break;
  }
}

std::optional<Command> TransportModel::side_command(uint32_t qpn, bool pin, bool pinned) {
  const size_t i = index(qpn);
  const Qp &q = qps_[i];
  if (stopping_ || !running(i) || q.drain != Drain::None || !pair_commands_[i / 2].empty()) {
    return std::nullopt;
  }
  if (pin) return pinned ? builders::unpin_cmd(qpn) : builders::pin_cmd(qpn);
  if (chance(0.5)) return builders::query_cmd(qpn);
  Command attrs = builders::valid_attributes();
  uint32_t mask = attr::kState;
  if (is_ud(i)) {
    attrs.qkey = q.qkey;
    mask |= attr::kQkey;
  } else {
    attrs.qp_access_flags = q.access;
    mask |= attr::kAccessFlags;
  }
  if (is_rc(i) && chance(0.5)) {
    attrs.min_rnr_timer = pick(0, 31);
    mask |= attr::kMinRnrTimer;
  }
  return builders::modify_cmd(qpn, mask, static_cast<uint32_t>(QpState::Rts), attrs);
}

std::optional<Command> TransportModel::next_command(const QpnFilter &ready) {
  for (size_t n = 0; n < pair_commands_.size(); ++n) {
    const size_t p = (rr_cmd_ + n) % pair_commands_.size();
    std::deque<Command> &cmds = pair_commands_[p];
    if (cmds.empty() || !ready(cmds.front().qpn)) continue;
    const Command c = cmds.front();
    cmds.pop_front();
    rr_cmd_ = p + 1;
    return c;
  }
  return std::nullopt;
}

void TransportModel::break_qp(size_t i) {
  Qp &q = qps_[i];
  if (q.phase != Phase::Running) return;
  q.phase = Phase::Draining;
  q.broken_at = now_;
  // Nothing more goes out but the DMAs already queued (each DMA_BEGIN with its DMA_END).
  std::deque<Op> keep;
  for (const Op &op : q.outbox) {
    if (op.req.op == DpOp::DmaBegin || op.req.op == DpOp::DmaEnd) keep.push_back(op);
  }
  q.outbox.swap(keep);
  q.doorbells.clear();
  q.unacked.clear();
  q.responses.clear();
}

void TransportModel::stop() {
  stopping_ = true;
  for (std::deque<Command> &cmds : pair_commands_) cmds.clear();
}

void TransportModel::software_broke(uint32_t qpn) {
  const size_t i = index(qpn);
  break_qp(i);
  break_qp(i ^ 1);
}

// Software: receives posted ahead of the sends that use them (late on a short RQ), sends
// posted so the queue never runs dry; the requester starts what is posted.
void TransportModel::software(size_t i) {
  Qp &q = qps_[i];
  if (stopping_) return;
  if (q.doorbells.empty() && !q.db_in_flight) {
    const uint64_t rq_size = 1ull << q.log_rq, sq_size = 1ull << q.log_sq;
    const uint64_t rq_held = q.rq_posted - q.rq_used, sq_held = q.sq_posted - q.sq_done;
    const bool rq_due = q.short_rq ? now_ >= q.next_rq_post && rq_held == 0 : rq_held < rq_size / 2;
    if (rq_due) {
      const uint64_t n = q.short_rq ? pick(1, 2) : rq_size - rq_held;
      q.doorbells.push_back(builders::rq_db(q.qpn, static_cast<uint16_t>(n)));
      q.rq_posted += n;
      q.next_rq_post = now_ + pick(200, 1500);
    } else if (q.sq_posted - q.sq_started < 4 && sq_held < sq_size) {
      const uint64_t n = std::min<uint64_t>(pick(1, 8), sq_size - sq_held);
      q.doorbells.push_back(builders::sq_db(q.qpn, static_cast<uint16_t>(n)));
      q.sq_posted += n;
      stats_.wqes_posted += n;
    }
  }
  // Start the next posted WQE, when the engines of both ends keep up: an engine clocks
  // itself by what it has to send, so its own queue never outgrows the port.
  // (The plain fields first: this runs for a quarter of the QPs in every cycle.)
  auto window = [&] {
    return (!is_rc(i) || q.unacked.size() + q.tx_asks < kWindow) &&
           q.outbox.size() + qps_[q.peer].outbox.size() < kBacklog;
  };
  if (q.sq_visible > q.sq_started + q.tx_asks && now_ >= q.next_tx && !q.retry_asked &&
      q.drain == Drain::None && window()) {
    if (!q.head_cls) {
      if (!is_rc(i)) {
        q.head_cls = chance(opt_.local_err) ? MsgClass::Read
                     : is_ud(i) || chance(0.5) ? MsgClass::Send
                                               : MsgClass::Write;
      } else if (chance(opt_.read_share)) {
        q.head_cls = chance(0.6) ? MsgClass::Read : MsgClass::Atomic;
      } else {
        q.head_cls = chance(0.5) ? MsgClass::Send : MsgClass::Write;
      }
    }
    const uint32_t npkts = is_ud(i) || reads_memory(*q.head_cls) ? 1 : pick(1, 4);
    queue_op(i, builders::tx(q.qpn, *q.head_cls, npkts));
    ++q.tx_asks;
  }
  // The transport timer: no acknowledgement for too long.
  if (is_rc(i) && !q.unacked.empty() && !q.retry_asked && q.acks_in_flight == 0 &&
      now_ - q.last_progress > opt_.timeout_cycles) {
    q.retry_asked = true;
    q.last_progress = now_;
    queue_op(i, plain(i, DpOp::Timeout));
  }
}

}  // namespace qpm
