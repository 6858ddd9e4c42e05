// Block tests of the QP cache and AXI4 master (tests/rtl/qpm_ctx_tb_top.sv: 2 sets x
// 4 ways, 4 miss registers) against the AXI4 memory model. Unlike the command unit,
// these tests keep many tagged requests in flight, which is what exercises merges,
// hits under misses and the races between lookups, fills and evictions.
#include <verilated.h>

#include <catch2/catch.hpp>
#include <array>
#include <deque>
#include <functional>
#include <optional>
#include <map>
#include <memory>
#include <random>
#include <set>

#include "replacement.h"
#include "Vqpm_ctx_tb_top.h"
#include "axi_memory.h"
#include "axi_pins.h"
#include "qpm_types.h"
#include "testbench.h"

using namespace qpm;

namespace {

constexpr uint32_t kSets = 2, kWays = 4, kMshrs = 4;
constexpr uint64_t kBase = 0x10000000;     // directory
constexpr uint64_t kPages = 0x200000000;   // page i at kPages + i * 4 KiB
constexpr uint32_t kLimit = 1024;          // 16 pages of 64 QPCs
enum Op : uint32_t { kRead = 0, kWrite = 1, kDirWrite = 2, kPin = 3, kUnpin = 4, kSync = 5 };
enum St : uint32_t { kOk = 0, kMemErr = 1, kUnmapped = 2, kBusy = 3 };
// qpm_pkg::ctx_req_t, least significant first: op 3, payload 512 (a write's QPC, or a
// directory write's entry in its low 64 bits), index 24, tag 4.
constexpr unsigned kReqBits = 543;
enum Counter { kHits, kMisses, kMerged, kEvictions, kWritebacks, kWalks, kDirHits, kRefused,
               kMemErrors, kMissWaits, kWbRetries, kNumCounters };

uint64_t qpc_addr(uint32_t qpn) { return kPages + uint64_t{qpn >> 6} * 4096 + (qpn & 63) * 64; }

struct Rsp {
  uint32_t tag, status;
  BitVec data{512};
};

// What a fill installs when a read of the QPC failed first and was read again
// (docs/events.md, "Memory faults"): a valid QP in neither RESET nor ERR goes to ERR with
// QP_FATAL pending, its cause memory (ev_fatal_port 0; ev_fatal_write set when the QPC
// came back from a write-back given up instead, docs/qp-cache.md section 20). Every other
// bit is kept.
BitVec made_fatal(BitVec v, bool write_fault = false) {
  unsigned state = 0, ev = 0, port = 0, write = 0;
  for (const auto &f : qpc_field_positions()) {
    if (f.name == std::string("state")) state = f.lsb;
    if (f.name == std::string("ev_pending")) ev = f.lsb;
    if (f.name == std::string("ev_fatal_port")) port = f.lsb;
    if (f.name == std::string("ev_fatal_write")) write = f.lsb;
  }
  const uint64_t st = v.get(state, 3);
  if (v.get(0, 1) && st != static_cast<uint64_t>(QpState::Reset) &&
      st != static_cast<uint64_t>(QpState::Err)) {
    v.set(state, 3, static_cast<uint64_t>(QpState::Err));
    v.set(ev, 5, v.get(ev, 5) | 0x10);
    v.set(port, 1, 0);
    v.set(write, 1, write_fault ? 1 : 0);
  }
  return v;
}

class CacheBench {
 public:
  explicit CacheBench(uint64_t seed, AxiMemoryOptions mo = {})
      : rng_(seed), mem_(rng_, mo), ctx_(std::make_unique<VerilatedContext>()) {
    ctx_->randReset(2);
    ctx_->randSeed(verilator_seed(seed));
    ctx_->fatalOnError(false);
    top_ = std::make_unique<Vqpm_ctx_tb_top>(ctx_.get(), "TOP");
    top_->qpt_base_i = kBase;
    top_->qpn_limit_i = kLimit;
    top_->evict_policy_i = 0;  // tree-PLRU
    top_->trap_timeout_i = 256;
    top_->wb_retry_budget_i = 0;  // retry for ever, unless a test sets a budget
    top_->lock_valid_i = 0;
    top_->lock_qpn_i = 0;
    top_->trap_req_ready_i = 0;
    top_->trap_rsp_valid_i = 0;
    top_->req_valid_i = 0;
    drive_axi_slave_pins(*top_, AxiSlaveOut{});
    top_->clk_i = 0;
    top_->rst_ni = 1;
    top_->eval();
    top_->rst_ni = 0;
    top_->eval();
    for (int i = 0; i < 4; ++i) tick();
    top_->rst_ni = 1;
    top_->eval();
    mem_.map_region(kBase, 4096);
    // Every QPC starts with known random contents (valid bit clear) in mapped pages.
    for (uint32_t d = 0; d < kLimit / 64; ++d) {
      mem_.map_region(kPages + uint64_t{d} * 4096, 4096);
      REQUIRE(call(kDirWrite, d, nullptr, (kPages + uint64_t{d} * 4096) | 1).status == kOk);
    }
    for (uint32_t q = 0; q < kLimit; ++q) {
      BitVec v = random_qpc();
      v.set(0, 1, 0);  // pages are handed over holding no valid QPC
      expect_[q] = v;
      std::array<uint8_t, 64> b{};
      for (unsigned i = 0; i < 64; ++i) b[i] = static_cast<uint8_t>(v.get(8 * i, 8));
      mem_.write_bytes(qpc_addr(q), b.data(), b.size());
    }
    counts_.fill(0);
  }
  ~CacheBench() { top_->final(); }

  void set_policy(EvictPolicy p) { top_->evict_policy_i = static_cast<uint8_t>(p); }
  void set_wb_budget(uint32_t tries) { top_->wb_retry_budget_i = static_cast<uint8_t>(tries); }

  // The eviction-trap agent (docs/eviction.md): takes every question, and answers it
  // `latency` cycles later with the way `answer` returns (none: it stays silent).
  struct TrapQuestion {
    uint64_t cycle = 0;
    uint32_t tag = 0, set = 0;
    std::array<uint32_t, kWays> qpn{};
    std::array<bool, kWays> valid{}, dirty{}, pinned{}, eligible{};
  };
  void trap_agent(uint32_t latency,
                  std::function<std::optional<uint32_t>(const TrapQuestion &)> answer) {
    trap_latency_ = latency;
    trap_answer_ = std::move(answer);
    top_->trap_req_ready_i = 1;
  }
  void set_trap_timeout(uint32_t cycles) { top_->trap_timeout_i = cycles; }
  std::vector<TrapQuestion> questions_;
  std::array<uint64_t, 4> trap_counts_{};  // questions, timeouts, rejected, dropped
  uint64_t trap_busy_ = 0;                 // cycles with a question open
  uint32_t trap_latency_ = 0;
  std::function<std::optional<uint32_t>(const TrapQuestion &)> trap_answer_;
  std::deque<std::array<uint64_t, 3>> pending_answers_;  // {cycle, tag, way}

  BitVec random_qpc() {
    BitVec v(512);
    for (auto &w : v.words()) w = static_cast<uint32_t>(rng_());
    return v;
  }

  void tick() {
    top_->clk_i = 0;
    top_->eval();
    mem_.sample(axi_master_pins(*top_));
    if (top_->req_valid_i && top_->req_ready_o) {
      queue_.pop_front();
    }
    if (top_->rsp_valid_o) {
      Rsp r;
      BitVec raw(518);
      for (unsigned w = 0; w < raw.words().size(); ++w) raw.words()[w] = top_->rsp_o[w];
      r.status = static_cast<uint32_t>(raw.get(0, 2));
      for (unsigned w = 0; w < 16; ++w) r.data.words()[w] = static_cast<uint32_t>(raw.get(2 + 32 * w, 32));
      r.tag = static_cast<uint32_t>(raw.get(514, 4));
      rsps_.push_back(r);
    }
    for (int c = 0; c < kNumCounters; ++c) counts_[c] += (top_->count_o >> c) & 1;
    if (top_->mem_fatal_o && !top_->mem_fatal_write_o) fatal_qpns_.push_back(top_->mem_fatal_qpn_o);
    if (top_->mem_fatal_o && top_->mem_fatal_write_o) wfault_qpns_.push_back(top_->mem_fatal_qpn_o);
    given_up_ += top_->cnt_given_up_o;
    for (int c = 0; c < 4; ++c) trap_counts_[c] += (top_->trap_cnt_o >> c) & 1;
    trap_busy_ += (top_->trap_cnt_o >> 4) & 1;
    if (top_->trap_req_valid_o && top_->trap_req_ready_i) {
      BitVec q(117);
      for (unsigned w = 0; w < q.words().size(); ++w) q.words()[w] = top_->trap_req_o[w];
      TrapQuestion t;
      t.cycle = cycles_;
      for (unsigned w = 0; w < kWays; ++w) {
        const uint32_t info = static_cast<uint32_t>(q.get(28 * w, 28));
        t.qpn[w] = info & 0xffffff;
        t.valid[w] = (info >> 24) & 1;
        t.dirty[w] = (info >> 25) & 1;
        t.pinned[w] = (info >> 26) & 1;
        t.eligible[w] = (info >> 27) & 1;
      }
      t.set = static_cast<uint32_t>(q.get(112, 1));
      t.tag = static_cast<uint32_t>(q.get(113, 4));
      questions_.push_back(t);
      if (const auto way = trap_answer_(t)) pending_answers_.push_back({cycles_ + trap_latency_, t.tag, *way});
    }
    top_->clk_i = 1;
    top_->eval();
    drive_axi_slave_pins(*top_, mem_.drive());
    top_->trap_rsp_valid_i = 0;
    if (!pending_answers_.empty() && pending_answers_.front()[0] <= cycles_) {
      top_->trap_rsp_valid_i = 1;
      top_->trap_rsp_tag_i = static_cast<uint8_t>(pending_answers_.front()[1]);
      top_->trap_rsp_way_i = static_cast<uint8_t>(pending_answers_.front()[2]);
      pending_answers_.pop_front();
    }
    top_->req_valid_i = !queue_.empty();
    if (!queue_.empty()) {
      for (unsigned w = 0; w < queue_.front().words().size(); ++w) top_->req_i[w] = queue_.front().words()[w];
    }
    top_->eval();
    ++cycles_;
  }

  // Queue a request (sent as soon as the cache takes it).
  void send(uint32_t op, uint32_t index, uint32_t tag, const BitVec *wdata = nullptr,
            uint64_t dir_entry = 0) {
    BitVec req(kReqBits);
    req.set(0, 3, op);
    if (wdata) {
      for (unsigned w = 0; w < 16; ++w) req.set(3 + 32 * w, 32, wdata->get(32 * w, 32));
    }
    if (op == kDirWrite) req.set(3, 64, dir_entry);
    req.set(515, 24, index);
    req.set(539, 4, tag);
    queue_.push_back(req);
  }
  // Send one request and wait for its response.
  Rsp call(uint32_t op, uint32_t index, const BitVec *wdata = nullptr, uint64_t dir_entry = 0) {
    send(op, index, 0, wdata, dir_entry);
    const size_t before = rsps_.size();
    for (int i = 0; rsps_.size() == before; ++i) {
      REQUIRE(i < 100000);
      tick();
    }
    Rsp r = rsps_.back();
    rsps_.clear();
    return r;
  }
  void run_until_quiet(size_t responses) {
    for (int i = 0; rsps_.size() < responses || !queue_.empty(); ++i) {
      REQUIRE(i < 1000000);
      tick();
    }
  }
  // Memory contents of a QPC, as bits.
  BitVec memory_qpc(uint32_t qpn) const {
    std::array<uint8_t, 64> b{};
    mem_.read_bytes(qpc_addr(qpn), b.data(), b.size());
    BitVec v(512);
    for (unsigned i = 0; i < 64; ++i) v.set(8 * i, 8, b[i]);
    return v;
  }

