#include "script.h"

#include <fmt/format.h>

#include <cctype>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <vector>

namespace qpm {

namespace {

// Words of SPEC §13 whose operations arrive with later steps (datapath, errors).
// The datapath words of SPEC §13 and the operation each names (doorbell aside).
const std::map<std::string, DpOp> kDatapathWords = {
    {"rx", DpOp::RxReq},       {"rx_resp_done", DpOp::RxRespDone},
    {"tx", DpOp::TxWqe},       {"ack", DpOp::RxAck},
    {"timeout", DpOp::Timeout}, {"rnr", DpOp::RnrNak},
    {"nak", DpOp::RxNak},      {"dma_begin", DpOp::DmaBegin},
    {"dma_end", DpOp::DmaEnd}};

uint64_t parse_number(const std::string &key, const std::string &text, int line) {
  if (text.empty() || text[0] == '-' || text[0] == '+') {
    throw ScriptError(line, "'" + key + "' needs a non-negative number, got '" + text + "'");
  }
  size_t used = 0;
  uint64_t v = 0;
  try {
    v = std::stoull(text, &used, 0);
  } catch (const std::exception &) {
    used = 0;
  }
  if (used != text.size()) {
    throw ScriptError(line, "'" + key + "' needs a number, got '" + text + "'");
  }
  return v;
}

uint64_t check_width(const std::string &key, uint64_t v, unsigned bits, int line) {
  if (bits < 64 && v >> bits) {
    throw ScriptError(line, fmt::format("'{}={:#x}' does not fit the command's {}-bit field",
                                        key, v, bits));
  }
  return v;
}

// A MODIFY_QP attribute as a script key: which mask bit it belongs to, the width of its
// command field, the value used when the mask names it but the line gives none, and
// where it lives in the command.
struct AttrKey {
  const char *key;
  uint32_t bit;
  unsigned bits;
  uint32_t default_value;
  uint32_t Command::*field;
  uint32_t AddressVector::*av_field;  // for av / alt_av parts, else nullptr
  bool alt;
};

const std::vector<AttrKey> &attr_keys() {
  static const std::vector<AttrKey> keys = {
      {"state", attr::kState, 8, 0, &Command::qp_state, nullptr, false},
      {"cur_state", attr::kCurState, 8, 0, &Command::cur_qp_state, nullptr, false},
      {"en_sqd_async_notify", attr::kEnSqdAsyncNotify, 8, 1, &Command::en_sqd_async_notify,
       nullptr, false},
      {"access_flags", attr::kAccessFlags, 32, 0, &Command::qp_access_flags, nullptr, false},
      {"pkey_index", attr::kPkeyIndex, 16, 0, &Command::pkey_index, nullptr, false},
      {"port", attr::kPort, 8, 1, &Command::port_num, nullptr, false},
      {"qkey", attr::kQkey, 32, 0, &Command::qkey, nullptr, false},
      {"dlid", attr::kAv, 16, 0, nullptr, &AddressVector::dlid, false},
      {"sl", attr::kAv, 8, 0, nullptr, &AddressVector::sl, false},
      {"sgid_index", attr::kAv, 8, 0, nullptr, &AddressVector::sgid_index, false},
      {"path_mtu", attr::kPathMtu, 8, 3, &Command::path_mtu, nullptr, false},
      {"timeout", attr::kTimeout, 8, 14, &Command::timeout, nullptr, false},
      {"retry_cnt", attr::kRetryCnt, 8, 7, &Command::retry_cnt, nullptr, false},
      {"rnr_retry", attr::kRnrRetry, 8, 7, &Command::rnr_retry, nullptr, false},
      {"rq_psn", attr::kRqPsn, 32, 0, &Command::rq_psn, nullptr, false},
      {"max_rd_atomic", attr::kMaxQpRdAtomic, 8, 1, &Command::max_rd_atomic, nullptr, false},
      {"alt_dlid", attr::kAltPath, 16, 0, nullptr, &AddressVector::dlid, true},
      {"alt_sl", attr::kAltPath, 8, 0, nullptr, &AddressVector::sl, true},
      {"alt_sgid_index", attr::kAltPath, 8, 0, nullptr, &AddressVector::sgid_index, true},
      {"alt_pkey_index", attr::kAltPath, 16, 0, &Command::alt_pkey_index, nullptr, false},
      {"alt_port", attr::kAltPath, 8, 1, &Command::alt_port_num, nullptr, false},
      {"alt_timeout", attr::kAltPath, 8, 14, &Command::alt_timeout, nullptr, false},
      {"min_rnr_timer", attr::kMinRnrTimer, 8, 12, &Command::min_rnr_timer, nullptr, false},
      {"sq_psn", attr::kSqPsn, 32, 0, &Command::sq_psn, nullptr, false},
      {"max_dest_rd_atomic", attr::kMaxDestRdAtomic, 8, 1, &Command::max_dest_rd_atomic,
       nullptr, false},
      {"path_mig_state", attr::kPathMigState, 8, 0, &Command::path_mig_state, nullptr, false},
      {"dest_qpn", attr::kDestQpn, 32, 0, &Command::dest_qp_num, nullptr, false},
  };
  return keys;
}

uint32_t &attr_ref(Command &c, const AttrKey &k) {
  if (!k.av_field) return c.*k.field;
  // Bind the vector first: g++ 12 applies .* to a copy of a conditional's result.
  AddressVector &av = k.alt ? c.alt_av : c.av;
  return av.*k.av_field;
}
uint32_t attr_value(const Command &c, const AttrKey &k) {
  if (!k.av_field) return c.*k.field;
  const AddressVector &av = k.alt ? c.alt_av : c.av;
  return av.*k.av_field;
}

// key=value words of one line, in order, each key once.
class Words {
 public:
  Words(const std::vector<std::string> &tokens, int line) : line_(line) {
    for (size_t i = 1; i < tokens.size(); ++i) {
      const auto eq = tokens[i].find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == tokens[i].size()) {
        throw ScriptError(line, "expected key=value, got '" + tokens[i] + "'");
      }
      const std::string key = tokens[i].substr(0, eq);
      if (values_.count(key)) throw ScriptError(line, "'" + key + "' given twice");
      values_[key] = tokens[i].substr(eq + 1);
    }
  }
  bool has(const std::string &key) const { return values_.count(key) != 0; }
  const std::string &text(const std::string &key) {
    auto it = values_.find(key);
    if (it == values_.end()) throw ScriptError(line_, "missing '" + key + "='");
    used_.insert(key);
    return it->second;
  }
  uint64_t number(const std::string &key, unsigned bits) {
    return check_width(key, parse_number(key, text(key), line_), bits, line_);
  }
  uint64_t number_or(const std::string &key, unsigned bits, uint64_t dflt) {
    return has(key) ? number(key, bits) : dflt;
  }
  // Every word must have been understood.
  void finish(const std::string &verb) const {
    for (const auto &[key, value] : values_) {
      if (!used_.count(key)) throw ScriptError(line_, "'" + verb + "' takes no '" + key + "='");
    }
  }
  int line() const { return line_; }

