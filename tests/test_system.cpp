// Full-system random seeds: thousands of commands over many QPs, valid and invalid
// mixed, with idle cycles and response back-pressure; zero mismatches allowed.
#include <fmt/format.h>

#include <set>

#include "random_stimulus.h"
#include "test_helpers.h"

using namespace qpm;

TEST_CASE("random full-system seeds match the golden model", "[system]") {
  const uint64_t seed = GENERATE(101, 102, 103, 104);
  EnvOptions o;
  o.seed = seed;
  o.cmd_idle_prob = 0.1;
  o.rsp_stall_prob = 0.2;
  QpmEnv env(o);
  StimulusOptions so;
  so.qps = 200;
  RandomStimulus stim(env.rng(), env.model(), so);
  env.run_stream(4000, [&] { return stim.next(); });  // next command always waiting
  INFO("replay: qpm_sim --seed " << seed);
  const auto problems = env.final_check();  // includes mismatches and assertions
  for (const auto &p : problems) UNSCOPED_INFO(p);
  REQUIRE(problems.empty());
  // The run exercised every status the control path can give without memory errors.
  const auto &counts = env.scoreboard().status_counts();
  for (Status s : {Status::Ok, Status::BadOp, Status::BadParam, Status::BadRes,
                   Status::ResBusy, Status::BadQpState}) {
    INFO(status_name(s));
    CHECK(counts.count(s) == 1);
  }
  // And QPs reached every state that commands can reach.
  std::set<uint32_t> states;
  for (uint32_t q : stim.qpns()) {
    if (env.model().qpc(q).valid) states.insert(env.model().qpc(q).state);
  }
  CHECK(states.size() >= 5);
}
