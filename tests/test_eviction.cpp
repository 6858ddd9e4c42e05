// Eviction policies through qpm_top (SPEC §9, docs/eviction.md): the cache is invisible to
// function, so a random mixed run under each policy (the trap mode with an agent that
// answers late, wrongly or never, tb/env/trap_agent.h) must match the policy-free golden
// model exactly, on the tiny configuration where nearly every access evicts. The victim
// order of each policy is checked at block level (tests/test_qp_cache.cpp) and, for every
// kind of access, through qpm_top (the last case here).
#include <fmt/format.h>

#include <map>
#include <random>

#include "replacement.h"
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

// The replacement reference (tb/model/replacement.h) against qpm_top, for every kind of
// access the cache serves: commands (CREATE, MODIFY, QUERY), datapath read-modify-writes
// (TX_WQE, RX_REQ, RX_ACK, RX_NAK), doorbells, flush steps (a MODIFY to ERR, doorbells on
// a QP in ERR) and fatal-engine steps (the NAK that breaks a QP). One access at a time
// on 7 QPNs of one set of the default cache (4 ways): each access's hit or miss, read
// from the misses counter, must be the reference's, so every victim choice is too.
TEST_CASE("every kind of access moves the replacement state as the reference does",
          "[eviction][system]") {
  const EvictPolicy policy = GENERATE(EvictPolicy::Plru, EvictPolicy::Lru);
  EnvOptions eo;
  eo.seed = policy == EvictPolicy::Lru ? 1201 : 1202;
  eo.evict_policy = static_cast<uint32_t>(policy);
  QpmEnv env(eo);
  constexpr unsigned kWays = 4;
  constexpr uint32_t kSets = 64;  // the default configuration
  ReplacementRef ref(kWays, policy);
  std::vector<uint32_t> qpns;
  for (uint32_t k = 0; k < 7; ++k) qpns.push_back(5 + kSets * k);

  uint64_t misses = csr_counter(env, "misses"), ref_misses = 0, ref_evictions = 0;
  std::map<std::string, std::pair<int, int>> kinds;  // kind -> (accesses, misses)
  // One access of q by `what`, already run to the end (every answer, CQE and flush step).
  auto accessed = [&](const std::string &what, uint32_t q) {
    REQUIRE(ref.access(q));
    const uint64_t now = csr_counter(env, "misses");
    INFO(what << " of qpn " << q << ": reference " << (ref.hit() ? "hit" : "miss")
              << ", cache missed " << (now - misses) << " times");
    REQUIRE(now - misses == (ref.hit() ? 0u : 1u));
    misses = now;
    ref_misses += ref.hit() ? 0 : 1;
    ref_evictions += ref.evicted() ? 1 : 0;
    ++kinds[what].first;
    kinds[what].second += ref.hit() ? 0 : 1;
  };

  Command attrs = valid_attributes();
  attrs.qp_access_flags = access::kRemoteWrite | access::kRemoteRead | access::kRemoteAtomic;
  CreateAttrs small;
  small.log_sq_size = 3;
  small.log_rq_size = 3;
  for (uint32_t q : qpns) {
    REQUIRE(env.execute(create_cmd(q, 2, small)).status == Status::Ok);
    accessed("CREATE", q);
    for (const Command &m : walk_cmds(q, 2, QpState::Rts, attrs)) {
      REQUIRE(env.execute(m).status == Status::Ok);
      accessed("MODIFY", q);
    }
  }

  struct Queues {
    int rq_posted = 0;   // RQ WQEs posted, not yet consumed by a SEND
    int sq_posted = 0;   // SQ WQEs posted, not yet issued
    int sq_issued = 0;   // issued, not yet acknowledged
    bool err = false;
  };
  std::map<uint32_t, Queues> qs;
  std::mt19937 rng(eo.seed);
  for (int i = 0; i < 600; ++i) {
    const uint32_t q = qpns[rng() % qpns.size()];
    Queues &s = qs[q];
    INFO("step " << i);
    if (i == 200 || i == 400) {  // one QP to ERR by software, one broken by its peer
      if (s.err) continue;
      if (i == 200) {
        REQUIRE(env.execute(modify_cmd(q, attr::kState, static_cast<uint32_t>(QpState::Err),
                                       attrs)).status == Status::Ok);
        accessed("MODIFY to ERR (and its flush steps)", q);
      } else {
        REQUIRE(env.execute_dp(nak(q, NakCode::Access)).verdict != Verdict::Drop);
        accessed("RX_NAK (and its fatal and flush steps)", q);
      }
      s.err = env.model().qpc(q).state == static_cast<uint32_t>(QpState::Err);
      REQUIRE(s.err);
      continue;
    }
    switch (rng() % 7) {
      case 0:
        REQUIRE(env.execute(qpn_cmd(Opcode::QueryQp, q)).status == Status::Ok);
        accessed("QUERY", q);
        break;
      case 1:
        if (s.rq_posted >= 4 && !s.err) continue;
        REQUIRE(env.ring(rq_db(q, 1)));
        accessed(s.err ? "RQ doorbell in ERR (and its flush step)" : "RQ doorbell", q);
        if (!s.err) ++s.rq_posted;
        break;
      case 2:
        if (s.sq_posted + s.sq_issued >= 4 && !s.err) continue;
        REQUIRE(env.ring(sq_db(q, 1)));
        accessed(s.err ? "SQ doorbell in ERR (and its flush step)" : "SQ doorbell", q);
        if (!s.err) ++s.sq_posted;
        break;
      case 3:
        if (s.err || s.rq_posted == 0) continue;
        REQUIRE(env.execute_dp(rx(q, MsgClass::Send, PktPos::Only,
                                  env.model().qpc(q).expected_psn)).verdict == Verdict::Accept);
        accessed("RX_REQ", q);
        --s.rq_posted;
        break;
      case 4:
        if (s.err || s.sq_posted == 0) continue;
        REQUIRE(env.execute_dp(tx(q, MsgClass::Write)).verdict == Verdict::Issue);
        accessed("TX_WQE", q);
        --s.sq_posted;
        ++s.sq_issued;
        break;
      case 5:
        if (s.err || s.sq_issued == 0) continue;
        REQUIRE(env.execute_dp(ack(q, 1)).verdict == Verdict::Accept);
        accessed("RX_ACK", q);
        --s.sq_issued;
        break;
      default:
        if (s.err) continue;
        REQUIRE(env.execute(modify_cmd(q, 0, static_cast<uint32_t>(QpState::Rts), attrs))
                    .status == Status::Ok);  // RTS -> RTS, nothing changed
        accessed("MODIFY RTS->RTS", q);
        break;
    }
  }
  for (const auto &[what, n] : kinds) UNSCOPED_INFO(what << ": " << n.first << " accesses, "
                                                         << n.second << " misses");
  CHECK(csr_counter(env, "misses") == misses);
  CHECK(csr_counter(env, "evictions") == ref_evictions);
  CHECK(ref_evictions > 100);
  for (const char *k : {"QUERY", "RQ doorbell", "SQ doorbell", "RX_REQ", "TX_WQE", "RX_ACK"}) {
    INFO(k);
    CHECK(kinds[k].first > 20);   // every kind often ...
    CHECK(kinds[k].second > 0);   // ... and hitting and missing
    CHECK(kinds[k].second < kinds[k].first);
  }
  require_final_check_clean(env);
}
