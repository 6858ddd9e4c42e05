// The C++ view of the QPC (kQpcLayout) against the RTL struct qpm_pkg::qpc_t: every
// field at the same offset with the same width, and the fields tile 512 bits.
#include <verilated.h>

#include <catch2/catch.hpp>
#include <memory>
#include <random>
#include <vector>

#include "Vqpm_qpc_layout_probe.h"
#include "qpm_types.h"

using namespace qpm;

TEST_CASE("C++ QPC layout matches qpm_pkg::qpc_t field by field", "[layout]") {
  auto ctx = std::make_unique<VerilatedContext>();
  auto probe = std::make_unique<Vqpm_qpc_layout_probe>(ctx.get(), "TOP");
  probe->field_i = 0;
  probe->eval();
  const auto pos = qpc_field_positions();  // throws unless the widths add up to 512
  REQUIRE(probe->num_fields_o == pos.size());

  BitVec covered(kQpcBits);
  // The probe numbers fields least significant first; kQpcLayout lists them most first.
  for (size_t i = 0; i < pos.size(); ++i) {
    const FieldPos &f = pos[pos.size() - 1 - i];
    probe->field_i = static_cast<uint8_t>(i);
    probe->eval();
    BitVec rtl(kQpcBits);
    for (unsigned w = 0; w < kQpcBits / 32; ++w) rtl.words()[w] = probe->ones_o[w];
    BitVec cpp(kQpcBits);
    cpp.set(f.lsb, f.width, ~0ull);
    INFO("field " << f.name << " at bit " << f.lsb << ", " << f.width << " bits");
    CHECK(rtl == cpp);
    for (unsigned b = f.lsb; b < f.lsb + f.width; ++b) {
      REQUIRE(covered.get(b, 1) == 0);  // no overlap
      covered.set(b, 1, 1);
    }
  }
  for (unsigned w = 0; w < kQpcBits / 32; ++w) CHECK(covered.words()[w] == 0xffffffffu);
  probe->final();
}

TEST_CASE("QPC pack and unpack are inverse, byte 0 holds valid and state", "[layout]") {
  Qpc q;
  q.valid = 1;
  q.state = 3;
  q.qp_type = 2;
  q.qkey = 0xdeadbeef;
  q.epoch = 0x5a;
  q.next_send_psn = 0xabcdef;
  REQUIRE(unpack_qpc(pack_qpc(q)) == q);
  const auto bytes = qpc_bytes(q);
  // valid at bit 0, state at bits 3:1, qp_type at bits 6:4 (docs/qp-context.md)
  CHECK(bytes[0] == (1u | (3u << 1) | (2u << 4)));
}

// BitVec writes and reads a word at a time; every field of every port goes through it.
// Checked against the definition, bit by bit, at every offset and width up to 64,
// with the bits around the field left as they were.
TEST_CASE("BitVec set and get agree with a bit-by-bit reference", "[layout]") {
  std::mt19937_64 rng(5);
  for (unsigned lsb = 0; lsb < 70; ++lsb) {
    for (unsigned width = 1; width <= 64; ++width) {
      BitVec v(160);
      for (auto &w : v.words()) w = static_cast<uint32_t>(rng());
      const std::vector<uint32_t> before = v.words();
      const uint64_t value = rng();
      v.set(lsb, width, value);
      INFO("lsb " << lsb << " width " << width);
      for (unsigned b = 0; b < 160; ++b) {
        const bool got = (v.words()[b / 32] >> (b % 32)) & 1u;
        const bool want = (b >= lsb && b < lsb + width) ? ((value >> (b - lsb)) & 1u)
                                                        : ((before[b / 32] >> (b % 32)) & 1u);
        if (got != want) FAIL("bit " << b);
      }
      const uint64_t field = width == 64 ? value : value & ((1ull << width) - 1);
      CHECK(v.get(lsb, width) == field);
    }
  }
}
