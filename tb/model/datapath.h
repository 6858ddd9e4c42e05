// The golden model of the datapath port: SPEC.md §6 (with §3.1 and §5) as read by
// docs/datapath.md. One operation on one QPC is a pure function: the verdict with the
// fields the engines need, the QPC after it, and the event it raises, if any. Doorbells
// likewise. GoldenModel (golden_model.h) applies these to the QP table it holds.
//
// The types mirror the RTL port types of rtl/qpm_pkg.sv (dp_req_t, dp_rsp_t, doorbell_t,
// eqe_t): the same codes, the fields at the port's widths (a request field wider than
// its port field is cut to the port width before use, as the port would).
//
// Written from the spec only, never from the RTL.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "qpm_types.h"

namespace qpm {

// Encodings of docs/datapath.md "Port encodings".
enum class DpOp : uint8_t {
  RxReq = 0,
  RxRespDone,
  TxWqe,
  RxAck,
  Timeout,
  RnrNak,
  RxNak,
  DmaBegin,
  DmaEnd
};
enum class MsgClass : uint8_t { Send = 0, Write, Read, Atomic };
enum class PktPos : uint8_t { First = 0, Middle, Last, Only };
enum class NakCode : uint8_t { Access = 0, Invalid, Operation };  // 3 reads as Operation
enum class Verdict : uint8_t {
  Accept = 0,
  Duplicate,
  Drop,
  NakSeq,
  NakAccess,
  NakInvalid,
  Rnr,
  Issue,
  Stall,
  Empty,
  LocalErr,
  Retry,
  Fatal
};
enum class DropReason : uint8_t {
  None = 0,
  NoQp,
  State,
  Type,
  Opcode,
  Qkey,
  Psn,
  Seq,
  Access,
  NoWqe,
  Count,
  Stale,
  MemErr,
  Quiesce
};
constexpr int kNumDropReasons = 14;
// enum ibv_event_type values.
enum class EventType : uint8_t {
  QpFatal = 1,
  QpReqErr = 2,
  QpAccessErr = 3,
  CommEst = 4,
  SqDrained = 5,
  PortErr = 10
};

// err_syndrome / EQE syndrome codes (docs/datapath.md table).
namespace syndrome {
constexpr uint8_t kNone = 0;
constexpr uint8_t kNakAccess = 1;    // RX_REQ NAK_ACCESS         -> ERR, QP_ACCESS_ERR
constexpr uint8_t kNakInvalid = 2;   // RX_REQ NAK_INVALID        -> ERR, QP_REQ_ERR
constexpr uint8_t kRetryExc = 3;     // TIMEOUT, no retries left  -> ERR
constexpr uint8_t kRnrRetryExc = 4;  // RNR_NAK, no retries left  -> ERR
constexpr uint8_t kRemAccess = 5;    // RX_NAK ACCESS             -> ERR
constexpr uint8_t kRemInvReq = 6;    // RX_NAK INVALID            -> ERR
constexpr uint8_t kRemOp = 7;        // RX_NAK OPERATION          -> ERR
constexpr uint8_t kLocQpOp = 8;      // UC/UD TX_WQE READ/ATOMIC  -> SQE
constexpr uint8_t kPortFault = 9;    // PORT_FAULT                -> ERR, QP_FATAL
constexpr uint8_t kMemFatal = 10;    // its QPC could not be read -> ERR, QP_FATAL
constexpr uint8_t kWbFatal = 11;     // its QPC could not be written (a write-back given up)
}  // namespace syndrome

// One request of the datapath port (dp_req_t). Fields an operation does not use are
// ignored. Port widths: qpn 24, psn 24, npkts 24, code 2.
struct DpRequest {
  uint8_t tag = 0;
  uint32_t qpn = 0;
  DpOp op = DpOp::RxReq;
  MsgClass cls = MsgClass::Send;   // RX_REQ, TX_WQE
  PktPos pos = PktPos::Only;       // RX_REQ
  uint32_t psn = 0;                // RX_REQ
  uint32_t qkey = 0;               // RX_REQ (UD)
  uint32_t npkts = 0;              // TX_WQE
  uint16_t wqes = 0;               // RX_ACK
  uint8_t reads = 0;               // RX_ACK
  NakCode code = NakCode::Access;  // RX_NAK
  uint8_t epoch = 0;               // DMA_BEGIN, DMA_END
};

// One response (dp_rsp_t). tag and qpn echo the request; drop is None unless the verdict
// is Drop; the other fields come from the QPC before the operation (all zero when the QP
// does not exist or its QPC could not be read). psn: RX_REQ expected_psn, every other
// operation next_send_psn (for TX_WQE ISSUE, the PSN of the WQE's first packet).
struct DpResponse {
  uint8_t tag = 0;
  uint32_t qpn = 0;
  Verdict verdict = Verdict::Drop;
  DropReason drop = DropReason::None;
  uint32_t psn = 0;
  uint8_t qp_type = 0;
  uint32_t dest_qpn = 0;
  uint16_t av_dlid = 0;
  uint8_t av_sl = 0;
  uint8_t av_sgid_index = 0;
  uint8_t epoch = 0;
  // Every field (C++17 has no defaulted comparison).
  bool operator==(const DpResponse &o) const;
  bool operator!=(const DpResponse &o) const { return !(*this == o); }
};

// One EQE (eqe_t): an asynchronous event of a QP (or of a port when is_port; qpn then
// holds the port number).
struct Event {
  bool is_port = false;
  uint32_t qpn = 0;
  EventType type = EventType::QpFatal;
  uint8_t syndrome = 0;
  bool operator==(const Event &o) const {
    return is_port == o.is_port && qpn == o.qpn && type == o.type && syndrome == o.syndrome;
  }
  bool operator!=(const Event &o) const { return !(*this == o); }
};

// One doorbell (doorbell_t): software posted count WQEs on the SQ (rq false) or RQ.
struct Doorbell {
  uint32_t qpn = 0;
  bool rq = false;
  uint16_t count = 0;
};

struct DpOutcome {
  DpResponse rsp;
  Qpc after;
  std::optional<Event> event;
};

// Pure function of one operation on one QPC. exists: QPN below the limit, page mapped and
// QPC valid; when false, `before` is ignored, the verdict is DROP/NO_QP with zero fields
// and after == before. `before` is taken at its QPC field widths; `after` keeps them.
DpOutcome dp_execute(const Qpc &before, bool exists, const DpRequest &req);

// A DROP with reason MEM_ERR: the QPC could not be read, so nothing is known or changed.
DpResponse dp_mem_error_response(const DpRequest &req);

struct DoorbellOutcome {
  bool refused = false;
  Qpc after;  // == before when refused
};
DoorbellOutcome doorbell_execute(const Qpc &before, bool exists, const Doorbell &db);

// A token: an operation about work its QP began earlier (a response done, an
// acknowledgement, a requester fault, a DMA bracket). It carries the epoch of the
// incarnation that began the work; another epoch's is DROP STALE (docs/reset.md).
bool dp_is_token(DpOp o);

// PSN arithmetic of SPEC §6, modulo 2^24.
constexpr uint32_t kPsnMask = (1u << 24) - 1;
// (psn - expected) mod 2^24 in [1, 2^23).
bool psn_ahead(uint32_t psn, uint32_t expected);
// Neither equal nor ahead.
bool psn_behind(uint32_t psn, uint32_t expected);

// Names as SPEC §13 and docs/datapath.md print them (RX_REQ, SEND, FIRST, ACCESS,
// NAK_SEQ, NO_QP, QP_ACCESS_ERR, ...). A value outside the enum prints as "UNKNOWN".
std::string to_string(DpOp v);
std::string to_string(MsgClass v);
std::string to_string(PktPos v);
std::string to_string(NakCode v);
std::string to_string(Verdict v);
std::string to_string(DropReason v);
std::string to_string(EventType v);

// The inverse of to_string: from_string<Verdict>("NAK_SEQ"); nullopt for an unknown name.
template <typename E>
std::optional<E> from_string(std::string_view name);
template <> std::optional<DpOp> from_string<DpOp>(std::string_view name);
template <> std::optional<MsgClass> from_string<MsgClass>(std::string_view name);
template <> std::optional<PktPos> from_string<PktPos>(std::string_view name);
template <> std::optional<NakCode> from_string<NakCode>(std::string_view name);
template <> std::optional<Verdict> from_string<Verdict>(std::string_view name);
template <> std::optional<DropReason> from_string<DropReason>(std::string_view name);
template <> std::optional<EventType> from_string<EventType>(std::string_view name);

// Readable test failures (Catch2 prints through these).
std::ostream &operator<<(std::ostream &os, DpOp v);
std::ostream &operator<<(std::ostream &os, MsgClass v);
std::ostream &operator<<(std::ostream &os, PktPos v);
std::ostream &operator<<(std::ostream &os, NakCode v);
std::ostream &operator<<(std::ostream &os, Verdict v);
std::ostream &operator<<(std::ostream &os, DropReason v);
std::ostream &operator<<(std::ostream &os, EventType v);
std::ostream &operator<<(std::ostream &os, const DpResponse &r);
std::ostream &operator<<(std::ostream &os, const Event &e);

}  // namespace qpm
