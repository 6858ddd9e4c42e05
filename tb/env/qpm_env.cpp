#include "qpm_env.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <stdexcept>

#include "port_codec.h"

namespace qpm {

const std::vector<const char *> kCounterNames = {
    "hits",         "misses",        "merged",        "evictions",   "writebacks",
    "walks",        "dir_hits",      "refused",       "mem_errors",  "miss_waits",
    "csr_refused",  "drop_no_qp",    "drop_state",    "drop_type",   "drop_opcode",
    "drop_qkey",    "drop_psn",      "drop_seq",      "drop_access", "drop_no_wqe",
    "drop_count",   "drop_stale",    "drop_mem_err",  "db_refused",  "events",
    "cqes",         "wqes_flushed",  "flush_overflows", "wb_retries",
    "fatal_overflows", "ev_qp_fatal", "ev_qp_req_err", "ev_qp_access_err", "ev_comm_est",
    "ev_sq_drained", "ev_port_err",  "eq_high_water", "pf_qpcs_read",  "pf_qps_moved",
    "trap_requests", "trap_timeouts", "trap_rejected", "trap_dropped", "trap_busy_cycles",
    "drop_quiesce", "resets_waited", "resets_forced", "wb_given_up", "take_backs",
    "lock_park_waits", "db_lock_park_waits"};

size_t counter_index(const std::string &name) {
  for (size_t i = 0; i < kCounterNames.size(); ++i) {
    if (name == kCounterNames[i]) return i;
  }
  throw std::logic_error("no counter " + name);
}

std::string drop_counter_name(DropReason r) {
  std::string name = "drop_" + to_string(r);
  for (char &c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

namespace {
constexpr uint64_t kPageBytes = 4096;
// The datapath agents' generator: a fixed function of the run seed, apart from rng_.
constexpr uint64_t kDpSeedSalt = 0x9d2c5680a5b6c3e1ull;
// The dead pages' choice: a fixed function of the run seed too.
constexpr uint64_t kDeadPageSeedSalt = 0x5eadfa9e0c1d2b37ull;
// From a retried QPC read's last beat to its fill in P1 (the AXI master, P0): a few
// cycles; far more means the fill never made the QP fatal.
constexpr uint64_t kFatalFillCycles = 64;
}

QpmEnv::QpmEnv(const EnvOptions &opt)
    : opt_(opt),
      rng_(opt.seed),
      dp_rng_(opt.seed ^ kDpSeedSalt),
      dead_rng_(opt.seed ^ kDeadPageSeedSalt),
      tb_(opt.config, opt.seed, opt.trace_path, opt.trace_from),
      model_([&] {
        Config c = tb_.config().params;
        if (opt.qpn_limit != 0) c.qpn_limit = opt.qpn_limit;
        return c;
      }()),
      memory_(rng_, opt.mem),
      csr_(rng_, opt.csr_stall_prob),
      scoreboard_(
          model_, [this] { return error_mark(); },
          [this](const Command &c, uint64_t since) { return error_could_hit(c, since); }),
      driver_(rng_, opt.cmd_idle_prob),
      cmd_monitor_([this](const Command &c) { on_accept(c); }),
      monitor_(rng_, [this](const Response &r) { on_response(r); }, opt.rsp_stall_prob),
      dp_scoreboard_(
          model_, events_),
      reset_fence_(model_,
                   [this](uint64_t i, const Command &c, const Qpc &before, const Response &e,
                          const Response &a) { scoreboard_.judge(i, c, before, e, a); }),
      placer_(
          model_,
          [this](uint64_t i, const Command &c, const Qpc &before, const Response &e,
                 const Response &a) {
            scoreboard_.judge(i, c, before, e, a);
            user_expected_ = e;
          },
          [this](const DpResponse &r) {
            dp_scoreboard_.on_response(r);
            release_tag(r.tag);
          },
          [this](const Command &c) { after_command(c); }),
      doorbells_(
          model_, opt.timeout_cycles),
      dp_driver_(dp_rng_, dp_request_pins(), opt.dp_idle_prob),
      dp_monitor_(dp_request_pins(),
                  [this](const BitVec &b) { dp_scoreboard_.on_accept(decode_dp_request(b)); }),
      dp_sink_(
          dp_rng_, dp_response_pins(),
          [this](const BitVec &b) { on_dp_response(decode_dp_response(b)); },
          opt.dp_rsp_stall_prob),
      db_driver_(dp_rng_, doorbell_pins(), opt.dp_idle_prob),
      db_monitor_(doorbell_pins(),
                  [this](const BitVec &b) { doorbells_.on_accept(decode_doorbell(b), tb_.cycles()); }),
      eqe_sink_(
          dp_rng_, eqe_pins(), [this](const BitVec &b) { events_.arrived(decode_event(b)); },
          opt.eqe_stall_prob),
      cqe_sink_(
          dp_rng_, cqe_pins(), [this](const BitVec &b) { cqes_.arrived(decode_cqe(b)); },
          opt.cqe_stall_prob),
      housekeeping_(*this) {
  dp_tag_qpn_.fill(-1);
  eqe_sink_.hold_after_each(opt.eqe_hold);
  scoreboard_.set_reset_fence(&reset_fence_, [this](uint32_t qpn) {
    return dp_scoreboard_.outstanding(qpn) != 0 || placer_.busy(qpn);
  });
  scoreboard_.set_placer(&placer_);
  dp_scoreboard_.set_reset_fence(&reset_fence_, [this](uint32_t qpn) { return placer_.busy(qpn); });
  dp_scoreboard_.set_doorbell_gate(
      [this] { return placer_.executions(); },
      [this](uint32_t qpn, uint64_t stamp) { return placer_.blocks_doorbell(qpn, stamp); });
  placer_.set_release_doorbells([this](uint32_t qpn) { dp_scoreboard_.recheck_doorbells(qpn); });
  dp_scoreboard_.set_fill_gate([this](uint32_t qpn) { return placer_.fatal_fills(qpn); },
                               [this](uint32_t qpn) { return placer_.fatal_fills_run(qpn); });
  placer_.set_run_fatal([this](uint32_t qpn, bool write) {
    const uint64_t addr = *model_.qpc_address(qpn);
    if (write) {
      model_.qpc_write_failed(addr);
    } else {
      model_.qpc_read_failed(addr);
      ++qps_made_fatal_;
    }
    for (const Event &e : model_.take_events()) {
      events_.expect(e, write ? "QPC_WRITE_GIVEN_UP" : "QPC_READ_ERROR");
    }
    take_model_cqes();
  });
  // With read errors a fill can make a QP fatal while a doorbell of it waits on that
  // fill, and with write errors a write-back given up can make it fatal while the
  // doorbell waits in the cache: the doorbell then goes into the model once answered
  // (after the fault).
  dp_scoreboard_.set_wait_for_execution(opt.mem.read_error_rate > 0.0 ||
                                        opt.mem.write_error_rate > 0.0 ||
                                        opt.mem_dead_pages > 0 || !opt.mem.dead_pages.empty());
  if (opt.doorbell_order_known) {
    doorbells_.set_order_known([this](const Doorbell &db) { db_to_front_.push_back(db); });
    dp_scoreboard_.set_doorbell_applied(
        [this](const Doorbell &db, bool refused) { doorbells_.on_applied(db, refused); });
  }
  tb_.add(&memory_);
  tb_.add(&csr_);
  tb_.add(&driver_);
  tb_.add(&cmd_monitor_);
  tb_.add(&monitor_);
  tb_.add(&dp_driver_);
  tb_.add(&dp_monitor_);
  tb_.add(&dp_sink_);
  tb_.add(&db_driver_);
  tb_.add(&db_monitor_);
  tb_.add(&eqe_sink_);
  tb_.add(&cqe_sink_);
  tb_.add(&streams_);
  tb_.add(&housekeeping_);
  if (opt.evict_policy == 3) {
    trap_agent_ = std::make_unique<TrapAgent>(opt.trap, tb_.config().params.sets,
                                              tb_.config().params.ways);
    tb_.add(trap_agent_.get());
  }
  memory_.set_observer([this](char dir, uint64_t addr, bool error, uint32_t id) {
    const bool directory = directory_address(addr);
    if (dir == 'R') {
      // The maintenance engine (MAP/UNMAP_PAGE) uses the ID after the miss registers.
      if (id >= tb_.config().mshrs) {
        ++traffic_.maint_reads;
        if (error) ++traffic_.maint_read_errors;
        return;
      }
      ++(directory ? traffic_.dir_reads : traffic_.qpc_reads);
      if (error) ++(directory ? traffic_.dir_read_errors : traffic_.qpc_read_errors);
      // A walk's directory read of an unmapped entry ends the walk (no MAP/UNMAP runs
      // beside a walk, so the model's directory is memory's at this point).
      if (directory && !error && !model_.dir_entry(static_cast<uint32_t>((addr - kQptBase) / 8)).valid) {
        ++traffic_.dir_reads_unmapped;
      }
    } else {
      ++(directory ? traffic_.dir_writes : traffic_.qpc_writes);
      if (error) {
        ++traffic_.write_errors;
        ++(directory ? traffic_.dir_write_errors : traffic_.qpc_write_errors);
      }
    }
  });
  memory_.set_read_done_observer(
      [this](uint64_t addr, bool error, uint32_t id) { on_qpc_read_done(addr, error, id); });
  memory_.set_write_done_observer(
      [this](uint64_t addr, bool error, uint32_t) { on_write_done(addr, error); });
  tb_.dut().set_mem_in(AxiSlaveOut{});
  tb_.dut().set_csr_in(AxiLiteMasterOut{});
  tb_.reset();

  // Software's side of SPEC §3.2: the directory lives at kQptBase; QPN_LIMIT from config.
  const Config &cfg = model_.config();
  memory_.map_region(kQptBase, uint64_t{cfg.dir_entries} * 8);
  write_csr(csr::kQptBaseLo, static_cast<uint32_t>(kQptBase));
  write_csr(csr::kQptBaseHi, static_cast<uint32_t>(kQptBase >> 32));
  write_csr(csr::kQpnLimit, cfg.qpn_limit);
  if (opt.trap_timeout != 0) write_csr(csr::kEvictTrapTimeout, opt.trap_timeout);
  if (opt.reset_timeout != 0) write_csr(csr::kResetTimeout, opt.reset_timeout);
  if (opt.wb_retry_budget) write_csr(csr::kWbRetryBudget, *opt.wb_retry_budget);
  if (opt.evict_policy != 0) write_csr(csr::kEvictPolicy, opt.evict_policy);
  if (opt.map_all_pages) {
    std::vector<uint32_t> all;
    for (uint32_t i = 0; i < (cfg.qpn_limit >> cfg.page_bits); ++i) all.push_back(i);
    map_pages(all);
  }
  if (suite_coverage_) set_coverage(suite_coverage_);
}

FuncCoverage *QpmEnv::suite_coverage_ = nullptr;

void QpmEnv::on_qpc_read_done(uint64_t addr, bool error, uint32_t id) {
  // Only a miss register's QPC read makes a QP fatal (the maintenance engine's reads of
  // MAP/UNMAP fail the command instead; a failed directory read is just read again).
  if (id >= tb_.config().mshrs || directory_address(addr)) return;
  // The miss register reads the QPC again until it succeeds; the QP becomes fatal when
  // that read lands, before any operation waiting on it runs (docs/events.md).
  if (error) {
    qpc_read_faults_.insert(addr);
    return;
  }
  if (qpc_read_faults_.erase(addr) == 0) return;
  // Live (valid, in neither RESET nor ERR): the fill must make it fatal, a few cycles
  // from now (no operation of the QP runs in between: its line is being filled).
  const auto qpn = model_.qpn_of_qpc_address(addr);
  if (!qpn) {
    fatal_problems_.push_back(fmt::format("a miss register read {:#x}, which is no QPC", addr));
    return;
  }
  // A command in flight on the QPN (or a PORT_FAULT scan) may already have changed the
  // context in the RTL and not yet in the model (it applies at the answer): then the
  // fill may or may not make the QP fatal, and only a fill that does is applied. So may
  // an answered command the model has not run yet: a reset the fence places among the
  // QPN's operations still in flight, or a command the placer holds behind them.
  const bool certain = commands_in_flight(*qpn) == 0 && global_commands_in_flight() == 0 &&
                       !reset_fence_.busy(*qpn) && !placer_.busy(*qpn);
  const Qpc &q = model_.qpc(*qpn);
  const bool live = q.valid && q.state != static_cast<uint32_t>(QpState::Reset) &&
                    q.state != static_cast<uint32_t>(QpState::Err);
  if (live || !certain) fatal_due_[*qpn] = FatalDue{tb_.cycles(), certain};
}

void QpmEnv::on_write_done(uint64_t addr, bool error) {
  if (directory_address(addr)) return;
  if (error) ++qpc_write_failures_[addr];
  // MAP/UNMAP_PAGE decide on a page after its write-backs are answered (OK or given up),
  // so the newest answer per address is what the RTL's decision saw.
  model_.qpc_write_answered(addr, error);
}

void QpmEnv::on_write_fault_notice(uint32_t qpn) {
  ++write_fault_notices_;
  const auto addr = model_.qpc_address(qpn);
  const auto failed = addr ? qpc_write_failures_.find(*addr) : qpc_write_failures_.end();
  if (failed == qpc_write_failures_.end()) {
    fatal_problems_.push_back(fmt::format(
        "cycle {}: the RTL gave up a write-back of qpn {:#x} (a write-fault notice), but no "
        "write of its QPC{} was answered with an error since the last notice",
        tb_.cycles(), qpn, addr ? fmt::format(" at {:#x}", *addr) : std::string(" (unmapped)")));
    return;
  }
  if (--failed->second == 0) qpc_write_failures_.erase(failed);
  spdlog::debug("cycle {}: the RTL gave up a write-back of qpn {:#x}", tb_.cycles(), qpn);
  // Into the model where the RTL had it among the QP's work, as a fatal fill.
  placer_.on_fatal_fill(qpn, true);
}

void QpmEnv::sample_probes() {
  Dut &dut = tb_.dut();
  // The order of doorbells and operations: the front's, from its input registers.
  if (const auto tag = dut.front_took_dp()) dp_scoreboard_.on_front_take(*tag);
  // Doorbells of different QPNs may pass each other in the lock park, one QPN's never:
  // the one taken is the oldest of its QPN not yet taken.
  if (const auto bits = dut.front_took_db(); bits && doorbells_.order_known()) {
    const Doorbell taken = decode_doorbell(*bits);
    const auto it = std::find_if(db_to_front_.begin(), db_to_front_.end(),
                                 [&](const Doorbell &d) { return d.qpn == taken.qpn; });
    if (it == db_to_front_.end() || it->rq != taken.rq || it->count != taken.count) {
      fatal_problems_.push_back(fmt::format(
          "cycle {}: the datapath front took a doorbell (qpn {:#x}) that is not the oldest "
          "the port took for that QPN", tb_.cycles(), taken.qpn));
    } else {
      dp_scoreboard_.on_doorbell(*it);
      db_to_front_.erase(it);
    }
  }
  eq_fill_max_ = std::max(eq_fill_max_, dut.eq_fifo_count());
  if (dut.take_back()) ++take_backs_;
  if (const auto notice = dut.fatal_fill()) {
    if (notice->write) {
      on_write_fault_notice(notice->qpn);
    } else if (fatal_due_.erase(notice->qpn) == 0) {
      fatal_problems_.push_back(fmt::format(
          "cycle {}: a fill made qpn {:#x} fatal, but no read of its live context failed",
          tb_.cycles(), notice->qpn));
    } else {
      // Into the model after the operations and commands the RTL ran before the fill
      // (answered by the cache, their answers maybe still on the way or held).
      placer_.on_fatal_fill(notice->qpn, false);
    }
  }
  // docs/events.md: a QP whose context read failed is made fatal before any operation
  // waiting on its fill runs. Its line is not cached meanwhile, so the QP cache answers
  // nothing of it between the failed read and the fill (which, for a fatal_due_ entry
  // that is not certain, may come without a probe: then the entry outlives it).
  auto answered = [&](uint32_t qpn, const char *what) {
    const auto addr = model_.qpc_address(qpn);
    const auto due = fatal_due_.find(qpn);
    if ((due != fatal_due_.end() && due->second.certain) ||
        (addr && qpc_read_faults_.count(*addr) != 0)) {
      fatal_problems_.push_back(fmt::format(
          "cycle {}: a {} of qpn {:#x} was answered while its context read was being retried "
          "(before the fill made the QP fatal)", tb_.cycles(), what, qpn));
    }
  };
  if (const auto qpn = dut.doorbell_done()) {
    answered(*qpn, "doorbell");
    if (doorbells_.order_known()) dp_scoreboard_.on_doorbell_executed(*qpn);
  }
  if (const auto qpn = dut.dp_done()) {
    answered(*qpn, "datapath operation");
    placer_.on_cache_answer(*qpn);
  }
  if (dut.cmd_executing()) placer_.on_execute();
  for (auto it = fatal_due_.begin(); it != fatal_due_.end();) {
    if (tb_.cycles() - it->second.cycle > kFatalFillCycles) {
      if (it->second.certain) {
        fatal_problems_.push_back(fmt::format(
            "qpn {:#x}: a read of its live context failed and was read again, but the fill did not make it fatal",
            it->first));
      }
      it = fatal_due_.erase(it);
    } else {
      ++it;
    }
  }
}

void QpmEnv::map_pages(const std::vector<uint32_t> &dir_indexes) {
  // Software's setup runs before the memory starts failing.
  AxiMemoryOptions calm = opt_.mem;
  calm.read_error_rate = calm.write_error_rate = 0.0;
  memory_.set_options(calm);
  for (uint32_t i : dir_indexes) {
    if (model_.dir_entry(i).valid) continue;
    Command map;
    map.op = Opcode::MapPage;
    map.dir_index = i;
    map.page_address = kFirstPage + uint64_t{i} * kPageBytes;
    if (execute(map).status != Status::Ok) throw std::runtime_error("initial MAP_PAGE failed");
  }
  memory_.set_options(opt_.mem);
  choose_dead_pages();
}

void QpmEnv::choose_dead_pages() {
  if (dead_pages_.size() >= opt_.mem_dead_pages) return;
  // The mapped QP-table pages (page i of map_pages at kFirstPage + i * 4 KiB), in
  // directory order, that are not dead yet.
  std::vector<uint64_t> candidates;
  for (uint32_t i = 0; i < model_.config().dir_entries; ++i) {
    const auto &e = model_.dir_entry(i);
    if (e.valid && !memory_.page_dead(e.page_address)) candidates.push_back(e.page_address);
  }
  const size_t missing = opt_.mem_dead_pages - dead_pages_.size();
  if (candidates.size() < missing) {
    throw std::runtime_error(fmt::format(
        "--mem-dead-pages {}: only {} QP-table pages are mapped ({} dead already)",
        opt_.mem_dead_pages, candidates.size() + dead_pages_.size(), dead_pages_.size()));
  }
  std::set<uint64_t> chosen;
  for (size_t k = 0; k < missing; ++k) {  // a partial Fisher-Yates shuffle
    const size_t j = std::uniform_int_distribution<size_t>(k, candidates.size() - 1)(dead_rng_);
    std::swap(candidates[k], candidates[j]);
    dead_pages_.push_back(candidates[k]);
    chosen.insert(candidates[k] / kPageBytes);
  }
  memory_.add_dead_pages(chosen);
  std::string list;
  for (uint64_t page : dead_pages_) list += fmt::format(" {:#x}", page);
  spdlog::info("dead pages (every write refused):{}", list);
}

uint64_t QpmEnv::error_mark() const {
  return error_history_.empty() ? 0 : error_history_.front();
}

bool QpmEnv::error_could_hit(const Command &cmd, uint64_t since) const {
  const auto &failed = memory_.failed_read_completions();
  // MAP/UNMAP_PAGE read the directory entry, then the old page's QPCs.
  if (!cmd.use_raw_op && (cmd.op == Opcode::MapPage || cmd.op == Opcode::UnmapPage)) {
    if (cmd.dir_index >= model_.config().dir_entries) return false;
    const auto &e = model_.dir_entry(cmd.dir_index);
    const uint64_t dir = kQptBase + uint64_t{cmd.dir_index} * 8;
    for (size_t i = since; i < failed.size(); ++i) {
      if (failed[i] == dir) return true;
      if (e.valid && failed[i] >= e.page_address && failed[i] < e.page_address + kPageBytes) {
        return true;
      }
    }
    return false;
  }
  // A walk sends a failed read again, the directory entry's and the QPC's alike, and a
  // failed QPC read makes the QP fatal (on_qpc_read_done; docs/events.md, "Memory
  // faults"): no read error fails a QP command.
  return false;
}

void QpmEnv::on_accept(const Command &cmd) {
  // A mapped page must be readable before the hardware can touch it; the page it
  // replaces is forgotten only once the hardware has flushed it (the OK response), and
  // a refused MAP_PAGE leaves the map as it was.
  PageChange change;
  if (!cmd.use_raw_op && (cmd.op == Opcode::MapPage || cmd.op == Opcode::UnmapPage) &&
      cmd.dir_index < model_.config().dir_entries) {
    const auto &e = model_.dir_entry(cmd.dir_index);
    const bool same_page = cmd.op == Opcode::MapPage && e.page_address == cmd.page_address;
    if (e.valid && !same_page) change.unmap_on_ok = e.page_address;
    if (cmd.op == Opcode::MapPage &&
        !memory_.is_mapped(cmd.page_address, cmd.page_address + kPageBytes)) {
      memory_.map_region(cmd.page_address, kPageBytes);
      change.unmap_on_fail = cmd.page_address;
    }
  }
  page_changes_.push_back(change);
  scoreboard_.on_accept(cmd);
}

void QpmEnv::on_response(const Response &rsp) {
  std::optional<Pushed> pushed;
  if (!pushed_.empty()) {
    pushed = pushed_.front();
    pushed_.pop_front();
    auto it = cmd_qpns_.find(pushed->cmd.qpn);
    if (it != cmd_qpns_.end() && --it->second == 0) cmd_qpns_.erase(it);
    // A doorbell's probe: a posted doorbell goes into the model before the QUERY runs.
    if (pushed->probe) doorbells_.on_probe_response(pushed->cmd.qpn, rsp, tb_.cycles());
    if (coverage_ && !pushed->probe) {
      coverage_->sample_busy(pushed->cmd, pushed->met_own_traffic, pushed->met_any_traffic);
    }
  }
  if (page_changes_.empty()) {
    scoreboard_.on_response(rsp);  // reports the response without a command
    return;
  }
  const PageChange change = page_changes_.front();
  page_changes_.pop_front();
  scoreboard_.on_response(rsp);
  for (const Event &e : model_.take_events()) {
    events_.expect(e, pushed ? opcode_name(pushed->cmd.opcode_byte()) : "COMMAND");
  }
  take_model_cqes();
  // A reset or destroy stops the QP's flush: what it still owed may never come.
  if (pushed && rsp.status == Status::Ok && !pushed->cmd.use_raw_op) {
    const Command &c = pushed->cmd;
    const bool to_reset = c.op == Opcode::ModifyQp && (c.attr_mask & attr::kState) &&
                          c.qp_state == static_cast<uint32_t>(QpState::Reset);
    // Everything the old incarnation will emit is in the CQE FIFO by now (docs/errors.md);
    // two more for a CQE that left in this very cycle.
    if (to_reset || c.op == Opcode::DestroyQp) {
      cqes_.cut(c.qpn & kPsnMask, cqes_.delivered() + tb_.dut().cqe_fifo_count() + 2);
    }
  }
  if (!pushed || !pushed->probe) {
    user_response_ = rsp;
    user_expected_ = scoreboard_.last_expected();  // a placed command's: when it runs
  }
  if (rsp.status == Status::Ok) {
    if (change.unmap_on_ok) memory_.unmap_region(*change.unmap_on_ok);
  } else if (change.unmap_on_fail) {
    memory_.unmap_region(*change.unmap_on_fail);
  }
}

void QpmEnv::on_dp_response(const DpResponse &rsp) {
  const int64_t qpn = dp_tag_qpn_[rsp.tag];
  if (qpn < 0) {
    dp_scoreboard_.on_response(rsp);  // no such tag in flight: the scoreboard reports it
    return;
  }
  if (dp_listener_) dp_listener_(dp_tag_req_[rsp.tag], rsp);
  // Into the model now, or behind a command its QPN met (command_placer.h). Its tag stays
  // taken until then: a new operation with that tag would be matched to the held answer.
  placer_.on_op_answer(static_cast<uint32_t>(qpn), rsp);
}

void QpmEnv::release_tag(uint8_t tag) {
  const int64_t qpn = dp_tag_qpn_[tag];
  if (qpn < 0) return;  // a second answer to one tag: the scoreboard reported it
  dp_tag_qpn_[tag] = -1;
  --dp_tags_in_use_;
  auto it = dp_qpns_.find(static_cast<uint32_t>(qpn));
  if (it != dp_qpns_.end() && --it->second == 0) dp_qpns_.erase(it);
}

void QpmEnv::after_command(const Command &cmd) {
  for (const Event &e : model_.take_events()) events_.expect(e, opcode_name(cmd.opcode_byte()));
  take_model_cqes();
  const uint32_t qpn = cmd.qpn & kPsnMask;
  reset_fence_.after_op(qpn, dp_scoreboard_.outstanding(qpn) != 0 || placer_.busy(qpn));
}

void QpmEnv::push_command(const Command &cmd) {
  pushed_.push_back({cmd, false, false, false});
  ++cmd_qpns_[cmd.qpn];
  driver_.push(cmd);
}

void QpmEnv::push_dp(DpRequest req) {
  if (dp_tags_in_use_ >= 255) throw std::logic_error("harness: 255 datapath operations in flight");
  while (dp_tag_qpn_[next_tag_] >= 0) ++next_tag_;
  req.tag = next_tag_++;
  req.qpn &= kPsnMask;
  dp_tag_qpn_[req.tag] = req.qpn;
  dp_tag_req_[req.tag] = req;
  ++dp_tags_in_use_;
  ++dp_qpns_[req.qpn];
  dp_driver_.push(encode_dp_request(req));
}

void QpmEnv::push_doorbell(const Doorbell &db) {
  doorbells_.on_push(db);
  db_driver_.push(encode_doorbell(db));
}

size_t QpmEnv::commands_in_flight(uint32_t qpn) const {
  auto it = cmd_qpns_.find(qpn);
  return it == cmd_qpns_.end() ? 0 : it->second;
}

size_t QpmEnv::dp_in_flight(uint32_t qpn) const {
  auto it = dp_qpns_.find(qpn);
  return it == dp_qpns_.end() ? 0 : it->second;
}

size_t QpmEnv::global_commands_in_flight() const {
  size_t n = 0;
  for (const Pushed &p : pushed_) {
    const Command &c = p.cmd;
    n += !c.use_raw_op && (c.op == Opcode::MapPage || c.op == Opcode::UnmapPage ||
                           c.op == Opcode::PortFault);
  }
  return n;
}

// Names the parts idle() waits on that are not idle, for a timeout's message.
std::string QpmEnv::busy_parts() const {
  std::string parts;
  if (!driver_.idle()) parts += " command driver";
  if (!dp_driver_.idle()) parts += " datapath driver";
  if (!db_driver_.idle()) parts += " doorbell driver";
  if (!db_to_front_.empty()) parts += " doorbells to the front";
  if (!placer_.idle()) parts += " placer";
  if (tb_.dut().flush_busy()) parts += " flush engine";
  return parts.empty() ? std::string(" nothing") : parts;
}

bool QpmEnv::idle_but_flush() const {
  return driver_.idle() && pushed_.empty() && scoreboard_.outstanding() == 0 &&
         dp_driver_.idle() && dp_tags_in_use_ == 0 && db_driver_.idle() &&
         doorbells_.pending() == 0 && events_.outstanding() == 0 && cqes_.outstanding() == 0 &&
         db_to_front_.empty() && placer_.idle();
}

bool QpmEnv::idle() const { return idle_but_flush() && !tb_.dut().flush_busy(); }

uint64_t QpmEnv::flush_pass_limit() const {
  // Every group's overflow pass once: a directory read per page of the QPN space, and
  // the context reads of the mapped ones (docs/errors.md), 256 cycles a page.
  return opt_.timeout_cycles + uint64_t{model_.config().qpn_limit} / 64 * 256;
}

void QpmEnv::take_model_cqes() {
  for (const Cqe &c : model_.take_cqes()) cqes_.expect(c);
}

void QpmEnv::set_coverage(FuncCoverage *coverage) {
  coverage_ = coverage;
  scoreboard_.set_coverage(coverage);
  dp_scoreboard_.set_coverage(coverage);
  placer_.set_coverage(coverage);
  doorbells_.set_coverage(coverage);
  events_.set_coverage(coverage);
  cqes_.set_coverage(coverage);
}

void QpmEnv::housekeeping() {
  take_model_cqes();  // the datapath's and the doorbells' flushes
  // Two cycles in a row with the CQE FIFO empty: what a reset left in it is delivered.
  cqe_fifo_empty_cycles_ = tb_.dut().cqe_fifo_count() == 0 ? cqe_fifo_empty_cycles_ + 1 : 0;
  if (cqe_fifo_empty_cycles_ >= 2) cqes_.fifo_drained();
  if (dp_tags_in_use_ != 0) {
    for (Pushed &p : pushed_) {
      p.met_any_traffic = true;
      p.met_own_traffic = p.met_own_traffic || dp_in_flight(p.cmd.qpn & kPsnMask) != 0;
    }
  }
  error_history_.push_back(memory_.failed_read_completions().size());
  if (error_history_.size() > kErrorReachCycles) error_history_.pop_front();
  // Doorbells waiting for a probe get one as soon as their QPN has no command in
  // flight (the probe is then the only thing in flight for the QPN).
  for (uint32_t qpn : doorbells_.probes_wanted()) {
    if (commands_in_flight(qpn) != 0 || dp_in_flight(qpn) != 0) continue;
    Command probe;
    probe.op = Opcode::QueryQp;
    probe.qpn = qpn;
    pushed_.push_back({probe, true});
    ++cmd_qpns_[qpn];
    driver_.push(probe);
    doorbells_.on_probe_sent(qpn);
  }
  // The refused-doorbell counter, read in the background (never while a test's own CSR
  // access is queued: its result is the last one).
  if (csr_poll_in_flight_ && csr_.idle() && !csr_.results().empty()) {
    const AxiLiteResult r = csr_.results().front();
    csr_.results().pop_front();
    csr_poll_in_flight_ = false;
    doorbells_.on_counter_value(r.data, tb_.cycles());
  }
  if (!csr_poll_in_flight_ && doorbells_.wants_counter() && csr_.idle()) {
    csr_.read(csr::kCounters + 4 * static_cast<uint32_t>(counter_index("db_refused")));
    csr_poll_in_flight_ = true;
    doorbells_.on_counter_read_issued();
  }
  doorbells_.check_timeouts(tb_.cycles());
}

void QpmEnv::finish_csr_poll() {
  while (csr_poll_in_flight_) {
    wait_csr();
    tb_.tick();  // housekeeping takes the result
  }
}

uint64_t QpmEnv::progress() const {
  return scoreboard_.checked() + dp_scoreboard_.checked() + events_.delivered() +
         cqes_.delivered() + doorbells_.posted() + doorbells_.refused();
}

void QpmEnv::wait_until(const std::function<bool()> &done, const char *what) {
  uint64_t last_progress = tb_.cycles(), seen = progress();
  uint64_t reads_seen = memory_.reads(), flush_only_since = 0;
  while (!done()) {
    tb_.tick();
    if (progress() != seen) {
      seen = progress();
      last_progress = tb_.cycles();
    }
    // Only the flush engine busy: its overflow passes read the directory and contexts
    // and answer nothing the harness sees, so its memory reads are the progress, up to
    // a bound on every pass there can be.
    if (tb_.dut().flush_busy() && idle_but_flush()) {
      if (flush_only_since == 0) flush_only_since = tb_.cycles();
      if (memory_.reads() != reads_seen) last_progress = tb_.cycles();
      if (tb_.cycles() - flush_only_since > flush_pass_limit()) {
        throw std::runtime_error(fmt::format(
            "timeout: {}: the flush engine alone still busy after {} cycles", what,
            flush_pass_limit()));
      }
    } else {
      flush_only_since = 0;
    }
    reads_seen = memory_.reads();
    if (tb_.cycles() - last_progress > command_timeout()) {
      // Only events or completions missing: final_check names them; everything else
      // is a hang.
      if ((events_.outstanding() > 0 || cqes_.outstanding() > 0) && driver_.idle() &&
          pushed_.empty() &&
          dp_tags_in_use_ == 0 && doorbells_.pending() == 0) {
        return;
      }
      throw std::runtime_error(fmt::format(
          "timeout: {} ({} commands, {} datapath operations, {} doorbells, {} events, {} "
          "completions outstanding; still busy:{}) for {} cycles",
          what, pushed_.size(), dp_tags_in_use_, doorbells_.pending(), events_.outstanding(),
          cqes_.outstanding(), busy_parts(), opt_.timeout_cycles));
    }
  }
}

uint64_t QpmEnv::command_timeout() const {
  // A PORT_FAULT answers after reading every QPN of the mapped pages (docs/events.md):
  // allow each QPN a memory round trip on top.
  const bool port_fault = std::any_of(pushed_.begin(), pushed_.end(), [](const Pushed &p) {
    return !p.cmd.use_raw_op && p.cmd.op == Opcode::PortFault;
  });
  return opt_.timeout_cycles + (port_fault ? uint64_t{model_.config().qpn_limit} * 256 : 0);
}

void QpmEnv::drain() {
  wait_until([this] { return idle(); }, "no progress");
}

void QpmEnv::run_stream(uint64_t n, const std::function<Command()> &next, unsigned depth) {
  uint64_t sent = 0, last_progress = tb_.cycles(), answered = scoreboard_.checked();
  while (sent < n || !driver_.idle() || scoreboard_.outstanding() > 0) {
    if (sent < n && driver_.queued() + scoreboard_.outstanding() < depth) {
      push_command(next());
      ++sent;
    }
    tb_.tick();
    if (scoreboard_.checked() != answered) {
      answered = scoreboard_.checked();
      last_progress = tb_.cycles();
    }
    if (tb_.cycles() - last_progress > command_timeout()) {
      throw std::runtime_error("timeout: no response for " + std::to_string(command_timeout()) +
                               " cycles");
    }
    if (tb_.assertion_failed()) return;
  }
}

Response QpmEnv::execute(const Command &cmd) {
  push_command(cmd);
  drain();
  return user_response_;
}

DpResponse QpmEnv::execute_dp(const DpRequest &req) {
  push_dp(req);
  drain();
  return dp_scoreboard_.last_response();
}

bool QpmEnv::ring(const Doorbell &db) {
  const uint64_t posted = doorbells_.posted();
  push_doorbell(db);
  drain();
  return doorbells_.posted() != posted;
}

void QpmEnv::run_cycles(uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) tb_.tick();
}

void QpmEnv::wait_csr() {
  for (uint64_t i = 0; !csr_.idle(); ++i) {
    if (i > 1000) throw std::runtime_error("timeout: CSR access not answered");
    tb_.tick();
  }
}

uint32_t QpmEnv::read_csr(uint32_t addr) {
  finish_csr_poll();
  csr_.read(addr);
  wait_csr();
  const AxiLiteResult r = csr_.results().back();
  csr_.results().clear();
  if (r.resp != 0) throw std::runtime_error(fmt::format("CSR read {:#x}: error {}", addr, r.resp));
  return r.data;
}

void QpmEnv::write_csr(uint32_t addr, uint32_t data, uint32_t strb) {
  finish_csr_poll();
  csr_.write(addr, data, strb);
  wait_csr();
  const AxiLiteResult r = csr_.results().back();
  csr_.results().clear();
  if (r.resp != 0) throw std::runtime_error(fmt::format("CSR write {:#x}: error {}", addr, r.resp));
}

std::vector<uint32_t> QpmEnv::read_counters() {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < kCounterNames.size(); ++i) {
    out.push_back(read_csr(csr::kCounters + 4 * static_cast<uint32_t>(i)));
  }
  return out;
}

std::vector<std::string> QpmEnv::memory_image_check() {
  std::vector<std::string> problems;
  auto add = [&](const std::string &p) {
    if (problems.size() < 20) problems.push_back(p);
  };
  // Runs with the memory as the test left it: with write errors injected, SYNC_CACHE
  // retries each failed write until memory holds it, and answers OK.
  Command sync;
  sync.op = Opcode::SyncCache;
  if (execute(sync).status != Status::Ok) add("SYNC_CACHE did not answer OK");
  // SYNC_CACHE does not wait for what it does not promise: a context given up (its QP's
  // QP_FATAL reports it) that a take-back swapped out of a line while the SYNC drained
  // may still be on its way. Let memory fall quiet (longer than the longest backoff,
  // 1,024 cycles) before the image and the counters are compared with its traffic.
  for (uint64_t quiet = 0, waited = 0; quiet < 2048 && waited < 200000; ++waited) {
    quiet = memory_.idle() ? quiet + 1 : 0;
    tb_.tick();
  }
  // Every slot of every mapped page: a lost write-back of a DESTROY (memory still says
  // valid) shows here as well as a wrong valid QPC. A dead page refused every write, so
  // memory holds nothing of its contexts (the RTL keeps them; QUERY_QP shows them).
  size_t image_diffs = 0;
  for (const auto &[addr, qpc] : model_.memory_qpcs(false)) {
    if (memory_.page_dead(addr)) continue;
    std::array<uint8_t, 64> mem{};
    memory_.read_bytes(addr, mem.data(), mem.size());
    if (mem == qpc_bytes(qpc)) continue;
    if (++image_diffs > 5) continue;
    BitVec bits(kQpcBits);
    for (unsigned i = 0; i < 64; ++i) bits.set(8 * i, 8, mem[i]);
    Response got, exp;
    got.qpc = unpack_qpc(bits);
    exp.qpc = qpc;
    add(fmt::format("memory image at {:#x} differs from the model:\n{}", addr,
                    Scoreboard::difference(exp, got)));
  }
  if (image_diffs > 5) add(fmt::format("memory image: {} QPC slots differ in all", image_diffs));
  // Every directory entry: {page_address | valid}, zero when unmapped.
  for (uint32_t i = 0; i < model_.config().dir_entries; ++i) {
    const auto &e = model_.dir_entry(i);
    const uint64_t want = e.valid ? (e.page_address | 1) : 0;
    uint8_t b[8];
    memory_.read_bytes(kQptBase + 8 * uint64_t{i}, b, 8);
    uint64_t got = 0;
    for (int k = 7; k >= 0; --k) got = got << 8 | b[k];
    if (got != want) add(fmt::format("directory entry {}: memory {:#x}, model {:#x}", i, got, want));
  }
  return problems;
}

std::vector<std::string> QpmEnv::final_check() {
  std::vector<std::string> problems;
  auto add = [&](const std::string &p) {
    if (problems.size() < 20) problems.push_back(p);
  };
  for (const auto &p : memory_image_check()) add(p);
  for (const auto &v : memory_.violations()) add("memory: " + v);
  for (const auto &v : streams_.violations()) add("stream: " + v);
  for (const auto &p : counter_check()) add("counters: " + p);
  if (scoreboard_.mismatches()) {
    add(fmt::format("{} response mismatches", scoreboard_.mismatches()));
  }
  if (dp_scoreboard_.mismatches()) {
    add(fmt::format("{} datapath response mismatches", dp_scoreboard_.mismatches()));
  }
  if (dp_scoreboard_.outstanding()) {
    add(fmt::format("{} datapath operations never answered", dp_scoreboard_.outstanding()));
  }
  for (const auto &p : events_.problems()) add("events: " + p);
  for (const auto &p : cqes_.problems()) add("cqes: " + p);
  for (const auto &p : doorbells_.problems()) add("doorbells: " + p);
  for (const auto &p : dp_scoreboard_.order_problems()) add("datapath order: " + p);
  for (const auto &p : fatal_problems_) add("memory faults: " + p);
  if (dead_pages_.size() < opt_.mem_dead_pages) {
    add(fmt::format("memory faults: {} dead pages asked for, but only {} were drawn (too few "
                    "pages mapped through map_pages)", opt_.mem_dead_pages, dead_pages_.size()));
  }
  for (const auto &[qpn, due] : fatal_due_) {
    if (due.certain) {
      add(fmt::format("memory faults: qpn {:#x}'s context read was retried at cycle {} and never made fatal",
                      qpn, due.cycle));
    }
  }
  if (tb_.assertion_failed()) add("an RTL assertion failed");
  return problems;
}

std::vector<std::string> QpmEnv::counter_check() {
  std::vector<std::string> problems;
  const std::vector<uint32_t> c = read_counters();
  auto value = [&](const char *name) -> uint64_t { return c[counter_index(name)]; };
  auto expect = [&](const char *what, uint64_t got, uint64_t want) {
    if (got != want) problems.push_back(fmt::format("{}: {} but expected {}", what, got, want));
  };
  const MemoryTraffic &t = traffic_;
  expect("mem_errors (vs errors injected)", value("mem_errors"),
         t.dir_read_errors + t.qpc_read_errors + t.maint_read_errors + t.write_errors);
  // A write answered with an error is sent again (docs/qp-cache.md, section 10): each
  // failed burst is one retry, and WRITEBACKS counts the ones memory took.
  expect("wb_retries (vs write errors injected)", value("wb_retries"), t.write_errors);
  expect("writebacks (vs QPC write bursts answered OKAY)", value("writebacks"),
         t.qpc_writes - t.qpc_write_errors);
  // A write-back given up (issue 27 item 3) failed at least once, and the RTL told the
  // harness of every one that made a QP fatal (a write-fault notice): notices <=
  // WB_GIVEN_UP <= write errors injected (0 when memory refused no write).
  if (value("wb_given_up") < write_fault_notices_ || value("wb_given_up") > t.write_errors) {
    problems.push_back(fmt::format(
        "wb_given_up: {} but expected between the {} write-fault notices seen and the {} write "
        "errors injected", value("wb_given_up"), write_fault_notices_, t.write_errors));
  }
  expect("walks (vs misses)", value("walks"), value("misses"));
  // A failed read of a walk is read again (docs/events.md, "Memory faults").
  expect("walks - dir_hits + directory read errors (vs directory reads)",
         value("walks") - value("dir_hits") + t.dir_read_errors, t.dir_reads);
  const uint64_t walk_qpc_reads = value("walks") - t.dir_reads_unmapped + t.qpc_read_errors;
  if (t.qpc_reads + take_backs_ != walk_qpc_reads) {
    // A walk whose context is still in the write-back buffer (on its way to memory, or
    // given up) takes it back from there instead of reading memory (the take-back probe).
    problems.push_back(fmt::format(
        "QPC reads: {} but expected walks - unmapped entries + QPC read errors = {}, less "
        "the {} take-backs", t.qpc_reads, walk_qpc_reads, take_backs_));
  }
  expect("take_backs (vs the take-back probe)", value("take_backs"), take_backs_);
  // The datapath's counters: exact against what the model predicted and raised.
  for (int r = 1; r < kNumDropReasons; ++r) {
    const auto reason = static_cast<DropReason>(r);
    const std::string name = drop_counter_name(reason);
    expect(name.c_str(), value(name.c_str()), dp_scoreboard_.expected_drops(reason));
  }
  expect("resets_forced (vs resets the model completed with DMAs in flight)", value("resets_forced"),
         model_.resets_forced());
  expect("db_refused (vs refusals predicted)", value("db_refused"), doorbells_.expected_refused());
  expect("events (vs events the model raised)", value("events"), events_.raised());
  expect("cqes (vs CQEs taken off the port)", value("cqes"), cqes_.delivered());
  const auto &cq = cqes_.counts();
  expect("wqes_flushed (vs WR_FLUSH_ERR CQEs taken)", value("wqes_flushed"),
         cq.count(WcStatus::WrFlushErr) ? cq.at(WcStatus::WrFlushErr) : 0);
  // Events by type (each one the model raised, delivered exactly once), and PORT_FAULT's
  // progress, against the model's scan.
  const std::map<EventType, uint64_t> raised = events_.counts();
  for (const auto &[type, counter] : {std::pair<EventType, const char *>{EventType::QpFatal, "ev_qp_fatal"},
                                      {EventType::QpReqErr, "ev_qp_req_err"},
                                      {EventType::QpAccessErr, "ev_qp_access_err"},
                                      {EventType::CommEst, "ev_comm_est"},
                                      {EventType::SqDrained, "ev_sq_drained"},
                                      {EventType::PortErr, "ev_port_err"}}) {
    expect(counter, value(counter), raised.count(type) ? raised.at(type) : 0);
  }
  expect("pf_qps_moved (vs QPs the model's PORT_FAULTs moved)", value("pf_qps_moved"),
         model_.port_fault_moved());
  expect("pf_qpcs_read (vs QPC slots the model's PORT_FAULTs scanned)", value("pf_qpcs_read"),
         model_.port_fault_scanned());
  // The EQ's high-water mark, against its fill level sampled every cycle (a backdoor: the
  // ports show events leaving the queue, not entering it).
  expect("eq_high_water (vs the EQ's fullest, sampled every cycle)", value("eq_high_water"),
         eq_fill_max_);
  if (trap_agent_) {
    expect("trap_requests (vs questions the trap agent was asked)", value("trap_requests"),
           trap_agent_->questions());
    if (value("trap_timeouts") < trap_agent_->silences()) {
      problems.push_back(fmt::format("trap_timeouts: {} but the agent never answered {} questions",
                                     value("trap_timeouts"), trap_agent_->silences()));
    }
    // Each question ends once: its answer used, TRAP_REJECTED or TRAP_TIMEOUTS.
    if (value("trap_timeouts") + value("trap_rejected") > value("trap_requests")) {
      problems.push_back(fmt::format("trap_timeouts + trap_rejected: {} but only {} questions",
                                     value("trap_timeouts") + value("trap_rejected"),
                                     value("trap_requests")));
    }
  } else {
    for (const char *name : {"trap_requests", "trap_timeouts", "trap_rejected", "trap_dropped",
                             "trap_busy_cycles"}) {
      expect(name, value(name), 0);
    }
  }
  // Counters that depend on timing, bounded by what was seen: every datapath operation
  // and doorbell looks the cache up once at least, or is refused at the limit; a line
  // is evicted only to make room for a miss.
  const uint64_t lookups = value("hits") + value("misses") + value("merged") + value("refused");
  const uint64_t accesses = dp_scoreboard_.checked() + doorbells_.posted() + doorbells_.refused();
  if (lookups < accesses) {
    problems.push_back(fmt::format("hits + misses + merged + refused: {} but {} datapath "
                                   "operations and doorbells were answered", lookups, accesses));
  }
  // MISS_WAITS counts a request once when it waits at the port, and a miss once when
  // its victim search waits.
  if (value("miss_waits") > lookups + value("misses")) {
    problems.push_back(fmt::format("miss_waits: {} but only {} lookups and {} misses",
                                   value("miss_waits"), lookups, value("misses")));
  }
  if (value("evictions") > value("misses")) {
    problems.push_back(fmt::format("evictions: {} but only {} misses", value("evictions"),
                                   value("misses")));
  }
  const auto &counts = scoreboard_.status_counts();
  const auto int_err = counts.count(Status::IntErr) ? counts.at(Status::IntErr) : 0;
  if (int_err > value("mem_errors")) {
    problems.push_back(fmt::format("{} INT_ERR answers but only {} memory errors counted", int_err,
                                   value("mem_errors")));
  }
  return problems;
}

void QpmEnv::force_qpc(uint32_t qpn, const Qpc &q) {
  model_.force_qpc(qpn, q);
  const Qpc &stored = model_.qpc(qpn);
  if (!tb_.dut().backdoor_write_cached_qpc(qpn, pack_qpc(stored))) {
    const auto addr = model_.qpc_address(qpn);
    if (!addr) throw std::logic_error("force_qpc on an unmapped QPN");
    const auto bytes = qpc_bytes(stored);
    memory_.write_bytes(*addr, bytes.data(), bytes.size());
  }
  tb_.dut().eval();
}

}  // namespace qpm
