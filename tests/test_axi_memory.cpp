// AXI4 memory model tests: the model alone, driven by a small cycle-level master that
// calls sample()/drive() once per edge exactly as the testbench extension would.
#include <catch2/catch.hpp>
#include <algorithm>
#include <deque>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "axi_memory.h"

using namespace qpm;

namespace {

constexpr uint64_t kBase = 0x100000;
constexpr uint32_t kFullStrb = 0xffffffffu;

struct RBeat {
  uint64_t edge;
  uint32_t id;
  AxiBeat data;
  uint32_t resp;
  bool last;
};

struct BResp {
  uint64_t edge;
  uint32_t id;
  uint32_t resp;
};

bool contains(const std::string &s, const std::string &part) {
  return s.find(part) != std::string::npos;
}

// A well-behaved AXI4 master: queued requests go out in order, each valid held until
// its handshake; W beats of a burst are offered only once its AW has been accepted.
// It also checks the slave keeps an unaccepted R beat or B unchanged.
class Master {
 public:
  Master(AxiMemory &mem, uint64_t seed, double stall = 0.0)
      : mem_(mem), rng_(seed), stall_(stall) {}

  void read(uint32_t id, uint64_t addr, uint32_t len, uint32_t size) {
    AxiMasterOut a;
    a.arvalid = true;
    a.arid = id;
    a.araddr = addr;
    a.arlen = len;
    a.arsize = size;
    ar_q_.push_back(a);
    expected_r_beats_ += len + 1;
  }

  void write(uint32_t id, uint64_t addr, uint32_t size, const std::vector<AxiBeat> &data,
             const std::vector<uint32_t> &strb) {
    AxiMasterOut a;
    a.awvalid = true;
    a.awid = id;
    a.awaddr = addr;
    a.awlen = static_cast<uint32_t>(data.size() - 1);
    a.awsize = size;
    aw_q_.push_back(a);
    for (size_t i = 0; i < data.size(); ++i)
      w_q_.push_back({data[i], strb[i], i + 1 == data.size(), writes_issued_});
    ++writes_issued_;
  }

  void step() {
    mem_.sample(out_);
    // The handshakes at this edge, judged from the pins the model saw.
    if (out_.arvalid && in_.arready) {
      ar_edges.push_back(edge);
      ar_q_.pop_front();
    }
    if (out_.arvalid && !in_.arready) ++ar_stalls;
    if (out_.awvalid && in_.awready) {
      aw_q_.pop_front();
      ++aw_accepted_;
    }
    if (out_.wvalid && in_.wready) {
      if (w_q_.front().last) wlast_edges.push_back(edge);
      w_q_.pop_front();
    }
    if (in_.rvalid && out_.rready) r.push_back({edge, in_.rid, in_.rdata, in_.rresp, in_.rlast});
    if (in_.bvalid && out_.bready) b.push_back({edge, in_.bid, in_.bresp});

    const AxiSlaveOut next = mem_.drive();
    if (in_.rvalid && !out_.rready &&
        (!next.rvalid || next.rid != in_.rid || next.rdata != in_.rdata ||
         next.rresp != in_.rresp || next.rlast != in_.rlast))
      ++slave_unstable;
    if (in_.bvalid && !out_.bready &&
        (!next.bvalid || next.bid != in_.bid || next.bresp != in_.bresp))
      ++slave_unstable;
    in_ = next;

    const AxiMasterOut idle;
    out_ = idle;
    if (!ar_q_.empty()) {
      const AxiMasterOut &a = ar_q_.front();
      out_.arvalid = true;
      out_.arid = a.arid;
      out_.araddr = a.araddr;
      out_.arlen = a.arlen;
      out_.arsize = a.arsize;
    }
    if (!aw_q_.empty()) {
      const AxiMasterOut &a = aw_q_.front();
      out_.awvalid = true;
      out_.awid = a.awid;
      out_.awaddr = a.awaddr;
      out_.awlen = a.awlen;
      out_.awsize = a.awsize;
    }
    if (!w_q_.empty() && w_q_.front().burst < aw_accepted_) {
      out_.wvalid = true;
      out_.wdata = w_q_.front().data;
      out_.wstrb = w_q_.front().strb;
      out_.wlast = w_q_.front().last;
    }
    std::bernoulli_distribution stall(stall_);
    out_.rready = stall_ <= 0.0 || !stall(rng_);
    out_.bready = stall_ <= 0.0 || !stall(rng_);
    ++edge;
  }

  bool done() const {
    return ar_q_.empty() && aw_q_.empty() && w_q_.empty() && r.size() == expected_r_beats_ &&
           b.size() == writes_issued_;
  }

  // Runs until every request is answered; false on timeout.
  bool run(uint64_t max_cycles = 200000) {
    for (uint64_t i = 0; i < max_cycles; ++i) {
      if (done()) return true;
      step();
    }
    return done();
  }

