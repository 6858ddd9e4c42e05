# qpm: the queue-pair management subsystem of an RDMA NIC.
#
#   make sim      build and run the default randomized simulation against the golden model
#   make test     the CTest suite (Catch2)
#   make lint     Verilator -Wall lint of every RTL file, zero warnings
#   make synth    Yosys 0.23 synthesis check and cell summary
#   make deps     install the Debian packages that are missing
#
# Variables: CONFIG (default), SEED (random), CMDS, QPS, SIM_ARGS (extra qpm_sim flags),
# JOBS (parallel build and test jobs, default 2).

BUILD    ?= build
JOBS     ?= 2
CONFIG   ?= default
CMDS     ?= 10000
QPS      ?= 2000
SEED     ?=
SIM_ARGS ?=

RTL_FILES := $(shell cat rtl/files.f)
SEED_ARG  := $(if $(SEED),--seed $(SEED),)
TOOLS     := verilator yosys cmake g++ lcov

.PHONY: all deps build sim test lint synth clean

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
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

sim: build
	$(BUILD)/qpm_sim --config $(CONFIG) --cmds $(CMDS) --qps $(QPS) $(SEED_ARG) $(SIM_ARGS)

test: build
	cd $(BUILD) && ctest -j $(JOBS) --output-on-failure --output-junit junit.xml

lint: $(BUILD)/.deps-ok
	verilator --lint-only -Wall -Irtl rtl/lint.vlt $(RTL_FILES) --top-module qpm_top
	@echo "lint: clean"

synth: $(BUILD)/.deps-ok
	scripts/synth.sh

clean:
	rm -rf $(BUILD)
