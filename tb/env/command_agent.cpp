#include "command_agent.h"

#include "port_codec.h"

namespace qpm {

void CommandDriver::before_edge(Dut &dut) {
  if (driving_ && dut.cmd_ready()) {
    queue_.pop_front();
    driving_ = false;
  }
}

void CommandMonitor::before_edge(Dut &dut) {
  if (dut.cmd_valid() && dut.cmd_ready()) on_accept_(decode_command(dut.cmd()));
}

void CommandDriver::after_edge(Dut &dut) {
  if (!driving_ && !queue_.empty()) {
    std::bernoulli_distribution idle(idle_prob_);
    if (idle_prob_ <= 0.0 || !idle(rng_)) {
      dut.set_cmd(encode_command(queue_.front()));
      driving_ = true;
    }
  }
  dut.set_cmd_valid(driving_);
}

void ResponseMonitor::before_edge(Dut &dut) {
  if (ready_ && dut.rsp_valid()) on_response_(decode_response(dut.rsp()));
}

void ResponseMonitor::after_edge(Dut &dut) {
  std::bernoulli_distribution stall(stall_prob_);
  ready_ = stall_prob_ <= 0.0 || !stall(rng_);
  dut.set_rsp_ready(ready_);
}

}  // namespace qpm
