// A C++ reference of the QP cache's replacement policies for one set (docs/eviction.md),
// written from their definitions, for directed victim-order tests: which QPN a miss
// evicts under tree-PLRU and true LRU. The golden model has no cache (it is invisible
// to function); this reference exists only to check the cache's choices.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace qpm {

enum class EvictPolicy : uint32_t { Plru = 0, Lru = 1, Random = 2, Trap = 3 };

class ReplacementRef {
 public:
  ReplacementRef(unsigned ways, EvictPolicy policy);
  // One access of qpn, as the cache serves it one at a time: a hit moves its way to the
  // front; a miss takes the lowest empty way, else the policy's victim among the ways
  // not pinned, and the new line is then the most recently used. False if no way may go.
  // hit() and evicted() describe the last access.
  bool access(uint32_t qpn);
  bool hit() const { return hit_; }
  std::optional<uint32_t> evicted() const { return evicted_; }
  // PIN_QP / UNPIN_QP of a cached qpn (an access too).
  void pin(uint32_t qpn, bool on);

 private:
  std::optional<unsigned> way_of(uint32_t qpn) const;
  unsigned victim() const;  // among the eligible ways (some is)
  void touch(unsigned way);

  unsigned ways_;
  EvictPolicy policy_;
  std::vector<std::optional<uint32_t>> line_;
  std::vector<bool> pinned_;
  std::vector<unsigned> recency_;  // LRU: ways, most recent first
  std::vector<bool> tree_;         // PLRU: Ways-1 node bits, set = the victim is right
  bool hit_ = false;
  std::optional<uint32_t> evicted_;
};

}  // namespace qpm
