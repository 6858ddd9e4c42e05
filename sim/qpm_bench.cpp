// qpm_bench: the datapath benchmark of SPEC.md §11 (issue 6). Not a test: it measures.
//
// Each workload sets up QPs through commands (RC, brought to RTS by the legal path),
// warms the cache where it says so, then drives datapath operations as fast as the
// datapath port takes them and counts cycles: operations per cycle, the latency of each
// operation from its handshake on dp_req to its handshake on dp_rsp (p50, p99), and for
// cmd-under-load the longest a command waited. flush-neighbours measures the healthy
// QPs' rate while 16 other QPs flush full queues (SPEC §7: a flush never slows another
// QP), with 20% of the port's cycles idle so the flush has spare cycles to use, and
// flush-neighbours-baseline the same traffic without the flushes; both count cycles up
// to the last datapath answer, and cqes says how many completions left meanwhile.
// eq-storm (issue 8, docs/events.md) is not a datapath workload: PORT_FAULT on a port
// with 4096 QPs in RTS, their 4097 events (PORT_ERR, then a QP_FATAL each) drained
// through the 16-entry EQ by a consumer that takes one EQE every K cycles, while a few
// healthy QPs on the other port carry datapath traffic; it prints one line of its own
// (see run_eq_storm):
//   eq-storm: qps=4096 eq_depth=16 delivered=N duplicates=N lost=N max_pending_bits=N
//     longest_wait=N healthy_ops_per_cycle=X eq_high_water=N baseline_ops_per_cycle=X
// and a CSV row in the common columns: active_qps the healthy QPs, ops and cycles their
// answers and the window from the fault to the last EQE, cmd_delay_max the PORT_FAULT's
// own time to its answer (its scan).
// Every answer is still checked against
// the golden model (QpmEnv's scoreboard): a mismatch makes the run fail, so a number is
// never printed for a wrong design.
//
// miss-under-stream (issue 27) runs a full-rate stream to one line of a set whose other
// ways are pinned, with an operation to another QPN of that set (a miss that can only
// take the streamed line's way) every 500 operations, memory 100 cycles; miss_wait_max
// is the longest one of those misses took, from its handshake to its answer (0 in the
// other rows). The streamed QP's own operations then miss too (the miss took its way)
// and wait for two fills in a row; p99 shows that.
//
// sync-under-load (issue 27) pushes SYNC_CACHE with every line of the cache dirty while
// the datapath runs at full rate on 64 of those QPs; its row covers the SYNC's window
// (push to answer): the operations answered in it, and the window as cmd_delay_max.
//
//   qpm_bench [--workload all|hit-distinct|hit-same|mixed|cmd-under-load|
//              flush-neighbours|flush-neighbours-baseline|miss-under-stream|
//              sync-under-load|eq-storm]
//             [--ops N]
//             [--config default|tiny] [--mem-latency N] [--eqe-every K]
//             [--storm-dp-idle P] [--csv FILE]
//
// Prints a table and writes CSV with the columns
//   workload,config,active_qps,mem_latency,ops,cycles,ops_per_cycle,p50_latency,
//   p99_latency,cmd_delay_max,cqes,miss_wait_max
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "bench_common.h"
#include "bench_scale.h"
#include "builders.h"
#include "datapath.h"
#include "port_codec.h"
#include "qpm_env.h"

namespace qpm {
namespace {

struct Row {
  std::string workload, config;
  uint32_t active_qps = 0, mem_latency = 0;
  uint64_t ops = 0, cycles = 0;
  double ops_per_cycle = 0;
  uint64_t p50 = 0, p99 = 0, cmd_delay_max = 0;
  uint64_t cqes = 0;  // completions that left the CQE port while the datapath ran
  uint64_t miss_wait_max = 0;  // the longest a watched miss took (miss-under-stream)
};

using bench::bring_up;
using bench::kFirstQpn;
using bench::write_only;

// Times each operation from its handshake on dp_req to its answer on dp_rsp, per QPN in
// order (answers of one QPN come back in request order).
class LatencyProbe : public TbExtension {
 public:
  explicit LatencyProbe(QpmEnv &env) : env_(env) {}
  void before_edge(Dut &dut) override {
    if (dut.dp_req_valid() && dut.dp_req_ready()) {
      accepted_[decode_dp_request(dut.dp_req()).qpn].push_back(env_.tb().cycles());
    }
    if (dut.dp_rsp_valid() && dut.dp_rsp_ready()) {
      auto &q = accepted_[decode_dp_response(dut.dp_rsp()).qpn];
      if (!q.empty()) {
        latencies_.push_back(env_.tb().cycles() - q.front());
        if (watched_.count(decode_dp_response(dut.dp_rsp()).qpn)) {
          watched_max_ = std::max(watched_max_, latencies_.back());
        }
        q.pop_front();
      }
    }
  }
  void after_edge(Dut &) override {}
  void reset() {
    latencies_.clear();
    watched_max_ = 0;
  }
  // The longest latency of an operation to one of these QPNs (miss_wait_max).
  void watch(const std::set<uint32_t> &qpns) { watched_ = qpns; }
  uint64_t watched_max() const { return watched_max_; }
  size_t answers() const { return latencies_.size(); }  // since reset()
  uint64_t percentile(double p) {
    if (latencies_.empty()) return 0;
    std::sort(latencies_.begin(), latencies_.end());
    const size_t i = std::min(latencies_.size() - 1, static_cast<size_t>(p * latencies_.size()));
    return latencies_[i];
  }

