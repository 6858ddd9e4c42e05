#include "golden_model.h"

#include <map>
#include <stdexcept>

#include "qp_trans_table.h"

namespace qpm {
namespace {

constexpr uint32_t kPsnLimit = 1u << 24;  // PSNs, QPNs, PD and CQ numbers: 24 bits
constexpr uint32_t kMaxPathMtu = 5;       // IB_MTU_4096
constexpr uint32_t kMaxTimeout = 31;      // 5-bit codes: timeout, min_rnr_timer
constexpr uint32_t kMaxRetry = 7;         // 3-bit counts: retry_cnt, rnr_retry
constexpr uint32_t kMaxSl = 15;
constexpr uint32_t kMaxPathMigState = 2;  // MIGRATED, REARM, ARMED
constexpr uint32_t kQpcBytes = 64;       // one QPC in memory (SPEC §3.1)

uint32_t width_mask(unsigned width) {
  return width >= 32 ? 0xffffffffu : (1u << width) - 1;
}

// Every field held at its QPC width, as the packed RTL record holds it.
void mask_to_widths(Qpc *q) {
  for (const auto &f : kQpcLayout) q->*f.member &= width_mask(f.width);
}

// SPEC §10: a reset clears every hardware-updated field and starts a new epoch, so a
// stale operation of the old incarnation can be recognised and dropped.
void reset_hw_fields(Qpc *q) {
  const uint32_t next_epoch = (q->epoch + 1) & 0xffu;
  for (const auto &f : kQpcLayout) {
    if (f.hw_updated) q->*f.member = 0;
  }
  q->epoch = next_epoch;
}

bool is_supported_type(uint32_t t) {
  return t == static_cast<uint32_t>(QpType::RC) || t == static_cast<uint32_t>(QpType::UC) ||
         t == static_cast<uint32_t>(QpType::UD);
}

Response fail(Status s, const Syndrome &syn = Syndrome{}) {
  Response r;
  r.status = s;
  r.syndrome = syn;
  return r;  // r.qpc stays all-zero: only OK answers carry a QPC
}

Response ok_with(const Qpc &q) {
  Response r;
  r.qpc = q;
  return r;
}

// Writes every attribute of an accepted modify into its QPC field (docs: "what an
// accepted modify writes"). STATE and the RTS->SQD rule are handled by the caller.
void write_attributes(const Command &c, Qpc *q) {
  const uint32_t m = c.attr_mask;
  if (m & attr::kAccessFlags) q->access_flags = c.qp_access_flags;
  if (m & attr::kPkeyIndex) q->pkey_index = c.pkey_index;
  if (m & attr::kPort) q->port = c.port_num;
  if (m & attr::kQkey) q->qkey = c.qkey;
  if (m & attr::kAv) {
    q->av_dlid = c.av.dlid;
    q->av_sl = c.av.sl;
    q->av_sgid_index = c.av.sgid_index;
  }
  if (m & attr::kPathMtu) q->path_mtu = c.path_mtu;
  if (m & attr::kTimeout) q->timeout = c.timeout;
  // The hardware-owned running copies start from what software sets (SPEC §3.1, §6).
  if (m & attr::kRetryCnt) q->retry_cnt = q->cur_retry_cnt = c.retry_cnt;
  if (m & attr::kRnrRetry) q->rnr_retry = q->cur_rnr_retry = c.rnr_retry;
  if (m & attr::kRqPsn) q->rq_psn = q->expected_psn = c.rq_psn;
  if (m & attr::kSqPsn) q->sq_psn = q->next_send_psn = c.sq_psn;
  if (m & attr::kMaxQpRdAtomic) q->max_rd_atomic = c.max_rd_atomic;
  if (m & attr::kMaxDestRdAtomic) q->max_dest_rd_atomic = c.max_dest_rd_atomic;
  if (m & attr::kAltPath) {
    q->alt_av_dlid = c.alt_av.dlid;
    q->alt_av_sl = c.alt_av.sl;
    q->alt_av_sgid_index = c.alt_av.sgid_index;
    q->alt_pkey_index = c.alt_pkey_index;
    q->alt_port = c.alt_port_num;
    q->alt_timeout = c.alt_timeout;
  }
  if (m & attr::kMinRnrTimer) q->min_rnr_timer = c.min_rnr_timer;
  if (m & attr::kPathMigState) q->path_mig_state = c.path_mig_state;
  if (m & attr::kDestQpn) q->dest_qpn = c.dest_qp_num;
}

}  // namespace

Syndrome check_modify_mask(uint32_t qp_type, uint32_t cur, uint32_t next, uint32_t mask) {
  const TransEntry e = lookup_transition(qp_type, cur, next);
  Syndrome s;
  s.missing = e.req & ~mask;
  s.forbidden = mask & ~(e.req | e.opt | attr::kState);
  return s;
}

uint32_t bad_value_bits(const Command &c, const Config &cfg) {
  const uint32_t m = c.attr_mask;
  uint32_t bad = 0;
  auto check = [&](uint32_t bit, bool in_range) {
    if ((m & bit) && !in_range) bad |= bit;
  };
  const auto port_ok = [&](uint32_t p) { return p >= 1 && p <= cfg.num_ports; };
  check(attr::kPort, port_ok(c.port_num));
  check(attr::kPkeyIndex, c.pkey_index < cfg.pkey_tbl);
  check(attr::kPathMtu, c.path_mtu >= 1 && c.path_mtu <= kMaxPathMtu);
  check(attr::kTimeout, c.timeout <= kMaxTimeout);
  check(attr::kRetryCnt, c.retry_cnt <= kMaxRetry);
  check(attr::kRnrRetry, c.rnr_retry <= kMaxRetry);
  check(attr::kMinRnrTimer, c.min_rnr_timer <= kMaxTimeout);
  check(attr::kMaxQpRdAtomic, c.max_rd_atomic <= cfg.max_rd_atomic);
  check(attr::kMaxDestRdAtomic, c.max_dest_rd_atomic <= cfg.max_rd_atomic);
  check(attr::kAccessFlags, (c.qp_access_flags & ~access::kAll) == 0);
  check(attr::kSqPsn, c.sq_psn < kPsnLimit);
  check(attr::kRqPsn, c.rq_psn < kPsnLimit);
  check(attr::kDestQpn, c.dest_qp_num < kPsnLimit);
  // dlid (16 bits) and sgid_index (8 bits) cannot be out of range on the command port.
  check(attr::kAv, c.av.sl <= kMaxSl);
  check(attr::kAltPath, c.alt_av.sl <= kMaxSl && port_ok(c.alt_port_num) &&
                            c.alt_pkey_index < cfg.pkey_tbl &&
                            c.alt_timeout <= kMaxTimeout);
  check(attr::kPathMigState, c.path_mig_state <= kMaxPathMigState);
  check(attr::kEnSqdAsyncNotify, c.en_sqd_async_notify <= 1);
  return bad;
}

namespace {

bool is_qp_command(uint8_t op) {
  switch (op) {
    case static_cast<uint8_t>(Opcode::CreateQp):
    case static_cast<uint8_t>(Opcode::ModifyQp):
    case static_cast<uint8_t>(Opcode::QueryQp):
    case static_cast<uint8_t>(Opcode::DestroyQp):
    case static_cast<uint8_t>(Opcode::PinQp):
    case static_cast<uint8_t>(Opcode::UnpinQp):
      return true;
    default:
      return false;
  }
}

const Config &checked(const Config &cfg) {
  if (cfg.page_bits > 24) throw std::invalid_argument("page_bits above the 24-bit QPN");
  const uint64_t pages = (uint64_t{cfg.qpn_limit} + (uint64_t{1} << cfg.page_bits) - 1) >>
                         cfg.page_bits;  // pages that hold QPNs below the limit
  if (pages > cfg.dir_entries) {
    throw std::invalid_argument("qpn_limit exceeds dir_entries << page_bits");
  }
  if (cfg.sets == 0 || cfg.ways == 0) throw std::invalid_argument("sets and ways must be >= 1");
  return cfg;
}

}  // namespace

GoldenModel::GoldenModel(const Config &cfg) : cfg_(checked(cfg)), dir_(cfg.dir_entries) {}

uint64_t GoldenModel::slot_address(uint64_t page_address, uint32_t slot) const {
  return page_address + uint64_t{slot} * kQpcBytes;
}

const Qpc &GoldenModel::load(uint64_t address) const {
  static const Qpc kZero{};
  const auto it = memory_.find(address);
  return it == memory_.end() ? kZero : it->second;
}

bool GoldenModel::page_in_use(uint64_t page_address) const {
  const uint32_t slots = 1u << cfg_.page_bits;
  for (uint32_t i = 0; i < slots; ++i) {
    const uint64_t addr = slot_address(page_address, i);
    if (load(addr).valid || refused_writes_.count(addr) != 0) return true;
  }
  return false;
}

std::optional<uint64_t> GoldenModel::qpc_address(uint32_t qpn) const {
  if (qpn >= cfg_.qpn_limit) return std::nullopt;
  const DirEntry &e = dir_[qpn >> cfg_.page_bits];
  if (!e.valid) return std::nullopt;
  return slot_address(e.page_address, qpn & ((1u << cfg_.page_bits) - 1));
}

const Qpc &GoldenModel::qpc(uint32_t qpn) const {
  static const Qpc kZero{};
  if ((uint64_t{qpn} >> cfg_.page_bits) >= cfg_.dir_entries) {
    throw std::out_of_range("qpn beyond dir_entries << page_bits");
  }
  const std::optional<uint64_t> a = qpc_address(qpn);
  return a ? load(*a) : kZero;
}

Qpc &GoldenModel::backdoor_slot(uint32_t qpn) {
  const std::optional<uint64_t> a = qpc_address(qpn);
  if (!a) throw std::out_of_range("backdoor write to an unmapped QPN");
  return memory_[*a];
}

void GoldenModel::force_state(uint32_t qpn, QpState s) {
  Qpc &q = backdoor_slot(qpn);
  q.state = static_cast<uint32_t>(s);
  mask_to_widths(&q);
}

void GoldenModel::force_qpc(uint32_t qpn, const Qpc &q) {
  Qpc &dst = backdoor_slot(qpn);
  dst = q;
  mask_to_widths(&dst);
}

const GoldenModel::DirEntry &GoldenModel::dir_entry(uint32_t index) const {
  return dir_.at(index);
}

std::vector<std::pair<uint64_t, Qpc>> GoldenModel::memory_qpcs(bool valid_only) const {
  std::map<uint64_t, Qpc> found;  // ordered, and a page mapped twice counts once
  const uint32_t slots = 1u << cfg_.page_bits;
  for (const DirEntry &e : dir_) {
    if (!e.valid) continue;
    for (uint32_t i = 0; i < slots; ++i) {
      const uint64_t a = slot_address(e.page_address, i);
      const Qpc &q = load(a);
      if (q.valid || !valid_only) found.emplace(a, q);
    }
  }
  return {found.begin(), found.end()};
}

Response GoldenModel::execute(const Command &cmd, bool memory_error) {
  const uint8_t op = cmd.opcode_byte();
  if (is_qp_command(op)) {
    // docs/qp-table.md: the limit touches no memory; an unmapped page is learned from
    // the directory read, which can itself fail (INT_ERR).
    if (cmd.qpn >= cfg_.qpn_limit) return fail(Status::BadRes);
    if (!qpc_address(cmd.qpn)) return fail(memory_error ? Status::IntErr : Status::BadRes);
    // Past those two checks the command reads the QPC (a walk, or the cache): an error
    // answer ends it with INT_ERR before any of its own checks.
    if (memory_error) return fail(Status::IntErr);
  }
  switch (op) {
    case static_cast<uint8_t>(Opcode::CreateQp):
      return create_qp(cmd);
    case static_cast<uint8_t>(Opcode::ModifyQp):
      return modify_qp(cmd);
    case static_cast<uint8_t>(Opcode::QueryQp):
      return query_qp(cmd);
    case static_cast<uint8_t>(Opcode::PinQp):
      return pin_qp(cmd);
    case static_cast<uint8_t>(Opcode::UnpinQp):
      return unpin_qp(cmd);
    case static_cast<uint8_t>(Opcode::DestroyQp):
      return destroy_qp(cmd);
    case static_cast<uint8_t>(Opcode::SyncCache):
      return Response{};  // the model has no cache: memory already holds every QPC
    case static_cast<uint8_t>(Opcode::MapPage):
      return map_page(cmd, memory_error);
    case static_cast<uint8_t>(Opcode::UnmapPage):
      return unmap_page(cmd, memory_error);
    case static_cast<uint8_t>(Opcode::PortFault):
      return port_fault(cmd);
    default:
      return fail(Status::BadOp);
  }
}

// The QP-command handlers below run after execute() has checked the limit and the
// mapping, so qpc_address(cmd.qpn) has a value.

Response GoldenModel::create_qp(const Command &cmd) {
  if (cmd.qpn <= 1) return fail(Status::BadParam);  // QPN 0 and 1 are reserved
  if (!is_supported_type(cmd.qp_type) || cmd.pd >= kPsnLimit || cmd.cqn_snd >= kPsnLimit ||
      cmd.cqn_rcv >= kPsnLimit || cmd.log_sq_size > cfg_.max_log_q ||
      cmd.log_rq_size > cfg_.max_log_q) {
    return fail(Status::BadParam);
  }
  const uint64_t addr = *qpc_address(cmd.qpn);
  const Qpc &old = load(addr);
  if (old.valid) return fail(Status::ResBusy);

  Qpc fresh;
  fresh.valid = 1;
  fresh.state = static_cast<uint32_t>(QpState::Reset);
  fresh.qp_type = cmd.qp_type;
  fresh.pd = cmd.pd;
  fresh.cqn_snd = cmd.cqn_snd;
  fresh.cqn_rcv = cmd.cqn_rcv;
  fresh.log_sq_size = cmd.log_sq_size;
  fresh.log_rq_size = cmd.log_rq_size;
  fresh.epoch = old.epoch;  // the destroyed incarnation's epoch lives on in memory
  mask_to_widths(&fresh);
  memory_[addr] = fresh;
  return ok_with(fresh);
}

Response GoldenModel::modify_qp(const Command &cmd) {
  // 1. Existence (the limit and the mapping were checked by execute()).
  if (!exists(cmd.qpn)) return fail(Status::BadRes);
  const Qpc &q = qpc(cmd.qpn);
  const uint32_t mask = cmd.attr_mask;
  const uint32_t cur = q.state;

  // 2. State. CUR_STATE may only assert RTR/RTS/SQD/SQE (the kernel's rule) and must
  // match; a next state above ERR has no table entry, so it fails here too.
  if (mask & attr::kCurState) {
    const uint32_t asserted = cmd.cur_qp_state;
    const bool allowed = asserted >= static_cast<uint32_t>(QpState::Rtr) &&
                         asserted <= static_cast<uint32_t>(QpState::Sqe);
    if (!allowed || asserted != cur) return fail(Status::BadQpState);
  }
  const uint32_t next = (mask & attr::kState) ? cmd.qp_state : cur;
  if (!lookup_transition(q.qp_type, cur, next).valid) return fail(Status::BadQpState);
  const bool draining =
      cur == static_cast<uint32_t>(QpState::Sqd) && q.sq_ci != q.sq_issued;
  const bool to_reset = next == static_cast<uint32_t>(QpState::Reset);
  const bool to_err = next == static_cast<uint32_t>(QpState::Err);
  if (draining && !to_reset && !to_err) return fail(Status::BadQpState);

  // 3. Mask against the transition's REQUIRED / OPTIONAL sets.
  const Syndrome mask_syn = check_modify_mask(q.qp_type, cur, next, mask);
  if (mask_syn.missing != 0 || mask_syn.forbidden != 0) {
    return fail(Status::BadParam, mask_syn);
  }

  // 4. Values of the attributes present.
  Syndrome value_syn;
  value_syn.bad_value = bad_value_bits(cmd, cfg_);
  if (value_syn.bad_value != 0) return fail(Status::BadParam, value_syn);

  // Accepted: compute the new context, then commit it whole.
  Qpc n = q;
  write_attributes(cmd, &n);
  n.state = next;
  if (cur == static_cast<uint32_t>(QpState::Rts) &&
      next == static_cast<uint32_t>(QpState::Sqd)) {
    // Every RTS->SQD sets it; absent from the mask means "no notification" (SPEC §5).
    n.en_sqd_async_notify = (mask & attr::kEnSqdAsyncNotify) ? cmd.en_sqd_async_notify : 0;
  }
  mask_to_widths(&n);
  if (to_reset) {
    if (n.dma_inflight != 0) ++resets_forced_;  // SPEC §10: only the timeout ends such a wait
    reset_hw_fields(&n);  // after the attribute writes (docs: order)
  }
  memory_[*qpc_address(cmd.qpn)] = n;
  // SPEC §7: a QP modified to ERR completes what it owes, after the answer (which
  // carries the context as the modify wrote it).
  if (to_err) flush(cmd.qpn);
  // SPEC §5: entering SQD with nothing outstanding is drained at once (docs/datapath.md:
  // the command unit raises SQ_DRAINED).
  if (cur == static_cast<uint32_t>(QpState::Rts) &&
      next == static_cast<uint32_t>(QpState::Sqd) && n.sq_ci == n.sq_issued &&
      n.en_sqd_async_notify != 0) {
    events_.push_back(Event{false, cmd.qpn, EventType::SqDrained, syndrome::kNone});
  }
  return ok_with(n);
}

// SPEC §4, §8: PORT_ERR for the port, then every valid QP bound to it and in neither
// RESET nor ERR goes to ERR (a modify to ERR changes only the state) with QP_FATAL, and
// is flushed. OK unless the port does not exist (BAD_PARAM): hardware reads a context
// again after a memory error.
Response GoldenModel::port_fault(const Command &cmd) {
  if (cmd.port_num < 1 || cmd.port_num > cfg_.num_ports) return fail(Status::BadParam);  // no such port
  events_.push_back(Event{true, cmd.port_num, EventType::PortErr, syndrome::kNone});
  for (uint32_t d = 0; d < usable_dir_entries(); ++d) {
    if (!dir_[d].valid) continue;
    for (uint32_t slot = 0; slot < (1u << cfg_.page_bits); ++slot) {
      const uint32_t qpn = (d << cfg_.page_bits) | slot;
      if (qpn < 2 || qpn >= cfg_.qpn_limit) continue;
      const uint64_t addr = slot_address(dir_[d].page_address, slot);
      ++port_fault_scanned_;
      Qpc n = load(addr);
      const bool moves = n.valid && n.port == cmd.port_num &&
                         n.state != static_cast<uint32_t>(QpState::Reset) &&
                         n.state != static_cast<uint32_t>(QpState::Err);
      if (!moves) continue;
      n.state = static_cast<uint32_t>(QpState::Err);
      memory_[addr] = n;
      ++port_fault_moved_;
      events_.push_back(Event{false, qpn, EventType::QpFatal, syndrome::kPortFault});
      flush(qpn);
    }
  }
  return Response{};
}

std::optional<uint32_t> GoldenModel::qpn_of_qpc_address(uint64_t addr) const {
  const uint64_t page_bytes = uint64_t{kQpcBytes} << cfg_.page_bits;
  for (uint32_t d = 0; d < usable_dir_entries(); ++d) {
    if (!dir_[d].valid || addr < dir_[d].page_address || addr >= dir_[d].page_address + page_bytes) {
      continue;
    }
    const uint32_t qpn = (d << cfg_.page_bits) | static_cast<uint32_t>((addr - dir_[d].page_address) / kQpcBytes);
    if (qpn >= cfg_.qpn_limit) return std::nullopt;
    return qpn;
  }
  return std::nullopt;
}

std::optional<uint32_t> GoldenModel::qpc_read_failed(uint64_t addr) {
  return qpc_access_failed(addr, syndrome::kMemFatal);
}

void GoldenModel::qpc_write_answered(uint64_t addr, bool error) {
  if (error) {
    refused_writes_.insert(addr);
  } else {
    refused_writes_.erase(addr);
  }
}

std::optional<uint32_t> GoldenModel::qpc_write_failed(uint64_t addr) {
  return qpc_access_failed(addr, syndrome::kWbFatal);
}

std::optional<uint32_t> GoldenModel::qpc_access_failed(uint64_t addr, uint8_t cause) {
  const auto qpn = qpn_of_qpc_address(addr);
  if (!qpn) return std::nullopt;
  Qpc n = load(addr);
  if (n.valid && n.state != static_cast<uint32_t>(QpState::Reset) &&
      n.state != static_cast<uint32_t>(QpState::Err)) {
    n.state = static_cast<uint32_t>(QpState::Err);
    memory_[addr] = n;
    events_.push_back(Event{false, *qpn, EventType::QpFatal, cause});
    flush(*qpn);
  }
  return qpn;
}

Response GoldenModel::query_qp(const Command &cmd) const {
  if (!exists(cmd.qpn)) return fail(Status::BadRes);
  return ok_with(qpc(cmd.qpn));
}

Response GoldenModel::destroy_qp(const Command &cmd) {
  if (!exists(cmd.qpn)) return fail(Status::BadRes);
  Qpc q = qpc(cmd.qpn);
  if (q.dma_inflight != 0) ++resets_forced_;
  reset_hw_fields(&q);
  Qpc cleared;
  cleared.epoch = q.epoch;  // only the epoch survives (valid = 0)
  memory_[*qpc_address(cmd.qpn)] = cleared;
  pinned_.erase(cmd.qpn);   // a destroyed QP holds no pin
  return Response{};        // OK, zero QPC: DESTROY does not return the context
}

void GoldenModel::quiesce(uint32_t qpn) {
  const auto addr = qpc_address(qpn);
  if (addr && exists(qpn)) memory_[*addr].quiesce = 1;
}

Response GoldenModel::pin_qp(const Command &cmd) {
  if (!exists(cmd.qpn)) return fail(Status::BadRes);
  if (!pinned(cmd.qpn)) {
    // SPEC §4 / §9: at least one way of every set stays evictable, so a set holds at
    // most ways-1 pinned QPNs.
    const uint32_t set = cmd.qpn % cfg_.sets;
    uint32_t in_set = 0;
    for (uint32_t p : pinned_) in_set += (p % cfg_.sets == set) ? 1 : 0;
    if (in_set + 1 > cfg_.ways - 1) return fail(Status::ResBusy);
    pinned_.insert(cmd.qpn);
  }
  return ok_with(qpc(cmd.qpn));
}

Response GoldenModel::unpin_qp(const Command &cmd) {
  if (!exists(cmd.qpn)) return fail(Status::BadRes);
  pinned_.erase(cmd.qpn);  // unpinning a QPN that is not pinned is fine
  return ok_with(qpc(cmd.qpn));
}

// MAP/UNMAP_PAGE read the directory entry and, when it is mapped, the valid bit of each
// QPC of its page (docs/qp-table.md): a memory error there answers INT_ERR, no change.
Response GoldenModel::map_page(const Command &cmd, bool memory_error) {
  if (cmd.dir_index >= usable_dir_entries()) return fail(Status::BadParam);
  const uint64_t page_bytes = uint64_t{kQpcBytes} << cfg_.page_bits;
  if (cmd.page_address % page_bytes != 0) return fail(Status::BadParam);
  if (memory_error) return fail(Status::IntErr);
  DirEntry &e = dir_[cmd.dir_index];
  // Re-pointing a mapped entry is an unmap first: refused while its page holds a QP.
  if (e.valid && page_in_use(e.page_address)) return fail(Status::ResBusy);
  e = DirEntry{true, cmd.page_address};
  return Response{};
}

Response GoldenModel::unmap_page(const Command &cmd, bool memory_error) {
  if (cmd.dir_index >= usable_dir_entries()) return fail(Status::BadParam);
  if (memory_error) return fail(Status::IntErr);
  DirEntry &e = dir_[cmd.dir_index];
  if (e.valid && page_in_use(e.page_address)) return fail(Status::ResBusy);
  e = DirEntry{};  // unmapping an unmapped entry is OK; memory keeps the page's bytes
  return Response{};
}

DpResponse GoldenModel::datapath(const DpRequest &req, bool memory_error) {
  const uint32_t qpn = req.qpn & kPsnMask;  // the port's 24-bit field
  const std::optional<uint64_t> addr = qpc_address(qpn);
  DpResponse rsp;
  if (qpn < cfg_.qpn_limit && memory_error) {
    // The directory read (mapped or not: hardware learns that from the read) or the QPC
    // read failed: the QPC, valid bit included, is unknown. As execute() answers INT_ERR.
    rsp = dp_mem_error_response(req);
  } else {
    const Qpc before = addr ? load(*addr) : Qpc{};
    const bool exists = addr && before.valid != 0;
    const DpOutcome out = dp_execute(before, exists, req);
    if (exists && out.after != before) memory_[*addr] = out.after;
    if (out.event) events_.push_back(*out.event);
    rsp = out.rsp;
    // SPEC §7: a QP the operation moved to ERR or SQE completes what it owes.
    const bool moved = exists && out.after.state != before.state &&
                       (out.after.state == static_cast<uint32_t>(QpState::Err) ||
                        out.after.state == static_cast<uint32_t>(QpState::Sqe));
    if (moved) flush(qpn);
  }
  if (rsp.verdict == Verdict::Drop) {
    const auto i = static_cast<size_t>(rsp.drop);
    if (i < drops_.size()) ++drops_[i];
  }
  return rsp;
}

bool GoldenModel::doorbell(const Doorbell &db, bool memory_error) {
  const uint32_t qpn = db.qpn & kPsnMask;
  const std::optional<uint64_t> addr = qpc_address(qpn);
  const Qpc before = addr ? load(*addr) : Qpc{};
  const bool exists = addr && before.valid != 0;
  const DoorbellOutcome out = doorbell_execute(before, exists, db);
  // A failed directory or QPC read leaves the producer index unknown: refused, counted.
  if (out.refused || (qpn < cfg_.qpn_limit && memory_error)) {
    ++doorbells_refused_;
    return false;
  }
  if (out.after != before) memory_[*addr] = out.after;
  // SPEC §6/§7: WQEs posted in ERR are flushed at once.
  if (out.after.state == static_cast<uint32_t>(QpState::Err) && db.count != 0) flush(qpn);
  return true;
}

void GoldenModel::flush(uint32_t qpn) {
  const uint64_t addr = *qpc_address(qpn);
  FlushOutcome out = flush_execute(qpn, load(addr));
  if (out.cqes.empty()) return;
  memory_[addr] = out.after;
  cqes_.insert(cqes_.end(), out.cqes.begin(), out.cqes.end());
}

std::vector<Cqe> GoldenModel::take_cqes() {
  std::vector<Cqe> out;
  out.swap(cqes_);
  return out;
}

std::vector<Event> GoldenModel::take_events() {
  std::vector<Event> out;
  out.swap(events_);
  return out;
}

uint64_t GoldenModel::drops(DropReason r) const {
  const auto i = static_cast<size_t>(r);
  return r == DropReason::None || i >= drops_.size() ? 0 : drops_[i];
}

}  // namespace qpm
