// The script language of SPEC.md §13: parsing a line into an operation, and printing
// commands and answers in the same words.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "datapath.h"
#include "qpm_types.h"

namespace qpm {

// A malformed script line; what() names the line number.
class ScriptError : public std::runtime_error {
 public:
  ScriptError(int line, const std::string &msg)
      : std::runtime_error("line " + std::to_string(line) + ": " + msg), line_(line) {}
  int line() const { return line_; }

 private:
  int line_;
};

struct ScriptOp {
  enum class Kind { Command, Run, Datapath, Doorbell };
  Kind kind = Kind::Command;
  std::string verb;  // the line's first word
  Command cmd;       // Kind::Command
  uint64_t cycles = 0;  // Kind::Run
  DpRequest dp;      // Kind::Datapath: rx, rx_resp_done, tx, ack, timeout, rnr, nak,
                     // dma_begin, dma_end (tag 0)
  Doorbell db;       // Kind::Doorbell
};

// Parses one line. Returns nullopt for blank and comment-only lines; throws ScriptError
// for a malformed line and for words of operations not implemented yet.
// datapath: parse the datapath words of SPEC §13 (doorbell, rx, rx_resp_done, tx, ack,
// timeout, rnr, nak, dma_begin, dma_end) into Kind::Datapath / Kind::Doorbell (the
// script runner passes true). Without it they are "not supported yet".
std::optional<ScriptOp> parse_script_line(const std::string &text, int line_no,
                                          bool datapath = false);

// A script line that reproduces a datapath request (its tag is not part of the line) or
// a doorbell exactly.
std::string format_dp_request(const DpRequest &req);
std::string format_doorbell(const Doorbell &db);

// A script line that reproduces cmd exactly.
std::string format_command(const Command &cmd);

// The answer line for an executed command: the verb and its identifying word, then the
// status and what the response carries (SPEC §13).
std::string format_answer(const ScriptOp &op, const Response &rsp);

// The answer line of a datapath operation: the verb, its QPN and the verdict, with the
// drop reason of a DROP and the PSN of an ISSUE: "rx qpn=0x10 verdict=ACCEPT",
// "tx qpn=0x10 verdict=ISSUE psn=200", "ack qpn=0x10 verdict=DROP drop=COUNT".
std::string format_dp_answer(const ScriptOp &op, const DpResponse &rsp);
// The line of a doorbell: its words and what the RTL did with it,
// "doorbell qpn=0x10 queue=sq n=4 result=POSTED" (or REFUSED).
std::string format_doorbell_answer(const ScriptOp &op, bool posted);
// An EQE as SPEC §13 prints it: "eqe qpn=0x10 type=COMM_EST", "eqe port=1 type=PORT_ERR",
// with " syndrome=N" when it is not 0.
std::string format_event(const Event &e);

}  // namespace qpm
