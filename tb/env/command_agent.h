// Driver and monitor of qpm_top's command / response streams.
#pragma once

#include <deque>
#include <functional>
#include <random>

#include "testbench.h"

namespace qpm {

// Drives queued commands on cmd_valid/cmd_i, with optional random idle cycles. It holds
// each command on the pins until cmd_ready; what was accepted is reported by the
// CommandMonitor, which reads the pins, not this queue.
class CommandDriver : public TbExtension {
 public:
  CommandDriver(std::mt19937_64 &rng, double idle_prob = 0.0)
      : rng_(rng), idle_prob_(idle_prob) {}

  void push(const Command &cmd) { queue_.push_back(cmd); }
  bool idle() const { return queue_.empty() && !driving_; }
  size_t queued() const { return queue_.size(); }
  void before_edge(Dut &dut) override;
  void after_edge(Dut &dut) override;

 private:
  std::mt19937_64 &rng_;
  double idle_prob_;
  std::deque<Command> queue_;
  bool driving_ = false;
};

// Reports every command accepted on the command port (cmd_valid && cmd_ready at an
// edge), decoded from the pins.
class CommandMonitor : public TbExtension {
 public:
  using AcceptFn = std::function<void(const Command &)>;
  explicit CommandMonitor(AcceptFn on_accept) : on_accept_(std::move(on_accept)) {}
  void before_edge(Dut &dut) override;
  void after_edge(Dut &) override {}

 private:
  AcceptFn on_accept_;
};

// Takes responses off rsp_valid/rsp_o, with optional random back-pressure on rsp_ready.
class ResponseMonitor : public TbExtension {
 public:
  using ResponseFn = std::function<void(const Response &)>;
  ResponseMonitor(std::mt19937_64 &rng, ResponseFn on_response, double stall_prob = 0.0)
      : rng_(rng), on_response_(std::move(on_response)), stall_prob_(stall_prob) {}

  void before_edge(Dut &dut) override;
  void after_edge(Dut &dut) override;

 private:
  std::mt19937_64 &rng_;
  ResponseFn on_response_;
  double stall_prob_;
  bool ready_ = false;
};

}  // namespace qpm
