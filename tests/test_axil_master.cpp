// The AXI4-Lite master (tb/env/axil_master.h) against a small C++ slave: a register
// array with random ready and response delays that also checks the master's side of the
// protocol. No RTL involved; the master's sample()/drive() are called around each edge
// exactly as Testbench::tick() calls before_edge/after_edge.
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <vector>

#include "axil_master.h"

using namespace qpm;

namespace {

constexpr uint32_t kOkay = 0;
constexpr uint32_t kSlvErr = 2;

// Sixteen 32-bit registers at 0x00 .. 0x3c; 0x3c is read-only (writes ignored, OKAY);
// everything else answers SLVERR (reads with data 0). Outputs are registered: out() is
// what the slave drives in the current cycle, edge() is the rising clock edge.
class RegSlave {
 public:
  static constexpr uint32_t kWords = 16;
  static constexpr uint32_t kRoAddr = 0x3c;
  static constexpr uint32_t kRoValue = 0x5eed0001;

  struct Access {
    bool is_read;
    uint32_t addr;
  };

  RegSlave(std::mt19937_64 &rng, double stall_prob) : rng_(rng), stall_prob_(stall_prob) {
    regs_.fill(0);
    regs_[kRoAddr / 4] = kRoValue;
  }

  const AxiLiteSlaveOut &out() const { return out_; }
  const std::vector<Access> &accesses() const { return accesses_; }
  uint64_t violations() const { return violations_; }
  uint64_t max_outstanding() const { return max_outstanding_; }

  void edge(const AxiLiteMasterOut &m) {
    check_master(m);
    // Handshakes at this edge, with the outputs of the cycle before it.
    const bool aw_hs = m.awvalid && out_.awready;
    const bool w_hs = m.wvalid && out_.wready;
    const bool ar_hs = m.arvalid && out_.arready;
    if (aw_hs) {
      aw_held_ = true;
      aw_addr_ = m.awaddr;
    }
    if (w_hs) {
      w_held_ = true;
      w_data_ = m.wdata;
      w_strb_ = m.wstrb;
    }
    if (ar_hs) {
      ar_held_ = true;
      ar_addr_ = m.araddr;
    }
    if (aw_hs || ar_hs) {
      if (outstanding_ != 0) {
        ++violations_;  // a new operation before the previous response was taken
      }
      ++outstanding_;
      max_outstanding_ = std::max(max_outstanding_, outstanding_);
    }
    if (out_.bvalid && m.bready) {
      out_.bvalid = false;
      --outstanding_;
    }
    if (out_.rvalid && m.rready) {
      out_.rvalid = false;
      --outstanding_;
    }
    // Responses after a random delay.
    if (aw_held_ && w_held_ && !out_.bvalid && !stall()) {
      out_.bresp = do_write(aw_addr_, w_data_, w_strb_);
      out_.bvalid = true;
      aw_held_ = false;
      w_held_ = false;
      accesses_.push_back({false, aw_addr_});
    }
    if (ar_held_ && !out_.rvalid && !stall()) {
      out_.rresp = do_read(ar_addr_, out_.rdata);
      out_.rvalid = true;
      ar_held_ = false;
      accesses_.push_back({true, ar_addr_});
    }
    out_.awready = !aw_held_ && !stall();
    out_.wready = !w_held_ && !stall();
    out_.arready = !ar_held_ && !stall();
    prev_m_ = m;
    prev_aw_hs_ = aw_hs;
    prev_w_hs_ = w_hs;
    prev_ar_hs_ = ar_hs;
  }

 private:
  bool stall() {
    std::bernoulli_distribution d(stall_prob_);
    return stall_prob_ > 0.0 && d(rng_);
  }

  static bool mapped(uint32_t addr) { return addr % 4 == 0 && addr / 4 < kWords; }

  uint32_t do_write(uint32_t addr, uint32_t data, uint32_t strb) {
    if (!mapped(addr)) {
      return kSlvErr;
    }
    if (addr == kRoAddr) {
      return kOkay;
    }
    uint32_t &r = regs_[addr / 4];
    for (int b = 0; b < 4; ++b) {
      if (strb & (1u << b)) {
        const uint32_t mask = 0xffu << (8 * b);
        r = (r & ~mask) | (data & mask);
      }
    }
    return kOkay;
  }

