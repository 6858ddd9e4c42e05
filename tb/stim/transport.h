// A loopback transport model (SPEC §12, docs/verification.md "Transport traffic"): the
// transport engines of connected QP pairs on both ends of a fabric, played against one
// qpm_top.
//
// Each pair (RC, UC or UD) is brought up through real commands, then run as a NIC runs
// it: software posts send and receive WQEs by doorbells; the requester asks TX_WQE and,
// on ISSUE, sends the WQE's packets at the PSNs it was given; they cross the fabric
// (latency, loss, duplication, reordering) and become RX_REQ on the peer; the peer's
// answers become acknowledgements (RX_ACK with the WQEs and reads they really cover),
// read responses (RX_RESP_DONE on the responder), RNR NAKs, sequence NAKs and fatal NAKs
// back on the requester, and lost packets become TIMEOUTs. Payload DMAs begin and end
// in pairs around the packets that carry payload, with the epoch the QP had when they
// began. A pair that breaks (retries exhausted, a fatal NAK, a memory fault, a reset or
// PORT_FAULT by software) is quiesced, reset and brought up again through commands.
//
// The model decides only from what it has been answered (the verdicts, PSNs and epochs
// on the datapath port) and from what its own software did; it never reads the RTL or
// the golden model's state of a running QP. The golden model judges every answer, as
// for any other stimulus. All randomness comes from the generator it is given.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <queue>
#include <random>
#include <string>
#include <vector>

#include "datapath.h"
#include "qpm_types.h"

namespace qpm {

struct TransportOptions {
  uint32_t pairs = 48;          // connected QP pairs: 4 RC to 1 UC to 1 UD
  uint32_t fabric_min = 4;      // a packet's flight time, cycles, uniform in [min, max]
  uint32_t fabric_max = 40;
  double loss = 0.002;          // a packet lost on the fabric (NAK_SEQ, TIMEOUT, RETRY)
  double dup = 0.002;           // a packet delivered twice (DUPLICATE)
  double reorder = 0.002;       // a packet delayed behind the ones after it (NAK_SEQ)
  double peer_nak = 0.0003;     // the peer answers a fatal NAK instead of an ACK (RX_NAK)
  double short_rq = 0.15;       // QPs whose software posts receives late (RNR, NO_WQE)
  double bad_qkey = 0.01;       // a UD send with a wrong Q_Key
  double access_fault = 0.05;   // an RC QP brought up without one remote access flag
  double local_err = 0.001;     // a UC/UD READ posted (LOCAL_ERR, SQE)
  double read_share = 0.25;     // RC WQEs that are READ or ATOMIC
  double sqd_rate = 2e-6;       // per RC QP and cycle: software drains its SQ (RTS -> SQD
                                // with WQEs outstanding, then back to RTS)
  uint32_t timeout_cycles = 2000;  // the requester's transport timer
};

class TransportModel {
 public:
  // qpns: 2 * pairs QPNs the model owns (nothing else may send commands to them).
  // pending(qpn): whether a doorbell rung on qpn has not been applied yet (software
  // knows when its posting write has landed).
  TransportModel(std::mt19937_64 &rng, const std::vector<uint32_t> &qpns,
                 const TransportOptions &opt, std::function<bool(uint32_t)> pending);

  // What software knows of a QP from its own commands' answers: whether it exists, is
  // in RTS, and its epoch.
  struct QpStatus {
    bool exists = false, rts = false, sqd = false;
    uint8_t epoch = 0;
  };
  using QpView = std::function<QpStatus(uint32_t qpn)>;
  using QpnFilter = std::function<bool(uint32_t qpn)>;

  // Time: deliver packets that arrived, fire timers, post WQEs.
  void tick(uint64_t now);
  // Pairs that broke: once quiet (quiet(qpn): nothing of the QPN in flight anywhere),
  // their reset and bring-up commands are queued; once those are answered and both QPs
  // are in RTS, the pair runs again. At the start every pair is brought up this way.
  void maintain(const QpView &view, const QpnFilter &quiet);
  // The answer to one of this model's operations.
  void on_answer(const DpRequest &req, const DpResponse &rsp, uint64_t now);
  // Software did something to the QP outside the model that it knows breaks the pair (a
  // PORT_FAULT of its port): the pair is torn down and brought up again. (A reset beside
  // traffic is not announced: the engines learn it from the answers.)
  void software_broke(uint32_t qpn);
  // Software stops: no more WQEs are posted or started, no timer fires, no pair is
  // brought up again. What is on the fabric still arrives and every DMA ends.
  void stop();

