#include "axi_memory.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace qpm {

namespace {

constexpr uint32_t kBurstIncr = 1;
constexpr uint32_t kMaxSize = 5;  // log2(kAxiDataBytes)
static_assert((1u << kMaxSize) == kAxiDataBytes, "kMaxSize must match the bus width");

// Where beat n of an INCR burst sits on the bus (AXI4 spec A3.4.1): the bus-aligned
// address and the active byte lanes [lo, hi]. Only the first beat may be unaligned,
// and it then uses fewer lanes.
struct BeatLanes {
  uint64_t bus_addr;
  unsigned lo, hi;
};

BeatLanes beat_lanes(uint64_t addr, uint32_t size, uint32_t n) {
  const uint64_t bytes = uint64_t{1} << size;
  const uint64_t aligned = addr & ~(bytes - 1);
  const uint64_t addr_n = n == 0 ? addr : aligned + n * bytes;
  const uint64_t bus = addr_n & ~uint64_t{kAxiDataBytes - 1};
  const uint64_t container = n == 0 ? aligned : addr_n;
  return {bus, static_cast<unsigned>(addr_n - bus),
          static_cast<unsigned>(container + bytes - 1 - bus)};
}

uint32_t lane_mask(unsigned lo, unsigned hi) {
  // 64-bit so hi == 31 does not shift a 32-bit value by 32.
  return static_cast<uint32_t>(((uint64_t{1} << (hi + 1)) - 1) & ~((uint64_t{1} << lo) - 1));
}

std::string hex(uint64_t v) {
  std::ostringstream s;
  s << "0x" << std::hex << v;
  return s.str();
}

}  // namespace

AxiMemory::AxiMemory(std::mt19937_64 &rng, const AxiMemoryOptions &opt) : rng_(rng), opt_(opt) {
  if (opt_.latency_min > opt_.latency_max)
    throw std::invalid_argument("AxiMemory: latency_min > latency_max");
}

void AxiMemory::set_options(const AxiMemoryOptions &opt) {
  std::set<uint64_t> dead = std::move(opt_.dead_pages);
  opt_ = opt;
  opt_.dead_pages.insert(dead.begin(), dead.end());
}

void AxiMemory::add_dead_pages(const std::set<uint64_t> &pages) {
  opt_.dead_pages.insert(pages.begin(), pages.end());
}

// No draw for p == 0, so a model without randomness leaves the shared rng alone.
bool AxiMemory::chance(double p) {
  if (p <= 0.0) return false;
  if (p >= 1.0) return true;
  return std::bernoulli_distribution(p)(rng_);
}

uint32_t AxiMemory::draw_latency() {
  if (opt_.latency_min == opt_.latency_max) return opt_.latency_min;
  return std::uniform_int_distribution<uint32_t>(opt_.latency_min, opt_.latency_max)(rng_);
}

void AxiMemory::violation(const std::string &what) {
  violations_.push_back("cycle " + std::to_string(cycle_) + ": " + what);
}