  // R beats grouped into bursts by rlast.
  std::vector<std::vector<RBeat>> bursts() const {
    std::vector<std::vector<RBeat>> out(1);
    for (const RBeat &beat : r) {
      out.back().push_back(beat);
      if (beat.last) out.emplace_back();
    }
    out.pop_back();
    return out;
  }

  std::vector<RBeat> r;
  std::vector<BResp> b;
  std::vector<uint64_t> ar_edges, wlast_edges;
  uint64_t edge = 0;
  uint64_t ar_stalls = 0;
  uint64_t slave_unstable = 0;

 private:
  struct WBeat {
    AxiBeat data;
    uint32_t strb;
    bool last;
    size_t burst;
  };

  AxiMemory &mem_;
  std::mt19937_64 rng_;
  double stall_;
  AxiMasterOut out_;
  AxiSlaveOut in_;
  std::deque<AxiMasterOut> ar_q_, aw_q_;
  std::deque<WBeat> w_q_;
  size_t aw_accepted_ = 0, writes_issued_ = 0, expected_r_beats_ = 0;
};

AxiBeat random_beat(std::mt19937_64 &rng) {
  AxiBeat beat;
  for (auto &byte : beat) byte = static_cast<uint8_t>(rng());
  return beat;
}

std::vector<uint8_t> backdoor(const AxiMemory &mem, uint64_t addr, size_t n) {
  std::vector<uint8_t> v(n);
  mem.read_bytes(addr, v.data(), n);
  return v;
}

// Gives burst i a tag in its first two bytes, so the R data says which burst it is.
void tag_bursts(AxiMemory &mem, size_t n, uint64_t stride) {
  for (size_t i = 0; i < n; ++i) {
    const uint8_t tag[2] = {static_cast<uint8_t>(i), static_cast<uint8_t>(i >> 8)};
    mem.write_bytes(kBase + i * stride, tag, 2);
  }
}

size_t tag_of(const std::vector<RBeat> &burst) {
  return burst[0].data[0] | (size_t{burst[0].data[1]} << 8);
}

}  // namespace

TEST_CASE("AXI memory: write then read back, full and narrow", "[axi_memory]") {
  std::mt19937_64 rng(1);
  AxiMemoryOptions opt;
  opt.latency_min = 3;
  opt.latency_max = 8;
  AxiMemory mem(rng, opt);
  mem.map_region(kBase, 0x10000);
  Master m(mem, 11);

  // Full-width 4-beat burst.
  std::mt19937_64 data_rng(7);
  std::vector<AxiBeat> full;
  for (int i = 0; i < 4; ++i) full.push_back(random_beat(data_rng));
  m.write(1, kBase + 0x40, 5, full, std::vector<uint32_t>(4, kFullStrb));

  // 8-byte beats from kBase + 0x208: lanes 8-15, 16-23, 24-31. The middle beat writes
  // only its low four bytes; the bytes it skips keep the 0xee put there first.
  const std::vector<uint8_t> fill(0x40, 0xee);
  mem.write_bytes(kBase + 0x200, fill.data(), fill.size());
  std::vector<AxiBeat> narrow;
  for (int i = 0; i < 3; ++i) narrow.push_back(random_beat(data_rng));
  m.write(2, kBase + 0x208, 3, narrow, {0xffu << 8, 0x0fu << 16, 0xffu << 24});
  REQUIRE(m.run());
  REQUIRE(m.b.size() == 2);
  for (const BResp &b : m.b) CHECK(b.resp == AxiMemory::kRespOkay);
  CHECK(m.b[0].id == 1);
  CHECK(m.b[1].id == 2);

  // Backdoor view of what the writes left.
  const std::vector<uint8_t> got_full = backdoor(mem, kBase + 0x40, 128);
  for (size_t i = 0; i < 128; ++i) REQUIRE(got_full[i] == full[i / 32][i % 32]);
  const std::vector<uint8_t> got = backdoor(mem, kBase + 0x200, 0x20);
  for (size_t i = 0x00; i < 0x08; ++i) CHECK(got[i] == 0xee);
  for (size_t i = 0x08; i < 0x10; ++i) CHECK(got[i] == narrow[0][i]);
  for (size_t i = 0x10; i < 0x14; ++i) CHECK(got[i] == narrow[1][i]);
  for (size_t i = 0x14; i < 0x18; ++i) CHECK(got[i] == 0xee);
  for (size_t i = 0x18; i < 0x20; ++i) CHECK(got[i] == narrow[2][i]);

  // Read both back through the port, plus never-written memory (reads zero).
  m.read(3, kBase + 0x40, 3, 5);
  m.read(4, kBase + 0x208, 2, 3);
  m.read(5, kBase + 0x3000, 0, 5);
  REQUIRE(m.run());
  const auto bursts = m.bursts();
  REQUIRE(bursts.size() == 3);
  REQUIRE(bursts[0].size() == 4);
  for (int i = 0; i < 4; ++i) {
    CHECK(bursts[0][i].id == 3);
    CHECK(bursts[0][i].data == full[i]);
    CHECK(bursts[0][i].resp == AxiMemory::kRespOkay);
  }
  REQUIRE(bursts[1].size() == 3);
  for (unsigned beat = 0; beat < 3; ++beat) {
    const unsigned lo = 8 * (beat + 1);
    for (unsigned lane = lo; lane < lo + 8; ++lane)
      CHECK(bursts[1][beat].data[lane] == got[lane]);
    CHECK(bursts[1][beat].last == (beat == 2));
  }
  CHECK(bursts[2][0].data == AxiBeat{});

  CHECK(mem.reads() == 3);
  CHECK(mem.writes() == 2);
  CHECK(mem.read_beats() == 8);
  CHECK(mem.write_beats() == 7);
  CHECK(mem.idle());
  CHECK(m.slave_unstable == 0);
  CHECK(mem.violations().empty());
}

