#!/usr/bin/env bash
# Area and timing proxy of qpm_top with Yosys 0.23 (make synth; docs/capacity.md).
#
#   scripts/synth.sh [--sets N] [--ways N] [--mshrs N] [--out DIR] [--fpga]
#
# What it does, in order:
#   1. asic:  reads the RTL (the RAM wrapper qpm_ram_1p as a black box, -lib), checks it
#             (-e "implicitly declared", hierarchy -check, check -assert), keeps the
#             hierarchy, maps to the project's gate-equivalent liberty
#             constraints/qpm_ge.lib and reports, per module: logic GE, flip-flops and
#             the longest path in logic levels (ltp), plus RAM bits from the RAM
#             instances' Width and Depth parameters.
#             In the same run, the GE of the QP cache's sharing logic: its arbitration
#             and hazard signals are kept through abc and their logic cones measured on
#             the mapped netlist (docs/capacity.md says what is counted).
#   2. fpga:  (only with --fpga) synth_xilinx of the same configuration with the RAM
#             wrapper read as real memory, so the RAMs become BRAM/LUTRAM: LUT, FF, BRAM.
#   3. report: scripts/synth_report.py turns the logs into DIR/report.md and DIR/*.csv
#             and prints a short summary.
#
# Without --sets/--ways/--mshrs the RTL defaults of qpm_top are used. The Yosys scripts
# are written to DIR/*.ys, so any step can be re-run by hand: yosys -s DIR/asic.ys.
# Yosys runs under `nice` (SYNTH_NICE, default 10): the flow shares the machine.
# SYNTH_ABC_FLAGS adds flags to abc (default none: Yosys' full liberty script). `-fast`
# runs about twice as fast but maps about a third more logic GE: for a quick look only,
# never for numbers that are compared with others.
set -euo pipefail
cd "$(dirname "$0")/.."

LIB=constraints/qpm_ge.lib
RAM=rtl/common/qpm_ram_1p.sv
NICE=${SYNTH_NICE:-10}
ABC_FLAGS=${SYNTH_ABC_FLAGS:-}

out=build/synth
sets="" ways="" mshrs=""
do_fpga=0

usage() {
  sed -n '2,4p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
}

while [ $# -gt 0 ]; do
  case "$1" in
    --sets)     sets=$2; shift 2 ;;
    --ways)     ways=$2; shift 2 ;;
    --mshrs)    mshrs=$2; shift 2 ;;
    --out)      out=$2; shift 2 ;;
    --fpga)     do_fpga=1; shift ;;
    -h|--help)  usage ;;
    *)          echo "synth.sh: unknown argument '$1'" >&2; usage ;;
  esac
done
mkdir -p "$out"

# -chparam for every parameter given; the others keep qpm_top's defaults.
chparams() {
  local s=""
  [ -n "$sets" ]  && s+=" -chparam Sets $sets"
  [ -n "$ways" ]  && s+=" -chparam Ways $ways"
  [ -n "$mshrs" ] && s+=" -chparam Mshrs $mshrs"
  echo "$s"
}

# The read commands for every file of rtl/files.f. $1 = "box": the RAM wrapper is read
# with -lib, a black box: for the ASIC numbers a RAM is an SRAM macro, counted in bits
# from its parameters, never turned into flip-flops (a 4096 x 512 table would be two
# million of them). $1 = "mem": it is read as RTL, so synth_xilinx can infer BRAM.
rtl_reads() {
  local f
  while read -r f; do
    [ -z "$f" ] && continue
    if [ "$f" = "$RAM" ] && [ "$1" = box ]; then
      echo "read_verilog -sv -lib -I rtl $f"
    else
      echo "read_verilog -sv -I rtl $f"
    fi
  done < rtl/files.f
}

# Runs one Yosys script. Implicitly declared nets are errors (STYLE.md §1): a package
# function naming package items unqualified makes them implicit wires, silently wrong.
# "Replacing memory ... with list of registers" is expected (flop arrays such as the
# tags) and stays in the log.
run_yosys() {
  local name=$1
  local t0=$SECONDS
  if ! nice -n "$NICE" yosys -q -l "$out/$name.log" -e "implicitly declared" \
         -s "$out/$name.ys" > "$out/$name.out" 2>&1; then
    grep -v "with list of registers" "$out/$name.out" | tail -20 >&2
    echo "synth: $name failed (log: $out/$name.log)" >&2
    exit 1
  fi
  echo "$name $((SECONDS - t0))" >> "$out/times.txt"
}

# The cells ltp must not walk through: submodule instances and the RAM black boxes. A
# cell left out of the selection cuts the path, so a RAM read (registered) starts a path
# and a submodule's ports end or start one; ltp then measures each module on its own.
LTP_SEL='* */t:qpm_* %d */t:$paramod* %d'