  uint32_t do_read(uint32_t addr, uint32_t &data) const {
    data = mapped(addr) ? regs_[addr / 4] : 0;
    return mapped(addr) ? kOkay : kSlvErr;
  }

  // The master's obligations: a valid stays up with a stable payload until its
  // handshake; AW and W of one write are raised together.
  void check_master(const AxiLiteMasterOut &m) {
    if (prev_m_.awvalid && !prev_aw_hs_ && (!m.awvalid || m.awaddr != prev_m_.awaddr)) {
      ++violations_;
    }
    if (prev_m_.wvalid && !prev_w_hs_ &&
        (!m.wvalid || m.wdata != prev_m_.wdata || m.wstrb != prev_m_.wstrb)) {
      ++violations_;
    }
    if (prev_m_.arvalid && !prev_ar_hs_ && (!m.arvalid || m.araddr != prev_m_.araddr)) {
      ++violations_;
    }
    // AW and W are independent channels: either may rise first (AXI4-Lite allows it).
    if (m.arvalid && (m.awvalid || m.wvalid)) {
      ++violations_;
    }
  }

  std::mt19937_64 &rng_;
  double stall_prob_;
  std::array<uint32_t, kWords> regs_{};
  AxiLiteSlaveOut out_;
  AxiLiteMasterOut prev_m_;
  bool prev_aw_hs_ = false;
  bool prev_w_hs_ = false;
  bool prev_ar_hs_ = false;
  bool aw_held_ = false;
  bool w_held_ = false;
  bool ar_held_ = false;
  uint32_t aw_addr_ = 0;
  uint32_t w_data_ = 0;
  uint32_t w_strb_ = 0;
  uint32_t ar_addr_ = 0;
  std::vector<Access> accesses_;
  uint64_t violations_ = 0;
  uint64_t outstanding_ = 0;
  uint64_t max_outstanding_ = 0;
};

// One clock cycle, in Testbench::tick() order: sample, edge, drive.
struct Harness {
  Harness(std::mt19937_64 &rng, double slave_stall) : slave(rng, slave_stall) {}
  Harness(std::mt19937_64 &rng, double slave_stall, double master_stall)
      : master(rng, master_stall), slave(rng, slave_stall) {}

  void tick() {
    master.sample(slave.out());
    slave.edge(m_out);
    m_out = master.drive();
    ++cycles;
  }
  // Runs until the master is idle; false if it took more than max_cycles.
  bool run(uint64_t max_cycles) {
    const uint64_t end = cycles + max_cycles;
    while (!master.idle() && cycles < end) {
      tick();
    }
    return master.idle();
  }

  AxiLiteMaster master;
  RegSlave slave;
  AxiLiteMasterOut m_out;
  uint64_t cycles = 0;
};

bool same(const AxiLiteResult &a, const AxiLiteResult &b) {
  return a.is_read == b.is_read && a.addr == b.addr && a.data == b.data && a.resp == b.resp;
}

}  // namespace

TEST_CASE("AXI-Lite master: idle, a write, a read", "[axil]") {
  std::mt19937_64 rng(Catch::rngSeed());
  Harness h(rng, 0.0);
  REQUIRE(h.master.idle());
  for (int i = 0; i < 5; ++i) {
    h.tick();
  }
  REQUIRE(h.slave.accesses().empty());
  REQUIRE(h.master.results().empty());

  h.master.write(0x08, 0xcafef00d);
  REQUIRE_FALSE(h.master.idle());
  h.master.read(0x08);
  REQUIRE(h.run(100));
  auto &res = h.master.results();
  REQUIRE(res.size() == 2);
  CHECK(same(res[0], {false, 0x08, 0xcafef00d, kOkay}));
  CHECK(same(res[1], {true, 0x08, 0xcafef00d, kOkay}));
  res.pop_front();
  REQUIRE(res.size() == 1);
  CHECK(h.slave.violations() == 0);
}