  std::mt19937_64 rng_;
  AxiMemory mem_;
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Vqpm_ctx_tb_top> top_;
  std::deque<BitVec> queue_;
  std::vector<Rsp> rsps_;
  std::array<uint64_t, kNumCounters> counts_{};
  std::map<uint32_t, BitVec> expect_;  // current contents per QPN
  std::vector<uint32_t> fatal_qpns_;   // mem_fatal_o pulses: QPs a fill made fatal
  std::vector<uint32_t> wfault_qpns_;  // ... with mem_fatal_write_o: a write given up
  uint64_t given_up_ = 0;              // cnt_given_up_o pulses (WB_GIVEN_UP)
  uint64_t cycles_ = 0;
};

// QPNs of one set (set = qpn % kSets), on page 0.
uint32_t in_set(uint32_t set, uint32_t k) { return 2 + set + kSets * (k + 1); }

}  // namespace

TEST_CASE("cache: miss, hit, merge, and a hit served while a miss is outstanding", "[cache]") {
  AxiMemoryOptions mo;
  mo.latency_min = mo.latency_max = 200;  // long misses, so the overlap is certain
  CacheBench b(1, mo);
  const uint32_t a = in_set(0, 0), h = in_set(1, 0);
  REQUIRE(b.call(kRead, h).data == b.expect_.at(h));  // miss, fill
  CHECK(b.counts_[kMisses] == 1);
  REQUIRE(b.call(kRead, h).data == b.expect_.at(h));  // hit
  CHECK(b.counts_[kHits] == 1);
  const uint64_t reads = b.mem_.reads();
  // A miss on a, a second request to a (merged), and a hit on h, all in flight at once.
  b.send(kRead, a, 1);
  b.send(kRead, a, 2);
  b.send(kRead, h, 3);
  b.run_until_quiet(3);
  REQUIRE(b.rsps_.size() == 3);
  CHECK(b.rsps_[0].tag == 3);  // the hit did not wait for the miss
  CHECK(b.rsps_[1].tag == 1);  // the two answers for a in request order
  CHECK(b.rsps_[2].tag == 2);
  CHECK(b.rsps_[1].data == b.expect_.at(a));
  CHECK(b.rsps_[2].data == b.expect_.at(a));
  CHECK(b.counts_[kMerged] == 1);
  CHECK(b.counts_[kMisses] == 2);
  CHECK(b.mem_.reads() - reads == 1);  // one fill for two requests (the page walk was cached)
  CHECK_FALSE(b.ctx_->gotError());
}

TEST_CASE("cache: random concurrent traffic keeps per-QPN order, data and memory exact",
          "[cache]") {
  // Seed 14: memory 200 .. 500 cycles, so the miss registers are all busy most of the
  // time and many requests go round the parking port (docs/qp-cache.md section 21).
  const uint64_t seed = GENERATE(11, 12, 13, 14);
  AxiMemoryOptions mo;
  mo.latency_min = seed == 14 ? 200 : 5;
  mo.latency_max = seed == 14 ? 500 : 120;
  mo.reorder = true;
  mo.backpressure = seed == 13 ? 0.3 : 0.0;
  mo.aw_waits_for_w = seed == 12;
  CacheBench b(seed, mo);
  std::mt19937_64 rng(seed);
  std::vector<uint32_t> pool;
  for (uint32_t k = 0; k < 24; ++k) pool.push_back(2 + static_cast<uint32_t>(rng() % (kLimit - 2)));
  struct Out {
    uint32_t qpn, op;
    BitVec expect{512};
  };
  std::map<uint32_t, Out> outstanding;            // by tag
  std::map<uint32_t, std::deque<uint32_t>> order;  // per QPN: tags in request order
  std::vector<uint32_t> free_tags;
  for (uint32_t t = 0; t < 16; ++t) free_tags.push_back(t);
  int sent = 0, checked = 0;
  while (checked < 3000) {
    if (sent < 3000 && !free_tags.empty() && b.queue_.empty() && rng() % 3 != 0) {
      const uint32_t tag = free_tags.back();
      free_tags.pop_back();
      const uint32_t qpn = pool[rng() % pool.size()];
      Out o{qpn, (rng() % 3 == 0) ? kWrite : kRead};
      if (o.op == kWrite) {
        b.expect_[qpn] = b.random_qpc();
        b.send(kWrite, qpn, tag, &b.expect_[qpn]);
      } else {
        o.expect = b.expect_.at(qpn);
        b.send(kRead, qpn, tag);
      }
      outstanding[tag] = o;
      order[qpn].push_back(tag);
      ++sent;
    }
    b.tick();
    REQUIRE(b.cycles_ < 2000000);
    for (const Rsp &r : b.rsps_) {
      REQUIRE(outstanding.count(r.tag) == 1);
      const Out o = outstanding[r.tag];
      INFO("tag " << r.tag << " qpn " << o.qpn);
      REQUIRE(r.status == kOk);
      REQUIRE(order[o.qpn].front() == r.tag);  // per-QPN order
      order[o.qpn].pop_front();
      if (o.op == kRead) REQUIRE(r.data == o.expect);
      outstanding.erase(r.tag);
      free_tags.push_back(r.tag);
      ++checked;
    }
    b.rsps_.clear();
  }
  REQUIRE(b.call(kSync, 0).status == kOk);
  for (uint32_t q : pool) {
    INFO("qpn " << q);
    CHECK(b.memory_qpc(q) == b.expect_.at(q));
  }
  CHECK(b.mem_.violations().empty());
  CHECK(b.counts_[kMerged] > 0);
  CHECK(b.counts_[kEvictions] > 0);
  CHECK(b.counts_[kWritebacks] > 0);
  if (seed == 14) CHECK(b.counts_[kMissWaits] > 100);  // deferred requests, many
  CHECK_FALSE(b.ctx_->gotError());
}

TEST_CASE("cache: tree-PLRU victim order, pinned lines skipped", "[cache]") {
  CacheBench b(2);
  const uint32_t A = in_set(0, 0), B = in_set(0, 1), C = in_set(0, 2), D = in_set(0, 3),
                 E = in_set(0, 4), F = in_set(0, 5);
  for (uint32_t q : {A, B, C, D}) b.call(kRead, q);  // fills ways 0..3 in order
  b.call(kRead, A);                                  // A is now the most recent
  // True LRU would now evict B; tree-PLRU points at the other half of the tree: C.
  b.call(kRead, E);
  const uint64_t misses = b.counts_[kMisses];
  b.call(kRead, B);
  b.call(kRead, A);
  CHECK(b.counts_[kMisses] == misses);  // A and B still cached
  b.call(kRead, C);
  CHECK(b.counts_[kMisses] == misses + 1);  // C was the victim
  // Pin everything but one way; a thrash of the set must leave the pinned lines alone.
  REQUIRE(b.call(kPin, A).status == kOk);
  REQUIRE(b.call(kPin, B).status == kOk);
  REQUIRE(b.call(kPin, C).status == kOk);
  for (int i = 0; i < 6; ++i) b.call(kRead, (i % 2) ? E : F);
  const uint64_t before = b.counts_[kMisses];
  for (uint32_t q : {A, B, C}) REQUIRE(b.call(kRead, q).data == b.expect_.at(q));
  CHECK(b.counts_[kMisses] == before);
  CHECK_FALSE(b.ctx_->gotError());
}

// Each policy against its C++ reference (tb/model/replacement.h), on a random sequence
// of reads over 7 QPNs of one set, with two pins and an unpin on the way: every access's
// hit or miss, and so every victim, must be the reference's.
TEST_CASE("cache: tree-PLRU and true LRU victims equal the reference's, pinned lines kept",
          "[cache][eviction]") {
  const EvictPolicy policy = GENERATE(EvictPolicy::Plru, EvictPolicy::Lru);
  CacheBench b(policy == EvictPolicy::Lru ? 21 : 22);
  b.set_policy(policy);
  ReplacementRef ref(kWays, policy);
  std::mt19937 rng(policy == EvictPolicy::Lru ? 5 : 6);
  std::vector<uint32_t> qpns;
  for (uint32_t k = 0; k < 7; ++k) qpns.push_back(in_set(0, k));
  uint64_t ref_misses = 0, evictions = 0;
  uint32_t last = 0;
  std::vector<uint32_t> pinned;
  for (int i = 0; i < 400; ++i) {
    const uint32_t q = qpns[rng() % qpns.size()];
    INFO("access " << i << " qpn " << q);
    if ((i == 150 || i == 200) && std::count(pinned.begin(), pinned.end(), last) == 0) {
      REQUIRE(b.call(kPin, last).status == kOk);  // the QPN read last: cached, a hit
      ref.pin(last, true);
      pinned.push_back(last);
      continue;
    }
    if (i == 300 && !pinned.empty()) {  // unpin the first again (pinned: still cached)
      REQUIRE(b.call(kUnpin, pinned[0]).status == kOk);
      ref.pin(pinned[0], false);
      continue;
    }
    last = q;
    const uint64_t misses = b.counts_[kMisses];
    REQUIRE(b.call(kRead, q).data == b.expect_.at(q));
    REQUIRE(ref.access(q));
    CHECK((b.counts_[kMisses] == misses) == ref.hit());
    if (!ref.hit()) ++ref_misses;
    if (ref.evicted()) ++evictions;
  }
  CHECK(b.counts_[kMisses] == ref_misses);
  CHECK(b.counts_[kEvictions] == evictions);
  CHECK(evictions > 100);
  CHECK_FALSE(b.ctx_->gotError());
}

TEST_CASE("cache: true LRU evicts the least recently used line, where PLRU does not",
          "[cache][eviction]") {
  CacheBench b(23);
  b.set_policy(EvictPolicy::Lru);
  const uint32_t A = in_set(0, 0), B = in_set(0, 1), C = in_set(0, 2), D = in_set(0, 3),
                 E = in_set(0, 4);
  for (uint32_t q : {A, B, C, D}) b.call(kRead, q);  // fills ways 0..3 in order
  b.call(kRead, A);                                  // A is now the most recent
  b.call(kRead, E);                                  // LRU: B goes (PLRU would take C)
  const uint64_t misses = b.counts_[kMisses];
  for (uint32_t q : {A, C, D, E}) b.call(kRead, q);
  CHECK(b.counts_[kMisses] == misses);  // all four still cached
  b.call(kRead, B);
  CHECK(b.counts_[kMisses] == misses + 1);
  CHECK_FALSE(b.ctx_->gotError());
}

// Random: which line a miss evicts is seen from the write-back of a dirty victim; the
// new QPN takes its way.
TEST_CASE("cache: random replacement reaches every eligible way, never a pinned one",
          "[cache][eviction]") {
  CacheBench b(24);
  b.set_policy(EvictPolicy::Random);
  const uint32_t pinned = in_set(0, 0);
  REQUIRE(b.call(kRead, pinned).data == b.expect_.at(pinned));  // way 0 (the lowest empty)
  REQUIRE(b.call(kPin, pinned).status == kOk);
  std::map<uint32_t, unsigned> way_of;  // the set's other lines, all dirty
  std::map<unsigned, int> evictions_of_way;
  for (uint32_t k = 1; k <= 60; ++k) {
    const uint32_t q = in_set(0, k);
    BitVec v = b.random_qpc();
    REQUIRE(b.call(kWrite, q, &v).status == kOk);
    b.expect_[q] = v;
    for (int i = 0; i < 200; ++i) b.tick();  // the victim's write-back lands
    std::vector<uint32_t> gone;
    for (const auto &[c, w] : way_of) {
      if (b.memory_qpc(c) == b.expect_.at(c)) gone.push_back(c);
    }
    if (k <= 3) {
      REQUIRE(gone.empty());  // ways 1..3 were empty
      way_of[q] = k;
      continue;
    }
    INFO("miss " << k);
    REQUIRE(gone.size() == 1);  // exactly one dirty line left, so not the pinned one
    const unsigned w = way_of.at(gone[0]);
    ++evictions_of_way[w];
    way_of.erase(gone[0]);
    way_of[q] = w;
  }
  for (unsigned w = 1; w < kWays; ++w) {
    INFO("way " << w);
    CHECK(evictions_of_way[w] >= 5);  // 57 misses over 3 ways: each well reached
  }
  CHECK(evictions_of_way.count(0) == 0);
  REQUIRE(b.call(kRead, pinned).data == b.expect_.at(pinned));
  CHECK_FALSE(b.ctx_->gotError());
}

