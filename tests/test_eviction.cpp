// Eviction policies through qpm_top (SPEC §9, docs/eviction.md): the cache is invisible to
// function, so a random mixed run under each policy must match the policy-free golden
// model exactly, on the tiny configuration where nearly every access evicts. The victim
// order of each policy is checked at block level (tests/test_qp_cache.cpp).
#include <fmt/format.h>

#include "sim_run.h"
#include "test_helpers.h"

using namespace qpm;
using namespace qpm::test;

TEST_CASE("random runs under each eviction policy have zero mismatches on tiny",
          "[eviction][system]") {
  const std::string policy = GENERATE(as<std::string>{}, "plru", "lru", "random");
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
        (policy == "lru" ? 1u : policy == "random" ? 2u : 0u));
  const SimResult r = run_random(o, env);
  for (const auto &p : r.problems) UNSCOPED_INFO(p);
  REQUIRE(r.problems.empty());
  CHECK(env.scoreboard().mismatches() == 0);
  CHECK(env.dp_scoreboard().mismatches() == 0);
  CHECK(r.counters[counter_index("evictions")] > 500);
  CHECK(r.counters[counter_index("writebacks")] > 0);
}
