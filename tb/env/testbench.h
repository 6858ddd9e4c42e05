// The testbench controller (STYLE.md §2.16): owns time, clock, reset, tracing and the
// Verilated context. Drivers, monitors and checkers hook in as extensions and are
// called around every rising clock edge.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dut.h"

class VerilatedContext;

namespace qpm {

// Verilator's seed for random initial values: 31 bits, never 0 (0 would make Verilator
// pick a fresh random seed, and the run would not reproduce). Every 64-bit run seed
// maps to a fixed non-zero value; seeds differing only above bit 31 still differ here.
int verilator_seed(uint64_t seed);

class TbExtension {
 public:
  virtual ~TbExtension() = default;
  // Inputs and outputs are settled for the coming edge: sample handshakes here.
  virtual void before_edge(Dut &dut) = 0;
  // The edge has happened: drive the inputs for the next cycle here.
  virtual void after_edge(Dut &dut) = 0;
};

class Testbench {
 public:
  // seed feeds Verilator's random initial values (--x-initial unique).
  // trace_from: cycles before it are not written (a hang late in a long run).
  Testbench(const std::string &config, uint64_t seed, const std::string &trace_path = "",
            uint64_t trace_from = 0);
  ~Testbench();
  Testbench(const Testbench &) = delete;
  Testbench &operator=(const Testbench &) = delete;

  Dut &dut() { return *dut_; }
  const Dut &dut() const { return *dut_; }
  const DutConfig &config() const { return *config_; }
  void add(TbExtension *ext) { extensions_.push_back(ext); }

  // Asynchronous reset: a real negedge of rst_ni, a few clocks in reset, release.
  void reset();
  void tick();
  uint64_t cycles() const { return cycles_; }
  // An RTL assertion fired (it does not abort the process; see the constructor).
  bool assertion_failed() const;

 private:
  void step_time();

  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Dut> dut_;
  const DutConfig *config_;
  std::vector<TbExtension *> extensions_;
  uint64_t cycles_ = 0;
  uint64_t time_ = 0;
  uint64_t trace_from_ = 0;
};

}  // namespace qpm
