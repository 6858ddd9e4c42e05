#include "transport_run.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "dp_stimulus.h"
#include "script.h"
#include "transport.h"

namespace qpm {

// What keeps it sound (docs/verification.md, "Transport traffic"):
// - the pairs' QPNs belong to the transport model: the random commands never go to them,
//   and their own commands (bring-up, and reset and bring-up after a break) go only when
//   nothing of the QPN is in flight, as for the random mix ("quiesce per QPN");
// - the hostile operations and doorbells go only to the other QPNs, with the random
//   mix's rules, and carry no DMA (a DMA that never ends would hold a reset);
// - MAP/UNMAP_PAGE and PORT_FAULT wait until no QPN they touch has anything in flight
//   and hold those QPNs until answered, while the rest of the traffic goes on: for
//   MAP/UNMAP the QPNs of its directory entry, for PORT_FAULT every QPN but those of the
//   pairs running on the other port (a PORT_FAULT breaks the pairs of its port first);
// - under --reset-stress, a drawn command is with that chance a MODIFY to RESET or a
//   DESTROY of a running pair's QP, sent beside its traffic (which keeps going until the
//   answers show the QP fenced or gone; the reset fence places the reset among them); the
//   pair is then brought up again;
// - with --meet-rate, software sends a QUERY, a MODIFY RTS -> RTS or a PIN/UNPIN to a
//   running pair's QP beside its traffic, which keeps going (the command placer puts the
//   command among the QP's operations where the probes say the RTL did: command_placer.h);
//   nothing else of the QPN's software (doorbells, its own commands) goes meanwhile.
void run_transport(const SimOptions &o, QpmEnv &env, RandomStimulus &stim, SimResult &result) {
  constexpr size_t kCmdDepth = 2;      // commands queued or in flight
  constexpr size_t kDpInFlight = 48;   // datapath operations sent and not answered
  constexpr size_t kDpQueued = 4;      // ... of which waiting for the port
  std::mt19937_64 &rng = env.dp_rng();

  // The pairs take QPNs spread over the run's QPNs; the rest are the random mix's.
  // At most --qps / 2 pairs (all of the QPNs then: the random commands get none); by
  // default an eighth of the cache's lines, 4 to 32: more active QPs than a cache holds
  // turn every operation into a miss, and on a 4-line cache with slow memory a flush
  // then runs so slowly that a command waiting for it times out.
  const Config &cfg = env.model().config();
  const size_t auto_pairs = std::clamp<size_t>(cfg.sets * cfg.ways / 8, 4, 32);
  const size_t pairs = std::min<size_t>(o.pairs ? o.pairs : auto_pairs, stim.qpns().size() / 2);
  std::vector<uint32_t> all = stim.qpns(), owned, pool;
  std::shuffle(all.begin(), all.end(), rng);
  owned.assign(all.begin(), all.begin() + 2 * pairs);
  pool.assign(all.begin() + 2 * pairs, all.end());
  // The first pair sits at both ends of the QPN range (QPN 2 and QPN_LIMIT - 1), where an
  // off-by-one in a walk, a scan or a limit check shows.
  const uint32_t lowest = 2, highest = cfg.qpn_limit - 1;
  if (highest > lowest && std::count(owned.begin(), owned.end(), lowest) == 0 &&
      std::count(owned.begin(), owned.end(), highest) == 0) {
    pool.erase(std::remove_if(pool.begin(), pool.end(),
                              [&](uint32_t q) { return q == lowest || q == highest; }),
               pool.end());
    owned[0] = lowest;
    owned[1] = highest;
    env.map_pages({lowest >> cfg.page_bits, highest >> cfg.page_bits});
  }
  std::set<uint32_t> owned_set(owned.begin(), owned.end());

  TransportOptions to;
  to.pairs = static_cast<uint32_t>(pairs);
  to.loss = o.loss;
  to.dup = o.dup;
  to.reorder = o.reorder;
  to.peer_nak = o.peer_nak;
  to.short_rq = o.short_rq;
  to.bad_qkey = o.bad_qkey;
  to.access_fault = o.access_fault;
  to.local_err = o.local_err;
  // The transport timer outlasts a few memory round trips (slow profiles too).
  uint32_t lat_lo = 0, lat_hi = 0;
  parse_latency(o.mem_latency, &lat_lo, &lat_hi);
  to.timeout_cycles = 1500 + 8 * lat_hi;
  TransportModel tm(rng, owned, to, [&](uint32_t qpn) { return env.doorbell_pending(qpn); });
  env.set_dp_listener([&](const DpRequest &req, const DpResponse &rsp) {
    if (owned_set.count(req.qpn)) tm.on_answer(req, rsp, env.tb().cycles());
  });

  DpStimulusOptions dso;
  dso.illegal_rate = o.dp_illegal_rate;
  dso.dma_brackets = false;
  dso.max_doorbell_count = 64;
  DpStimulus hostile(rng, env.model(), pool.empty() ? owned : pool, dso);

  std::optional<Command> held;    // a global command waiting for its QPNs to go quiet
  std::optional<Command> global;  // ... held or in flight: the QPNs it touches wait
  const uint32_t page_bits = env.model().config().page_bits;
  auto touched = [&](uint32_t qpn) {
    if (!global) return false;
    if (global->op == Opcode::PortFault) {
      return !owned_set.count(qpn) || !tm.running_away_from(qpn, global->port_num);
    }
    return (qpn >> page_bits) == global->dir_index;  // MAP_PAGE, UNMAP_PAGE
  };  std::set<uint32_t> stress_resets;  // QPNs with a stress reset sent, until the fence lets go
  std::set<uint32_t> side_cmds, side_pinned;  // --meet-rate: commands in flight, pins sent
  auto fence_free = [&](uint32_t qpn) {
    return !env.reset_fence().busy(qpn) && stress_resets.count(qpn) == 0 &&
           !env.placer().busy(qpn);
  };
  auto quiet = [&](uint32_t qpn) {
    return env.commands_in_flight(qpn) == 0 && env.dp_in_flight(qpn) == 0 &&
           !env.doorbell_pending(qpn) && fence_free(qpn);
  };
  auto command_ok = [&](uint32_t qpn) { return owned_set.count(qpn) == 0 && quiet(qpn); };
  auto dp_ok = [&](uint32_t qpn) {
    return (env.commands_in_flight(qpn) == 0 || stress_resets.count(qpn) != 0 ||
            side_cmds.count(qpn) != 0) &&
           !touched(qpn);
  };
  auto hostile_ok = [&](uint32_t qpn) { return owned_set.count(qpn) == 0 && dp_ok(qpn); };
  auto db_ok = [&](uint32_t qpn) {
    return env.commands_in_flight(qpn) == 0 && !env.doorbell_pending(qpn) && fence_free(qpn) &&
           !touched(qpn);
  };
  // Not to a QP in ERR or SQE: there each doorbell is flush work at once, and a stream
  // of them starves the flush of other QPs (a known liveness bug: docs/verification.md);
  // the doorbell storm on flushing QPs is a pressure knob of its own (--flush-storm).
  auto flushing = [&](uint32_t qpn) {
    if (!env.model().qpc_address(qpn)) return false;
    const Qpc &q = env.model().qpc(qpn);
    return q.valid && (q.state == static_cast<uint32_t>(QpState::Err) ||
                       q.state == static_cast<uint32_t>(QpState::Sqe));
  };
  auto hostile_db_ok = [&](uint32_t qpn) {
    return owned_set.count(qpn) == 0 && db_ok(qpn) && !flushing(qpn);
  };
  // The flush-storm pressure (--flush-storm): doorbells on exactly those QPs, each a
  // renewal of a flush that may be running.
  auto storm_ok = [&](uint32_t qpn) {
    return owned_set.count(qpn) == 0 && db_ok(qpn) && flushing(qpn);
  };
  auto view = [&](uint32_t qpn) {
    TransportModel::QpStatus st;
    if (env.model().qpc_address(qpn)) {
      const Qpc &q = env.model().qpc(qpn);
      st.exists = q.valid != 0;
      st.rts = st.exists && q.state == static_cast<uint32_t>(QpState::Rts);
      st.sqd = st.exists && q.state == static_cast<uint32_t>(QpState::Sqd);
      st.epoch = static_cast<uint8_t>(q.epoch);
    }
    return st;
  };
  stim.set_filter(command_ok);
  stim.set_max_pinned(16);

  std::bernoulli_distribution hostile_draw(o.hostile_rate), hostile_db_draw(o.hostile_rate / 200),
      stress_draw(o.reset_stress), destroy_draw(0.3), storm_draw(o.flush_storm),
      side_draw(o.meet_rate), side_pin_draw(0.3);
  std::uniform_int_distribution<uint16_t> storm_count(1, 8);
  uint64_t cmds = 0, seen = 0, last_progress = env.tb().cycles();
  // The datapath alone keeps a run progressing: a command that never answers is caught
  // on its own. The bound is wide: a command that waits for its QP's flush waits for
  // every completion the QP owes, at one flush step per 65 cycles under a saturated
  // datapath (docs/datapath.md), and each step may miss (the liveness issue's item 5).
  constexpr uint64_t kCmdStuckTimeouts = 10;
  constexpr size_t kStormOwedLimit = 64;
  uint64_t cmds_answered = 0, last_cmd_progress = env.tb().cycles();

  bool stopped = false;
  auto traffic = [&] {
    return env.commands_in_flight() + env.dp_in_flight() + env.doorbells_pending() > 0;
  };
  while (!stopped || !tm.idle() || held || traffic()) {
    const uint64_t now = env.tb().cycles();
    if (!stopped && cmds >= o.cmds) {
      tm.stop();
      stopped = true;
    }
    tm.tick(now);
    tm.maintain(view, quiet);
    for (auto it = stress_resets.begin(); it != stress_resets.end();) {
      const bool done = env.commands_in_flight(*it) == 0 && !env.reset_fence().busy(*it);
      it = done ? stress_resets.erase(it) : std::next(it);
    }
    for (auto it = side_cmds.begin(); it != side_cmds.end();) {
      it = env.commands_in_flight(*it) == 0 ? side_cmds.erase(it) : std::next(it);
    }
    if (global && !held && env.global_commands_in_flight() == 0) global.reset();  // answered
    const bool global_busy = held || env.global_commands_in_flight() > 0;
    // Commands: the pairs' bring-up first, then the random stream (or a stress reset).
    if (!global_busy && env.commands_in_flight() < kCmdDepth) {
      std::optional<Command> side;
      if (!stopped && side_draw(rng)) {
        // A QP of a running pair, one with operations in flight when there is one.
        const bool pin = side_pin_draw(rng);
        std::vector<uint32_t> busy, idle;
        for (uint32_t qpn : owned) {
          if (env.commands_in_flight(qpn) != 0 || !fence_free(qpn) || !view(qpn).rts) continue;
          if (pin && side_pinned.size() >= 2 && side_pinned.count(qpn) == 0) continue;
          (env.dp_in_flight(qpn) != 0 ? busy : idle).push_back(qpn);
        }
        const std::vector<uint32_t> &from = busy.empty() ? idle : busy;
        if (!from.empty()) {
          const uint32_t qpn = from[std::uniform_int_distribution<size_t>(0, from.size() - 1)(rng)];
          side = tm.side_command(qpn, pin, side_pinned.count(qpn) != 0);
        }
      }
      if (const std::optional<Command> c = tm.next_command(quiet)) {
        env.push_command(*c);
      } else if (side) {
        env.push_command(*side);
        side_cmds.insert(side->qpn);
        if (side->op == Opcode::PinQp) side_pinned.insert(side->qpn);
        if (side->op == Opcode::UnpinQp) side_pinned.erase(side->qpn);
        ++result.tp_side_commands;
      } else if (cmds < o.cmds && stress_draw(rng)) {
        std::vector<uint32_t> live;
        for (uint32_t qpn : owned) {
          if (env.commands_in_flight(qpn) == 0 && !env.doorbell_pending(qpn) && fence_free(qpn) &&
              view(qpn).rts) {
            live.push_back(qpn);
          }
        }
        if (!live.empty()) {
          const uint32_t qpn = live[std::uniform_int_distribution<size_t>(0, live.size() - 1)(rng)];
          // The engines are not told: they learn it from the answers (QUIESCE, STALE, a
          // new epoch, NO_QP), as a NIC's engines would, and the pair is brought up again.
          const Command c = stress_reset_command(qpn, destroy_draw(rng));
          env.push_command(c);
          stress_resets.insert(c.qpn);
          ++result.tp_stress_resets;
          ++cmds;
        }
      } else if (cmds < o.cmds && std::any_of(pool.begin(), pool.end(), command_ok)) {
        const Command c = stim.next();
        ++cmds;
        if (RandomStimulus::is_global(c)) {
          held = global = c;
          if (c.op == Opcode::PortFault) {
            for (uint32_t qpn : owned) {
              if (tm.port_of(qpn) == c.port_num) tm.software_broke(qpn);
            }
          }
        } else {
          env.push_command(c);
        }
      }
    }
    if (held && !env.any_in_flight(touched) && stress_resets.empty() &&
        env.commands_in_flight() < kCmdDepth) {
      env.push_command(*held);
      held.reset();
    }
    // Datapath operations, as fast as the port takes them.
    while (env.dp_queued() < kDpQueued && env.dp_in_flight() < kDpInFlight) {
      if (!stopped && hostile_draw(rng)) {
        if (const std::optional<uint32_t> qpn = hostile.pick_qpn(hostile_ok)) {
          env.push_dp(hostile.op(*qpn, env.dp_in_flight(*qpn)));
          continue;
        }
      }
      const std::optional<DpRequest> r = tm.next_op(dp_ok);
      if (!r) break;
      env.push_dp(*r);
    }
    if (env.doorbells().awaiting_counter() == 0) {
      std::optional<uint32_t> storm_qpn;
      // (No draw at all when off.) The storm keeps the flush engines busy, renewing
      // flushes that run, but stops adding work while 64 completions are owed: flush
      // work beyond what the engines drain under a saturated datapath starves the
      // commands that wait for a flush, a known liveness limit (docs/errors.md).
      if (!stopped && o.flush_storm > 0.0 && storm_draw(rng) &&
          env.cqes().outstanding() < kStormOwedLimit) {
        storm_qpn = hostile.pick_qpn(storm_ok, true);
      }
      if (storm_qpn) {
        env.push_doorbell(Doorbell{*storm_qpn, (rng() & 1) != 0, storm_count(rng)});
      } else if (!stopped && hostile_db_draw(rng)) {
        if (const std::optional<uint32_t> qpn = hostile.pick_qpn(hostile_db_ok, true)) {
          env.push_doorbell(hostile.doorbell(*qpn, env.dp_in_flight(*qpn)));
        }
      } else if (const std::optional<Doorbell> db = tm.next_doorbell(db_ok)) {
        env.push_doorbell(*db);
      }
    }
    if (now % 100000 == 0) {
      spdlog::info("transport: cycle {}: {} operations answered, {} pairs running, {} commands",
                   now, env.dp_scoreboard().checked(), tm.running_pairs(), cmds);
    }
    env.tb().tick();
    if (env.tb().assertion_failed()) break;
    if (env.progress() != seen) {
      seen = env.progress();
      last_progress = env.tb().cycles();
    }
    if (env.scoreboard().checked() != cmds_answered || env.commands_in_flight() == 0) {
      cmds_answered = env.scoreboard().checked();
      last_cmd_progress = env.tb().cycles();
    }
    const bool cmd_stuck =
        env.tb().cycles() - last_cmd_progress > kCmdStuckTimeouts * env.command_timeout();
    if (cmd_stuck || env.tb().cycles() - last_progress > env.command_timeout()) {
      for (const Command &c : env.commands_pending()) spdlog::error("in flight: {}", format_command(c));
      spdlog::error("{}", tm.describe());
      throw std::runtime_error(fmt::format(
          "timeout: no {}progress for {} cycles ({} commands, {} datapath operations, {} "
          "doorbells in flight, {} completions owed, flush engine {})",
          cmd_stuck ? "command " : "",
          (cmd_stuck ? kCmdStuckTimeouts : 1) * env.command_timeout(), env.commands_in_flight(),
          env.dp_in_flight(),
          env.doorbells_pending(), env.cqes().outstanding(),
          env.tb().dut().flush_busy() ? "busy" : "idle"));
    }
  }
  env.set_dp_listener(nullptr);
  if (!env.tb().assertion_failed()) env.drain();
  const TransportModel::Stats &s = tm.stats();
  result.transport = true;
  result.tp_pairs = pairs;
  result.tp_wqes_posted = s.wqes_posted;
  result.tp_wqes_issued = s.wqes_issued;
  result.tp_packets = s.packets;
  result.tp_lost = s.lost;
  result.tp_duplicated = s.duplicated;
  result.tp_reordered = s.reordered;
  result.tp_retransmits = s.retransmits;
  result.tp_acks = s.acks;
  result.tp_recoveries = s.recoveries;
  result.tp_dmas = s.dmas;
  result.tp_reads_issued = s.reads_issued;
  result.tp_atomics_issued = s.atomics_issued;
  result.tp_reads_acked = s.reads_acked;
  result.tp_sq_drains = s.sq_drains;
  result.tp_side_met = env.placer().met();
}

}  // namespace qpm
