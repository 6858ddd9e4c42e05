#include "command_placer.h"

#include <stdexcept>

namespace qpm {

bool CommandPlacer::placed_kind(const Command &cmd) {
  if (cmd.use_raw_op || cmd.qpn > kPsnMask || ResetFence::is_reset(cmd)) return false;
  switch (cmd.op) {
    case Opcode::CreateQp:
    case Opcode::ModifyQp:
    case Opcode::QueryQp:
    case Opcode::PinQp:
    case Opcode::UnpinQp:
      return true;
    default:
      return false;
  }
}

void CommandPlacer::on_accept(uint64_t index, const Command &cmd) {
  Cmd c;
  c.index = index;
  c.cmd = cmd;
  unanswered_.push_back(c);
}

void CommandPlacer::on_cache_answer(uint32_t qpn) { ++qpns_[qpn].answered; }

void CommandPlacer::on_execute() {
  if (unanswered_.empty()) return;  // the scoreboard reports an answer without a command
  Cmd &c = unanswered_.front();
  if (!placed_kind(c.cmd)) return;
  c.executed = true;
  c.mark = qpns_[c.cmd.qpn].answered;  // the last visit counts
  c.visit = ++executions_;
  // Doorbells taken since its last visit come before this read of the context.
  if (release_doorbells_) release_doorbells_(c.cmd.qpn);
}

void CommandPlacer::on_fatal_fill(uint32_t qpn, bool write) {
  PerQpn &p = qpns_[qpn];
  p.fatals.push_back(Fatal{p.answered, executions_, write});
  ++p.fills;
  ++held_fatals_;
  pump(qpn);
}

uint64_t CommandPlacer::fatal_fills(uint32_t qpn) const {
  auto it = qpns_.find(qpn);
  return it == qpns_.end() ? 0 : it->second.fills;
}

uint64_t CommandPlacer::fatal_fills_run(uint32_t qpn) const {
  auto it = qpns_.find(qpn);
  return it == qpns_.end() ? 0 : it->second.fills_run;
}

bool CommandPlacer::blocks_doorbell(uint32_t qpn, uint64_t taken_at) const {
  if (!unanswered_.empty()) {
    const Cmd &live = unanswered_.front();
    if (live.executed && live.cmd.qpn == qpn && live.visit <= taken_at) return true;
  }
  auto it = qpns_.find(qpn);
  if (it == qpns_.end()) return false;
  for (const Cmd &c : it->second.cmds)
    if (c.visit <= taken_at) return true;
  return false;
}

bool CommandPlacer::on_response(uint64_t index, const Command &cmd, const Response &actual,
                                bool memory_error) {
  if (unanswered_.empty() || unanswered_.front().index != index) {
    throw std::logic_error("CommandPlacer: answers out of command order");
  }
  Cmd c = unanswered_.front();
  unanswered_.pop_front();
  // A command that never reached Execute read no context (refused before the cache, or
  // by it): its answer depends on no operation.
  if (!placed_kind(cmd) || !c.executed) return false;
  c.actual = actual;
  c.memory_error = memory_error;
  PerQpn &p = qpns_[cmd.qpn];
  if (p.run < c.mark) {  // answered before operations that precede it
    if (!c.met) ++met_;
    if (coverage_) coverage_->sample_placement(true);
  }
  p.cmds.push_back(c);
  ++held_cmds_;
  pump(cmd.qpn);
  return true;
}

void CommandPlacer::on_op_answer(uint32_t qpn, const DpResponse &actual) {
  qpns_[qpn].ops.push_back(actual);
  ++held_ops_;
  pump(qpn);
}

bool CommandPlacer::busy(uint32_t qpn) const {
  auto it = qpns_.find(qpn);
  return it != qpns_.end() &&
         (!it->second.ops.empty() || !it->second.cmds.empty() || !it->second.fatals.empty());
}

void CommandPlacer::pump(uint32_t qpn) {
  PerQpn &p = qpns_[qpn];
  auto run_op = [&] {
    const DpResponse r = p.ops.front();
    p.ops.pop_front();
    --held_ops_;
    ++p.run;
    run_op_(r);
  };
  for (;;) {
    Cmd *live = unanswered_.empty() ? nullptr : &unanswered_.front();
    const bool live_here = live && live->executed && live->cmd.qpn == qpn;
    // A fatal fill: after the commands that visited Execute before it landed (answered,
    // or still in the unit), and after the operations the cache answered before it.
    if (!p.fatals.empty()) {
      const Fatal f = p.fatals.front();
      const bool cmd_before = !p.cmds.empty() && p.cmds.front().visit <= f.visit;
      const bool live_before = live_here && live->visit <= f.visit;
      if (!cmd_before && !live_before) {
        if (p.run < f.mark) {
          if (p.ops.empty()) return;
          run_op();
        } else {
          run_fatal(qpn, p);
        }
        continue;
      }
    }
    if (!p.cmds.empty()) {
      // An answered command: the operations ahead of it first, then the command.
      if (p.run < p.cmds.front().mark) {
        if (p.ops.empty()) return;
        run_op();
      } else {
        run_command(p);
      }
      continue;
    }
    if (p.ops.empty()) return;
    // The command in the unit, past Execute and not yet answered: operations the cache
    // answered after its mark wait for it.
    if (live_here && p.run >= live->mark) {
      if (!live->met) {
        ++met_;
        if (coverage_) coverage_->sample_placement(false);
      }
      live->met = true;
      return;
    }
    run_op();
  }
}

void CommandPlacer::run_fatal(uint32_t qpn, PerQpn &p) {
  const bool write = p.fatals.front().write;
  p.fatals.pop_front();
  --held_fatals_;
  ++p.fills_run;
  if (run_fatal_) run_fatal_(qpn, write);
  if (release_doorbells_) release_doorbells_(qpn);
}

void CommandPlacer::run_command(PerQpn &p) {
  const Cmd c = p.cmds.front();
  p.cmds.pop_front();
  --held_cmds_;
  const Qpc before = model_.qpc_address(c.cmd.qpn) ? model_.qpc(c.cmd.qpn) : Qpc{};
  const Response expected = model_.execute(c.cmd, c.memory_error);
  judge_(c.index, c.cmd, before, expected, *c.actual);
  after_command_(c.cmd);
  if (release_doorbells_) release_doorbells_(c.cmd.qpn);
}

}  // namespace qpm
