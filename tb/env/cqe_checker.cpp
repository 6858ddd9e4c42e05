#include "cqe_checker.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace qpm {

void CqeChecker::expect(const Cqe &c) {
  if (spdlog::should_log(spdlog::level::debug))  // the text only when logged
    spdlog::debug("model completes {}", format_cqe(c));
  ++predicted_;
  auto &early = early_[key(c)];
  if (!early.empty()) {
    const Cqe a = early.front();
    early.pop_front();
    compare(c, a);
    return;
  }
  expected_[key(c)].push_back(Expected{c, false, 0});
}

void CqeChecker::arrived(const Cqe &a) {
  if (spdlog::should_log(spdlog::level::debug))  // the text only when logged
    spdlog::debug("{}", format_cqe(a));
  const uint64_t position = delivered_++;
  ++counts_[a.status];
  if (coverage_) coverage_->sample_cqe(a);
  arrivals_.push_back(a);
  auto &exp = expected_[key(a)];
  // Completions a reset left behind whose window has closed: they will never come.
  while (!exp.empty() && exp.front().optional && position >= exp.front().until) {
    exp.pop_front();
    ++skipped_;
  }
  // Within the window an arrival other than the next old completion means the old
  // incarnation's leftovers are gone (they leave the FIFO before anything newer).
  if (!exp.empty() && exp.front().optional && exp.front().cqe != a) {
    while (!exp.empty() && exp.front().optional) {
      exp.pop_front();
      ++skipped_;
    }
  }
  if (exp.empty()) {
    early_[key(a)].push_back(a);  // the model has not seen its cause yet
    return;
  }
  const Cqe e = exp.front().cqe;
  exp.pop_front();
  compare(e, a);
}

void CqeChecker::fifo_drained() {
  for (uint64_t k : cut_keys_) {
    auto it = expected_.find(k);
    if (it == expected_.end()) continue;
    while (!it->second.empty() && it->second.front().optional) {
      it->second.pop_front();
      ++skipped_;
    }
  }
  cut_keys_.clear();
}

void CqeChecker::cut(uint32_t qpn, uint64_t until) {
  for (const bool rq : {false, true}) {
    auto it = expected_.find(key(Cqe{0, qpn, rq, 0, WcStatus::WrFlushErr}));
    if (it == expected_.end()) continue;
    cut_keys_.push_back(it->first);
    for (Expected &e : it->second) {
      if (!e.optional) e.until = until;
      e.optional = true;
    }
  }
}

void CqeChecker::compare(const Cqe &expected, const Cqe &actual) {
  if (expected == actual) return;
  ++mismatches_;
  spdlog::error("MISMATCH on the CQE port:\n  cqe: expected {} got {}", format_cqe(expected),
                format_cqe(actual));
}

size_t CqeChecker::outstanding() const {
  size_t n = 0;
  for (const auto &[k, q] : expected_) {
    for (const Expected &e : q) n += e.optional ? 0 : 1;
  }
  return n;
}

uint64_t CqeChecker::cut_off() const {
  uint64_t n = skipped_;
  for (const auto &[k, q] : expected_) {
    for (const Expected &e : q) n += e.optional ? 1 : 0;
  }
  return n;
}

size_t CqeChecker::unexpected() const {
  size_t n = 0;
  for (const auto &[k, q] : early_) n += q.size();
  return n;
}

std::vector<Cqe> CqeChecker::take_arrivals() {
  std::vector<Cqe> out;
  out.swap(arrivals_);
  return out;
}

std::vector<std::string> CqeChecker::problems() const {
  std::vector<std::string> out;
  for (const auto &[k, q] : expected_) {
    for (const Expected &e : q) {
      if (!e.optional) out.push_back("completion never delivered (left unflushed): " + format_cqe(e.cqe));
    }
  }
  for (const auto &[k, q] : early_) {
    for (const Cqe &c : q) out.push_back("CQE that nothing predicted: " + format_cqe(c));
  }
  if (mismatches_) out.push_back(fmt::format("{} CQE mismatches", mismatches_));
  return out;
}

}  // namespace qpm
