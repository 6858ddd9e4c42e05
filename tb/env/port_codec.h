// Packing of the records that cross qpm_top's ports to and from the bit vectors of its
// pins: the command and response (qpm_pkg::cmd_t, rsp_t) and the datapath port's
// dp_req_t, dp_rsp_t, doorbell_t and eqe_t. Each field order mirrors the packed struct
// in rtl/qpm_pkg.sv (declared most significant first) and is written once, as a list
// that both directions walk: a wrong order shows up at once as mismatches in every
// test.
#pragma once

#include "datapath.h"
#include "flush.h"
#include "qpm_types.h"

namespace qpm {

constexpr unsigned kCmdBits = 656;
constexpr unsigned kRspBits = 616;
constexpr unsigned kDpReqBits = 154;    // dp_req_t
constexpr unsigned kDpRspBits = 127;    // dp_rsp_t
constexpr unsigned kDoorbellBits = 41;  // doorbell_t
constexpr unsigned kEqeBits = 38;       // eqe_t
constexpr unsigned kCqeBits = 73;       // cqe_t

BitVec encode_command(const Command &cmd);
// What crossed the pins, read back: decode_command(encode_command(c)) encodes to the same
// bits as c (an unknown opcode byte comes back as a raw opcode).
Command decode_command(const BitVec &bits);
Response decode_response(const BitVec &bits);

// Each field at its port width: a wider value is cut, as the pins would cut it.
// decode(encode(x)) gives x with every field cut to its width; an op code of 9..15 or
// a NAK code of 3 comes back as that number.
BitVec encode_dp_request(const DpRequest &req);
DpRequest decode_dp_request(const BitVec &bits);
BitVec encode_dp_response(const DpResponse &rsp);
DpResponse decode_dp_response(const BitVec &bits);
BitVec encode_doorbell(const Doorbell &db);
Doorbell decode_doorbell(const BitVec &bits);
BitVec encode_event(const Event &ev);
Event decode_event(const BitVec &bits);
BitVec encode_cqe(const Cqe &c);
Cqe decode_cqe(const BitVec &bits);

}  // namespace qpm