// Software-assisted eviction (docs/eviction.md): the agent names the way; the cache
// re-checks it, falls back to tree-PLRU on a wrong answer or none, and asks only when
// the set has no empty way.
TEST_CASE("cache: trap mode asks the agent, evicts the way it names, and says what the set "
          "holds", "[cache][eviction]") {
  CacheBench b(31);
  b.set_policy(EvictPolicy::Trap);
  const uint32_t A = in_set(0, 0), B = in_set(0, 1), C = in_set(0, 2), D = in_set(0, 3),
                 E = in_set(0, 4);
  uint32_t victim_qpn = B;
  b.trap_agent(10, [&](const CacheBench::TrapQuestion &q) -> std::optional<uint32_t> {
    for (uint32_t w = 0; w < kWays; ++w) {
      if (q.qpn[w] == victim_qpn) return w;
    }
    return std::nullopt;
  });
  for (uint32_t q : {A, B, C, D}) b.call(kRead, q);  // empty ways: nobody is asked
  CHECK(b.questions_.empty());
  const uint64_t before = b.cycles_;
  b.call(kRead, E);
  const uint64_t trap_miss = b.cycles_ - before;
  REQUIRE(b.questions_.size() == 1);
  const auto &q = b.questions_[0];
  CHECK(q.set == 0);
  CHECK(q.qpn == std::array<uint32_t, kWays>{A, B, C, D});  // fills took ways 0..3
  for (uint32_t w = 0; w < kWays; ++w) {
    CHECK(q.valid[w]);
    CHECK_FALSE(q.dirty[w]);
    CHECK_FALSE(q.pinned[w]);
    CHECK(q.eligible[w]);
  }
  const uint64_t misses = b.counts_[kMisses];
  for (uint32_t x : {A, C, D, E}) b.call(kRead, x);
  CHECK(b.counts_[kMisses] == misses);  // B went, as the agent said
  // The same miss under PLRU, to see what the question cost: the agent's 10 cycles and
  // a few of the cache's own (the decision latency, docs/eviction.md).
  b.set_policy(EvictPolicy::Plru);
  const uint64_t plru_before = b.cycles_;
  b.call(kRead, B);
  const uint64_t plru_miss = b.cycles_ - plru_before;
  INFO("trap miss " << trap_miss << " cycles, PLRU miss " << plru_miss);
  CHECK(trap_miss >= plru_miss + 10);
  CHECK(trap_miss <= plru_miss + 10 + 8);
  // The counter of open-question cycles says the same: the agent's 10 and a few more.
  CHECK(b.trap_busy_ >= 10);
  CHECK(b.trap_busy_ <= 10 + 8);
  CHECK(b.trap_counts_ == std::array<uint64_t, 4>{1, 0, 0, 0});
  CHECK_FALSE(b.ctx_->gotError());
}

TEST_CASE("cache: trap mode rejects an answer naming a pinned way, times out on silence, "
          "drops a late answer", "[cache][eviction]") {
  CacheBench b(32);
  b.set_policy(EvictPolicy::Trap);
  b.set_trap_timeout(100);
  const uint32_t A = in_set(0, 0), B = in_set(0, 1), C = in_set(0, 2), D = in_set(0, 3);
  enum { kPinnedWay, kSilent, kLate } mode = kPinnedWay;
  b.trap_agent(5, [&](const CacheBench::TrapQuestion &q) -> std::optional<uint32_t> {
    if (mode == kSilent) return std::nullopt;
    for (uint32_t w = 0; w < kWays; ++w) {
      if (q.pinned[w]) return w;
    }
    return 0u;
  });
  for (uint32_t x : {A, B, C, D}) b.call(kRead, x);
  REQUIRE(b.call(kPin, A).status == kOk);
  // A wrong answer: the pinned way. Re-checked, rejected, PLRU's choice taken instead.
  b.call(kRead, in_set(0, 4));
  CHECK(b.trap_counts_ == std::array<uint64_t, 4>{1, 0, 1, 0});
  REQUIRE(b.call(kRead, A).data == b.expect_.at(A));
  // Silence: after the 100-cycle timeout, PLRU's choice.
  mode = kSilent;
  const uint64_t misses = b.counts_[kMisses];
  uint64_t start = b.cycles_;
  b.call(kRead, in_set(0, 5));
  CHECK(b.cycles_ - start >= 100);
  CHECK(b.counts_[kMisses] == misses + 1);
  CHECK(b.trap_counts_ == std::array<uint64_t, 4>{2, 1, 1, 0});
  // A late answer (after the timeout) is dropped and changes nothing.
  mode = kLate;
  b.trap_latency_ = 150;
  start = b.cycles_;
  b.call(kRead, in_set(0, 6));
  CHECK(b.cycles_ - start >= 100);
  for (int i = 0; i < 100; ++i) b.tick();
  CHECK(b.trap_counts_ == std::array<uint64_t, 4>{3, 2, 1, 1});
  REQUIRE(b.call(kRead, A).data == b.expect_.at(A));  // the pinned line never went
  CHECK(b.counts_[kMisses] == misses + 2);
  CHECK_FALSE(b.ctx_->gotError());
}

TEST_CASE("cache: trap mode with no agent falls back to PLRU at once after one question",
          "[cache][eviction]") {
  CacheBench b(33);
  b.set_policy(EvictPolicy::Trap);
  b.set_trap_timeout(50);
  for (uint32_t k = 0; k < 12; ++k) {
    REQUIRE(b.call(kRead, in_set(0, k)).data == b.expect_.at(in_set(0, k)));
  }
  // The first question is never taken: it times out; the 7 later misses do not wait.
  CHECK(b.trap_counts_[0] == 1);
  CHECK(b.trap_counts_[1] == 8);
  CHECK(b.counts_[kMisses] == 12);
  CHECK_FALSE(b.ctx_->gotError());
}

TEST_CASE("cache: at most Ways-1 pinned lines per set", "[cache]") {
  CacheBench b(3);
  for (uint32_t k = 0; k < kWays - 1; ++k) REQUIRE(b.call(kPin, in_set(1, k)).status == kOk);
  CHECK(b.call(kPin, in_set(1, 0)).status == kOk);  // pinning again is fine
  CHECK(b.call(kPin, in_set(1, 7)).status == kBusy);
  CHECK(b.call(kUnpin, in_set(1, 1)).status == kOk);
  CHECK(b.call(kPin, in_set(1, 7)).status == kOk);
  CHECK(b.call(kPin, in_set(0, 7)).status == kOk);  // the other set has room
  CHECK_FALSE(b.ctx_->gotError());
}

TEST_CASE("cache: refused QPNs never reach memory", "[cache]") {
  CacheBench b(4);
  // Unmap page 3 (it holds no valid QPC).
  REQUIRE(b.call(kDirWrite, 3, nullptr, 0).status == kOk);
  const uint64_t reads = b.mem_.reads(), writes = b.mem_.writes();
  CHECK(b.call(kRead, kLimit).status == kUnmapped);
  CHECK(b.call(kRead, 0xffffff).status == kUnmapped);
  CHECK(b.mem_.reads() == reads);  // beyond the limit: nothing read
  // On an unmapped page: one directory read each (no negative caching), no QPC access.
  CHECK(b.call(kRead, 3 * 64 + 5).status == kUnmapped);
  BitVec v = b.random_qpc();
  CHECK(b.call(kWrite, 3 * 64 + 6, &v).status == kUnmapped);
  CHECK(b.mem_.reads() == reads + 2);
  CHECK(b.mem_.writes() == writes);
  CHECK(b.counts_[kRefused] == 4);
}

TEST_CASE("cache: a refusal on an unmapped page takes no victim and writes nothing back",
          "[cache]") {
  // Issue 27 item 6: the walk reads the directory entry before it chooses a way, so a
  // QPN on an unmapped page neither evicts a line nor writes one back.
  CacheBench b(41);
  const uint32_t page = 3, unmapped = page * 64 + 4;  // in set 0 (kSets = 2)
  REQUIRE(b.call(kDirWrite, page, nullptr, 0).status == kOk);
  std::map<uint32_t, BitVec> dirty;
  for (uint32_t k = 0; k < kWays; ++k) {
    const uint32_t q = in_set(0, k);
    REQUIRE(q % kSets == unmapped % kSets);
    BitVec v = b.random_qpc();
    REQUIRE(b.call(kWrite, q, &v).status == kOk);  // the set full of dirty lines
    dirty[q] = v;
  }
  const uint64_t evictions = b.counts_[kEvictions], writes = b.mem_.writes();
  for (int n = 0; n < 3; ++n) CHECK(b.call(kRead, unmapped).status == kUnmapped);
  CHECK(b.counts_[kEvictions] == evictions);
  CHECK(b.mem_.writes() == writes);
  const uint64_t misses = b.counts_[kMisses];
  for (const auto &[q, v] : dirty) CHECK(b.call(kRead, q).data == v);
  CHECK(b.counts_[kMisses] == misses);  // every dirty line is still cached
  CHECK_FALSE(b.ctx_->gotError());
}

TEST_CASE("cache: UNMAP of a page holding a valid QPC is refused, SYNC writes back",
          "[cache]") {
  CacheBench b(5);
  const uint32_t q = 5 * 64 + 9;
  BitVec v = b.random_qpc();
  v.set(0, 1, 1);  // a valid QPC
  REQUIRE(b.call(kWrite, q, &v).status == kOk);
  CHECK(b.memory_qpc(q) != v);  // still only in the cache (write-back)
  // The busy check reads the page in memory, so the page's dirty lines go there first.
  CHECK(b.call(kDirWrite, 5, nullptr, 0).status == kBusy);
  CHECK(b.memory_qpc(q) == v);
  CHECK(b.call(kRead, q).data == v);  // the refused UNMAP left the line cached
  REQUIRE(b.call(kSync, 0).status == kOk);
  CHECK(b.memory_qpc(q) == v);
  v.set(0, 1, 0);  // destroyed
  REQUIRE(b.call(kWrite, q, &v).status == kOk);
  CHECK(b.call(kDirWrite, 5, nullptr, 0).status == kOk);
  CHECK(b.memory_qpc(q) == v);  // flushed before the page was let go
  CHECK(b.call(kRead, q).status == kUnmapped);
  CHECK(b.mem_.violations().empty());
}

TEST_CASE("cache: UNMAP runs beside traffic: other pages' requests answer meanwhile",
          "[cache]") {
  // Issue 27 item 2: MAP/UNMAP no longer close the port. The UNMAP reads its page's 64
  // QPCs, about 64 memory round trips; a hot QPN of another page keeps being answered
  // meanwhile, and a miss on the page being unmapped waits before its walk and is then
  // refused (the directory entry never changes under a walk).
  AxiMemoryOptions mo;
  mo.latency_min = mo.latency_max = 100;
  CacheBench b(42, mo);
  const uint32_t hot = 1 * 64 + 3, page = 5, on_page = page * 64 + 7;
  REQUIRE(b.call(kRead, hot).status == kOk);
  b.send(kDirWrite, page, 1, nullptr, 0);
  b.send(kRead, on_page, 3);
  for (int n = 0; n < 40; ++n) b.send(kRead, hot, 2);
  b.run_until_quiet(42);
  REQUIRE(b.rsps_.size() == 42);
  size_t unmap_at = 0, refused_at = 0, last_hot = 0;
  for (size_t i = 0; i < b.rsps_.size(); ++i) {
    const Rsp &r = b.rsps_[i];
    if (r.tag == 1) unmap_at = i;
    if (r.tag == 3) refused_at = i;
    if (r.tag == 2) {
      CHECK(r.status == kOk);
      last_hot = i;
    }
  }
  CHECK(b.rsps_[unmap_at].status == kOk);
  CHECK(last_hot < unmap_at);  // every hit answered while the UNMAP ran
  CHECK(refused_at > unmap_at);
  CHECK(b.rsps_[refused_at].status == kUnmapped);
  CHECK(b.mem_.violations().empty());
  CHECK_FALSE(b.ctx_->gotError());
}

