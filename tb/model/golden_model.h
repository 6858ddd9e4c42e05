// The golden reference model of qpm's command unit: SPEC.md §3.1, §3.2, §4, §5 as read
// by docs/state-machine.md and docs/qp-table.md. It predicts the response of every
// control-plane command and applies its effect to the QP table as the hardware keeps it
// in host memory: a directory of {valid, page_address} entries and 64-byte QPCs at the
// addresses the directory gives. The model has no cache (SPEC §3.3); the only trace of
// the cache it keeps is the set of pinned QPNs, which decides PIN_QP's RES_BUSY.
//
// Written from the spec only, never from the RTL: where the two disagree, the
// scoreboard reports it and the spec decides.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "datapath.h"
#include "flush.h"
#include "qpm_types.h"

namespace qpm {

class GoldenModel {
 public:
  // Throws std::invalid_argument unless qpn_limit <= dir_entries << page_bits,
  // page_bits <= 24, sets >= 1 and ways >= 1.
  explicit GoldenModel(const Config &cfg = Config{});

  // Predicts the response to cmd and applies its effect (none when not OK).
  // memory_error: a memory access the command makes (directory or QPC) answers with
  // an error. It matters to CREATE/MODIFY/QUERY/DESTROY/PIN/UNPIN that pass the limit
  // and mapped-page checks, and to MAP/UNMAP_PAGE that pass their parameter checks
  // (they read the directory entry and the old page's valid bits): they answer INT_ERR
  // (zero syndrome, zero QPC) and change nothing. Every other command ignores it.
  Response execute(const Command &cmd) { return execute(cmd, false); }
  Response execute(const Command &cmd, bool memory_error);

  // The QPC of qpn as memory holds it. All zeros (a static object) when qpn >=
  // qpn_limit or its page is unmapped; std::out_of_range when qpn >= dir_entries <<
  // page_bits. The reference stays valid until the next command or backdoor call.
  const Qpc &qpc(uint32_t qpn) const;

  // Where the QPC of qpn lives: nullopt when qpn >= qpn_limit or its page is unmapped.
  std::optional<uint64_t> qpc_address(uint32_t qpn) const;

  // Test backdoors, standing in for the datapath the model does not run yet.
  // force_state sets the state field only (e.g. to reach SQE, which only hardware
  // enters); force_qpc replaces the whole context (e.g. sq_issued != sq_ci to make an
  // SQD QP draining). Both store the fields masked to their QPC widths, and throw
  // std::out_of_range when qpn >= qpn_limit or its page is unmapped.
  void force_state(uint32_t qpn, QpState s);
  void force_qpc(uint32_t qpn, const Qpc &q);

  // One directory entry of the QP table (SPEC §3.2), index < dir_entries (else
  // std::out_of_range). Only indexes below qpn_limit >> page_bits can be mapped.
  struct DirEntry {
    bool valid = false;
    uint64_t page_address = 0;
  };
  const DirEntry &dir_entry(uint32_t index) const;

  // Whether PIN_QP pinned qpn (and no UNPIN_QP or DESTROY_QP undid it since).
  bool pinned(uint32_t qpn) const { return pinned_.count(qpn) != 0; }
  const std::set<uint32_t> &pinned_qpns() const { return pinned_; }

  // (address, QPC) of every valid QPC on a currently mapped page, in ascending address
  // order, each address once: what memory must hold after SYNC_CACHE. With valid_only
  // false, every slot of every mapped page, the invalid ones (never created, or
  // destroyed and keeping only their epoch) included.
  std::vector<std::pair<uint64_t, Qpc>> memory_qpcs(bool valid_only = true) const;

  const Config &config() const { return cfg_; }

