#include "port_codec.h"

#include <stdexcept>
#include <utility>

namespace qpm {

namespace {

// cmd_t fields, most significant first: {width, value}.
std::vector<std::pair<unsigned, uint64_t>> command_fields(const Command &c) {
  return {
      {64, c.page_address},
      {32, c.dir_index},
      {8, c.log_rq_size},
      {8, c.log_sq_size},
      {32, c.cqn_rcv},
      {32, c.cqn_snd},
      {32, c.pd},
      {8, c.qp_type},
      {32, c.dest_qp_num},
      {8, c.path_mig_state},
      {8, c.max_dest_rd_atomic},
      {32, c.sq_psn},
      {8, c.min_rnr_timer},
      {8, c.alt_timeout},
      {8, c.alt_port_num},
      {16, c.alt_pkey_index},
      {16, c.alt_av.dlid},  // cmd_av_t alt_av
      {8, c.alt_av.sl},
      {8, c.alt_av.sgid_index},
      {8, c.max_rd_atomic},
      {32, c.rq_psn},
      {8, c.rnr_retry},
      {8, c.retry_cnt},
      {8, c.timeout},
      {8, c.path_mtu},
      {16, c.av.dlid},  // cmd_av_t av
      {8, c.av.sl},
      {8, c.av.sgid_index},
      {32, c.qkey},
      {8, c.port_num},
      {16, c.pkey_index},
      {32, c.qp_access_flags},
      {8, c.en_sqd_async_notify},
      {8, c.cur_qp_state},
      {8, c.qp_state},
      {32, c.attr_mask},
      {32, c.qpn},
      {8, c.opcode_byte()},
  };
}

}  // namespace

BitVec encode_command(const Command &cmd) {
  BitVec v(kCmdBits);
  unsigned top = kCmdBits;
  for (const auto &[width, value] : command_fields(cmd)) {
    top -= width;
    v.set(top, width, value);
  }
  if (top != 0) throw std::logic_error("command layout does not add up to kCmdBits");
  return v;
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
