// CqeChecker: every CQE against the completions the golden model predicts, per
// (QP, queue) stream in order (SPEC §7, §12). The interleaving of different streams is
// the hardware's business and is not checked.
//
// The model completes a flush at once; the hardware one step at a time, so a CQE may
// arrive before the model has seen the operation that started its flush (the datapath
// response may still be in its FIFO): arrivals wait for the model, as for EQEs.
// A MODIFY to RESET or a DESTROY_QP stops a flush under way (docs/errors.md): what the
// stream still expected of that incarnation may then never come. When the reset is
// answered, every completion the old incarnation will ever produce is already in the CQE
// FIFO, so it leaves the port within the next (FIFO fill level) CQEs; cut(qpn, until)
// makes the old completions optional and good only while fewer than `until` CQEs have
// been delivered in all. Within that window an arrival of the QP is either the next old
// completion or, when it is not, ends the old ones (they leave before anything newer);
// after the window, the old ones are dropped. So what came out of the old incarnation
// is an in-order prefix of what it owed, and a new incarnation (whose completions may
// look the same: indices start again at 0) is never confused with it.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "flush.h"
#include "func_coverage.h"

namespace qpm {

class CqeChecker {
 public:
  // Predicted by the model, oldest first.
  void expect(const Cqe &c);
  // Taken off the CQE port.
  void arrived(const Cqe &c);
  // qpn was reset or destroyed: its expected completions become optional, and can arrive
  // only while delivered() < until.
  void cut(uint32_t qpn, uint64_t until);
  // The CQE FIFO was seen empty after the cuts so far: whatever an old incarnation left
  // in it has been delivered, so no optional completion can come any more (an identical
  // completion of the QP's next incarnation must not pass for an old one).
  void fifo_drained();
  void set_coverage(FuncCoverage *coverage) { coverage_ = coverage; }

  uint64_t predicted() const { return predicted_; }
  uint64_t delivered() const { return delivered_; }
  uint64_t skipped() const { return skipped_; }  // optional ones passed over so far
  // Completions a reset stopped from coming: passed over, or optional and still waiting.
  uint64_t cut_off() const;
  uint64_t mismatches() const { return mismatches_; }
  // Predicted, not optional, not yet delivered.
  size_t outstanding() const;
  // Taken off the port and not (yet) predicted.
  size_t unexpected() const;
  // CQEs taken since the last call, in arrival order (script output).
  std::vector<Cqe> take_arrivals();
  // Completions never delivered, CQEs nothing predicted, mismatches.
  std::vector<std::string> problems() const;
  // Delivered CQEs by status.
  const std::map<WcStatus, uint64_t> &counts() const { return counts_; }

 private:
  struct Expected {
    Cqe cqe;
    bool optional = false;
    uint64_t until = 0;  // optional: may arrive only while delivered_ < until
  };
  static uint64_t key(const Cqe &c) { return (uint64_t{c.qpn} << 1) | (c.rq ? 1 : 0); }
  void compare(const Cqe &expected, const Cqe &actual);

  FuncCoverage *coverage_ = nullptr;
  std::unordered_map<uint64_t, std::deque<Expected>> expected_;
  std::unordered_map<uint64_t, std::deque<Cqe>> early_;
  std::vector<uint64_t> cut_keys_;  // streams with optional completions since fifo_drained()
  std::vector<Cqe> arrivals_;
  std::map<WcStatus, uint64_t> counts_;
  uint64_t predicted_ = 0, delivered_ = 0, skipped_ = 0, mismatches_ = 0;
};

}  // namespace qpm