TEST_CASE("cache: a failed QPC read is read again until it lands, and makes the QP fatal",
          "[cache]") {
  // state: the QP's state in memory; fatal: whether the fill must make it fatal.
  const auto [state, valid, fatal] = GENERATE(table<QpState, bool, bool>({
      {QpState::Rts, true, true}, {QpState::Init, true, true}, {QpState::Sqe, true, true},
      {QpState::Reset, true, false}, {QpState::Err, true, false}, {QpState::Rts, false, false}}));
  INFO("state " << static_cast<int>(state) << " valid " << valid);
  AxiMemoryOptions mo;
  mo.latency_min = mo.latency_max = 50;
  CacheBench b(6, mo);
  const uint32_t good = in_set(1, 0), bad = in_set(0, 0);
  BitVec v = b.random_qpc();
  REQUIRE(b.call(kWrite, good, &v).status == kOk);  // cached and dirty
  REQUIRE(b.call(kRead, in_set(0, 1)).status == kOk);  // the page's directory entry is cached
  // The QP's context in memory: random fields, the state under test.
  Qpc q = unpack_qpc(b.random_qpc());
  q.valid = valid;
  q.state = static_cast<uint32_t>(state);
  const BitVec before = pack_qpc(q);
  std::array<uint8_t, 64> bytes{};
  for (unsigned i = 0; i < 64; ++i) bytes[i] = static_cast<uint8_t>(before.get(8 * i, 8));
  b.mem_.write_bytes(qpc_addr(bad), bytes.data(), bytes.size());
  // Every read burst fails for a while: the fill is sent again and again, nobody is
  // answered, and nothing is made fatal yet.
  AxiMemoryOptions broken = mo;
  broken.read_error_rate = 1.0;
  b.mem_.set_options(broken);
  const uint64_t errors_before = b.counts_[kMemErrors];
  b.send(kRead, bad, 1);
  b.send(kRead, bad, 2);  // merged into the same fill
  for (int i = 0; i < 2000; ++i) b.tick();
  CHECK(b.rsps_.empty());
  CHECK(b.fatal_qpns_.empty());
  CHECK(b.counts_[kMemErrors] - errors_before >= 10);  // read again, never given up
  // Memory heals: both waiters get the context, made fatal when it was live.
  b.mem_.set_options(mo);
  b.run_until_quiet(2);
  REQUIRE(b.rsps_.size() == 2);
  const BitVec expected = made_fatal(before);
  CHECK((expected != before) == fatal);
  for (const Rsp &r : b.rsps_) {
    CHECK(r.status == kOk);
    CHECK(r.data == expected);
  }
  CHECK(b.fatal_qpns_ == (fatal ? std::vector<uint32_t>{bad} : std::vector<uint32_t>{}));
  CHECK(b.counts_[kMemErrors] == b.mem_.injected_read_errors());
  b.rsps_.clear();
  const Rsp r = b.call(kRead, good);  // a hit: no memory involved
  CHECK(r.status == kOk);
  CHECK(r.data == v);
  // The fatal context is written back (its line is dirty).
  REQUIRE(b.call(kSync, 0).status == kOk);
  CHECK(b.memory_qpc(bad) == expected);
}

// Memory answers write bursts SLVERR from now on, every one by default (reads stay
// normal), at a fixed latency of 20 cycles.
static void refuse_writes(CacheBench &b, double rate = 1.0) {
  AxiMemoryOptions broken;
  broken.latency_min = broken.latency_max = 20;
  broken.write_error_rate = rate;
  b.mem_.set_options(broken);
}

// A write answered SLVERR is sent again until memory answers OKAY (docs/qp-cache.md,
// section 10): the cache never drops a context. Memory refuses every write for a
// bounded while (so the test cannot hang), then fails half of them.
TEST_CASE("cache: a SYNC write answered SLVERR is retried until memory takes it", "[cache]") {
  CacheBench b(14);
  const uint32_t q = in_set(1, 2);
  BitVec v = b.random_qpc();
  REQUIRE(b.call(kWrite, q, &v).status == kOk);  // dirty in the cache
  refuse_writes(b);
  b.send(kSync, 0, 1);
  for (int i = 0; i < 2000; ++i) b.tick();
  // Sent again after every SLVERR, after a backoff of 16 << min(tries, 6) cycles
  // (docs/qp-cache.md section 20): 16 + 32 + ... + 1024 is 2032, so at most 7 by now.
  CHECK(b.mem_.injected_write_errors() <= 7);
  for (int i = 0; i < 10000; ++i) b.tick();
  CHECK(b.rsps_.empty());  // no answer while memory refuses the write: it is not done
  CHECK(b.mem_.injected_write_errors() >= 12);  // budget 0: retried for ever
  CHECK(b.memory_qpc(q) != v);                  // a failed write changes nothing
  CHECK(b.counts_[kWritebacks] == 0);
  refuse_writes(b, 0.5);
  b.run_until_quiet(1);
  REQUIRE(b.rsps_.size() == 1);
  CHECK(b.rsps_[0].status == kOk);
  CHECK(b.memory_qpc(q) == v);
  CHECK(b.counts_[kWritebacks] == 1);
  CHECK(b.counts_[kWbRetries] == b.mem_.injected_write_errors());
  CHECK(b.counts_[kMemErrors] == b.mem_.injected_write_errors());
  b.rsps_.clear();
  // The line is clean now: another SYNC writes nothing.
  const uint64_t writes = b.mem_.writes();
  REQUIRE(b.call(kSync, 0).status == kOk);
  CHECK(b.mem_.writes() == writes);
  CHECK(b.mem_.violations().empty());
  CHECK_FALSE(b.ctx_->gotError());
}

TEST_CASE("cache: a victim write-back answered SLVERR stays buffered, and a miss on it takes it "
          "back", "[cache]") {
  CacheBench b(16);
  const uint32_t q = in_set(0, 0);
  BitVec v = b.random_qpc();
  REQUIRE(b.call(kWrite, q, &v).status == kOk);  // a miss, filled, now dirty: the one dirty line
  refuse_writes(b);
  // Clean lines of set 0 push q out; its write-back fails, again and again.
  for (uint32_t k = 1; k <= 2 * kWays; ++k) REQUIRE(b.call(kRead, in_set(0, k)).status == kOk);
  REQUIRE(b.mem_.injected_write_errors() > 0);  // q was evicted: the only write is its
  const uint64_t reads = b.mem_.reads();
  // Memory still holds the old q: the miss takes the newest context from the write-back
  // buffer, without a read of memory, while the write goes on failing.
  REQUIRE(b.call(kRead, q).data == v);
  CHECK(b.mem_.reads() == reads);   // none: the directory entry is in the directory cache
  for (int i = 0; i < 12000; ++i) b.tick();
  CHECK(b.mem_.injected_write_errors() >= 12);  // with backoff, for ever (budget 0)
  CHECK(b.memory_qpc(q) != v);
  refuse_writes(b, 0.5);
  for (int i = 0; i < 200000 && b.memory_qpc(q) != v; ++i) b.tick();
  for (int i = 0; i < 100; ++i) b.tick();      // its OKAY follows the data
  CHECK(b.memory_qpc(q) == v);                  // the write lands once memory heals
  CHECK(b.counts_[kWritebacks] == 1);
  CHECK(b.counts_[kWbRetries] == b.mem_.injected_write_errors());
  CHECK(b.mem_.violations().empty());
  CHECK_FALSE(b.ctx_->gotError());
}

// A victim missed again while its write-back is still on its way to memory (issue 26):
// the miss takes the context from the write-back buffer, with no read of memory and
// without waiting for the write's round trip, and the write still lands.
TEST_CASE("cache: a miss on a victim whose write-back is in flight takes it from the buffer",
          "[cache]") {
  CacheBench b(16);
  AxiMemoryOptions slow;
  slow.latency_min = slow.latency_max = 400;
  b.mem_.set_options(slow);
  const uint32_t q = in_set(0, 0);
  BitVec v = b.random_qpc();
  REQUIRE(b.call(kWrite, q, &v).status == kOk);  // dirty
  for (uint32_t k = 1; k < kWays; ++k) REQUIRE(b.call(kRead, in_set(0, k)).status == kOk);
  const uint64_t reads = b.mem_.reads();
  const uint64_t writes = b.mem_.writes();
  b.set_policy(EvictPolicy::Trap);      // the agent names q's way as the victim
  b.trap_agent(1, [&](const CacheBench::TrapQuestion &t) -> std::optional<uint32_t> {
    for (uint32_t w = 0; w < kWays; ++w) {
      if (t.valid[w] && t.qpn[w] == q) return w;
    }
    for (uint32_t w = 0; w < kWays; ++w) {
      if (t.eligible[w]) return w;      // q's own miss: any other
    }
    return std::nullopt;
  });
  b.send(kRead, in_set(0, kWays), 5);   // a miss that evicts q
  while (b.mem_.writes() == writes) {   // until q's write-back is on the bus
    REQUIRE(b.cycles_ < 1000000);
    b.tick();
  }
  b.send(kRead, q, 6);                  // q again: its write is 400 cycles from its answer
  const uint64_t start = b.cycles_;
  while (b.rsps_.empty()) {
    REQUIRE(b.cycles_ - start < 2000);
    b.tick();
  }
  REQUIRE(b.rsps_[0].tag == 6);         // before the miss it followed, still in memory
  CHECK(b.rsps_[0].status == kOk);
  CHECK(b.rsps_[0].data == v);
  CHECK(b.cycles_ - start < 100);       // no memory round trip
  b.run_until_quiet(2);
  CHECK(b.rsps_[1].tag == 5);
  for (int i = 0; i < 1000; ++i) b.tick();   // the write's round trip
  CHECK(b.mem_.reads() == reads + 1);   // the other miss's QPC read only
  CHECK(b.mem_.writes() == writes + 1); // q's write-back, taken back but not dropped
  CHECK(b.memory_qpc(q) == v);
  CHECK(b.counts_[kWritebacks] == 1);
  CHECK(b.mem_.violations().empty());
  CHECK_FALSE(b.ctx_->gotError());
}

// Reads and writes leave on memory ports of their own (docs/qp-cache.md section 12): a
// write-back stuck on AW and W holds back no miss's read. Until 2026-12-07 one request
// port carried both, and a second write-back waiting there stopped every read.
TEST_CASE("cache: misses read memory while write-backs wait for AW and W", "[cache]") {
  CacheBench b(17);
  for (uint32_t k = 0; k < kWays; ++k) {   // set 0 full of dirty lines
    const BitVec v = b.random_qpc();
    REQUIRE(b.call(kWrite, in_set(0, k), &v).status == kOk);
  }
  const uint64_t writes = b.mem_.writes();
  const uint64_t reads = b.mem_.reads();
  b.mem_.hold_writes(true);
  b.send(kRead, in_set(0, kWays), 1);      // a miss that evicts a dirty line ...
  b.send(kRead, in_set(0, kWays + 1), 2);  // ... and another: two write-backs stuck
  for (int i = 0; i < 200; ++i) b.tick();
  b.send(kRead, in_set(1, 0), 3);          // a miss in the other set
  const uint64_t start = b.cycles_;
  while (b.rsps_.size() < 3) {
    REQUIRE(b.cycles_ - start < 2000);
    b.tick();
  }
  CHECK(b.mem_.writes() == writes);        // no write left meanwhile
  CHECK(b.mem_.reads() >= reads + 3);
  for (const Rsp &r : b.rsps_) CHECK(r.status == kOk);
  b.mem_.hold_writes(false);
  for (int i = 0; i < 2000; ++i) b.tick();
  CHECK(b.mem_.writes() == writes + 2);    // both victims written back once released
  CHECK(b.counts_[kWritebacks] == 2);
  CHECK(b.mem_.violations().empty());
  CHECK_FALSE(b.ctx_->gotError());
}

// A live QPC (valid, RTS), so that a fault makes it fatal.
BitVec live_qpc(BitVec v) {
  for (const auto &f : qpc_field_positions()) {
    if (f.name == std::string("state")) v.set(f.lsb, 3, static_cast<uint64_t>(QpState::Rts));
  }
  v.set(0, 1, 1);
  return v;
}

// A live (RTS) context written to q, dirty in the cache; returns what was written.
BitVec write_live(CacheBench &b, uint32_t q) {
  const BitVec v = live_qpc(b.random_qpc());
  REQUIRE(b.call(kWrite, q, &v).status == kOk);
  return v;
}

