// Builders shared by the tests and qpm_bench: CREATE_QP and MODIFY_QP commands with valid
// values, the MODIFY_QPs that walk a new QP to a state by the legal path, and datapath
// requests and doorbells.
//
// No test framework here (qpm_bench includes it): a caller runs the commands and judges
// the answers itself, with REQUIRE (tests/test_helpers.h, tests/test_datapath_model.cpp)
// or by throwing (sim/qpm_bench.cpp). Only golden-model headers, so the model's own
// tests can use it without a Verilated library.
//
// Attribute values travel in a Command: its MODIFY_QP attribute fields (qp_access_flags
// .. dest_qp_num); modify_cmd() copies them and sets the opcode, QPN, mask and state. A
// test that needs other values than valid_attributes() passes its own.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <vector>

#include "datapath.h"
#include "qp_trans_table.h"
#include "qpm_types.h"

namespace qpm::builders {

// ---------------------------------------------------------------------------------
// Commands

// CREATE_QP's values besides the QPN and the type. By default each QP has completion
// queues of its own, 64 SQ and 32 RQ WQEs.
struct CreateAttrs {
  uint32_t pd = 7;
  std::optional<uint32_t> cqn_snd;  // unset: 0x100 + qpn
  std::optional<uint32_t> cqn_rcv;  // unset: 0x200 + qpn
  uint32_t log_sq_size = 6;
  uint32_t log_rq_size = 5;
};

inline Command create_cmd(uint32_t qpn, uint32_t type, const CreateAttrs &a = CreateAttrs{}) {
  Command c;
  c.op = Opcode::CreateQp;
  c.qpn = qpn;
  c.qp_type = type;
  c.pd = a.pd;
  c.cqn_snd = a.cqn_snd.value_or(0x100 + qpn);
  c.cqn_rcv = a.cqn_rcv.value_or(0x200 + qpn);
  c.log_sq_size = a.log_sq_size;
  c.log_rq_size = a.log_rq_size;
  return c;
}

// Every MODIFY_QP attribute at a valid, non-zero value, so a write is visible.
inline void set_valid_attributes(Command &c) {
  c.en_sqd_async_notify = 1;
  c.qp_access_flags = access::kRemoteWrite | access::kRemoteRead;
  c.pkey_index = 3;
  c.port_num = 2;
  c.qkey = 0x11112222;
  c.av = {0x1234, 5, 6};
  c.path_mtu = 4;
  c.timeout = 14;
  c.retry_cnt = 6;
  c.rnr_retry = 5;
  c.rq_psn = 0x123456;
  c.max_rd_atomic = 4;
  c.alt_av = {0x4321, 2, 1};
  c.alt_pkey_index = 9;
  c.alt_port_num = 1;
  c.alt_timeout = 18;
  c.min_rnr_timer = 12;
  c.sq_psn = 0x654321;
  c.max_dest_rd_atomic = 8;
  c.path_mig_state = 1;
  c.dest_qp_num = 0xabcdef;
}

inline Command valid_attributes() {
  Command c;
  set_valid_attributes(c);
  return c;
}

// A MODIFY_QP of qpn to `next` with `attrs`' attribute values; the mask decides which
// of them count.
inline Command modify_cmd(uint32_t qpn, uint32_t mask, uint32_t next,
                          const Command &attrs = valid_attributes()) {
  Command c = attrs;
  c.op = Opcode::ModifyQp;
  c.qpn = qpn;
  c.attr_mask = mask;
  c.qp_state = next;
  return c;
}

// The mask of one move of a walk: which attributes the MODIFY_QP from cur to next names.
using WalkMask = uint32_t (*)(uint32_t type, QpState cur, QpState next);

// STATE plus the REQUIRED attributes of the kernel table's row for the move.
inline uint32_t table_mask(uint32_t type, QpState cur, QpState next) {
  const TransEntry e =
      lookup_transition(type, static_cast<uint32_t>(cur), static_cast<uint32_t>(next));
  if (!e.valid) {
    throw std::logic_error("walk: no kernel table row for the move");
  }
  return attr::kState | e.req;
}

// The MODIFY_QPs that take a just-created QP of `type` from RESET to `target` by the
// legal path: RESET -> INIT -> RTR -> RTS, stopping at the target, and from RTS one more
// to SQD or ERR. SQE, which only the datapath enters, ends at RTS (the caller forces the
// state from there). RESET gives none.
inline std::vector<Command> walk_cmds(uint32_t qpn, uint32_t type, QpState target,
                                      const Command &attrs = valid_attributes(),
                                      WalkMask mask = table_mask) {
  const bool via_rts = target == QpState::Sqd || target == QpState::Sqe || target == QpState::Err;
  std::vector<Command> out;
  QpState cur = QpState::Reset;
  for (QpState next : {QpState::Init, QpState::Rtr, QpState::Rts}) {
    if (cur == target || (!via_rts && static_cast<int>(cur) >= static_cast<int>(target))) {
      break;
    }
    out.push_back(modify_cmd(qpn, mask(type, cur, next), static_cast<uint32_t>(next), attrs));
    cur = next;
  }
  if (target == QpState::Sqd || target == QpState::Err) {
    out.push_back(modify_cmd(qpn, mask(type, cur, target), static_cast<uint32_t>(target), attrs));
  }
  return out;
}

// ---------------------------------------------------------------------------------
// Datapath requests and doorbells (fields an operation does not use stay zero)

// An operation with nothing but its op and QPN (RX_RESP_DONE, TIMEOUT, RNR_NAK, ...).
inline DpRequest plain(DpOp op, uint32_t qpn) {
  DpRequest r;
  r.op = op;
  r.qpn = qpn;
  return r;
}

inline DpRequest rx(uint32_t qpn, MsgClass cls, PktPos pos, uint32_t psn, uint32_t qkey = 0) {
  DpRequest r = plain(DpOp::RxReq, qpn);
  r.cls = cls;
  r.pos = pos;
  r.psn = psn;
  r.qkey = qkey;
  return r;
}

inline DpRequest tx(uint32_t qpn, MsgClass cls, uint32_t npkts = 1) {
  DpRequest r = plain(DpOp::TxWqe, qpn);
  r.cls = cls;
  r.npkts = npkts;
  return r;
}

inline DpRequest ack(uint32_t qpn, uint16_t wqes, uint8_t reads = 0) {
  DpRequest r = plain(DpOp::RxAck, qpn);
  r.wqes = wqes;
  r.reads = reads;
  return r;
}

inline DpRequest nak(uint32_t qpn, NakCode code) {
  DpRequest r = plain(DpOp::RxNak, qpn);
  r.code = code;
  return r;
}

// DMA_BEGIN or DMA_END.
inline DpRequest dma(DpOp op, uint32_t qpn, uint8_t epoch) {
  DpRequest r = plain(op, qpn);
  r.epoch = epoch;
  return r;
}

inline Command qp_cmd(Opcode op, uint32_t qpn) {
  Command c;
  c.op = op;
  c.qpn = qpn;
  return c;
}
inline Command query_cmd(uint32_t qpn) { return qp_cmd(Opcode::QueryQp, qpn); }
inline Command pin_cmd(uint32_t qpn) { return qp_cmd(Opcode::PinQp, qpn); }
inline Command unpin_cmd(uint32_t qpn) { return qp_cmd(Opcode::UnpinQp, qpn); }

inline Doorbell sq_db(uint32_t qpn, uint16_t count) { return Doorbell{qpn, false, count}; }
inline Doorbell rq_db(uint32_t qpn, uint16_t count) { return Doorbell{qpn, true, count}; }

}  // namespace qpm::builders
