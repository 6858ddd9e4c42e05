// One qpm_top with its golden model, memory model, CSR master, command driver, response
// monitor and scoreboard, and the datapath, doorbell and EQE agents with their checkers
// (DpScoreboard, DoorbellTracker, EventChecker): what the simulator and every
// system-level test run on.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "axi_memory.h"
#include "axil_master.h"
#include "command_agent.h"
#include "command_placer.h"
#include "cqe_checker.h"
#include "doorbell_tracker.h"
#include "dp_scoreboard.h"
#include "golden_model.h"
#include "scoreboard.h"
#include "stream_agents.h"
#include "stream_checker.h"
#include "trap_agent.h"
#include "testbench.h"

namespace qpm {

// CSR offsets (docs/qp-table.md).
namespace csr {
constexpr uint32_t kId = 0x000;
constexpr uint32_t kConfig = 0x004;
constexpr uint32_t kQptBaseLo = 0x008;
constexpr uint32_t kQptBaseHi = 0x00c;
constexpr uint32_t kQpnLimit = 0x010;
constexpr uint32_t kEvictPolicy = 0x014;
constexpr uint32_t kEvictTrapTimeout = 0x018;
constexpr uint32_t kResetTimeout = 0x01c;
constexpr uint32_t kWbRetryBudget = 0x020;
constexpr uint32_t kCounters = 0x040;  // kCounterNames order, 4 bytes each
}  // namespace csr
// The counter names in register order (docs/qp-table.md): the cache's, the CSR block's
// refused writes, DROPs by reason (drop_no_qp .. drop_mem_err), refused doorbells,
// events raised, the flush's, and last the cache's write retries.
extern const std::vector<const char *> kCounterNames;
// Index in kCounterNames of a counter; std::logic_error for an unknown name.
size_t counter_index(const std::string &name);
// The counter of DROPs with reason r (r != None).
std::string drop_counter_name(DropReason r);

// Where the harness puts the QP table in host memory.
constexpr uint64_t kQptBase = 0x10000000;
constexpr uint64_t kFirstPage = 0x200000000;  // page i of the initial mapping: + i * 4 KiB

struct EnvOptions {
  std::string config = "default";
  uint64_t seed = 1;
  std::string trace_path;           // FST file, empty for none
  uint64_t trace_from = 0;          // first cycle written to the FST file
  double cmd_idle_prob = 0.0;       // chance of an idle cycle before a command
  double rsp_stall_prob = 0.0;      // chance rsp_ready is low in a cycle
  double csr_stall_prob = 0.0;      // AXI4-Lite master: delays of each valid and ready
  uint64_t timeout_cycles = 200000;  // per command (and per datapath answer, event, doorbell)
  // The datapath, doorbell and EQE agents draw from their own generator (seeded from
  // seed), so runs without datapath traffic stay what they were before it existed.
  double dp_idle_prob = 0.0;        // chance of an idle cycle before a datapath op or doorbell
  double dp_rsp_stall_prob = 0.0;   // chance dp_rsp_ready is low in a cycle
  double eqe_stall_prob = 0.0;      // chance eqe_ready is low in a cycle
  double cqe_stall_prob = 0.0;      // chance cqe_ready is low in a cycle
  uint32_t eqe_hold = 0;            // cycles eqe_ready stays low after each EQE taken
  // Doorbells and datapath operations of one QPN apply in the order taken, as
  // docs/datapath.md promises: the model applies each doorbell in that order (read
  // errors included: a walk never fails). Off, the harness finds out what the RTL did
  // with each doorbell instead (doorbell_tracker.h), and the stimulus keeps them apart.
  bool doorbell_order_known = true;
  bool map_all_pages = true;        // MAP_PAGE every directory entry below QPN_LIMIT at start
  uint32_t qpn_limit = 0;           // QPN_LIMIT to program (0: the configuration's, 4096)
  uint32_t evict_policy = 0;        // EVICT_POLICY to program (0, tree-PLRU, is not written)
  TrapAgentOptions trap;            // the eviction-trap agent (attached under policy 3)
  uint32_t trap_timeout = 0;        // EVICT_TRAP_TIMEOUT to program (0: the reset 256)
  uint32_t reset_timeout = 0;       // RESET_TIMEOUT to program (0: the reset 4096)
  // WB_RETRY_BUDGET to program (0..255; 0: retry forever), none: the reset value 16.
  std::optional<uint32_t> wb_retry_budget;
  // Dead pages (issue 27 item 3, write faults): this many distinct QP-table pages
  // (host pages holding QPCs), drawn once they are mapped (map_pages) from a generator of
  // their own, a fixed function of the seed (so a change of the RTL's timing, which moves
  // rng_, does not move them), refuse every write for the rest of the run
  // (AxiMemoryOptions::dead_pages).
  uint32_t mem_dead_pages = 0;
  AxiMemoryOptions mem;
};

// Memory bursts by what they touched: the directory or a page of QPCs.
struct MemoryTraffic {
  uint64_t dir_reads = 0, qpc_reads = 0, dir_writes = 0, qpc_writes = 0;
  uint64_t dir_read_errors = 0, qpc_read_errors = 0;
  uint64_t dir_write_errors = 0, qpc_write_errors = 0, write_errors = 0;  // write_errors: both
  uint64_t dir_reads_unmapped = 0;             // walks that found the entry unmapped
  uint64_t maint_reads = 0, maint_read_errors = 0;  // MAP/UNMAP's entry and page reads
};

class QpmEnv {
 public:
  explicit QpmEnv(const EnvOptions &opt);

