// Eviction policies through qpm_top (SPEC §9, docs/eviction.md): the cache is invisible to
// function, so a random mixed run under each policy (the trap mode with an agent that
// answers late, wrongly or never, tb/env/trap_agent.h) must match the policy-free golden
// model exactly, on the tiny configuration where nearly every access evicts. The victim
// order of each policy is checked at block level (tests/test_qp_cache.cpp).
#include <fmt/format.h>

#include "sim_run.h"
#include "test_helpers.h"

using namespace qpm;
using namespace qpm::test;

TEST_CASE("random runs under each eviction policy have zero mismatches on tiny",
          "[eviction][system]") {
  const std::string policy = GENERATE(as<std::string>{}, "plru", "lru", "random", "trap");
  SimOptions o = qpm_sim_defaults();  // commands, datapath operations and doorbells
  o.config = "tiny";
  o.seed = 1101;
  o.cmds = 1500;
  o.qps = 40;  // ten times the cache's four lines
  o.mem_reorder = true;
  o.evict_policy = policy;
  INFO("replay: " << replay_line(o));
  QpmEnv env(env_options(o));
  CHECK(env.read_csr(csr::kEvictPolicy) ==
        (policy == "lru" ? 1u : policy == "random" ? 2u : policy == "trap" ? 3u : 0u));
  const SimResult r = run_random(o, env);
  for (const auto &p : r.problems) UNSCOPED_INFO(p);
  REQUIRE(r.problems.empty());
  CHECK(env.scoreboard().mismatches() == 0);
  CHECK(env.dp_scoreboard().mismatches() == 0);
  CHECK(r.counters[counter_index("evictions")] > 500);
  CHECK(r.counters[counter_index("writebacks")] > 0);
  if (policy == "trap") {
    // The agent answered most questions, some wrongly, some never: every path was taken.
    REQUIRE(env.trap_agent() != nullptr);
    CHECK(r.counters[counter_index("trap_requests")] == env.trap_agent()->questions());
    CHECK(r.counters[counter_index("trap_requests")] > 100);
    CHECK(r.counters[counter_index("trap_rejected")] > 0);
    CHECK(r.counters[counter_index("trap_timeouts")] >= env.trap_agent()->silences());
  } else {
    CHECK(r.counters[counter_index("trap_requests")] == 0);
  }
}