// The start of the held-context tests: write-backs given up after two tries, a live QPC
// of q dirty in the cache, and from now on every write refused. Returns q's QPC.
static BitVec live_on_refusing_memory(CacheBench &b, uint32_t q) {
  b.set_wb_budget(2);
  const BitVec v = write_live(b, q);
  refuse_writes(b);
  return v;
}

// Write faults (docs/qp-cache.md section 20): with a budget, a write-back memory keeps
// refusing is given up; the context comes back into the cache (here: a miss register
// of its QPN takes it as its fill, with no memory read) and the QP is made fatal there,
// its cause a write fault. Nothing is lost: once memory takes writes again, a SYNC
// writes the newest context.
TEST_CASE("cache: a victim write-back given up comes back: the QP is made fatal, nothing is lost",
          "[cache][wb_fault]") {
  CacheBench b(17);
  const uint32_t q = in_set(0, 0);
  const BitVec v = live_on_refusing_memory(b, q);  // dirty in the cache
  const uint64_t reads = b.mem_.reads();
  // Clean lines of set 0 push q out; its write-back fails twice and is given up.
  for (uint32_t k = 1; k <= kWays; ++k) REQUIRE(b.call(kRead, in_set(0, k)).status == kOk);
  for (int i = 0; i < 400 && b.wfault_qpns_.empty(); ++i) b.tick();
  CHECK(b.given_up_ == 1);
  REQUIRE(b.wfault_qpns_ == std::vector<uint32_t>{q});
  CHECK(b.fatal_qpns_.empty());  // no read failed
  CHECK(b.mem_.injected_write_errors() == 2);
  // q is cached again, made fatal, without a read of its stale memory copy.
  CHECK(b.mem_.reads() == reads + kWays);
  const Rsp r = b.call(kRead, q);
  REQUIRE(r.status == kOk);
  CHECK(r.data == made_fatal(v, true));
  CHECK(b.mem_.reads() == reads + kWays);  // a hit
  CHECK(b.memory_qpc(q) != v);
  // Memory heals: SYNC writes the newest context.
  b.mem_.set_options(AxiMemoryOptions{});
  REQUIRE(b.call(kSync, 0).status == kOk);
  CHECK(b.memory_qpc(q) == made_fatal(v, true));
  CHECK(b.counts_[kWbRetries] == b.mem_.injected_write_errors());
  CHECK(b.mem_.violations().empty());
  CHECK_FALSE(b.ctx_->gotError());
}

// Reads kWays fresh QPNs of `set` (from in_set(set, next) on), so every line the set held
// before is evicted, and lets the write-backs run.
static void push_set_out(CacheBench &b, uint32_t set, uint32_t &next) {
  for (uint32_t k = 0; k < kWays; ++k) REQUIRE(b.call(kRead, in_set(set, next++)).status == kOk);
  for (int i = 0; i < 400; ++i) b.tick();
}

// Held contexts (docs/qp-cache.md section 20): once its QP is fatal, a context whose page
// refuses writes stays in its buffer entry. Its next write-back gets one try (the page is
// remembered as refusing), no second notice, and a miss takes it back as a clean copy
// with no memory read, the entry kept: evicting that copy writes nothing. A write of a
// newer context supersedes the held one and goes to memory once memory takes writes.
TEST_CASE("cache: a held context is taken back clean, with one try and no second notice",
          "[cache][wb_fault]") {
  CacheBench b(19);
  const uint32_t q = in_set(0, 0);
  const BitVec v = live_on_refusing_memory(b, q);
  uint32_t next = 1;  // fresh QPNs of set 0 push q out
  auto push_out = [&] { push_set_out(b, 0, next); };
  push_out();  // two tries, given up, taken back and made fatal (dirty)
  REQUIRE(b.wfault_qpns_ == std::vector<uint32_t>{q});
  REQUIRE(b.given_up_ == 1);
  CHECK(b.mem_.injected_write_errors() == 2);
  const BitVec fatal = made_fatal(v, true);
  // q's line is held now: misses of its set take the other ways. SYNC writes it again:
  // one try on the refused page, then held in its entry; the line, clean, is no longer
  // held, and the next misses push it out without a write.
  REQUIRE(b.call(kSync, 0).status == kOk);
  CHECK(b.given_up_ == 2);
  CHECK(b.mem_.injected_write_errors() == 3);
  CHECK(b.wfault_qpns_.size() == 1);  // no second notice
  push_out();
  const uint64_t reads = b.mem_.reads();
  Rsp r = b.call(kRead, q);  // a take-back, the entry kept
  REQUIRE(r.status == kOk);
  CHECK(r.data == fatal);
  CHECK(b.mem_.reads() == reads);
  const uint64_t reads_after_take = b.mem_.reads();
  push_out();  // the copy is clean: no write
  CHECK(b.mem_.injected_write_errors() == 3);
  CHECK(b.given_up_ == 2);
  CHECK(b.mem_.reads() == reads_after_take + kWays);
  r = b.call(kRead, q);  // taken back again, from the same entry
  REQUIRE(r.status == kOk);
  CHECK(r.data == fatal);
  CHECK(b.mem_.reads() == reads_after_take + kWays);
  CHECK(b.wfault_qpns_.size() == 1);
  // Memory heals; a newer context supersedes the held one and SYNC writes it.
  b.mem_.set_options(AxiMemoryOptions{});
  const BitVec w = b.random_qpc();
  REQUIRE(b.call(kWrite, q, &w).status == kOk);
  REQUIRE(b.call(kSync, 0).status == kOk);
  CHECK(b.memory_qpc(q) == w);
  push_out();  // q leaves clean; its next miss reads memory (nothing held any more)
  const uint64_t reads_before = b.mem_.reads();
  r = b.call(kRead, q);
  REQUIRE(r.status == kOk);
  CHECK(r.data == w);
  CHECK(b.mem_.reads() == reads_before + 1);
  CHECK(b.mem_.violations().empty());
  CHECK_FALSE(b.ctx_->gotError());
}

// Held lines (docs/qp-cache.md section 20, "later evictions skip it"): a context taken
// back after its write was given up holds its line. Misses of its set take the other
// ways while one of them can go, so the dead page sees no new write and the QP no new
// give-up; when every other way is pinned, the held line goes after all (one try on the
// refused page, then held in its entry), so the set is never wedged.
TEST_CASE("cache: a held line is evicted last, and still evicted when nothing else can go",
          "[cache][wb_fault]") {
  CacheBench b(21);
  const uint32_t q = in_set(0, 0);
  const BitVec v = live_on_refusing_memory(b, q);
  uint32_t next = 1;  // fresh QPNs of set 0
  for (uint32_t k = 0; k < kWays; ++k) REQUIRE(b.call(kRead, in_set(0, next++)).status == kOk);
  for (int i = 0; i < 400 && b.wfault_qpns_.empty(); ++i) b.tick();
  REQUIRE(b.wfault_qpns_ == std::vector<uint32_t>{q});  // given up, taken back: held
  REQUIRE(b.given_up_ == 1);
  const uint64_t refused = b.mem_.injected_write_errors();
  // Many misses of set 0, each with a way other than q's to take: q stays.
  for (uint32_t k = 0; k < 4 * kWays; ++k) {
    REQUIRE(b.call(kRead, in_set(0, next++)).status == kOk);
  }
  for (int i = 0; i < 400; ++i) b.tick();
  CHECK(b.given_up_ == 1);
  CHECK(b.mem_.injected_write_errors() == refused);
  uint64_t reads = b.mem_.reads();
  Rsp r = b.call(kRead, q);
  REQUIRE(r.status == kOk);
  CHECK(r.data == made_fatal(v, true));
  CHECK(b.mem_.reads() == reads);  // still cached: a hit
  // Every other way pinned: the next miss of set 0 has only q's line to take.
  std::vector<uint32_t> pinned;
  for (uint32_t k = 0; k < kWays - 1; ++k) {
    pinned.push_back(in_set(0, next++));
    REQUIRE(b.call(kPin, pinned.back()).status == kOk);
  }
  REQUIRE(b.call(kRead, in_set(0, next++)).status == kOk);  // completes: q's line went
  for (int i = 0; i < 400; ++i) b.tick();
  CHECK(b.given_up_ == 2);                                  // one try on the refused page
  CHECK(b.mem_.injected_write_errors() == refused + 1);
  CHECK(b.wfault_qpns_.size() == 1);                        // no second notice
  reads = b.mem_.reads();
  r = b.call(kRead, q);  // taken back from its entry, not read from memory
  REQUIRE(r.status == kOk);
  CHECK(r.data == made_fatal(v, true));
  CHECK(b.mem_.reads() == reads);
  for (uint32_t p : pinned) REQUIRE(b.call(kUnpin, p).status == kOk);
  CHECK(b.mem_.violations().empty());
  CHECK_FALSE(b.ctx_->gotError());
}

// Held contexts wait in the buffer (docs/qp-cache.md section 20): with every entry
// holding one and no dirty line waiting for an entry, nothing moves (pulling a held
// context back into a line would only push a live line out, and mark its QP again).
// The first dirty eviction that finds no entry frees one: a held context goes back
// into its line, and the eviction goes on.
TEST_CASE("cache: held contexts stay in the buffer until a dirty eviction needs an entry",
          "[cache][wb_fault]") {
  CacheBench b(23);
  b.set_wb_budget(2);
  const uint32_t q1 = in_set(0, 0), q2 = in_set(0, 1), r = in_set(1, 0);
  const BitVec v1 = live_qpc(b.random_qpc()), v2 = live_qpc(b.random_qpc());
  REQUIRE(b.call(kWrite, q1, &v1).status == kOk);
  REQUIRE(b.call(kWrite, q2, &v2).status == kOk);
  refuse_writes(b);
  REQUIRE(b.call(kSync, 0).status == kOk);  // both given up; both QPs made fatal in line
  for (int i = 0; i < 400 && b.wfault_qpns_.size() < 2; ++i) b.tick();
  REQUIRE(b.wfault_qpns_.size() == 2);
  REQUIRE(b.call(kSync, 0).status == kOk);  // written again, given up, held in entries
  CHECK(b.given_up_ == 4);
  for (int i = 0; i < 2000; ++i) b.tick();  // every entry held, no one waiting
  CHECK(b.wfault_qpns_.size() == 2);
  CHECK(b.given_up_ == 4);
  // The lines are clean copies, no longer held (SYNC wrote them): pushed out, they write
  // nothing; the entries keep both. Every way of the set goes (the others pinned for the
  // last miss): a held context pulled into its line meanwhile (a mark, no notice) would
  // have left it dirty and held, kept while another way could go, and written now.
  const uint64_t refused = b.mem_.injected_write_errors();
  for (uint32_t k = 2; k < 1 + kWays; ++k) REQUIRE(b.call(kPin, in_set(0, k)).status == kOk);
  REQUIRE(b.call(kRead, in_set(0, 1 + kWays)).status == kOk);
  for (int i = 0; i < 400; ++i) b.tick();
  CHECK(b.mem_.injected_write_errors() == refused);
  CHECK(b.given_up_ == 4);
  for (uint32_t k = 2; k < 1 + kWays; ++k) REQUIRE(b.call(kUnpin, in_set(0, k)).status == kOk);
  const uint64_t reads = b.mem_.reads(), hits = b.counts_[kHits];
  CHECK(b.call(kRead, q1).data == made_fatal(v1, true));  // taken back, no memory read
  CHECK(b.call(kRead, q2).data == made_fatal(v2, true));
  CHECK(b.mem_.reads() == reads);
  CHECK(b.counts_[kHits] == hits);  // misses both: their lines had gone
  // A dirty line of the other set is evicted: it needs an entry, and gets one.
  const BitVec w = write_live(b, r);
  for (uint32_t k = 1; k <= kWays; ++k) REQUIRE(b.call(kRead, in_set(1, k)).status == kOk);
  for (int i = 0; i < 400; ++i) b.tick();
  CHECK(b.given_up_ == 5);  // r's write: one try on the refused page
  Rsp rr = b.call(kRead, r);
  REQUIRE(rr.status == kOk);
  CHECK(rr.data == made_fatal(w, true));
  CHECK(b.call(kRead, q1).data == made_fatal(v1, true));  // nothing lost
  CHECK(b.call(kRead, q2).data == made_fatal(v2, true));
  CHECK(b.call(kRead, in_set(0, 2)).status == kOk);
  // Still refused: SYNC_CACHE tries each held context once more, and holds it again.
  const uint64_t given_up = b.given_up_, refused_before = b.mem_.injected_write_errors();
  REQUIRE(b.call(kSync, 0).status == kOk);
  CHECK(b.mem_.injected_write_errors() >= refused_before + 2);
  CHECK(b.given_up_ >= given_up + 2);
  // Memory heals: the next SYNC_CACHE tries them again, and memory takes them.
  b.mem_.set_options(AxiMemoryOptions{});
  REQUIRE(b.call(kSync, 0).status == kOk);
  CHECK(b.memory_qpc(r) == made_fatal(w, true));
  CHECK(b.memory_qpc(q1) == made_fatal(v1, true));
  CHECK(b.memory_qpc(q2) == made_fatal(v2, true));
  CHECK(b.mem_.violations().empty());
  CHECK_FALSE(b.ctx_->gotError());
}