  // Drive one command and wait for its response (which the scoreboard checks), and for
  // everything else in flight. Throws std::runtime_error when nothing progresses for
  // timeout_cycles.
  Response execute(const Command &cmd);
  // Run until every queued command and datapath operation has been answered, every
  // doorbell resolved and every event the model raised delivered.
  void drain();
  // Cycles without progress before a wait is a hang: the option, more while a
  // PORT_FAULT scans.
  uint64_t command_timeout() const;
  // What counts as forward progress for a timeout: commands and datapath operations
  // answered, doorbells resolved, events and completions delivered.
  uint64_t progress() const;
  // Queue a command, a datapath operation (its tag is the harness's: distinct among the
  // operations in flight, at most 255 of them) or a doorbell without waiting.
  void push_command(const Command &cmd);
  void push_dp(DpRequest req);
  void push_doorbell(const Doorbell &db);
  // Run the datapath operation and wait for everything in flight; its response.
  DpResponse execute_dp(const DpRequest &req);
  // Ring the doorbell and wait until the harness knows what the RTL did with it
  // (doorbell_tracker.h); true when it was posted.
  bool ring(const Doorbell &db);
  // What is in flight for a QPN, for stimulus that must keep commands, datapath
  // operations and doorbells of one QPN apart (docs/verification.md).
  size_t commands_in_flight(uint32_t qpn) const;
  size_t dp_in_flight(uint32_t qpn) const;
  size_t dp_in_flight() const { return dp_tags_in_use_; }
  // Whether a datapath operation or doorbell of a QPN that pred allows is in flight.
  bool any_in_flight(const std::function<bool(uint32_t)> &pred) const {
    for (const auto &entry : dp_qpns_) {
      if (pred(entry.first)) return true;
    }
    return doorbells_.any_pending(pred);
  }
  bool doorbell_pending(uint32_t qpn) const { return doorbells_.pending(qpn); }
  // Whether doorbells apply in the order taken (EnvOptions::doorbell_order_known): then a doorbell may go to a QPN with datapath operations in flight.
  bool doorbell_order_known() const { return doorbells_.order_known(); }
  size_t doorbells_pending() const { return doorbells_.pending(); }
  size_t commands_in_flight() const { return pushed_.size(); }
  // The commands queued or in flight, oldest first (for a timeout's message).
  std::vector<Command> commands_pending() const {
    std::vector<Command> out;
    for (const Pushed &p : pushed_) out.push_back(p.cmd);
    return out;
  }
  // MAP/UNMAP_PAGE and PORT_FAULT queued or in flight.
  size_t global_commands_in_flight() const;
  size_t dp_queued() const { return dp_driver_.queued(); }
  // Nothing queued, in flight, unresolved or undelivered.
  bool idle() const;
  bool idle_but_flush() const;
  uint64_t flush_pass_limit() const;
  std::string busy_parts() const;
  // Run n commands from next(), keeping `depth` commands queued or in flight so the
  // command unit always has the next one in its lookahead register (and prefetches it).
  // next() sees the model as of the last response, one or two commands behind.
  void run_stream(uint64_t n, const std::function<Command()> &next, unsigned depth = 2);
  void run_cycles(uint64_t n);
  // MAP_PAGE each of these directory entries (page i at kFirstPage + i * 4 KiB) that is
  // not mapped yet, with memory errors held off, as software's setup would. Then, while
  // fewer than EnvOptions::mem_dead_pages pages are dead, draws the missing ones among
  // the mapped QP-table pages that are not (std::runtime_error when too few are mapped).
  void map_pages(const std::vector<uint32_t> &dir_indexes);
  // The dead pages drawn so far (host addresses, in the order drawn).
  const std::vector<uint64_t> &dead_pages() const { return dead_pages_; }

