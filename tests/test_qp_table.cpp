// The QP table in host memory, seen through qpm_top's command port, memory port and
// CSRs: contexts survive eviction, refused QPNs never reach memory, UNMAP_PAGE of a
// busy page is refused, a failed context read makes its QP fatal, the counters count, and the memory
// image matches the model after SYNC_CACHE. Mostly on the tiny configuration (2 sets x
// 2 ways), where almost every command evicts something.
#include <fmt/format.h>

#include "random_stimulus.h"
#include "test_helpers.h"

using namespace qpm;
using namespace qpm::test;

namespace {

EnvOptions tiny(uint64_t seed) {
  EnvOptions o;
  o.config = "tiny";
  o.seed = seed;
  o.mem.latency_min = 10;
  o.mem.latency_max = 80;
  o.mem.reorder = true;
  return o;
}

void require_clean(QpmEnv &env) {
  const auto problems = env.final_check();
  for (const auto &p : problems) UNSCOPED_INFO(p);
  REQUIRE(problems.empty());
}

uint32_t counter(QpmEnv &env, const char *name) {
  const auto values = env.read_counters();
  for (size_t i = 0; i < kCounterNames.size(); ++i) {
    if (std::string(kCounterNames[i]) == name) return values[i];
  }
  FAIL("no counter " << name);
  return 0;
}

}  // namespace

TEST_CASE("CSRs: identity, geometry, QPN_LIMIT clamp, unmapped offsets", "[qp_table]") {
  QpmEnv env(tiny(1));
  CHECK(env.read_csr(csr::kId) == 0x51504d31u);
  const uint32_t config = env.read_csr(csr::kConfig);
  CHECK((config & 0xff) == 1);           // log2 sets
  CHECK(((config >> 8) & 0xff) == 2);    // ways
  CHECK(((config >> 16) & 0xff) == 2);   // MSHRs
  CHECK(((config >> 24) & 0xff) == 6);   // PAGE_BITS
  CHECK(env.read_csr(csr::kQpnLimit) == 4096);
  CHECK(env.read_csr(csr::kQptBaseLo) == static_cast<uint32_t>(kQptBase));
  // The first offset past the last counter (DB_LOCK_PARK_WAITS at 0x108): SLVERR.
  const uint32_t past_counters = csr::kCounters + 4 * static_cast<uint32_t>(kCounterNames.size());
  CHECK(past_counters == 0x10c);
  CHECK(env.read_csr(past_counters - 12) == 0);  // no take-back yet
  CHECK(env.read_csr(past_counters - 8) == 0);   // no operation found the lock park full
  CHECK(env.read_csr(past_counters - 4) == 0);   // no doorbell found its lock park full
  CHECK_THROWS(env.read_csr(past_counters));
  // Pages are mapped: QPT_BASE and QPN_LIMIT are read-only (SLVERR, counted, unchanged).
  CHECK_THROWS(env.write_csr(csr::kQpnLimit, 100));
  CHECK_THROWS(env.write_csr(csr::kQptBaseLo, 0x2000));
  CHECK_THROWS(env.write_csr(csr::kQptBaseHi, 1));
  CHECK(env.read_csr(csr::kQpnLimit) == 4096);
  CHECK(env.read_csr(csr::kQptBaseLo) == static_cast<uint32_t>(kQptBase));
  CHECK(env.read_csr(csr::kQptBaseHi) == static_cast<uint32_t>(kQptBase >> 32));
  CHECK(counter(env, "csr_refused") == 3);
  // Once every page is unmapped they are writable again.
  for (uint32_t i = 0; i < 4096 / 64; ++i) {
    Command unmap;
    unmap.op = Opcode::UnmapPage;
    unmap.dir_index = i;
    REQUIRE(env.execute(unmap).status == Status::Ok);
  }
  env.write_csr(csr::kQpnLimit, 0xffffffffu);
  CHECK(env.read_csr(csr::kQpnLimit) == 1u << 24);  // DirEntries << PAGE_BITS: all QPNs
  env.write_csr(csr::kQpnLimit, 4096);
  CHECK(counter(env, "csr_refused") == 3);
}

