// The harness checked against itself: each check here fails on the harness it replaced
// (commands taken from the driver's queue instead of the pins, a Verilator seed of 0, a
// final image that skipped invalid slots and the directory, a refused MAP_PAGE that
// stayed mapped in the memory checker, no valid/ready check on the command streams).
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "command_placer.h"
#include "port_codec.h"
#include "stream_checker.h"
#include "test_helpers.h"

using namespace qpm;
using namespace qpm::test;

TEST_CASE("decode_command reads back every field encode_command drove", "[harness]") {
  std::mt19937_64 rng(Catch::rngSeed());
  for (int i = 0; i < 500; ++i) {
    BitVec pins(kCmdBits);
    for (auto &w : pins.words()) w = static_cast<uint32_t>(rng());
    pins.words().back() &= 0xffffu;  // bits above kCmdBits stay zero
    const Command c = decode_command(pins);
    REQUIRE(encode_command(c) == pins);
  }
  Command raw;
  raw.use_raw_op = true;
  raw.raw_op = 0x7f;  // no such opcode
  raw.qpn = 0x123456;
  const Command back = decode_command(encode_command(raw));
  CHECK(back.use_raw_op);
  CHECK(back.opcode_byte() == 0x7f);
  Command known;
  known.op = Opcode::ModifyQp;
  CHECK_FALSE(decode_command(encode_command(known)).use_raw_op);
}

TEST_CASE("HandshakeChecker: valid dropped or payload changed before ready", "[harness]") {
  BitVec a(8), b(8);
  a.set(0, 8, 0x11);
  b.set(0, 8, 0x22);
  SECTION("a legal stream: held while not ready, then changed after the handshake") {
    HandshakeChecker h("s");
    h.sample(0, true, false, a);
    h.sample(1, true, false, a);
    h.sample(2, true, true, a);
    h.sample(3, true, true, b);
    h.sample(4, false, false, BitVec());
    CHECK(h.violations().empty());
    CHECK(h.handshakes() == 2);
    CHECK(h.stalls() == 2);
  }
  SECTION("valid withdrawn") {
    HandshakeChecker h("s");
    h.sample(0, true, false, a);
    h.sample(1, false, false, BitVec());
    REQUIRE(h.violations().size() == 1);
    CHECK(h.violations()[0].find("valid dropped") != std::string::npos);
  }
  SECTION("payload swapped") {
    HandshakeChecker h("s");
    h.sample(0, true, false, a);
    h.sample(1, true, true, b);
    REQUIRE(h.violations().size() == 1);
    CHECK(h.violations()[0].find("payload changed") != std::string::npos);
  }
}

TEST_CASE("Verilator seeds are never 0 and follow every bit of the run seed", "[harness]") {
  for (uint64_t s : {uint64_t{0}, uint64_t{1} << 31, uint64_t{1} << 32, ~uint64_t{0},
                     uint64_t{0x80000000}, uint64_t{0x7fffffff}}) {
    INFO("seed " << s);
    CHECK(verilator_seed(s) > 0);
    CHECK(verilator_seed(s) == verilator_seed(s));
  }
  CHECK(verilator_seed(0) != verilator_seed(uint64_t{1} << 31));
  CHECK(verilator_seed(5) != verilator_seed(5 + (uint64_t{1} << 40)));
}

TEST_CASE("the scoreboard judges the command that crossed the pins", "[harness]") {
  EnvOptions o;
  o.seed = 31;
  QpmEnv env(o);
  walk_to(env, 0x40, 2 /* RC */, QpState::Init);
  // port is 8 bits wide on the pins: 0x101 arrives as port 1, a valid value. A monitor
  // that took the driver's copy would predict BAD_PARAM for port 257 and mismatch.
  Command m = modify_cmd(0x40, attr::kPort, static_cast<uint32_t>(QpState::Init));
  m.port_num = 0x101;
  CHECK(env.execute(m).status == Status::Ok);
  CHECK(env.model().qpc(0x40).port == 1);
  CHECK(env.scoreboard().mismatches() == 0);
  CHECK(env.streams().cmd().handshakes() == env.scoreboard().checked());
  CHECK(env.streams().rsp().handshakes() == env.scoreboard().checked());
}

