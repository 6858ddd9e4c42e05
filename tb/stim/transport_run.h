// The random run driven by the loopback transport model (--traffic transport): connected
// QP pairs (tb/stim/transport.h) keep the datapath busy while the random commands run
// beside them on the other QPNs, with a share of hostile operations from the random mix.
#pragma once

#include "random_stimulus.h"
#include "sim_run.h"

namespace qpm {

void run_transport(const SimOptions &o, QpmEnv &env, RandomStimulus &stim, SimResult &result);

}  // namespace qpm