  // The next operation to send, from a QP that usable(qpn) allows, or none.
  std::optional<DpRequest> next_op(const QpnFilter &usable);
  // The next doorbell software rings, from a QP that usable(qpn) allows, or none.
  std::optional<Doorbell> next_doorbell(const QpnFilter &usable);
  // The next bring-up command, for a QPN ready(qpn) allows.
  std::optional<Command> next_command(const QpnFilter &ready);

  // Software's command beside the traffic (--meet-rate), for a QP that runs with nothing
  // of its own software queued: a QUERY_QP, a MODIFY_QP RTS -> RTS that writes again the
  // access flags (RC, UC) or Q_Key (UD) the QP has (an RC QP's min_rnr_timer anew), or,
  // pin: an UNPIN_QP of a QP pinned here (pinned), else a PIN_QP. None otherwise.
  std::optional<Command> side_command(uint32_t qpn, bool pin, bool pinned);

  bool owns(uint32_t qpn) const;
  const std::vector<uint32_t> &qpns() const { return qpns_; }
  uint32_t port_of(uint32_t qpn) const;
  // Whether the QP runs, bound to a port other than port (a PORT_FAULT of port leaves
  // it alone).
  bool running_away_from(uint32_t qpn, uint32_t port) const;
  // Whether the model has nothing of its own queued (operations, packets, timers, DMAs).
  bool idle() const;
  size_t running_pairs() const;
  // What it still holds, for a timeout's message.
  std::string describe() const;

  struct Stats {
    uint64_t wqes_posted = 0, wqes_issued = 0, packets = 0, lost = 0, duplicated = 0,
             reordered = 0, retransmits = 0, acks = 0, recoveries = 0, dmas = 0;
    uint64_t reads_issued = 0, atomics_issued = 0, reads_acked = 0;  // RC READ/ATOMIC WQEs
    uint64_t sq_drains = 0;  // RTS -> SQD -> RTS with WQEs outstanding
  };
  const Stats &stats() const { return stats_; }

 private:
  static constexpr uint32_t kWindow = 12;      // RC WQEs started, not acknowledged, per QP
  static constexpr uint32_t kRnrDelay = 120;   // cycles before a resend after an RNR NAK
  static constexpr uint32_t kPeerGrace = 600;  // cycles a live end runs on after its peer broke
  static constexpr uint32_t kDmaCycles = 12;   // a payload DMA's length per packet
  static constexpr size_t kBacklog = 16;       // operations a pair may queue before it starts more
  // Software and the pairs' upkeep visit a pair every kPollStride cycles (a quarter of the
  // pairs per cycle): a driver polls, it does not watch every clock, and visiting every QP
  // in every cycle was a seventh of the checked model's time (docs/capacity.md).
  static constexpr size_t kPollStride = 4;
  static bool reads_memory(MsgClass c) { return c == MsgClass::Read || c == MsgClass::Atomic; }

