// Random datapath operations and doorbells (SPEC §6), mostly plausible traffic with
// every illegal kind mixed in.
//
// An operation is built from the QPC it will meet: the golden model's, advanced by the
// operations of the same QPN already sent and not yet answered (each QPN's operations
// are applied in the order sent, so the stimulus can follow them). So back-to-back
// packets of one QP carry consecutive PSNs, acknowledgements count what was issued, and
// read responses finish what was admitted. Around that: PSNs a little ahead or behind,
// classes and positions out of sequence, reads beyond the limits, counts beyond what is
// outstanding, stale epochs, QPs that do not exist and op codes that name nothing.
// All randomness comes from the generator it is given.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <unordered_map>
#include <vector>

#include "golden_model.h"

namespace qpm {

struct DpStimulusOptions {
  double illegal_rate = 0.1;  // operations and doorbells broken on purpose
  double locality = 0.5;      // chance an operation goes to the previous one's QPN
  bool dma_brackets = true;   // draw DMA_BEGIN/DMA_END here (off: a DmaEngine sends them)
  // The largest doorbell count drawn. Below 2^16, a doorbell meant to overflow a large
  // queue is refused no more: the transport run keeps hostile queues small, so no
  // tens-of-thousands-WQE flush holds a command (docs/verification.md).
  uint32_t max_doorbell_count = 0xffff;
};

class DpStimulus {
 public:
  DpStimulus(std::mt19937_64 &rng, const GoldenModel &model, std::vector<uint32_t> qpns,
             const DpStimulusOptions &opt);

  // A QPN for the next datapath operation (doorbell: for the next doorbell) among those
  // usable(qpn) allows: the previous one's at `locality`, else one of the run's QPNs,
  // preferring QPs whose state takes traffic (RTR .. SQE; for a doorbell INIT .. ERR),
  // now and then one that holds no QP. nullopt when none is usable after a few draws.
  template <class Usable>
  std::optional<uint32_t> pick_qpn(Usable usable, bool doorbell = false);
  // The next operation on qpn; in_flight: how many of qpn's operations are unanswered.
  DpRequest op(uint32_t qpn, size_t in_flight);
  // A doorbell for qpn (in_flight: its unanswered operations). Never one of count 0
  // that would be posted (nothing could show that it was).
  Doorbell doorbell(uint32_t qpn, size_t in_flight);

 private:
  // The QPC the next operation on qpn meets.
  Qpc &projected(uint32_t qpn, size_t in_flight);
  bool exists(uint32_t qpn, const Qpc &q) const;
  // The QP exists and its state takes traffic (for a doorbell: WQEs).
  bool active(uint32_t qpn, bool doorbell) const;
  DpOp choose_op(const Qpc &q, bool exists);
  void rx_req(DpRequest &r, const Qpc &q);
  void tx_wqe(DpRequest &r, const Qpc &q);
  uint32_t random_qpn();

  uint32_t pick(uint32_t lo, uint32_t hi);
  bool chance(double p);

  std::mt19937_64 &rng_;
  const GoldenModel &model_;
  std::vector<uint32_t> qpns_;
  DpStimulusOptions opt_;
  std::unordered_map<uint32_t, Qpc> shadow_;
  std::optional<uint32_t> last_qpn_;
};

template <class Usable>
std::optional<uint32_t> DpStimulus::pick_qpn(Usable usable, bool doorbell) {
  if (!doorbell && last_qpn_ && chance(opt_.locality) && usable(*last_qpn_) &&
      (active(*last_qpn_, false) || chance(0.1))) {
    return last_qpn_;
  }
  int idle_seen = 0;
  for (int tries = 0; tries < 16; ++tries) {
    const bool stray = chance(opt_.illegal_rate / 4);
    const uint32_t qpn =
        stray ? random_qpn() : qpns_[pick(0, static_cast<uint32_t>(qpns_.size() - 1))];
    if (!usable(qpn))
      continue;
    if (stray || active(qpn, doorbell) || ++idle_seen > 8) {
      if (!doorbell)
        last_qpn_ = qpn;
      return qpn;
    }
  }
  return std::nullopt;
}

}  // namespace qpm
