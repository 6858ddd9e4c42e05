// AXI4 slave memory model for qpm_top's memory port.
//
// A sparse byte memory behind an AXI4 slave with random latency, optional reordering
// across IDs, random back-pressure, injected read and write errors, and dead pages that
// refuse every write. It also checks the master: protocol rules and accesses outside the
// regions the host has mapped are recorded as violations (and the access is still
// served, so a run can go on and report them all at the end).
//
// The core (sample/drive) sees only pin structs, so it is unit-tested without a DUT.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "testbench.h"

namespace qpm {

struct AxiMemoryOptions {
  // Cycles from the AR handshake (or the last W beat) to the earliest edge the first
  // R beat (or B) can be accepted at; drawn uniformly per burst. 0 behaves as 1.
  uint32_t latency_min = 20, latency_max = 20;
  // Due responses of different IDs are picked at random instead of oldest first.
  bool reorder = false;
  // Per cycle: probability that each of awready/wready/arready is low and that a due
  // R beat or B is held back.
  double backpressure = 0.0;
  // Per read burst: probability that all of its beats answer SLVERR. An error beat
  // carries garbage (the true bytes XOR a random non-zero pattern), never the memory's
  // contents, so a master that ignores RRESP returns wrong data.
  double read_error_rate = 0.0;
  // Per write burst: probability that B answers SLVERR. The failed write changes no
  // byte of memory, so a master that ignores BRESP loses the data it meant to write.
  double write_error_rate = 0.0;
  // R beats of bursts with different IDs interleave (AXI4 A5.3.1 allows it; beats of
  // one ID stay in order): each beat is drawn from the bursts that are due.
  bool interleave = false;
  // Hold AWREADY low until the burst's first W beat has been taken, as AXI4 allows a
  // slave to do (A3.3.1); a master that waits for AWREADY before WVALID hangs.
  bool aw_waits_for_w = false;
  // Dead pages: 4 KiB page numbers (address >> 12) whose every write burst answers
  // SLVERR (and writes nothing), whatever write_error_rate says; reads of them are
  // normal. A page once dead stays dead for the whole run (AxiMemory::add_dead_pages).
  std::set<uint64_t> dead_pages;
};

class AxiMemory : public TbExtension {
 public:
  static constexpr uint64_t kPageBytes = 4096;
  static constexpr uint32_t kRespOkay = 0, kRespSlverr = 2;

  // Throws std::invalid_argument for latency_min > latency_max.
  AxiMemory(std::mt19937_64 &rng, const AxiMemoryOptions &opt);

  // Edge handshakes: m is what the master drives now, against what drive() last
  // returned. Call once per rising edge, before drive().
  void sample(const AxiMasterOut &m);
  // The slave outputs for the next cycle.
  AxiSlaveOut drive();

  // Change latency, reordering, back-pressure or the error rate from now on (bursts
  // already accepted keep what they drew). Dead pages are never revived: the pages of
  // opt.dead_pages are added to the dead ones, none is removed.
  void set_options(const AxiMemoryOptions &opt);
  // Make more pages dead (page numbers: address >> 12), from the next write burst that
  // completes its W beats on.
  void add_dead_pages(const std::set<uint64_t> &pages);
  const std::set<uint64_t> &dead_pages() const { return opt_.dead_pages; }
  bool page_dead(uint64_t addr) const { return opt_.dead_pages.count(addr / kPageBytes) != 0; }

  void before_edge(Dut &dut) override { sample(dut.mem_out()); }
  void after_edge(Dut &dut) override { dut.set_mem_in(drive()); }

  // Bursts touching any byte outside the union of mapped regions are violations.
  // Mapping an existing base again replaces its size; unmapping an unknown base is a
  // no-op (the host may unmap what it never mapped in negative tests).
  void map_region(uint64_t base, uint64_t size);
  void unmap_region(uint64_t base);

  // A directed stall: while on, AWREADY and WREADY stay low (a slave whose write path
  // is stuck); reads go on.
  void hold_writes(bool on) { hold_writes_ = on; }

  // A directed fault: the next `count` read bursts that start at addr answer SLVERR
  // (counted and reported like the random ones).
  void fail_reads_at(uint64_t addr, uint32_t count = 1) { fail_reads_[addr] += count; }

  // Backdoor access, no timing and no checks.
  void write_bytes(uint64_t addr, const uint8_t *p, size_t n);
  void read_bytes(uint64_t addr, uint8_t *p, size_t n) const;