 private:
  int line_;
  std::map<std::string, std::string> values_;
  std::set<std::string> used_;
};

uint32_t parse_state(Words &w, const std::string &key) {
  const std::string &t = w.text(key);
  if (auto s = state_from_name(t)) return *s;
  return static_cast<uint32_t>(check_width(key, parse_number(key, t, w.line()), 8, w.line()));
}

uint32_t parse_mask(Words &w) {
  const std::string &t = w.text("mask");
  if (!t.empty() && std::isdigit(static_cast<unsigned char>(t[0]))) {
    return static_cast<uint32_t>(check_width("mask", parse_number("mask", t, w.line()), 32,
                                             w.line()));
  }
  uint32_t mask = 0;
  std::stringstream ss(t);
  std::string word;
  while (std::getline(ss, word, '|')) {
    auto bit = mask_bit_from_name(word);
    if (!bit) throw ScriptError(w.line(), "unknown mask word '" + word + "'");
    mask |= *bit;
  }
  return mask;
}

void parse_modify(Words &w, Command &c) {
  c.attr_mask = parse_mask(w);
  for (const auto &k : attr_keys()) {
    const bool in_mask = (c.attr_mask & k.bit) != 0;
    if (w.has(k.key) && !in_mask) {
      throw ScriptError(w.line(), fmt::format("'{}=' given but {} is not in the mask", k.key,
                                              mask_names(k.bit)));
    }
    if (!in_mask) continue;
    uint32_t v = k.default_value;
    if (k.bit == attr::kState || k.bit == attr::kCurState) {
      v = parse_state(w, k.key);  // no sensible default: the line must say it
    } else if (w.has(k.key)) {
      v = static_cast<uint32_t>(w.number(k.key, k.bits));
    }
    attr_ref(c, k) = v;
  }
}

std::string hex(uint64_t v) { return fmt::format("{:#x}", v); }

// A name of a datapath enum (from_string), or a number that fits its port field.
template <typename E>
E parse_enum(Words &w, const std::string &key, unsigned bits) {
  const std::string &t = w.text(key);
  if (auto v = from_string<E>(t)) return *v;
  if (t.empty() || !std::isdigit(static_cast<unsigned char>(t[0]))) {
    throw ScriptError(w.line(), "unknown " + key + " '" + t + "'");
  }
  return static_cast<E>(check_width(key, parse_number(key, t, w.line()), bits, w.line()));
}

// Port field widths of dp_req_t / doorbell_t (docs/datapath.md).
constexpr unsigned kQpnBits = 24, kPsnBits = 24, kCountBits = 16;

void parse_datapath(Words &w, DpOp dp_op, DpRequest &r) {
  r.op = dp_op;
  r.qpn = static_cast<uint32_t>(w.number("qpn", kQpnBits));
  switch (dp_op) {
    case DpOp::RxReq:
      r.cls = parse_enum<MsgClass>(w, "op", 2);
      r.pos = parse_enum<PktPos>(w, "pos", 2);
      r.psn = static_cast<uint32_t>(w.number("psn", kPsnBits));
      r.qkey = static_cast<uint32_t>(w.number_or("qkey", 32, 0));
      break;
    case DpOp::TxWqe:
      r.cls = parse_enum<MsgClass>(w, "op", 2);
      r.npkts = static_cast<uint32_t>(w.number("npkts", kPsnBits));
      break;
    case DpOp::RxAck:
      r.wqes = static_cast<uint16_t>(w.number("wqes", 16));
      r.reads = static_cast<uint8_t>(w.number("reads", 8));
      break;
    case DpOp::RxNak:
      r.code = parse_enum<NakCode>(w, "code", 2);
      break;
    case DpOp::DmaBegin:
    case DpOp::DmaEnd:
      r.epoch = static_cast<uint8_t>(w.number("epoch", 8));
      break;
    case DpOp::RxRespDone:
    case DpOp::Timeout:
    case DpOp::RnrNak:
      break;
  }
}

void parse_doorbell(Words &w, Doorbell &db) {
  db.qpn = static_cast<uint32_t>(w.number("qpn", kQpnBits));
  const std::string &queue = w.text("queue");
  if (queue != "sq" && queue != "rq") {
    throw ScriptError(w.line(), "'queue' is sq or rq, got '" + queue + "'");
  }
  db.rq = queue == "rq";
  db.count = static_cast<uint16_t>(w.number("n", kCountBits));
}

}  // namespace

