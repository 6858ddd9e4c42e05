// The datapath compute blocks against the golden model's pure functions: qpm_dp_exec
// against dp_execute (and dp_mem_error_response), qpm_doorbell_exec against
// doorbell_execute (tb/model/datapath.h), on a million random cases each.
//
// The cases are biased towards the boundaries of every check of SPEC §6 (PSNs at and
// around the expected one and the half circle, counters at and next to their limits,
// queue indices at full and empty and across the 2^16 wrap, every state and type, QPs
// that do not exist, QPCs that could not be read), and each verdict and drop reason
// must be hit. Through tests/rtl/qpm_exec_probe.sv.
//
// Replay: the seed is printed; QPM_SEED=<seed> (or Catch2's --rng-seed <seed>) reruns
// the same cases, QPM_DP_CASES=<n> sets how many.
#include <verilated.h>

#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "Vqpm_exec_probe.h"
#include "datapath.h"
#include "flush.h"
#include "port_codec.h"
#include "qpm_types.h"
#include "verilated_ports.h"

using namespace qpm;

namespace {

constexpr uint32_t kRc = 2, kUc = 3, kUd = 4;
constexpr uint32_t kNumVerdicts = 13;

// One seed per run: QPM_SEED, else Catch2's --rng-seed, else a fresh one.
uint64_t run_seed() {
  static const uint64_t seed = []() -> uint64_t {
    if (const char *env = std::getenv("QPM_SEED"))
      return std::stoull(env, nullptr, 0);
    if (Catch::rngSeed() != 0)
      return uint64_t{Catch::rngSeed()};
    std::random_device rd;
    return (uint64_t{rd()} << 32) ^ rd();
  }();
  return seed;
}

size_t case_count() {
  if (const char *env = std::getenv("QPM_DP_CASES"))
    return std::stoull(env, nullptr, 0);
  return 1000000;
}

// ---------------------------------------------------------------------------------
// QPC <-> the probe's 512-bit ports, through the model's layout (kQpcLayout and
// qpc_field_positions, the same table pack_qpc and unpack_qpc walk), with the field
// positions computed once: pack_qpc searches the table by name for every field, which
// is too slow for millions of cases. The first cases check both against pack_qpc.
// ---------------------------------------------------------------------------------
class QpcPorts {
 public:
  QpcPorts() : pos_(qpc_field_positions()) {}

  template <typename Wide>
  void put(const Qpc &q, Wide &port) const {
    std::array<uint32_t, kQpcBits / 32> w{};
    for (size_t i = 0; i < pos_.size(); ++i) {
      insert(w, pos_[i].lsb, pos_[i].width, q.*kQpcLayout[i].member);
    }
    for (unsigned k = 0; k < w.size(); ++k)
      port[k] = w[k];
  }

  template <typename Wide>
  Qpc get(const Wide &port) const {
    std::array<uint32_t, kQpcBits / 32> w{};
    for (unsigned k = 0; k < w.size(); ++k)
      w[k] = port[k];
    Qpc q;
    for (size_t i = 0; i < pos_.size(); ++i) {
      q.*kQpcLayout[i].member = extract(w, pos_[i].lsb, pos_[i].width);
    }
    return q;
  }

 private:
  static uint64_t mask(unsigned width) {
    return width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  }
  static void insert(std::array<uint32_t, kQpcBits / 32> &w, unsigned lsb, unsigned width,
                     uint64_t value) {
    value &= mask(width);
    for (unsigned done = 0; done < width;) {
      const unsigned bit = lsb + done, word = bit / 32, off = bit % 32;
      const unsigned n = std::min(width - done, 32 - off);
      const uint32_t m = static_cast<uint32_t>(mask(n) << off);
      w[word] = (w[word] & ~m) | (static_cast<uint32_t>((value >> done) << off) & m);
      done += n;
    }
  }
  static uint32_t extract(const std::array<uint32_t, kQpcBits / 32> &w, unsigned lsb,
                          unsigned width) {
    uint64_t v = 0;
    for (unsigned done = 0; done < width;) {
      const unsigned bit = lsb + done, word = bit / 32, off = bit % 32;
      const unsigned n = std::min(width - done, 32 - off);
      v |= ((uint64_t{w[word]} >> off) & mask(n)) << done;
      done += n;
    }
    return static_cast<uint32_t>(v);
  }

