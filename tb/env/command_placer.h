// Where a QP command falls among its QP's datapath operations (docs/verification.md,
// "Commands beside traffic").
//
// The command unit locks a command's QPN from its context read until its write is
// answered (docs/architecture.md, "The lock"), and the QP cache answers one QPN's
// requests in order. So every operation of the QPN the cache answered before the
// command reached Execute comes before the command, and every other one after it. Two
// probes sampled each cycle give that place exactly: the cache's answer to an operation
// (Dut::dp_done) and the command unit in Execute (Dut::cmd_executing; a command that
// waits for its QP's flush runs Execute again, and its last visit counts). One QPN's
// operations leave the response port in the order the cache answered them, so the place
// is a count, the command's mark: the model runs the command after the mark-th
// operation of its QPN and before the next one, whichever of their answers reaches the
// ports first. An operation answered behind a command that has not answered yet is
// held; a command answered before the operations ahead of it is held. Nothing is judged
// before the model has run what precedes it.
//
// Doorbells of the QPN are placed by the datapath scoreboard (dp_scoreboard.h) where the
// datapath front took them among the operations; a command's lock keeps them out only
// until Execute (a PIN or UNPIN then sends its second request, a QUERY waiting for a
// flush polls, with the lock released), so a doorbell taken after a command's last visit
// to Execute comes after that command too: blocks_doorbell tells the scoreboard to hold
// it until the command has run in the model (or visits Execute again, reading the
// context anew), and release_doorbells asks it to look again.
// A fill that makes its QP fatal (a failed QPC read, docs/events.md) is placed the same
// way: the cache answered the mark-th operation of the QPN before the fill landed, and a
// command that visited Execute before the fill runs before it. A doorbell the cache
// answered after the fill waits for it (fatal_fills / fatal_fills_run, the datapath
// scoreboard's second gate). A write-back the RTL gave up (issue 27 item 3) makes its QP
// fatal the same way and is placed the same way (on_fatal_fill with write set).
// Resets are placed by ResetFence (reset_fence.h) and are not seen here; MAP/UNMAP_PAGE,
// SYNC_CACHE and PORT_FAULT touch no single QP and are applied at their answers.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <unordered_map>

#include "func_coverage.h"
#include "golden_model.h"
#include "reset_fence.h"

namespace qpm {

class CommandPlacer {
 public:
  // judge(index, cmd, before, expected, actual): the command scoreboard's comparison;
  // run_op(rsp): apply one datapath answer to the model and judge it (the datapath
  // scoreboard); after_command(cmd): collect what the model emitted (events, CQEs).
  using Judge = ResetFence::Judge;
  using RunOp = std::function<void(const DpResponse &)>;
  using AfterCommand = std::function<void(const Command &)>;
  // run_fatal(qpn, write): apply a fatal fill (write false) or a write-back given up.
  using RunFatal = std::function<void(uint32_t, bool)>;
  CommandPlacer(GoldenModel &model, Judge judge, RunOp run_op, AfterCommand after_command)
      : model_(model),
        judge_(std::move(judge)),
        run_op_(std::move(run_op)),
        after_command_(std::move(after_command)) {}

  // A QP command the placer places: not a reset, not a raw opcode, a QPN of 24 bits.
  static bool placed_kind(const Command &cmd);

  // Every command the unit took, in order (index: the scoreboard's).
  void on_accept(uint64_t index, const Command &cmd);
  // Probes of this cycle: the QP cache answered an operation of qpn; the command unit is
  // in Execute (with the oldest unanswered command).
  void on_cache_answer(uint32_t qpn);
  void on_execute();
  // A fill made qpn fatal this cycle (Dut::fatal_fill), or with write set a write-back
  // of its context was given up: run_fatal runs it in the model once the operations and
  // commands ahead of it have run.
  void on_fatal_fill(uint32_t qpn, bool write = false);
  void set_run_fatal(RunFatal run_fatal) { run_fatal_ = std::move(run_fatal); }
  // Fatal fills (and write-backs given up) of qpn seen, and run in the model.
  uint64_t fatal_fills(uint32_t qpn) const;
  uint64_t fatal_fills_run(uint32_t qpn) const;
  // The RTL's answer to command number index: true when the placer runs it (now or once
  // the operations ahead of it are in); false when the caller runs it now as any other.
  bool on_response(uint64_t index, const Command &cmd, const Response &actual, bool memory_error);
  // The answer to an operation of qpn on the port: run now or held behind a command.
  void on_op_answer(uint32_t qpn, const DpResponse &actual);

  // Operations or commands of qpn held (not yet in the model).
  bool busy(uint32_t qpn) const;
  // Visits to Execute so far (a doorbell notes it when the front takes it), and whether
  // a command of qpn whose last visit was at or before taken_at has not run in the model.
  uint64_t executions() const { return executions_; }
  bool blocks_doorbell(uint32_t qpn, uint64_t taken_at) const;
  // Called with a QPN when a command of it runs in the model or visits Execute again.
  void set_release_doorbells(std::function<void(uint32_t)> release) {
    release_doorbells_ = std::move(release);
  }
  bool idle() const { return held_ops_ == 0 && held_cmds_ == 0 && held_fatals_ == 0; }
  void set_coverage(FuncCoverage *coverage) { coverage_ = coverage; }
  // Commands that met operations of their QPN: the answer of one came first on the ports
  // and the other was held (for reports and coverage).
  uint64_t met() const { return met_; }

 private:
  struct Cmd {
    uint64_t index = 0;
    Command cmd;
    bool executed = false;  // the unit reached Execute with it
    uint64_t mark = 0;      // operations of its QPN the cache answered before
    uint64_t visit = 0;     // executions_ at its last visit to Execute
    std::optional<Response> actual;
    bool memory_error = false;
    bool met = false;       // counted in met_
  };
  struct Fatal {
    uint64_t mark = 0;      // operations of its QPN the cache answered before the fill
    uint64_t visit = 0;     // executions_ when it landed: commands up to it come first
    bool write = false;     // a write-back given up, not a fill
  };
  struct PerQpn {
    uint64_t answered = 0;          // operations the cache answered (probe)
    uint64_t run = 0;               // ... run in the model
    std::deque<DpResponse> ops;     // answered on the port, held
    std::deque<Cmd> cmds;           // placed commands, oldest first, not yet run
    std::deque<Fatal> fatals;       // fatal fills, oldest first, not yet run
    uint64_t fills = 0, fills_run = 0;
  };
  void pump(uint32_t qpn);
  void run_command(PerQpn &p);
  void run_fatal(uint32_t qpn, PerQpn &p);

  GoldenModel &model_;
  Judge judge_;
  RunOp run_op_;
  AfterCommand after_command_;
  RunFatal run_fatal_;
  std::deque<Cmd> unanswered_;                 // every command taken, not yet answered
  std::unordered_map<uint32_t, PerQpn> qpns_;
  size_t held_ops_ = 0, held_cmds_ = 0, held_fatals_ = 0;
  uint64_t met_ = 0;
  uint64_t executions_ = 0;
  std::function<void(uint32_t)> release_doorbells_;
  FuncCoverage *coverage_ = nullptr;
};

}  // namespace qpm
