// Doorbells against the golden model. A doorbell has no answer (SPEC §6), so the
// harness learns what the RTL did with it from later observations, and keeps its QPN
// free of every other operation and command until then (docs/verification.md,
// "Datapath and doorbells"):
//
// - predicted posted (pi += count): a QUERY_QP of the QPN (a "probe") must show the
//   new producer index. A probe that still shows the old one is sent again; after
//   timeout_cycles the doorbell is reported as lost.
// - predicted refused: the CSR counter of refused doorbells must count it. The counter
//   is read while such doorbells wait; when it equals the refusals predicted so far and
//   no refusal was predicted during the read, every waiting one has been refused.
// - predicted posted with count 0: nothing to observe; it is taken as applied when
//   accepted (the random stimulus never sends one).
//
// With the order known (set_order_known: doorbells and datapath operations of one QPN
// apply in the order the datapath front takes them, docs/datapath.md "Order", which the
// env learns from a probe) none of that is needed: a doorbell goes into the model in
// that order (DpScoreboard::on_doorbell), several doorbells of one QPN may be in flight
// (they resolve in port order: one QPN's doorbells never pass each other), and only the
// counter check at the end sees the refusals. The env
// uses this unless told otherwise (EnvOptions::doorbell_order_known); read errors do not
// matter, since a walk never fails (docs/events.md, "Memory faults").
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "func_coverage.h"
#include "golden_model.h"

namespace qpm {

class DoorbellTracker {
 public:
  DoorbellTracker(GoldenModel &model, uint64_t timeout_cycles)
      : model_(model), timeout_cycles_(timeout_cycles) {}

  void set_coverage(FuncCoverage *coverage) { coverage_ = coverage; }
  // Doorbells apply in the front's order with the operations of their QPN: on_accept
  // hands each to forward (the env, which passes it to DpScoreboard::on_doorbell when the
  // front takes it), and the scoreboard reports it back to on_applied.
  void set_order_known(std::function<void(const Doorbell &)> forward) {
    forward_ = std::move(forward);
  }
  bool order_known() const { return static_cast<bool>(forward_); }
  void on_applied(const Doorbell &db, bool refused);
  // The harness queued a doorbell: its QPN is busy from now on. One at a time per QPN
  // unless the order is known.
  void on_push(const Doorbell &db);
  // The doorbell port took it (decoded from the pins).
  void on_accept(const Doorbell &db, uint64_t cycle);

  // A doorbell of this QPN is queued or not yet resolved.
  bool pending(uint32_t qpn) const { return pending_.count(qpn) != 0; }
  // Whether a doorbell of a QPN that pred allows is unresolved.
  template <class Pred>
  bool any_pending(Pred pred) const {
    for (const auto &entry : pending_) {
      if (pred(entry.first)) return true;
    }
    return false;
  }
  size_t pending() const { return pending_count_; }
  // QPNs whose doorbell waits for a probe that is not in flight.
  std::vector<uint32_t> probes_wanted() const;
  void on_probe_sent(uint32_t qpn);
  // A probe's answer, before the scoreboard runs the QUERY on the model: a posted
  // doorbell is applied to the model first, so the QUERY must then match it.
  void on_probe_response(uint32_t qpn, const Response &rsp, uint64_t cycle);

  // The refused-doorbell counter: whether a read is wanted, and its value when read. A
  // read is taken only while no doorbell predicted posted is unresolved (one of those
  // may have been refused for a failed QPC read, which only its probe tells), and
  // counts only if no doorbell was taken or judged while it was in flight.
  bool wants_counter() const {
    return awaiting_counter_ > 0 && !read_in_flight_ && awaiting_probe_ == 0;
  }
  void on_counter_read_issued();
  void on_counter_value(uint32_t value, uint64_t cycle);

  // Doorbells waiting for the counter. Stimulus holds new doorbells back meanwhile, or
  // a stream of posted ones, each unresolved for a while, could keep the counter from
  // ever being read.
  uint64_t awaiting_counter() const { return awaiting_counter_; }
  uint64_t posted() const { return posted_; }
  uint64_t refused() const { return refused_; }
  // Refusals the counter must show.
  uint64_t expected_refused() const { return expected_refused_; }
  // Doorbells lost or wrongly counted (each also logged).
  const std::vector<std::string> &problems() const { return problems_; }
  // Every doorbell whose wait went past timeout_cycles (called each cycle).
  void check_timeouts(uint64_t cycle);

 private:
  enum class Wait { Push, Ordered, Probe, ProbeInFlight, Counter };
  struct Record {
    Doorbell db;
    Wait wait = Wait::Push;
    uint64_t accepted_at = 0;
  };
  // Resolves the QPN's oldest doorbell.
  void resolve(uint32_t qpn, bool refused);
  void problem(const std::string &p);

  GoldenModel &model_;
  uint64_t timeout_cycles_;
  FuncCoverage *coverage_ = nullptr;
  std::function<void(const Doorbell &)> forward_;
  // Per QPN, its unresolved doorbells in port order (more than one only with the order
  // known); a QPN with none has no entry.
  std::map<uint32_t, std::deque<Record>> pending_;
  size_t pending_count_ = 0;
  uint64_t awaiting_counter_ = 0;
  uint64_t awaiting_probe_ = 0;  // accepted, predicted posted, not yet seen
  uint64_t expected_refused_ = 0;
  bool read_in_flight_ = false;
  bool change_during_read_ = false;
  uint64_t snapshot_ = 0;
  uint64_t posted_ = 0, refused_ = 0;
  std::vector<std::string> problems_;
};

}  // namespace qpm