TEST_CASE("AXI-Lite master: back-to-back operations against an always-ready slave", "[axil]") {
  // Drive after edge 0, AW+W (or AR) taken at edge 1, response taken at edge 2, the next
  // operation driven right after it: two cycles per operation, no bubbles.
  std::mt19937_64 rng(Catch::rngSeed());
  Harness h(rng, 0.0);
  for (uint32_t i = 0; i < 8; ++i) {
    h.master.write(4 * i, 0x100 + i);
  }
  for (uint32_t i = 0; i < 8; ++i) {
    h.master.read(4 * i);
  }
  h.tick();  // the first operation is driven after this edge
  REQUIRE(h.run(1000));
  CHECK(h.cycles == 1 + 2 * 16);
  REQUIRE(h.master.results().size() == 16);
  for (uint32_t i = 0; i < 8; ++i) {
    CHECK(same(h.master.results()[8 + i], {true, 4 * i, 0x100 + i, kOkay}));
  }
  CHECK(h.slave.violations() == 0);
}

TEST_CASE("AXI-Lite master: error responses are passed on", "[axil]") {
  std::mt19937_64 rng(Catch::rngSeed());
  Harness h(rng, 0.3);
  h.master.write(0x100, 1);               // unmapped: SLVERR
  h.master.read(0x7fc);                   // unmapped: SLVERR, data 0
  h.master.write(RegSlave::kRoAddr, 42);  // read-only: OKAY, ignored
  h.master.read(RegSlave::kRoAddr);
  h.master.write(0x00, 7);
  h.master.read(0x00);
  REQUIRE(h.run(1000));
  auto &res = h.master.results();
  REQUIRE(res.size() == 6);
  CHECK(same(res[0], {false, 0x100, 1, kSlvErr}));
  CHECK(same(res[1], {true, 0x7fc, 0, kSlvErr}));
  CHECK(same(res[2], {false, RegSlave::kRoAddr, 42, kOkay}));
  CHECK(same(res[3], {true, RegSlave::kRoAddr, RegSlave::kRoValue, kOkay}));
  CHECK(same(res[4], {false, 0x00, 7, kOkay}));
  CHECK(same(res[5], {true, 0x00, 7, kOkay}));
  CHECK(h.slave.violations() == 0);
}

TEST_CASE("AXI-Lite master: random operations with random delays on both sides", "[axil]") {
  const double slave_stall = GENERATE(0.0, 0.3, 0.8);
  const double master_stall = GENERATE(0.0, 0.5);
  const uint64_t seed = Catch::rngSeed();
  INFO("seed " << seed << ", slave stall " << slave_stall << ", master stall " << master_stall);
  std::mt19937_64 rng(seed);
  Harness h(rng, slave_stall, master_stall);

  // Reference: the same register rules, applied in queue order.
  std::array<uint32_t, RegSlave::kWords> ref{};
  ref[RegSlave::kRoAddr / 4] = RegSlave::kRoValue;
  std::vector<AxiLiteResult> expected;
  std::uniform_int_distribution<uint32_t> word(0, 2 * RegSlave::kWords - 1);  // half unmapped
  std::uniform_int_distribution<uint32_t> data;
  std::bernoulli_distribution is_read(0.5);
  constexpr int kOps = 2000;
  for (int i = 0; i < kOps; ++i) {
    const uint32_t addr = 4 * word(rng);
    const bool mapped = addr / 4 < RegSlave::kWords;
    if (is_read(rng)) {
      h.master.read(addr);
      expected.push_back({true, addr, mapped ? ref[addr / 4] : 0, mapped ? kOkay : kSlvErr});
    } else {
      const uint32_t d = data(rng);
      h.master.write(addr, d);
      if (mapped && addr != RegSlave::kRoAddr) {
        ref[addr / 4] = d;
      }
      expected.push_back({false, addr, d, mapped ? kOkay : kSlvErr});
    }
    // Now and then let the queue drain, so that the master also starts from idle.
    if (i % 97 == 0) {
      REQUIRE(h.run(10000));
    }
  }
  REQUIRE(h.run(200000));

  auto &res = h.master.results();
  REQUIRE(res.size() == expected.size());
  REQUIRE(h.slave.accesses().size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    INFO("operation " << i);
    REQUIRE(same(res[i], expected[i]));
    REQUIRE(h.slave.accesses()[i].is_read == expected[i].is_read);
    REQUIRE(h.slave.accesses()[i].addr == expected[i].addr);
  }
  CHECK(h.slave.violations() == 0);
  CHECK(h.slave.max_outstanding() == 1);
  // A stalling master raises AW and W in different cycles, either one first.
  if (master_stall > 0.0) {
    CHECK(h.master.split_writes() > 100);
  } else {
    CHECK(h.master.split_writes() == 0);
  }
}