 private:
  QpmEnv &env_;
  std::map<uint32_t, std::deque<uint64_t>> accepted_;
  std::vector<uint64_t> latencies_;
  std::set<uint32_t> watched_;
  uint64_t watched_max_ = 0;
};

struct Setup {
  std::string config;
  uint32_t mem_latency;
  uint64_t seed;
  double dp_idle = 0.0;  // chance of an idle cycle before each datapath operation
};

EnvOptions env_options(const Setup &s, uint32_t qpn_limit) {
  EnvOptions o;
  o.dp_idle_prob = s.dp_idle;
  o.config = s.config;
  o.seed = s.seed;
  o.qpn_limit = qpn_limit;
  o.mem.latency_min = s.mem_latency;
  o.mem.latency_max = s.mem_latency;
  return o;
}

void require_clean(QpmEnv &env, const std::string &what) {
  const auto problems = env.final_check();
  if (!problems.empty()) {
    throw std::runtime_error(fmt::format("qpm_bench: {}: {} (and {} more)", what,
                                         problems.front(), problems.size() - 1));
  }
}

// Drives `ops` operations over `qpns` (round robin, or random when `random`), keeping
// the datapath port busy every cycle; optionally a QUERY_QP every `cmd_every` cycles on
// `cmd_qpn`. Returns the row.
Row drive(QpmEnv &env, LatencyProbe &probe, const std::string &name, const Setup &s,
          const std::vector<uint32_t> &qpns, uint64_t ops, bool random, uint32_t cmd_every,
          uint32_t cmd_qpn) {
  std::map<uint32_t, uint32_t> psn;
  for (uint32_t q : qpns) psn[q] = env.model().qpc(q).expected_psn;
  std::mt19937_64 rng(s.seed);
  probe.reset();
  const uint64_t start = env.tb().cycles();
  const uint64_t cqes_before = env.cqes().delivered();
  uint64_t pushed = 0, cmd_delay_max = 0, cmd_pushed_at = 0, dp_done = 0, cqes = 0;
  bool cmd_waiting = false;
  while (pushed < ops || !env.idle()) {
    if (!dp_done && pushed == ops && env.dp_queued() == 0 && env.dp_in_flight() == 0) {
      dp_done = env.tb().cycles();
      cqes = env.cqes().delivered() - cqes_before;
    }
    // Keep a few operations queued so the driver offers one every cycle.
    while (pushed < ops && env.dp_queued() < 4 && env.dp_in_flight() < 200) {
      const uint32_t q = random ? qpns[rng() % qpns.size()] : qpns[pushed % qpns.size()];
      env.push_dp(write_only(q, psn[q]++));
      ++pushed;
    }
    if (cmd_every && pushed < ops) {
      if (cmd_waiting && env.commands_in_flight() == 0) {
        cmd_delay_max = std::max(cmd_delay_max, env.tb().cycles() - cmd_pushed_at);
        cmd_waiting = false;
      }
      if (!cmd_waiting && (env.tb().cycles() - start) % cmd_every == 0) {
        Command c;
        c.op = Opcode::QueryQp;
        c.qpn = cmd_qpn;
        env.push_command(c);
        cmd_pushed_at = env.tb().cycles();
        cmd_waiting = true;
      }
    }
    env.run_cycles(1);
  }
  Row r;
  r.workload = name;
  r.config = s.config;
  r.active_qps = static_cast<uint32_t>(qpns.size());
  r.mem_latency = s.mem_latency;
  r.ops = ops;
  // Up to the last datapath answer (a flush may go on after it).
  if (!dp_done) {
    dp_done = env.tb().cycles();
    cqes = env.cqes().delivered() - cqes_before;
  }
  r.cycles = dp_done - start;
  r.cqes = cqes;
  r.ops_per_cycle = static_cast<double>(ops) / static_cast<double>(r.cycles);
  r.p50 = probe.percentile(0.50);
  r.p99 = probe.percentile(0.99);
  r.cmd_delay_max = cmd_delay_max;
  r.miss_wait_max = probe.watched_max();
  return r;
}

// miss-under-stream (issue 27 item 1): one set of the default cache (64 sets of 4 ways)
// holds three pinned QPs and a hot one; the port carries the hot QP's read-modify-writes
// every cycle, and every kStreamEvery-th operation goes to one of kColdQps other QPs of
// that set instead, a miss whose only possible victim is the streamed line.
constexpr uint32_t kCacheSets = 64, kColdQps = 16, kStreamEvery = 500;

Row run_workload(const std::string &name, const Setup &s, uint64_t ops) {
  const bool mixed = name == "mixed";
  const bool flush = name.rfind("flush-neighbours", 0) == 0;
  const bool stream = name == "miss-under-stream";
  const uint32_t n_qps = name == "hit-same" ? 1 : mixed ? 2048 : 64;
  QpmEnv env(env_options(s, mixed ? 4096 : 4096));
  LatencyProbe probe(env);
  env.tb().add(&probe);
  std::vector<uint32_t> qpns;
  if (stream) {
    const uint32_t hot = kFirstQpn;
    for (uint32_t k = 1; k <= 3 + kColdQps; ++k) bring_up(env, hot + k * kCacheSets);
    bring_up(env, hot);
    for (uint32_t k = 1; k <= 3; ++k) {
      if (env.execute(builders::pin_cmd(hot + k * kCacheSets)).status != Status::Ok) {
        throw std::runtime_error("qpm_bench: miss-under-stream: PIN_QP failed");
      }
    }
    std::set<uint32_t> cold;
    for (uint32_t c = 0; c < kColdQps; ++c) {
      qpns.push_back(hot + (4 + c) * kCacheSets);
      qpns.insert(qpns.end(), kStreamEvery - 1, hot);
      cold.insert(qpns[c * kStreamEvery]);
    }
    probe.watch(cold);
  } else {
    for (uint32_t i = 0; i < n_qps; ++i) qpns.push_back(kFirstQpn + i);
    for (uint32_t q : qpns) bring_up(env, q);
  }
  const uint32_t cmd_qpn = kFirstQpn + n_qps;  // never touched by the datapath
  if (name == "cmd-under-load") bring_up(env, cmd_qpn);
  // flush-neighbours: 16 more QPs with full queues (64 send, 32 receive WQEs), moved to
  // ERR as the measurement starts; the baseline sets them up the same and leaves them.
  std::vector<uint32_t> sick;
  if (flush) {
    for (uint32_t i = 0; i < 16; ++i) sick.push_back(cmd_qpn + 1 + i);
    for (uint32_t q : sick) {
      bring_up(env, q);
      if (!env.ring(builders::sq_db(q, 64)) || !env.ring(builders::rq_db(q, 32))) {
        throw std::runtime_error("qpm_bench: flush-neighbours: a doorbell was refused");
      }
    }
  }
  // Warm up: every QP's context is cached once (for mixed it does not fit anyway).
  drive(env, probe, name, s, qpns, stream ? kStreamEvery : qpns.size(), false, 0, 0);
  if (name == "flush-neighbours") {
    for (uint32_t q : sick) {
      env.push_command(builders::modify_cmd(q, attr::kState, static_cast<uint32_t>(QpState::Err),
                                            builders::valid_attributes()));
    }
  }
  Row r = drive(env, probe, name, s, qpns, ops, mixed, name == "cmd-under-load" ? 50 : 0,
                cmd_qpn);
  if (stream) r.active_qps = 1 + kColdQps;
  require_clean(env, name);
  return r;
}

// sync-under-load (issue 27 item 2): 256 QPs brought up by commands, so every line of
// the default cache (64 sets of 4 ways) holds one and is dirty; the datapath carries
// read-modify-writes to 64 of them every cycle; then SYNC_CACHE is pushed, and the row
// measures the window from its push to its answer: the operations answered in it (ops,
// cycles, ops_per_cycle) and its length (cmd_delay_max). Memory 100 cycles. Targets
// (issue 27): ops_per_cycle at least 0.5, cmd_delay_max at most 256 x 64 B / 32 B per
// cycle x 2 + 4 x 100 = 1,424.
constexpr uint32_t kSyncQps = 256, kSyncStreamQps = 64;
constexpr uint64_t kSyncMaxCycles = 10000000;

Row run_sync_under_load(const Setup &s) {
  QpmEnv env(env_options(s, 4096));
  LatencyProbe probe(env);
  env.tb().add(&probe);
  std::vector<uint32_t> stream;
  for (uint32_t i = 0; i < kSyncQps; ++i) bring_up(env, kFirstQpn + i);
  for (uint32_t i = 0; i < kSyncStreamQps; ++i) stream.push_back(kFirstQpn + i);
  drive(env, probe, "sync-under-load", s, stream, stream.size(), false, 0, 0);  // warm
  std::map<uint32_t, uint32_t> psn;
  for (uint32_t q : stream) psn[q] = env.model().qpc(q).expected_psn;
  const uint64_t wb_before = env.read_counters()[counter_index("writebacks")];
  auto feed = [&](uint64_t &pushed) {
    while (env.dp_queued() < 4 && env.dp_in_flight() < 200) {
      const uint32_t q = stream[pushed++ % stream.size()];
      env.push_dp(write_only(q, psn[q]++));
    }
  };
  uint64_t pushed = 0;
  for (int i = 0; i < 64; ++i) {  // the port busy before the SYNC arrives
    feed(pushed);
    env.run_cycles(1);
  }
  probe.reset();
  Command sync;
  sync.op = Opcode::SyncCache;
  env.push_command(sync);
  const uint64_t start = env.tb().cycles();
  while (env.commands_in_flight() > 0) {
    if (env.tb().cycles() - start > kSyncMaxCycles) {
      throw std::runtime_error("qpm_bench: sync-under-load: SYNC_CACHE did not answer");
    }
    feed(pushed);
    env.run_cycles(1);
  }
  Row r;
  r.workload = "sync-under-load";
  r.config = s.config;
  r.active_qps = kSyncStreamQps;
  r.mem_latency = s.mem_latency;
  r.cycles = env.tb().cycles() - start;
  r.ops = probe.answers();
  r.ops_per_cycle = static_cast<double>(r.ops) / static_cast<double>(r.cycles);
  r.p50 = probe.percentile(0.50);
  r.p99 = probe.percentile(0.99);
  r.cmd_delay_max = r.cycles;
  while (!env.idle()) env.run_cycles(1);
  if (env.read_counters()[counter_index("writebacks")] - wb_before < kSyncQps) {
    throw std::runtime_error("qpm_bench: sync-under-load: fewer write-backs than dirty lines");
  }
  require_clean(env, "sync-under-load");
  return r;
}

// ---------------------------------------------------------------------------------
// eq-storm (issue 8): PORT_FAULT on 4096 QPs through a 16-entry EQ and a slow consumer.

constexpr uint32_t kStormQps = 4096;
constexpr uint32_t kStormFirstQpn = 2;       // the faulting QPs: QPNs 2 .. 4097
constexpr uint32_t kStormQpnLimit = 8192;    // QPN_LIMIT programmed: above 4097 (a power of
                                             // two pages; the fault's scan reads all 8192)
constexpr uint32_t kStormPort = 2;
constexpr uint32_t kHealthyPort = 1;
constexpr uint32_t kHealthyQps = 8;
constexpr uint32_t kHealthyFirstQpn = 0x1800;  // on port 1, never touched by the fault
constexpr uint32_t kEqDepth = 16;              // qpm_top's EqDepth (both configurations)
constexpr uint64_t kBaselineCycles = 4096;     // healthy traffic measured before the fault
constexpr uint64_t kQuietCycles = 200000;      // no EQE this long after the fault's answer:
                                               // the rest counts as lost
constexpr uint64_t kSettleCycles = 5000000;    // the engines' work after the last EQE

// The most on-chip state that holds pending events, in bits: a structural bound from
// the RTL parameters, not a measurement. A pending event lives in its QP's QPC
// (ev_pending bits, in host memory or the QP cache, which do not grow with the number of
// QPs raising events); on chip it is at most in
//   - the EQ FIFO (qpm_dp_front u_eq_fifo): EqDepth x eqe_t, eqe_t = is_port 1 + qpn
//     QpnW 24 + event_type 5 + syndrome 8 = 38 bits;
//   - each of the two qpm_flush_engine instances that find QPs with events pending (the
//     flush engine, FlushSlots = 4 slots, and the fatal engine, 2 slots, each with one
//     more, the wait slot of a command's QP): per slot qpn_q 24 +
//     valid_q/busy_q/renew_q 3; the overflow summary ovf_q, Groups = 256 bits; the scan
//     registers scan_on_q 1 + group_q 8 + cursor_q (the page within the group, QpnW - 8
//     - 6 + 1 = 11) + in_page_q 6 + scan_inflight_q 2 + group_ptr_q 8 = 36.
// Not counted: the engines' input and offer registers (one cycle's copies of a request,
// an answer or a slot's QPN, not state of their own), the front's 8-bit EQ reservation
// count, and PORT_ERR, which is built from the command register while PORT_FAULT runs.
namespace pending_bits {
constexpr uint64_t kQpnW = 24;
constexpr uint64_t kEqe = 1 + kQpnW + 5 + 8;
static_assert(kEqe == kEqeBits, "eqe_t width (port_codec.h)");
constexpr uint64_t kGroups = 256, kGroupW = 8;
constexpr uint64_t kPageBits = 6;
constexpr uint64_t kScan = 1 + kGroupW + (kQpnW - kGroupW - kPageBits + 1) + kPageBits + 2 + kGroupW;
constexpr uint64_t engine(uint64_t slots) { return slots * (kQpnW + 3) + kGroups + kScan; }
constexpr uint64_t kFlushSlots = 4 + 1, kFatalSlots = 2 + 1;  // and the wait slot
constexpr uint64_t kMax = kEqDepth * kEqe + engine(kFlushSlots) + engine(kFatalSlots);
static_assert(kMax == 608 + 427 + 373, "the documented bound");
}  // namespace pending_bits

// The EQ consumer of eq-storm, deterministic: after it takes an EQE it holds the EQE
// sink (eqe_ready low) for K-1 cycles, then raises eqe_ready until it takes the next
// one. So it takes one EQE every K cycles while the EQ has one (never two within K
// cycles); EnvOptions::eqe_stall_prob stays 0. Until arm() the sink takes every EQE.
// It also stamps each EQE taken and each datapath response with the edge it crossed at.
class StormProbe : public TbExtension {
 public:
  struct Arrival {
    Event event;
    uint64_t cycle;
  };
  StormProbe(QpmEnv &env, uint32_t k) : env_(env), k_(k) {}
  void arm() {
    armed_ = true;
    next_take_ = 0;
  }
  void before_edge(Dut &dut) override {
    const uint64_t now = env_.tb().cycles();
    if (dut.dp_rsp_valid() && dut.dp_rsp_ready()) dp_rsps_.push_back(now);
    if (!armed_) return;
    if (dut.eqe_valid() && dut.eqe_ready()) {
      arrivals_.push_back({decode_event(dut.eqe()), now});
      next_take_ = now + k_;
      env_.eqe_sink().hold(k_ > 1);  // ready low from the next edge on
    } else if (now + 1 >= next_take_) {
      env_.eqe_sink().hold(false);   // ready high at edge next_take_ and after
    }
  }
  void after_edge(Dut &) override {}
  const std::vector<Arrival> &arrivals() const { return arrivals_; }
  // Datapath responses at edges first .. last.
  uint64_t dp_responses(uint64_t first, uint64_t last) const {
    return static_cast<uint64_t>(std::count_if(dp_rsps_.begin(), dp_rsps_.end(),
                                               [&](uint64_t c) { return c >= first && c <= last; }));
  }