std::optional<ScriptOp> parse_script_line(const std::string &text, int line_no,
                                          bool datapath) {
  const std::string body = text.substr(0, text.find('#'));
  std::vector<std::string> tokens;
  std::stringstream ss(body);
  for (std::string t; ss >> t;) tokens.push_back(t);
  if (tokens.empty()) return std::nullopt;

  ScriptOp op;
  op.verb = tokens[0];
  const auto dp_word = kDatapathWords.find(op.verb);
  const bool is_dp = dp_word != kDatapathWords.end() || op.verb == "doorbell";
  if (is_dp && !datapath) {
    throw ScriptError(line_no, "'" + op.verb + "' is not supported yet");
  }
  Words w(tokens, line_no);
  Command &c = op.cmd;
  auto qpn = [&] { c.qpn = static_cast<uint32_t>(w.number("qpn", 32)); };

  if (op.verb == "map_page" || op.verb == "unmap_page") {
    c.op = op.verb == "map_page" ? Opcode::MapPage : Opcode::UnmapPage;
    c.dir_index = static_cast<uint32_t>(w.number("dir", 32));
    if (c.op == Opcode::MapPage) c.page_address = w.number("addr", 64);
  } else if (op.verb == "create") {
    c.op = Opcode::CreateQp;
    qpn();
    const std::string &t = w.text("type");
    auto type = type_from_name(t);
    c.qp_type = type ? *type : static_cast<uint32_t>(check_width(
                                   "type", parse_number("type", t, line_no), 8, line_no));
    c.pd = static_cast<uint32_t>(w.number_or("pd", 32, 0));
    c.cqn_snd = static_cast<uint32_t>(w.number_or("cqn_snd", 32, 0));
    c.cqn_rcv = static_cast<uint32_t>(w.number_or("cqn_rcv", 32, 0));
    c.log_sq_size = static_cast<uint32_t>(w.number_or("sq_log", 8, 6));
    c.log_rq_size = static_cast<uint32_t>(w.number_or("rq_log", 8, 6));
  } else if (op.verb == "modify") {
    c.op = Opcode::ModifyQp;
    qpn();
    parse_modify(w, c);
  } else if (op.verb == "query" || op.verb == "destroy" || op.verb == "pin" ||
             op.verb == "unpin") {
    c.op = op.verb == "query"     ? Opcode::QueryQp
           : op.verb == "destroy" ? Opcode::DestroyQp
           : op.verb == "pin"     ? Opcode::PinQp
                                  : Opcode::UnpinQp;
    qpn();
  } else if (op.verb == "sync") {
    c.op = Opcode::SyncCache;
  } else if (op.verb == "port_fault") {
    c.op = Opcode::PortFault;
    c.port_num = static_cast<uint32_t>(w.number("port", 8));
  } else if (op.verb == "cmd") {  // any opcode byte, for unknown-opcode checks
    c.use_raw_op = true;
    c.raw_op = static_cast<uint8_t>(w.number("opcode", 8));
    c.qpn = static_cast<uint32_t>(w.number_or("qpn", 32, 0));
  } else if (op.verb == "run") {
    op.kind = ScriptOp::Kind::Run;
    op.cycles = w.number("cycles", 32);
  } else if (op.verb == "doorbell") {
    op.kind = ScriptOp::Kind::Doorbell;
    parse_doorbell(w, op.db);
  } else if (dp_word != kDatapathWords.end()) {
    op.kind = ScriptOp::Kind::Datapath;
    parse_datapath(w, dp_word->second, op.dp);
  } else {
    throw ScriptError(line_no, "unknown word '" + op.verb + "'");
  }
  w.finish(op.verb);
  return op;
}

