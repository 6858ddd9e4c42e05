// Random command stimulus, weighted towards legal paths through the QP state machine
// but producing every illegal kind the command unit must refuse.
//
// The generator looks at the golden model's view of each QP (its type and state) to
// choose a legal transition, then, at illegal_rate, breaks it in one of several ways.
// All randomness comes from the one seeded mt19937_64 of the run.
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "golden_model.h"

namespace qpm {

struct StimulusOptions {
  uint32_t qps = 64;          // distinct QPNs the run works on
  double illegal_rate = 0.2;  // share of commands that are broken on purpose
  // 0: QPNs drawn uniformly below QPN_LIMIT. N: QPNs in groups of N sharing a page
  // (pages drawn uniformly), so a run over the whole 24-bit space maps a page per N
  // QPNs instead of one per QPN.
  uint32_t qps_per_page = 0;
  // 0: PIN_QP and UNPIN_QP go to random QPNs, so pins pile up over a long run until
  // every set holds its ways - 1 pinned QPs. N: software pins at most N QPs and unpins
  // what it pinned (an UNPIN goes to a pinned QP half the time; a PIN beyond N is an
  // UNPIN), as a driver that pins a hot set would (the transport run).
  uint32_t max_pinned = 0;
};

class RandomStimulus {
 public:
  RandomStimulus(std::mt19937_64 &rng, const GoldenModel &model, const StimulusOptions &opt);

  // The next command, given the model's current state. Call after the previous command
  // was accepted, so the model is up to date.
  Command next();

  // Runs with datapath traffic: a QP command goes only to a QPN usable(qpn) allows
  // (one with no datapath operation or doorbell in flight); the caller makes sure one
  // exists. Without a filter every QPN is usable and the draws are those of a run
  // without datapath traffic.
  void set_filter(std::function<bool(uint32_t)> usable) { usable_ = std::move(usable); }
  // Whether cmd needs the whole QP table to itself (MAP/UNMAP_PAGE, PORT_FAULT): no
  // datapath operation or doorbell may be in flight beside it.
  static bool is_global(const Command &cmd);
  void set_max_pinned(uint32_t n) { opt_.max_pinned = n; }

  const std::vector<uint32_t> &qpns() const { return qpns_; }
  // The directory entries the QPNs live in, each once, ascending.
  std::vector<uint32_t> pages() const;

 private:
  Command create(uint32_t qpn);
  Command modify(uint32_t qpn, const Qpc &q);
  Command misc();
  // StimulusOptions::max_pinned: a PIN beyond the budget becomes an UNPIN, and an UNPIN
  // goes to a pinned QP half the time.
  void pin_budget(Command &c);
  // Every MODIFY_QP attribute set to a random in-range value.
  void randomize_attributes(Command &c);
  // Puts one out-of-range value into an attribute the transition allows; false if none.
  bool break_one_value(Command &c, uint32_t allowed);

  uint32_t pick_qpn();                       // one of qpns_ that usable_ allows
  uint32_t pick(uint32_t lo, uint32_t hi);  // uniform in [lo, hi]
  bool chance(double p);

  std::mt19937_64 &rng_;
  const GoldenModel &model_;
  StimulusOptions opt_;
  std::vector<uint32_t> qpns_;
  std::function<bool(uint32_t)> usable_;
};

}  // namespace qpm
