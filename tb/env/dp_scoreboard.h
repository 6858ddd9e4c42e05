// Checks of the datapath port and the EQE port against the golden model.
//
// DpScoreboard: every datapath response against the model's prediction. The model
// applies an operation when the RTL answers it: responses come back in request order
// per QPN (SPEC §2), so the model sees each QPN's operations in the order the RTL
// applied them. Responses are matched to requests by tag (the harness keeps the tags
// of the operations in flight distinct) and must be the oldest outstanding one of
// their QPN. A walk never fails (a failed read is read again, and a failed QPC read
// makes the QP fatal: QpmEnv::on_qpc_read_done), so a DROP MEM_ERR is a mismatch.
//
// EventChecker: every EQE against the events the model raised, per QP (or port) in the
// order raised. An EQE may arrive before the response of the operation that raised it
// (the EQE port does not wait for the datapath response stream), so arrivals the model
// has not raised yet wait for it; at the end nothing may be left on either side.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "func_coverage.h"
#include "golden_model.h"
#include "reset_fence.h"

namespace qpm {

class EventChecker {
 public:
  // Raised by the model, oldest first; source names what raised it (coverage).
  void expect(const Event &e, const std::string &source);
  // Taken off the EQE port.
  void arrived(const Event &e);
  void set_coverage(FuncCoverage *coverage) { coverage_ = coverage; }

  uint64_t raised() const { return raised_; }
  uint64_t delivered() const { return delivered_; }
  uint64_t mismatches() const { return mismatches_; }
  // Raised and not yet delivered.
  size_t outstanding() const;
  // Taken off the EQE port and not (yet) raised by the model: once nothing is in
  // flight, each of these is an EQE no operation raised.
  size_t unexpected() const;
  // Every EQE taken since the last call, in arrival order (script output).
  std::vector<Event> take_arrivals();
  // What is wrong at the end of a run: events never delivered, EQEs nothing raised.
  std::vector<std::string> problems() const;
  std::map<EventType, uint64_t> counts() const { return counts_; }
  // Fatal before informational (SPEC §8, docs/events.md): once the model has raised a
  // fatal-class event (QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR, PORT_ERR), at most
  // class_bound informational events of QPs with no fatal event outstanding arrive
  // before it (those already in the EQ FIFO or in flight to it when it was raised).
  void set_class_bound(uint64_t bound) { class_bound_ = bound; }
  uint64_t class_violations() const { return class_violations_; }
  // The most informational events that overtook one fatal event.
  uint64_t worst_overtaking() const { return worst_overtaking_; }
  static bool fatal_class(EventType t) {
    return t == EventType::QpFatal || t == EventType::QpReqErr ||
           t == EventType::QpAccessErr || t == EventType::PortErr;
  }

 private:
  // Events of a port are keyed apart from those of the QP with the same number.
  static uint64_t key(const Event &e) { return (uint64_t{e.is_port} << 32) | e.qpn; }
  void compare(const Event &expected, const Event &actual);

  FuncCoverage *coverage_ = nullptr;
  std::unordered_map<uint64_t, std::deque<Event>> expected_, early_;
  std::vector<Event> arrivals_;
  std::map<EventType, uint64_t> counts_;
  uint64_t raised_ = 0, delivered_ = 0, mismatches_ = 0;
  // Per fatal-class event raised and not yet arrived: informational arrivals since.
  struct PendingFatal {
    uint64_t key;
    Event event;
    uint64_t overtaken = 0;
  };
  std::deque<PendingFatal> pending_fatal_;
  uint64_t class_bound_ = 16, class_violations_ = 0, worst_overtaking_ = 0;
};

struct DpMismatch {
  uint64_t index;  // 0-based datapath operation number
  DpRequest req;
  DpResponse expected;
  DpResponse actual;
  std::string difference;
};

class DpScoreboard {
 public:
  DpScoreboard(GoldenModel &model, EventChecker &events) : model_(model), events_(events) {}

