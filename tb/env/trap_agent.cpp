#include "trap_agent.h"

#include <vector>

namespace qpm {

TrapAgent::TrapAgent(const TrapAgentOptions &opt, unsigned sets, unsigned ways)
    : opt_(opt), ways_(ways), rng_(opt.seed) {
  while ((1u << set_bits_) < sets) ++set_bits_;
}

void TrapAgent::before_edge(Dut &dut) {
  ++cycle_;
  // Ready is high from the first cycle after reset on: a question is taken when valid
  // meets it (before that, a valid question waits and is seen again).
  if (!ready_ || !dut.evict_req_valid()) return;
  const BitVec q = dut.evict_req();
  ++questions_;
  // {tag 4, set, per way from way 0 in the low bits: {eligible, pinned, dirty, valid, qpn}}
  const uint32_t tag = static_cast<uint32_t>(q.get(ways_ * 28 + set_bits_, 4));
  std::vector<uint32_t> eligible, not_eligible;
  for (uint32_t w = 0; w < ways_; ++w) {
    (q.get(28 * w + 27, 1) ? eligible : not_eligible).push_back(w);
  }
  std::uniform_real_distribution<double> u(0, 1);
  const double draw = u(rng_);
  if (draw < opt_.silent_prob) {
    ++silent_;
    return;
  }
  uint32_t way = 0;
  if (draw < opt_.silent_prob + opt_.wrong_prob && !not_eligible.empty()) {
    ++wrong_;
    way = not_eligible[rng_() % not_eligible.size()];
  } else if (!eligible.empty()) {
    way = eligible[rng_() % eligible.size()];
  }
  answers_.push_back({cycle_ + opt_.latency, tag, way});
}

void TrapAgent::after_edge(Dut &dut) {
  dut.set_evict_req_ready(true);
  ready_ = true;
  if (!answers_.empty() && answers_.front().due <= cycle_) {
    dut.set_evict_rsp(true, answers_.front().tag, answers_.front().way);
    answers_.pop_front();
  } else {
    dut.set_evict_rsp(false, 0, 0);
  }
}

}  // namespace qpm
