// Where a reset falls among its QP's datapath operations (SPEC §10, docs/reset.md).
//
// A MODIFY_QP to RESET or a DESTROY_QP sent while operations of its QPN are in flight
// (qpm_sim --reset-stress) takes effect in two steps the harness cannot time: the fence
// (quiesce: operations but DMA_END DROP with QUIESCE) and the reset itself (hardware
// fields cleared, epoch advanced). The RTL's answers say where each fell, exactly:
//   - a DROP QUIESCE is the first operation behind the fence: the model quiesces first;
//   - an answer that carries the next epoch (or, after a DESTROY, NO_QP of a QP the
//     model still has) is the first operation behind the reset: the model resets first.
// An operation answered otherwise came before both, and one between fence and reset
// (a DMA_END) is the same on either side of the fence. So the model applies the
// command at the right place among the operations; its response is compared when both
// the model has applied it and the RTL has answered, whichever is later. Operations on
// other QPNs are unaffected.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <unordered_map>

#include "golden_model.h"

namespace qpm {

class ResetFence {
 public:
  // judge(index, cmd, before, expected, actual): the command scoreboard's comparison.
  using Judge = std::function<void(uint64_t, const Command &, const Qpc &, const Response &,
                                   const Response &)>;
  ResetFence(GoldenModel &model, Judge judge) : model_(model), judge_(std::move(judge)) {}

  // A MODIFY_QP to RESET or DESTROY_QP (not a raw opcode).
  static bool is_reset(const Command &cmd);

  // The command unit took command number index.
  void on_accept(uint64_t index, const Command &cmd);
  // Its answer: true when the fence takes it (the model has applied it already, or will
  // once the operations of its QPN still in flight are answered: ops_in_flight); false
  // when the caller applies it now as any other command.
  bool on_response(uint64_t index, const Command &cmd, const Response &actual,
                   bool ops_in_flight);
  // Before the model applies a datapath answer of qpn: moves the fence or the reset in
  // front of it when the answer shows it.
  void before_op(uint32_t qpn, const DpResponse &actual);
  // After: once the RTL has answered the command and no operation of qpn is in flight,
  // the reset is applied and judged.
  void after_op(uint32_t qpn, bool ops_in_flight);

  // A reset of qpn is accepted and not yet both applied by the model and answered.
  bool busy(uint32_t qpn) const { return open_.count(qpn) != 0; }
  // Resets the answers placed (for reports and coverage).
  uint64_t placed_by_answers() const { return placed_by_answers_; }
  uint64_t deferred() const { return deferred_; }

 private:
  struct Open {
    uint64_t index = 0;
    Command cmd;
    bool applied = false;            // the model has run the command
    Qpc before;                      // the QPC it ran on (coverage)
    std::optional<Response> expected;
    std::optional<Response> actual;  // the RTL's answer
  };
  void apply(Open &o);
  void judge_if_done(uint32_t qpn);

  GoldenModel &model_;
  Judge judge_;
  std::unordered_map<uint32_t, Open> open_;  // by QPN
  uint64_t placed_by_answers_ = 0, deferred_ = 0;
};

}  // namespace qpm
