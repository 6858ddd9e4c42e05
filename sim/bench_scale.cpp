// qpm_bench --scale: one qpm_top, QPs brought up once (RC, RTS) at a fast memory, then
// for each memory latency, workload, number of active QPs and policy (EVICT_POLICY
// written between points): a warm-up (one access to every active QP, in a shuffled
// order, while they number at most twice the capacity; then `ops` operations of the
// workload), then `ops` measured ones,
// RDMA WRITEs at each QP's expected PSN, the datapath port kept busy. The hit rate is
// HITS / (HITS + MISSES + MERGED) over the measured operations (CSR counters), the rate
// is the port's takes over their last three quarters (drive()). Every answer is checked
// against the golden model as everywhere else, so a number is never printed for a wrong
// design.
//
// Workloads (the same trace for every policy of a point):
//   uniform      each operation picks one of the active QPs uniformly
//   zipf-0.99    QP of rank k with weight 1/k^0.99 (ranks shuffled over the QPNs)
//   zipf-1.2     the same with s = 1.2
//   scan         a cyclic scan over capacity + 1 QPs, as the issue states it; in a
//                set-associative cache only one set then holds Ways + 1 of them
//   scan-sets    a cyclic scan over (Ways + 1) x Sets QPs: every set cycles through one
//                line more than it has, LRU's pathology (it misses always)
// Policies: plru, lru, random, and trap with an agent (tb/env/trap_agent.h) that answers
// every question rightly after trap_latency cycles; decision_cycles is the mean cycles a
// trap question stayed open (0 for the others: their choice is combinational).
//   pinned-hot   16 QPs pinned by PIN_QP (fewer if the cache cannot pin 16: at most
//                Ways - 1 per set), every other operation one of them, the others
//                a cyclic scan over 2 x capacity QPs; hot_hit_rate is the pinned QPs'
//                (an operation counts as a hit when it is answered in under half the
//                memory latency)
// and a row "infinite" per point: the ideal of a cache that holds every active QP, warm
// (every operation a hit, one per cycle: the hit path's rate, SPEC §11).
#include "bench_scale.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <deque>
#include <stdexcept>

#include "bench_common.h"
#include "dut.h"
#include "port_codec.h"
#include "replacement.h"

namespace qpm::bench {
namespace {

struct ScaleRow {
  std::string workload, policy;
  uint32_t active_qps = 0, mem_latency = 0;
  double hit_rate = 0, ops_per_cycle = 0, hot_hit_rate = -1;
  uint32_t decision_cycles = 0;
  uint64_t ops = 0, cycles = 0;
  double misses_per_op = 0, bound = 1, efficiency = 1;
  double take_backs_per_op = 0;  // misses served from the write-back buffer, not memory
  double dir_hit_rate = -1;  // DIR_HITS / WALKS over the window (-1: no walk)
};

// SPEC.md section 11.1: no design does better than min(1, N / (m L), B / (64 m)) operations
// per cycle with m misses per operation that read memory (measured: the MISSES counter
// less TAKE_BACKS, over the operations; a merged request waits on a miss register
// already counted; a take-back takes its context from the write-back buffer, reads no
// memory and holds its register a few cycles, docs/qp-cache.md section 22), a memory latency of L
// cycles, N miss registers and a read channel of B bytes per cycle (one 64-byte QPC per
// miss). Directory reads are not in the bound: they only lower the efficiency.
constexpr double kReadBytesPerCycle = 32;  // the 256-bit AXI read channel
constexpr double kQpcBytes = 64;
double rate_bound(double misses_per_op, uint32_t latency, uint32_t mshrs) {
  if (misses_per_op <= 0) return 1.0;
  return std::min({1.0, mshrs / (misses_per_op * latency),
                   kReadBytesPerCycle / (kQpcBytes * misses_per_op)});
}

// The latency of every answered operation of the QPNs in `watch`.
class HotProbe : public TbExtension {
 public:
  explicit HotProbe(QpmEnv &env) : env_(env) {}
  void watch(const std::vector<uint32_t> &qpns, uint64_t hit_below) {
    watch_.clear();
    watch_.insert(qpns.begin(), qpns.end());
    hit_below_ = hit_below;
    hits_ = total_ = 0;
  }
  void before_edge(Dut &dut) override {
    if (watch_.empty()) return;
    if (dut.dp_req_valid() && dut.dp_req_ready()) {
      const uint32_t q = decode_dp_request(dut.dp_req()).qpn;
      if (watch_.count(q)) accepted_[q].push_back(env_.tb().cycles());
    }
    if (dut.dp_rsp_valid() && dut.dp_rsp_ready()) {
      const uint32_t q = decode_dp_response(dut.dp_rsp()).qpn;
      auto it = accepted_.find(q);
      if (it != accepted_.end() && !it->second.empty()) {
        ++total_;
        if (env_.tb().cycles() - it->second.front() < hit_below_) ++hits_;
        it->second.pop_front();
      }
    }
  }
  void after_edge(Dut &) override {}
  double hit_rate() const { return total_ ? static_cast<double>(hits_) / total_ : -1; }