  std::vector<FieldPos> pos_;
};

// ---------------------------------------------------------------------------------
// Random cases, biased towards every check's boundary
// ---------------------------------------------------------------------------------
class Gen {
 public:
  explicit Gen(uint64_t seed) : rng_(seed) {}

  uint32_t bits(unsigned width) {
    return width >= 32 ? static_cast<uint32_t>(rng_())
                       : static_cast<uint32_t>(rng_()) & ((1u << width) - 1);
  }
  uint32_t below(uint32_t n) { return std::uniform_int_distribution<uint32_t>(0, n - 1)(rng_); }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }
  template <typename T, size_t N>
  T pick(const std::array<T, N> &a) {
    return a[below(N)];
  }

  // A value near a boundary b (b-2 .. b+2) or anywhere, modulo 2^width.
  uint32_t around(uint32_t b, unsigned width) {
    const uint32_t m = width >= 32 ? ~0u : (1u << width) - 1;
    if (chance(0.8))
      return (b + below(5) - 2) & m;
    return bits(width);
  }

  // A queue gap (pi - ci mod 2^16): empty, one, small, near `full`, or any.
  uint32_t gap(uint32_t full) {
    switch (below(5)) {
      case 0:
        return 0;
      case 1:
        return 1;
      case 2:
        return below(8);
      case 3:
        return around(full, 16);
      default:
        return bits(16);
    }
  }
  // A queue index, across the 2^16 wrap in a fifth of the cases.
  uint32_t index() { return chance(0.2) ? around(0, 16) : bits(16); }

  // A counter at, next to, or away from its limit (5-bit fields).
  void counter(uint32_t &count, uint32_t &limit) {
    limit = chance(0.9) ? below(17) : bits(5);
    switch (below(5)) {
      case 0:
        count = 0;
        break;
      case 1:
        count = limit;
        break;
      case 2:
        count = limit == 0 ? 0 : limit - 1;
        break;
      case 3:  // above: a modify lowered the limit
        count = (limit + 1) & 31;
        break;
      default:
        count = bits(5);
        break;
    }
  }

  // The operation of the next case: RX_REQ, the one with the most checks, a third of
  // the time; now and then an opcode that names no operation (9..15).
  DpOp op() {
    if (chance(0.005))
      return static_cast<DpOp>(9 + below(7));
    if (chance(0.3))
      return DpOp::RxReq;
    return static_cast<DpOp>(below(9));
  }

  // A QPC for an operation: its states and types where the operation does something
  // most of the time, any state and type otherwise.
  Qpc qpc(DpOp op) {
    Qpc q = qpc();
    const bool requester =
        op == DpOp::RxAck || op == DpOp::Timeout || op == DpOp::RnrNak || op == DpOp::RxNak;
    if (op == DpOp::RxReq && chance(0.7))
      q.state = 2 + below(4);  // RTR, RTS, SQD, SQE
    if (op == DpOp::TxWqe && chance(0.6))
      q.state = 3;  // RTS
    if (requester && chance(0.6))
      q.state = 3 + below(2);  // RTS, SQD
    if (requester && chance(0.6))
      q.qp_type = kRc;
    return q;
  }

  Qpc qpc() {
    Qpc q;
    for (const auto &f : kQpcLayout)
      q.*f.member = bits(f.width);
    q.valid = 1;
    q.reserved = 0;
    q.state = chance(0.98) ? below(7) : 7;
    q.qp_type = chance(0.97) ? pick(std::array<uint32_t, 3>{kRc, kUc, kUd}) : bits(3);
    if (chance(0.5))
      q.access_flags = 0xf;
    q.expected_psn = chance(0.3) ? around(0, 24) : bits(24);
    q.next_send_psn = chance(0.3) ? around(0xffffff, 24) : bits(24);
    q.rx_msg_open = chance(0.5);
    q.rq_ci = index();
    q.rq_pi = (q.rq_ci + gap(1)) & 0xffff;
    // SQ: sq_ci, sq_issued, sq_pi in that order around the circle.
    q.sq_ci = index();
    q.sq_issued = (q.sq_ci + gap(1)) & 0xffff;
    q.sq_pi = (q.sq_issued + gap(1)) & 0xffff;
    counter(q.dest_rd_atomic_inflight, q.max_dest_rd_atomic);
    counter(q.rd_atomic_outstanding, q.max_rd_atomic);
    q.cur_retry_cnt = chance(0.4) ? 0 : bits(3);
    q.cur_rnr_retry = chance(0.4) ? 0 : bits(3);
    if (chance(0.2))
      q.rnr_retry = 7;
    q.dma_inflight = pick(std::array<uint32_t, 5>{0, 1, 254, 255, bits(8)});
    q.log_sq_size = chance(0.9) ? below(17) : bits(5);
    q.log_rq_size = chance(0.9) ? below(17) : bits(5);
    return q;
  }