TEST_CASE("AXI memory: unaligned start uses only the lanes from the address on",
          "[axi_memory]") {
  std::mt19937_64 rng(12);
  AxiMemoryOptions opt;
  opt.latency_min = opt.latency_max = 1;
  AxiMemory mem(rng, opt);
  mem.map_region(kBase, 0x1000);
  Master m(mem, 18);
  // Bytes before the start address: a beat must neither write nor return them.
  const uint8_t canary[5] = {0x77, 0x77, 0x77, 0x77, 0x77};
  mem.write_bytes(kBase + 0x400, canary, 5);
  mem.write_bytes(kBase + 0x50c, canary, 1);
  std::mt19937_64 data_rng(13);
  const std::vector<AxiBeat> full = {random_beat(data_rng), random_beat(data_rng)};
  const std::vector<AxiBeat> narrow = {random_beat(data_rng), random_beat(data_rng)};
  // 32-byte beats from 0x405: lanes 5-31, then 0-31 at 0x420.
  m.write(1, kBase + 0x405, 5, full, {0xffffffe0u, kFullStrb});
  // 4-byte beats from 0x50d: lanes 13-15, then 16-19 at 0x510.
  m.write(2, kBase + 0x50d, 2, narrow, {0xeu << 12, 0xfu << 16});
  REQUIRE(m.run());  // AXI does not order reads after writes: wait for the B's
  m.read(3, kBase + 0x405, 1, 5);
  m.read(4, kBase + 0x50d, 1, 2);
  REQUIRE(m.run());
  CHECK(mem.violations().empty());

  const std::vector<uint8_t> a = backdoor(mem, kBase + 0x400, 0x40);
  for (size_t i = 0; i < 5; ++i) CHECK(a[i] == 0x77);
  for (size_t i = 5; i < 0x40; ++i) CHECK(a[i] == full[i / 32][i % 32]);
  const std::vector<uint8_t> b = backdoor(mem, kBase + 0x50c, 8);
  CHECK(b[0] == 0x77);
  for (size_t i = 1; i < 4; ++i) CHECK(b[i] == narrow[0][12 + i]);
  for (size_t i = 4; i < 8; ++i) CHECK(b[i] == narrow[1][12 + i]);
  CHECK(b.size() == 8);

  const auto bursts = m.bursts();
  REQUIRE(bursts.size() == 2);
  for (unsigned lane = 0; lane < 32; ++lane)
    CHECK(bursts[0][0].data[lane] == (lane < 5 ? 0 : full[0][lane]));
  CHECK(bursts[0][1].data == full[1]);
  CHECK(bursts[1][0].data[12] == 0);  // inactive lanes read zero
  for (unsigned lane = 13; lane < 16; ++lane) CHECK(bursts[1][0].data[lane] == narrow[0][lane]);
  for (unsigned lane = 16; lane < 20; ++lane) CHECK(bursts[1][1].data[lane] == narrow[1][lane]);

  // A strobe on a lane the beat does not own is a violation.
  m.write(5, kBase + 0x600, 3, {AxiBeat{}}, {0xffffu});
  REQUIRE(m.run());
  REQUIRE(mem.violations().size() == 1);
  CHECK(contains(mem.violations()[0], "outside the active lanes"));
}

TEST_CASE("AXI memory: latency respected", "[axi_memory]") {
  SECTION("fixed latency, read and write") {
    std::mt19937_64 rng(2);
    AxiMemory mem(rng, AxiMemoryOptions{});  // 20 cycles
    mem.map_region(kBase, 0x1000);
    Master m(mem, 12);
    m.read(0, kBase, 0, 5);
    REQUIRE(m.run());
    CHECK(m.r[0].edge - m.ar_edges[0] == 20);
    m.write(0, kBase, 5, {AxiBeat{}}, {kFullStrb});
    REQUIRE(m.run());
    CHECK(m.b[0].edge - m.wlast_edges[0] == 20);
  }
  SECTION("latency drawn from the range") {
    std::mt19937_64 rng(3);
    AxiMemoryOptions opt;
    opt.latency_min = 5;
    opt.latency_max = 12;
    AxiMemory mem(rng, opt);
    mem.map_region(kBase, 0x1000);
    Master m(mem, 13);
    std::map<uint64_t, int> seen;
    for (int i = 0; i < 200; ++i) {
      m.read(0, kBase, 0, 5);
      REQUIRE(m.run());
      ++seen[m.r.back().edge - m.ar_edges.back()];
    }
    CHECK(seen.begin()->first == 5);
    CHECK(seen.rbegin()->first == 12);
    CHECK(seen.size() == 8);
  }
}