TEST_CASE("CSRs: EVICT_POLICY takes the four policies and refuses anything else, "
          "EVICT_TRAP_TIMEOUT keeps 16 bits", "[qp_table][eviction]") {
  QpmEnv env(tiny(3));
  CHECK(env.read_csr(csr::kEvictPolicy) == 0);  // tree-PLRU out of reset
  for (uint32_t p : {1u, 2u, 3u, 0u}) {
    env.write_csr(csr::kEvictPolicy, p);
    CHECK(env.read_csr(csr::kEvictPolicy) == p);
  }
  env.write_csr(csr::kEvictPolicy, 1);
  // 4 and above are no policy: SLVERR, counted, unchanged.
  for (uint32_t p : {4u, 0x101u, 0xffffffffu}) {
    INFO("policy " << p);
    CHECK_THROWS(env.write_csr(csr::kEvictPolicy, p));
    CHECK(env.read_csr(csr::kEvictPolicy) == 1);
  }
  CHECK(counter(env, "csr_refused") == 3);
  // Byte strobes: byte 1 alone would make 0x201, no policy: refused too.
  CHECK_THROWS(env.write_csr(csr::kEvictPolicy, 0x0200, 0x2));
  CHECK(env.read_csr(csr::kEvictPolicy) == 1);
  CHECK(counter(env, "csr_refused") == 4);
  // The trap timeout: 256 out of reset, 16 bits, byte strobes honoured.
  CHECK(env.read_csr(csr::kEvictTrapTimeout) == 256);
  env.write_csr(csr::kEvictTrapTimeout, 0xabcd1234u);
  CHECK(env.read_csr(csr::kEvictTrapTimeout) == 0x1234);
  env.write_csr(csr::kEvictTrapTimeout, 0x5600, 0x2);
  CHECK(env.read_csr(csr::kEvictTrapTimeout) == 0x5634);
}

TEST_CASE("a QP's context survives eviction bit for bit", "[qp_table]") {
  QpmEnv env(tiny(2));
  walk_to(env, 0x20, 2, QpState::Rts);
  const Qpc before = env.execute(qpn_cmd(Opcode::QueryQp, 0x20)).qpc;
  // Thrash: many other QPs through the 4-line cache.
  for (uint32_t q = 0x100; q < 0x140; ++q) {
    REQUIRE(env.execute(create_cmd(q, 3)).status == Status::Ok);
  }
  CHECK(counter(env, "evictions") > 50);
  CHECK(counter(env, "writebacks") > 50);
  const Qpc after = env.execute(qpn_cmd(Opcode::QueryQp, 0x20)).qpc;
  CHECK(pack_qpc(after) == pack_qpc(before));
  require_clean(env);
}

TEST_CASE("refused QPNs cause at most a directory read, never a QPC access", "[qp_table]") {
  QpmEnv env(tiny(3));
  Command unmap;
  unmap.op = Opcode::UnmapPage;
  unmap.dir_index = 7;
  REQUIRE(env.execute(unmap).status == Status::Ok);
  const uint64_t reads = env.memory().reads(), writes = env.memory().writes();
  const MemoryTraffic before = env.traffic();
  const uint32_t refused = counter(env, "refused");
  // At or above the limit: no memory access at all.
  CHECK(env.execute(qpn_cmd(Opcode::QueryQp, 4096)).status == Status::BadRes);
  CHECK(env.execute(create_cmd(0xfffff, 2)).status == Status::BadRes);
  CHECK(env.execute(qpn_cmd(Opcode::QueryQp, 0x01000005)).status == Status::BadRes);  // > 24 bits
  CHECK(env.memory().reads() == reads);
  // On an unmapped page: the directory read says so (SPEC §3.2), no QPC is touched.
  CHECK(env.execute(create_cmd(7 * 64 + 3, 2)).status == Status::BadRes);
  CHECK(env.execute(modify_cmd(7 * 64 + 4, attr::kState, 1)).status == Status::BadRes);
  CHECK(env.memory().reads() == reads + 2);
  CHECK(env.traffic().dir_reads == before.dir_reads + 2);
  CHECK(env.traffic().qpc_reads == before.qpc_reads);
  CHECK(env.memory().writes() == writes);
  CHECK(counter(env, "refused") == refused + 5);
  require_clean(env);
}

