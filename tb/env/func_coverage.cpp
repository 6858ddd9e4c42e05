#include "func_coverage.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "qp_trans_table.h"

namespace qpm {

namespace {

const std::vector<Status> kStatuses = {Status::Ok,     Status::IntErr,  Status::BadOp,
                                       Status::BadParam, Status::BadRes, Status::ResBusy,
                                       Status::BadQpState};

// Which answers each opcode can give in a run with memory errors (the merge over the
// regression's profiles should hit them all). INT_ERR only for MAP/UNMAP_PAGE: a failed
// context read makes its QP fatal instead of failing the command (docs/events.md).
const std::vector<std::pair<Opcode, std::vector<Status>>> kAnswers = {
    {Opcode::MapPage, {Status::Ok, Status::IntErr, Status::BadParam, Status::ResBusy}},
    {Opcode::UnmapPage, {Status::Ok, Status::IntErr, Status::BadParam, Status::ResBusy}},
    {Opcode::CreateQp, {Status::Ok, Status::BadParam, Status::BadRes, Status::ResBusy}},
    {Opcode::ModifyQp, {Status::Ok, Status::BadParam, Status::BadRes, Status::BadQpState}},
    {Opcode::QueryQp, {Status::Ok, Status::BadRes}},
    {Opcode::DestroyQp, {Status::Ok, Status::BadRes}},
    {Opcode::PinQp, {Status::Ok, Status::BadRes, Status::ResBusy}},
    {Opcode::UnpinQp, {Status::Ok, Status::BadRes}},
    {Opcode::SyncCache, {Status::Ok}},
    {Opcode::PortFault, {Status::Ok, Status::BadParam}},
};

// Cache bins from the CSR counters: bin name, counter name.
const std::vector<std::pair<const char *, const char *>> kCacheBins = {
    {"cache.hit", "hits"},          {"cache.miss", "misses"},
    {"cache.merge", "merged"},      {"cache.eviction", "evictions"},
    {"cache.writeback", "writebacks"}, {"cache.dir_hit", "dir_hits"},
    {"cache.refused", "refused"},   {"cache.mem_error", "mem_errors"},
    {"cache.miss_wait", "miss_waits"}, {"cache.wb_retry", "wb_retries"},
    {"flush.overflow", "flush_overflows"},
    {"reset.waited", "resets_waited"}, {"reset.forced", "resets_forced"},
};

// What each datapath operation can answer (SPEC §6, docs/datapath.md), and why it can
// DROP. QUIESCE and most STALEs need a run with --reset-stress (docs/reset.md); op codes
// 9..15 are "UNKNOWN". No MEM_ERR: a failed read never fails a walk, it makes the QP
// fatal (docs/events.md), so the operation meets a QP in ERR.
struct DpAnswers {
  const char *op;
  std::vector<Verdict> verdicts;
  std::vector<DropReason> drops;
};
const std::vector<DpAnswers> &dp_answers() {
  using V = Verdict;
  using D = DropReason;
  static const std::vector<DpAnswers> answers = {
      {"RX_REQ",
       {V::Accept, V::Duplicate, V::Drop, V::NakSeq, V::NakAccess, V::NakInvalid, V::Rnr},
       {D::NoQp, D::State, D::Opcode, D::Qkey, D::Psn, D::Seq, D::Access, D::NoWqe, D::Quiesce}},
      {"RX_RESP_DONE", {V::Accept, V::Drop}, {D::NoQp, D::Count, D::Stale, D::Quiesce}},
      {"TX_WQE",
       {V::Issue, V::Empty, V::LocalErr, V::Stall, V::Drop},
       {D::NoQp, D::State, D::Quiesce}},
      {"RX_ACK", {V::Accept, V::Drop}, {D::NoQp, D::Type, D::State, D::Count, D::Stale, D::Quiesce}},
      {"TIMEOUT",
       {V::Retry, V::Fatal, V::Drop},
       {D::NoQp, D::Type, D::State, D::Count, D::Stale, D::Quiesce}},
      {"RNR_NAK",
       {V::Retry, V::Fatal, V::Drop},
       {D::NoQp, D::Type, D::State, D::Count, D::Stale, D::Quiesce}},
      {"RX_NAK", {V::Fatal, V::Drop}, {D::NoQp, D::Type, D::State, D::Count, D::Stale, D::Quiesce}},
      {"DMA_BEGIN", {V::Accept, V::Drop}, {D::NoQp, D::Stale, D::Count, D::Quiesce}},
      {"DMA_END", {V::Accept, V::Drop}, {D::NoQp, D::Stale, D::Count}},
      {"UNKNOWN", {V::Drop}, {D::NoQp, D::Opcode, D::Quiesce}},  // the fence comes first
  };
  return answers;
}

// Which event each source raises (docs/datapath.md "Events").
const std::vector<std::pair<const char *, EventType>> kEventBins = {
    {"RX_REQ", EventType::CommEst},
    {"RX_REQ", EventType::QpAccessErr},
    {"RX_REQ", EventType::QpReqErr},
    {"RX_ACK", EventType::SqDrained},
    {"MODIFY_QP", EventType::SqDrained},
    {"PORT_FAULT", EventType::PortErr},
    {"PORT_FAULT", EventType::QpFatal},
    {"QPC_READ_ERROR", EventType::QpFatal},  // a failed context read (docs/events.md)
    {"QPC_WRITE_GIVEN_UP", EventType::QpFatal},  // a write-back given up (docs/errors.md)
};

// Verdicts by QP type (SPEC §6): the requester's retries, the RC responder's NAKs and
// duplicates and the read limit are RC's; LOCAL_ERR is UC's and UD's.
const std::vector<std::pair<Verdict, std::vector<QpType>>> kVerdictTypes = {
    {Verdict::Accept, {QpType::RC, QpType::UC, QpType::UD}},
    {Verdict::Duplicate, {QpType::RC}},
    {Verdict::Drop, {QpType::RC, QpType::UC, QpType::UD}},
    {Verdict::NakSeq, {QpType::RC}},
    {Verdict::NakAccess, {QpType::RC}},
    {Verdict::NakInvalid, {QpType::RC}},
    {Verdict::Rnr, {QpType::RC}},
    {Verdict::Issue, {QpType::RC, QpType::UC, QpType::UD}},
    {Verdict::Stall, {QpType::RC}},
    {Verdict::Empty, {QpType::RC, QpType::UC, QpType::UD}},
    {Verdict::LocalErr, {QpType::UC, QpType::UD}},
    {Verdict::Retry, {QpType::RC}},
    {Verdict::Fatal, {QpType::RC}},
};
constexpr QpType kTypes[] = {QpType::RC, QpType::UC, QpType::UD};
constexpr DpOp kOps[] = {DpOp::RxReq,   DpOp::RxRespDone, DpOp::TxWqe,
                         DpOp::RxAck,   DpOp::Timeout,    DpOp::RnrNak,
                         DpOp::RxNak,   DpOp::DmaBegin,   DpOp::DmaEnd};

std::string op_bin(DpOp op, uint32_t type, uint32_t state) {
  return fmt::format("dp_state.{}.{}.{}", to_string(op), type_name(type), state_name(state));
}

std::string transition_bin(uint32_t type, uint32_t cur, uint32_t next) {
  return fmt::format("transition.{}.{}->{}", type_name(type), state_name(cur), state_name(next));
}

}  // namespace

FuncCoverage::FuncCoverage() {
  for (const TransRow &r : kTransTable) {
    bins_[transition_bin(static_cast<uint32_t>(r.type), static_cast<uint32_t>(r.cur),
                         static_cast<uint32_t>(r.next))] = 0;
  }
  for (Status s : kStatuses) bins_[fmt::format("status.{}", status_name(s))] = 0;
  for (const auto &[op, answers] : kAnswers) {
    for (Status s : answers) {
      bins_[fmt::format("command.{}.{}", opcode_name(static_cast<uint8_t>(op)), status_name(s))] =
          0;
    }
  }
  bins_["command.UNKNOWN.BAD_OP"] = 0;
  for (const auto &[bin, counter] : kCacheBins) bins_[bin] = 0;
  bins_["cache.pin_refused"] = 0;
  for (const DpAnswers &a : dp_answers()) {
    for (Verdict v : a.verdicts) bins_[fmt::format("dp.{}.{}", a.op, to_string(v))] = 0;
    for (DropReason d : a.drops) bins_[fmt::format("drop.{}.{}", a.op, to_string(d))] = 0;
  }
  for (const auto &[source, type] : kEventBins) {
    bins_[fmt::format("event.{}.{}", source, to_string(type))] = 0;
  }
  for (const char *q : {"SQ", "RQ"}) {
    for (const char *outcome : {"POSTED", "REFUSED"}) {
      bins_[fmt::format("doorbell.{}.{}", q, outcome)] = 0;
    }
  }
  // SPEC §7: a send WQE completes with any of the statuses, a receive WQE only flushed.
  for (WcStatus s : {WcStatus::WrFlushErr, WcStatus::LocQpOpErr, WcStatus::RemInvReqErr,
                     WcStatus::RemAccessErr, WcStatus::RemOpErr, WcStatus::RetryExcErr,
                     WcStatus::RnrRetryExcErr}) {
    bins_[fmt::format("cqe.SQ.{}", to_string(s))] = 0;
  }
  bins_["cqe.RQ.WR_FLUSH_ERR"] = 0;
  // Crosses: operation x QP type x state (an RC QP never reaches SQE), verdict x type.
  for (DpOp op : kOps) {
    for (QpType t : kTypes) {
      for (uint32_t st = 0; st < static_cast<uint32_t>(kNumStates); ++st) {
        if (t == QpType::RC && st == static_cast<uint32_t>(QpState::Sqe)) continue;
        bins_[op_bin(op, static_cast<uint32_t>(t), st)] = 0;
      }
    }
  }
  for (const auto &[v, types] : kVerdictTypes) {
    for (QpType t : types) {
      bins_[fmt::format("verdict_type.{}.{}", to_string(v), type_name(static_cast<uint32_t>(t)))] = 0;
    }
  }
  // Wraps: a WQE's PSNs across 2^24, a packet accepted at PSN 2^24 - 1, and the 16-bit
  // queue indices across 2^16 (a WQE started, a receive WQE used).
  for (const char *w : {"wrap.psn.send", "wrap.psn.receive", "wrap.index.sq", "wrap.index.rq"}) {
    bins_[w] = 0;
  }
  // Commands that meet traffic: a command answered while datapath operations of its own
  // QPN were in flight, and SYNC_CACHE while any were; the order of the answers of a
  // command and the operations of its QPN on the ports (command_placer.h).
  for (const char *b : {"busy.MODIFY_QP", "busy.DESTROY_QP", "busy.QUERY_QP", "busy.PIN_QP",
                        "busy.UNPIN_QP", "under_traffic.SYNC_CACHE", "placed.command_waited",
                        "placed.ops_waited"}) {
    bins_[b] = 0;
  }
}

void FuncCoverage::hit(const std::string &bin, uint64_t n) {
  auto it = bins_.find(bin);
  if (it != bins_.end()) {
    it->second += n;
  } else {
    undeclared_[bin] += n;  // outside the plan: listed, never in the denominator
  }
}

void FuncCoverage::sample_cqe(const Cqe &c) {
  hit(fmt::format("cqe.{}.{}", c.rq ? "RQ" : "SQ", to_string(c.status)));
}

void FuncCoverage::sample_dp(const DpRequest &req, const DpResponse &rsp, const Qpc *before) {
  // key: bin kind, op code, verdict, drop reason, QP type, state (a byte each)
  const uint64_t op_k = static_cast<uint64_t>(req.op) << 48;
  const uint64_t verdict_k = static_cast<uint64_t>(rsp.verdict) << 40;
  hit_keyed((1ull << 56) | op_k | verdict_k,
            [&] { return fmt::format("dp.{}.{}", to_string(req.op), to_string(rsp.verdict)); });
  if (rsp.verdict == Verdict::Drop) {
    hit_keyed((2ull << 56) | op_k | (static_cast<uint64_t>(rsp.drop) << 32), [&] {
      return fmt::format("drop.{}.{}", to_string(req.op), to_string(rsp.drop));
    });
  }
  if (before == nullptr || !before->valid || static_cast<uint8_t>(req.op) > 8) return;
  const uint64_t type_k = static_cast<uint64_t>(before->qp_type & 0xff) << 24;
  hit_keyed((3ull << 56) | op_k | type_k | ((before->state & 0xff) << 16),
            [&] { return op_bin(req.op, before->qp_type, before->state); });
  hit_keyed((4ull << 56) | verdict_k | type_k, [&] {
    return fmt::format("verdict_type.{}.{}", to_string(rsp.verdict), type_name(before->qp_type));
  });
  if (req.op == DpOp::TxWqe && rsp.verdict == Verdict::Issue) {
    if (rsp.psn + req.npkts > kPsnMask + 1) hit("wrap.psn.send");
    if ((before->sq_issued & 0xffff) == 0xffff) hit("wrap.index.sq");
  }
  if (req.op == DpOp::RxReq && rsp.verdict == Verdict::Accept) {
    if (req.psn == kPsnMask && before->qp_type != static_cast<uint32_t>(QpType::UD)) {
      hit("wrap.psn.receive");
    }
    if ((before->rq_ci & 0xffff) == 0xffff && req.cls == MsgClass::Send &&
        (req.pos == PktPos::Last || req.pos == PktPos::Only)) {
      hit("wrap.index.rq");
    }
  }
}

void FuncCoverage::sample_busy(const Command &cmd, bool own_traffic, bool any_traffic) {
  if (cmd.use_raw_op) return;
  if (own_traffic && (cmd.op == Opcode::ModifyQp || cmd.op == Opcode::DestroyQp ||
                      cmd.op == Opcode::QueryQp || cmd.op == Opcode::PinQp ||
                      cmd.op == Opcode::UnpinQp)) {
    hit(fmt::format("busy.{}", opcode_name(cmd.opcode_byte())));
  }
  if (any_traffic && cmd.op == Opcode::SyncCache) hit("under_traffic.SYNC_CACHE");
}

void FuncCoverage::sample_placement(bool command_waited) {
  hit(command_waited ? "placed.command_waited" : "placed.ops_waited");
}

void FuncCoverage::sample_event(const std::string &source, const Event &e) {
  hit(fmt::format("event.{}.{}", source, to_string(e.type)));
}

void FuncCoverage::sample_doorbell(bool rq, bool refused) {
  hit(fmt::format("doorbell.{}.{}", rq ? "RQ" : "SQ", refused ? "REFUSED" : "POSTED"));
}

void FuncCoverage::sample(const Command &cmd, const Qpc &qpc_before, const Response &rsp) {
  hit(fmt::format("status.{}", status_name(rsp.status)));
  const uint8_t op = cmd.opcode_byte();
  const bool known = !cmd.use_raw_op;
  hit(fmt::format("command.{}.{}", known ? opcode_name(op) : "UNKNOWN", status_name(rsp.status)));
  if (!known || rsp.status != Status::Ok) {
    if (known && cmd.op == Opcode::PinQp && rsp.status == Status::ResBusy) hit("cache.pin_refused");
    return;
  }
  if (cmd.op == Opcode::ModifyQp) {
    const uint32_t next = (cmd.attr_mask & attr::kState) ? cmd.qp_state : qpc_before.state;
    hit(transition_bin(qpc_before.qp_type, qpc_before.state, next));
  }
}

void FuncCoverage::sample_counters(const std::vector<const char *> &names,
                                   const std::vector<uint32_t> &values) {
  for (const auto &[bin, counter] : kCacheBins) {
    for (size_t i = 0; i < names.size() && i < values.size(); ++i) {
      if (std::string(names[i]) == counter) hit(bin, values[i]);
    }
  }
}

std::vector<std::string> FuncCoverage::unhit() const {
  std::vector<std::string> out;
  for (const auto &[name, count] : bins_) {
    if (count == 0) out.push_back(name);
  }
  return out;
}

void FuncCoverage::merge(const FuncCoverage &other) {
  for (const auto &[name, count] : other.bins_) bins_[name] += count;
  for (const auto &[name, count] : other.undeclared_) undeclared_[name] += count;
}

std::string FuncCoverage::to_json() const {
  nlohmann::json j;
  j["bins"] = nlohmann::json::object();
  for (const auto &[name, count] : bins_) j["bins"][name] = count;
  j["undeclared"] = nlohmann::json::object();
  for (const auto &[name, count] : undeclared_) j["undeclared"][name] = count;
  return j.dump(1);
}

}  // namespace qpm