  void set_coverage(FuncCoverage *coverage) { coverage_ = coverage; }
  // Places resets sent beside the operations of their QPN (reset_fence.h); held(qpn):
  // operations or commands of qpn answered but not yet in the model (command_placer.h).
  void set_reset_fence(ResetFence *fence, std::function<bool(uint32_t)> held) {
    fence_ = fence;
    held_ = std::move(held);
  }
  // A request taken by the datapath port, decoded from the pins.
  void on_accept(const DpRequest &req);
  void on_response(const DpResponse &actual);
  // The datapath front took the operation with this tag (a probe). It takes one QPN's
  // operations in the order the port did; those of different QPNs may pass each other
  // (the ingress's lock park), so each operation is marked when taken.
  void on_front_take(uint32_t tag);
  // A doorbell the datapath front took, when doorbells and operations of one QPN apply
  // in the order the front takes them (docs/datapath.md "Order"). It goes into the model
  // after the operations of its QPN the front took before it (now, if none is
  // outstanding) and before the later ones. applied(db, refused) reports it.
  using DoorbellApplied = std::function<void(const Doorbell &, bool refused)>;
  void set_doorbell_applied(DoorbellApplied applied) { applied_ = std::move(applied); }
  void on_doorbell(const Doorbell &db);
  // The QP cache answered a doorbell of qpn (a probe, VerilatedDut::doorbell_done): the
  // oldest of qpn's doorbells taken and not yet answered. A doorbell goes into the model
  // only once answered, so a change the RTL makes to its QP meanwhile (a fill that makes
  // the QP fatal) comes before it, as in the RTL.
  void on_doorbell_executed(uint32_t qpn);
  // Whether doorbells wait for on_doorbell_executed (the env turns it on when read or
  // write errors are injected or pages are dead, the sources of a change a doorbell can
  // wait behind: a fatal fill, a write-back given up); off, a doorbell applies as soon
  // as the operations taken before it are answered.
  void set_wait_for_execution(bool on) { wait_for_execution_ = on; }
  // A doorbell also waits for the QP commands the datapath front ran before it took the
  // doorbell (command_placer.h): stamp() is the command placer's count of visits to
  // Execute when the doorbell is taken, blocked(qpn, stamp) whether a command of qpn from
  // before it has not run in the model; recheck(qpn) applies what is no longer blocked.
  void set_doorbell_gate(std::function<uint64_t()> stamp,
                         std::function<bool(uint32_t, uint64_t)> blocked) {
    gate_stamp_ = std::move(stamp);
    gate_blocked_ = std::move(blocked);
  }
  // The second gate: a doorbell the QP cache answered after a fill made its QP fatal
  // (or a write-back given up did) goes into the model after that fill (fills: fatal
  // fills of a QPN seen so far; run: ... run in the model; CommandPlacer::on_fatal_fill).
  void set_fill_gate(std::function<uint64_t(uint32_t)> fills,
                     std::function<uint64_t(uint32_t)> run) {
    fills_seen_ = std::move(fills);
    fills_run_ = std::move(run);
  }
  void recheck_doorbells(uint32_t qpn) { apply_doorbells(qpn); }
  // Problems the order probes found: a doorbell answered that was never taken, an
  // operation the front took ahead of an older one of its QPN.
  const std::vector<std::string> &order_problems() const { return order_problems_; }

  uint64_t accepted() const { return accepted_; }
  uint64_t checked() const { return checked_; }
  uint64_t mismatches() const { return mismatch_count_; }
  size_t outstanding() const { return by_tag_.size(); }
  size_t outstanding(uint32_t qpn) const;
  const std::map<Verdict, uint64_t> &verdict_counts() const { return verdict_counts_; }
  // DROPs the model predicted, by reason (what the CSR drop counters must show).
  uint64_t expected_drops(DropReason r) const { return drops_[static_cast<size_t>(r)]; }
  const std::vector<DpMismatch> &first_mismatches() const { return first_mismatches_; }
  const DpResponse &last_response() const { return last_response_; }
  const DpResponse &last_expected() const { return last_expected_; }

  // Field-by-field description of how two responses differ ("" when equal).
  static std::string difference(const DpResponse &expected, const DpResponse &actual);

 private:
  static constexpr size_t kKeep = 10;
  struct Pending {
    uint64_t index = 0;
    DpRequest req;
    bool front_taken = false;  // an operation the datapath front has taken (a probe)
    bool is_doorbell = false;  // a doorbell waiting for the operations ahead of it
    bool executed = false;     // ... and answered by the QP cache (on_doorbell_executed)
    uint64_t stamp = 0;        // ... and the command placer's visits to Execute by then
    uint64_t fills = 0;        // fatal fills of its QPN before the cache answered it
    Doorbell db;
  };
  // Applies the doorbells at the front of qpn's queue (the operations ahead of them are
  // answered) and forgets the queue when it is empty.
  void apply_doorbells(uint32_t qpn);
  void mismatch(const Pending &p, const DpResponse &expected, const DpResponse &actual,
                const std::string &diff);

  GoldenModel &model_;
  EventChecker &events_;
  FuncCoverage *coverage_ = nullptr;
  ResetFence *fence_ = nullptr;
  std::function<bool(uint32_t)> held_;
  DoorbellApplied applied_;
  std::function<uint64_t()> gate_stamp_;
  std::function<bool(uint32_t, uint64_t)> gate_blocked_;
  std::function<uint64_t(uint32_t)> fills_seen_, fills_run_;
  std::unordered_map<uint32_t, std::deque<Pending>> by_qpn_;
  std::unordered_map<uint8_t, uint32_t> by_tag_;  // tag -> QPN of the operation in flight
  uint64_t accepted_ = 0, checked_ = 0, mismatch_count_ = 0;
  std::map<Verdict, uint64_t> verdict_counts_;
  std::array<uint64_t, kNumDropReasons> drops_{};
  std::vector<DpMismatch> first_mismatches_;
  std::vector<std::string> order_problems_;
  bool wait_for_execution_ = false;
  DpResponse last_response_, last_expected_;
};

}  // namespace qpm