TEST_CASE("AXI memory: response order", "[axi_memory]") {
  constexpr size_t kBursts = 400;
  constexpr uint64_t kStride = 128;  // room for 4 full beats, never crosses 4 KiB
  for (const bool reorder : {false, true}) {
    std::mt19937_64 rng(4);
    AxiMemoryOptions opt;
    opt.latency_min = 1;
    opt.latency_max = 30;
    opt.reorder = reorder;
    AxiMemory mem(rng, opt);
    mem.map_region(kBase, kBursts * kStride);
    tag_bursts(mem, kBursts, kStride);
    Master m(mem, 14);
    std::mt19937_64 req_rng(5);
    std::vector<uint32_t> ids, lens;
    for (size_t i = 0; i < kBursts; ++i) {
      ids.push_back(static_cast<uint32_t>(req_rng() % 4));
      lens.push_back(static_cast<uint32_t>(req_rng() % 4));
      m.read(ids[i], kBase + i * kStride, lens[i], 5);
    }
    REQUIRE(m.run());
    const auto bursts = m.bursts();
    REQUIRE(bursts.size() == kBursts);

    std::map<uint32_t, size_t> last_tag;
    size_t out_of_order = 0, prev = 0;
    for (size_t k = 0; k < bursts.size(); ++k) {
      const size_t tag = tag_of(bursts[k]);
      REQUIRE(tag < kBursts);
      // The beats of a burst are consecutive, all with its ID.
      CHECK(bursts[k].size() == lens[tag] + 1);
      for (const RBeat &beat : bursts[k]) CHECK(beat.id == ids[tag]);
      // Same ID: AR order.
      if (last_tag.count(ids[tag])) CHECK(tag > last_tag[ids[tag]]);
      last_tag[ids[tag]] = tag;
      if (k > 0 && tag < prev) ++out_of_order;
      prev = tag;
    }
    INFO("reorder=" << reorder);
    if (reorder) {
      CHECK(out_of_order > 0);
    } else {
      CHECK(out_of_order == 0);
    }
    CHECK(mem.violations().empty());
  }
}

TEST_CASE("AXI memory: back-pressure still completes everything", "[axi_memory]") {
  std::mt19937_64 rng(6);
  AxiMemoryOptions opt;
  opt.latency_min = 1;
  opt.latency_max = 10;
  opt.reorder = true;
  opt.backpressure = 0.5;
  AxiMemory mem(rng, opt);
  constexpr uint64_t kWriteArea = kBase, kReadArea = kBase + 0x10000;
  mem.map_region(kWriteArea, 0x10000);
  mem.map_region(kReadArea, 0x10000);  // adjacent: merged into one mapping
  std::mt19937_64 data_rng(8);
  std::vector<uint8_t> read_image(0x10000);
  for (auto &byte : read_image) byte = static_cast<uint8_t>(data_rng());
  mem.write_bytes(kReadArea, read_image.data(), read_image.size());

  Master m(mem, 15, 0.3);
  constexpr int kN = 100;
  constexpr uint64_t kStride = 0x100;  // 8 full beats
  std::vector<std::vector<AxiBeat>> written;
  std::vector<uint32_t> read_lens;
  for (int i = 0; i < kN; ++i) {
    const uint32_t len = static_cast<uint32_t>(data_rng() % 8);
    std::vector<AxiBeat> data;
    for (uint32_t k = 0; k <= len; ++k) data.push_back(random_beat(data_rng));
    m.write(i % 4, kWriteArea + i * kStride, 5, data, std::vector<uint32_t>(len + 1, kFullStrb));
    written.push_back(data);
    read_lens.push_back(static_cast<uint32_t>(data_rng() % 8));
    m.read(0, kReadArea + i * kStride, read_lens.back(), 5);  // one ID: AR order
  }
  REQUIRE(m.run());
  CHECK(m.ar_stalls > 0);
  CHECK(m.slave_unstable == 0);

  const auto bursts = m.bursts();
  REQUIRE(bursts.size() == kN);
  for (int i = 0; i < kN; ++i) {
    REQUIRE(bursts[i].size() == read_lens[i] + 1);
    for (size_t k = 0; k < bursts[i].size(); ++k) {
      const uint64_t off = i * kStride + k * 32;
      CHECK(std::equal(bursts[i][k].data.begin(), bursts[i][k].data.end(),
                       read_image.begin() + static_cast<std::ptrdiff_t>(off)));
    }
  }
  for (int i = 0; i < kN; ++i) {
    const std::vector<uint8_t> got =
        backdoor(mem, kWriteArea + i * kStride, written[i].size() * 32);
    for (size_t k = 0; k < got.size(); ++k) REQUIRE(got[k] == written[i][k / 32][k % 32]);
  }
  CHECK(mem.reads() == kN);
  CHECK(mem.writes() == kN);
  CHECK(mem.idle());
  CHECK(mem.violations().empty());

  // With the master always ready, due R beats and B's are still held back sometimes.
  Master eager(mem, 19);
  int late_r = 0, late_b = 0;
  for (int i = 0; i < 50; ++i) {
    eager.read(0, kReadArea, 0, 5);
    eager.write(0, kWriteArea, 5, {AxiBeat{}}, {kFullStrb});
    REQUIRE(eager.run());
    if (eager.r.back().edge - eager.ar_edges.back() > opt.latency_max) ++late_r;
    if (eager.b.back().edge - eager.wlast_edges.back() > opt.latency_max) ++late_b;
  }
  CHECK(late_r > 0);
  CHECK(late_b > 0);
}