 private:
  QpmEnv &env_;
  std::set<uint32_t> watch_;
  std::map<uint32_t, std::deque<uint64_t>> accepted_;
  uint64_t hit_below_ = 0, hits_ = 0, total_ = 0;
};

std::vector<uint32_t> make_trace(const std::string &workload, const std::vector<uint32_t> &qpns,
                                 uint64_t n, uint64_t seed, uint32_t hot_qps) {
  std::mt19937_64 rng(seed);
  std::vector<uint32_t> t;
  t.reserve(n);
  if (workload == "uniform") {
    for (uint64_t i = 0; i < n; ++i) t.push_back(qpns[rng() % qpns.size()]);
  } else if (workload.rfind("zipf-", 0) == 0) {
    const double s = std::stod(workload.substr(5));
    std::vector<uint32_t> ranked = qpns;
    std::shuffle(ranked.begin(), ranked.end(), rng);
    std::vector<double> cdf(ranked.size());
    double sum = 0;
    for (size_t k = 0; k < ranked.size(); ++k) cdf[k] = sum += 1.0 / std::pow(k + 1.0, s);
    std::uniform_real_distribution<double> u(0, sum);
    for (uint64_t i = 0; i < n; ++i) {
      const size_t k = std::lower_bound(cdf.begin(), cdf.end(), u(rng)) - cdf.begin();
      t.push_back(ranked[std::min(k, ranked.size() - 1)]);
    }
  } else if (workload == "scan" || workload == "scan-sets") {
    for (uint64_t i = 0; i < n; ++i) t.push_back(qpns[i % qpns.size()]);
  } else {  // pinned-hot: qpns[0..hot) hot, the rest scanned
    const size_t hot = std::min<size_t>(hot_qps, qpns.size());
    uint64_t scan = 0;
    for (uint64_t i = 0; i < n; ++i) {
      t.push_back(i % 2 ? qpns[hot + scan++ % (qpns.size() - hot)] : qpns[rng() % hot]);
    }
  }
  return t;
}

class ScaleRun {
 public:
  explicit ScaleRun(const ScaleOptions &o) : o_(o) {}

  void run() {
    const uint32_t max_needed = needed_qps();
    uint32_t limit = 4096;
    while (limit < kFirstQpn + max_needed) limit *= 2;
    EnvOptions eo;
    eo.config = o_.config;
    eo.seed = o_.seed;
    eo.qpn_limit = limit;
    eo.mem.latency_min = eo.mem.latency_max = 20;  // bring-up at a fast memory
    // The trap agent is attached (it answers only under the trap policy): a well-behaved
    // one, always answering a uniformly chosen eligible way after trap_latency cycles.
    eo.evict_policy = static_cast<uint32_t>(EvictPolicy::Trap);
    eo.trap.latency = o_.trap_latency;
    eo.trap.wrong_prob = 0;
    eo.trap.silent_prob = 0;
    eo.trap.seed = o_.seed;
    QpmEnv env(eo);
    HotProbe probe(env);
    env.tb().add(&probe);
    for (uint32_t i = 0; i < max_needed; ++i) {
      qpns_.push_back(kFirstQpn + i);
      bring_up(env, qpns_.back());
      psn_[qpns_.back()] = env.model().qpc(qpns_.back()).expected_psn;
    }
    for (uint32_t latency : o_.mem_latencies) {
      AxiMemoryOptions mo;
      mo.latency_min = mo.latency_max = latency;
      env.memory().set_options(mo);
      for (const std::string &w : {"uniform", "zipf-0.99", "zipf-1.2"}) {
        for (uint32_t n : o_.active_qps) point(env, probe, w, n, latency);
      }
      point(env, probe, "scan", capacity() + 1, latency);
      point(env, probe, "scan-sets", capacity() + sets_, latency);
      point(env, probe, "pinned-hot", hot_ + 2 * capacity(), latency);
    }
    // The final check (SYNC_CACHE of a cache full of dirty lines, then the image) at the
    // fast memory again: at 1000 cycles its write-backs alone can outlast the harness's
    // per-command timeout, and it is not part of the measurement.
    AxiMemoryOptions fast;
    fast.latency_min = fast.latency_max = 20;
    env.memory().set_options(fast);
    const auto problems = env.final_check();
    if (!problems.empty()) {
      throw std::runtime_error(fmt::format("qpm_bench --scale: {} (and {} more)", problems.front(),
                                           problems.size() - 1));
    }
    write_csv();
  }

