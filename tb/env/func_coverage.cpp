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
// regression's profiles should hit them all).
const std::vector<std::pair<Opcode, std::vector<Status>>> kAnswers = {
    {Opcode::MapPage, {Status::Ok, Status::IntErr, Status::BadParam, Status::ResBusy}},
    {Opcode::UnmapPage, {Status::Ok, Status::IntErr, Status::BadParam, Status::ResBusy}},
    {Opcode::CreateQp,
     {Status::Ok, Status::IntErr, Status::BadParam, Status::BadRes, Status::ResBusy}},
    {Opcode::ModifyQp,
     {Status::Ok, Status::IntErr, Status::BadParam, Status::BadRes, Status::BadQpState}},
    {Opcode::QueryQp, {Status::Ok, Status::IntErr, Status::BadRes}},
    {Opcode::DestroyQp, {Status::Ok, Status::IntErr, Status::BadRes}},
    {Opcode::PinQp, {Status::Ok, Status::IntErr, Status::BadRes, Status::ResBusy}},
    {Opcode::UnpinQp, {Status::Ok, Status::IntErr, Status::BadRes}},
    {Opcode::SyncCache, {Status::Ok}},
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
// DROP. MEM_ERR needs a run with memory errors, QUIESCE and most STALEs one with
// --reset-stress (docs/reset.md); op codes 9..15 are "UNKNOWN".
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
       {D::NoQp, D::State, D::Opcode, D::Qkey, D::Psn, D::Seq, D::Access, D::NoWqe, D::MemErr,
        D::Quiesce}},
      {"RX_RESP_DONE", {V::Accept, V::Drop}, {D::NoQp, D::Count, D::MemErr, D::Stale, D::Quiesce}},
      {"TX_WQE",
       {V::Issue, V::Empty, V::LocalErr, V::Stall, V::Drop},
       {D::NoQp, D::State, D::MemErr, D::Quiesce}},
      {"RX_ACK",
       {V::Accept, V::Drop},
       {D::NoQp, D::Type, D::State, D::Count, D::MemErr, D::Stale, D::Quiesce}},
      {"TIMEOUT",
       {V::Retry, V::Fatal, V::Drop},
       {D::NoQp, D::Type, D::State, D::Count, D::MemErr, D::Stale, D::Quiesce}},
      {"RNR_NAK",
       {V::Retry, V::Fatal, V::Drop},
       {D::NoQp, D::Type, D::State, D::Count, D::MemErr, D::Stale, D::Quiesce}},
      {"RX_NAK",
       {V::Fatal, V::Drop},
       {D::NoQp, D::Type, D::State, D::Count, D::MemErr, D::Stale, D::Quiesce}},
      {"DMA_BEGIN", {V::Accept, V::Drop}, {D::NoQp, D::Stale, D::Count, D::MemErr, D::Quiesce}},
      {"DMA_END", {V::Accept, V::Drop}, {D::NoQp, D::Stale, D::Count, D::MemErr}},
      {"UNKNOWN", {V::Drop}, {D::NoQp, D::Opcode, D::MemErr}},
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
};

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
}

void FuncCoverage::sample_cqe(const Cqe &c) {
  hit(fmt::format("cqe.{}.{}", c.rq ? "RQ" : "SQ", to_string(c.status)));
}

void FuncCoverage::sample_dp(const DpRequest &req, const DpResponse &rsp) {
  const std::string op = to_string(req.op);  // "UNKNOWN" for op codes 9..15
  hit(fmt::format("dp.{}.{}", op, to_string(rsp.verdict)));
  if (rsp.verdict == Verdict::Drop) hit(fmt::format("drop.{}.{}", op, to_string(rsp.drop)));
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

std::string FuncCoverage::to_json() const {
  nlohmann::json j;
  j["bins"] = nlohmann::json::object();
  for (const auto &[name, count] : bins_) j["bins"][name] = count;
  return j.dump(1);
}

}  // namespace qpm
