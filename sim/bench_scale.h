// qpm_bench --scale (issue 11, SPEC §11): hit rate and datapath operations per cycle
// against the number of active QPs, the memory latency, the eviction policy and the
// workload. docs/eviction.md has the numbers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace qpm::bench {

struct ScaleOptions {
  std::string config = "default";
  std::vector<uint32_t> active_qps = {1, 16, 64, 256, 1024, 4096, 16384, 65536};
  std::vector<uint32_t> mem_latencies = {100, 1000};
  std::vector<std::string> policies = {"plru", "lru", "random", "trap"};
  uint32_t trap_latency = 20;  // the agent's answer latency (it always answers, rightly)
  // Measured operations per point (as many again warm up). The rate is taken over the
  // last three quarters of them; at 2,000 the zipf-1.2 point over 1,024 QPs read 0.78 of
  // its bound on `default`, against 0.82 over 20,000 and 0.83 at 5,000.
  uint64_t ops = 5000;
  uint64_t seed = 1;
  std::string csv = "build/bench/scale.csv";
};

// Runs every point, prints a line each and writes the CSV; throws on a mismatch.
void run_scale(const ScaleOptions &o);

}  // namespace qpm::bench
