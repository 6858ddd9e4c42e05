#include "dma_engine.h"

namespace qpm {

bool DmaEngine::can_begin(uint32_t qpn) const {
  auto it = open_.find(qpn);
  return it == open_.end() || it->second < opt_.max_open_per_qp;
}

DpRequest DmaEngine::begin(uint32_t qpn, uint32_t epoch, uint64_t now) {
  DpRequest r;
  r.op = DpOp::DmaBegin;
  r.qpn = qpn;
  r.epoch = static_cast<uint8_t>(epoch);
  ++begun_;
  ++open_[qpn];
  if (std::bernoulli_distribution(opt_.never_rate)(rng_)) {
    ++abandoned_;  // stays open for ever: only a reset (forced) ends it
    return r;
  }
  DpRequest end = r;
  end.op = DpOp::DmaEnd;
  const uint64_t len = std::uniform_int_distribution<uint32_t>(opt_.min_cycles, opt_.max_cycles)(rng_);
  due_.emplace(now + len, end);
  return r;
}

}  // namespace qpm
