#include "reset_fence.h"

namespace qpm {

bool ResetFence::is_reset(const Command &cmd) {
  if (cmd.use_raw_op) return false;
  if (cmd.op == Opcode::DestroyQp) return true;
  return cmd.op == Opcode::ModifyQp && (cmd.attr_mask & attr::kState) &&
         cmd.qp_state == static_cast<uint32_t>(QpState::Reset);
}

void ResetFence::on_accept(uint64_t index, const Command &cmd) {
  // A QPN beyond 24 bits is refused before any context is read.
  if (!is_reset(cmd) || cmd.qpn > kPsnMask) return;
  // One open reset per QPN: a second one queued behind it finds no operation between.
  open_.try_emplace(cmd.qpn, Open{index, cmd, false, Qpc{}, std::nullopt, std::nullopt});
}

bool ResetFence::on_response(uint64_t index, const Command &cmd, const Response &actual,
                             bool ops_in_flight) {
  auto it = open_.find(cmd.qpn & kPsnMask);
  if (it == open_.end() || it->second.index != index) return false;
  Open &o = it->second;
  if (!o.applied && !ops_in_flight) {
    open_.erase(it);  // nothing of its QPN in flight: an ordinary command
    return false;
  }
  o.actual = actual;
  if (!o.applied) ++deferred_;
  judge_if_done(it->first);
  return true;
}

void ResetFence::before_op(uint32_t qpn, const DpResponse &actual) {
  auto it = open_.find(qpn);
  if (it == open_.end() || it->second.applied || !model_.qpc_address(qpn)) return;
  const Qpc &q = model_.qpc(qpn);
  if (!q.valid) return;
  const bool dropped = actual.verdict == Verdict::Drop;
  const bool no_qp = dropped && actual.drop == DropReason::NoQp;
  const bool next_epoch = !no_qp && actual.epoch == ((q.epoch + 1) & 0xffu);
  if (next_epoch || (no_qp && it->second.cmd.op == Opcode::DestroyQp)) {
    ++placed_by_answers_;
    apply(it->second);
    judge_if_done(qpn);
  } else if (dropped && actual.drop == DropReason::Quiesce && !q.quiesce) {
    model_.quiesce(qpn);
  }
}

void ResetFence::after_op(uint32_t qpn, bool ops_in_flight) {
  auto it = open_.find(qpn);
  if (it == open_.end() || it->second.applied || !it->second.actual || ops_in_flight) return;
  apply(it->second);
  judge_if_done(qpn);
}

void ResetFence::apply(Open &o) {
  const uint32_t qpn = o.cmd.qpn;
  o.before = model_.qpc_address(qpn) ? model_.qpc(qpn) : Qpc{};
  o.expected = model_.execute(o.cmd);
  o.applied = true;
}

void ResetFence::judge_if_done(uint32_t qpn) {
  auto it = open_.find(qpn);
  if (it == open_.end() || !it->second.applied || !it->second.actual) return;
  const Open o = it->second;
  open_.erase(it);
  judge_(o.index, o.cmd, o.before, *o.expected, *o.actual);
}

}  // namespace qpm
