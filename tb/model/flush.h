// The flush of SPEC.md §7 as the golden model sees it: a QP that owes completions pays
// them all at once, in index order (docs/errors.md). The hardware pays them a step at a
// time through the CQE port; software cannot tell the difference except by timing, and
// the scoreboard compares per (QP, queue) streams, not their interleaving.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "qpm_types.h"

namespace qpm {

// enum ibv_wc_status values the CQE port carries.
enum class WcStatus : uint8_t {
  Success = 0,
  LocQpOpErr = 2,
  WrFlushErr = 5,
  RemInvReqErr = 9,
  RemAccessErr = 10,
  RemOpErr = 11,
  RetryExcErr = 12,
  RnrRetryExcErr = 13,
};

// One completion of the CQE port (cqe_t).
struct Cqe {
  uint32_t cqn = 0;
  uint32_t qpn = 0;
  bool rq = false;  // a receive WQE, else a send WQE
  uint16_t wqe_index = 0;
  WcStatus status = WcStatus::WrFlushErr;
  bool operator==(const Cqe &o) const {
    return cqn == o.cqn && qpn == o.qpn && rq == o.rq && wqe_index == o.wqe_index &&
           status == o.status;
  }
  bool operator!=(const Cqe &o) const { return !(*this == o); }
};

// The status a failing send WQE completes with, from the cause hardware recorded in
// err_syndrome (WR_FLUSH_ERR for a cause that names no WQE).
WcStatus failing_wqe_status(uint32_t err_syndrome);

struct FlushOutcome {
  std::vector<Cqe> cqes;
  Qpc after;
};
// Every completion q owes, in order: in ERR the SQ's sq_ci .. sq_pi-1 then the RQ's
// rq_ci .. rq_pi-1; in SQE the SQ's sq_ci .. sq_issued-1; nothing in any other state.
// The SQ's first completes with failing_wqe_status when sq_err_pending is set. After:
// ci = the end of each queue flushed, sq_issued no lower than sq_ci, sq_err_pending 0.
FlushOutcome flush_execute(uint32_t qpn, const Qpc &q);

std::string to_string(WcStatus s);
std::optional<WcStatus> wc_status_from_string(std::string_view name);
// "cqe cqn=1 qpn=0x10 queue=sq wqe=3 status=WR_FLUSH_ERR" (SPEC §13).
std::string format_cqe(const Cqe &c);
std::ostream &operator<<(std::ostream &os, const Cqe &c);

}  // namespace qpm
