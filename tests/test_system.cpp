// Full-system random seeds: thousands of commands over many QPs, valid and invalid
// mixed, with idle cycles and response back-pressure; zero mismatches allowed. Each
// prints the qpm_sim line that replays it exactly, and a test proves that it does.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "random_stimulus.h"
#include "sim_run.h"
#include "test_helpers.h"

using namespace qpm;

namespace {

SimOptions system_seed(uint64_t seed) {
  SimOptions o;
  o.seed = seed;
  o.cmds = 4000;
  o.qps = 200;
  o.cmd_idle = 0.1;
  o.rsp_stall = 0.2;
  o.csr_stall = 0.2;
  o.mem_latency = "20:60";
  o.mem_interleave = seed % 2 == 0;
  o.mem_reorder = seed % 2 == 0;
  return o;
}

// Parses a replay line back into options, as qpm_sim would.
SimOptions parse_replay(const std::string &line) {
  SimOptions o;
  CLI::App app;
  add_sim_options(app, o);
  app.parse(line.substr(line.find(' ') + 1));  // without the program name
  return o;
}

}  // namespace

TEST_CASE("random full-system seeds match the golden model", "[system]") {
  const uint64_t seed = GENERATE(101, 102, 103, 104);
  const SimOptions o = system_seed(seed);
  INFO("replay: " << replay_line(o));
  QpmEnv env(env_options(o));
  const SimResult r = run_random(o, env);
  for (const auto &p : r.problems) UNSCOPED_INFO(p);
  REQUIRE(r.problems.empty());  // mismatches, assertions, protocol, image, counters
  // The run exercised every status the control path can give without memory errors.
  const auto &counts = env.scoreboard().status_counts();
  for (Status s : {Status::Ok, Status::BadOp, Status::BadParam, Status::BadRes,
                   Status::ResBusy, Status::BadQpState}) {
    INFO(status_name(s));
    CHECK(counts.count(s) == 1);
  }
  // The response stream was really back-pressured, and checked while it was.
  CHECK(env.streams().rsp().stalls() > 100);
  CHECK(env.csr_master().split_writes() > 0);
  if (o.mem_interleave) CHECK(env.memory().interleaved_beats() > 0);
}

TEST_CASE("a printed replay line reproduces its run cycle for cycle", "[system]") {
  SimOptions o = system_seed(7);
  o.cmds = 1500;
  o.mem_read_error_rate = 0.02;
  o.mem_write_error_rate = 0.05;
  o.mem_backpressure = 0.1;
  o.mem_aw_waits_for_w = true;
  const std::string line = replay_line(o);
  const SimOptions back = parse_replay(line);
  CHECK(replay_line(back) == line);  // every knob survives the round trip
  // One environment at a time: two live Verilated contexts deadlock in Verilator 5.006
  // when the first is destroyed.
  auto run = [](const SimOptions &opt, std::map<Status, uint64_t> *statuses) {
    QpmEnv env(env_options(opt));
    SimResult r = run_random(opt, env);
    *statuses = env.scoreboard().status_counts();
    return r;
  };
  std::map<Status, uint64_t> first_statuses, again_statuses;
  const SimResult first = run(o, &first_statuses);
  const SimResult again = run(back, &again_statuses);
  CHECK(first.problems.empty());
  CHECK(again.cycles == first.cycles);
  CHECK(again.counters == first.counters);
  CHECK(again.coverage.bins() == first.coverage.bins());
  CHECK(again_statuses == first_statuses);
}

TEST_CASE("functional coverage counts what the run did", "[system]") {
  SimOptions o = system_seed(9);
  o.cmds = 3000;
  QpmEnv env(env_options(o));
  const uint64_t setup = env.scoreboard().checked();  // the initial MAP_PAGEs
  const SimResult r = run_random(o, env);
  REQUIRE(r.problems.empty());
  const auto &bins = r.coverage.bins();
  // Statuses: the bins add up to the commands answered (the final SYNC included).
  uint64_t statuses = 0;
  for (const auto &[name, n] : bins) {
    if (name.rfind("status.", 0) == 0) statuses += n;
  }
  CHECK(statuses == env.scoreboard().checked() - setup);
  // Transitions: an OK MODIFY_QP lands in exactly one of the 66 table rows.
  uint64_t transitions = 0, rows = 0;
  for (const auto &[name, n] : bins) {
    if (name.rfind("transition.", 0) == 0) {
      transitions += n;
      ++rows;
    }
  }
  CHECK(rows == 66);
  CHECK(transitions == bins.at("command.MODIFY_QP.OK"));
  CHECK(bins.at("cache.hit") == r.counters[0]);
  CHECK(bins.at("transition.RC.RESET->INIT") > 0);
  // What a run without memory errors cannot hit is listed as unhit.
  const auto unhit = r.coverage.unhit();
  CHECK(std::find(unhit.begin(), unhit.end(), "status.INT_ERR") != unhit.end());
}

TEST_CASE("100000 QPNs spread over the whole 24-bit QPN space", "[system][qpn_space]") {
  SimOptions o;
  o.seed = 24;
  o.qpn_limit = 1u << 24;
  o.qps = 100000;
  o.cmds = 20000;
  o.mem_latency = "10:40";
  INFO("replay (random phase only): " << replay_line(o));
  QpmEnv env(env_options(o));
  StimulusOptions so;
  so.qps = o.qps;
  so.qps_per_page = 32;
  RandomStimulus stim(env.rng(), env.model(), so);
  env.map_pages(stim.pages());
  // The QPNs reach from near 0 to near 2^24, and every one of them gets a QP.
  const auto [lo, hi] = std::minmax_element(stim.qpns().begin(), stim.qpns().end());
  CHECK(*lo < (1u << 24) / 100);
  CHECK(*hi > (1u << 24) - (1u << 24) / 100);
  size_t next = 0;
  env.run_stream(stim.qpns().size(), [&] {
    const uint32_t qpn = stim.qpns()[next++];
    return test::create_cmd(qpn, 2 + qpn % 3);
  });
  CHECK(env.scoreboard().status_counts().at(Status::Ok) >= 100000);
  // Then random traffic over them, and the whole image checked.
  env.run_stream(o.cmds, [&] { return stim.next(); });
  const auto problems = env.final_check();
  for (const auto &p : problems) UNSCOPED_INFO(p);
  REQUIRE(problems.empty());
  size_t valid = 0;
  for (uint32_t q : stim.qpns()) valid += env.model().qpc(q).valid;
  CHECK(valid > 95000);  // a few were destroyed by the random phase
}
