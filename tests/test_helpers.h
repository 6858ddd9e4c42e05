// Small helpers shared by the RTL-level tests: the command, walk and datapath builders
// of tb/stim/builders.h (also used by qpm_bench and the model's own tests), and walking
// a fresh QP to a given state through a QpmEnv by the legal path.
#pragma once

#include <catch2/catch.hpp>

#include "builders.h"
#include "qp_trans_table.h"
#include "qpm_env.h"

namespace qpm::test {

// create_cmd, modify_cmd, set_valid_attributes, walk_cmds, rx, tx, ack, sq_db, ...
using namespace qpm::builders;

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

// The end-of-run check (QpmEnv::final_check) must find nothing wrong; each problem is
// shown with the failure.
inline void require_final_check_clean(QpmEnv &env) {
  const auto problems = env.final_check();
  for (const auto &p : problems) UNSCOPED_INFO(p);
  REQUIRE(problems.empty());
}

// A CSR counter by its name (kCounterNames), read over AXI4-Lite.
inline uint32_t csr_counter(QpmEnv &env, const char *name) {
  return env.read_counters()[counter_index(name)];
}

// Create qpn and move it to target along RESET -> INIT -> RTR -> RTS [-> SQD | -> ERR]
// (walk_cmds), writing `attrs`' attribute values. SQE, which only the datapath enters,
// is reached from RTS through the backdoor.
inline void walk_to(QpmEnv &env, uint32_t qpn, uint32_t type, QpState target,
                    const Command &attrs = valid_attributes()) {
  REQUIRE(env.execute(create_cmd(qpn, type)).status == Status::Ok);
  for (const Command &c : walk_cmds(qpn, type, target, attrs)) {
    REQUIRE(env.execute(c).status == Status::Ok);
  }
  if (target == QpState::Sqe) {
    Qpc q = env.model().qpc(qpn);
    q.state = static_cast<uint32_t>(QpState::Sqe);
    env.force_qpc(qpn, q);
  }
  REQUIRE(env.model().qpc(qpn).state == static_cast<uint32_t>(target));
}

}  // namespace qpm::test