 private:
  QpmEnv &env_;
  uint32_t k_;
  bool armed_ = false;
  uint64_t next_take_ = 0;
  std::vector<Arrival> arrivals_;
  std::vector<uint64_t> dp_rsps_;
};

// CREATE_QP and the walk to RTS of qpn as an RC QP on `port`.
void add_bring_up(std::vector<Command> &out, uint32_t qpn, uint32_t port) {
  const uint32_t rc = static_cast<uint32_t>(QpType::RC);
  Command attrs = builders::valid_attributes();
  attrs.port_num = port;
  out.push_back(builders::create_cmd(qpn, rc));
  for (const Command &c : builders::walk_cmds(qpn, rc, QpState::Rts, attrs)) out.push_back(c);
}

Row run_eq_storm(const Setup &s, uint32_t k) {
  QpmEnv env(env_options(s, kStormQpnLimit));
  LatencyProbe latency(env);
  StormProbe probe(env, k);
  env.tb().add(&latency);
  env.tb().add(&probe);

  // Setup: 4096 QPs on port 2 and the healthy ones on port 1, all RC in RTS, the
  // commands streamed back to back (each answer checked against the model).
  std::vector<Command> setup;
  std::vector<uint32_t> healthy;
  for (uint32_t i = 0; i < kStormQps; ++i) add_bring_up(setup, kStormFirstQpn + i, kStormPort);
  for (uint32_t i = 0; i < kHealthyQps; ++i) {
    healthy.push_back(kHealthyFirstQpn + i);
    add_bring_up(setup, healthy.back(), kHealthyPort);
  }
  size_t next = 0;
  env.run_stream(setup.size(), [&] { return setup[next++]; }, 4);
  env.drain();
  for (uint32_t i = 0; i < kStormQps; ++i) {
    const Qpc &q = env.model().qpc(kStormFirstQpn + i);
    if (q.state != static_cast<uint32_t>(QpState::Rts) || q.port != kStormPort) {
      throw std::runtime_error(fmt::format("qpm_bench: eq-storm: QP {:#x} not in RTS on port {}",
                                           kStormFirstQpn + i, kStormPort));
    }
  }
  if (env.scoreboard().mismatches() != 0) {
    throw std::runtime_error("qpm_bench: eq-storm: a setup command was answered wrongly");
  }

  // Healthy traffic: WRITE ONLY at the expected PSN, round robin, with an idle cycle
  // before each operation with probability --storm-dp-idle (0.2 by default, as
  // flush-neighbours: the engines' steps take only the pipeline's spare cycles, and
  // with an operation offered every cycle the fault's QP_FATALs starve; docs/events.md).
  std::map<uint32_t, uint32_t> psn;
  for (uint32_t q : healthy) psn[q] = env.model().qpc(q).expected_psn;
  uint64_t pushed = 0;
  auto top_up = [&] {
    while (env.dp_queued() < 4 && env.dp_in_flight() < 200) {
      const uint32_t q = healthy[pushed++ % healthy.size()];
      env.push_dp(write_only(q, psn[q]++));
    }
  };
  // Warm the healthy QPs' contexts, then their rate without a storm (the extra field
  // baseline_ops_per_cycle, to compare healthy_ops_per_cycle with).
  for (uint32_t q : healthy) env.push_dp(write_only(q, psn[q]++));
  env.drain();
  const uint64_t base_from = env.tb().cycles();
  while (env.tb().cycles() < base_from + kBaselineCycles) {
    top_up();
    env.run_cycles(1);
  }
  const uint64_t base_to = env.tb().cycles() - 1;
  env.events().take_arrivals();

  // The storm. The QP_FATALs' raise time is not visible at the pins: every event of the
  // fault counts as raised when the PORT_FAULT command is pushed (the cycle before its
  // handshake at the earliest), so longest_wait is an upper bound of each event's wait.
  // The window of healthy_ops_per_cycle runs from that cycle to the last EQE's edge.
  // It ends when every event the model raised has arrived, or when none arrived for
  // kQuietCycles after the fault's answer (what is missing then counts as lost).
  probe.arm();
  latency.reset();
  const uint64_t fault_at = env.tb().cycles();
  const uint64_t cqes_before = env.cqes().delivered();
  Command fault;
  fault.op = Opcode::PortFault;
  fault.port_num = kStormPort;
  env.push_command(fault);
  uint64_t fault_answered = 0;
  const size_t expected = kStormQps + 1;
  for (;;) {
    top_up();
    env.run_cycles(1);
    const uint64_t now = env.tb().cycles();
    if (!fault_answered && env.commands_in_flight() == 0) fault_answered = now;
    if (fault_answered && probe.arrivals().size() >= expected && env.events().outstanding() == 0) break;
    const uint64_t last = probe.arrivals().empty() ? fault_answered : probe.arrivals().back().cycle;
    if (fault_answered && now > std::max(last, fault_answered) + kQuietCycles) break;
    if (env.tb().assertion_failed()) break;
  }
  // What arrived in the window; EQEs taken later (an incomplete run's stragglers while
  // the CSR counters are read) do not count.
  const std::vector<StormProbe::Arrival> got = probe.arrivals();
  const uint64_t gave_up = env.tb().cycles();
  const uint64_t storm_end = got.empty() ? env.tb().cycles() : got.back().cycle;
  const uint64_t p50 = latency.percentile(0.50), p99 = latency.percentile(0.99);
  const uint64_t cqes = env.cqes().delivered() - cqes_before;

  // Everything taken, counted: duplicates per (QP or port, type), QPs without their
  // QP_FATAL and a missing PORT_ERR.
  std::map<std::tuple<bool, uint32_t, EventType>, uint32_t> seen;
  uint64_t longest_wait = 0;
  for (const auto &a : got) {
    ++seen[{a.event.is_port, a.event.qpn, a.event.type}];
    longest_wait = std::max(longest_wait, a.cycle - fault_at);
  }
  uint64_t duplicates = 0;
  for (const auto &[key, n] : seen) duplicates += n - 1;
  uint64_t lost = seen.count({true, kStormPort, EventType::PortErr}) ? 0 : 1;
  for (uint32_t i = 0; i < kStormQps; ++i) {  // every one of them was in RTS on the port
    if (!seen.count({false, kStormFirstQpn + i, EventType::QpFatal})) ++lost;
  }
  // The last EQE is not the end of the work: the flush engine still steps every QP the
  // fault moved to ERR (with nothing to complete here), most of them through its
  // overflow scan, which answers nothing and raises nothing meanwhile; drain()'s
  // no-progress timeout would take that for a hang, so wait for it here first.
  const bool complete = env.events().outstanding() == 0;
  uint64_t settle = 0;
  if (complete) {
    while (env.tb().dut().flush_busy() || env.dp_in_flight() || env.dp_queued()) {
      if (++settle > kSettleCycles) {
        throw std::runtime_error(fmt::format(
            "qpm_bench: eq-storm: the engines still busy {} cycles after the last EQE", settle));
      }
      env.run_cycles(1);
    }
    env.drain();
  }
  const std::vector<uint32_t> counters = env.read_counters();
  const uint32_t high_water = counters[counter_index("eq_high_water")];
  const uint64_t window = storm_end - fault_at;
  const uint64_t healthy_ops = probe.dp_responses(fault_at, storm_end);
  const double rate = window ? static_cast<double>(healthy_ops) / static_cast<double>(window) : 0.0;
  const double base_rate = static_cast<double>(probe.dp_responses(base_from, base_to)) /
                           static_cast<double>(kBaselineCycles);
  fmt::print("eq-storm: qps={} eq_depth={} delivered={} duplicates={} lost={} max_pending_bits={} "
             "longest_wait={} healthy_ops_per_cycle={:.3f} eq_high_water={} "
             "baseline_ops_per_cycle={:.3f}\n",
             kStormQps, kEqDepth, got.size(), duplicates, lost, pending_bits::kMax,
             longest_wait, rate, high_water, base_rate);
  std::fflush(stdout);
  if (!complete || lost || duplicates || got.size() != expected) {
    throw std::runtime_error(fmt::format(
        "qpm_bench: eq-storm: {} events delivered, {} lost, {} duplicated (expected {}) by "
        "{} cycles after the fault ({} after its answer); {} missing",
        got.size(), lost, duplicates, expected, gave_up - fault_at, gave_up - fault_answered,
        expected - std::min(expected, got.size())));
  }
  for (const auto &[name, want] : {std::pair<const char *, uint32_t>{"ev_port_err", 1},
                                   {"ev_qp_fatal", kStormQps},
                                   {"pf_qps_moved", kStormQps}}) {
    if (counters[counter_index(name)] != want) {
      throw std::runtime_error(fmt::format("qpm_bench: eq-storm: counter {} = {}, expected {}",
                                           name, counters[counter_index(name)], want));
    }
  }
  require_clean(env, "eq-storm");

  Row r;
  r.workload = "eq-storm";
  r.config = s.config;
  r.active_qps = kHealthyQps;  // the QPs with datapath traffic
  r.mem_latency = s.mem_latency;
  r.ops = healthy_ops;         // healthy answers from the fault to the last EQE
  r.cycles = window;
  r.ops_per_cycle = rate;
  r.p50 = p50;
  r.p99 = p99;
  r.cmd_delay_max = fault_answered - fault_at;  // PORT_FAULT: push to answer (its scan)
  r.cqes = cqes;
  return r;
}

}  // namespace
}  // namespace qpm

