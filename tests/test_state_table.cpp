// Exhaustive check of the hardware state machine: every QP type x current state x next
// state, with the required mask, with each required bit removed and with each other
// attribute bit added. The RTL's answer must equal the kernel table's verdict, computed
// here from the table rows; the scoreboard checks RTL == golden model on every command.
#include <fmt/format.h>

#include "test_helpers.h"

using namespace qpm;
using namespace qpm::test;

namespace {

struct Expect {
  Status status;
  Syndrome syndrome;
};

// The kernel's ib_modify_qp_is_ok() verdict, mapped to statuses as SPEC §5 orders them.
Expect kernel_verdict(uint32_t type, uint32_t cur, uint32_t next, uint32_t mask) {
  const TransRow *row = nullptr;
  for (const auto &r : kTransTable) {
    if (static_cast<uint32_t>(r.type) == type && static_cast<uint32_t>(r.cur) == cur &&
        static_cast<uint32_t>(r.next) == next) {
      row = &r;
    }
  }
  if (!row) return {Status::BadQpState, {}};
  Syndrome s;
  s.missing = row->req & ~mask;
  s.forbidden = mask & ~(row->req | row->opt | attr::kState);
  if (s.missing || s.forbidden) return {Status::BadParam, s};
  return {Status::Ok, {}};
}

}  // namespace

TEST_CASE("every transition x mask variant: RTL == model == kernel table", "[state_table]") {
  EnvOptions opt;
  opt.seed = 2;
  QpmEnv env(opt);
  const uint32_t types[] = {2, 3, 4};
  uint32_t qpn = 2;
  uint64_t cases = 0, accepted = 0;
  for (uint32_t type : types) {
    for (uint32_t cur = 0; cur < kNumStates; ++cur) {
      for (uint32_t next = 0; next < kNumStates; ++next) {
        const TransEntry t = lookup_transition(type, cur, next);
        const uint32_t base = attr::kState | t.req;
        std::vector<uint32_t> masks = {base};
        for (int b = 1; b < 32; ++b) {
          const uint32_t bit = 1u << b;
          masks.push_back((t.req & bit) ? base & ~bit : base | bit);
        }
        if (cur == next) masks.push_back(0);  // no STATE: cur -> cur implied
        for (uint32_t mask : masks) {
          // A fresh QP per case, so a passing modify cannot disturb the next case.
          if (qpn >= env.model().config().qpn_limit) qpn = 2;  // reuse, destroying first
          const uint32_t this_qpn = qpn++;
          if (env.model().qpc(this_qpn).valid) {
            REQUIRE(env.execute(qpn_cmd(Opcode::DestroyQp, this_qpn)).status == Status::Ok);
          }
          walk_to(env, this_qpn, type, static_cast<QpState>(cur));
          Command c = modify_cmd(this_qpn, mask, next);
          c.cur_qp_state = cur;  // truthful when CUR_STATE is in the mask
          const Response before = env.execute(qpn_cmd(Opcode::QueryQp, this_qpn));
          const Response r = env.execute(c);
          // CUR_STATE asserted from a state the kernel does not allow it in is a state error.
          Expect e = kernel_verdict(type, cur, (mask & attr::kState) ? next : cur, mask);
          const bool cur_claim_illegal =
              (mask & attr::kCurState) && !(cur >= 2 && cur <= 5);
          if (cur_claim_illegal) e = {Status::BadQpState, {}};
          INFO(fmt::format("type {} {} -> {} mask {}", type_name(type), state_name(cur),
                           state_name(next), mask_names(mask)));
          REQUIRE(r.status == e.status);
          REQUIRE(r.syndrome == e.syndrome);
          if (r.status != Status::Ok) {
            const Response after = env.execute(qpn_cmd(Opcode::QueryQp, this_qpn));
            REQUIRE(after.qpc == before.qpc);
          } else {
            ++accepted;
          }
          ++cases;
        }
      }
    }
  }
  REQUIRE(env.scoreboard().mismatches() == 0);
  REQUIRE_FALSE(env.tb().assertion_failed());
  WARN(fmt::format("checked {} (type, state, next, mask) cases, {} accepted, {} commands",
                   cases, accepted, env.scoreboard().checked()));
}
