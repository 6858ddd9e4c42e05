// Functional coverage in C++ (SPEC §12): named bins counted as responses land.
//
// Every bin that can be hit is declared up front with a count of 0, so the report of a
// run, and the merge of many runs by make regress, can list the bins never hit. Bins
// are grouped by the prefix before their first '.':
//   transition.<type>.<cur>-><next>   each of the kernel table's 66 rows, taken by an OK
//                                     MODIFY_QP (the golden model's state before it)
//   status.<STATUS>                   every command status seen
//   command.<OPCODE>.<STATUS>         each opcode's answers (declared: the ones a
//                                     well-formed run can give)
//   cache.<event>                     hit, miss, merge, eviction, dirty write-back, pin
//                                     refusal, miss wait, refused QPN, memory error,
//                                     directory-cache hit, from the CSR counters
//   dp.<OP>.<VERDICT>                 each datapath operation's possible verdicts (SPEC
//                                     §6; UNKNOWN: op codes 9..15)
//   drop.<OP>.<REASON>                each operation's possible DROP reasons
//   event.<SOURCE>.<TYPE>             each event type by what raises it (an operation,
//                                     or MODIFY_QP for SQ_DRAINED at RTS->SQD)
//   doorbell.<SQ|RQ>.<POSTED|REFUSED> doorbells by queue and outcome
//   cqe.<SQ|RQ>.<STATUS>              completions by queue and status (SPEC §7)
//   flush.overflow                    a QP to flush found every flush slot taken (the
//                                     scan), from the CSR counter
//   dp_state.<OP>.<TYPE>.<STATE>      cross: each operation on each QP type in each state
//   verdict_type.<VERDICT>.<TYPE>     cross: each verdict a QP type can get (SPEC §6)
//   wrap.psn.{send,receive}           PSNs across 2^24: a WQE's packets, a packet accepted
//   wrap.index.{sq,rq}                queue indices across 2^16
//   busy.<OPCODE>                     a MODIFY_QP / DESTROY_QP answered while operations of
//                                     its QPN were in flight (resets beside traffic)
//   under_traffic.SYNC_CACHE          a SYNC_CACHE answered with operations in flight
//
// The denominator is fixed: a bin outside this plan that is hit is kept apart
// (undeclared()), listed by the reports and never counted as covered.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "datapath.h"
#include "flush.h"
#include "qpm_types.h"

namespace qpm {

class FuncCoverage {
 public:
  FuncCoverage();

  // A command answered; qpc_before is the golden model's context before it ran.
  void sample(const Command &cmd, const Qpc &qpc_before, const Response &rsp);
  // A datapath operation answered (its request, the RTL's response, and the golden
  // model's context of its QP before it: nullptr when the QPN has none).
  void sample_dp(const DpRequest &req, const DpResponse &rsp, const Qpc *before);
  // A command answered: whether operations of its QPN, or any, were in flight.
  void sample_busy(const Command &cmd, bool own_traffic, bool any_traffic);
  // A command that met operations of its QP (command_placer.h): its answer came before
  // theirs although they precede it (command_waited), or operations it precedes were
  // answered before it (ops_waited).
  void sample_placement(bool command_waited);
  // An event raised by source (an operation name, or MODIFY_QP).
  void sample_event(const std::string &source, const Event &e);
  // A completion taken off the CQE port.
  void sample_cqe(const Cqe &c);
  // A doorbell taken: its queue and whether it was refused.
  void sample_doorbell(bool rq, bool refused);
  // The CSR counters at the end of a run, in kCounterNames order with their names.
  void sample_counters(const std::vector<const char *> &names, const std::vector<uint32_t> &values);

  // Adds another run's counts (the same plan: every declared bin is in both).
  void merge(const FuncCoverage &other);

  const std::map<std::string, uint64_t> &bins() const { return bins_; }
  const std::map<std::string, uint64_t> &undeclared() const { return undeclared_; }
  std::vector<std::string> unhit() const;
  // {"bins": {name: count, ...}, "undeclared": {name: count, ...}}
  std::string to_json() const;

 private:
  void hit(const std::string &bin, uint64_t n = 1);
  // The per-operation bins, by a key of their enum values: the name is formatted and
  // looked up once per key, not for every operation (the map nodes stay where they are).
  // A copy starts with an empty cache: its pointers would name the other object's maps.
  struct SlotCache {
    std::unordered_map<uint64_t, uint64_t *> slots;
    SlotCache() = default;
    SlotCache(const SlotCache &) {}
    SlotCache &operator=(const SlotCache &) {
      slots.clear();
      return *this;
    }
  };
  template <class Name>
  void hit_keyed(uint64_t key, Name &&name) {
    auto it = cache_.slots.find(key);
    if (it == cache_.slots.end()) {
      const std::string bin = name();
      auto b = bins_.find(bin);
      it = cache_.slots.emplace(key, b != bins_.end() ? &b->second : &undeclared_[bin]).first;
    }
    ++*it->second;
  }
  SlotCache cache_;
  std::map<std::string, uint64_t> bins_;
  std::map<std::string, uint64_t> undeclared_;
};

}  // namespace qpm