TEST_CASE("AXI memory: injected read errors", "[axi_memory]") {
  std::mt19937_64 rng(9);
  AxiMemoryOptions opt;
  opt.latency_min = 1;
  opt.latency_max = 4;
  opt.read_error_rate = 0.2;
  AxiMemory mem(rng, opt);
  mem.map_region(kBase, 0x1000);
  std::vector<uint8_t> image(64);
  for (size_t i = 0; i < image.size(); ++i) image[i] = static_cast<uint8_t>(i * 7 + 1);
  mem.write_bytes(kBase, image.data(), image.size());

  Master m(mem, 16);
  constexpr int kN = 2000;
  for (int i = 0; i < kN; ++i) m.read(i % 3, kBase, 1, 5);
  REQUIRE(m.run());
  const auto bursts = m.bursts();
  REQUIRE(bursts.size() == kN);
  int errors = 0;
  for (const auto &burst : bursts) {
    REQUIRE(burst.size() == 2);
    // All beats of a burst answer alike. An error carries garbage: not one byte of the
    // memory's contents, so a master that ignores RRESP cannot pass on the true bytes.
    CHECK(burst[1].resp == burst[0].resp);
    if (burst[0].resp == AxiMemory::kRespSlverr) {
      ++errors;
      for (size_t i = 0; i < 32; ++i) CHECK(burst[0].data[i] != image[i]);
      for (size_t i = 0; i < 32; ++i) CHECK(burst[1].data[i] != image[32 + i]);
    } else {
      CHECK(burst[0].resp == AxiMemory::kRespOkay);
      CHECK(std::equal(burst[0].data.begin(), burst[0].data.end(), image.begin()));
    }
  }
  CHECK(static_cast<uint64_t>(errors) == mem.injected_read_errors());
  // 0.2 +- 0.03 is more than three standard deviations for 2000 bursts.
  const double rate = static_cast<double>(errors) / kN;
  CHECK(rate > 0.17);
  CHECK(rate < 0.23);
}

TEST_CASE("AXI memory: injected write errors answer SLVERR and write nothing",
          "[axi_memory]") {
  std::mt19937_64 rng(19);
  AxiMemoryOptions opt;
  opt.latency_min = 1;
  opt.latency_max = 4;
  opt.write_error_rate = 0.3;
  AxiMemory mem(rng, opt);
  mem.map_region(kBase, 0x1000);
  std::vector<uint64_t> observed_errors;
  mem.set_observer([&](char dir, uint64_t addr, bool error, uint32_t) {
    if (dir == 'W' && error) observed_errors.push_back(addr);
  });
  Master m(mem, 20);
  std::mt19937_64 data_rng(21);
  constexpr int kN = 200;
  std::vector<AxiBeat> written;
  for (int i = 0; i < kN; ++i) {
    written.push_back(random_beat(data_rng));
    m.write(0, kBase + 32 * static_cast<uint64_t>(i % 100), 5, {written.back()}, {kFullStrb});
  }
  REQUIRE(m.run());
  REQUIRE(m.b.size() == kN);
  // Same ID, so B comes in AW order: burst i's answer says whether its bytes landed.
  std::map<uint64_t, AxiBeat> expect;  // the last successful write per address
  int errors = 0;
  for (int i = 0; i < kN; ++i) {
    if (m.b[i].resp == AxiMemory::kRespSlverr) {
      ++errors;
    } else {
      REQUIRE(m.b[i].resp == AxiMemory::kRespOkay);
      expect[kBase + 32 * static_cast<uint64_t>(i % 100)] = written[i];
    }
  }
  for (int a = 0; a < 100; ++a) {
    const uint64_t addr = kBase + 32 * static_cast<uint64_t>(a);
    AxiBeat want{};  // never successfully written: still zero
    if (expect.count(addr)) want = expect[addr];
    const auto got = backdoor(mem, addr, 32);
    CHECK(std::equal(got.begin(), got.end(), want.begin()));
  }
  CHECK(errors > 30);
  CHECK(static_cast<uint64_t>(errors) == mem.injected_write_errors());
  CHECK(mem.failed_writes().size() == static_cast<size_t>(errors));
  CHECK(observed_errors == mem.failed_writes());
}

