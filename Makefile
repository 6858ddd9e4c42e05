# qpm: the queue-pair management subsystem of an RDMA NIC.
#
#   make sim      build and run the default randomized simulation against the golden model
#   make test     the CTest suite (Catch2)
#   make bench    the datapath benchmark (qpm_bench): a table and build/bench/bench.csv
#   make bench-scale  hit rate and ops/cycle against active QPs, latency, policy, workload
#   make lint     Verilator -Wall lint of every RTL file, zero warnings
#   make synth    Yosys 0.23 area (NAND2 GE) and logic-level report: build/synth/report.md
#   make synth-sweep  the same over cache sizes, ways and MSHRs, with a plot
#   make deps     install the Debian packages that are missing
#   make regress  the nightly regression: SEEDS rounds of configs x memory profiles (policy
#                 and QPN space in rotation), with line/toggle and functional coverage
#                 (docs/verification.md)
#   make regress-slurm-selftest  the sharded nightly on a single-node Slurm it starts
#                 (scripts/slurm/selftest.sh; installs slurm-wlm and munge when missing)
#   make mutate   the mutation check: every RTL mutant in tests/mutants must be killed
#   make formal   every proof in formal/*.toml (Yosys sat, yosys-smtbmc with z3)
#   make formal-mutants  each proof must fail on its own planted bug (formal/mutants)
#
# Variables: CONFIG (default, tiny or large), LARGE (ON/OFF: build the large model), SEED (random), CMDS, QPS, SIM_ARGS (extra qpm_sim flags),
# JOBS (parallel build and test jobs, default 2).

BUILD    ?= build
JOBS     ?= 2
CONFIG   ?= default
CMDS     ?= 10000
QPS      ?= 2000
SEED     ?=
SIM_ARGS ?=
# LARGE=ON or OFF sets whether the large configuration's model is built (ON by default since
# 2026-12-06, about 3 minutes); CONFIG=large sets ON.
LARGE    ?= $(if $(filter large,$(CONFIG)),ON,)

RTL_FILES := $(shell cat rtl/files.f)
SEED_ARG  := $(if $(SEED),--seed $(SEED),)
TOOLS     := verilator yosys yosys-smtbmc z3 cmake g++ lcov

.PHONY: all deps build sim test bench bench-scale lint synth synth-sweep clean mutate formal formal-mutants

all: build

# Install what is missing when any tool is absent (cheap check first).
deps:
	@scripts/deps.sh

$(BUILD)/.deps-ok:
	@for t in $(TOOLS); do command -v $$t >/dev/null || { scripts/deps.sh; break; }; done
	@test -f /usr/include/catch2/catch.hpp -a -f /usr/include/CLI/CLI.hpp \
	  -a -d /usr/include/spdlog || scripts/deps.sh
	@mkdir -p $(BUILD) && touch $@

$(BUILD)/CMakeCache.txt: $(BUILD)/.deps-ok CMakeLists.txt
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release > $(BUILD)/cmake.log \
	  || { cat $(BUILD)/cmake.log; exit 1; }

# Quiet: one line per target; the full log is in $(BUILD)/build.log.
build: $(BUILD)/CMakeCache.txt
	@$(if $(LARGE),cmake -S . -B $(BUILD) -DQPM_LARGE=$(LARGE) > $(BUILD)/cmake.log \
	  || { cat $(BUILD)/cmake.log; exit 1; })
	@scripts/quiet_build.sh $(BUILD) $(JOBS)

sim: build
	$(BUILD)/qpm_sim --config $(CONFIG) --cmds $(CMDS) --qps $(QPS) $(SEED_ARG) $(SIM_ARGS)

# The hit rows and the mixed row on `large` too (issue 25), unless QPM_LARGE is off.
bench: build
	@mkdir -p $(BUILD)/bench
	$(BUILD)/qpm_bench --config $(CONFIG) --csv $(BUILD)/bench/bench.csv
	@if grep -q 'QPM_LARGE:BOOL=ON' $(BUILD)/CMakeCache.txt; then \
	  echo "$(BUILD)/qpm_bench --config large --workload hit-distinct hit-same mixed --csv $(BUILD)/bench/bench-large.csv"; \
	  $(BUILD)/qpm_bench --config large --workload hit-distinct hit-same mixed --csv $(BUILD)/bench/bench-large.csv; \
	fi

# The scalability sweep (issue 11): hit rate and ops/cycle against active QPs, memory
# latency, policy and workload, CSV and two PNGs (docs/eviction.md).
bench-scale: build
	@mkdir -p $(BUILD)/bench
	$(BUILD)/qpm_bench --scale --config $(CONFIG) --csv $(BUILD)/bench/scale.csv
	$(BUILD)/qpm_bench --scale --config large --scale-qps 4096,65536 --scale-policies plru --csv $(BUILD)/bench/scale-large.csv
	python3 scripts/check_scale_csv.py $(BUILD)/bench/scale.csv $(CONFIG)
	python3 scripts/check_scale_csv.py $(BUILD)/bench/scale-large.csv large
	gnuplot -e "csv='$(BUILD)/bench/scale.csv'; out='$(BUILD)/bench'" scripts/plot_scale.gp
	@echo "bench-scale: $(BUILD)/bench/scale.csv, $(BUILD)/bench/scale-large.csv, $(BUILD)/bench/scale_hit_rate.png, $(BUILD)/bench/scale_ops_per_cycle.png"