void AxiMemory::sample(const AxiMasterOut &m) {
  check_stable(m);
  // W beats may come before their AW (AXI4): they wait in early_w_ until it arrives.
  if (m.awvalid && out_.awready) {
    ++writes_;
    write_q_.push_back(accept_burst('W', m.awid, m.awaddr, m.awlen, m.awsize, m.awburst));
    while (!early_w_.empty() && !write_q_.empty()) {
      const AxiMasterOut w = early_w_.front();
      early_w_.pop_front();
      accept_w_beat(w);
    }
  }
  if (m.wvalid && out_.wready) {
    if (write_q_.empty()) {
      early_w_.push_back(m);
    } else {
      accept_w_beat(m);
    }
  }
  if (m.arvalid && out_.arready) {
    ++reads_;
    Burst b = accept_burst('R', m.arid, m.araddr, m.arlen, m.arsize, m.arburst);
    b.due = cycle_ + draw_latency();
    b.error = chance(opt_.read_error_rate);
    if (const auto f = fail_reads_.find(b.addr); !b.error && f != fail_reads_.end()) {
      b.error = true;
      if (--f->second == 0) fail_reads_.erase(f);
    }
    if (b.error) {
      ++injected_read_errors_;
      failed_reads_.push_back(b.addr);
      b.garbage = static_cast<uint8_t>(std::uniform_int_distribution<unsigned>(1, 255)(rng_));
    }
    if (observer_) observer_('R', b.addr, b.error, b.id);
    for (uint32_t beat = 0; beat <= b.len; ++beat) {
      const BeatLanes l = beat_lanes(b.addr, b.size, beat);
      AxiBeat data{};
      for (unsigned lane = l.lo; lane <= l.hi; ++lane) data[lane] = read_byte(l.bus_addr + lane);
      b.read_data.push_back(data);
    }
    read_q_.push_back(b);
  }
  if (out_.rvalid && m.rready) {
    ++read_beats_;
    out_.rvalid = false;  // lets drive() offer the next beat
    if (out_.rlast) {
      const Burst &done = active_reads_[offered_read_];
      if (done.error) failed_read_completions_.push_back(done.addr);
      if (read_done_) read_done_(done.addr, done.error, done.id);
      active_reads_.erase(active_reads_.begin() + static_cast<std::ptrdiff_t>(offered_read_));
    } else {
      ++active_reads_[offered_read_].beat;
    }
  }
  if (out_.bvalid && m.bready) {
    out_.bvalid = false;
    if (write_done_) write_done_(offered_b_addr_, offered_b_error_, out_.bid);
  }

  ar_waiting_ = m.arvalid && !out_.arready;
  aw_waiting_ = m.awvalid && !out_.awready;
  w_waiting_ = m.wvalid && !out_.wready;
  prev_ = m;
  ++cycle_;
}

// AXI4 A3.2.1: once valid is high, it and the payload stay until the handshake.
void AxiMemory::check_stable(const AxiMasterOut &m) {
  const AxiMasterOut &p = prev_;
  if (ar_waiting_) {
    const std::string what = "AR id=" + hex(p.arid) + " addr=" + hex(p.araddr);
    if (!m.arvalid) {
      violation(what + ": arvalid dropped before arready");
    } else if (m.arid != p.arid || m.araddr != p.araddr || m.arlen != p.arlen ||
               m.arsize != p.arsize || m.arburst != p.arburst) {
      violation(what + ": AR payload changed before arready");
    }
  }
  if (aw_waiting_) {
    const std::string what = "AW id=" + hex(p.awid) + " addr=" + hex(p.awaddr);
    if (!m.awvalid) {
      violation(what + ": awvalid dropped before awready");
    } else if (m.awid != p.awid || m.awaddr != p.awaddr || m.awlen != p.awlen ||
               m.awsize != p.awsize || m.awburst != p.awburst) {
      violation(what + ": AW payload changed before awready");
    }
  }
  if (w_waiting_) {
    if (!m.wvalid) {
      violation("W: wvalid dropped before wready");
    } else if (m.wdata != p.wdata || m.wstrb != p.wstrb || m.wlast != p.wlast) {
      violation("W: W payload changed before wready");
    }
  }
}

AxiMemory::Burst AxiMemory::accept_burst(char dir, uint32_t id, uint64_t addr, uint32_t len,
                                         uint32_t size, uint32_t burst) {
  const std::string what = std::string(1, dir) + " id=" + hex(id) + " addr=" + hex(addr) +
                           " len=" + std::to_string(len) + " size=" + std::to_string(size);
  if (burst != kBurstIncr)
    violation(what + ": burst type " + std::to_string(burst) + " is not INCR (served as INCR)");
  if (len > 255) violation(what + ": more than 256 beats");
  if (size > kMaxSize) {
    violation(what + ": size wider than the 32-byte bus (served as 32 bytes)");
    size = kMaxSize;
  }
  const uint64_t bytes = uint64_t{1} << size;
  const uint64_t begin = addr;
  const uint64_t end = (addr & ~(bytes - 1)) + (uint64_t{len} + 1) * bytes;
  if (begin / kPageBytes != (end - 1) / kPageBytes)
    violation(what + ": crosses a 4 KiB boundary at " + hex((begin / kPageBytes + 1) * kPageBytes));
  if (!mapped(begin, end))
    violation(what + ": touches unmapped memory in [" + hex(begin) + ", " + hex(end) + ")");
  Burst b;
  b.id = id;
  b.addr = addr;
  b.len = len;
  b.size = size;
  return b;
}

