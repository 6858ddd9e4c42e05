// Copying a BitVec to and from a port of a Verilated model: a port of up to 64 bits is
// a plain integer (CData .. QData), a wider one a VlWide of 32-bit words. Header-only and
// free of Verilator's headers, so any test top can use it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "qpm_types.h"

namespace qpm {

template <class W>
void copy_to_port(const BitVec &bits, W &port) {
  if constexpr (std::is_integral_v<W>) {
    port = static_cast<W>(bits.get(0, bits.bits()));
  } else {
    for (size_t i = 0; i < bits.words().size(); ++i)
      port[i] = bits.words()[i];
  }
}

template <class W>
BitVec copy_from_port(const W &port, unsigned bits) {
  BitVec v(bits);
  if constexpr (std::is_integral_v<W>) {
    v.set(0, bits, static_cast<uint64_t>(port));
  } else {
    for (size_t i = 0; i < v.words().size(); ++i)
      v.words()[i] = port[i];
  }
  return v;
}

}  // namespace qpm
