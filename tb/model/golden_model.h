// The golden reference model of qpm's command unit: SPEC.md §3.1, §4, §5 as read by
// docs/state-machine.md. It predicts the response of every control-plane command and
// applies its effect to a flat array of QPCs (the model has no cache, SPEC §3.3).
//
// Written from the spec only, never from the RTL: where the two disagree, the
// scoreboard reports it and the spec decides.
#pragma once

#include <cstdint>
#include <vector>

#include "qpm_types.h"

namespace qpm {

class GoldenModel {
 public:
  explicit GoldenModel(const Config &cfg = Config{});

  // Predicts the response to cmd and applies its effect (none when not OK).
  Response execute(const Command &cmd);

  // The QPC of qpn as the model holds it; qpn < cfg.qpn_limit (else std::out_of_range).
  const Qpc &qpc(uint32_t qpn) const;

  // Test backdoors, standing in for the datapath the model does not run yet.
  // force_state sets the state field only (e.g. to reach SQE, which only hardware
  // enters); force_qpc replaces the whole entry (e.g. sq_issued != sq_ci to make an SQD
  // QP draining). Both store the fields masked to their QPC widths.
  void force_state(uint32_t qpn, QpState s);
  void force_qpc(uint32_t qpn, const Qpc &q);

  // One directory entry of the QP table (SPEC §3.2), index < qpn_limit >> page_bits.
  struct DirEntry {
    bool valid = false;
    uint64_t page_address = 0;
  };
  const DirEntry &dir_entry(uint32_t index) const;

  const Config &config() const { return cfg_; }

 private:
  Response create_qp(const Command &cmd);
  Response modify_qp(const Command &cmd);
  Response destroy_qp(const Command &cmd);
  Response map_page(const Command &cmd);
  Response unmap_page(const Command &cmd);
  // QUERY_QP, PIN_QP, UNPIN_QP: existence check, then the QPC unchanged.
  Response read_qp(const Command &cmd) const;

  bool exists(uint32_t qpn) const;

  Config cfg_;
  std::vector<Qpc> qpcs_;      // indexed by QPN, qpn_limit entries
  std::vector<DirEntry> dir_;  // qpn_limit >> page_bits entries
};

// Step 3 of MODIFY_QP: the REQUIRED bits of (qp_type, cur, next) absent from mask, and
// the bits of mask outside REQUIRED | OPTIONAL | STATE. bad_value is always 0. For a
// pair that is not a valid transition both sets are empty, so every bit but STATE is
// forbidden.
Syndrome check_modify_mask(uint32_t qp_type, uint32_t cur, uint32_t next, uint32_t mask);

// Step 4 of MODIFY_QP: the bits of cmd.attr_mask whose attribute value is out of range
// for cfg (docs/state-machine.md table). Bits without a value check (STATE, CUR_STATE,
// QKEY, CAP, RATE_LIMIT, reserved) never appear.
uint32_t bad_value_bits(const Command &cmd, const Config &cfg);

}  // namespace qpm