void AxiMemory::accept_w_beat(const AxiMasterOut &m) {
  ++write_beats_;
  if (write_q_.empty()) {
    violation("W beat without an outstanding AW (dropped)");
    return;
  }
  Burst &b = write_q_.front();
  const std::string what = "W id=" + hex(b.id) + " addr=" + hex(b.addr) + " beat " +
                           std::to_string(b.beat) + "/" + std::to_string(b.len + 1);
  const BeatLanes l = beat_lanes(b.addr, b.size, b.beat);
  const uint32_t active = lane_mask(l.lo, l.hi);
  if (m.wstrb & ~active)
    violation(what + ": wstrb " + hex(m.wstrb) + " outside the active lanes " + hex(active));
  for (unsigned lane = l.lo; lane <= l.hi; ++lane) {
    if ((m.wstrb >> lane) & 1u) b.write_data.push_back({l.bus_addr + lane, m.wdata[lane]});
  }
  const bool last = b.beat == b.len;
  if (m.wlast != last) violation(what + (last ? ": wlast missing" : ": wlast early"));
  // awlen, not wlast, decides the burst length, so one bad wlast does not desync.
  if (last) {
    b.due = cycle_ + draw_latency();
    b.error = chance(opt_.write_error_rate);  // drawn either way: the rng stream is kept
    b.dead = page_dead(b.addr);  // a burst never crosses a page (a violation otherwise)
    b.error = b.error || b.dead;
    b_q_.push_back(b);
    write_q_.pop_front();
  } else {
    ++b.beat;
  }
}

AxiSlaveOut AxiMemory::drive() {
  out_.awready = !hold_writes_ && !chance(opt_.backpressure)
              && (!opt_.aw_waits_for_w || !early_w_.empty());
  out_.wready = !hold_writes_ && !chance(opt_.backpressure);
  out_.arready = !chance(opt_.backpressure);
  // An offered R beat or B stays as it is until accepted (AXI4 A3.2.1).
  if (!out_.rvalid) offer_read_beat();
  if (!out_.bvalid) offer_write_response();
  return out_;
}

std::optional<size_t> AxiMemory::pick(const std::deque<Burst> &q,
                                      const std::vector<uint32_t> &busy_ids) {
  // Only the oldest entry of each ID may go, so same-ID responses keep their order;
  // IDs in busy_ids have a burst going out already.
  std::vector<uint32_t> seen = busy_ids;
  std::vector<size_t> due;
  for (size_t i = 0; i < q.size(); ++i) {
    if (std::find(seen.begin(), seen.end(), q[i].id) != seen.end()) continue;
    seen.push_back(q[i].id);
    if (q[i].due <= cycle_) due.push_back(i);
    if (!opt_.reorder) break;  // in order: only the oldest entry of all may go
  }
  if (due.empty()) return std::nullopt;
  if (due.size() == 1) return due[0];
  return due[std::uniform_int_distribution<size_t>(0, due.size() - 1)(rng_)];
}

void AxiMemory::offer_read_beat() {
  if (chance(opt_.backpressure)) return;  // a bubble, inside a burst or before one
  // Candidates: the bursts already going out, and (when there is none, or with
  // interleave) one more whose first beat is due.
  if (active_reads_.empty() || opt_.interleave) {
    std::vector<uint32_t> busy;
    for (const Burst &b : active_reads_) busy.push_back(b.id);
    if (const std::optional<size_t> i = pick(read_q_, busy)) {
      active_reads_.push_back(read_q_[*i]);
      read_q_.erase(read_q_.begin() + static_cast<std::ptrdiff_t>(*i));
    }
  }
  if (active_reads_.empty()) return;
  offered_read_ = 0;
  if (active_reads_.size() > 1) {
    offered_read_ = std::uniform_int_distribution<size_t>(0, active_reads_.size() - 1)(rng_);
    ++interleaved_beats_;
  }
  const Burst &b = active_reads_[offered_read_];
  const BeatLanes l = beat_lanes(b.addr, b.size, b.beat);
  out_.rdata.fill(0);
  for (unsigned lane = l.lo; lane <= l.hi; ++lane) {
    out_.rdata[lane] = static_cast<uint8_t>(b.read_data[b.beat][lane] ^ b.garbage);
  }
  out_.rvalid = true;
  out_.rid = b.id;
  out_.rresp = b.error ? kRespSlverr : kRespOkay;
  out_.rlast = b.beat == b.len;
}