  // A request for q, biased so that each of its op's checks fires and passes.
  DpRequest request(const Qpc &q, DpOp op) {
    DpRequest r;
    r.tag = static_cast<uint8_t>(bits(8));
    r.qpn = bits(24);
    r.op = op;
    r.cls = static_cast<MsgClass>(bits(2));
    r.pos = static_cast<PktPos>(bits(2));
    r.psn = bits(24);
    r.qkey = chance(0.7) ? q.qkey : bits(32);
    r.npkts = chance(0.8) ? below(64) : bits(24);
    r.wqes = static_cast<uint16_t>(bits(16));
    r.reads = static_cast<uint8_t>(bits(8));
    r.code = static_cast<NakCode>(bits(2));
    r.epoch = static_cast<uint8_t>(chance(0.8) ? q.epoch : bits(8));
    switch (r.op) {
      case DpOp::RxReq: {
        if (q.qp_type == kUd && chance(0.5)) {
          r.cls = MsgClass::Send;
          r.pos = PktPos::Only;
        }
        // The expected PSN, just ahead or behind, at the half circle, or anywhere.
        switch (below(6)) {
          case 0:
          case 1:
          case 2:
            r.psn = q.expected_psn;
            break;
          case 3:
            r.psn = around(q.expected_psn, 24);
            break;
          case 4:
            r.psn = around(q.expected_psn + (1u << 23), 24);
            break;
          default:
            break;
        }
        break;
      }
      case DpOp::RxAck: {
        const uint32_t out = (q.sq_issued - q.sq_ci) & 0xffff;
        switch (below(5)) {
          case 0:
            r.wqes = 0;
            break;
          case 1:
            r.wqes = static_cast<uint16_t>(out);
            break;
          case 2:
            r.wqes = static_cast<uint16_t>(out + 1);
            break;
          case 3:
            r.wqes = static_cast<uint16_t>(out == 0 ? 0 : below(out + 1));
            break;
          default:
            break;
        }
        switch (below(4)) {
          case 0:
            r.reads = 0;
            break;
          case 1:
            r.reads = static_cast<uint8_t>(q.rd_atomic_outstanding);
            break;
          case 2:
            r.reads = static_cast<uint8_t>(q.rd_atomic_outstanding + 1);
            break;
          default:
            break;
        }
        break;
      }
      default:
        break;
    }
    return r;
  }

  Doorbell doorbell(const Qpc &q) {
    Doorbell db;
    db.qpn = bits(24);
    db.rq = chance(0.5);
    // A count that fills the queue to exactly its size, one beyond, one short, or any.
    const uint32_t pi = db.rq ? q.rq_pi : q.sq_pi, ci = db.rq ? q.rq_ci : q.sq_ci;
    const uint32_t log_size = db.rq ? q.log_rq_size : q.log_sq_size;
    const uint64_t room = uint64_t{1} << log_size;
    const uint64_t used = (pi - ci) & 0xffff;
    const int64_t fill = static_cast<int64_t>(room) - static_cast<int64_t>(used);
    switch (below(4)) {
      case 0:
        db.count = 0;
        break;
      case 1:
        db.count = static_cast<uint16_t>(std::clamp<int64_t>(fill + below(3) - 1, 0, 0xffff));
        break;
      case 2:
        db.count = static_cast<uint16_t>(below(8));
        break;
      default:
        db.count = static_cast<uint16_t>(bits(16));
        break;
    }
    return db;
  }

  // Doorbell QPCs: each queue's fill spread over [0, 2^log_size] and beyond.
  void doorbell_queues(Qpc &q) {
    q.sq_ci = index();
    q.sq_pi = (q.sq_ci + gap(q.log_sq_size >= 16 ? 0xffff : 1u << q.log_sq_size)) & 0xffff;
    q.rq_ci = index();
    q.rq_pi = (q.rq_ci + gap(q.log_rq_size >= 16 ? 0xffff : 1u << q.log_rq_size)) & 0xffff;
  }