// SYNC_CACHE tries every given-up context once more, but not one a miss register waits
// on (docs/qp-cache.md section 20, "SYNC tries them again"): re-armed, the entry would be
// on its way to memory instead of there for the take-back. A miss of a held context's
// QPN, and a SYNC queued 0 to 5 cycles behind it, so that it starts while the register
// waits and before the entry's word is read out for the fill (6 cycles on; a SYNC after
// the take-back tries the entry: one refused write): the read answers the held
// context from its entry, the SYNC answers, and the refusing page sees no write. Once
// memory heals, the next SYNC tries the entry, and memory takes it.
TEST_CASE("cache: a SYNC leaves a held context to the miss taking it back",
          "[cache][wb_fault]") {
  for (uint32_t gap = 0; gap <= 5; ++gap) {
    INFO("cycles between the read and the SYNC: " << gap);
    CacheBench b(25);
    const uint32_t q = in_set(0, 0);
    const BitVec v = live_on_refusing_memory(b, q);
    uint32_t next = 1;  // fresh QPNs of set 0 push q out
    auto push_out = [&] { push_set_out(b, 0, next); };
    push_out();                               // given up, taken back, made fatal
    REQUIRE(b.call(kSync, 0).status == kOk);  // one try, then held in its entry
    push_out();                               // its clean copy leaves: q is in the entry only
    REQUIRE(b.given_up_ == 2);
    const uint64_t refused = b.mem_.injected_write_errors(), reads = b.mem_.reads();
    b.send(kRead, q, 1);
    for (uint32_t i = 0; i < gap; ++i) b.tick();
    b.send(kSync, 0, 2);
    for (int i = 0; i < 2000 && b.rsps_.size() < 2; ++i) b.tick();
    REQUIRE(b.rsps_.size() == 2);  // both answer (a lost take-back leaves the read waiting)
    std::optional<BitVec> got;
    for (const Rsp &r : b.rsps_) {
      CHECK(r.status == kOk);
      if (r.tag == 1) got = r.data;
    }
    REQUIRE(got);
    CHECK(*got == made_fatal(v, true));
    b.rsps_.clear();
    for (int i = 0; i < 400; ++i) b.tick();
    CHECK(b.mem_.injected_write_errors() == refused);  // the SYNC left the entry alone
    CHECK(b.given_up_ == 2);
    CHECK(b.mem_.reads() == reads);  // taken back, not read from memory
    CHECK(b.wfault_qpns_.size() == 1);
    b.mem_.set_options(AxiMemoryOptions{});
    REQUIRE(b.call(kSync, 0).status == kOk);
    CHECK(b.memory_qpc(q) == made_fatal(v, true));
    CHECK(b.mem_.violations().empty());
    CHECK_FALSE(b.ctx_->gotError());
  }
}

// The cached case: a SYNC's write-back of a line that stays cached is given up. SYNC
// answers (the fault is the QP's, reported by its QP_FATAL), and the mark makes the QP
// fatal on its line and marks it dirty again, so the context is written when memory
// takes writes again.
TEST_CASE("cache: a SYNC write given up answers, and the line is made fatal and dirty again",
          "[cache][wb_fault]") {
  CacheBench b(18);
  b.set_wb_budget(3);
  const uint32_t q = in_set(1, 2), other = in_set(0, 1);
  const BitVec v = write_live(b, q);
  refuse_writes(b);
  REQUIRE(b.call(kSync, 0).status == kOk);  // after three tries, given up
  CHECK(b.given_up_ == 1);
  for (int i = 0; i < 100 && b.wfault_qpns_.empty(); ++i) b.tick();
  REQUIRE(b.wfault_qpns_ == std::vector<uint32_t>{q});
  const uint64_t reads = b.mem_.reads();
  const Rsp r = b.call(kRead, q);
  REQUIRE(r.status == kOk);
  CHECK(r.data == made_fatal(v, true));
  CHECK(b.mem_.reads() == reads);           // it never left the cache
  REQUIRE(b.call(kRead, other).status == kOk);  // the rest goes on
  b.mem_.set_options(AxiMemoryOptions{});
  REQUIRE(b.call(kSync, 0).status == kOk);
  CHECK(b.memory_qpc(q) == made_fatal(v, true));  // dirty again: written now
  CHECK(b.mem_.violations().empty());
  CHECK_FALSE(b.ctx_->gotError());
}

TEST_CASE("cache: counters are exact on a known sequence", "[cache]") {
  CacheBench b(15);
  const uint32_t q[6] = {in_set(0, 0), in_set(0, 1), in_set(0, 2), in_set(0, 3), in_set(0, 4),
                         in_set(0, 5)};
  // All on page 0: the first walk reads the directory, the rest hit the directory cache.
  for (int i = 0; i < 4; ++i) REQUIRE(b.call(kRead, q[i]).status == kOk);  // 4 fills, empty ways
  CHECK(b.counts_[kMisses] == 4);
  CHECK(b.counts_[kEvictions] == 0);  // filling an empty way evicts nothing
  BitVec v = b.random_qpc();
  REQUIRE(b.call(kWrite, q[1], &v).status == kOk);  // a hit, now dirty
  REQUIRE(b.call(kRead, q[1]).status == kOk);       // a hit
  CHECK(b.counts_[kHits] == 2);
  REQUIRE(b.call(kRead, q[4]).status == kOk);  // full set: one eviction
  REQUIRE(b.call(kRead, q[5]).status == kOk);  // and another
  CHECK(b.counts_[kMisses] == 6);
  CHECK(b.counts_[kWalks] == 6);
  CHECK(b.counts_[kDirHits] == 5);
  CHECK(b.counts_[kEvictions] == 2);
  CHECK(b.counts_[kRefused] == 0);
  CHECK(b.counts_[kMemErrors] == 0);
  REQUIRE(b.call(kSync, 0).status == kOk);
  // q[1] written back once, by the eviction or by SYNC; nothing else was dirty.
  CHECK(b.counts_[kWritebacks] == 1);
  CHECK(b.memory_qpc(q[1]) == v);
  CHECK(b.counts_[kHits] == 2);
}

TEST_CASE("walker: two-level walk, directory cache, coherence with MAP/UNMAP", "[cache]") {
  CacheBench b(7);
  const uint64_t r0 = b.mem_.reads();
  b.call(kRead, 9 * 64 + 1);  // page 9 never walked: directory read + QPC read
  CHECK(b.mem_.reads() - r0 == 2);
  b.call(kRead, 9 * 64 + 2);  // same page: the directory cache saves the first read
  CHECK(b.mem_.reads() - r0 == 3);
  CHECK(b.counts_[kWalks] == 2);
  CHECK(b.counts_[kDirHits] == 1);
  // Re-point page 9 (it holds no valid QPC): the cached directory entry must go.
  const uint64_t moved = 0x300000000;
  b.mem_.map_region(moved, 4096);
  BitVec v = b.random_qpc();
  v.set(0, 1, 0);
  std::array<uint8_t, 64> bytes{};
  for (unsigned i = 0; i < 64; ++i) bytes[i] = static_cast<uint8_t>(v.get(8 * i, 8));
  b.mem_.write_bytes(moved + 3 * 64, bytes.data(), bytes.size());
  REQUIRE(b.call(kDirWrite, 9, nullptr, moved | 1).status == kOk);
  const uint64_t r1 = b.mem_.reads();
  const Rsp r = b.call(kRead, 9 * 64 + 3);
  CHECK(r.data == v);                    // read from the new page
  CHECK(b.mem_.reads() - r1 == 2);       // directory read again, then the QPC
  CHECK(b.counts_[kDirHits] == 1);
}

// SPEC.md section 11.1: the directory cache holds a workload's pages, not the last few (it
// had 4 entries, fully associative; 1,024 direct-mapped slots now, qpm_dir_table).
TEST_CASE("walker: a walk over 16 pages, then again: every second walk hits the directory cache",
          "[cache]") {
  CacheBench b(11);
  constexpr uint32_t kPagesUsed = kLimit / 64;  // 16
  const uint64_t r0 = b.mem_.reads();
  for (uint32_t p = 0; p < kPagesUsed; ++p) REQUIRE(b.call(kRead, p * 64 + 1).status == kOk);
  CHECK(b.mem_.reads() - r0 == 2 * kPagesUsed);   // a directory read and a QPC read each
  CHECK(b.counts_[kDirHits] == 0);
  const uint64_t r1 = b.mem_.reads();
  for (uint32_t p = 0; p < kPagesUsed; ++p) REQUIRE(b.call(kRead, p * 64 + 2).status == kOk);
  CHECK(b.mem_.reads() - r1 == kPagesUsed);       // the QPC reads alone
  CHECK(b.counts_[kWalks] == 2 * kPagesUsed);
  CHECK(b.counts_[kDirHits] == kPagesUsed);
}

TEST_CASE("eviction race: a lookup of a QPN being written back is never served stale",
          "[cache]") {
  AxiMemoryOptions mo;
  mo.latency_min = mo.latency_max = 300;  // a long write-back window
  CacheBench b(8, mo);
  const uint32_t q[5] = {in_set(0, 0), in_set(0, 1), in_set(0, 2), in_set(0, 3), in_set(0, 4)};
  // Fill the set: way 0 dirty, ways 1..3 clean, so tree-PLRU's victim is the dirty
  // line and the re-fetch of its QPN finds a clean way to evict without a write-back
  // of its own: its memory read would overtake the victim's write-back if the cache
  // did not hold it back.
  b.expect_[q[0]] = b.random_qpc();
  b.expect_[q[0]].set(0, 1, 0);
  REQUIRE(b.call(kWrite, q[0], &b.expect_[q[0]]).status == kOk);
  for (int i = 1; i < 4; ++i) REQUIRE(b.call(kRead, q[i]).data == b.expect_.at(q[i]));
  // A miss in the full set evicts the dirty line; right behind it, read every old QPN.
  b.send(kRead, q[4], 1);
  // The race is real: the re-reads go in while the victim's write-back is in memory's
  // hands, unanswered.
  for (int i = 0; i < 100 && !b.mem_.write_pending(qpc_addr(q[0])); ++i) b.tick();
  REQUIRE(b.mem_.write_pending(qpc_addr(q[0])));
  for (int i = 0; i < 4; ++i) b.send(kRead, q[i], static_cast<uint32_t>(2 + i));
  b.run_until_quiet(5);
  REQUIRE(b.rsps_.size() == 5);
  for (const Rsp &r : b.rsps_) {
    const uint32_t qpn = q[r.tag == 1 ? 4 : r.tag - 2];
    INFO("qpn " << qpn);
    CHECK(r.status == kOk);
    CHECK(r.data == b.expect_.at(qpn));
  }
  CHECK(b.counts_[kWritebacks] == 1);  // only q[0] was ever dirty
  CHECK_FALSE(b.ctx_->gotError());
}