std::string format_command(const Command &c) {
  if (c.use_raw_op) return fmt::format("cmd opcode={:#04x} qpn={}", c.raw_op, hex(c.qpn));
  switch (c.op) {
    case Opcode::MapPage:
      return fmt::format("map_page dir={} addr={}", c.dir_index, hex(c.page_address));
    case Opcode::UnmapPage:
      return fmt::format("unmap_page dir={}", c.dir_index);
    case Opcode::CreateQp: {
      const char *t = type_name(c.qp_type);
      const std::string type = std::string(t) == "UNKNOWN" ? std::to_string(c.qp_type) : t;
      return fmt::format("create qpn={} type={} pd={} cqn_snd={} cqn_rcv={} sq_log={} rq_log={}",
                         hex(c.qpn), type, c.pd, c.cqn_snd, c.cqn_rcv, c.log_sq_size,
                         c.log_rq_size);
    }
    case Opcode::ModifyQp: {
      std::string s = fmt::format("modify qpn={} mask={}", hex(c.qpn),
                                  c.attr_mask ? mask_names(c.attr_mask) : "0");
      // Mask bits without a name of their own (reserved, CAP, RATE_LIMIT) still print as
      // a word; a number keeps them exact.
      if (mask_names(c.attr_mask).find("BIT") != std::string::npos) {
        s = fmt::format("modify qpn={} mask={}", hex(c.qpn), hex(c.attr_mask));
      }
      for (const auto &k : attr_keys()) {
        if (!(c.attr_mask & k.bit)) continue;
        const uint32_t v = attr_value(c, k);
        if ((k.bit == attr::kState || k.bit == attr::kCurState) && v < kNumStates) {
          s += fmt::format(" {}={}", k.key, state_name(v));
        } else {
          s += fmt::format(" {}={}", k.key, v);
        }
      }
      return s;
    }
    case Opcode::QueryQp:
      return "query qpn=" + hex(c.qpn);
    case Opcode::DestroyQp:
      return "destroy qpn=" + hex(c.qpn);
    case Opcode::PinQp:
      return "pin qpn=" + hex(c.qpn);
    case Opcode::UnpinQp:
      return "unpin qpn=" + hex(c.qpn);
    case Opcode::SyncCache:
      return "sync";
    case Opcode::PortFault:
      return fmt::format("port_fault port={}", c.port_num);
  }
  return fmt::format("cmd opcode={:#04x} qpn={}", c.opcode_byte(), hex(c.qpn));
}