 private:
  std::mt19937_64 rng_;
};

// ---------------------------------------------------------------------------------
// Printing a case
// ---------------------------------------------------------------------------------
std::string qpc_text(const Qpc &q) {
  std::ostringstream os;
  int n = 0;
  for (const auto &f : kQpcLayout) {
    os << f.name << "=0x" << std::hex << q.*f.member << std::dec;
    os << (++n % 6 == 0 ? "\n    " : " ");
  }
  return os.str();
}

std::string qpc_diff(const Qpc &want, const Qpc &got) {
  std::ostringstream os;
  for (const auto &f : kQpcLayout) {
    if (want.*f.member != got.*f.member) {
      os << " " << f.name << ": model 0x" << std::hex << want.*f.member << " rtl 0x"
         << got.*f.member << std::dec;
    }
  }
  return os.str();
}

std::string request_text(const DpRequest &r) {
  std::ostringstream os;
  os << "op=" << r.op << "(" << unsigned(r.op) << ") tag=" << unsigned(r.tag) << " qpn=0x"
     << std::hex << r.qpn << std::dec << " cls=" << r.cls << " pos=" << r.pos << " psn=0x"
     << std::hex << r.psn << " qkey=0x" << r.qkey << std::dec << " npkts=" << r.npkts
     << " wqes=" << r.wqes << " reads=" << unsigned(r.reads) << " code=" << unsigned(r.code)
     << " epoch=" << unsigned(r.epoch);
  return os.str();
}

std::string event_text(const std::optional<Event> &e) {
  if (!e)
    return "none";
  std::ostringstream os;
  os << *e;
  return os.str();
}

// ---------------------------------------------------------------------------------
// The probe
// ---------------------------------------------------------------------------------
struct Probe {
  std::unique_ptr<VerilatedContext> ctx = std::make_unique<VerilatedContext>();
  std::unique_ptr<Vqpm_exec_probe> top;
  QpcPorts ports;

  explicit Probe(uint64_t seed) {
    ctx->fatalOnError(false);  // an assertion (unique case) fails the test, not abort
    ctx->randReset(2);
    ctx->randSeed(static_cast<int>(seed & 0x7fffffff));
    top = std::make_unique<Vqpm_exec_probe>(ctx.get(), "TOP");
  }
  ~Probe() { top->final(); }

  struct DpResult {
    DpResponse rsp;
    Qpc after;
    bool write = false;
    std::optional<Event> event;
  };

  // The request, response, event and doorbell cross as qpm_pkg structs, packed by the
  // harness's port codecs (tb/env/port_codec.h): each field cut to its port width.
  DpResult dp(const Qpc &before, bool exists, bool mem_err, const DpRequest &r) {
    copy_to_port(encode_dp_request(r), top->req_i);
    top->exists_i = exists;
    top->mem_err_i = mem_err;
    ports.put(before, top->qpc_i);
    top->eval();
    DpResult out;
    out.rsp = decode_dp_response(copy_from_port(top->rsp_o, kDpRspBits));
    out.after = ports.get(top->qpc_o);
    out.write = top->write_o;
    if (top->event_valid_o) out.event = decode_event(copy_from_port(top->event_o, kEqeBits));
    return out;
  }

  struct FlushStep {
    Qpc after;
    bool write = false;
    std::optional<Cqe> cqe;
    bool more = false;
  };
  FlushStep flush_step(uint32_t qpn, const Qpc &before, bool exists, bool mem_err) {
    top->fl_qpn_i = qpn;
    top->fl_exists_i = exists;
    top->fl_mem_err_i = mem_err;
    top->fl_ev_ok_i = 0;  // completions only: events are stepped in test_events
    top->fl_cqe_ok_i = 1;
    ports.put(before, top->fl_qpc_i);
    top->eval();
    FlushStep out;
    out.after = ports.get(top->fl_qpc_o);
    out.write = top->fl_write_o;
    out.more = top->fl_more_o;
    if (top->fl_cqe_valid_o) out.cqe = decode_cqe(copy_from_port(top->fl_cqe_o, kCqeBits));
    return out;
  }

