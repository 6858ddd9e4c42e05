// Script mode (SPEC §13): answers, errors naming their line, and a generated script that
// walks QPs of all three types through every state and tries every modify, checked
// against the kernel table.
#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "script.h"
#include "random_stimulus.h"
#include "script_runner.h"
#include "test_helpers.h"

using namespace qpm;

namespace {

std::vector<std::string> lines_of(const std::string &text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string l; std::getline(ss, l);) out.push_back(l);
  return out;
}

ScriptResult run(const std::string &script, std::string *output = nullptr, uint64_t seed = 3) {
  EnvOptions o;
  o.seed = seed;
  QpmEnv env(o);
  std::istringstream in(script);
  std::ostringstream out;
  ScriptResult r = run_script(env, in, out);
  if (output) *output = out.str();
  return r;
}

bool starts_with(const std::string &s, const std::string &prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

TEST_CASE("the example script answers as SPEC §13 and the kernel table say", "[script]") {
  std::ifstream f(std::string(QPM_SOURCE_DIR) + "/tests/scripts/rc_lifecycle.qpm");
  REQUIRE(f.good());
  std::stringstream text;
  text << f.rdbuf();
  std::string out;
  const ScriptResult r = run(text.str(), &out);
  INFO(out);
  REQUIRE(r.error.empty());
  REQUIRE(r.mismatches == 0);
  const auto lines = lines_of(out);
  REQUIRE(lines.size() == 19);
  CHECK(lines[0] == "map_page dir=0 status=OK");
  CHECK(lines[1] == "create qpn=0x10 status=OK state=RESET");
  CHECK(lines[2] == "modify qpn=0x10 status=OK state=INIT");
  CHECK(lines[3] == "modify qpn=0x10 status=BAD_PARAM missing=AV|PATH_MTU|DEST_QPN");
  CHECK(starts_with(lines[4], "query qpn=0x10 status=OK valid=1 state=INIT qp_type=RC pd=3 "));
  CHECK(lines[5] == "modify qpn=0x10 status=OK state=RTR");
  CHECK(lines[6] == "modify qpn=0x10 status=BAD_PARAM forbidden=QKEY");
  CHECK(lines[7] == "modify qpn=0x10 status=OK state=RTS");
  CHECK(lines[8] == "modify qpn=0x10 status=BAD_PARAM forbidden=PORT");  // RTS->SQD
  CHECK(lines[9] == "modify qpn=0x10 status=OK state=SQD");
  // SPEC §5: entering SQD with nothing outstanding and en_sqd_async_notify (the mask
  // names it, its default is 1) is drained at once.
  CHECK(lines[10] == "eqe qpn=0x10 type=SQ_DRAINED");
  CHECK(lines[11] == "modify qpn=0x10 status=OK state=SQD");
  CHECK(lines[12].find(" port=2 ") != std::string::npos);
  CHECK(lines[12].find(" en_sqd_async_notify=1") != std::string::npos);
  CHECK(lines[13] == "modify qpn=0x10 status=OK state=ERR");
  CHECK(lines[14] == "modify qpn=0x10 status=BAD_QP_STATE");
  CHECK(lines[15] == "modify qpn=0x10 status=OK state=RESET");
  CHECK(lines[16] == "destroy qpn=0x10 status=OK");
  CHECK(lines[17] == "destroy qpn=0x10 status=BAD_RES");
  CHECK(lines[18] == "run cycles=10");
}

TEST_CASE("a script walks every type through every state and tries every modify",
          "[script]") {
  // SQE is entered only by the datapath, so the script walks the six other states; the
  // exhaustive test in test_state_table.cpp covers SQE through the backdoor.
  const QpState reachable[] = {QpState::Reset, QpState::Init, QpState::Rtr,
                               QpState::Rts,   QpState::Sqd,  QpState::Err};
  const char *types[] = {"RC", "UC", "UD"};
  std::string script;
  std::vector<std::pair<size_t, std::string>> expect;  // output line -> expected prefix
  size_t line = 0;
  uint32_t qpn = 0x100;
  auto emit = [&](const std::string &l, const std::string &answer) {
    script += l + "\n";
    if (!answer.empty()) expect.push_back({line, answer});
    ++line;
  };
  auto modify_line = [](uint32_t q, uint32_t mask, QpState next) {
    Command c = test::modify_cmd(q, mask, static_cast<uint32_t>(next));
    return format_command(c);
  };
  for (const char *tname : types) {
    const uint32_t type = *type_from_name(tname);
    for (QpState cur : reachable) {
      for (uint32_t n = 0; n < kNumStates; ++n) {
        const QpState next = static_cast<QpState>(n);
        const std::string q = fmt::format("{:#x}", qpn);
        emit(fmt::format("create qpn={} type={} pd=1 cqn_snd=1 cqn_rcv=2", q, tname), "");
        // The legal walk to cur.
        const QpState path[] = {QpState::Init, QpState::Rtr, QpState::Rts, QpState::Sqd};
        QpState at = QpState::Reset;
        const QpState stop = cur == QpState::Err ? QpState::Rts : cur;
        for (QpState p : path) {
          if (at == stop) break;
          emit(modify_line(qpn, attr::kState | test::required(type, at, p), p),
               fmt::format("modify qpn={} status=OK state={}", q, state_name(
                   static_cast<uint32_t>(p))));
          at = p;
        }
        if (cur == QpState::Err) {
          emit(modify_line(qpn, attr::kState, QpState::Err),
               fmt::format("modify qpn={} status=OK state=ERR", q));
        }
        // The modify under test, with the table's required mask when it has a row.
        const TransEntry t = lookup_transition(type, static_cast<uint32_t>(cur), n);
        emit(modify_line(qpn, attr::kState | t.req, next),
             t.valid ? fmt::format("modify qpn={} status=OK state={}", q, state_name(n))
                     : fmt::format("modify qpn={} status=BAD_QP_STATE", q));
        // The state after: next when accepted, unchanged after a refusal.
        emit(fmt::format("query {}", "qpn=" + q),
             fmt::format("query qpn={} status=OK valid=1 state={} ", q,
                         state_name(t.valid ? n : static_cast<uint32_t>(cur))));
        // Each required bit removed: refused, naming the bit, state unchanged.
        for (int b = 0; b < 32 && t.valid; ++b) {
          if (!(t.req & (1u << b))) continue;
          emit(fmt::format("destroy qpn={:#x}", qpn), "");
          ++qpn;
          const std::string q2 = fmt::format("{:#x}", qpn);
          emit(fmt::format("create qpn={} type={}", q2, tname), "");
          at = QpState::Reset;
          for (QpState p : path) {
            if (at == stop) break;
            emit(modify_line(qpn, attr::kState | test::required(type, at, p), p), "");
            at = p;
          }
          if (cur == QpState::Err) emit(modify_line(qpn, attr::kState, QpState::Err), "");
          emit(modify_line(qpn, (attr::kState | t.req) & ~(1u << b), next),
               fmt::format("modify qpn={} status=BAD_PARAM missing={}", q2,
                           mask_names(1u << b)));
          emit(fmt::format("query qpn={}", q2),
               fmt::format("query qpn={} status=OK valid=1 state={} ", q2,
                           state_name(static_cast<uint32_t>(cur))));
        }
        ++qpn;
      }
    }
  }
  std::string out;
  const ScriptResult r = run(script, &out, 4);
  REQUIRE(r.error.empty());
  REQUIRE(r.mismatches == 0);
  const auto lines = lines_of(out);
  REQUIRE(lines.size() == line);
  for (const auto &[i, prefix] : expect) {
    INFO("script line " << i + 1 << ": " << lines_of(script)[i]);
    REQUIRE(starts_with(lines[i], prefix));
  }
  WARN(fmt::format("walk script: {} lines, {} answers checked against the kernel table", line,
                   expect.size()));
}

TEST_CASE("malformed script lines are errors naming their line", "[script]") {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"frobnicate qpn=1", "unknown word 'frobnicate'"},
      {"create qpn=0x10", "missing 'type='"},
      {"create qpn=0x10 type=XY", "'type' needs a number"},
      {"query qpn=banana", "'qpn' needs a number"},
      {"query qpn=-3", "non-negative"},
      {"query qpn", "expected key=value"},
      {"query qpn=1 qpn=2", "given twice"},
      {"query qpn=1 port=2", "'query' takes no 'port='"},
      {"modify qpn=0x10 mask=STATE|BOGUS state=INIT", "unknown mask word 'BOGUS'"},
      {"modify qpn=0x10 mask=STATE", "missing 'state='"},
      {"modify qpn=0x10 mask=STATE state=INIT port=1", "PORT is not in the mask"},
      {"modify qpn=0x10 mask=PORT port=300", "does not fit"},
      {"rx qpn=0x10 op=WRITE pos=ONLY", "missing 'psn='"},
      {"rx qpn=0x10 op=WRITE pos=SIDEWAYS psn=0", "unknown pos 'SIDEWAYS'"},
      {"tx qpn=0x10 op=READ npkts=0x1000000", "does not fit"},
      {"ack qpn=0x10 wqes=1", "missing 'reads='"},
      {"nak qpn=0x10 code=LOUD", "unknown code 'LOUD'"},
      {"dma_end qpn=0x10 epoch=256", "does not fit"},
      {"timeout qpn=0x10 psn=3", "'timeout' takes no 'psn='"},
      {"doorbell qpn=0x10 queue=xq n=4", "'queue' is sq or rq"},
      {"doorbell qpn=0x1000000 queue=sq n=4", "does not fit"},
      {"port_fault port=256", "does not fit"},
      {"port_fault", "missing 'port='"},
  };
  for (const auto &[text, msg] : bad) {
    const std::string script = "# comment\n\nsync\n" + text + "\nsync\n";
    std::string out;
    const ScriptResult r = run(script, &out);
    INFO(text);
    CHECK(r.error.find("line 4: ") == 0);
    CHECK(r.error.find(msg) != std::string::npos);
    CHECK(lines_of(out).size() == 1);  // stops at the bad line
  }
}

TEST_CASE("format_command output parses back to the same command", "[script]") {
  std::mt19937_64 rng(5);
  GoldenModel model;
  qpm::StimulusOptions so;
  so.illegal_rate = 0.5;
  RandomStimulus stim(rng, model, so);
  int checked = 0;
  for (int i = 0; i < 3000; ++i) {
    const Command c = stim.next();
    model.execute(c);
    if (c.op == Opcode::PortFault && !c.use_raw_op) continue;  // not a script word yet
    const std::string text = format_command(c);
    const auto op = parse_script_line(text, 1);
    REQUIRE(op);
    INFO(text);
    // Same bits on the port, except attributes outside the mask, which hardware ignores.
    // A directory of 64 entries (enough for QPN_LIMIT 4096): a model with the full
    // 2^18-entry directory costs milliseconds to build, six thousand times here.
    Config small;
    small.dir_entries = 64;
    GoldenModel a(small), b(small);
    CHECK(a.execute(c) == b.execute(op->cmd));
    CHECK(format_command(op->cmd) == text);
    ++checked;
  }
  CHECK(checked > 2500);
}
