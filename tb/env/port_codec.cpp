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

}  // namespace

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
