#include "random_stimulus.h"

#include <algorithm>
#include <stdexcept>
#include <set>
#include <unordered_set>

#include "qp_trans_table.h"

namespace qpm {

RandomStimulus::RandomStimulus(std::mt19937_64 &rng, const GoldenModel &model,
                               const StimulusOptions &opt)
    : rng_(rng), model_(model), opt_(opt) {
  const uint32_t limit = model.config().qpn_limit;
  if (opt.qps == 0 || opt.qps > limit - 2) {
    throw std::invalid_argument("qps must be in 1 .. " + std::to_string(limit - 2));
  }
  // Distinct QPNs spread over the whole usable range, not a dense block.
  std::unordered_set<uint32_t> seen;
  const uint32_t page_qpns = 1u << model.config().page_bits;
  const uint32_t group = std::min(opt.qps_per_page, page_qpns - 2);
  while (qpns_.size() < opt.qps) {
    if (group == 0) {
      const uint32_t qpn = pick(2, limit - 1);
      if (seen.insert(qpn).second) qpns_.push_back(qpn);
      continue;
    }
    // A fresh page, then up to `group` distinct QPNs in it (below the limit, not 0/1).
    const uint32_t base = pick(0, (limit - 1) / page_qpns) * page_qpns;
    if (seen.count(base) || seen.count(base + 1)) continue;  // page taken (markers)
    seen.insert(base);
    seen.insert(base + 1);
    for (uint32_t k = 0; k < 4 * group && qpns_.size() < opt.qps; ++k) {
      const uint32_t qpn = base + pick(2, page_qpns - 1);
      if (qpn < limit && seen.insert(qpn).second) qpns_.push_back(qpn);
      if ((qpns_.size() % group) == 0) break;
    }
  }
}

std::vector<uint32_t> RandomStimulus::pages() const {
  std::set<uint32_t> pages;
  for (uint32_t q : qpns_) pages.insert(q >> model_.config().page_bits);
  return {pages.begin(), pages.end()};
}

uint32_t RandomStimulus::pick(uint32_t lo, uint32_t hi) {
  return std::uniform_int_distribution<uint32_t>(lo, hi)(rng_);
}

bool RandomStimulus::chance(double p) { return std::bernoulli_distribution(p)(rng_); }

uint32_t RandomStimulus::pick_qpn() {
  for (;;) {
    const uint32_t qpn = qpns_[pick(0, static_cast<uint32_t>(qpns_.size() - 1))];
    if (!usable_ || usable_(qpn)) return qpn;
  }
}

bool RandomStimulus::is_global(const Command &cmd) {
  return !cmd.use_raw_op && (cmd.op == Opcode::MapPage || cmd.op == Opcode::UnmapPage ||
                             cmd.op == Opcode::PortFault);
}

Command RandomStimulus::next() {
  if (chance(0.03)) return misc();
  const uint32_t qpn = pick_qpn();
  const Qpc &q = model_.qpc(qpn);
  Command c;
  c.qpn = qpn;
  if (!q.valid) {
    if (chance(0.9)) return create(qpn);
    // Every command that names a QP, on one that does not exist: BAD_RES.
    static const Opcode kOnMissing[] = {Opcode::QueryQp, Opcode::DestroyQp, Opcode::PinQp,
                                        Opcode::UnpinQp};
    if (chance(0.4)) return modify(qpn, q);
    c.op = kOnMissing[pick(0, 3)];
    return c;
  }
  const uint32_t r = pick(0, 99);
  if (r < 75) return modify(qpn, q);
  if (r < 85) {
    c.op = Opcode::QueryQp;
  } else if (r < 89) {
    c.op = Opcode::DestroyQp;
  } else if (r < 92) {
    return create(qpn);  // over a valid QPC: RES_BUSY
  } else {
    c.op = chance(0.5) ? Opcode::PinQp : Opcode::UnpinQp;
    if (opt_.max_pinned != 0) pin_budget(c);
  }
  return c;
}

void RandomStimulus::pin_budget(Command &c) {
  const std::set<uint32_t> &pinned = model_.pinned_qpns();
  if (c.op == Opcode::PinQp && pinned.size() < opt_.max_pinned) return;
  c.op = Opcode::UnpinQp;
  if (!chance(0.5)) return;
  std::vector<uint32_t> mine;
  for (uint32_t qpn : pinned) {
    if (!usable_ || usable_(qpn)) mine.push_back(qpn);
  }
  if (!mine.empty()) c.qpn = mine[pick(0, static_cast<uint32_t>(mine.size() - 1))];
}

Command RandomStimulus::create(uint32_t qpn) {
  static const uint32_t kTypes[] = {2, 3, 4};
  Command c;
  c.op = Opcode::CreateQp;
  c.qpn = qpn;
  c.qp_type = kTypes[pick(0, 2)];
  c.pd = pick(0, (1u << 24) - 1);
  c.cqn_snd = pick(0, (1u << 24) - 1);
  c.cqn_rcv = pick(0, (1u << 24) - 1);
  c.log_sq_size = pick(0, 15);
  c.log_rq_size = pick(0, 15);
  if (chance(opt_.illegal_rate / 2)) {
    switch (pick(0, 4)) {
      case 0:
        c.qp_type = chance(0.5) ? pick(0, 1) : pick(5, 255);
        break;
      case 1:
        c.pd = pick(1u << 24, 0xffffffffu);
        break;
      case 2:
        c.cqn_rcv = pick(1u << 24, 0xffffffffu);
        break;
      case 3:
        c.log_sq_size = pick(16, 255);
        break;
      default:
        c.qpn = pick(0, 1);  // reserved
        break;
    }
  }
  return c;
}

void RandomStimulus::randomize_attributes(Command &c) {
  const Config &cfg = model_.config();
  c.en_sqd_async_notify = pick(0, 1);
  c.qp_access_flags = pick(0, 15);
  c.pkey_index = pick(0, cfg.pkey_tbl - 1);
  c.port_num = pick(1, cfg.num_ports);
  c.qkey = pick(0, 0xffffffffu);
  c.av = {pick(0, 0xffff), pick(0, 15), pick(0, 255)};
  c.path_mtu = pick(1, 5);
  c.timeout = pick(0, 31);
  c.retry_cnt = pick(0, 7);
  c.rnr_retry = pick(0, 7);
  c.rq_psn = pick(0, (1u << 24) - 1);
  c.max_rd_atomic = pick(0, cfg.max_rd_atomic);
  c.alt_av = {pick(0, 0xffff), pick(0, 15), pick(0, 255)};
  c.alt_pkey_index = pick(0, cfg.pkey_tbl - 1);
  c.alt_port_num = pick(1, cfg.num_ports);
  c.alt_timeout = pick(0, 31);
  c.min_rnr_timer = pick(0, 31);
  c.sq_psn = pick(0, (1u << 24) - 1);
  c.max_dest_rd_atomic = pick(0, cfg.max_rd_atomic);
  c.path_mig_state = pick(0, 2);
  c.dest_qp_num = pick(0, (1u << 24) - 1);
}

bool RandomStimulus::break_one_value(Command &c, uint32_t allowed) {
  const Config &cfg = model_.config();
  std::vector<uint32_t> bits;
  for (int b = 2; b <= 20; ++b) {
    const uint32_t bit = 1u << b;
    if ((allowed & bit) && bit != attr::kQkey && bit != attr::kCap) bits.push_back(bit);
  }
  if (bits.empty()) return false;
  const uint32_t bit = bits[pick(0, static_cast<uint32_t>(bits.size() - 1))];
  c.attr_mask |= bit;
  switch (bit) {
    case attr::kEnSqdAsyncNotify: c.en_sqd_async_notify = pick(2, 255); break;
    case attr::kAccessFlags: c.qp_access_flags |= 1u << pick(4, 31); break;
    case attr::kPkeyIndex: c.pkey_index = pick(cfg.pkey_tbl, 0xffff); break;
    case attr::kPort: c.port_num = chance(0.5) ? 0 : pick(cfg.num_ports + 1, 255); break;
    case attr::kAv: c.av.sl = pick(16, 255); break;
    case attr::kPathMtu: c.path_mtu = chance(0.5) ? 0 : pick(6, 255); break;
    case attr::kTimeout: c.timeout = pick(32, 255); break;
    case attr::kRetryCnt: c.retry_cnt = pick(8, 255); break;
    case attr::kRnrRetry: c.rnr_retry = pick(8, 255); break;
    case attr::kRqPsn: c.rq_psn = pick(1u << 24, 0xffffffffu); break;
    case attr::kMaxQpRdAtomic: c.max_rd_atomic = pick(cfg.max_rd_atomic + 1, 255); break;
    case attr::kAltPath:
      switch (pick(0, 3)) {
        case 0: c.alt_av.sl = pick(16, 255); break;
        case 1: c.alt_port_num = chance(0.5) ? 0 : pick(cfg.num_ports + 1, 255); break;
        case 2: c.alt_pkey_index = pick(cfg.pkey_tbl, 0xffff); break;
        default: c.alt_timeout = pick(32, 255); break;
      }
      break;
    case attr::kMinRnrTimer: c.min_rnr_timer = pick(32, 255); break;
    case attr::kSqPsn: c.sq_psn = pick(1u << 24, 0xffffffffu); break;
    case attr::kMaxDestRdAtomic: c.max_dest_rd_atomic = pick(cfg.max_rd_atomic + 1, 255); break;
    case attr::kPathMigState: c.path_mig_state = pick(3, 255); break;
    case attr::kDestQpn: c.dest_qp_num = pick(1u << 24, 0xffffffffu); break;
    default: return false;
  }
  return true;
}

Command RandomStimulus::modify(uint32_t qpn, const Qpc &q) {
  Command c;
  c.op = Opcode::ModifyQp;
  c.qpn = qpn;
  randomize_attributes(c);

  // A legal next state, favouring the forward path over RESET and ERR so that QPs
  // spend their time in every state.
  std::vector<uint32_t> forward, back;
  for (uint32_t n = 0; n < kNumStates; ++n) {
    if (!lookup_transition(q.qp_type, q.state, n).valid) continue;
    (n == static_cast<uint32_t>(QpState::Reset) || n == static_cast<uint32_t>(QpState::Err)
         ? back
         : forward)
        .push_back(n);
  }
  uint32_t next = q.state;
  if (!forward.empty() && (back.empty() || chance(0.85))) {
    next = forward[pick(0, static_cast<uint32_t>(forward.size() - 1))];
  } else if (!back.empty()) {
    next = back[pick(0, static_cast<uint32_t>(back.size() - 1))];
  }
  const TransEntry t = lookup_transition(q.qp_type, q.state, next);
  c.qp_state = next;
  // Optional attributes: each with even odds; CUR_STATE only now and then, and truthful.
  uint32_t opt = 0;
  for (int b = 0; b < 32; ++b) {
    const uint32_t bit = 1u << b;
    if ((t.opt & bit) && chance(bit == attr::kCurState ? 0.2 : 0.5)) opt |= bit;
  }
  c.attr_mask = attr::kState | t.req | opt;
  c.cur_qp_state = q.state;
  if (next == q.state && chance(0.3)) c.attr_mask &= ~attr::kState;  // cur -> cur implied

  if (!q.valid || !chance(opt_.illegal_rate)) return c;
  switch (pick(0, 5)) {
    case 0:  // a required attribute missing
      if (t.req) {
        std::vector<uint32_t> req;
        for (int b = 0; b < 32; ++b) {
          if (t.req & (1u << b)) req.push_back(1u << b);
        }
        c.attr_mask &= ~req[pick(0, static_cast<uint32_t>(req.size() - 1))];
        break;
      }
      [[fallthrough]];
    case 1: {  // an attribute the transition does not allow
      const uint32_t universe = t.req | t.opt | attr::kState;
      uint32_t bit = 0;
      while (!bit || (universe & bit)) bit = 1u << pick(1, 31);
      c.attr_mask |= bit;
      break;
    }
    case 2:  // a value out of range
      if (!break_one_value(c, t.req | t.opt)) c.attr_mask |= attr::kCap;
      break;
    case 3: {  // a transition the table does not have, or no state at all
      c.attr_mask |= attr::kState;
      c.qp_state = chance(0.2) ? pick(7, 255) : pick(0, kNumStates - 1);
      break;
    }
    case 4:  // CUR_STATE that lies, or names a state it may not
      c.attr_mask |= attr::kCurState;
      c.cur_qp_state = chance(0.8) ? pick(0, kNumStates - 1) : pick(7, 255);
      break;
    default:  // the QP does not exist
      c.qpn = chance(0.5) ? pick(0, 1) : pick(model_.config().qpn_limit, 0xffffffffu);
      break;
  }
  return c;
}

Command RandomStimulus::misc() {
  const Config &cfg = model_.config();
  const uint32_t dirs = cfg.qpn_limit >> cfg.page_bits;
  const uint64_t page = 1ull << (cfg.page_bits + 6);
  Command c;
  switch (pick(0, 5)) {
    case 0:
      c.op = Opcode::MapPage;
      c.dir_index = chance(0.9) ? pick(0, dirs - 1) : pick(dirs, 0xffffffffu);
      c.page_address = (std::uniform_int_distribution<uint64_t>(0, (1ull << 48) - 1)(rng_)) *
                       (chance(0.9) ? page : 1);
      break;
    case 1:
      c.op = Opcode::UnmapPage;
      c.dir_index = chance(0.9) ? pick(0, dirs - 1) : pick(dirs, 0xffffffffu);
      break;
    case 2:
      c.op = Opcode::SyncCache;
      break;
    case 3:
      c.op = Opcode::QueryQp;  // out of range
      c.qpn = pick(cfg.qpn_limit, 0xffffffffu);
      break;
    case 4:
      // A PORT_FAULT reads every QPN of every mapped page, and tries each page of the
      // directory, and moves every QP of the port to ERR (docs/events.md): one draw in
      // ten, and none over a QPN space so large that the scan takes millions of cycles
      // (tests/test_events.cpp covers it).
      if (chance(0.1) && cfg.qpn_limit <= (1u << 16)) {
        c.op = Opcode::PortFault;
        c.port_num = chance(0.1) ? (chance(0.5) ? 0 : cfg.num_ports + 1) : pick(1, cfg.num_ports);
      } else {
        c.op = Opcode::SyncCache;
      }
      break;
    default: {
      static const uint8_t kKnown[] = {0x01, 0x02, 0x10, 0x11, 0x12, 0x13, 0x20, 0x21, 0x22, 0x30};
      uint8_t op = 0;
      do {
        op = static_cast<uint8_t>(pick(0, 255));
      } while (std::find(std::begin(kKnown), std::end(kKnown), op) != std::end(kKnown));
      c.use_raw_op = true;
      c.raw_op = op;
      c.qpn = qpns_[pick(0, static_cast<uint32_t>(qpns_.size() - 1))];
      break;
    }
  }
  return c;
}

}  // namespace qpm