  // The datapath port (SPEC §6, docs/datapath.md): predicts the response to one
  // operation and applies it to the QPC in memory, queueing the event it raises and
  // counting a DROP by its reason. The QP exists when qpn < qpn_limit, its page is mapped
  // and its QPC valid. memory_error: a read the operation makes (the directory entry, or
  // the QPC) answers an error; it matters only below qpn_limit, where memory is read even
  // for an unmapped page (the directory read is what tells hardware the page is
  // unmapped): DROP with MEM_ERR, zero fields, nothing changes.
  DpResponse datapath(const DpRequest &req, bool memory_error = false);
  // A doorbell (SPEC §6): true when accepted (pi += count), false when refused (counted,
  // nothing changes). memory_error as for datapath(): refused below qpn_limit.
  bool doorbell(const Doorbell &db, bool memory_error = false);
  // A read of the QPC at address addr failed (SPEC §8, docs/events.md "Memory faults"):
  // hardware reads it again, and the QP, if valid and in neither RESET nor ERR, goes to
  // ERR with QP_FATAL (syndrome kMemFatal) and is flushed. An address that is no QPN's
  // QPC (an unmapped page, past QPN_LIMIT) changes nothing. Returns the QPN it names.
  std::optional<uint32_t> qpc_read_failed(uint64_t addr);
  // A write-back of the QPC at address addr was given up (issue 27 item 3: memory
  // answered every try of its retry budget with an error; docs/events.md "Memory
  // faults"): the context is not lost (hardware keeps it), and the QP, if valid and in
  // neither RESET nor ERR, goes to ERR with QP_FATAL (syndrome kWbFatal) and is flushed,
  // exactly as qpc_read_failed. A QP in RESET or ERR, an invalid QPC, or an address that
  // is no QPN's QPC changes nothing and raises nothing. Returns the QPN it names.
  std::optional<uint32_t> qpc_write_failed(uint64_t addr);
  // Memory answered a write of the QPC at addr (error: SLVERR/DECERR). While the newest
  // write of a page's QPC stands refused, memory does not hold that context (hardware
  // keeps it, docs/qp-cache.md section 20), so MAP/UNMAP_PAGE of the page answer
  // RES_BUSY as for a page that holds a valid QP (docs/qp-table.md).
  void qpc_write_answered(uint64_t addr, bool error);
  // SPEC §10 (docs/reset.md): a MODIFY_QP to RESET or a DESTROY_QP that finds payload
  // DMAs in flight first fences its QP, and finishes (execute) once they have ended or a
  // timeout passed. The fence sets quiesce: every operation but DMA_END is DROPped with
  // QUIESCE and doorbells are refused; the reset clears it. When the fence goes up is a
  // matter of timing, so the harness calls this where the RTL's answers show it. A QP
  // that does not exist is left alone.
  void quiesce(uint32_t qpn);
  // The QPN whose QPC lives at addr (a mapped page, below QPN_LIMIT), else nullopt.
  std::optional<uint32_t> qpn_of_qpc_address(uint64_t addr) const;
  // The events raised since the last call, in order, and clears them: datapath events,
  // and SQ_DRAINED of a MODIFY_QP RTS->SQD that enters SQD with nothing outstanding and
  // en_sqd_async_notify set.
  std::vector<Event> take_events();
  // The completions of SPEC §7 since the last call, in order, and clears them: every
  // QP that entered ERR or SQE (a datapath verdict, a MODIFY to ERR) or took WQEs posted
  // in ERR completes at once every WQE it owes (flush.h).
  std::vector<Cqe> take_cqes();
  // DROPs answered so far with reason r (None: 0), and refused doorbells.
  uint64_t drops(DropReason r) const;
  uint64_t doorbells_refused() const { return doorbells_refused_; }
  // Resets (MODIFY_QP to RESET, DESTROY_QP) that completed with payload DMAs still in
  // flight: SPEC §10 completes a reset only once every DMA has ended or its timeout has
  // passed, so each of these is one the timeout forced.
  uint64_t resets_forced() const { return resets_forced_; }
  // PORT_FAULT: QPC slots scanned (every slot of every mapped page, QPN 0 and 1 and
  // those at or above the limit left out) and QPs moved to ERR, over all of them.
  uint64_t port_fault_scanned() const { return port_fault_scanned_; }
  uint64_t port_fault_moved() const { return port_fault_moved_; }

 private:
  Response create_qp(const Command &cmd);
  Response modify_qp(const Command &cmd);
  Response destroy_qp(const Command &cmd);
  Response pin_qp(const Command &cmd);
  Response unpin_qp(const Command &cmd);
  Response map_page(const Command &cmd, bool memory_error);
  Response unmap_page(const Command &cmd, bool memory_error);
  Response query_qp(const Command &cmd) const;
  Response port_fault(const Command &cmd);
  // qpc_read_failed and qpc_write_failed: a live QP at addr to ERR with QP_FATAL of
  // syndrome cause, flushed.
  std::optional<uint32_t> qpc_access_failed(uint64_t addr, uint8_t cause);
  // Completes every WQE qpn owes (flush_execute), queueing the CQEs.
  void flush(uint32_t qpn);

  // Directory entries software may map: qpn_limit >> page_bits.
  // Directory entries below QPN_LIMIT, a partial last page included.
  uint32_t usable_dir_entries() const {
    return static_cast<uint32_t>((uint64_t{cfg_.qpn_limit} + (uint64_t{1} << cfg_.page_bits) - 1) >>
                                 cfg_.page_bits);
  }
  // The QPC of the i-th slot of a page.
  uint64_t slot_address(uint64_t page_address, uint32_t slot) const;
  // Whether any QPC of the page at page_address is valid, or not in memory (its newest
  // write refused).
  bool page_in_use(uint64_t page_address) const;
  // The QPC in memory at address (all zeros when never written).
  const Qpc &load(uint64_t address) const;
  // The QPC of qpn for a backdoor write; throws when unmapped or out of range.
  Qpc &backdoor_slot(uint32_t qpn);
  // Valid QP at qpn (callers have checked the limit and the mapping).
  bool exists(uint32_t qpn) const { return qpc(qpn).valid != 0; }

  Config cfg_;
  std::vector<DirEntry> dir_;                   // dir_entries entries
  std::unordered_map<uint64_t, Qpc> memory_;    // QPCs by byte address; absent = zero
  std::set<uint32_t> pinned_;                   // QPNs pinned by PIN_QP
  std::set<uint64_t> refused_writes_;           // QPC addresses whose newest write failed
  std::vector<Event> events_;                   // raised, not yet taken
  std::vector<Cqe> cqes_;                       // completed, not yet taken
  std::array<uint64_t, kNumDropReasons> drops_{};
  uint64_t doorbells_refused_ = 0;
  uint64_t resets_forced_ = 0;
  uint64_t port_fault_scanned_ = 0, port_fault_moved_ = 0;
};

// Step 3 of MODIFY_QP: the REQUIRED bits of (qp_type, cur, next) absent from mask, and
// the bits of mask outside REQUIRED | OPTIONAL | STATE. bad_value is always 0. For a
// pair that is not a valid transition both sets are empty, so every bit but STATE is
// forbidden.
Syndrome check_modify_mask(uint32_t qp_type, uint32_t cur, uint32_t next, uint32_t mask);

// Step 4 of MODIFY_QP: the bits of cmd.attr_mask whose attribute value is out of range
// for cfg (docs/state-machine.md table). Bits without a value check (STATE, CUR_STATE,
// QKEY, CAP, RATE_LIMIT, reserved) never appear.
uint32_t bad_value_bits(const Command &cmd, const Config &cfg);

}  // namespace qpm