  // CSR access over AXI4-Lite (blocking).
  uint32_t read_csr(uint32_t addr);
  void write_csr(uint32_t addr, uint32_t data, uint32_t strb = 0xf);
  // All event counters, in kCounterNames order, read over AXI4-Lite.
  std::vector<uint32_t> read_counters();

  // memory_image_check(), then memory-model and stream-protocol violations, mismatches,
  // RTL assertions and the counter cross-checks. Returns the problems found (empty when
  // clean).
  std::vector<std::string> final_check();
  // SYNC_CACHE (which must answer OK, whatever write errors the memory injects), then
  // compare host memory with the model: every QPC slot of every mapped page (valid or
  // not) but the dead pages' (EnvOptions::mem_dead_pages: memory holds nothing written
  // to them) and every directory entry. The problems found (empty when clean).
  std::vector<std::string> memory_image_check();
  // The CSR counters against what the memory model saw, exactly (docs/verification.md):
  // MEM_ERRORS = errors injected, WB_RETRIES = write errors injected, WRITEBACKS = QPC
  // write bursts answered OKAY, WALKS = MISSES, directory reads = WALKS - DIR_HITS, QPC
  // reads = WALKS - directory read errors - walks that found the entry unmapped;
  // write-fault notices <= WB_GIVEN_UP <= write errors injected.
  std::vector<std::string> counter_check();
  const MemoryTraffic &traffic() const { return traffic_; }
  // QPs the model made fatal because a read of their QPC failed (docs/events.md).
  uint64_t qps_made_fatal() const { return qps_made_fatal_; }
  // Write faults: the RTL's notices that a write-back was given up (Dut::fatal_fill
  // with write set), each checked against a failed write of that QPN's QPC.
  uint64_t write_fault_notices() const { return write_fault_notices_; }
  uint64_t take_backs() const { return take_backs_; }
  // The most events the EQ has held at once (its fill level, sampled every cycle).
  unsigned eq_fill_max() const { return eq_fill_max_; }

  // Test backdoor: replace a QP's context in the RTL (cache line or memory) and in the
  // model alike, as the datapath would have left it (SQE, SQD while draining).
  void force_qpc(uint32_t qpn, const Qpc &q);

  // The last answer to a command of the harness's own (not a doorbell probe) and what
  // the model expected.
  const Response &last_response() const { return user_response_; }
  const Response &last_expected() const { return user_expected_; }
  // Functional coverage of everything answered from now on (nullptr: none).
  void set_coverage(FuncCoverage *coverage);
  FuncCoverage *coverage() const { return coverage_; }
  // Every QpmEnv made from now on samples into `coverage` (nullptr: none): how the
  // directed tests write their bins (tests/fcov_listener.cpp).
  static void set_suite_coverage(FuncCoverage *coverage) { suite_coverage_ = coverage; }
  // Called with every datapath answer and the request it answers, after the scoreboard
  // has judged it: what a transport engine sees (tb/stim/transport.h). Empty: none.
  using DpListener = std::function<void(const DpRequest &, const DpResponse &)>;
  void set_dp_listener(DpListener listener) { dp_listener_ = std::move(listener); }

