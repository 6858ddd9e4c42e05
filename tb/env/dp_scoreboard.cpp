#include "dp_scoreboard.h"

#include <fmt/format.h>

#include <algorithm>
#include <spdlog/spdlog.h>

#include "script.h"

namespace qpm {

namespace {

std::string event_text(const Event &e) {
  return fmt::format("{} {} type={} syndrome={}", e.is_port ? "port" : "qpn",
                     e.is_port ? fmt::format("{}", e.qpn) : fmt::format("{:#x}", e.qpn),
                     to_string(e.type), unsigned{e.syndrome});
}

}  // namespace

// ---------------------------------------------------------------------------------
// EventChecker

void EventChecker::expect(const Event &e, const std::string &source) {
  if (spdlog::should_log(spdlog::level::debug))  // the text only when logged
    spdlog::debug("{} raises {}", source, event_text(e));
  ++raised_;
  ++counts_[e.type];
  if (coverage_)
    coverage_->sample_event(source, e);
  auto &early = early_[key(e)];
  if (fatal_class(e.type) && early.empty()) pending_fatal_.push_back({key(e), e, 0});
  if (!early.empty()) {
    const Event a = early.front();
    early.pop_front();
    compare(e, a);
    return;
  }
  expected_[key(e)].push_back(e);
}

void EventChecker::arrived(const Event &a) {
  if (spdlog::should_log(spdlog::level::debug))  // the text only when logged
    spdlog::debug("eqe {}", event_text(a));
  ++delivered_;
  arrivals_.push_back(a);
  if (fatal_class(a.type)) {
    for (auto it = pending_fatal_.begin(); it != pending_fatal_.end(); ++it) {
      if (it->key == key(a) && it->event == a) {
        pending_fatal_.erase(it);
        break;
      }
    }
  } else {
    // An informational event of a QP with a fatal event outstanding goes first by the
    // QP's own order; any other overtakes every fatal event outstanding.
    const bool own_fatal =
        std::any_of(pending_fatal_.begin(), pending_fatal_.end(),
                    [&](const PendingFatal &p) { return p.key == key(a); });
    if (!own_fatal) {
      for (PendingFatal &p : pending_fatal_) {
        worst_overtaking_ = std::max(worst_overtaking_, ++p.overtaken);
        if (p.overtaken == class_bound_ + 1) {
          ++class_violations_;
          spdlog::error("ORDER on the EQE port: {} informational events overtook {}",
                        p.overtaken, event_text(p.event));
        }
      }
    }
  }
  auto &exp = expected_[key(a)];
  if (exp.empty()) {
    early_[key(a)].push_back(a);  // its operation's response may still be on its way
    return;
  }
  const Event e = exp.front();
  exp.pop_front();
  compare(e, a);
}

void EventChecker::compare(const Event &expected, const Event &actual) {
  if (expected == actual)
    return;
  ++mismatches_;
  spdlog::error("MISMATCH on the EQE port:\n  eqe.type: expected {} got {}", event_text(expected),
                event_text(actual));
}

size_t EventChecker::outstanding() const {
  size_t n = 0;
  for (const auto &[k, q] : expected_)
    n += q.size();
  return n;
}

size_t EventChecker::unexpected() const {
  size_t n = 0;
  for (const auto &[k, q] : early_)
    n += q.size();
  return n;
}

std::vector<Event> EventChecker::take_arrivals() {
  std::vector<Event> out;
  out.swap(arrivals_);
  return out;
}

std::vector<std::string> EventChecker::problems() const {
  std::vector<std::string> out;
  for (const auto &[k, q] : expected_) {
    for (const Event &e : q)
      out.push_back("event never delivered: " + event_text(e));
  }
  for (const auto &[k, q] : early_) {
    for (const Event &e : q)
      out.push_back("EQE that no operation raised: " + event_text(e));
  }
  if (mismatches_)
    out.push_back(fmt::format("{} EQE mismatches", mismatches_));
  if (class_violations_)
    out.push_back(fmt::format("{} fatal events overtaken by more than {} informational ones",
                              class_violations_, class_bound_));
  return out;
}

// ---------------------------------------------------------------------------------
// DpScoreboard

size_t DpScoreboard::outstanding(uint32_t qpn) const {
  auto it = by_qpn_.find(qpn);
  return it == by_qpn_.end() ? 0 : it->second.size();
}

void DpScoreboard::on_accept(const DpRequest &req) {
  auto &q = by_qpn_[req.qpn];
  if (by_tag_.count(req.tag)) {
    ++mismatch_count_;
    spdlog::error("harness: datapath tag {} accepted twice while in flight", req.tag);
  }
  by_tag_[req.tag] = req.qpn;
  Pending p;
  p.index = accepted_++;
  p.req = req;
  q.push_back(p);
}

void DpScoreboard::on_response(const DpResponse &actual) {
  const auto tag_it = by_tag_.find(actual.tag);
  if (tag_it == by_tag_.end()) {
    ++mismatch_count_;
    spdlog::error(
        "MISMATCH: datapath response with tag {} (qpn {:#x}) but no such operation "
        "in flight\n  dp.tag: unknown",
        actual.tag, actual.qpn);
    return;
  }
  const uint32_t qpn = tag_it->second;
  by_tag_.erase(tag_it);
  auto &q = by_qpn_[qpn];
  size_t pos = 0;
  while (pos < q.size() && (q[pos].is_doorbell || q[pos].req.tag != actual.tag))
    ++pos;
  const Pending p = q[pos];
  q.erase(q.begin() + static_cast<std::ptrdiff_t>(pos));
  if (pos != 0) {
    // Answered ahead of an older operation of its QPN: the model cannot follow an RTL
    // that reorders one QP's operations; judge it as if it were in order.
    ++mismatch_count_;
    spdlog::error(
        "MISMATCH: datapath response #{} (tag {}) overtook {} older operation(s) "
        "of qpn {:#x}\n  dp.order: out of order",
        p.index, actual.tag, pos, qpn);
  }

  if (fence_) fence_->before_op(qpn, actual);
  std::optional<Qpc> before;
  if (coverage_ && model_.qpc_address(qpn)) before = model_.qpc(qpn);
  const DpResponse expected = model_.datapath(p.req);
  if (expected.verdict == Verdict::Drop)
    ++drops_[static_cast<size_t>(expected.drop)];
  for (const Event &e : model_.take_events())
    events_.expect(e, to_string(p.req.op));
  if (coverage_)
    coverage_->sample_dp(p.req, actual, before ? &*before : nullptr);
  ++checked_;
  ++verdict_counts_[actual.verdict];
  last_response_ = actual;
  last_expected_ = expected;
  if (spdlog::should_log(spdlog::level::debug))  // the text only when logged
    spdlog::debug("dp #{} {} -> {}", p.index, format_dp_request(p.req), to_string(actual.verdict));
  const std::string diff = difference(expected, actual);
  if (!diff.empty())
    mismatch(p, expected, actual, diff);
  if (fence_) fence_->after_op(qpn, outstanding(qpn) != 0 || (held_ && held_(qpn)));
  apply_doorbells(qpn);
}

void DpScoreboard::on_front_take(uint32_t tag) {
  const auto tag_it = by_tag_.find(static_cast<uint8_t>(tag));
  if (tag_it != by_tag_.end()) {
    for (Pending &p : by_qpn_[tag_it->second]) {
      if (p.is_doorbell || p.front_taken) continue;
      if (p.req.tag == tag) {
        p.front_taken = true;
        return;
      }
      break;  // an older operation of the QPN not taken yet: out of port order
    }
  }
  ++mismatch_count_;
  const std::string what = fmt::format(
      "the datapath front took the operation with tag {} out of its QPN's order, or one "
      "the port never took", tag);
  spdlog::error("MISMATCH at the datapath front: {}", what);
  if (order_problems_.size() < kKeep) order_problems_.push_back(what);
}

void DpScoreboard::on_doorbell(const Doorbell &db) {
  const uint32_t qpn = db.qpn & kPsnMask;
  Pending marker;
  marker.is_doorbell = true;
  marker.executed = !wait_for_execution_;
  marker.stamp = gate_stamp_ ? gate_stamp_() : 0;
  marker.db = db;
  auto &q = by_qpn_[qpn];
  auto at = std::find_if(q.begin(), q.end(),
                         [&](const Pending &p) { return !p.is_doorbell && !p.front_taken; });
  q.insert(at, marker);
  apply_doorbells(qpn);
}

void DpScoreboard::on_doorbell_executed(uint32_t qpn) {
  if (!wait_for_execution_) return;
  auto it = by_qpn_.find(qpn);
  if (it != by_qpn_.end()) {
    for (Pending &p : it->second) {
      if (p.is_doorbell && !p.executed) {
        p.executed = true;
        p.fills = fills_seen_ ? fills_seen_(qpn) : 0;
        apply_doorbells(qpn);
        return;
      }
    }
  }
  ++mismatch_count_;
  const std::string what = fmt::format("the QP cache answered a doorbell of qpn {:#x} that was not taken", qpn);
  spdlog::error("MISMATCH on the doorbell port: {}", what);
  if (order_problems_.size() < kKeep) order_problems_.push_back(what);
}

void DpScoreboard::apply_doorbells(uint32_t qpn) {
  auto it = by_qpn_.find(qpn);
  if (it == by_qpn_.end())
    return;
  auto &q = it->second;
  while (!q.empty() && q.front().is_doorbell && q.front().executed &&
         !(gate_blocked_ && gate_blocked_(qpn, q.front().stamp)) &&
         !(fills_run_ && fills_run_(qpn) < q.front().fills)) {
    const Doorbell db = q.front().db;
    q.pop_front();
    const bool refused = !model_.doorbell(db);
    if (applied_)
      applied_(db, refused);
  }
  if (q.empty())
    by_qpn_.erase(it);
}

void DpScoreboard::mismatch(const Pending &p, const DpResponse &expected, const DpResponse &actual,
                            const std::string &diff) {
  ++mismatch_count_;
  spdlog::error("MISMATCH at datapath operation #{}: {} (tag {})\n{}", p.index,
                format_dp_request(p.req), p.req.tag, diff);
  if (first_mismatches_.size() < kKeep) {
    first_mismatches_.push_back({p.index, p.req, expected, actual, diff});
  }
}

std::string DpScoreboard::difference(const DpResponse &e, const DpResponse &a) {
  // Compared as values, formatted only when they differ: this runs on every answer.
  std::string out;
  if (e.verdict != a.verdict)
    out += fmt::format("  dp.verdict: expected {} got {}\n", to_string(e.verdict),
                       to_string(a.verdict));
  if (e.drop != a.drop)
    out += fmt::format("  dp.drop: expected {} got {}\n", to_string(e.drop), to_string(a.drop));
  auto num = [&](const char *name, uint64_t ev, uint64_t av) {
    if (ev != av)
      out += fmt::format("  dp.{}: expected {:#x} got {:#x}\n", name, ev, av);
  };
  num("tag", e.tag, a.tag);
  num("qpn", e.qpn, a.qpn);
  num("psn", e.psn, a.psn);
  num("qp_type", e.qp_type, a.qp_type);
  num("dest_qpn", e.dest_qpn, a.dest_qpn);
  num("av_dlid", e.av_dlid, a.av_dlid);
  num("av_sl", e.av_sl, a.av_sl);
  num("av_sgid_index", e.av_sgid_index, a.av_sgid_index);
  num("epoch", e.epoch, a.epoch);
  return out;
}

}  // namespace qpm
