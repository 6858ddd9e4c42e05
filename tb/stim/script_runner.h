// Replays a script (SPEC.md §13) on a QpmEnv: one answer line per operation line, each
// answer also checked against the golden model by the env's scoreboard.
#pragma once

#include <istream>
#include <ostream>
#include <string>

#include "qpm_env.h"

namespace qpm {

struct ScriptResult {
  int lines = 0;        // operation lines executed
  int mismatches = 0;   // answers where RTL and model disagree
  std::string error;    // a malformed line stops the run: "line N: ..."
  bool ok() const { return mismatches == 0 && error.empty(); }
};

ScriptResult run_script(QpmEnv &env, std::istream &in, std::ostream &out);

}  // namespace qpm
