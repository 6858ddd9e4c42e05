// Compares every RTL response with the golden model's prediction.
//
// Responses come back in command order. The model executes a command when its response
// arrives. Whether a memory error hit the command depends on timing the model does not
// know (the command unit prefetches the next command's context, and a command may merge
// into that fill, or into one the datapath started), so the scoreboard asks the
// environment whether an injected read error of this command's context or directory
// entry completed since shortly before it was accepted: only then may the RTL answer
// INT_ERR, and the model is told so; otherwise the model predicts the normal answer and
// any INT_ERR is a mismatch.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "func_coverage.h"
#include "golden_model.h"
#include "command_placer.h"
#include "reset_fence.h"

namespace qpm {

struct Mismatch {
  uint64_t index;  // 0-based command number
  Command cmd;
  Response expected;
  Response actual;
  std::string difference;
};

class Scoreboard {
 public:
  // read_errors(): the position in the memory's list of completed failed reads from
  // which an error may still reach a command accepted now; error_could_hit(cmd, since):
  // whether one completed from position `since` on could have hit cmd's context.
  Scoreboard(GoldenModel &model, std::function<uint64_t()> read_errors,
             std::function<bool(const Command &, uint64_t)> error_could_hit)
      : model_(model),
        read_errors_(std::move(read_errors)),
        error_could_hit_(std::move(error_could_hit)) {}

  void on_accept(const Command &cmd);
  // Functional coverage to feed with every answered command (nullptr: none).
  void set_coverage(FuncCoverage *coverage) { coverage_ = coverage; }
  void on_response(const Response &actual);
  // Resets sent beside their QP's datapath operations (reset_fence.h): the fence places
  // them; ops_in_flight(qpn) tells whether operations of qpn are still unanswered.
  void set_reset_fence(ResetFence *fence, std::function<bool(uint32_t)> ops_in_flight) {
    fence_ = fence;
    ops_in_flight_ = std::move(ops_in_flight);
  }
  // QP commands sent beside their QP's datapath operations (command_placer.h): the placer
  // runs them where the probes place them.
  void set_placer(CommandPlacer *placer) { placer_ = placer; }
  // Compares the model's expected answer to command number index with the RTL's, and
  // counts it (before: the QPC the model ran it on, for coverage).
  void judge(uint64_t index, const Command &cmd, const Qpc &before, const Response &expected,
             const Response &actual);

  uint64_t accepted() const { return accepted_; }
  uint64_t checked() const { return checked_; }
  uint64_t mismatches() const { return mismatch_count_; }
  size_t outstanding() const { return expected_.size(); }
  const std::map<Status, uint64_t> &status_counts() const { return status_counts_; }
  // The first mismatches (at most kKeep), for reports.
  const std::vector<Mismatch> &first_mismatches() const { return first_mismatches_; }
  const Response &last_response() const { return last_response_; }
  const Response &last_expected() const { return last_expected_; }

  // Field-by-field description of how two responses differ ("" when equal).
  static std::string difference(const Response &expected, const Response &actual);

 private:
  static constexpr size_t kKeep = 10;
  struct Pending {
    uint64_t index;
    Command cmd;
    uint64_t read_errors_at_accept;
  };

  GoldenModel &model_;
  FuncCoverage *coverage_ = nullptr;
  ResetFence *fence_ = nullptr;
  CommandPlacer *placer_ = nullptr;
  std::function<bool(uint32_t)> ops_in_flight_;
  std::function<uint64_t()> read_errors_;
  std::function<bool(const Command &, uint64_t)> error_could_hit_;
  std::deque<Pending> expected_;
  uint64_t accepted_ = 0;
  uint64_t checked_ = 0;
  uint64_t mismatch_count_ = 0;
  std::map<Status, uint64_t> status_counts_;
  std::vector<Mismatch> first_mismatches_;
  Response last_response_;
  Response last_expected_;
};

}  // namespace qpm
