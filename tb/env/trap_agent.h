// The eviction-trap agent (SPEC §9, docs/eviction.md): stands in for the software that
// answers qpm_top's eviction questions. It takes every question at once and answers it
// `latency` cycles later with a way of its own choosing among those the question says
// are eligible (uniformly, from its own random stream); with probability wrong_prob it
// names a way that is not eligible instead (the cache must re-check and reject it), and
// with probability silent_prob it never answers (the cache must time out).
#pragma once

#include <cstdint>
#include <deque>
#include <random>

#include "testbench.h"

namespace qpm {

struct TrapAgentOptions {
  uint32_t latency = 20;
  double wrong_prob = 0.1;
  double silent_prob = 0.05;
  uint64_t seed = 1;
};

class TrapAgent : public TbExtension {
 public:
  TrapAgent(const TrapAgentOptions &opt, unsigned sets, unsigned ways);
  void before_edge(Dut &dut) override;
  void after_edge(Dut &dut) override;
  uint64_t questions() const { return questions_; }
  uint64_t wrong_answers() const { return wrong_; }
  uint64_t silences() const { return silent_; }

 private:
  struct Answer {
    uint64_t due;
    uint32_t tag, way;
  };
  TrapAgentOptions opt_;
  unsigned set_bits_ = 0, ways_;
  std::mt19937_64 rng_;
  std::deque<Answer> answers_;
  uint64_t cycle_ = 0, questions_ = 0, wrong_ = 0, silent_ = 0;
  bool ready_ = false;  // what it drove on evict_req_ready for this cycle
};

}  // namespace qpm
