#include "script_runner.h"

#include "script.h"

namespace qpm {

ScriptResult run_script(QpmEnv &env, std::istream &in, std::ostream &out) {
  ScriptResult result;
  std::string text;
  for (int line_no = 1; std::getline(in, text); ++line_no) {
    std::optional<ScriptOp> op;
    try {
      op = parse_script_line(text, line_no);
    } catch (const ScriptError &e) {
      result.error = e.what();
      return result;
    }
    if (!op) continue;
    ++result.lines;
    if (op->kind == ScriptOp::Kind::Run) {
      env.run_cycles(op->cycles);
      out << "run cycles=" << op->cycles << "\n";
      continue;
    }
    const uint64_t before = env.scoreboard().mismatches();
    const Response rsp = env.execute(op->cmd);
    out << format_answer(*op, rsp) << "\n";
    if (env.scoreboard().mismatches() != before) {
      ++result.mismatches;
      out << "# line " << line_no << ": MISMATCH, the model answers: "
          << format_answer(*op, env.scoreboard().last_expected()) << "\n";
    }
  }
  return result;
}

}  // namespace qpm