int main(int argc, char **argv) {
  using namespace qpm;
  CLI::App app{"qpm_bench: datapath operations per cycle, latency and command delay"};
  std::vector<std::string> workload{"all"};
  std::string config = "default", csv = "build/bench/bench.csv";
  uint64_t ops = 20000, seed = 1;
  uint32_t mem_latency = 200;
  app.add_option("--workload", workload,
                 "hit-distinct, hit-same, mixed, cmd-under-load, flush-neighbours, "
                 "flush-neighbours-baseline, miss-under-stream, sync-under-load, eq-storm or "
                 "all; one or more")
      ->check(CLI::IsMember({"all", "hit-distinct", "hit-same", "mixed", "cmd-under-load",
                             "flush-neighbours", "flush-neighbours-baseline",
                             "miss-under-stream", "sync-under-load", "eq-storm"}));
  app.add_option("--ops", ops, "operations measured per workload")->check(CLI::Range(1, 10000000));
  app.add_option("--config", config, "RTL configuration")->check(CLI::IsMember({"default", "tiny", "large"}));
  app.add_option("--mem-latency", mem_latency, "memory latency in cycles (mixed)")
      ->check(CLI::Range(1, 10000));
  app.add_option("--seed", seed, "random seed (mixed's QPN choice)");
  uint32_t eqe_every = 8;
  double storm_idle = 0.2;
  app.add_option("--eqe-every", eqe_every, "eq-storm: the consumer takes one EQE every K cycles (at most)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--storm-dp-idle", storm_idle,
                 "eq-storm: chance of an idle cycle before each healthy datapath operation")
      ->check(CLI::Range(0.0, 0.99));
  app.add_option("--csv", csv, "CSV output file");
  bool scale = false;
  bench::ScaleOptions so;
  app.add_flag("--scale", scale,
               "the scalability sweep instead (issue 11): hit rate and ops/cycle against "
               "active QPs, memory latency, policy and workload; CSV to --csv "
               "(default build/bench/scale.csv)");
  app.add_option("--scale-qps", so.active_qps, "--scale: active-QP counts")
      ->check(CLI::Range(1u, 65536u))->delimiter(',');
  app.add_option("--scale-latency", so.mem_latencies, "--scale: memory latencies in cycles")
      ->check(CLI::Range(1u, 10000u))->delimiter(',');
  app.add_option("--scale-policies", so.policies, "--scale: policies")
      ->check(CLI::IsMember({"plru", "lru", "random", "trap"}))->delimiter(',');
  app.add_option("--scale-trap-latency", so.trap_latency,
                 "--scale: the trap agent's answer latency in cycles")
      ->check(CLI::Range(0u, 100000u));
  app.add_option("--scale-ops", so.ops,
                 "--scale: measured operations per point (at least 100: the rate is taken "
                 "over the last three quarters, and a shorter window measures how far the "
                 "port runs ahead of the answers, not the rate)")
      ->check(CLI::Range(100, 1000000));
  CLI11_PARSE(app, argc, argv);
  if (scale) {
    so.config = config;
    so.seed = seed;
    if (app.count("--csv")) so.csv = csv;
    try {
      bench::run_scale(so);
    } catch (const std::exception &e) {
      std::fprintf(stderr, "%s\n", e.what());
      return 1;
    }
    return 0;
  }

  const std::vector<std::string> all = {"hit-distinct",     "hit-same",
                                        "mixed",            "cmd-under-load",
                                        "flush-neighbours", "flush-neighbours-baseline",
                                        "miss-under-stream", "sync-under-load",
                                        "eq-storm"};
  const bool every = std::find(workload.begin(), workload.end(), "all") != workload.end();
  const std::vector<std::string> names = every ? all : workload;
  std::vector<Row> rows;
  try {
    for (const auto &n : names) {
      const bool flush = n.rfind("flush-neighbours", 0) == 0;
      const uint32_t latency = n == "mixed"                                        ? mem_latency
                               : n == "miss-under-stream" || n == "sync-under-load" ? 100
                                                                                    : 20;
      const Setup s{config, latency, seed, n == "eq-storm" ? storm_idle : flush ? 0.2 : 0.0};
      if (n == "eq-storm") {  // prints its own line
        rows.push_back(run_eq_storm(s, eqe_every));
        continue;
      }
      rows.push_back(n == "sync-under-load" ? run_sync_under_load(s) : run_workload(n, s, ops));
      const Row &r = rows.back();
      fmt::print("{:<16} {:>8} qps={:<5} mem={:<4} ops={:<7} cycles={:<8} ops/cycle={:.3f} "
                 "p50={} p99={} cmd_delay_max={} cqes={} miss_wait_max={}\n",
                 r.workload, r.config, r.active_qps, r.mem_latency, r.ops, r.cycles,
                 r.ops_per_cycle, r.p50, r.p99, r.cmd_delay_max, r.cqes, r.miss_wait_max);
    }
  } catch (const std::exception &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  std::ofstream out(csv);
  if (!out) {
    std::fprintf(stderr, "qpm_bench: cannot write %s\n", csv.c_str());
    return 1;
  }
  out << "workload,config,active_qps,mem_latency,ops,cycles,ops_per_cycle,p50_latency,"
         "p99_latency,cmd_delay_max,cqes,miss_wait_max\n";
  for (const Row &r : rows) {
    out << fmt::format("{},{},{},{},{},{},{:.4f},{},{},{},{},{}\n", r.workload, r.config,
                       r.active_qps, r.mem_latency, r.ops, r.cycles, r.ops_per_cycle, r.p50,
                       r.p99, r.cmd_delay_max, r.cqes, r.miss_wait_max);
  }
  fmt::print("qpm_bench: {}\n", csv);
  return 0;
}
