#include "qpm_types.h"

#include <algorithm>
#include <stdexcept>

namespace qpm {

// Declaration order of qpm_pkg::qpc_t, most significant field first, so the last entry
// sits at bit 0 (byte 0 of the 64-byte record).
const std::vector<FieldSpec<Qpc>> kQpcLayout = {
    {"reserved", &Qpc::reserved, 5, true},
    {"ev_fatal_write", &Qpc::ev_fatal_write, 1, true},
    {"quiesce", &Qpc::quiesce, 1, true},
    {"ev_fatal_port", &Qpc::ev_fatal_port, 1, true},
    {"ev_pending", &Qpc::ev_pending, 5, true},
    {"sq_err_pending", &Qpc::sq_err_pending, 1, true},
    {"err_syndrome", &Qpc::err_syndrome, 8, true},
    {"epoch", &Qpc::epoch, 8, true},
    {"dma_inflight", &Qpc::dma_inflight, 8, true},
    {"comm_est_seen", &Qpc::comm_est_seen, 1, true},
    {"rx_msg_class", &Qpc::rx_msg_class, 2, true},
    {"rx_msg_open", &Qpc::rx_msg_open, 1, true},
    {"cur_rnr_retry", &Qpc::cur_rnr_retry, 3, true},
    {"cur_retry_cnt", &Qpc::cur_retry_cnt, 3, true},
    {"sq_issued", &Qpc::sq_issued, 16, true},
    {"rq_ci", &Qpc::rq_ci, 16, true},
    {"sq_ci", &Qpc::sq_ci, 16, true},
    {"rq_pi", &Qpc::rq_pi, 16, true},
    {"sq_pi", &Qpc::sq_pi, 16, true},
    {"dest_rd_atomic_inflight", &Qpc::dest_rd_atomic_inflight, 5, true},
    {"rd_atomic_outstanding", &Qpc::rd_atomic_outstanding, 5, true},
    {"expected_psn", &Qpc::expected_psn, 24, true},
    {"next_send_psn", &Qpc::next_send_psn, 24, true},
    {"en_sqd_async_notify", &Qpc::en_sqd_async_notify, 1, false},
    {"log_rq_size", &Qpc::log_rq_size, 5, false},
    {"log_sq_size", &Qpc::log_sq_size, 5, false},
    {"cqn_rcv", &Qpc::cqn_rcv, 24, false},
    {"cqn_snd", &Qpc::cqn_snd, 24, false},
    {"max_dest_rd_atomic", &Qpc::max_dest_rd_atomic, 5, false},
    {"max_rd_atomic", &Qpc::max_rd_atomic, 5, false},
    {"rq_psn", &Qpc::rq_psn, 24, false},
    {"sq_psn", &Qpc::sq_psn, 24, false},
    {"min_rnr_timer", &Qpc::min_rnr_timer, 5, false},
    {"rnr_retry", &Qpc::rnr_retry, 3, false},
    {"retry_cnt", &Qpc::retry_cnt, 3, false},
    {"timeout", &Qpc::timeout, 5, false},
    {"path_mig_state", &Qpc::path_mig_state, 2, false},
    {"alt_timeout", &Qpc::alt_timeout, 5, false},
    {"alt_port", &Qpc::alt_port, 2, false},
    {"alt_pkey_index", &Qpc::alt_pkey_index, 16, false},
    {"alt_av_sgid_index", &Qpc::alt_av_sgid_index, 8, false},
    {"alt_av_sl", &Qpc::alt_av_sl, 4, false},
    {"alt_av_dlid", &Qpc::alt_av_dlid, 16, false},
    {"av_sgid_index", &Qpc::av_sgid_index, 8, false},
    {"av_sl", &Qpc::av_sl, 4, false},
    {"av_dlid", &Qpc::av_dlid, 16, false},
    {"dest_qpn", &Qpc::dest_qpn, 24, false},
    {"path_mtu", &Qpc::path_mtu, 3, false},
    {"access_flags", &Qpc::access_flags, 4, false},
    {"qkey", &Qpc::qkey, 32, false},
    {"pkey_index", &Qpc::pkey_index, 16, false},
    {"port", &Qpc::port, 2, false},
    {"pd", &Qpc::pd, 24, false},
    {"qp_type", &Qpc::qp_type, 3, false},
    {"state", &Qpc::state, 3, false},
    {"valid", &Qpc::valid, 1, false},
};

std::vector<FieldPos> qpc_field_positions() {
  std::vector<FieldPos> out;
  unsigned top = kQpcBits;
  for (const auto &f : kQpcLayout) {
    top -= f.width;
    out.push_back({f.name, top, f.width, f.hw_updated});
  }
  if (top != 0) throw std::logic_error("kQpcLayout does not add up to 512 bits");
  return out;
}

bool Qpc::operator==(const Qpc &o) const {
  for (const auto &f : kQpcLayout) {
    if (this->*f.member != o.*f.member) return false;
  }
  return true;
}

Qpc qpc_at_widths(const Qpc &q) {
  Qpc out = q;
  for (const auto &f : kQpcLayout) {
    out.*f.member &= f.width >= 32 ? 0xffffffffu : (1u << f.width) - 1;
  }
  return out;
}

// A word at a time (the harness packs and unpacks every port's records each cycle).
void BitVec::set(unsigned lsb, unsigned width, uint64_t value) {
  while (width > 0) {
    const unsigned off = lsb % 32, n = std::min(32 - off, width);
    const uint32_t mask = (n == 32 ? ~0u : (1u << n) - 1u) << off;
    uint32_t &w = words_[lsb / 32];
    w = (w & ~mask) | ((static_cast<uint32_t>(value) << off) & mask);
    value = n < 64 ? value >> n : 0;
    lsb += n;
    width -= n;
  }
}

uint64_t BitVec::get(unsigned lsb, unsigned width) const {
  uint64_t v = 0;
  for (unsigned done = 0; done < width;) {
    const unsigned off = lsb % 32, n = std::min(32 - off, width - done);
    const uint32_t mask = n == 32 ? ~0u : (1u << n) - 1u;
    v |= static_cast<uint64_t>((words_[lsb / 32] >> off) & mask) << done;
    lsb += n;
    done += n;
  }
  return v;
}

BitVec pack_qpc(const Qpc &q) {
  BitVec v(kQpcBits);
  for (const auto &p : qpc_field_positions()) {
    for (const auto &f : kQpcLayout) {
      if (std::string(f.name) == p.name) v.set(p.lsb, p.width, q.*f.member);
    }
  }
  return v;
}

Qpc unpack_qpc(const BitVec &v) {
  Qpc q;
  const auto pos = qpc_field_positions();
  for (size_t i = 0; i < kQpcLayout.size(); ++i) {
    q.*kQpcLayout[i].member = static_cast<uint32_t>(v.get(pos[i].lsb, pos[i].width));
  }
  return q;
}

std::array<uint8_t, 64> qpc_bytes(const Qpc &q) {
  const BitVec v = pack_qpc(q);
  std::array<uint8_t, 64> out{};
  for (unsigned i = 0; i < 64; ++i) out[i] = static_cast<uint8_t>(v.get(8 * i, 8));
  return out;
}

namespace {
const char *const kStateNames[] = {"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR"};

// ib_qp_attr_mask names without the IB_QP_ prefix, by bit position.
const char *const kMaskNames[attr::kNumBits] = {
    "STATE",       "CUR_STATE",     "EN_SQD_ASYNC_NOTIFY", "ACCESS_FLAGS",
    "PKEY_INDEX",  "PORT",          "QKEY",                "AV",
    "PATH_MTU",    "TIMEOUT",       "RETRY_CNT",           "RNR_RETRY",
    "RQ_PSN",      "MAX_QP_RD_ATOMIC", "ALT_PATH",         "MIN_RNR_TIMER",
    "SQ_PSN",      "MAX_DEST_RD_ATOMIC", "PATH_MIG_STATE", "CAP",
    "DEST_QPN",    "RESERVED1",     "RESERVED2",           "RESERVED3",
    "RESERVED4",   "RATE_LIMIT",    nullptr,               nullptr,
    nullptr,       nullptr,         nullptr,               nullptr};
}  // namespace

const char *state_name(uint32_t state) {
  return state < kNumStates ? kStateNames[state] : "UNKNOWN";
}

const char *type_name(uint32_t qp_type) {
  switch (qp_type) {
    case 2:
      return "RC";
    case 3:
      return "UC";
    case 4:
      return "UD";
    default:
      return "UNKNOWN";
  }
}

const char *status_name(Status s) {
  switch (s) {
    case Status::Ok:
      return "OK";
    case Status::IntErr:
      return "INT_ERR";
    case Status::BadOp:
      return "BAD_OP";
    case Status::BadParam:
      return "BAD_PARAM";
    case Status::BadRes:
      return "BAD_RES";
    case Status::ResBusy:
      return "RES_BUSY";
    case Status::BadQpState:
      return "BAD_QP_STATE";
  }
  return "UNKNOWN";
}

const char *opcode_name(uint8_t op) {
  switch (static_cast<Opcode>(op)) {
    case Opcode::MapPage:
      return "MAP_PAGE";
    case Opcode::UnmapPage:
      return "UNMAP_PAGE";
    case Opcode::CreateQp:
      return "CREATE_QP";
    case Opcode::ModifyQp:
      return "MODIFY_QP";
    case Opcode::QueryQp:
      return "QUERY_QP";
    case Opcode::DestroyQp:
      return "DESTROY_QP";
    case Opcode::PinQp:
      return "PIN_QP";
    case Opcode::UnpinQp:
      return "UNPIN_QP";
    case Opcode::SyncCache:
      return "SYNC_CACHE";
    case Opcode::PortFault:
      return "PORT_FAULT";
  }
  return "UNKNOWN_OP";
}

std::string mask_names(uint32_t mask) {
  std::string out;
  for (int b = 0; b < attr::kNumBits; ++b) {
    if (!((mask >> b) & 1u)) continue;
    if (!out.empty()) out += '|';
    out += kMaskNames[b] ? kMaskNames[b] : "BIT" + std::to_string(b);
  }
  return out.empty() ? "0" : out;
}

std::optional<uint32_t> mask_bit_from_name(const std::string &name) {
  for (int b = 0; b < attr::kNumBits; ++b) {
    if (kMaskNames[b] && name == kMaskNames[b]) return 1u << b;
  }
  return std::nullopt;
}

std::optional<uint32_t> state_from_name(const std::string &name) {
  for (uint32_t s = 0; s < kNumStates; ++s) {
    if (name == kStateNames[s]) return s;
  }
  return std::nullopt;
}

std::optional<uint32_t> type_from_name(const std::string &name) {
  if (name == "RC") return 2;
  if (name == "UC") return 3;
  if (name == "UD") return 4;
  return std::nullopt;
}

}  // namespace qpm