TEST_CASE("the final check sees invalid slots, the directory and refused MAP_PAGEs",
          "[harness]") {
  EnvOptions o;
  o.seed = 32;
  QpmEnv env(o);
  const uint32_t qpn = 3 * 64 + 5;
  REQUIRE(env.execute(create_cmd(qpn, 2)).status == Status::Ok);
  // A MAP_PAGE over page 3, which holds a valid QP, is refused: the target page must not
  // stay readable in the memory model's checker.
  Command map;
  map.op = Opcode::MapPage;
  map.dir_index = 3;
  map.page_address = 0x3f0000000;
  REQUIRE(env.execute(map).status == Status::ResBusy);
  CHECK_FALSE(env.memory().is_mapped(map.page_address, map.page_address + 4096));
  CHECK(env.memory().is_mapped(kFirstPage + 3 * 4096, kFirstPage + 4 * 4096));
  REQUIRE(env.execute(qpn_cmd(Opcode::DestroyQp, qpn)).status == Status::Ok);
  REQUIRE(env.final_check().empty());

  SECTION("a lost write-back of a DESTROY (memory still says valid)") {
    const uint64_t addr = *env.model().qpc_address(qpn);
    uint8_t byte0 = 0;
    env.memory().read_bytes(addr, &byte0, 1);
    byte0 |= 1;  // valid
    env.memory().write_bytes(addr, &byte0, 1);
    const auto problems = env.final_check();
    REQUIRE_FALSE(problems.empty());
    CHECK(problems[0].find("memory image") != std::string::npos);
  }
  SECTION("a directory entry that memory holds differently") {
    const uint8_t zero[8] = {};
    env.memory().write_bytes(kQptBase + 8 * 3, zero, 8);
    const auto problems = env.final_check();
    REQUIRE_FALSE(problems.empty());
    CHECK(problems[0].find("directory entry 3") != std::string::npos);
  }
}

TEST_CASE("CSR accesses with split AW/W and stalls on both sides", "[harness]") {
  EnvOptions o;
  o.seed = 33;
  o.csr_stall_prob = 0.5;
  o.map_all_pages = false;  // QPN_LIMIT stays writable
  QpmEnv env(o);
  for (int i = 0; i < 20; ++i) {
    env.write_csr(csr::kQpnLimit, 4096);
    CHECK(env.read_csr(csr::kQpnLimit) == 4096);
    CHECK(env.read_csr(csr::kId) == 0x51504d31u);
  }
  CHECK(env.csr_master().split_writes() > 0);
  CHECK_THROWS(env.read_csr(0x10c));  // past the last counter: SLVERR still reported
}

TEST_CASE("CSR writes: byte strobes, and write data taken at its own handshake", "[harness]") {
  EnvOptions o;
  o.seed = 34;
  o.csr_stall_prob = 0.6;   // W often comes first and waits for AW
  o.map_all_pages = false;  // QPT_BASE stays writable
  QpmEnv env(o);
  for (int i = 0; i < 10; ++i) {
    // The master drives garbage on W once W is taken: the slave must keep what it took.
    const uint32_t hi = 0x11223344u + static_cast<uint32_t>(i);
    env.write_csr(csr::kQptBaseHi, hi);
    REQUIRE(env.read_csr(csr::kQptBaseHi) == hi);
    // Byte lane 2 only.
    env.write_csr(csr::kQptBaseHi, 0xaabbccddu, 0x4);
    CHECK(env.read_csr(csr::kQptBaseHi) == ((hi & 0xff00ffffu) | 0x00bb0000u));
    // Lanes 0 and 3.
    env.write_csr(csr::kQptBaseHi, 0x66778899u, 0x9);
    CHECK(env.read_csr(csr::kQptBaseHi) == ((hi & 0x0000ff00u) | 0x00bb0000u | 0x66000099u));
  }
  CHECK(env.csr_master().split_writes() > 0);
}