// The QPC RAM is read in P0 and written in P1, and a read of a line in the cycle after
// that line was written sees the old contents: only the forward register (the write of
// the cycle before) makes it right. The other tests send one request at a time, never
// two accesses to one line in consecutive cycles, so this one does: a stream of writes
// and reads of one line, one per cycle, while fills land and dirty victims are read
// out in the other set (the RAM's other users in the same cycles).
TEST_CASE("cache: back-to-back accesses to one line see the newest QPC while fills land",
          "[cache]") {
  AxiMemoryOptions mo;
  mo.latency_min = 4;
  mo.latency_max = 30;
  mo.reorder = true;
  CacheBench b(16, mo);
  const uint32_t L = in_set(1, 0);
  REQUIRE(b.call(kRead, L).data == b.expect_.at(L));  // L cached from now on
  struct Exp {
    uint32_t qpn;
    bool read;
    BitVec data{512};
  };
  std::map<uint32_t, std::deque<Exp>> by_tag;  // per tag, in request order
  auto send = [&](uint32_t op, uint32_t qpn, uint32_t tag) {
    Exp e{qpn, op == kRead};
    if (op == kWrite) {
      b.expect_[qpn] = b.random_qpc();
      b.send(kWrite, qpn, tag, &b.expect_[qpn]);
    } else {
      e.data = b.expect_.at(qpn);
      b.send(kRead, qpn, tag);
    }
    by_tag[tag].push_back(e);
  };
  for (uint32_t round = 0; round < 24; ++round) {
    // A miss in set 0 (six QPNs over four ways; every other one a write, so victims
    // are dirty), then 24 accesses to L back to back: write, read, read, write, ...
    send(round % 2 ? kWrite : kRead, in_set(0, round % 6), 8);
    for (uint32_t j = 0; j < 24; ++j) send(j % 3 == 0 ? kWrite : kRead, L, j % 8);
    b.run_until_quiet(25);
    REQUIRE(b.rsps_.size() == 25);
    for (const Rsp &r : b.rsps_) {
      REQUIRE(!by_tag[r.tag].empty());
      const Exp e = by_tag[r.tag].front();
      by_tag[r.tag].pop_front();
      INFO("round " << round << " tag " << r.tag << " qpn " << e.qpn);
      REQUIRE(r.status == kOk);
      if (e.read) REQUIRE(r.data == e.data);
    }
    b.rsps_.clear();
  }
  REQUIRE(b.call(kSync, 0).status == kOk);
  for (uint32_t q : {L, in_set(0, 0), in_set(0, 1), in_set(0, 2), in_set(0, 3), in_set(0, 4),
                     in_set(0, 5)}) {
    INFO("qpn " << q);
    CHECK(b.memory_qpc(q) == b.expect_.at(q));
  }
  CHECK(b.counts_[kEvictions] > 0);
  CHECK(b.counts_[kWritebacks] > 0);
  CHECK(b.mem_.violations().empty());
  CHECK_FALSE(b.ctx_->gotError());
}

TEST_CASE("misses with no eligible way wait, are counted, and all complete", "[cache]") {
  AxiMemoryOptions mo;
  mo.latency_min = 30;
  mo.latency_max = 90;
  mo.reorder = true;
  CacheBench b(9, mo);
  // Three of set 0's four ways pinned: every miss in set 0 shares the last way.
  for (uint32_t k = 0; k < kWays - 1; ++k) REQUIRE(b.call(kPin, in_set(0, k)).status == kOk);
  // Back-to-back misses in set 0, and hits in set 1 between them. A miss register that
  // waits for the shared way must not lock out the one holding it (round-robin).
  REQUIRE(b.call(kRead, in_set(1, 0)).status == kOk);
  uint32_t tag = 0;
  for (uint32_t k = 3; k < 9; ++k) {
    b.send(kRead, in_set(0, k), tag++);
    b.send(kRead, in_set(1, 0), tag++);
  }
  b.run_until_quiet(12);
  REQUIRE(b.rsps_.size() == 12);
  for (const Rsp &r : b.rsps_) {
    const uint32_t qpn = (r.tag % 2) ? in_set(1, 0) : in_set(0, 3 + r.tag / 2);
    INFO("tag " << r.tag);
    CHECK(r.status == kOk);
    CHECK(r.data == b.expect_.at(qpn));
  }
  CHECK(b.counts_[kMissWaits] > 0);
  // The pinned lines were never evicted.
  const uint64_t misses = b.counts_[kMisses];
  for (uint32_t k = 0; k < kWays - 1; ++k) b.call(kRead, in_set(0, k));
  CHECK(b.counts_[kMisses] == misses);
  CHECK_FALSE(b.ctx_->gotError());
}

TEST_CASE("a SYNC waiting behind a miss does not starve the set's last way", "[cache]") {
  CacheBench b(10);
  // Set 0: three ways pinned, the fourth holds QPN 2.
  for (uint32_t k = 0; k < kWays - 1; ++k) REQUIRE(b.call(kPin, in_set(0, k)).status == kOk);
  REQUIRE(b.call(kRead, 2).status == kOk);
  // A miss in set 0 needs QPN 2's way; a SYNC right behind it (which runs beside the
  // miss, and may answer first) has an unused index field that reads as QPN 2: it must
  // not keep that way from the miss.
  b.send(kRead, in_set(0, 7), 1);
  b.send(kSync, 2, 2);
  b.run_until_quiet(2);
  REQUIRE(b.rsps_.size() == 2);
  for (const auto &rsp : b.rsps_) {
    CHECK(rsp.status == kOk);
    if (rsp.tag == 1) CHECK(rsp.data == b.expect_.at(in_set(0, 7)));
  }
  CHECK(b.rsps_[0].tag != b.rsps_[1].tag);
  // A stream of hits on one QPN does not starve a miss in its set either.
  b.rsps_.clear();
  b.send(kRead, in_set(0, 8), 100);
  for (uint32_t t = 0; t < 12; ++t) b.send(kRead, in_set(0, 7), t % 8);
  b.run_until_quiet(13);
  CHECK(b.rsps_.size() == 13);
  CHECK_FALSE(b.ctx_->gotError());
}

// Issue 27 item 1: a line the pipe writes is not taken as a victim, so a full-rate
// stream of writes to the only line of a set that may go would hold a miss in that set
// for as long as the stream lasted (2,968 cycles behind 3,000 writes, before
// qpm_victim_guard). Now the miss drains the pipe after a few blocked victim steps and
// completes in bounded time; the writes behind it all land, in order.
TEST_CASE("a miss is not starved by a full-rate write stream to its set's last way",
          "[cache]") {
  CacheBench b(11);
  for (uint32_t k = 0; k < kWays - 1; ++k) REQUIRE(b.call(kPin, in_set(0, k)).status == kOk);
  const uint32_t hot = in_set(0, 3), cold = in_set(0, 4);
  REQUIRE(b.call(kRead, hot).status == kOk);   // the set is full: 3 pinned + hot
  constexpr uint32_t kWrites = 3000;
  b.send(kRead, cold, 15);                     // misses, needs hot's way
  BitVec last;
  for (uint32_t i = 0; i < kWrites; ++i) {
    last = b.random_qpc();
    b.send(kWrite, hot, i % 8, &last);
  }
  const uint64_t start = b.cycles_;
  std::optional<uint64_t> cold_done;
  size_t cold_pos = 0;
  for (int i = 0; b.rsps_.size() < kWrites + 1 || !b.queue_.empty(); ++i) {
    REQUIRE(i < 100000);
    b.tick();
    if (!cold_done && !b.rsps_.empty() && b.rsps_.back().tag == 15) {
      cold_done = b.cycles_ - start;
      cold_pos = b.rsps_.size() - 1;
    }
  }
  REQUIRE(cold_done.has_value());
  INFO("the miss answered after " << *cold_done << " cycles, " << cold_pos << " writes first");
  // Memory latency 20: a fill (directory cached, one read) is about 40 cycles; the bound
  // leaves room for the drain and a write-back of the hot line, far below the stream.
  CHECK(*cold_done <= 4 * 20 + 64);
  CHECK(cold_pos < kWrites / 10);
  CHECK(b.rsps_[cold_pos].data == b.expect_.at(cold));
  for (const Rsp &r : b.rsps_) CHECK(r.status == kOk);
  // Every write landed in order: the newest is what a read returns now.
  CHECK(b.call(kRead, hot).data == last);
  CHECK_FALSE(b.ctx_->gotError());
}