# The directed tests write their functional coverage to build/fcov-tests (one file per
# test process, tests/fcov_listener.cpp); make regress adds it to the nightly's report.
test: build
	rm -rf $(BUILD)/fcov-tests
	cd $(BUILD) && QPM_FCOV_DIR=$(abspath $(BUILD))/fcov-tests ctest -j $(JOBS) \
	  --output-on-failure --output-junit junit.xml

# Modules of rtl/files.f that qpm_top does not instantiate yet: a run with --top-module
# qpm_top never elaborates them, so each is linted as a top of its own.
LINT_EXTRA_TOPS :=

lint: $(BUILD)/.deps-ok
	verilator --lint-only -Wall -Irtl rtl/lint.vlt $(RTL_FILES) --top-module qpm_top
	@for t in $(LINT_EXTRA_TOPS); do \
	  echo "verilator --lint-only -Wall -Irtl rtl/lint.vlt <rtl/files.f> --top-module $$t"; \
	  verilator --lint-only -Wall -Irtl rtl/lint.vlt $(RTL_FILES) --top-module $$t || exit 1; \
	done
	@echo "lint: clean"

synth: $(BUILD)/.deps-ok
	scripts/synth.sh

# Area against cache size, ways and MSHRs, one axis at a time (docs/capacity.md).
# Two configurations at a time after the default (the machine's two cores).
SWEEP_JOBS ?= 2
synth-sweep: $(BUILD)/.deps-ok
	scripts/synth_sweep.sh --jobs $(SWEEP_JOBS)

# Proofs (docs/formal.md): one line per property, counterexamples under build/formal/.
formal: $(BUILD)/.deps-ok
	@scripts/formal.py --jobs $(JOBS)

formal-mutants: $(BUILD)/.deps-ok
	@scripts/formal.py --jobs $(JOBS) --mutants

clean:
	rm -rf $(BUILD)

# Nightly regression (scripts/regress.py, docs/verification.md): a coverage build in
# build/cov, then SEEDS rounds of {default, tiny} x 8 memory profiles of qpm_sim (each
# with a replacement policy and a QPN space in rotation) plus the cache random test, JOBS
# at a time, every run with its own seed. SEED=S gives every selected run seed S;
# SHARD=k/N runs one shard (give every shard the same BASE_SEED) and never builds: it
# needs build/cov from make regress-build of this checkout. REGRESS_ARGS takes any other
# regress.py flag, e.g. REGRESS_ARGS='--run sim.tiny.slow.lru.qpn4k.r0'.
SEEDS        ?= 10
SHARD        ?=
BASE_SEED    ?=
REGRESS_OUT  ?= $(BUILD)/regress
REGRESS_ARGS ?=
COV_BUILD    := $(BUILD)/cov

.PHONY: regress regress-build regress-smoke regress-slurm-selftest

$(COV_BUILD)/CMakeCache.txt: $(BUILD)/.deps-ok CMakeLists.txt
	@mkdir -p $(COV_BUILD)
	cmake -S . -B $(COV_BUILD) -DCMAKE_BUILD_TYPE=Release -DQPM_COVERAGE=ON > $(COV_BUILD)/cmake.log

# The stamp (scripts/build_stamp.py) records the sources the build read: a shard checks it
# and refuses a missing or stale build instead of building.
regress-build: $(COV_BUILD)/CMakeCache.txt
	@python3 scripts/build_stamp.py begin $(COV_BUILD)
	@scripts/quiet_build.sh $(COV_BUILD) $(JOBS) --target qpm_sim qpm_tests
	@python3 scripts/build_stamp.py end $(COV_BUILD)

regress: $(if $(SHARD),,regress-build)
	python3 scripts/regress.py --seeds $(SEEDS) --jobs $(JOBS) --build $(COV_BUILD) \
	  --out $(REGRESS_OUT) $(SEED_ARG) $(if $(SHARD),--shard $(SHARD)) \
	  $(if $(BASE_SEED),--base-seed $(BASE_SEED)) --suite-fcov $(BUILD)/fcov-tests \
	  $(REGRESS_ARGS)

# One round of the run list (17 runs, each with its own seed) on the normal build,
# without the coverage build (which the nightly pays for); CI leaves it to the nightly.
regress-smoke: build
	python3 scripts/regress.py --seeds 1 --jobs $(JOBS) --build $(BUILD) --no-coverage \
	  --out $(BUILD)/regress-smoke

# The sharded nightly on Slurm, end to end on a single-node Slurm started in
# $(BUILD)/slurm-selftest (nightly, not CI): SHARDS array tasks, the merge job after them,
# then the same with one shard cancelled, which must fail (docs/verification.md).
regress-slurm-selftest:
	scripts/slurm/selftest.sh

# Mutation check (nightly): each patch in tests/mutants applied to a scratch copy,
# rebuilt and run against the suite; MUTANT=pattern picks some.
MUTANT ?=
mutate: $(BUILD)/.deps-ok
	scripts/mutate.sh '$(MUTANT)'