// A fill that made a QP fatal goes into the model where the RTL had it: after the
// operations the QP cache answered before it (their answers may reach the port later,
// or be held behind a command), after a command that visited Execute before it, and
// before everything of the QP that came after. The first version ran it in the model in
// the cycle of the fill, ahead of operations the cache had already answered (2026-12-02,
// a WRITE the RTL accepted judged as dropped in ERR).
TEST_CASE("CommandPlacer runs a fatal fill where it landed among the QP's work", "[harness]") {
  GoldenModel model;
  std::vector<std::string> order;
  CommandPlacer placer(
      model,
      [&](uint64_t index, const Command &, const Qpc &, const Response &, const Response &) {
        order.push_back(fmt::format("cmd{}", index));
      },
      [&](const DpResponse &r) { order.push_back(fmt::format("op{}", r.tag)); },
      [](const Command &) {});
  placer.set_run_fatal([&](uint32_t qpn, bool write) {
    order.push_back(fmt::format("{}{:x}", write ? "wbfatal" : "fatal", qpn));
  });
  const uint32_t q = 0x42;
  auto op = [&](uint8_t tag) {
    DpResponse r;
    r.tag = tag;
    r.qpn = q;
    placer.on_op_answer(q, r);
  };
  Command query;
  query.op = Opcode::QueryQp;
  query.qpn = q;

  SECTION("operations the cache answered before the fill run first") {
    placer.on_cache_answer(q);
    placer.on_cache_answer(q);
    placer.on_fatal_fill(q);
    CHECK(placer.busy(q));
    CHECK(placer.fatal_fills(q) == 1);
    CHECK(placer.fatal_fills_run(q) == 0);
    placer.on_cache_answer(q);
    op(1);
    op(2);
    op(3);
    CHECK(order == std::vector<std::string>{"op1", "op2", "fatal42", "op3"});
    CHECK(placer.fatal_fills_run(q) == 1);
    CHECK(placer.idle());
  }
  SECTION("a command that visited Execute before the fill runs before it") {
    placer.on_accept(7, query);
    placer.on_cache_answer(q);
    placer.on_execute();
    placer.on_fatal_fill(q);
    op(1);
    CHECK(order == std::vector<std::string>{"op1"});  // the fill waits for the command
    placer.on_response(7, query, Response{}, false);
    CHECK(order == std::vector<std::string>{"op1", "cmd7", "fatal42"});
    CHECK(placer.idle());
  }
  SECTION("a command that reached Execute after the fill runs after it") {
    placer.on_accept(8, query);
    placer.on_fatal_fill(q);
    placer.on_execute();
    placer.on_response(8, query, Response{}, false);
    CHECK(order == std::vector<std::string>{"fatal42", "cmd8"});
    CHECK(placer.idle());
  }
  // Issue 27 item 3: a write-back given up is placed as a fill is, and run as a write.
  SECTION("a write-back given up is placed like a fill, and told apart from one") {
    placer.on_accept(9, query);
    placer.on_cache_answer(q);
    placer.on_execute();
    placer.on_fatal_fill(q, true);
    placer.on_cache_answer(q);
    placer.on_fatal_fill(q, false);
    CHECK(placer.fatal_fills(q) == 2);
    op(1);
    op(2);
    CHECK(order == std::vector<std::string>{"op1"});  // behind the command
    placer.on_response(9, query, Response{}, false);
    CHECK(order == std::vector<std::string>{"op1", "cmd9", "wbfatal42", "op2", "fatal42"});
    CHECK(placer.fatal_fills_run(q) == 2);
    CHECK(placer.idle());
  }
}