TEST_CASE("AXI memory: interleaved R beats of different IDs keep per-ID order", "[axi_memory]") {
  constexpr size_t kBursts = 300;
  constexpr uint64_t kStride = 128;
  std::mt19937_64 rng(22);
  AxiMemoryOptions opt;
  opt.latency_min = 1;
  opt.latency_max = 20;
  opt.reorder = true;
  opt.interleave = true;
  AxiMemory mem(rng, opt);
  mem.map_region(kBase, kBursts * kStride);
  // Every byte of burst i's beats is tagged with i and the beat number.
  for (size_t i = 0; i < kBursts; ++i) {
    for (uint8_t beat = 0; beat < 4; ++beat) {
      std::vector<uint8_t> tag(32, static_cast<uint8_t>(beat));
      tag[0] = static_cast<uint8_t>(i);
      tag[1] = static_cast<uint8_t>(i >> 8);
      mem.write_bytes(kBase + i * kStride + 32 * beat, tag.data(), tag.size());
    }
  }
  Master m(mem, 23);
  std::mt19937_64 req_rng(24);
  std::vector<uint32_t> ids, lens;
  for (size_t i = 0; i < kBursts; ++i) {
    ids.push_back(static_cast<uint32_t>(req_rng() % 4));
    lens.push_back(1 + static_cast<uint32_t>(req_rng() % 3));
    m.read(ids[i], kBase + i * kStride, lens[i], 5);
  }
  REQUIRE(m.run());
  // Per ID: the beats arrive burst by burst in AR order, beat by beat, rlast on the last.
  std::map<uint32_t, std::deque<size_t>> per_id;  // bursts of each ID in AR order
  for (size_t i = 0; i < kBursts; ++i) per_id[ids[i]].push_back(i);
  std::map<uint32_t, uint32_t> next_beat;
  size_t switches = 0;
  for (size_t k = 0; k < m.r.size(); ++k) {
    const RBeat &b = m.r[k];
    REQUIRE(!per_id[b.id].empty());
    const size_t burst = per_id[b.id].front();
    const size_t tag = b.data[0] | (size_t{b.data[1]} << 8);
    CHECK(tag == burst);
    CHECK(b.data[2] == next_beat[b.id]);
    const bool last = next_beat[b.id] == lens[burst];
    CHECK(b.last == last);
    if (last) {
      per_id[b.id].pop_front();
      next_beat[b.id] = 0;
    } else {
      ++next_beat[b.id];
      // A beat of another ID before this burst's next beat: the bursts interleave.
      if (k + 1 < m.r.size() && m.r[k + 1].id != b.id) ++switches;
    }
  }
  CHECK(switches > 20);
  CHECK(mem.interleaved_beats() > 0);
  CHECK(mem.violations().empty());
}

TEST_CASE("AXI memory: unmapped access and 4 KiB crossing are violations", "[axi_memory]") {
  std::mt19937_64 rng(10);
  AxiMemoryOptions opt;
  opt.latency_min = opt.latency_max = 2;
  AxiMemory mem(rng, opt);
  Master m(mem, 17);

  SECTION("unmapped read and write are recorded and still served") {
    mem.map_region(kBase, 0x800);
    m.read(1, kBase + 0x3000, 0, 5);
    REQUIRE(m.run());
    REQUIRE(mem.violations().size() == 1);
    const std::string &v = mem.violations()[0];
    CHECK(contains(v, "cycle "));
    CHECK(contains(v, "R id=0x1 addr=0x103000"));
    CHECK(contains(v, "unmapped"));
    CHECK(m.r.size() == 1);

    AxiBeat data;
    data.fill(0x5a);
    m.write(2, kBase + 0x5000, 5, {data}, {kFullStrb});
    REQUIRE(m.run());
    REQUIRE(mem.violations().size() == 2);
    CHECK(contains(mem.violations()[1], "W id=0x2 addr=0x105000"));
    CHECK(contains(mem.violations()[1], "unmapped"));
    CHECK(m.b[0].resp == AxiMemory::kRespOkay);
    CHECK(backdoor(mem, kBase + 0x5000, 1)[0] == 0x5a);

    // Partly mapped counts too; unmapping makes a good address bad.
    m.read(3, kBase + 0x7f0, 0, 4);  // 16 bytes ending at the edge of the region: fine
    m.read(3, kBase + 0x7e0, 1, 5);  // runs one beat past it
    REQUIRE(m.run());
    REQUIRE(mem.violations().size() == 3);
    CHECK(contains(mem.violations()[2], "addr=0x1007e0"));
    mem.unmap_region(kBase);
    m.read(4, kBase, 0, 5);
    REQUIRE(m.run());
    REQUIRE(mem.violations().size() == 4);
    CHECK(contains(mem.violations()[3], "R id=0x4 addr=0x100000"));

    // Adjacent regions together cover a burst across their junction.
    mem.map_region(kBase, 0x400);
    mem.map_region(kBase + 0x400, 0x400);
    m.read(5, kBase + 0x3e0, 1, 5);
    REQUIRE(m.run());
    CHECK(mem.violations().size() == 4);
  }

  SECTION("bursts crossing 4 KiB") {
    mem.map_region(kBase, 0x10000);
    m.read(1, kBase + 0xfe0, 1, 5);  // 0x100fe0..0x10101f
    REQUIRE(m.run());
    REQUIRE(mem.violations().size() == 1);
    CHECK(contains(mem.violations()[0], "R id=0x1 addr=0x100fe0"));
    CHECK(contains(mem.violations()[0], "4 KiB"));
    CHECK(m.r.size() == 2);

    m.write(2, kBase + 0x1ff8, 3, {AxiBeat{}, AxiBeat{}}, {0xffu << 24, 0xffu});
    REQUIRE(m.run());
    REQUIRE(mem.violations().size() == 2);
    CHECK(contains(mem.violations()[1], "W id=0x2 addr=0x101ff8"));
    CHECK(contains(mem.violations()[1], "4 KiB"));

    m.read(3, kBase + 0x1fc0, 1, 5);  // ends exactly at the boundary
    REQUIRE(m.run());
    CHECK(mem.violations().size() == 2);
  }
}

