// Helpers shared by qpm_bench's workloads (sim/qpm_bench.cpp, sim/bench_scale.cpp).
#pragma once

#include <fmt/core.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "builders.h"
#include "qpm_env.h"

namespace qpm::bench {

constexpr uint32_t kFirstQpn = 0x40;

// Creates qpn as an RC QP and walks it to RTS by the legal path, with the tests' valid
// attribute values.
inline void bring_up(QpmEnv &env, uint32_t qpn) {
  const uint32_t rc = static_cast<uint32_t>(QpType::RC);
  std::vector<Command> cmds = builders::walk_cmds(qpn, rc, QpState::Rts);
  cmds.insert(cmds.begin(), builders::create_cmd(qpn, rc));
  for (const Command &cmd : cmds) {
    if (env.execute(cmd).status != Status::Ok) {
      throw std::runtime_error(fmt::format("qpm_bench: setting up QP {:#x} failed", qpn));
    }
  }
}

// An RDMA WRITE ONLY at the QP's expected PSN: accepted, and it advances the PSN, so
// every operation is a real read-modify-write that depends on the one before.
inline DpRequest write_only(uint32_t qpn, uint32_t psn) {
  return builders::rx(qpn, MsgClass::Write, PktPos::Only, psn & kPsnMask);
}

}  // namespace qpm::bench
