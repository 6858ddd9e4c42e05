// A randomized run of the whole subsystem, as qpm_sim does it: its options (shared by
// the CLI and the tests), the one-line command that replays it exactly, and the run.
//
// Every knob that changes a run is an option here and appears in replay_line(), so a
// test that prints the line hands the reader the very same run on the command line (a
// test checks that parsing the line back gives the same run, cycle for cycle).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "func_coverage.h"
#include "qpm_env.h"

namespace qpm {

struct SimOptions {
  uint64_t seed = 1;
  uint64_t cmds = 5000;
  uint32_t qps = 256;
  uint32_t qpn_limit = 4096;  // above 65536: QPNs in groups of 32 per page, pages mapped on use
  std::string config = "default";
  double illegal_rate = 0.2;
  double cmd_idle = 0.1;
  double rsp_stall = 0.1;
  double csr_stall = 0.0;
  std::string mem_latency = "20:60";
  bool mem_reorder = false;
  std::string evict_policy = "plru";  // plru, lru, random or trap (docs/eviction.md)
  uint32_t trap_latency = 20;          // trap: the agent's answer latency in cycles
  bool mem_interleave = false;
  bool mem_aw_waits_for_w = false;
  double mem_backpressure = 0.0;
  double mem_read_error_rate = 0.0;
  double mem_write_error_rate = 0.0;  // below 1: the RTL retries every failed write
  // Write faults (issue 27 item 3): QP-table pages whose every write fails for the whole
  // run (EnvOptions::mem_dead_pages), and WB_RETRY_BUDGET to program (-1: not written,
  // the hardware's 0: retry forever).
  uint32_t mem_dead_pages = 0;
  int32_t wb_retry_budget = -1;
  // Datapath traffic (docs/verification.md): the shares of datapath operations and of
  // doorbells among everything sent (commands are the rest; --cmds counts commands).
  // Both 0: a command-only run, the same run as before the datapath existed.
  double dp_rate = 0.0;
  double db_rate = 0.0;
  double dp_illegal_rate = 0.1;
  double dp_idle = 0.0;       // chance of an idle cycle before a datapath op or doorbell
  double dp_rsp_stall = 0.0;  // chance dp_rsp_ready is low in a cycle
  double eqe_stall = 0.0;     // chance eqe_ready is low in a cycle
  double cqe_stall = 0.0;     // chance cqe_ready is low in a cycle
  uint32_t eqe_hold = 0;      // cycles eqe_ready stays low after each EQE (the EQ fills)
  // Reset under stress (docs/reset.md): the chance that a command is a MODIFY_QP to
  // RESET or a DESTROY_QP of a QP with work in flight, sent beside its datapath
  // operations, with a DMA engine beginning and ending payload bursts.
  double reset_stress = 0.0;
  uint32_t reset_timeout = 0;  // RESET_TIMEOUT to program (0: the hardware's 4096)
  // What drives the datapath (docs/verification.md, "Transport traffic"): "random", the
  // random mix of operations and doorbells (the shares above), or "transport", connected
  // QP pairs run by a loopback transport model (tb/stim/transport.h) beside the random
  // commands, with a share of hostile operations from the random mix.
  std::string traffic = "random";
  // transport: connected QP pairs (at most --qps / 2). 0: as many as an eighth of the
  // cache's lines, 4 to 32 (default: 32; tiny: 4), so the pairs' QPs fit the cache.
  uint32_t pairs = 0;
  double hostile_rate = 0.05;   // transport: operations drawn from the random mix instead
  double loss = 0.002;          // transport: the fabric's faults, per packet
  double dup = 0.002;
  double reorder = 0.002;
  double peer_nak = 0.0003;     // transport: a peer answers a fatal NAK instead of an ACK
  double short_rq = 0.15;       // transport: QPs whose software posts receives late
  double bad_qkey = 0.01;       // transport: UD sends with a wrong Q_Key
  double access_fault = 0.05;   // transport: RC QPs brought up without a remote access flag
  double local_err = 0.001;     // transport: UC/UD READs posted
  // transport, pressure: chance per cycle of a doorbell (1 to 8 WQEs) on a QP in ERR or
  // SQE outside the pairs, so its flush is renewed while it runs (0: none).
  double flush_storm = 0.0;
  // transport: the chance that a free command slot goes to a command (QUERY, MODIFY
  // RTS -> RTS, PIN/UNPIN) to a running pair's QP beside its traffic (0: none); these
  // come on top of --cmds.
  double meet_rate = 0.1;
};
// qpm_sim's defaults where they differ from SimOptions{} (which the tests use): a mix of
// commands, datapath operations and doorbells with back-pressure on every stream.
SimOptions qpm_sim_defaults();

// Registers every option of a random run on app (the names of README's qpm_sim table).
void add_sim_options(CLI::App &app, SimOptions &o);
// A QPN_LIMIT above 65536: the run maps only the pages its QPNs use, 32 QPNs a page.
bool large_qpn_space(const SimOptions &o);
// "MIN" or "MIN:MAX" cycles, MIN <= MAX <= 100000.
bool parse_latency(const std::string &text, uint32_t *lo, uint32_t *hi);
// The exact command line of the run; program is what to call qpm_sim by.
std::string replay_line(const SimOptions &o, const std::string &program = "build/qpm_sim");
// Throws std::invalid_argument for a malformed --mem-latency, and for more
// --mem-dead-pages than the run maps pages (when it maps every page at start).
EnvOptions env_options(const SimOptions &o);

struct SimResult {
  uint64_t cycles = 0;
  double seconds = 0.0;
  std::vector<std::string> problems;  // final_check(): empty when clean
  std::vector<uint32_t> counters;     // kCounterNames order
  // --reset-stress: the DMA engine's bursts begun, ended (DMA_END sent), never ended.
  uint64_t dma_begun = 0, dma_ended = 0, dma_never = 0;
  // --traffic transport: what the transport model did (TransportModel::Stats).
  bool transport = false;
  uint64_t tp_pairs = 0, tp_wqes_posted = 0, tp_wqes_issued = 0, tp_packets = 0, tp_lost = 0,
           tp_duplicated = 0, tp_reordered = 0, tp_retransmits = 0, tp_acks = 0,
           tp_recoveries = 0, tp_dmas = 0, tp_stress_resets = 0, tp_reads_issued = 0,
           tp_atomics_issued = 0, tp_reads_acked = 0, tp_sq_drains = 0;
  // --meet-rate: commands sent beside their QP's traffic, and the commands that met
  // operations of their QP (the answers of one came first and the other waited).
  uint64_t tp_side_commands = 0, tp_side_met = 0;
  FuncCoverage coverage;
};

// A reset beside traffic (--reset-stress): DESTROY_QP of qpn, or MODIFY_QP to RESET.
Command stress_reset_command(uint32_t qpn, bool destroy);

// Runs o.cmds random commands on env (built from env_options(o)), then the final check.
SimResult run_random(const SimOptions &o, QpmEnv &env);

}  // namespace qpm
