// Packing of the command and response records to and from the bit vectors that cross
// qpm_top's ports. The field order mirrors qpm_pkg::cmd_t and qpm_pkg::rsp_t (declared
// most significant first); a wrong order shows up at once as mismatches in every test.
#pragma once

#include "qpm_types.h"

namespace qpm {

constexpr unsigned kCmdBits = 656;
constexpr unsigned kRspBits = 616;

BitVec encode_command(const Command &cmd);
// What crossed the pins, read back: decode_command(encode_command(c)) encodes to the same
// bits as c (an unknown opcode byte comes back as a raw opcode).
Command decode_command(const BitVec &bits);
Response decode_response(const BitVec &bits);

}  // namespace qpm
