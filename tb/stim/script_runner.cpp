#include "script_runner.h"

#include "script.h"

namespace qpm {

namespace {

// Everything the harness counts as a disagreement with the model. Each line waits until
// nothing is in flight, so an EQE the model has not raised by then is one too many.
uint64_t disagreements(QpmEnv &env) {
  return env.scoreboard().mismatches() + env.dp_scoreboard().mismatches() +
         env.events().mismatches() + env.events().unexpected() + env.cqes().mismatches() +
         env.cqes().unexpected() +
         env.doorbells().problems().size();
}

}  // namespace

ScriptResult run_script(QpmEnv &env, std::istream &in, std::ostream &out) {
  ScriptResult result;
  std::string text;
  for (int line_no = 1; std::getline(in, text); ++line_no) {
    std::optional<ScriptOp> op;
    try {
      op = parse_script_line(text, line_no, true);
    } catch (const ScriptError &e) {
      result.error = e.what();
      return result;
    }
    if (!op) continue;
    ++result.lines;
    const uint64_t before = disagreements(env);
    std::string model_says;
    switch (op->kind) {
      case ScriptOp::Kind::Run:
        env.run_cycles(op->cycles);
        out << "run cycles=" << op->cycles << "\n";
        break;
      case ScriptOp::Kind::Command: {
        const Response rsp = env.execute(op->cmd);
        out << format_answer(*op, rsp) << "\n";
        model_says = format_answer(*op, env.last_expected());
        break;
      }
      case ScriptOp::Kind::Datapath: {
        const DpResponse rsp = env.execute_dp(op->dp);
        out << format_dp_answer(*op, rsp) << "\n";
        model_says = format_dp_answer(*op, env.dp_scoreboard().last_expected());
        break;
      }
      case ScriptOp::Kind::Doorbell:
        out << format_doorbell_answer(*op, env.ring(op->db)) << "\n";
        break;
    }
    // The events that came out meanwhile (each already checked against the model).
    for (const Cqe &c : env.cqes().take_arrivals()) out << format_cqe(c) << "\n";
    for (const Event &e : env.events().take_arrivals()) out << format_event(e) << "\n";
    if (disagreements(env) != before) {
      ++result.mismatches;
      out << "# line " << line_no << ": MISMATCH";
      if (!model_says.empty()) out << ", the model answers: " << model_says;
      out << "\n";
    }
  }
  return result;
}

}  // namespace qpm