TEST_CASE("AXI memory: master protocol checks", "[axi_memory]") {
  std::mt19937_64 rng(11);
  AxiMemoryOptions opt;
  opt.latency_min = opt.latency_max = 2;

  SECTION("valid dropped or payload changed before ready") {
    opt.backpressure = 1.0;  // never ready
    AxiMemory mem(rng, opt);
    mem.map_region(kBase, 0x1000);
    AxiMasterOut m;
    m.arvalid = true;
    m.araddr = kBase;
    mem.drive();
    mem.sample(m);
    m.araddr = kBase + 0x40;
    mem.drive();
    mem.sample(m);
    m.arvalid = false;
    mem.drive();
    mem.sample(m);
    REQUIRE(mem.violations().size() == 2);
    CHECK(contains(mem.violations()[0], "payload changed"));
    CHECK(contains(mem.violations()[1], "arvalid dropped"));
  }

  SECTION("W before its AW waits for it; wrong wlast, non-INCR burst") {
    AxiMemory mem(rng, opt);
    mem.map_region(kBase, 0x1000);
    AxiMasterOut m;
    m.wvalid = true;  // AXI4 lets W lead AW: held, not a violation
    m.wstrb = kFullStrb;
    m.wlast = true;   // but the burst below has two beats: early
    mem.drive();
    mem.sample(m);
    CHECK(mem.violations().empty());
    CHECK_FALSE(mem.idle());

    m.wvalid = false;
    m.awvalid = true;
    m.awaddr = kBase;
    m.awlen = 1;
    m.awsize = 5;
    m.awburst = 2;  // WRAP
    mem.drive();
    mem.sample(m);
    REQUIRE(mem.violations().size() == 2);
    CHECK(contains(mem.violations()[0], "not INCR"));
    CHECK(contains(mem.violations()[1], "wlast early"));
    m.awvalid = false;
    m.wvalid = true;
    m.wlast = false;
    mem.drive();
    mem.sample(m);
    REQUIRE(mem.violations().size() == 3);
    CHECK(contains(mem.violations()[2], "wlast missing"));
    m.wvalid = false;
    m.bready = true;
    for (int i = 0; i < 5; ++i) {
      mem.drive();
      mem.sample(m);
    }
    CHECK(mem.idle());
    CHECK(mem.violations().size() == 3);
  }

  SECTION("a slave that waits for WVALID before AWREADY") {
    AxiMemoryOptions o = opt;
    o.aw_waits_for_w = true;
    AxiMemory mem(rng, o);
    mem.map_region(kBase, 0x1000);
    AxiMasterOut m;
    m.awvalid = true;
    m.awaddr = kBase;
    m.awlen = 0;
    m.awsize = 5;
    CHECK_FALSE(mem.drive().awready);  // no W yet
    mem.sample(m);
    m.wvalid = true;
    m.wstrb = kFullStrb;
    m.wlast = true;
    m.wdata.fill(0x5a);
    mem.drive();
    mem.sample(m);  // the W beat is taken
    m.wvalid = false;
    CHECK(mem.drive().awready);
    mem.sample(m);  // now the AW
    m.awvalid = false;
    m.bready = true;
    for (int i = 0; i < 40 && !mem.idle(); ++i) {
      mem.drive();
      mem.sample(m);
    }
    CHECK(mem.idle());
    uint8_t byte = 0;
    mem.read_bytes(kBase + 7, &byte, 1);
    CHECK(byte == 0x5a);
    CHECK(mem.violations().empty());
  }
}