  const std::vector<std::string> &violations() const { return violations_; }
  // Handshakes: reads/writes count AR/AW, the beats count R/W. Injected errors count
  // bursts; cycle() counts the edges sampled so far.
  uint64_t reads() const { return reads_; }
  uint64_t writes() const { return writes_; }
  uint64_t read_beats() const { return read_beats_; }
  uint64_t write_beats() const { return write_beats_; }
  uint64_t injected_read_errors() const { return injected_read_errors_; }
  uint64_t injected_write_errors() const { return injected_write_errors_; }
  // ... of which refused because they wrote to a dead page.
  uint64_t dead_page_write_errors() const { return dead_page_write_errors_; }
  // R beats that were offered while a beat of another burst was still to come: how
  // often the interleaving actually happened.
  uint64_t interleaved_beats() const { return interleaved_beats_; }
  // Start addresses of the read bursts answered with SLVERR, in AR order.
  const std::vector<uint64_t> &failed_reads() const { return failed_reads_; }
  // The same bursts in the order their last R beat was taken: when the master learnt
  // of the error. An error can reach only a request that was waiting at that edge.
  const std::vector<uint64_t> &failed_read_completions() const {
    return failed_read_completions_;
  }
  // Start addresses of the write bursts answered with SLVERR, in B order.
  const std::vector<uint64_t> &failed_writes() const { return failed_writes_; }
  // Called once per burst: 'R' at its AR handshake, 'W' when its B is offered, with the
  // start address, whether it answers an error and its AXI ID. For traffic accounting.
  using BurstObserver = std::function<void(char dir, uint64_t addr, bool error, uint32_t id)>;
  void set_observer(BurstObserver obs) { observer_ = std::move(obs); }
  // Called once per read burst when its last R beat is taken (when the master learns
  // how it ended), with its start address, whether it answered an error and its ID.
  using ReadDoneObserver = std::function<void(uint64_t addr, bool error, uint32_t id)>;
  void set_read_done_observer(ReadDoneObserver obs) { read_done_ = std::move(obs); }
  // Called once per write burst when its B is taken (when the master learns how it
  // ended), with its start address, whether it answered an error and its ID.
  using WriteDoneObserver = ReadDoneObserver;
  void set_write_done_observer(WriteDoneObserver obs) { write_done_ = std::move(obs); }
  // Whether [begin, end) lies inside the regions the host has mapped.
  bool is_mapped(uint64_t begin, uint64_t end) const { return mapped(begin, end); }
  // A write burst touching addr has been accepted (AW) and its B not yet offered.
  bool write_pending(uint64_t addr) const;
  uint64_t cycle() const { return cycle_; }
  // Nothing accepted is still waiting for data, W beats or a response.
  bool idle() const;

 private:
  struct Burst {
    uint32_t id = 0;
    uint64_t addr = 0;
    uint32_t len = 0;   // beats - 1
    uint32_t size = 0;  // clamped to the bus width
    uint32_t beat = 0;  // next beat to transfer
    uint64_t due = 0;   // earliest edge the response can be accepted at
    bool error = false;
    bool dead = false;    // a write to a dead page (error too)
    uint8_t garbage = 0;  // XOR pattern of an error's read data (non-zero)
    // Reads return memory as it was when AR was accepted; writes become visible when
    // their B response is offered: the earliest and latest points AXI4 allows, so a
    // master that reads a location before its own write is acknowledged sees old data.
    std::vector<AxiBeat> read_data;
    std::vector<std::pair<uint64_t, uint8_t>> write_data;
  };
  using Page = std::array<uint8_t, kPageBytes>;

  bool chance(double p);
  uint32_t draw_latency();
  // Index into q of the response to offer next, if any is due, skipping busy_ids.
  std::optional<size_t> pick(const std::deque<Burst> &q, const std::vector<uint32_t> &busy_ids);
  void check_stable(const AxiMasterOut &m);
  Burst accept_burst(char dir, uint32_t id, uint64_t addr, uint32_t len, uint32_t size,
                     uint32_t burst);
  void accept_w_beat(const AxiMasterOut &m);
  void offer_read_beat();
  void offer_write_response();
  bool mapped(uint64_t begin, uint64_t end) const;
  void rebuild_mapped();
  void violation(const std::string &what);
  uint8_t read_byte(uint64_t addr) const;
  void write_byte(uint64_t addr, uint8_t v);

  std::mt19937_64 &rng_;
  AxiMemoryOptions opt_;
  std::vector<uint64_t> failed_reads_;
  std::vector<uint64_t> failed_read_completions_;
  ReadDoneObserver read_done_;
  WriteDoneObserver write_done_;
  // The B on the bus (out_.bvalid): its burst's start address and whether it failed.
  uint64_t offered_b_addr_ = 0;
  bool offered_b_error_ = false;
  std::deque<AxiMasterOut> early_w_;  // W beats taken before their AW
  std::unordered_map<uint64_t, Page> pages_;  // keyed by addr / kPageBytes
  std::map<uint64_t, uint64_t> regions_;      // base -> size, as the host mapped them
  std::map<uint64_t, uint64_t> mapped_;       // disjoint merged [begin, end)

  AxiSlaveOut out_;  // what the slave drives this cycle
  // The master's previous outputs, for "valid held until ready" checks.
  AxiMasterOut prev_;
  bool ar_waiting_ = false, aw_waiting_ = false, w_waiting_ = false;
  bool hold_writes_ = false;

  std::deque<Burst> read_q_;          // accepted, first beat not offered, AR order
  // Bursts whose beats are going out: at most one, or one per ID with interleave.
  std::vector<Burst> active_reads_;
  size_t offered_read_ = 0;           // index in active_reads_ of the beat on the bus
  std::deque<Burst> write_q_;         // AW accepted, W beats outstanding, AW order
  std::deque<Burst> b_q_;             // W complete, B not offered, completion order

  std::vector<std::string> violations_;
  uint64_t cycle_ = 0;
  uint64_t reads_ = 0, writes_ = 0, read_beats_ = 0, write_beats_ = 0;
  std::map<uint64_t, uint32_t> fail_reads_;  // fail_reads_at: bursts still to fail
  uint64_t injected_read_errors_ = 0, injected_write_errors_ = 0, interleaved_beats_ = 0;
  uint64_t dead_page_write_errors_ = 0;
  std::vector<uint64_t> failed_writes_;
  BurstObserver observer_;
};

}  // namespace qpm
