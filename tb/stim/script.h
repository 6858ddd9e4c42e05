// The script language of SPEC.md §13: parsing a line into an operation, and printing
// commands and answers in the same words.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

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
  enum class Kind { Command, Run };
  Kind kind = Kind::Command;
  std::string verb;  // the line's first word
  Command cmd;       // Kind::Command
  uint64_t cycles = 0;  // Kind::Run
};

// Parses one line. Returns nullopt for blank and comment-only lines; throws ScriptError
// for a malformed line and for words of operations not implemented yet.
std::optional<ScriptOp> parse_script_line(const std::string &text, int line_no);

// A script line that reproduces cmd exactly.
std::string format_command(const Command &cmd);

// The answer line for an executed command: the verb and its identifying word, then the
// status and what the response carries (SPEC §13).
std::string format_answer(const ScriptOp &op, const Response &rsp);

}  // namespace qpm
