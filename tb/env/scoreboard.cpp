#include "scoreboard.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "script.h"

namespace qpm {

void Scoreboard::on_accept(const Command &cmd) {
  if (fence_) fence_->on_accept(accepted_, cmd);
  if (placer_) placer_->on_accept(accepted_, cmd);
  expected_.push_back({accepted_++, cmd, read_errors_()});
}

void Scoreboard::on_response(const Response &actual) {
  if (expected_.empty()) {
    ++mismatch_count_;
    spdlog::error("response without a command: status {}", status_name(actual.status));
    return;
  }
  Pending p = expected_.front();
  expected_.pop_front();
  const bool memory_error =
      actual.status == Status::IntErr && error_could_hit_(p.cmd, p.read_errors_at_accept);
  if (placer_ && placer_->on_response(p.index, p.cmd, actual, memory_error)) {
    return;  // the placer judges it where the probes place it
  }
  if (fence_ && fence_->on_response(p.index, p.cmd, actual, ops_in_flight_(p.cmd.qpn & kPsnMask))) {
    return;  // the fence judges it where the datapath's answers place it
  }
  const Qpc before = model_.qpc_address(p.cmd.qpn) ? model_.qpc(p.cmd.qpn) : Qpc{};
  const Response expected = model_.execute(p.cmd, memory_error);
  judge(p.index, p.cmd, before, expected, actual);
}

void Scoreboard::judge(uint64_t index, const Command &cmd, const Qpc &before,
                       const Response &expected, const Response &actual) {
  if (coverage_) coverage_->sample(cmd, before, actual);
  ++checked_;
  ++status_counts_[actual.status];
  last_response_ = actual;
  last_expected_ = expected;
  const std::string diff = difference(expected, actual);
  if (spdlog::should_log(spdlog::level::debug))  // the text only when logged
    spdlog::debug("#{} {} -> {}", index, format_command(cmd), status_name(actual.status));
  if (!diff.empty()) {
    ++mismatch_count_;
    spdlog::error("MISMATCH at command #{}: {}\n{}", index, format_command(cmd), diff);
    if (first_mismatches_.size() < kKeep) {
      first_mismatches_.push_back({index, cmd, expected, actual, diff});
    }
  }
}

std::string Scoreboard::difference(const Response &expected, const Response &actual) {
  std::string out;
  if (expected.status != actual.status) {
    out += fmt::format("  status: expected {} got {}\n", status_name(expected.status),
                       status_name(actual.status));
  }
  auto syn = [&](const char *name, uint32_t e, uint32_t a) {
    if (e != a) out += fmt::format("  {}: expected {} got {}\n", name, mask_names(e), mask_names(a));
  };
  syn("missing", expected.syndrome.missing, actual.syndrome.missing);
  syn("forbidden", expected.syndrome.forbidden, actual.syndrome.forbidden);
  syn("bad_value", expected.syndrome.bad_value, actual.syndrome.bad_value);
  for (const auto &f : kQpcLayout) {
    const uint32_t e = expected.qpc.*f.member;
    const uint32_t a = actual.qpc.*f.member;
    if (e != a) out += fmt::format("  qpc.{}: expected {:#x} got {:#x}\n", f.name, e, a);
  }
  return out;
}

}  // namespace qpm