  GoldenModel &model() { return model_; }
  Scoreboard &scoreboard() { return scoreboard_; }
  DpScoreboard &dp_scoreboard() { return dp_scoreboard_; }
  const ResetFence &reset_fence() const { return reset_fence_; }
  const CommandPlacer &placer() const { return placer_; }
  EventChecker &events() { return events_; }
  CqeChecker &cqes() { return cqes_; }
  const TrapAgent *trap_agent() const { return trap_agent_.get(); }
  const DoorbellTracker &doorbells() const { return doorbells_; }
  StreamSink &dp_response_sink() { return dp_sink_; }
  StreamSink &eqe_sink() { return eqe_sink_; }
  StreamSink &cqe_sink() { return cqe_sink_; }
  std::mt19937_64 &dp_rng() { return dp_rng_; }
  const StreamChecker &streams() const { return streams_; }
  AxiLiteMaster &csr_master() { return csr_; }
  Testbench &tb() { return tb_; }
  AxiMemory &memory() { return memory_; }
  std::mt19937_64 &rng() { return rng_; }
  const EnvOptions &options() const { return opt_; }

 private:
  // The harness's own work each cycle: probes of doorbells, reads of the refused-
  // doorbell counter, the history of completed failed reads. Runs in every tick.
  class Housekeeping : public TbExtension {
   public:
    explicit Housekeeping(QpmEnv &env) : env_(env) {}
    void before_edge(Dut &) override { env_.sample_probes(); }
    void after_edge(Dut &) override { env_.housekeeping(); }

   private:
    QpmEnv &env_;
  };
  // A command queued by push_command, until its response.
  struct Pushed {
    Command cmd;
    bool probe;  // a QUERY_QP sent to see a doorbell's effect
    // Datapath operations were in flight while it was (of its QPN; of any), for coverage.
    bool met_own_traffic = false, met_any_traffic = false;
  };

  void on_accept(const Command &cmd);
  bool error_could_hit(const Command &cmd, uint64_t since) const;
  // A miss register's read of a QPC completed: after a failed one, the next that
  // succeeds must make the QP fatal if it is live (fatal_due_).
  void on_qpc_read_done(uint64_t addr, bool error, uint32_t id);
  // A write's B was taken: a failed write of a QPC is what a write-fault notice needs
  // (qpc_write_failures_).
  void on_write_done(uint64_t addr, bool error);
  // The RTL gave up a write-back of qpn's context (a write-fault notice): checked against
  // the failed writes, then placed like a fatal fill (GoldenModel::qpc_write_failed).
  void on_write_fault_notice(uint32_t qpn);
  // Draw the dead pages still missing among the mapped QP-table pages (map_pages).
  void choose_dead_pages();
  bool directory_address(uint64_t addr) const {
    return addr >= kQptBase && addr < kQptBase + uint64_t{model_.config().dir_entries} * 8;
  }
  // The probes of this cycle (Dut::doorbell_done, Dut::fatal_fill): a doorbell goes into
  // the model once the QP cache has answered it, and a fill that made a QP fatal is
  // placed by the command placer where it landed among the QP's operations, commands and
  // doorbells (GoldenModel::qpc_read_failed runs there), so the model sees them all in
  // the RTL's order.
  void sample_probes();
  // Where a window of possible read errors starts for something accepted now: the
  // failed-read completions of kErrorReachCycles cycles ago (a fill that completed a
  // few cycles before a request arrived may still answer it).
  uint64_t error_mark() const;
  void on_response(const Response &rsp);
  void on_dp_response(const DpResponse &rsp);
  // An operation's answer went into the model: its tag may be used again.
  void release_tag(uint8_t tag);
  // The model ran a command (now or where the placer placed it): what it emitted goes to
  // the checkers, and a reset waiting behind it may now run.
  void after_command(const Command &cmd);
  void housekeeping();
  // The completions the model predicted since the last call, to the CQE checker.
  void take_model_cqes();
  void finish_csr_poll();
  void wait_csr();
  void wait_until(const std::function<bool()> &done, const char *what);

