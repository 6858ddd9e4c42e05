#include "replacement.h"

#include <algorithm>
#include <stdexcept>

namespace qpm {

ReplacementRef::ReplacementRef(unsigned ways, EvictPolicy policy)
    : ways_(ways), policy_(policy), line_(ways), pinned_(ways, false), tree_(ways - 1, false) {
  if (ways < 2 || (ways & (ways - 1)) != 0) throw std::invalid_argument("ways: a power of two");
  if (policy != EvictPolicy::Plru && policy != EvictPolicy::Lru) {
    throw std::invalid_argument("ReplacementRef predicts PLRU and LRU only");
  }
  // Out of reset every pair says the higher way is the more recent: way 0 is the oldest.
  for (unsigned w = ways; w-- > 0;) recency_.push_back(w);
}

std::optional<unsigned> ReplacementRef::way_of(uint32_t qpn) const {
  for (unsigned w = 0; w < ways_; ++w) {
    if (line_[w] == qpn) return w;
  }
  return std::nullopt;
}

void ReplacementRef::touch(unsigned way) {
  recency_.erase(std::find(recency_.begin(), recency_.end(), way));
  recency_.insert(recency_.begin(), way);
  // Every node on the way's path points away from it.
  unsigned node = 0;
  for (unsigned half = ways_ / 2; half >= 1; half /= 2) {
    const bool right = (way & half) != 0;
    tree_[node] = !right;
    node = 2 * node + (right ? 2 : 1);
    if (half == 1) break;
  }
}

unsigned ReplacementRef::victim() const {
  auto eligible = [&](unsigned w) { return !(line_[w] && pinned_[w]); };
  if (policy_ == EvictPolicy::Lru) {
    for (auto it = recency_.rbegin(); it != recency_.rend(); ++it) {
      if (eligible(*it)) return *it;
    }
  }
  // PLRU: follow the bits, never into a half with no eligible way.
  unsigned lo = 0, n = ways_, node = 0;
  while (n > 1) {
    const unsigned half = n / 2;
    bool left_ok = false, right_ok = false;
    for (unsigned w = lo; w < lo + half; ++w) left_ok = left_ok || eligible(w);
    for (unsigned w = lo + half; w < lo + n; ++w) right_ok = right_ok || eligible(w);
    const bool right = right_ok && (tree_[node] || !left_ok);
    if (right) lo += half;
    node = 2 * node + (right ? 2 : 1);
    n = half;
  }
  return lo;
}

bool ReplacementRef::access(uint32_t qpn) {
  evicted_.reset();
  if (const auto w = way_of(qpn)) {
    hit_ = true;
    touch(*w);
    return true;
  }
  hit_ = false;
  std::optional<unsigned> way;
  for (unsigned w = 0; w < ways_ && !way; ++w) {
    if (!line_[w]) way = w;
  }
  if (!way) {
    bool any = false;
    for (unsigned w = 0; w < ways_; ++w) any = any || !pinned_[w];
    if (!any) return false;
    way = victim();
    evicted_ = line_[*way];
  }
  line_[*way] = qpn;
  pinned_[*way] = false;
  touch(*way);
  return true;
}

void ReplacementRef::pin(uint32_t qpn, bool on) {
  if (const auto w = way_of(qpn)) {
    pinned_[*w] = on;
    touch(*w);
  }
}

}  // namespace qpm
