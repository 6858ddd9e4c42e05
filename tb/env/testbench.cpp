#include "testbench.h"

#include <verilated.h>
#if VM_COVERAGE
#include <verilated_cov.h>
#endif

#include <unistd.h>

#include <stdexcept>

namespace qpm {

int verilator_seed(uint64_t seed) {
  // splitmix64's finalizer spreads every input bit over the low 31.
  uint64_t z = seed + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return static_cast<int>(z % 0x7fffffffull) + 1;  // 1 .. 2^31-1
}

Testbench::Testbench(const std::string &config, uint64_t seed, const std::string &trace_path,
                     uint64_t trace_from)
    : ctx_(std::make_unique<VerilatedContext>()),
      config_(find_dut_config(config)),
      trace_from_(trace_from) {
  if (!config_) throw std::invalid_argument("unknown configuration '" + config + "'");
  ctx_->debug(0);
  ctx_->randReset(2);  // every register and memory bit starts random
  ctx_->randSeed(verilator_seed(seed));
  ctx_->fatalOnError(false);  // a failing assertion sets gotError() instead of aborting
  if (!trace_path.empty()) ctx_->traceEverOn(true);
  dut_ = make_dut(config, ctx_.get());
  if (!trace_path.empty()) dut_->open_trace(trace_path);
  dut_->set_clk(false);
  dut_->set_rst_n(true);
  dut_->set_cmd_valid(false);
  dut_->set_rsp_ready(false);
  dut_->set_dp_req_valid(false);
  dut_->set_dp_rsp_ready(false);
  dut_->set_db_valid(false);
  dut_->set_eqe_ready(false);
  dut_->set_cqe_ready(false);
  dut_->eval();
}

Testbench::~Testbench() {
  dut_->final();
  dut_->close_trace();
#if VM_COVERAGE
  // One file per testbench: coverage-<pid>-<n>.dat, merged by verilator_coverage.
  static int instance = 0;
  const std::string file = "coverage-" + std::to_string(getpid()) + "-" +
                           std::to_string(instance++) + ".dat";
  ctx_->coveragep()->write(file.c_str());
#endif
}

void Testbench::step_time() {
  if (cycles_ >= trace_from_) dut_->dump_trace(time_);
  ++time_;
  ctx_->timeInc(1);
}

void Testbench::reset() {
  dut_->set_rst_n(true);
  dut_->eval();
  dut_->set_rst_n(false);  // the negedge the asynchronous reset needs
  dut_->eval();
  for (int i = 0; i < 4; ++i) tick();
  dut_->set_rst_n(true);
  dut_->eval();
}

void Testbench::tick() {
  dut_->set_clk(false);
  dut_->eval();
  step_time();
  for (auto *e : extensions_) e->before_edge(*dut_);
  dut_->set_clk(true);
  dut_->eval();
  step_time();
  // The inputs driven here settle at the next tick's first eval.
  for (auto *e : extensions_) e->after_edge(*dut_);
  ++cycles_;
}

bool Testbench::assertion_failed() const { return ctx_->gotError(); }

}  // namespace qpm
