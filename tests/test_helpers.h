// Small builders shared by the RTL-level tests: commands with valid attribute values,
// and walking a fresh QP to a given state by the legal path.
#pragma once

#include <catch2/catch.hpp>

#include "qp_trans_table.h"
#include "qpm_env.h"

namespace qpm::test {

inline Command create_cmd(uint32_t qpn, uint32_t type) {
  Command c;
  c.op = Opcode::CreateQp;
  c.qpn = qpn;
  c.qp_type = type;
  c.pd = 7;
  c.cqn_snd = 0x100 + qpn;
  c.cqn_rcv = 0x200 + qpn;
  c.log_sq_size = 6;
  c.log_rq_size = 5;
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

inline Command modify_cmd(uint32_t qpn, uint32_t mask, uint32_t next) {
  Command c;
  c.op = Opcode::ModifyQp;
  c.qpn = qpn;
  set_valid_attributes(c);
  c.attr_mask = mask;
  c.qp_state = next;
  return c;
}

inline Command qpn_cmd(Opcode op, uint32_t qpn) {
  Command c;
  c.op = op;
  c.qpn = qpn;
  return c;
}

// The REQUIRED mask of a transition, read straight from the kernel table rows.
inline uint32_t required(uint32_t type, QpState cur, QpState next) {
  for (const auto &r : kTransTable) {
    if (static_cast<uint32_t>(r.type) == type && r.cur == cur && r.next == next) return r.req;
  }
  FAIL("no table row for the walk");
  return 0;
}

// Create qpn and move it to target along RESET -> INIT -> RTR -> RTS [-> SQD | -> ERR].
// SQE, which only the datapath enters, is reached from RTS through the backdoor.
inline void walk_to(QpmEnv &env, uint32_t qpn, uint32_t type, QpState target) {
  REQUIRE(env.execute(create_cmd(qpn, type)).status == Status::Ok);
  const QpState path[] = {QpState::Init, QpState::Rtr, QpState::Rts};
  QpState cur = QpState::Reset;
  const bool via_rts = target == QpState::Sqd || target == QpState::Sqe || target == QpState::Err;
  for (QpState next : path) {
    if (cur == target || (!via_rts && static_cast<int>(cur) >= static_cast<int>(target))) break;
    const uint32_t mask = attr::kState | required(type, cur, next);
    REQUIRE(env.execute(modify_cmd(qpn, mask, static_cast<uint32_t>(next))).status == Status::Ok);
    cur = next;
  }
  if (target == QpState::Sqd || target == QpState::Err) {
    REQUIRE(env.execute(modify_cmd(qpn, attr::kState, static_cast<uint32_t>(target))).status ==
            Status::Ok);
  } else if (target == QpState::Sqe) {
    Qpc q = env.model().qpc(qpn);
    q.state = static_cast<uint32_t>(QpState::Sqe);
    env.force_qpc(qpn, q);
  }
  REQUIRE(env.model().qpc(qpn).state == static_cast<uint32_t>(target));
}

}  // namespace qpm::test
