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
// Every answer is still checked against
// the golden model (QpmEnv's scoreboard): a mismatch makes the run fail, so a number is
// never printed for a wrong design.
//
//   qpm_bench [--workload all|hit-distinct|hit-same|mixed|cmd-under-load|
//              flush-neighbours|flush-neighbours-baseline] [--ops N]
//             [--config default|tiny] [--mem-latency N] [--csv FILE]
//
// Prints a table and writes CSV with the columns
//   workload,config,active_qps,mem_latency,ops,cycles,ops_per_cycle,p50_latency,
//   p99_latency,cmd_delay_max,cqes
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "builders.h"
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
};

constexpr uint32_t kFirstQpn = 0x40;

// Creates qpn as an RC QP and walks it to RTS by the legal path, with the tests' valid
// attribute values.
void bring_up(QpmEnv &env, uint32_t qpn) {
  const uint32_t rc = static_cast<uint32_t>(QpType::RC);
  std::vector<Command> cmds = builders::walk_cmds(qpn, rc, QpState::Rts);
  cmds.insert(cmds.begin(), builders::create_cmd(qpn, rc));
  for (const Command &cmd : cmds) {
    if (env.execute(cmd).status != Status::Ok) {
      throw std::runtime_error(fmt::format("qpm_bench: setting up QP {:#x} failed", qpn));
    }
  }
}

// An RDMA WRITE ONLY at the QP's expected PSN: accepted, and it advances the PSN, so
// every operation is a real read-modify-write that depends on the one before.
DpRequest write_only(uint32_t qpn, uint32_t psn) {
  return builders::rx(qpn, MsgClass::Write, PktPos::Only, psn & kPsnMask);
}

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
        q.pop_front();
      }
    }
  }
  void after_edge(Dut &) override {}
  void reset() { latencies_.clear(); }
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
  return r;
}

Row run_workload(const std::string &name, const Setup &s, uint64_t ops) {
  const bool mixed = name == "mixed";
  const bool flush = name.rfind("flush-neighbours", 0) == 0;
  const uint32_t n_qps = name == "hit-same" ? 1 : mixed ? 2048 : 64;
  QpmEnv env(env_options(s, mixed ? 4096 : 4096));
  LatencyProbe probe(env);
  env.tb().add(&probe);
  std::vector<uint32_t> qpns;
  for (uint32_t i = 0; i < n_qps; ++i) qpns.push_back(kFirstQpn + i);
  for (uint32_t q : qpns) bring_up(env, q);
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
  drive(env, probe, name, s, qpns, qpns.size(), false, 0, 0);
  if (name == "flush-neighbours") {
    for (uint32_t q : sick) {
      env.push_command(builders::modify_cmd(q, attr::kState, static_cast<uint32_t>(QpState::Err),
                                            builders::valid_attributes()));
    }
  }
  Row r = drive(env, probe, name, s, qpns, ops, mixed, name == "cmd-under-load" ? 50 : 0,
                cmd_qpn);
  require_clean(env, name);
  return r;
}

}  // namespace
}  // namespace qpm

int main(int argc, char **argv) {
  using namespace qpm;
  CLI::App app{"qpm_bench: datapath operations per cycle, latency and command delay"};
  std::string workload = "all", config = "default", csv = "build/bench/bench.csv";
  uint64_t ops = 20000, seed = 1;
  uint32_t mem_latency = 200;
  app.add_option("--workload", workload,
                 "hit-distinct, hit-same, mixed, cmd-under-load, flush-neighbours, "
                 "flush-neighbours-baseline or all")
      ->check(CLI::IsMember({"all", "hit-distinct", "hit-same", "mixed", "cmd-under-load",
                             "flush-neighbours", "flush-neighbours-baseline"}));
  app.add_option("--ops", ops, "operations measured per workload")->check(CLI::Range(1, 10000000));
  app.add_option("--config", config, "RTL configuration")->check(CLI::IsMember({"default", "tiny"}));
  app.add_option("--mem-latency", mem_latency, "memory latency in cycles (mixed)")
      ->check(CLI::Range(1, 10000));
  app.add_option("--seed", seed, "random seed (mixed's QPN choice)");
  app.add_option("--csv", csv, "CSV output file");
  CLI11_PARSE(app, argc, argv);

  const std::vector<std::string> all = {"hit-distinct",     "hit-same",
                                        "mixed",            "cmd-under-load",
                                        "flush-neighbours", "flush-neighbours-baseline"};
  std::vector<std::string> names = workload == "all" ? all : std::vector<std::string>{workload};
  std::vector<Row> rows;
  try {
    for (const auto &n : names) {
      const bool flush = n.rfind("flush-neighbours", 0) == 0;
      const Setup s{config, n == "mixed" ? mem_latency : 20, seed, flush ? 0.2 : 0.0};
      rows.push_back(run_workload(n, s, ops));
      const Row &r = rows.back();
      fmt::print("{:<16} {:>8} qps={:<5} mem={:<4} ops={:<7} cycles={:<8} ops/cycle={:.3f} "
                 "p50={} p99={} cmd_delay_max={} cqes={}\n",
                 r.workload, r.config, r.active_qps, r.mem_latency, r.ops, r.cycles,
                 r.ops_per_cycle, r.p50, r.p99, r.cmd_delay_max, r.cqes);
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
         "p99_latency,cmd_delay_max,cqes\n";
  for (const Row &r : rows) {
    out << fmt::format("{},{},{},{},{},{},{:.4f},{},{},{},{}\n", r.workload, r.config,
                       r.active_qps, r.mem_latency, r.ops, r.cycles, r.ops_per_cycle, r.p50,
                       r.p99, r.cmd_delay_max, r.cqes);
  }
  fmt::print("qpm_bench: {}\n", csv);
  return 0;
}