  DoorbellOutcome doorbell(const Qpc &before, bool exists, const Doorbell &db) {
    copy_to_port(encode_doorbell(db), top->db_i);
    top->db_exists_i = exists;
    ports.put(before, top->db_qpc_i);
    top->eval();
    return DoorbellOutcome{top->db_refused_o != 0, ports.get(top->db_qpc_o)};
  }
};

void print_seed(const char *what, uint64_t seed, size_t cases) {
  std::cout << what << ": " << cases << " cases, seed " << seed << " (replay: QPM_SEED=" << seed
            << ")" << std::endl;
}

}  // namespace

TEST_CASE("qpm_dp_exec matches the golden model on random operations", "[dp_exec]") {
  const uint64_t seed = run_seed();
  const size_t cases = case_count();
  print_seed("dp_exec", seed, cases);
  Gen gen(seed);
  Probe probe(seed);

  std::array<uint64_t, kNumVerdicts> verdicts{};
  std::array<uint64_t, kNumDropReasons> drops{};
  std::array<uint64_t, 11> events{};
  uint64_t writes = 0, mismatches = 0;
  std::map<std::string, uint64_t> mismatch_kinds;
  constexpr uint64_t kMaxPrinted = 5;

  for (size_t i = 0; i < cases; ++i) {
    const DpOp op = gen.op();
    const Qpc before = gen.qpc(op);
    const bool exists = gen.chance(0.95);
    const bool mem_err = gen.chance(0.02);
    const DpRequest req = gen.request(before, op);

    if (i < 1000) {  // the cached field positions against the model's own pack_qpc
      BitVec fast(kQpcBits);
      probe.ports.put(before, fast.words());
      REQUIRE(fast == pack_qpc(before));
    }

    // The expectation: the model's pure function, or its memory-error response.
    DpOutcome want;
    if (mem_err) {
      want = DpOutcome{dp_mem_error_response(req), before, std::nullopt};
    } else {
      want = dp_execute(before, exists, req);
    }
    const Probe::DpResult got = probe.dp(before, exists, mem_err, req);

    std::string why;
    if (probe.ctx->gotError())
      why += " [RTL assertion failed]";
    if (got.rsp != want.rsp)
      why += " [response]";
    if (got.event != want.event)
      why += " [event]";
    if (got.after != want.after)
      why += " [qpc_o]";
    if (want.after != before && !got.write)
      why += " [write_o is 0 but the QPC changed]";

    ++verdicts[static_cast<size_t>(want.rsp.verdict) % kNumVerdicts];
    ++drops[static_cast<size_t>(want.rsp.drop) % kNumDropReasons];
    if (want.event)
      ++events[static_cast<size_t>(want.event->type) % events.size()];
    writes += got.write;

    if (!why.empty()) {
      std::ostringstream kind;
      kind << req.op << ": model " << want.rsp.verdict << "/" << want.rsp.drop << ", rtl "
           << got.rsp.verdict << "/" << got.rsp.drop << why;
      ++mismatch_kinds[kind.str()];
      if (++mismatches <= kMaxPrinted) {
        std::cout << "MISMATCH at case " << i << ":" << why << "\n"
                  << "  exists=" << exists << " mem_err=" << mem_err << "\n"
                  << "  request: " << request_text(req) << "\n"
                  << "  qpc before:\n    " << qpc_text(before) << "\n"
                  << "  model: " << want.rsp << " event " << event_text(want.event) << "\n"
                  << "  rtl:   " << got.rsp << " event " << event_text(got.event)
                  << " write_o=" << got.write << "\n"
                  << "  qpc after, model vs rtl:" << qpc_diff(want.after, got.after) << "\n"
                  << "  replay: QPM_SEED=" << seed << " QPM_DP_CASES=" << (i + 1) << "\n";
      }
      if (probe.ctx->gotError())
        break;  // the context stops evaluating after an error
    }
  }

  std::cout << "verdicts:";
  for (size_t v = 0; v < kNumVerdicts; ++v) {
    std::cout << " " << static_cast<Verdict>(v) << "=" << verdicts[v];
  }
  std::cout << "\ndrop reasons:";
  for (size_t d = 0; d < kNumDropReasons; ++d) {
    std::cout << " " << static_cast<DropReason>(d) << "=" << drops[d];
  }
  std::cout << "\nevents:";
  for (auto t :
       {EventType::QpReqErr, EventType::QpAccessErr, EventType::CommEst, EventType::SqDrained}) {
    std::cout << " " << t << "=" << events[static_cast<size_t>(t)];
  }
  std::cout << "\nwrites: " << writes << ", mismatches: " << mismatches << std::endl;
  for (const auto &[kind, n] : mismatch_kinds) {
    std::cout << "  " << n << " x " << kind << std::endl;
  }

  CHECK(mismatches == 0);
  if (cases < 100000)
    return;  // a short replay of a mismatch: no coverage goal
  // Every verdict, every drop reason and every event the datapath raises, many times.
  const uint64_t many = cases / 20000;  // 50 in a million
  for (size_t v = 0; v < kNumVerdicts; ++v) {
    INFO("verdict " << static_cast<Verdict>(v));
    CHECK(verdicts[v] > many);
  }
  for (size_t d = 0; d < kNumDropReasons; ++d) {
    INFO("drop reason " << static_cast<DropReason>(d));
    CHECK(drops[d] > many);
  }
  for (auto t :
       {EventType::QpReqErr, EventType::QpAccessErr, EventType::CommEst, EventType::SqDrained}) {
    INFO("event " << t);
    CHECK(events[static_cast<size_t>(t)] > many);
  }
}

