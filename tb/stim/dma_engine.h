// A payload-DMA engine beside the datapath (SPEC §6, §10): it begins bursts on QPs
// (DMA_BEGIN carrying the QP's epoch) and ends each one late (DMA_END with the epoch it
// began in), after a random length, and now and then never (the reset's timeout path).
// A burst ended after its QP was reset carries the old epoch: the RTL must ignore it
// (STALE). The engine is a generator only; the golden model judges every answer.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <random>

#include "datapath.h"

namespace qpm {

struct DmaEngineOptions {
  uint32_t min_cycles = 20;      // a burst's length, uniform in [min, max]
  uint32_t max_cycles = 1500;
  double never_rate = 0.01;      // bursts that never end
  uint32_t max_open_per_qp = 4;  // bursts open on one QP at a time
};

class DmaEngine {
 public:
  DmaEngine(std::mt19937_64 &rng, const DmaEngineOptions &opt) : rng_(rng), opt_(opt) {}

  // Whether qpn may take another burst.
  bool can_begin(uint32_t qpn) const;
  // Bursts open on qpn (begun, DMA_END not sent; never-ending ones included).
  uint32_t open(uint32_t qpn) const {
    auto it = open_.find(qpn);
    return it == open_.end() ? 0 : it->second;
  }
  // A DMA_BEGIN on qpn in the given epoch, at cycle now; its DMA_END falls due later.
  DpRequest begin(uint32_t qpn, uint32_t epoch, uint64_t now);
  // The oldest DMA_END due by now whose QPN usable(qpn) allows; removed when returned.
  template <class Usable>
  std::optional<DpRequest> take_due(uint64_t now, Usable usable) {
    for (auto it = due_.begin(); it != due_.end() && it->first <= now; ++it) {
      if (!usable(it->second.qpn)) continue;
      const DpRequest r = it->second;
      --open_[r.qpn];
      due_.erase(it);
      ++ended_;
      return r;
    }
    return std::nullopt;
  }

  uint64_t begun() const { return begun_; }
  uint64_t ended() const { return ended_; }
  uint64_t abandoned() const { return abandoned_; }

 private:
  std::mt19937_64 &rng_;
  DmaEngineOptions opt_;
  std::multimap<uint64_t, DpRequest> due_;   // DMA_END by the cycle it falls due
  std::map<uint32_t, uint32_t> open_;        // bursts open by QPN (never-ending ones too)
  uint64_t begun_ = 0, ended_ = 0, abandoned_ = 0;
};

}  // namespace qpm