 private:
  uint32_t capacity() const { return cfg_capacity_; }

  uint32_t needed_qps() {
    const DutConfig *c = find_dut_config(o_.config);
    if (!c) throw std::invalid_argument("qpm_bench --scale: unknown configuration " + o_.config);
    cfg_capacity_ = c->params.sets * c->params.ways;
    mshrs_ = c->mshrs;
    sets_ = c->params.sets;
    hot_ = std::min(16u, sets_ * (c->params.ways - 1));
    uint32_t n = std::max(cfg_capacity_ + sets_, hot_ + 2 * cfg_capacity_);
    for (uint32_t a : o_.active_qps) n = std::max(n, a);
    return n;
  }

  // The rate of a trace, in its steady state: the port's takes from the first quarter
  // of the trace to its last operation.
  struct Window {
    uint64_t ops = 0, cycles = 0;
  };

  // Sends the trace and waits for every answer (each is checked against the model).
  // Measures the rate while the port is kept full: from the cycle the port takes the
  // operation at a quarter of the trace to the cycle it takes the last one. Both ends
  // then have the same answers still owed (up to the response FIFO's credits,
  // DpRspDepth), so neither the cold start (an empty pipe, every miss register free)
  // nor the drain (the last misses' round trip) is counted. Counted from the first
  // operation, a window of 2,000 at 1,000 cycles read up to 16 % above its bound; to
  // the last answer, a drain of half the window.
  Window drive(QpmEnv &env, const std::vector<uint32_t> &trace) {
    const size_t from = trace.size() / 4;
    uint64_t first = 0, last = 0;
    size_t pushed = 0;
    while (pushed < trace.size() || env.dp_queued() > 0 || env.dp_in_flight() > 0) {
      while (pushed < trace.size() && env.dp_queued() < 4 && env.dp_in_flight() < 200) {
        const uint32_t q = trace[pushed++];
        env.push_dp(write_only(q, psn_[q]++));
      }
      env.run_cycles(1);
      const size_t taken = pushed - env.dp_queued();
      if (taken > from && first == 0) first = env.tb().cycles();
      if (taken == trace.size() && last == 0) last = env.tb().cycles();
    }
    return Window{trace.size() - from - 1, last - first};
  }

  void point(QpmEnv &env, HotProbe &probe, const std::string &workload, uint32_t n,
             uint32_t latency) {
    const std::vector<uint32_t> active(qpns_.begin(), qpns_.begin() + n);
    const uint64_t seed = o_.seed * 1000003 + n * 31 + latency;
    // One trace of 2 x ops: the first half warms (after one access to every active QP),
    // the second is measured, so a scan goes on where the warm-up left it.
    const std::vector<uint32_t> full = make_trace(workload, active, 2 * o_.ops, seed, hot_);
    // Touching every active QP first matters only while they could all fit; past twice
    // the capacity the workload's own warm-up reaches the steady state, and a pass over
    // 65536 QPs would cost more than every measured point.
    std::vector<uint32_t> warm;
    if (n <= 2 * capacity()) {
      warm = active;
      std::shuffle(warm.begin(), warm.end(), std::mt19937_64(seed + 2));
    }
    warm.insert(warm.end(), full.begin(), full.begin() + o_.ops);
    const std::vector<uint32_t> trace(full.begin() + o_.ops, full.end());
    const std::vector<uint32_t> hot(active.begin(), active.begin() + std::min(hot_, n));
    const bool pinned = workload == "pinned-hot";
    if (pinned) {
      for (uint32_t q : hot) pin(env, q, Opcode::PinQp);
    }
    for (const std::string &p : o_.policies) {
      env.write_csr(csr::kEvictPolicy, policy_code(p));
      drive(env, warm);
      probe.watch(pinned ? hot : std::vector<uint32_t>{}, latency / 2);
      const std::vector<uint32_t> before = env.read_counters();
      const Window w = drive(env, trace);
      const std::vector<uint32_t> after = env.read_counters();
      auto delta = [&](const char *name) {
        const size_t i = counter_index(name);
        return static_cast<double>(after[i] - before[i]);
      };
      ScaleRow r;
      r.workload = workload;
      r.policy = p;
      r.active_qps = n;
      r.mem_latency = latency;
      const double lookups = delta("hits") + delta("misses") + delta("merged");
      r.hit_rate = lookups > 0 ? delta("hits") / lookups : 0;
      r.ops = w.ops;
      r.cycles = w.cycles;
      r.ops_per_cycle = static_cast<double>(w.ops) / static_cast<double>(w.cycles);
      r.hot_hit_rate = pinned ? probe.hit_rate() : -1;
      r.take_backs_per_op = delta("take_backs") / static_cast<double>(trace.size());
      r.misses_per_op =
          (delta("misses") - delta("take_backs")) / static_cast<double>(trace.size());
      r.bound = rate_bound(r.misses_per_op, latency, mshrs_);
      r.efficiency = r.ops_per_cycle / r.bound;
      if (delta("walks") > 0) r.dir_hit_rate = delta("dir_hits") / delta("walks");
      // The decision latency: 0 for the combinational policies; for the trap, the mean
      // cycles a question stayed open (TRAP_BUSY_CYCLES / TRAP_REQUESTS).
      if (p == "trap" && delta("trap_requests") > 0) {
        r.decision_cycles = static_cast<uint32_t>(
            std::lround(delta("trap_busy_cycles") / delta("trap_requests")));
      }
      probe.watch({}, 0);
      print(r);
      rows_.push_back(r);
    }
    if (pinned) {
      for (uint32_t q : hot) pin(env, q, Opcode::UnpinQp);
    }
    ScaleRow ideal;
    ideal.workload = workload;
    ideal.policy = "infinite";
    ideal.active_qps = n;
    ideal.mem_latency = latency;
    ideal.hit_rate = 1.0;
    ideal.ops_per_cycle = 1.0;
    ideal.hot_hit_rate = pinned ? 1.0 : -1;
    rows_.push_back(ideal);
  }