TEST_CASE("qpm_doorbell_exec matches the golden model on random doorbells", "[dp_exec]") {
  const uint64_t run = run_seed();
  const size_t cases = case_count();
  print_seed("doorbell_exec", run, cases);
  const uint64_t seed = run ^ 0xd00bull;  // not the operations' cases
  Gen gen(seed);
  Probe probe(seed);

  // Outcomes: [queue][refused], and the overflow boundary: filled exactly to the size
  // (posted) and one beyond it (refused), in a state that allows posting.
  std::array<std::array<uint64_t, 2>, 2> outcomes{};
  uint64_t exactly_full = 0, one_beyond = 0, mismatches = 0;
  constexpr uint64_t kMaxPrinted = 5;

  for (size_t i = 0; i < cases; ++i) {
    Qpc before = gen.qpc();
    gen.doorbell_queues(before);
    const bool exists = gen.chance(0.95);
    const Doorbell db = gen.doorbell(before);

    const DoorbellOutcome want = doorbell_execute(before, exists, db);
    const DoorbellOutcome got = probe.doorbell(before, exists, db);

    std::string why;
    if (probe.ctx->gotError())
      why += " [RTL assertion failed]";
    if (got.refused != want.refused)
      why += " [refused]";
    if (got.after != want.after)
      why += " [qpc_o]";

    ++outcomes[db.rq][want.refused];
    const uint32_t pi = db.rq ? before.rq_pi : before.sq_pi;
    const uint32_t ci = db.rq ? before.rq_ci : before.sq_ci;
    const uint32_t log_size = db.rq ? before.log_rq_size : before.log_sq_size;
    const uint64_t total = uint64_t{(pi - ci) & 0xffff} + db.count;
    const bool state_ok = exists && before.state != 0 && (db.rq || before.state > 2);
    if (state_ok && total == (uint64_t{1} << log_size))
      exactly_full += !want.refused;
    if (state_ok && total == (uint64_t{1} << log_size) + 1)
      one_beyond += want.refused;

    if (!why.empty() && ++mismatches <= kMaxPrinted) {
      std::cout << "MISMATCH at doorbell " << i << ":" << why << "\n"
                << "  exists=" << exists << " queue=" << (db.rq ? "rq" : "sq")
                << " count=" << db.count << " qpn=0x" << std::hex << db.qpn << std::dec
                << "\n  qpc before:\n    " << qpc_text(before) << "\n"
                << "  model refused=" << want.refused << " rtl refused=" << got.refused
                << "\n  qpc after, model vs rtl:" << qpc_diff(want.after, got.after) << "\n"
                << "  replay: QPM_SEED=" << run << " QPM_DP_CASES=" << (i + 1) << "\n";
    }
    if (probe.ctx->gotError())
      break;
  }

  std::cout << "doorbells: sq posted=" << outcomes[0][0] << " refused=" << outcomes[0][1]
            << ", rq posted=" << outcomes[1][0] << " refused=" << outcomes[1][1]
            << ", filled exactly=" << exactly_full << ", one beyond=" << one_beyond
            << ", mismatches: " << mismatches << std::endl;
  CHECK(mismatches == 0);
  if (cases < 100000)
    return;  // a short replay of a mismatch: no coverage goal
  const uint64_t many = cases / 20000;
  for (int q = 0; q < 2; ++q) {
    CHECK(outcomes[q][0] > many);
    CHECK(outcomes[q][1] > many);
  }
  CHECK(exactly_full > many);
  CHECK(one_beyond > many);
}

