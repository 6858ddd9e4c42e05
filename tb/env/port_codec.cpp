#include "port_codec.h"

#include <stdexcept>
#include <type_traits>
#include <utility>

namespace qpm {

namespace {

// cmd_t fields, most significant first: visit(width, member). One list serves encode
// and decode, so the two cannot disagree. The opcode byte is handled by the callers.
template <class C, class Visit>
void visit_command_fields(C &c, Visit visit) {
  visit(64, c.page_address);
  visit(32, c.dir_index);
  visit(8, c.log_rq_size);
  visit(8, c.log_sq_size);
  visit(32, c.cqn_rcv);
  visit(32, c.cqn_snd);
  visit(32, c.pd);
  visit(8, c.qp_type);
  visit(32, c.dest_qp_num);
  visit(8, c.path_mig_state);
  visit(8, c.max_dest_rd_atomic);
  visit(32, c.sq_psn);
  visit(8, c.min_rnr_timer);
  visit(8, c.alt_timeout);
  visit(8, c.alt_port_num);
  visit(16, c.alt_pkey_index);
  visit(16, c.alt_av.dlid);  // cmd_av_t alt_av
  visit(8, c.alt_av.sl);
  visit(8, c.alt_av.sgid_index);
  visit(8, c.max_rd_atomic);
  visit(32, c.rq_psn);
  visit(8, c.rnr_retry);
  visit(8, c.retry_cnt);
  visit(8, c.timeout);
  visit(8, c.path_mtu);
  visit(16, c.av.dlid);  // cmd_av_t av
  visit(8, c.av.sl);
  visit(8, c.av.sgid_index);
  visit(32, c.qkey);
  visit(8, c.port_num);
  visit(16, c.pkey_index);
  visit(32, c.qp_access_flags);
  visit(8, c.en_sqd_async_notify);
  visit(8, c.cur_qp_state);
  visit(8, c.qp_state);
  visit(32, c.attr_mask);
  visit(32, c.qpn);
}

constexpr unsigned kOpcodeBits = 8;  // the least significant field

bool known_opcode(uint8_t b) {
  for (Opcode op : {Opcode::MapPage, Opcode::UnmapPage, Opcode::CreateQp, Opcode::ModifyQp,
                    Opcode::QueryQp, Opcode::DestroyQp, Opcode::PinQp, Opcode::UnpinQp,
                    Opcode::SyncCache, Opcode::PortFault}) {
    if (static_cast<uint8_t>(op) == b) return true;
  }
  return false;
}

// dp_req_t, dp_rsp_t, doorbell_t and eqe_t fields, most significant first.
template <class R, class Visit>
void visit_dp_request_fields(R &r, Visit visit) {
  visit(8, r.tag);
  visit(24, r.qpn);
  visit(4, r.op);
  visit(2, r.cls);
  visit(2, r.pos);
  visit(24, r.psn);
  visit(32, r.qkey);
  visit(24, r.npkts);
  visit(16, r.wqes);
  visit(8, r.reads);
  visit(2, r.code);
  visit(8, r.epoch);
}

template <class R, class Visit>
void visit_dp_response_fields(R &r, Visit visit) {
  visit(8, r.tag);
  visit(24, r.qpn);
  visit(4, r.verdict);
  visit(4, r.drop);
  visit(24, r.psn);
  visit(3, r.qp_type);
  visit(24, r.dest_qpn);
  visit(16, r.av_dlid);
  visit(4, r.av_sl);
  visit(8, r.av_sgid_index);
  visit(8, r.epoch);
}

template <class R, class Visit>
void visit_doorbell_fields(R &r, Visit visit) {
  visit(24, r.qpn);
  visit(1, r.rq);
  visit(16, r.count);
}

template <class R, class Visit>
void visit_cqe_fields(R &r, Visit visit) {
  visit(24, r.cqn);
  visit(24, r.qpn);
  visit(1, r.rq);
  visit(16, r.wqe_index);
  visit(8, r.status);
}

template <class R, class Visit>
void visit_event_fields(R &r, Visit visit) {
  visit(1, r.is_port);
  visit(24, r.qpn);
  visit(5, r.type);
  visit(8, r.syndrome);
}

// A field's value as an integer (enums and bool included), and back.
template <class T>
uint64_t as_bits(T v) {
  if constexpr (std::is_enum_v<T>) {
    return static_cast<uint64_t>(static_cast<std::underlying_type_t<T>>(v));
  } else {
    return static_cast<uint64_t>(v);
  }
}
template <class T>
T from_bits(uint64_t v) {
  if constexpr (std::is_enum_v<T>) {
    return static_cast<T>(static_cast<std::underlying_type_t<T>>(v));
  } else if constexpr (std::is_same_v<T, bool>) {
    return v != 0;
  } else {
    return static_cast<T>(v);
  }
}

uint64_t width_mask(unsigned width) { return width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1; }

// Packs a record whose fields `visit` lists, most significant first, into `bits` bits.
template <class R, class Fields>
BitVec encode_record(const R &r, unsigned bits, Fields fields) {
  BitVec v(bits);
  unsigned top = bits;
  fields(r, [&](unsigned width, auto value) {
    top -= width;
    v.set(top, width, as_bits(value) & width_mask(width));
  });
  if (top != 0) throw std::logic_error("a port record does not add up to its width");
  return v;
}

template <class R, class Fields>
R decode_record(const BitVec &bits, Fields fields) {
  R r;
  unsigned top = bits.bits();
  fields(r, [&](unsigned width, auto &member) {
    top -= width;
    member = from_bits<std::remove_reference_t<decltype(member)>>(bits.get(top, width));
  });
  return r;
}

}  // namespace

BitVec encode_dp_request(const DpRequest &req) {
  return encode_record(req, kDpReqBits,
                       [](const DpRequest &r, auto v) { visit_dp_request_fields(r, v); });
}
DpRequest decode_dp_request(const BitVec &bits) {
  return decode_record<DpRequest>(bits, [](DpRequest &r, auto v) { visit_dp_request_fields(r, v); });
}
BitVec encode_dp_response(const DpResponse &rsp) {
  return encode_record(rsp, kDpRspBits,
                       [](const DpResponse &r, auto v) { visit_dp_response_fields(r, v); });
}
DpResponse decode_dp_response(const BitVec &bits) {
  return decode_record<DpResponse>(bits,
                                   [](DpResponse &r, auto v) { visit_dp_response_fields(r, v); });
}
BitVec encode_doorbell(const Doorbell &db) {
  return encode_record(db, kDoorbellBits,
                       [](const Doorbell &r, auto v) { visit_doorbell_fields(r, v); });
}
Doorbell decode_doorbell(const BitVec &bits) {
  return decode_record<Doorbell>(bits, [](Doorbell &r, auto v) { visit_doorbell_fields(r, v); });
}
BitVec encode_event(const Event &ev) {
  return encode_record(ev, kEqeBits, [](const Event &r, auto v) { visit_event_fields(r, v); });
}
Event decode_event(const BitVec &bits) {
  return decode_record<Event>(bits, [](Event &r, auto v) { visit_event_fields(r, v); });
}
BitVec encode_cqe(const Cqe &c) {
  return encode_record(c, kCqeBits, [](const Cqe &r, auto v) { visit_cqe_fields(r, v); });
}
Cqe decode_cqe(const BitVec &bits) {
  return decode_record<Cqe>(bits, [](Cqe &r, auto v) { visit_cqe_fields(r, v); });
}

BitVec encode_command(const Command &cmd) {
  BitVec v(kCmdBits);
  unsigned top = kCmdBits;
  visit_command_fields(cmd, [&](unsigned width, auto value) {
    top -= width;
    v.set(top, width, value);
  });
  if (top != kOpcodeBits) throw std::logic_error("command layout does not add up to kCmdBits");
  v.set(0, kOpcodeBits, cmd.opcode_byte());
  return v;
}

Command decode_command(const BitVec &bits) {
  Command c;
  unsigned top = kCmdBits;
  visit_command_fields(c, [&](unsigned width, auto &member) {
    top -= width;
    member = static_cast<std::remove_reference_t<decltype(member)>>(bits.get(top, width));
  });
  const auto op = static_cast<uint8_t>(bits.get(0, kOpcodeBits));
  c.use_raw_op = !known_opcode(op);
  c.raw_op = op;
  c.op = static_cast<Opcode>(op);
  return c;
}

Response decode_response(const BitVec &bits) {
  // rsp_t: {qpc_t qpc; syndrome_t {bad_value, forbidden, missing}; status}
  Response r;
  r.status = static_cast<Status>(bits.get(0, 8));
  r.syndrome.missing = static_cast<uint32_t>(bits.get(8, 32));
  r.syndrome.forbidden = static_cast<uint32_t>(bits.get(40, 32));
  r.syndrome.bad_value = static_cast<uint32_t>(bits.get(72, 32));
  BitVec qpc(kQpcBits);
  for (unsigned w = 0; w < kQpcBits / 32; ++w) {
    qpc.set(32 * w, 32, bits.get(104 + 32 * w, 32));
  }
  r.qpc = unpack_qpc(qpc);
  return r;
}

}  // namespace qpm