std::string format_dp_request(const DpRequest &r) {
  std::string verb = "?";
  for (const auto &[word, dp_op] : kDatapathWords) {
    if (dp_op == r.op) verb = word;
  }
  std::string s = fmt::format("{} qpn={}", verb, hex(r.qpn));
  switch (r.op) {
    case DpOp::RxReq:
      s += fmt::format(" op={} pos={} psn={}", to_string(r.cls), to_string(r.pos), r.psn);
      if (r.qkey != 0) s += " qkey=" + hex(r.qkey);
      break;
    case DpOp::TxWqe:
      s += fmt::format(" op={} npkts={}", to_string(r.cls), r.npkts);
      break;
    case DpOp::RxAck:
      s += fmt::format(" wqes={} reads={}", unsigned{r.wqes}, unsigned{r.reads});
      break;
    case DpOp::RxNak:
      s += " code=" + (to_string(r.code) == "UNKNOWN" ? std::to_string(static_cast<int>(r.code))
                                                      : to_string(r.code));
      break;
    case DpOp::DmaBegin:
    case DpOp::DmaEnd:
      s += fmt::format(" epoch={}", unsigned{r.epoch});
      break;
    case DpOp::RxRespDone:
    case DpOp::Timeout:
    case DpOp::RnrNak:
      break;
  }
  return s;
}

std::string format_doorbell(const Doorbell &db) {
  return fmt::format("doorbell qpn={} queue={} n={}", hex(db.qpn), db.rq ? "rq" : "sq",
                     db.count);
}

namespace {

std::string format_qpc(const Qpc &q) {
  std::string s;
  // Offset order, valid and state first.
  for (auto it = kQpcLayout.rbegin(); it != kQpcLayout.rend(); ++it) {
    const std::string name = it->name;
    if (name == "reserved" || name == "ev_pending" || name == "ev_fatal_port" ||
        name == "ev_fatal_write")
      continue;
    const uint32_t v = q.*it->member;
    if (name == "state") {
      s += fmt::format(" state={}", state_name(v));
    } else if (name == "qp_type") {
      s += fmt::format(" qp_type={}", type_name(v));
    } else if (name == "dest_qpn" || name == "qkey" || name == "access_flags") {
      s += fmt::format(" {}={:#x}", name, v);
    } else {
      s += fmt::format(" {}={}", name, v);
    }
  }
  return s;
}

}  // namespace

std::string format_answer(const ScriptOp &op, const Response &rsp) {
  const Command &c = op.cmd;
  std::string s = op.verb;
  if (c.use_raw_op) {
    s += fmt::format(" opcode={:#04x}", c.raw_op);
  } else if (c.op == Opcode::MapPage || c.op == Opcode::UnmapPage) {
    s += fmt::format(" dir={}", c.dir_index);
  } else if (c.op == Opcode::PortFault) {
    s += fmt::format(" port={}", c.port_num);
  } else if (c.op != Opcode::SyncCache) {
    s += " qpn=" + hex(c.qpn);
  }
  s += fmt::format(" status={}", status_name(rsp.status));
  if (rsp.syndrome.missing) s += " missing=" + mask_names(rsp.syndrome.missing);
  if (rsp.syndrome.forbidden) s += " forbidden=" + mask_names(rsp.syndrome.forbidden);
  if (rsp.syndrome.bad_value) s += " bad_value=" + mask_names(rsp.syndrome.bad_value);
  if (rsp.status == Status::Ok && !c.use_raw_op) {
    if (c.op == Opcode::QueryQp) {
      s += format_qpc(rsp.qpc);
    } else if (c.op == Opcode::CreateQp || c.op == Opcode::ModifyQp) {
      s += fmt::format(" state={}", state_name(rsp.qpc.state));
    }
  }
  return s;
}

}  // namespace qpm

namespace qpm {

std::string format_dp_answer(const ScriptOp &op, const DpResponse &rsp) {
  std::string s = fmt::format("{} qpn={} verdict={}", op.verb, hex(op.dp.qpn & kPsnMask),
                              to_string(rsp.verdict));
  if (rsp.verdict == Verdict::Drop) s += " drop=" + to_string(rsp.drop);
  if (rsp.verdict == Verdict::Issue) s += fmt::format(" psn={}", rsp.psn);
  return s;
}

std::string format_doorbell_answer(const ScriptOp &op, bool posted) {
  return format_doorbell(op.db) + (posted ? " result=POSTED" : " result=REFUSED");
}

std::string format_event(const Event &e) {
  std::string s = e.is_port ? fmt::format("eqe port={} type={}", e.qpn, to_string(e.type))
                            : fmt::format("eqe qpn={} type={}", hex(e.qpn), to_string(e.type));
  if (e.syndrome != 0) s += fmt::format(" syndrome={}", unsigned{e.syndrome});
  return s;
}

}  // namespace qpm