  enum class PktKind : uint8_t { Req, Ack, SeqNak, RnrNak, FatalNak };
  struct Packet {
    PktKind kind = PktKind::Req;
    size_t dst = 0;             // QP index it arrives at
    uint32_t psn = 0;           // Req
    MsgClass cls = MsgClass::Send;
    PktPos pos = PktPos::Only;
    uint32_t qkey = 0;          // Req (UD)
    uint32_t msn = 0;           // Req, Ack: the requester's WQE number
    uint32_t incarnation = 0;   // the pair's bring-up when sent: older ones are dropped
    NakCode code = NakCode::Access;  // FatalNak
  };
  // An operation queued or sent, with what it is about (answers come per QPN in order).
  struct Op {
    DpRequest req;
    Packet pkt;  // RX_REQ: the packet; RX_RESP_DONE: pkt.msn
  };
  struct Wqe {
    uint32_t msn = 0, psn = 0, npkts = 1;
    MsgClass cls = MsgClass::Send;
  };
  struct Resp {  // a responder's answer to one message; they leave in order
    uint32_t msn = 0;
    bool ready = false;
  };
  // Running: the engines drive it. Draining: broken, only its DMAs end. Recovering: its
  // bring-up commands are queued or in flight.
  enum class Phase : uint8_t { Running, Draining, Recovering };
  // Software's SQ drain of a running RC QP (RTS -> SQD -> RTS): its operations are held
  // while each MODIFY_QP is in flight, so the model knows the order of both.
  enum class Drain : uint8_t { None, ToSqdWait, ToSqdSent, InSqd, ToRtsWait, ToRtsSent };
  // The fields software(), drain_step() and tick() read for every QP in every cycle
  // come first, on as few cache lines as they fit (the model's own state evicts them
  // between cycles).
  struct Qp {
    Phase phase = Phase::Draining;
    Drain drain = Drain::None;
    bool short_rq = false;
    bool retry_asked = false;  // TIMEOUT / RNR_NAK / RX_NAK sent, answer not in
    uint32_t qpn = 0;
    uint32_t type = 0, port = 1;
    uint32_t log_sq = 6, log_rq = 5;
    uint32_t tx_asks = 0;  // TX_WQE sent, not answered
    uint32_t acks_in_flight = 0;
    uint32_t dma_open = 0;  // DMA_BEGINs whose DMA_END is not answered
    size_t peer = 0;
    // Software's queues: WQEs posted, applied by the RTL (doorbell no longer pending),
    // started (ISSUE), completed (acknowledged; UC/UD at ISSUE); receives posted, used.
    uint64_t sq_posted = 0, sq_visible = 0, sq_started = 0, sq_done = 0;
    uint64_t rq_posted = 0, rq_used = 0;
    uint64_t next_rq_post = 0, next_tx = 0;
    uint64_t last_progress = 0;
    std::optional<Doorbell> db_in_flight;
    std::deque<Doorbell> doorbells;
    std::deque<Op> outbox;
    // Requester.
    std::deque<Wqe> unacked;
    std::optional<MsgClass> head_cls;  // the class of the next WQE to start
    uint32_t next_msn = 0, rd_out = 0;
    uint64_t path_free = 0;
    uint64_t broken_at = 0;
    uint8_t epoch = 0;
    uint32_t incarnation = 0;
    // Attributes of this bring-up.
    uint32_t access = 0, qkey = 0, max_rd = 1, max_dest_rd = 1, retry_cnt = 7, rnr_retry = 7;
    uint32_t sq_psn = 0;
    // Responder.
    std::deque<Resp> responses;
    bool nak_sent = false;
    std::deque<Op> sent;
  };
  struct Timed {
    enum Kind : uint8_t { Deliver, DmaEnd, Resend, RespDone };
    uint64_t at = 0, seq = 0;
    Kind kind = Deliver;
    size_t qp = 0;
    Packet pkt;
    uint8_t epoch = 0;
    bool operator>(const Timed &o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };

  size_t index(uint32_t qpn) const;
  // New attributes for the pair of QP a (even) and its peer.
  void choose_attributes(size_t a);
  std::vector<Command> bring_up(size_t i, const QpStatus &now) const;
  void start_running(size_t i, const QpStatus &st);
  void queue_op(size_t i, const DpRequest &r, const Packet &pkt);
  void queue_op(size_t i, const DpRequest &r);
  DpRequest plain(size_t i, DpOp op) const;
  void send_packet(size_t from, Packet p);
  void schedule(uint64_t at, Timed::Kind kind, size_t qp, const Packet &p, uint8_t epoch = 0);
  void fire(const Timed &t);
  void deliver(const Packet &p);
  void dma_begin(size_t i, uint32_t length);
  void send_wqe(size_t i, const Wqe &w);
  void resend(size_t i);
  void ack_arrived(size_t i, uint32_t msn);
  void emit_responses(size_t i);
  void software(size_t i);
  void break_qp(size_t i);
  // The SQ drain's steps for a running RC QP (Drain).
  void drain_step(size_t i, const QpView &view, const QpnFilter &quiet);
  void answer_requester(size_t i, const Op &op, const DpResponse &rsp);
  void answer_responder(size_t i, const Op &op, const DpResponse &rsp);
  bool running(size_t i) const { return qps_[i].phase == Phase::Running; }
  bool is_rc(size_t i) const { return qps_[i].type == static_cast<uint32_t>(QpType::RC); }
  bool is_ud(size_t i) const { return qps_[i].type == static_cast<uint32_t>(QpType::UD); }
  uint32_t pick(uint32_t lo, uint32_t hi);
  bool chance(double p);

  std::mt19937_64 &rng_;
  TransportOptions opt_;
  std::function<bool(uint32_t)> db_pending_;
  std::vector<uint32_t> qpns_;
  std::vector<Qp> qps_;
  std::vector<std::deque<Command>> pair_commands_;  // per pair, in order
  std::priority_queue<Timed, std::vector<Timed>, std::greater<Timed>> timed_;
  uint64_t seq_ = 0, now_ = 0;
  size_t rr_op_ = 0, rr_db_ = 0, rr_cmd_ = 0;
  bool stopping_ = false;
  Stats stats_;
};

}  // namespace qpm