  static constexpr size_t kErrorReachCycles = 32;

  EnvOptions opt_;
  std::mt19937_64 rng_;
  std::mt19937_64 dp_rng_;
  std::mt19937_64 dead_rng_;  // the dead pages' choice
  Testbench tb_;
  GoldenModel model_;
  AxiMemory memory_;
  AxiLiteMaster csr_;
  Scoreboard scoreboard_;
  CommandDriver driver_;
  CommandMonitor cmd_monitor_;
  ResponseMonitor monitor_;
  EventChecker events_;
  CqeChecker cqes_;
  DpScoreboard dp_scoreboard_;
  ResetFence reset_fence_;
  CommandPlacer placer_;
  DoorbellTracker doorbells_;
  StreamDriver dp_driver_;
  StreamMonitor dp_monitor_;
  StreamSink dp_sink_;
  StreamDriver db_driver_;
  StreamMonitor db_monitor_;
  StreamSink eqe_sink_;
  StreamSink cqe_sink_;
  std::unique_ptr<TrapAgent> trap_agent_;  // under EVICT_POLICY = trap only
  StreamChecker streams_;
  Housekeeping housekeeping_;
  MemoryTraffic traffic_;
  FuncCoverage *coverage_ = nullptr;
  static FuncCoverage *suite_coverage_;
  std::deque<Pushed> pushed_;                        // commands queued or in flight
  std::unordered_map<uint32_t, size_t> cmd_qpns_;    // ... by QPN
  std::array<int64_t, 256> dp_tag_qpn_;              // QPN of the operation with a tag, -1
  std::array<DpRequest, 256> dp_tag_req_;            // ... and the operation itself
  DpListener dp_listener_;
  size_t dp_tags_in_use_ = 0;
  uint8_t next_tag_ = 0;
  std::unordered_map<uint32_t, size_t> dp_qpns_;     // datapath operations in flight by QPN
  std::deque<uint64_t> error_history_;               // failed-read completions, per cycle
  // Doorbells the port took and the front has not yet (in order), and the datapath
  // operations the front has taken: where a doorbell falls among its QPN's operations.
  std::deque<Doorbell> db_to_front_;
  std::unordered_set<uint64_t> qpc_read_faults_;     // QPC addresses read again after an error
  // QPN -> when its retried read landed, and whether the fill must make it fatal (no
  // command in flight could have changed it in the RTL and not yet in the model).
  struct FatalDue {
    uint64_t cycle = 0;
    bool certain = true;
  };
  std::unordered_map<uint32_t, FatalDue> fatal_due_;
  std::vector<std::string> fatal_problems_;
  // Write faults: per QPC address, writes answered with an error that no write-fault
  // notice has used yet (each given-up write-back failed at least once), and the
  // notices seen. Apart from the read path's qpc_read_faults_ and fatal_due_.
  std::unordered_map<uint64_t, uint64_t> qpc_write_failures_;
  uint64_t write_fault_notices_ = 0;
  uint64_t take_backs_ = 0;  // Dut::take_back
  std::vector<uint64_t> dead_pages_;               // host addresses, in the order drawn
  unsigned eq_fill_max_ = 0;                       // the EQ's fullest, sampled every cycle
  uint64_t qps_made_fatal_ = 0;                    // ... of which made their QP fatal
  uint64_t cqe_fifo_empty_cycles_ = 0;  // consecutive cycles with the CQE FIFO empty
  bool csr_poll_in_flight_ = false;
  Response user_response_, user_expected_;
  // Per accepted command, oldest first: the page to forget in the memory model once
  // the MAP/UNMAP that replaced it succeeds, and the page a MAP_PAGE made readable
  // that must be forgotten again if the MAP_PAGE is refused.
  struct PageChange {
    std::optional<uint64_t> unmap_on_ok, unmap_on_fail;
  };
  std::deque<PageChange> page_changes_;
};

}  // namespace qpm