// qpm_flush_exec, one step at a time, against the model's flush of everything at once
// (docs/errors.md): repeated on its own output until it answers "no more", the RTL must
// produce exactly the model's completions and end in the model's QPC.
TEST_CASE("qpm_flush_exec step by step matches the golden model's flush", "[dp_exec][flush]") {
  const uint64_t run = run_seed();
  const size_t cases = std::max<size_t>(case_count() / 20, 1);
  print_seed("flush_exec", run, cases);
  const uint64_t seed = run ^ 0xf105bull;
  Gen gen(seed);
  Probe probe(seed);
  uint64_t mismatches = 0, completions = 0, failing_first = 0, owed_nothing = 0;
  constexpr uint64_t kMaxPrinted = 5;
  const std::array<uint32_t, 4> states = {static_cast<uint32_t>(QpState::Err),
                                          static_cast<uint32_t>(QpState::Err),
                                          static_cast<uint32_t>(QpState::Sqe), 0};
  for (size_t i = 0; i < cases; ++i) {
    Qpc q = gen.qpc();
    q.valid = 1;
    q.state = gen.pick(states);
    if (q.state == 0) q.state = gen.below(7);
    q.sq_ci = gen.bits(16);
    q.sq_pi = (q.sq_ci + gen.below(12)) & 0xffff;
    q.sq_issued = (q.sq_ci + gen.below(((q.sq_pi - q.sq_ci) & 0xffff) + 1)) & 0xffff;
    if (q.state == static_cast<uint32_t>(QpState::Sqe)) q.sq_issued = (q.sq_ci + gen.below(12)) & 0xffff;
    q.rq_ci = gen.bits(16);
    q.rq_pi = (q.rq_ci + gen.below(12)) & 0xffff;
    q.sq_err_pending = gen.chance(0.5);
    q.err_syndrome = gen.below(10);
    const uint32_t qpn = gen.bits(24);
    const bool mem_err = gen.chance(0.02);

    const FlushOutcome want = flush_execute(qpn, q);
    std::vector<Cqe> got;
    Qpc cur = q;
    std::string why;
    if (mem_err) {
      // The QPC was not read: nothing changes, no completion, try again.
      const Probe::FlushStep st = probe.flush_step(qpn, q, true, true);
      if (st.write || st.cqe || !st.more) why += " [memory error: must retry, change nothing]";
    } else {
      for (int n = 0; n < 40; ++n) {
        const Probe::FlushStep st = probe.flush_step(qpn, cur, true, false);
        if (st.cqe) got.push_back(*st.cqe);
        if (st.write != st.cqe.has_value()) why += " [write without a completion or back]";
        cur = st.after;
        if (!st.more) break;
      }
      if (got != want.cqes) why += " [completions]";
      if (cur != want.after) why += " [qpc after]";
    }
    if (probe.ctx->gotError()) why += " [RTL assertion failed]";
    completions += want.cqes.size();
    owed_nothing += want.cqes.empty();
    failing_first += !want.cqes.empty() && want.cqes[0].status != WcStatus::WrFlushErr;
    if (!why.empty() && ++mismatches <= kMaxPrinted) {
      std::cout << "MISMATCH at flush " << i << ":" << why << "\n  qpc before:\n    "
                << qpc_text(q) << "\n  model " << want.cqes.size() << " completions, rtl "
                << got.size() << "\n  qpc after, model vs rtl:" << qpc_diff(want.after, cur)
                << "\n  replay: QPM_SEED=" << run << " QPM_DP_CASES=" << (i + 1) * 20 << "\n";
    }
    if (probe.ctx->gotError()) break;
  }
  std::cout << "flushes: completions=" << completions << " failing_first=" << failing_first
            << " owed_nothing=" << owed_nothing << ", mismatches: " << mismatches << std::endl;
  CHECK(mismatches == 0);
  if (cases < 1000) return;
  CHECK(completions > cases);
  CHECK(failing_first > cases / 20);
  CHECK(owed_nothing > cases / 20);
}
