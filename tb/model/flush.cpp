#include "flush.h"

#include <cstdio>
#include <ostream>
#include <utility>

#include "datapath.h"

namespace qpm {

namespace {

constexpr uint32_t kIdx = 0xffff;  // queue indices are 16 bits

constexpr std::pair<WcStatus, const char *> kWcNames[] = {
    {WcStatus::Success, "SUCCESS"},
    {WcStatus::LocQpOpErr, "LOC_QP_OP_ERR"},
    {WcStatus::WrFlushErr, "WR_FLUSH_ERR"},
    {WcStatus::RemInvReqErr, "REM_INV_REQ_ERR"},
    {WcStatus::RemAccessErr, "REM_ACCESS_ERR"},
    {WcStatus::RemOpErr, "REM_OP_ERR"},
    {WcStatus::RetryExcErr, "RETRY_EXC_ERR"},
    {WcStatus::RnrRetryExcErr, "RNR_RETRY_EXC_ERR"},
};

}  // namespace

WcStatus failing_wqe_status(uint32_t err_syndrome) {
  switch (err_syndrome) {
    case syndrome::kRetryExc: return WcStatus::RetryExcErr;
    case syndrome::kRnrRetryExc: return WcStatus::RnrRetryExcErr;
    case syndrome::kRemAccess: return WcStatus::RemAccessErr;
    case syndrome::kRemInvReq: return WcStatus::RemInvReqErr;
    case syndrome::kRemOp: return WcStatus::RemOpErr;
    case syndrome::kLocQpOp: return WcStatus::LocQpOpErr;
    default: return WcStatus::WrFlushErr;
  }
}

FlushOutcome flush_execute(uint32_t qpn, const Qpc &q) {
  FlushOutcome out{{}, qpc_at_widths(q)};
  Qpc &n = out.after;
  const bool err = n.valid && n.state == static_cast<uint32_t>(QpState::Err);
  const bool sqe = n.valid && n.state == static_cast<uint32_t>(QpState::Sqe);
  if (!err && !sqe) return out;
  const uint32_t sq_end = err ? n.sq_pi : n.sq_issued;
  while (n.sq_ci != sq_end) {
    Cqe c{n.cqn_snd, qpn, false, static_cast<uint16_t>(n.sq_ci), WcStatus::WrFlushErr};
    if (n.sq_err_pending) c.status = failing_wqe_status(n.err_syndrome);
    out.cqes.push_back(c);
    n.sq_err_pending = 0;
    // A flushed WQE counts as issued and completed: sq_issued never trails sq_ci.
    if (n.sq_issued == n.sq_ci) n.sq_issued = (n.sq_issued + 1) & kIdx;
    n.sq_ci = (n.sq_ci + 1) & kIdx;
  }
  if (err) {
    while (n.rq_ci != n.rq_pi) {
      out.cqes.push_back(
          Cqe{n.cqn_rcv, qpn, true, static_cast<uint16_t>(n.rq_ci), WcStatus::WrFlushErr});
      n.rq_ci = (n.rq_ci + 1) & kIdx;
    }
  }
  return out;
}

std::string to_string(WcStatus s) {
  for (const auto &[v, name] : kWcNames) {
    if (v == s) return name;
  }
  return "STATUS_" + std::to_string(static_cast<unsigned>(s));
}

std::optional<WcStatus> wc_status_from_string(std::string_view name) {
  for (const auto &[v, n] : kWcNames) {
    if (name == n) return v;
  }
  return std::nullopt;
}

std::string format_cqe(const Cqe &c) {
  // (no fmt here: the model library links nothing but the standard library)
  char head[96];
  std::snprintf(head, sizeof head, "cqe cqn=%u qpn=%#x queue=%s wqe=%u status=", c.cqn, c.qpn,
                c.rq ? "rq" : "sq", unsigned{c.wqe_index});
  return head + to_string(c.status);
}

std::ostream &operator<<(std::ostream &os, const Cqe &c) { return os << format_cqe(c); }

}  // namespace qpm