TEST_CASE("UNMAP_PAGE and MAP_PAGE of a page holding a valid QP are refused", "[qp_table]") {
  QpmEnv env(tiny(4));
  REQUIRE(env.execute(create_cmd(3 * 64 + 1, 4)).status == Status::Ok);
  Command unmap;
  unmap.op = Opcode::UnmapPage;
  unmap.dir_index = 3;
  CHECK(env.execute(unmap).status == Status::ResBusy);
  Command remap;
  remap.op = Opcode::MapPage;
  remap.dir_index = 3;
  remap.page_address = 0x7000000000;
  CHECK(env.execute(remap).status == Status::ResBusy);
  CHECK(env.execute(qpn_cmd(Opcode::QueryQp, 3 * 64 + 1)).status == Status::Ok);
  REQUIRE(env.execute(qpn_cmd(Opcode::DestroyQp, 3 * 64 + 1)).status == Status::Ok);
  CHECK(env.execute(unmap).status == Status::Ok);
  CHECK(env.execute(qpn_cmd(Opcode::QueryQp, 3 * 64 + 1)).status == Status::BadRes);
  // Mapped again at the same address, the destroyed context (and its epoch) is back.
  remap.page_address = kFirstPage + 3 * 4096;
  CHECK(env.execute(remap).status == Status::Ok);
  const Response again = env.execute(create_cmd(3 * 64 + 1, 4));
  REQUIRE(again.status == Status::Ok);
  CHECK(again.qpc.epoch == 1);
  require_clean(env);
}

TEST_CASE("injected read errors: commands never fail, a live QP whose context read failed is made fatal",
          "[qp_table]") {
  EnvOptions o = tiny(5);
  o.mem.read_error_rate = 0.15;
  QpmEnv env(o);
  StimulusOptions so;
  so.qps = 40;
  RandomStimulus stim(env.rng(), env.model(), so);
  env.run_stream(1500, [&] { return stim.next(); });
  // Walks read again until they succeed (docs/events.md, "Memory faults"): the
  // scoreboard takes INT_ERR only from MAP and UNMAP_PAGE, whose own reads can fail.
  CHECK(env.qps_made_fatal() > 0);
  CHECK(env.events().counts()[EventType::QpFatal] >= env.qps_made_fatal());  // PORT_FAULT's too
  CHECK(counter(env, "mem_errors") > 10);
  CHECK(env.memory().injected_read_errors() == counter(env, "mem_errors"));
  require_clean(env);  // every other QP's context is exactly what the model says
}

TEST_CASE("counters through the command port are exact on a known sequence", "[qp_table]") {
  QpmEnv env(tiny(6));  // 2 sets x 2 ways; one command at a time, so no prefetch
  const auto base = env.read_counters();
  auto delta = [&](const char *name) {
    for (size_t i = 0; i < kCounterNames.size(); ++i) {
      if (std::string(kCounterNames[i]) == name) return env.read_counters()[i] - base[i];
    }
    FAIL("no counter " << name);
    return 0u;
  };
  // QPNs 2, 4, 6 share set 0 of page 0.
  REQUIRE(env.execute(create_cmd(2, 2)).status == Status::Ok);  // fill into an empty way
  REQUIRE(env.execute(create_cmd(4, 2)).status == Status::Ok);  // the other empty way
  CHECK(delta("misses") == 2);
  CHECK(delta("evictions") == 0);
  CHECK(delta("writebacks") == 0);
  REQUIRE(env.execute(qpn_cmd(Opcode::QueryQp, 2)).status == Status::Ok);  // a hit
  REQUIRE(env.execute(create_cmd(6, 2)).status == Status::Ok);  // evicts 4, dirty
  CHECK(delta("misses") == 3);
  CHECK(delta("walks") == 3);
  CHECK(delta("dir_hits") == 2);
  CHECK(delta("evictions") == 1);
  CHECK(delta("writebacks") == 1);
  CHECK(delta("refused") == 0);
  CHECK(env.execute(qpn_cmd(Opcode::QueryQp, 4096)).status == Status::BadRes);
  CHECK(delta("refused") == 1);
  CHECK(delta("mem_errors") == 0);
  require_clean(env);
}

TEST_CASE("system seeds on tiny: evictions on almost every command, zero mismatches",
          "[qp_table]") {
  const uint64_t seed = GENERATE(201, 202, 203);
  EnvOptions o = tiny(seed);
  o.mem.backpressure = seed == 203 ? 0.3 : 0.0;
  o.mem.aw_waits_for_w = seed == 202;  // a legal slave that a W-after-AW master hangs
  o.cmd_idle_prob = 0.1;
  o.rsp_stall_prob = 0.2;
  QpmEnv env(o);
  StimulusOptions so;
  so.qps = 300;
  RandomStimulus stim(env.rng(), env.model(), so);
  env.run_stream(2500, [&] { return stim.next(); });
  INFO("replay: qpm_sim --config tiny --seed " << seed);
  require_clean(env);
  CHECK(counter(env, "misses") > 1000);
  CHECK(counter(env, "merged") > 100);  // the next command's prefetch, joined by its read
  CHECK(counter(env, "evictions") > 1000);
  CHECK(counter(env, "writebacks") > 500);
}