# The sharing logic of the QP cache: the logic that lets many requests and miss
# registers share one pipe, one data-RAM port and one memory port: the pipe's decision,
# the replay and miss-register arbiters, the hazard compares (same QPN as a miss under
# way, fill against a write-back) and the port multiplexers. These signals get a keep
# attribute, so abc leaves them as named nets (measured effect on the cache's area:
# under 1 %), and their input cones are selected on the mapped netlist. The tag lookup
# and victim choice are kept too and cut off, so their logic is not counted.
SHARE_SIGNALS="p_act req_ready_o replay_any replay_idx stage_now r_on_mshr r_mshr
  r_mshr_filling mshr_free_any mshr_free_idx park_free_any park_free_idx all_mshrs_free
  m_wb_hazard m_can sched sched_any fill_now wbread_now xread_now ram_req ram_we
  aram_req ram_addr ram_wdata aram_wdata park_ram_req park_ram_we park_ram_addr
  mem_port_free mem_sched_read mem_x_dir mem_req_valid_o mem_req_write_o mem_req_id_o
  mem_req_addr_o mem_req_line_o mem_req_wdata_o"
LOOKUP_SIGNALS="r_hit r_way r_line r_set r_pinned_in_set v_set v_free v_eligible v_found
  v_way v_line"
CACHE='*qpm_qpc_cache'   # the cache's derived module ($paramod$<hash>\qpm_qpc_cache)

# CACHE/w:a CACHE/w:b ... A name that no longer exists in the RTL selects nothing; the
# report lists the names that were found.
cache_wires() {
  local n s=""
  for n in $1; do s+=" $CACHE/w:$n"; done
  echo "$s"
}

# Mapping: Yosys' coarse synth, then the fine steps of `synth` with the generic abc
# replaced by the liberty. The flip-flops are first legalized to the three the liberty
# has (async reset to 0 or 1, or none; an enable becomes a MUX2 in front of D), so abc
# maps that extra logic too and dfflibmap afterwards is a one-to-one rename.
map_steps() {
  cat <<EOF
synth -top qpm_top -run coarse:fine
opt -fast -full
memory_map
opt -full
techmap
opt -fast
dfflegalize -cell \$_DFF_PN0_ x -cell \$_DFF_PN1_ x -cell \$_DFF_P_ x
abc $ABC_FLAGS -liberty $LIB
opt_clean
EOF
}

write_asic_ys() {
  {
    echo "# generated by scripts/synth.sh: GE area and logic levels of qpm_top"
    echo "read_liberty -lib $LIB"   # cell port directions, for ltp and the cones
    rtl_reads box
    echo "hierarchy -check -top qpm_top$(chparams)"
    echo "proc"
    echo "check -assert"
    # Every instance of the elaborated hierarchy with its parameters: RAM bits come
    # from the qpm_ram_1p cells' Width x Depth, instance counts from the tree.
    echo "dump -o $out/hier.il */t:qpm_* */t:\$paramod*"
    echo "tee -q -o $out/share_names.txt select -list $(cache_wires "$SHARE_SIGNALS")"
    echo "setattr -set keep 1 $(cache_wires "$SHARE_SIGNALS $LOOKUP_SIGNALS")"
    map_steps
    # Longest path per module. The flip-flops are still Yosys' own cells here, so
    # -noff knows them: paths run from flop to flop.
    echo "tee -q -o $out/ltp_blocks.txt ltp -noff $LTP_SEL"
    # The same across blocks, on the flattened design (RAMs stay black boxes), and a
    # check for combinational loops that only exist across module boundaries.
    echo "design -save mapped"
    echo "flatten"
    echo "tee -q -o $out/ltp_flat.txt ltp -noff * */t:qpm_ram_1p %d"
    echo "tee -q -o $out/check_flat.txt check"
    echo "design -load mapped"
    echo "dfflibmap -liberty $LIB"
    echo "opt_clean"
    echo "hierarchy -check"
    echo "check -assert"
    echo "tee -q -o $out/stat.txt stat -liberty $LIB"
    # Sharing logic: cut the lookup and victim signals (delete their drivers), then
    # take the input cones of the sharing signals through combinational cells only
    # (pins A, B, C, S -> Y): they stop at flip-flops, RAM outputs, submodule ports,
    # the module's inputs and the cut signals.
    echo "select -set lookup $(cache_wires "$LOOKUP_SIGNALS")"
    echo "delete @lookup %ci1:+[Y] t:* %i"
    echo "select -set share $(cache_wires "$SHARE_SIGNALS") %ci*:+[A,B,C,S,Y]"
    echo "tee -q -o $out/share_stat.txt stat -liberty $LIB @share"
  } > "$out/asic.ys"
}

write_fpga_ys() {
  {
    echo "# generated by scripts/synth.sh: Xilinx 7-series resources of qpm_top"
    rtl_reads mem
    echo "hierarchy -check -top qpm_top$(chparams)"
    echo "proc"
    echo "check -assert"
    # Out of context: no I/O buffers (qpm_top is a block, not a chip).
    echo "synth_xilinx -top qpm_top -family xc7 -noiopad"
    echo "tee -q -o $out/fpga_stat.txt stat"
  } > "$out/fpga.ys"
}

main() {
  # Only what this script writes: a sweep's files next to it stay.
  (cd "$out" && rm -f times.txt stat.txt ltp_blocks.txt ltp_flat.txt check_flat.txt \
     share_names.txt share_stat.txt fpga_stat.txt blocks.csv rams.csv summary.csv fpga.csv \
     report.md)
  local t0=$SECONDS
  write_asic_ys
  run_yosys asic
  if [ "$do_fpga" = 1 ]; then
    write_fpga_ys
    run_yosys fpga
  fi
  echo "total $((SECONDS - t0))" >> "$out/times.txt"
  python3 scripts/synth_report.py point --lib "$LIB" --dir "$out"
}

main