void AxiMemory::offer_write_response() {
  const std::optional<size_t> i = pick(b_q_, {});
  if (!i || chance(opt_.backpressure)) return;
  const Burst &b = b_q_[*i];
  if (b.error) {
    ++injected_write_errors_;  // the failed write changes nothing
    if (b.dead) ++dead_page_write_errors_;
    failed_writes_.push_back(b.addr);
  } else {
    for (const auto &[addr, byte] : b.write_data) write_byte(addr, byte);
  }
  if (observer_) observer_('W', b.addr, b.error, b.id);
  out_.bvalid = true;
  out_.bid = b.id;
  out_.bresp = b.error ? kRespSlverr : kRespOkay;
  offered_b_addr_ = b.addr;
  offered_b_error_ = b.error;
  b_q_.erase(b_q_.begin() + static_cast<std::ptrdiff_t>(*i));
}

bool AxiMemory::write_pending(uint64_t addr) const {
  auto touches = [addr](const Burst &b) {
    const uint64_t end = (b.addr & ~((uint64_t{1} << b.size) - 1)) +
                         (uint64_t{b.len} + 1) * (uint64_t{1} << b.size);
    return addr >= b.addr && addr < end;
  };
  return std::any_of(write_q_.begin(), write_q_.end(), touches) ||
         std::any_of(b_q_.begin(), b_q_.end(), touches);
}

bool AxiMemory::idle() const {
  return read_q_.empty() && active_reads_.empty() && write_q_.empty() && early_w_.empty() &&
         b_q_.empty() && !out_.bvalid;
}

void AxiMemory::map_region(uint64_t base, uint64_t size) {
  regions_[base] = size;
  rebuild_mapped();
}

void AxiMemory::unmap_region(uint64_t base) {
  if (regions_.erase(base)) rebuild_mapped();
}

// Merging overlapping and adjacent regions lets one lookup decide coverage.
void AxiMemory::rebuild_mapped() {
  mapped_.clear();
  for (const auto &[base, size] : regions_) {
    if (size == 0) continue;
    const uint64_t end = base + size < base ? std::numeric_limits<uint64_t>::max() : base + size;
    if (!mapped_.empty()) {
      auto last = std::prev(mapped_.end());
      if (base <= last->second) {
        last->second = std::max(last->second, end);
        continue;
      }
    }
    mapped_[base] = end;
  }
}

bool AxiMemory::mapped(uint64_t begin, uint64_t end) const {
  auto it = mapped_.upper_bound(begin);
  if (it == mapped_.begin()) return false;
  --it;
  return it->second >= end;
}

uint8_t AxiMemory::read_byte(uint64_t addr) const {
  const auto it = pages_.find(addr / kPageBytes);
  return it == pages_.end() ? 0 : it->second[addr % kPageBytes];
}

void AxiMemory::write_byte(uint64_t addr, uint8_t v) {
  auto [it, inserted] = pages_.try_emplace(addr / kPageBytes);
  if (inserted) it->second.fill(0);
  it->second[addr % kPageBytes] = v;
}

void AxiMemory::write_bytes(uint64_t addr, const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; ++i) write_byte(addr + i, p[i]);
}

void AxiMemory::read_bytes(uint64_t addr, uint8_t *p, size_t n) const {
  for (size_t i = 0; i < n; ++i) p[i] = read_byte(addr + i);
}

}  // namespace qpm
