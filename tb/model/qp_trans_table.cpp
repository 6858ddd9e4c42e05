#include "qp_trans_table.h"

#include <array>
#include <sstream>
#include <stdexcept>
#include <string>

namespace qpm {
namespace {

// Appendix A of ib-qp-state-table.md, verbatim, so it can be diffed against the source.
constexpr const char *kTransCsv = R"CSV(
RC,RESET,RESET,0x0000000,0x0000000
RC,RESET,INIT,0x0000038,0x0000000
RC,INIT,RESET,0x0000000,0x0000000
RC,INIT,INIT,0x0000000,0x0000038
RC,INIT,RTR,0x0129180,0x0004018
RC,INIT,ERR,0x0000000,0x0000000
RC,RTR,RESET,0x0000000,0x0000000
RC,RTR,RTS,0x0012e00,0x004c00a
RC,RTR,ERR,0x0000000,0x0000000
RC,RTS,RESET,0x0000000,0x0000000
RC,RTS,RTS,0x0000000,0x004c00a
RC,RTS,SQD,0x0000000,0x0000004
RC,RTS,ERR,0x0000000,0x0000000
RC,SQD,RESET,0x0000000,0x0000000
RC,SQD,RTS,0x0000000,0x004c00a
RC,SQD,SQD,0x0000000,0x006eeb8
RC,SQD,ERR,0x0000000,0x0000000
RC,SQE,RESET,0x0000000,0x0000000
RC,SQE,RTS,0x0000000,0x0000000
RC,SQE,ERR,0x0000000,0x0000000
RC,ERR,RESET,0x0000000,0x0000000
RC,ERR,ERR,0x0000000,0x0000000
UC,RESET,RESET,0x0000000,0x0000000
UC,RESET,INIT,0x0000038,0x0000000
UC,INIT,RESET,0x0000000,0x0000000
UC,INIT,INIT,0x0000000,0x0000038
UC,INIT,RTR,0x0101180,0x0004018
UC,INIT,ERR,0x0000000,0x0000000
UC,RTR,RESET,0x0000000,0x0000000
UC,RTR,RTS,0x0010000,0x004400a
UC,RTR,ERR,0x0000000,0x0000000
UC,RTS,RESET,0x0000000,0x0000000
UC,RTS,RTS,0x0000000,0x004400a
UC,RTS,SQD,0x0000000,0x0000004
UC,RTS,ERR,0x0000000,0x0000000
UC,SQD,RESET,0x0000000,0x0000000
UC,SQD,RTS,0x0000000,0x004400a
UC,SQD,SQD,0x0000000,0x0044098
UC,SQD,ERR,0x0000000,0x0000000
UC,SQE,RESET,0x0000000,0x0000000
UC,SQE,RTS,0x0000000,0x000000a
UC,SQE,ERR,0x0000000,0x0000000
UC,ERR,RESET,0x0000000,0x0000000
UC,ERR,ERR,0x0000000,0x0000000
UD,RESET,RESET,0x0000000,0x0000000
UD,RESET,INIT,0x0000070,0x0000000
UD,INIT,RESET,0x0000000,0x0000000
UD,INIT,INIT,0x0000000,0x0000070
UD,INIT,RTR,0x0000000,0x0000050
UD,INIT,ERR,0x0000000,0x0000000
UD,RTR,RESET,0x0000000,0x0000000
UD,RTR,RTS,0x0010000,0x0000042
UD,RTR,ERR,0x0000000,0x0000000
UD,RTS,RESET,0x0000000,0x0000000
UD,RTS,RTS,0x0000000,0x0000042
UD,RTS,SQD,0x0000000,0x0000004
UD,RTS,ERR,0x0000000,0x0000000
UD,SQD,RESET,0x0000000,0x0000000
UD,SQD,RTS,0x0000000,0x0000042
UD,SQD,SQD,0x0000000,0x0000050
UD,SQD,ERR,0x0000000,0x0000000
UD,SQE,RESET,0x0000000,0x0000000
UD,SQE,RTS,0x0000000,0x0000042
UD,SQE,ERR,0x0000000,0x0000000
UD,ERR,RESET,0x0000000,0x0000000
UD,ERR,ERR,0x0000000,0x0000000
)CSV";

// A typo in the literal must fail loudly at start-up, not become a silent table hole.
[[noreturn]] void bad_row(const std::string &line, const char *why) {
  throw std::logic_error("qp_trans_table: bad CSV row '" + line + "': " + why);
}

uint32_t parse_hex(const std::string &field, const std::string &line) {
  if (field.size() < 3 || field.compare(0, 2, "0x") != 0) bad_row(line, "mask not 0x...");
  size_t used = 0;
  const unsigned long v = std::stoul(field, &used, 16);
  if (used != field.size()) bad_row(line, "mask not hex");
  return static_cast<uint32_t>(v);
}

std::vector<TransRow> parse_table(const char *csv) {
  std::vector<TransRow> rows;
  std::istringstream in(csv);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::vector<std::string> f;
    std::istringstream ls(line);
    std::string cell;
    while (std::getline(ls, cell, ',')) f.push_back(cell);
    if (f.size() != 5) bad_row(line, "expected 5 fields");
    const auto type = type_from_name(f[0]);
    const auto cur = state_from_name(f[1]);
    const auto next = state_from_name(f[2]);
    if (!type || !cur || !next) bad_row(line, "unknown type or state");
    rows.push_back({static_cast<QpType>(*type), static_cast<QpState>(*cur),
                    static_cast<QpState>(*next), parse_hex(f[3], line),
                    parse_hex(f[4], line)});
  }
  return rows;
}

constexpr uint32_t kFirstType = static_cast<uint32_t>(QpType::RC);
constexpr uint32_t kNumTypes = 3;  // RC, UC, UD are consecutive ib_qp_type values

using Grid =
    std::array<std::array<std::array<TransEntry, kNumStates>, kNumStates>, kNumTypes>;

// Dense [type][cur][next] index over kTransTable, built on first use.
const Grid &grid() {
  static const Grid g = [] {
    Grid out{};  // value-initialised: every entry {false, 0, 0}
    for (const TransRow &r : kTransTable) {
      TransEntry &e = out[static_cast<uint32_t>(r.type) - kFirstType]
                         [static_cast<uint32_t>(r.cur)][static_cast<uint32_t>(r.next)];
      if (e.valid) throw std::logic_error("qp_trans_table: duplicate row");
      e = {true, r.req, r.opt};
    }
    return out;
  }();
  return g;
}

}  // namespace

const std::vector<TransRow> kTransTable = parse_table(kTransCsv);

TransEntry lookup_transition(uint32_t qp_type, uint32_t cur, uint32_t next) {
  if (qp_type < kFirstType || qp_type >= kFirstType + kNumTypes || cur >= kNumStates ||
      next >= kNumStates) {
    return {false, 0, 0};
  }
  return grid()[qp_type - kFirstType][cur][next];
}

}  // namespace qpm
