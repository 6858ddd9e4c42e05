#include "doorbell_tracker.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <stdexcept>

#include "script.h"

namespace qpm {

void DoorbellTracker::problem(const std::string &p) {
  spdlog::error("MISMATCH on the doorbell port: {}\n  doorbell.result: {}", p, p);
  if (problems_.size() < 20)
    problems_.push_back(p);
}

void DoorbellTracker::on_push(const Doorbell &db) {
  const uint32_t qpn = db.qpn & kPsnMask;
  if (pending_.count(qpn) && !order_known()) {
    throw std::logic_error(
        fmt::format("harness: a second doorbell for qpn {:#x} before the "
                    "first was resolved",
                    qpn));
  }
  pending_[qpn].push_back(Record{db});
  ++pending_count_;
}

void DoorbellTracker::on_accept(const Doorbell &db, uint64_t cycle) {
  const uint32_t qpn = db.qpn & kPsnMask;
  auto it = pending_.find(qpn);
  Record *first_driven = nullptr;  // the oldest of the QPN the port has not taken yet
  if (it != pending_.end()) {
    for (Record &rec : it->second) {
      if (rec.wait == Wait::Push) {
        first_driven = &rec;
        break;
      }
    }
  }
  if (first_driven == nullptr) {
    problem(fmt::format("{} taken by the doorbell port but never driven", format_doorbell(db)));
    return;
  }
  Record &r = *first_driven;
  r.db = db;  // what crossed the pins
  r.accepted_at = cycle;
  if (forward_) {
    r.wait = Wait::Ordered;
    forward_(db);  // may report back (and resolve r) at once
    return;
  }
  if (read_in_flight_)
    change_during_read_ = true;
  const auto addr = model_.qpc_address(qpn);
  const Qpc &before = model_.qpc(qpn);
  const DoorbellOutcome out = doorbell_execute(before, addr && before.valid, db);
  if (out.refused) {
    model_.doorbell(db);  // counts it; nothing changes, so now is as good as later
    ++expected_refused_;
    ++awaiting_counter_;
    r.wait = Wait::Counter;
  } else if (db.count == 0) {
    model_.doorbell(db);
    resolve(qpn, false);
  } else {
    r.wait = Wait::Probe;
    ++awaiting_probe_;
  }
}

std::vector<uint32_t> DoorbellTracker::probes_wanted() const {
  std::vector<uint32_t> out;
  for (const auto &[qpn, rs] : pending_) {
    if (rs.front().wait == Wait::Probe)
      out.push_back(qpn);
  }
  return out;
}

void DoorbellTracker::on_probe_sent(uint32_t qpn) {
  auto it = pending_.find(qpn);
  if (it != pending_.end() && it->second.front().wait == Wait::Probe) {
    it->second.front().wait = Wait::ProbeInFlight;
  }
}

void DoorbellTracker::on_probe_response(uint32_t qpn, const Response &rsp, uint64_t cycle) {
  auto it = pending_.find(qpn);
  if (it == pending_.end() || it->second.front().wait != Wait::ProbeInFlight)
    return;
  Record &r = it->second.front();
  const Qpc &now = model_.qpc(qpn);
  // Posted in ERR, the new WQEs are flushed at once (SPEC §7): the probe, which waits
  // for the flush, shows them completed.
  const Qpc posted = flush_execute(qpn, doorbell_execute(now, true, r.db).after).after;
  if (rsp.status == Status::Ok && rsp.qpc == posted) {
    model_.doorbell(r.db);
    resolve(qpn, false);
    return;
  }
  r.wait = Wait::Probe;  // not visible yet (or the probe failed): probe again
  (void)cycle;
}

void DoorbellTracker::on_applied(const Doorbell &db, bool refused) {
  const uint32_t qpn = db.qpn & kPsnMask;
  auto it = pending_.find(qpn);
  if (it == pending_.end() || it->second.front().wait != Wait::Ordered) {
    problem(fmt::format("{} applied but not waiting for it", format_doorbell(db)));
    return;
  }
  const Doorbell &oldest = it->second.front().db;  // one QPN's apply in port order
  if (oldest.rq != db.rq || oldest.count != db.count) {
    problem(fmt::format("{} applied before {}, which the port took first",
                        format_doorbell(db), format_doorbell(oldest)));
  }
  if (refused)
    ++expected_refused_;
  resolve(qpn, refused);
}

void DoorbellTracker::on_counter_read_issued() {
  read_in_flight_ = true;
  change_during_read_ = false;
  snapshot_ = expected_refused_;
}

void DoorbellTracker::on_counter_value(uint32_t value, uint64_t cycle) {
  read_in_flight_ = false;
  // A doorbell taken or judged meanwhile: cannot tell which refusals it counted.
  if (change_during_read_ || awaiting_probe_ > 0)
    return;
  if (value < snapshot_)
    return;  // some not processed yet
  if (value > snapshot_) {
    problem(fmt::format("the RTL counts {} refused doorbells, {} predicted", value, snapshot_));
  }
  std::vector<uint32_t> done;
  for (const auto &[qpn, rs] : pending_) {
    if (rs.front().wait == Wait::Counter)
      done.push_back(qpn);
  }
  for (uint32_t qpn : done)
    resolve(qpn, true);
  (void)cycle;
}

void DoorbellTracker::resolve(uint32_t qpn, bool refused) {
  auto it = pending_.find(qpn);
  if (it == pending_.end())
    return;
  const Record &r = it->second.front();
  if (r.wait == Wait::Counter)
    --awaiting_counter_;
  if (r.wait == Wait::Probe || r.wait == Wait::ProbeInFlight)
    --awaiting_probe_;
  if (coverage_)
    coverage_->sample_doorbell(r.db.rq, refused);
  ++(refused ? refused_ : posted_);
  if (spdlog::should_log(spdlog::level::debug))  // the text only when logged
    spdlog::debug("{} -> {}", format_doorbell(r.db), refused ? "REFUSED" : "POSTED");
  it->second.pop_front();
  --pending_count_;
  if (it->second.empty())
    pending_.erase(it);
}

void DoorbellTracker::check_timeouts(uint64_t cycle) {
  std::vector<uint32_t> late;
  for (const auto &[qpn, rs] : pending_) {  // the oldest of each QPN resolves first
    if (rs.front().wait != Wait::Push && cycle - rs.front().accepted_at > timeout_cycles_)
      late.push_back(qpn);
  }
  for (uint32_t qpn : late) {
    const Record &r = pending_.at(qpn).front();
    const char *why = r.wait == Wait::Counter   ? "the refused-doorbell counter never counted it"
                      : r.wait == Wait::Ordered ? "it never left the lock park, or the operations "
                                                            "taken before it never finished"
                                                : "a QUERY_QP never showed it posted";
    problem(fmt::format("{}: {} after {} cycles", format_doorbell(r.db), why, timeout_cycles_));
    resolve(qpn, r.wait == Wait::Counter);
  }
}

}  // namespace qpm