TEST_CASE("AXI memory: a dead page refuses every write, reads normally, and stays dead",
          "[axi_memory]") {
  AxiMemoryOptions opt;
  opt.reorder = true;
  opt.latency_max = 6;
  opt.latency_min = 1;
  std::mt19937_64 rng(23);
  AxiMemory mem(rng, opt);
  mem.map_region(kBase, 0x3000);  // pages kBase >> 12 .. + 2
  const uint64_t live = kBase, dead = kBase + 0x1000, later = kBase + 0x2000;
  std::vector<uint8_t> image(64);
  for (size_t i = 0; i < image.size(); ++i) image[i] = static_cast<uint8_t>(i * 5 + 3);
  mem.write_bytes(dead, image.data(), image.size());  // the backdoor ignores dead pages
  // Made dead after construction (as the environment does once it has mapped its pages).
  mem.add_dead_pages({dead >> 12});
  CHECK(mem.dead_pages() == std::set<uint64_t>{dead >> 12});
  CHECK(mem.page_dead(dead + 0xfff));
  CHECK_FALSE(mem.page_dead(live));
  CHECK_FALSE(mem.page_dead(dead + 0x1000));
  // set_options with no dead page revives none (dead for the whole run).
  mem.set_options(opt);
  CHECK(mem.page_dead(dead));

  // The write-done observer: each B once, when it is taken, with its burst's address.
  std::vector<std::pair<uint64_t, bool>> done;
  mem.set_write_done_observer([&](uint64_t addr, bool error, uint32_t) { done.push_back({addr, error}); });
  Master m(mem, 24, 0.3);  // bready stalls: the observer waits for the handshake
  std::mt19937_64 data_rng(25);
  constexpr int kN = 60;
  std::vector<uint64_t> addrs;
  for (int i = 0; i < kN; ++i) {
    const uint64_t base = i % 3 == 0 ? live : dead;
    addrs.push_back(base + 64 * static_cast<uint64_t>(i % 20));
    m.write(0, addrs.back(), 5, {random_beat(data_rng), random_beat(data_rng)},
            {kFullStrb, kFullStrb});
  }
  REQUIRE(m.run());
  REQUIRE(m.b.size() == kN);
  REQUIRE(done.size() == kN);
  for (int i = 0; i < kN; ++i) {
    INFO("write " << i << " at " << std::hex << addrs[i]);
    const bool to_dead = addrs[i] >= dead && addrs[i] < dead + 0x1000;
    CHECK(m.b[i].resp == (to_dead ? AxiMemory::kRespSlverr : AxiMemory::kRespOkay));
    CHECK(done[i] == std::make_pair(addrs[i], to_dead));  // one ID: B in AW order
  }
  // Nothing of the dead page changed; its reads answer OKAY with the true bytes.
  CHECK(backdoor(mem, dead, 64) == image);
  m.read(1, dead, 1, 5);
  REQUIRE(m.run());
  const auto read_back = m.bursts();
  REQUIRE(read_back.size() == 1);
  for (const RBeat &beat : read_back[0]) CHECK(beat.resp == AxiMemory::kRespOkay);
  CHECK(std::equal(read_back[0][0].data.begin(), read_back[0][0].data.end(), image.begin()));
  CHECK(std::equal(read_back[0][1].data.begin(), read_back[0][1].data.end(), image.begin() + 32));
  CHECK(mem.dead_page_write_errors() == 40u);
  CHECK(mem.injected_write_errors() == 40u);
  CHECK(mem.failed_writes().size() == 40u);

  // Extending the set: a second page dies, the first stays dead; random write errors on
  // top are counted in injected_write_errors() only.
  AxiMemoryOptions noisy = opt;
  noisy.write_error_rate = 0.5;
  noisy.dead_pages = {later >> 12};
  mem.set_options(noisy);
  CHECK(mem.dead_pages() == std::set<uint64_t>{dead >> 12, later >> 12});
  for (int i = 0; i < kN; ++i) {
    m.write(2, (i % 2 ? later : live) + 64 * static_cast<uint64_t>(i % 20), 5,
            {random_beat(data_rng), random_beat(data_rng)}, {kFullStrb, kFullStrb});
  }
  REQUIRE(m.run());
  int refused_live = 0;
  for (int i = 0; i < kN; ++i) {
    const BResp &b = m.b[static_cast<size_t>(kN + i)];
    if (i % 2) {
      CHECK(b.resp == AxiMemory::kRespSlverr);
    } else {
      refused_live += b.resp == AxiMemory::kRespSlverr;
    }
  }
  CHECK(refused_live > 0);
  CHECK(refused_live < kN / 2);
  CHECK(mem.dead_page_write_errors() == 40u + kN / 2);
  CHECK(mem.injected_write_errors() == 40u + kN / 2 + static_cast<uint64_t>(refused_live));
  CHECK(mem.violations().empty());
}