// Everything at once, from Catch's --rng-seed (make regress varies it): reads, writes,
// PIN/UNPIN, MAP/UNMAP, SYNC and read errors, mixed with misses over two sets. The
// expectation of each response is judged when it arrives: responses to one QPN come in
// request order, maintenance (SYNC, directory writes) waits for everything sent before
// it and holds back everything sent after it, so the state the test keeps at that
// moment is exactly what the cache must have seen.
TEST_CASE("cache: random mix of every request kind, with misses and read errors",
          "[cache][random]") {
  const uint64_t seed = Catch::rngSeed();
  // By its tag: Catch2 reads the comma in the test's name as "or".
  INFO("replay: qpm_tests \"[cache][random]\" --rng-seed " << seed);
  // Write errors too: each failed write is sent again, so no answer and no context may
  // show them (docs/qp-cache.md, section 10).
  std::mt19937_64 rng(seed);
  AxiMemoryOptions mo;
  mo.latency_min = 5;
  mo.latency_max = 150;
  mo.reorder = true;
  mo.interleave = true;
  mo.backpressure = (seed % 2) ? 0.2 : 0.0;
  mo.read_error_rate = 0.0;  // errors from after the initial MAPs on
  CacheBench b(seed, mo);
  mo.read_error_rate = 0.03;
  mo.write_error_rate = 0.1;
  b.mem_.set_options(mo);
  // 20 QPNs on pages 1..4: every set sees misses and evictions.
  std::vector<uint32_t> pool;
  for (uint32_t k = 0; k < 20; ++k) pool.push_back(64 * (1 + k % 4) + 2 + k);
  std::map<uint32_t, BitVec> current = b.expect_;   // contents per QPN, at response time
  // A miss register's QPC read that failed is read again; when that read lands, the QP
  // is made fatal, before any request waiting on it is answered.
  std::set<uint64_t> failed_qpc_reads;
  std::vector<uint32_t> made_fatal_qpns;
  std::map<uint32_t, uint64_t> retried_fills;  // per QPN: fills that landed after an error
  b.mem_.set_read_done_observer([&](uint64_t addr, bool error, uint32_t id) {
    if (id >= kMshrs || addr < kPages) return;  // the maintenance engine, the directory
    if (error) {
      failed_qpc_reads.insert(addr);
      return;
    }
    if (failed_qpc_reads.erase(addr) == 0) return;
    const uint32_t qpn = static_cast<uint32_t>((addr - kPages) / 64);
    ++retried_fills[qpn];
    const BitVec fatal = made_fatal(current.at(qpn));
    if (fatal != current.at(qpn)) made_fatal_qpns.push_back(qpn);
    current[qpn] = fatal;
  });
  std::map<uint32_t, bool> mapped;                  // page -> directory entry valid
  for (uint32_t p = 0; p < kLimit / 64; ++p) mapped[p] = true;
  std::map<uint32_t, uint32_t> pinned_in_set;       // set -> pinned QPNs
  std::map<uint32_t, bool> pinned;
  auto page_busy = [&](uint32_t page) {
    for (uint32_t q : pool) {
      if (q / 64 == page && current.at(q).get(0, 1)) return true;
    }
    return false;
  };
  struct Out {
    uint32_t op, index;
    BitVec wdata{512};
    uint64_t dir_entry = 0;
    uint64_t retried_fills = 0;  // of its QPN, when sent
  };
  std::map<uint32_t, Out> outstanding;  // by tag
  std::map<uint32_t, bool> pin_in_flight;  // set -> a PIN/UNPIN is outstanding
  std::map<uint32_t, int> dir_in_flight;    // page -> MAP/UNMAPs outstanding
  std::vector<uint32_t> free_tags;
  for (uint32_t t = 0; t < 16; ++t) free_tags.push_back(t);
  std::map<uint32_t, uint64_t> seen;  // status -> count
  uint64_t kinds[6] = {};
  int sent = 0, checked = 0, refused_after_fault = 0;
  constexpr int kOps = 2500;
  while (checked < kOps) {
    if (sent < kOps && !free_tags.empty() && b.queue_.empty() && rng() % 3 != 0) {
      Out o;
      const uint32_t pick = static_cast<uint32_t>(rng() % 100);
      o.index = pool[rng() % pool.size()];
      o.op = pick < 42   ? kRead
             : pick < 70 ? kWrite
             : pick < 82 ? kPin
             : pick < 90 ? kUnpin
             : pick < 97 ? kDirWrite
                         : kSync;
      if ((o.op == kPin || o.op == kUnpin) && pin_in_flight[o.index % kSets]) o.op = kRead;
      // The client contract of MAP/UNMAP beside traffic (docs/qp-cache.md, section 8): no
      // write, PIN or UNPIN of a QPN whose page a MAP/UNMAP still changes (the command
      // unit runs one command at a time; the datapath never writes an invalid QPC).
      if ((o.op == kWrite || o.op == kPin || o.op == kUnpin) && dir_in_flight[o.index / 64])
        o.op = kRead;
      if (o.op == kWrite) {
        o.wdata = b.random_qpc();
        if (rng() % 8 != 0) o.wdata.set(0, 1, 0);  // mostly invalid, so pages can be unmapped
      }
      if (o.op == kDirWrite) {
        o.index = 1 + static_cast<uint32_t>(rng() % 4);
        o.dir_entry = mapped[o.index] && rng() % 2 ? 0 : (kPages + uint64_t{o.index} * 4096) | 1;
      }
      if (o.op == kPin || o.op == kUnpin) pin_in_flight[o.index % kSets] = true;
      if (o.op == kDirWrite) ++dir_in_flight[o.index];
      o.retried_fills = retried_fills[o.index];
      const uint32_t tag = free_tags.back();
      free_tags.pop_back();
      b.send(o.op, o.index, tag, o.op == kWrite ? &o.wdata : nullptr, o.dir_entry);
      outstanding[tag] = o;
      ++kinds[o.op];
      ++sent;
    }
    b.tick();
    REQUIRE(b.cycles_ < 3000000);
    for (const Rsp &r : b.rsps_) {
      REQUIRE(outstanding.count(r.tag) == 1);
      const Out o = outstanding[r.tag];
      outstanding.erase(r.tag);
      free_tags.push_back(r.tag);
      ++checked;
      ++seen[r.status];
      INFO("op " << o.op << " index " << o.index << " tag " << r.tag);
      if (o.op == kSync) {
        REQUIRE(r.status == kOk);
        continue;
      }
      if (o.op == kDirWrite) {
        --dir_in_flight[o.index];
        const bool unmapping = (o.dir_entry & 1) == 0;
        const bool busy = mapped[o.index] && page_busy(o.index);
        if (r.status == kMemErr) continue;  // reading the entry or the page failed: no change
        REQUIRE(r.status == (busy ? kBusy : kOk));
        if (busy) continue;
        mapped[o.index] = !unmapping;
        // The page's lines are written back and dropped, their pins with them.
        for (uint32_t q : pool) {
          if (q / 64 == o.index && pinned[q]) {
            pinned[q] = false;
            --pinned_in_set[q % kSets];
          }
        }
        continue;
      }
      const uint32_t set = o.index % kSets;
      if (o.op == kPin || o.op == kUnpin) pin_in_flight[set] = false;
      // A failed directory read changes nothing (an unmapped page is learned from the
      // directory read, which can fail too). A write, pin or unpin that waited on a fill
      // whose read failed is refused and changes nothing (the command that sent it read
      // the context before the fault).
      if (r.status == kMemErr) {
        if ((o.op == kWrite || o.op == kPin || o.op == kUnpin) &&
            retried_fills[o.index] > o.retried_fills) {
          ++refused_after_fault;
        }
        continue;
      }
      if (!mapped[o.index / 64]) {
        REQUIRE(r.status == kUnmapped);
        continue;
      }
      if (o.op == kPin && !pinned[o.index] && pinned_in_set[set] == kWays - 1) {
        REQUIRE(r.status == kBusy);
        continue;
      }
      REQUIRE(r.status == kOk);
      if (o.op == kWrite) current[o.index] = o.wdata;
      if (o.op == kWrite && !o.wdata.get(0, 1) && pinned[o.index]) {
        pinned[o.index] = false;  // an invalid context (DESTROY_QP) is not kept pinned
        --pinned_in_set[set];
      }
      if (o.op == kRead) REQUIRE(r.data == current.at(o.index));
      if (o.op == kPin && !pinned[o.index]) {
        pinned[o.index] = true;
        ++pinned_in_set[set];
      }
      if (o.op == kUnpin && pinned[o.index]) {
        pinned[o.index] = false;
        --pinned_in_set[set];
      }
    }
    b.rsps_.clear();
  }
  // Reads calm down (a failed read in a MAP would refuse it); writes keep failing.
  AxiMemoryOptions calm = mo;
  calm.read_error_rate = 0.0;
  b.mem_.set_options(calm);
  // Map every page back so SYNC can write every line, then compare memory.
  for (uint32_t p = 1; p <= 4; ++p) {
    if (!mapped[p]) REQUIRE(b.call(kDirWrite, p, nullptr, (kPages + uint64_t{p} * 4096) | 1).status == kOk);
  }
  REQUIRE(b.call(kSync, 0).status == kOk);
  for (uint32_t q : pool) {
    INFO("qpn " << q);
    CHECK(b.memory_qpc(q) == current.at(q));
  }
  // Every kind of request and answer happened, and the memory model really interleaved.
  for (uint32_t op : {kRead, kWrite, kPin, kUnpin, kDirWrite, kSync}) CHECK(kinds[op] > 0);
  for (uint32_t st : {kOk, kMemErr, kUnmapped, kBusy}) {
    INFO("status " << st);
    CHECK(seen[st] > 0);
  }
  CHECK(b.counts_[kMemErrors] == b.mem_.injected_read_errors() + b.mem_.injected_write_errors());
  CHECK(b.counts_[kWbRetries] == b.mem_.injected_write_errors());
  CHECK(b.fatal_qpns_ == made_fatal_qpns);  // every QP a failed read made fatal, in order
  INFO("writes, pins and unpins refused after a failed fill: " << refused_after_fault);
  CHECK(b.mem_.injected_write_errors() > 0);
  CHECK(b.counts_[kEvictions] > 0);
  CHECK(b.counts_[kMerged] + b.counts_[kMissWaits] > 0);
  CHECK(b.mem_.violations().empty());
  CHECK_FALSE(b.ctx_->gotError());
}

// The parking port (docs/qp-cache.md section 21): a request that cannot start waits in
// the deferred queue, and the requests behind it go on.
TEST_CASE("parking port: a miss with no free register does not stop a hit behind it",
          "[cache][parking]") {
  AxiMemoryOptions mo;
  mo.latency_min = mo.latency_max = 300;  // the misses hold their registers that long
  CacheBench b(21, mo);
  const uint32_t h = in_set(1, 0);
  REQUIRE(b.call(kRead, h).status == kOk);  // h is cached
  // Six misses to distinct QPNs (three in each set, beside h): two more than the miss
  // registers, so at least two of them are deferred.
  for (uint32_t k = 0; k < kMshrs + 2; ++k) b.send(kRead, in_set(k % kSets, k + 1), k);
  b.send(kRead, h, 9);
  const uint64_t sent = b.cycles_;
  while (b.rsps_.empty()) {
    REQUIRE(b.cycles_ - sent < 2000);
    b.tick();
  }
  CHECK(b.rsps_.front().tag == 9);              // the hit answered first ...
  CHECK(b.cycles_ - sent <= 30);                // ... within a bounded number of cycles
  CHECK(b.rsps_.front().data == b.expect_.at(h));
  b.run_until_quiet(kMshrs + 3);
  REQUIRE(b.rsps_.size() == kMshrs + 3);
  for (const Rsp &r : b.rsps_) {
    if (r.tag == 9) continue;
    INFO("tag " << r.tag);
    CHECK(r.status == kOk);
    CHECK(r.data == b.expect_.at(in_set(r.tag % kSets, r.tag + 1)));
  }
  CHECK(b.counts_[kMissWaits] >= 2);            // the deferred misses are counted
  CHECK(b.counts_[kMisses] == 1 + kMshrs + 2);
  CHECK_FALSE(b.ctx_->gotError());
}

TEST_CASE("parking port: the requests of one QPN keep their order when deferred",
          "[cache][parking]") {
  AxiMemoryOptions mo;
  mo.latency_min = 150;
  mo.latency_max = 250;
  mo.reorder = true;
  CacheBench b(22, mo);
  const uint32_t h = in_set(1, 0), a = in_set(0, 5);
  REQUIRE(b.call(kRead, h).status == kOk);
  // Four misses take every miss register; then a's writes and reads are deferred (no
  // register for a's miss, then their order behind it), and a hit of h goes past them.
  for (uint32_t k = 0; k < kMshrs; ++k) b.send(kRead, in_set(k % kSets, k + 1), k);
  const BitVec v1 = b.random_qpc(), v2 = b.random_qpc();
  b.send(kWrite, a, 4, &v1);
  b.send(kRead, a, 5);
  b.send(kRead, h, 6);
  b.send(kWrite, a, 7, &v2);
  b.send(kRead, a, 8);
  b.run_until_quiet(kMshrs + 5);
  REQUIRE(b.rsps_.size() == kMshrs + 5);
  std::vector<uint32_t> order_a;
  size_t h_at = 0, a_first = b.rsps_.size();
  for (size_t i = 0; i < b.rsps_.size(); ++i) {
    const Rsp &r = b.rsps_[i];
    INFO("tag " << r.tag);
    CHECK(r.status == kOk);
    if (r.tag >= 4 && r.tag != 6) {
      order_a.push_back(r.tag);
      a_first = std::min(a_first, i);
    }
    if (r.tag == 5) CHECK(r.data == v1);
    if (r.tag == 8) CHECK(r.data == v2);
    if (r.tag == 6) h_at = i;
  }
  CHECK(order_a == std::vector<uint32_t>{4, 5, 7, 8});
  CHECK(h_at < a_first);                        // the hit did not wait for a's miss
  CHECK(b.counts_[kMissWaits] >= 4);            // a's four requests were deferred
  CHECK_FALSE(b.ctx_->gotError());
}

// Cycles from queuing a request to its answer.
static uint64_t answer_cycles(CacheBench &b, uint32_t op, uint32_t q) {
  const uint64_t start = b.cycles_;
  b.rsps_.clear();
  b.send(op, q, 1);
  while (b.rsps_.empty()) {
    REQUIRE(b.cycles_ - start < 1000);
    b.tick();
  }
  CHECK(b.rsps_[0].status == kOk);
  b.rsps_.clear();
  return b.cycles_ - start;
}

// A replay goes to the pipe in the cycle after it is staged: only a PIN or UNPIN replay
// waits for its set's tag word (qpm_replay_gate), which cost every miss a cycle until
// 2026-12-07. So a read miss is answered sooner than a PIN miss in the same conditions
// (a free way, the page in the directory cache), and a miss costs at most L + 13 cycles
// more than a hit (docs/qp-cache.md section 16; L + 14 before).
TEST_CASE("cache: a read miss's replay does not wait for its set's tags, a PIN's does",
          "[cache]") {
  AxiMemoryOptions mo;
  mo.latency_min = mo.latency_max = 30;
  CacheBench b(31, mo);
  REQUIRE(b.call(kRead, in_set(0, 0)).status == kOk);   // the page's entry now cached
  for (int i = 0; i < 200; ++i) b.tick();
  const uint64_t hit = answer_cycles(b, kRead, in_set(0, 0));
  const uint64_t miss = answer_cycles(b, kRead, in_set(1, 0));   // a free way in set 1
  CHECK(miss - hit <= 30 + 13);
  // A pin replayed reads its set's word first (its pinned bits): a cycle later at least.
  for (int i = 0; i < 200; ++i) b.tick();
  const uint64_t pin_miss = answer_cycles(b, kPin, in_set(1, 1));
  CHECK(pin_miss > miss);
  CHECK(b.mem_.violations().empty());
  CHECK_FALSE(b.ctx_->gotError());
}