  static void pin(QpmEnv &env, uint32_t qpn, Opcode op) {
    Command c;
    c.op = op;
    c.qpn = qpn;
    if (env.execute(c).status != Status::Ok) {
      throw std::runtime_error(fmt::format("qpm_bench --scale: PIN/UNPIN of {:#x} refused", qpn));
    }
  }

  static uint32_t policy_code(const std::string &p) {
    if (p == "lru") return static_cast<uint32_t>(EvictPolicy::Lru);
    if (p == "random") return static_cast<uint32_t>(EvictPolicy::Random);
    if (p == "trap") return static_cast<uint32_t>(EvictPolicy::Trap);
    return static_cast<uint32_t>(EvictPolicy::Plru);
  }

  static void print(const ScaleRow &r) {
    fmt::print("scale {:<11} {:<7} qps={:<5} mem={:<5} hit_rate={:.3f} ops/cycle={:.4f} "
               "bound={:.4f} efficiency={:.3f} dir_hit_rate={:.3f} take_backs/op={:.4f} "
               "decision={}{}\n",
               r.workload, r.policy, r.active_qps, r.mem_latency, r.hit_rate, r.ops_per_cycle,
               r.bound, r.efficiency, r.dir_hit_rate, r.take_backs_per_op, r.decision_cycles,
               r.hot_hit_rate >= 0 ? fmt::format(" hot_hit_rate={:.3f}", r.hot_hit_rate) : "");
  }

  void write_csv() const {
    std::ofstream out(o_.csv);
    if (!out) throw std::runtime_error("qpm_bench: cannot write " + o_.csv);
    // The columns of issue 26 come last, so the plots' column numbers stay.
    out << "workload,policy,active_qps,mem_latency,hit_rate,ops_per_cycle,decision_cycles,"
           "hot_hit_rate,ops,cycles,config,mshrs,misses_per_op,bound,efficiency,dir_hit_rate,"
           "take_backs_per_op\n";
    for (const ScaleRow &r : rows_) {
      out << fmt::format("{},{},{},{},{:.4f},{:.5f},{},{},{},{},{},{},{:.5f},{:.5f},{:.4f},{},"
                         "{:.5f}\n",
                         r.workload, r.policy, r.active_qps, r.mem_latency, r.hit_rate,
                         r.ops_per_cycle, r.decision_cycles,
                         r.hot_hit_rate >= 0 ? fmt::format("{:.4f}", r.hot_hit_rate) : "",
                         r.ops, r.cycles, o_.config, mshrs_, r.misses_per_op, r.bound,
                         r.efficiency,
                         r.dir_hit_rate >= 0 ? fmt::format("{:.4f}", r.dir_hit_rate) : "",
                         r.take_backs_per_op);
    }
    fmt::print("qpm_bench: {}\n", o_.csv);
  }

  const ScaleOptions &o_;
  uint32_t cfg_capacity_ = 0, sets_ = 0, hot_ = 16, mshrs_ = 1;
  std::vector<uint32_t> qpns_;
  std::map<uint32_t, uint32_t> psn_;
  std::vector<ScaleRow> rows_;
};

}  // namespace

void run_scale(const ScaleOptions &o) { ScaleRun(o).run(); }

}  // namespace qpm::bench
