// One qpm_top with its golden model, memory model, CSR master, command driver, response
// monitor and scoreboard: what the simulator and every system-level test run on.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "axi_memory.h"
#include "axil_master.h"
#include "command_agent.h"
#include "golden_model.h"
#include "scoreboard.h"
#include "stream_checker.h"
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
constexpr uint32_t kCounters = 0x040;  // kCounterNames order, 4 bytes each
}  // namespace csr
extern const std::vector<const char *> kCounterNames;

// Where the harness puts the QP table in host memory.
constexpr uint64_t kQptBase = 0x10000000;
constexpr uint64_t kFirstPage = 0x200000000;  // page i of the initial mapping: + i * 4 KiB

struct EnvOptions {
  std::string config = "default";
  uint64_t seed = 1;
  std::string trace_path;           // FST file, empty for none
  double cmd_idle_prob = 0.0;       // chance of an idle cycle before a command
  double rsp_stall_prob = 0.0;      // chance rsp_ready is low in a cycle
  double csr_stall_prob = 0.0;      // AXI4-Lite master: delays of each valid and ready
  uint64_t timeout_cycles = 200000;  // per command
  bool map_all_pages = true;        // MAP_PAGE every directory entry below QPN_LIMIT at start
  uint32_t qpn_limit = 0;           // QPN_LIMIT to program (0: the configuration's, 4096)
  AxiMemoryOptions mem;
};

// Memory bursts by what they touched: the directory or a page of QPCs.
struct MemoryTraffic {
  uint64_t dir_reads = 0, qpc_reads = 0, dir_writes = 0, qpc_writes = 0;
  uint64_t dir_read_errors = 0, qpc_read_errors = 0, write_errors = 0;
  uint64_t dir_reads_unmapped = 0;             // walks that found the entry unmapped
  uint64_t maint_reads = 0, maint_read_errors = 0;  // MAP/UNMAP's entry and page reads
};

class QpmEnv {
 public:
  explicit QpmEnv(const EnvOptions &opt);

  // Drive one command and wait for its response (which the scoreboard checks).
  // Throws std::runtime_error when no response arrives within timeout_cycles.
  Response execute(const Command &cmd);
  // Run until every queued command has been answered.
  void drain();
  // Run n commands from next(), keeping `depth` commands queued or in flight so the
  // command unit always has the next one in its lookahead register (and prefetches it).
  // next() sees the model as of the last response, one or two commands behind.
  void run_stream(uint64_t n, const std::function<Command()> &next, unsigned depth = 2);
  void run_cycles(uint64_t n);
  // MAP_PAGE each of these directory entries (page i at kFirstPage + i * 4 KiB) that is
  // not mapped yet, with memory errors held off, as software's setup would.
  void map_pages(const std::vector<uint32_t> &dir_indexes);

  // CSR access over AXI4-Lite (blocking).
  uint32_t read_csr(uint32_t addr);
  void write_csr(uint32_t addr, uint32_t data, uint32_t strb = 0xf);
  // All event counters, in kCounterNames order, read over AXI4-Lite.
  std::vector<uint32_t> read_counters();

  // SYNC_CACHE, then compare host memory with the model: every QPC slot of every mapped
  // page (valid or not) and every directory entry. Adds memory-model and stream-protocol
  // violations, mismatches, RTL assertions and the counter cross-checks. Returns the
  // problems found (empty when clean).
  std::vector<std::string> final_check();
  // The CSR counters against what the memory model saw, exactly (docs/verification.md):
  // MEM_ERRORS = errors injected, WRITEBACKS = QPC write bursts, WALKS = MISSES,
  // directory reads = WALKS - DIR_HITS, QPC reads = WALKS - directory read errors -
  // walks that found the entry unmapped.
  std::vector<std::string> counter_check();
  const MemoryTraffic &traffic() const { return traffic_; }

  // Test backdoor: replace a QP's context in the RTL (cache line or memory) and in the
  // model alike, as the datapath would have left it (SQE, SQD while draining).
  void force_qpc(uint32_t qpn, const Qpc &q);

  GoldenModel &model() { return model_; }
  Scoreboard &scoreboard() { return scoreboard_; }
  const StreamChecker &streams() const { return streams_; }
  AxiLiteMaster &csr_master() { return csr_; }
  Testbench &tb() { return tb_; }
  AxiMemory &memory() { return memory_; }
  std::mt19937_64 &rng() { return rng_; }
  const EnvOptions &options() const { return opt_; }

 private:
  void on_accept(const Command &cmd);
  bool error_could_hit(const Command &cmd, uint64_t since) const;
  void on_response(const Response &rsp);
  void wait_csr();

  EnvOptions opt_;
  std::mt19937_64 rng_;
  Testbench tb_;
  GoldenModel model_;
  AxiMemory memory_;
  AxiLiteMaster csr_;
  Scoreboard scoreboard_;
  CommandDriver driver_;
  CommandMonitor cmd_monitor_;
  ResponseMonitor monitor_;
  StreamChecker streams_;
  MemoryTraffic traffic_;
  // Per accepted command, oldest first: the page to forget in the memory model once
  // the MAP/UNMAP that replaced it succeeds, and the page a MAP_PAGE made readable
  // that must be forgotten again if the MAP_PAGE is refused.
  struct PageChange {
    std::optional<uint64_t> unmap_on_ok, unmap_on_fail;
  };
  std::deque<PageChange> page_changes_;
};

}  // namespace qpm
