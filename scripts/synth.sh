#!/usr/bin/env bash
# Area and timing proxy of qpm_top with Yosys 0.23 (make synth; docs/capacity.md).
#
#   scripts/synth.sh [--sets N] [--ways N] [--mshrs N] [--out DIR] [--fpga]
#
# What it does, in order:
#   1. asic:  reads the RTL (the RAM wrappers qpm_ram_1p and qpm_ram_2p as black boxes,
#             -lib), checks it
#             (-e "implicitly declared", hierarchy -check, check -assert), keeps the
#             hierarchy, maps to the project's gate-equivalent liberty
#             constraints/qpm_ge.lib and reports, per module: logic GE, flip-flops and
#             the longest path in logic levels (ltp, on a second, delay-oriented
#             mapping: abc map -D on 2-input gates and MUX2), plus RAM bits from the RAM
#             instances' Width and Depth parameters (Width x Depth for both wrappers).
#             In the same run, the GE of the QP cache's sharing logic: the arbitration,
#             hazard, port-selection and forwarding signals of the cache's blocks are
#             kept through abc and their logic cones measured on the mapped netlist,
#             plus the whole memory arbiter (docs/capacity.md says what is counted).
#   2. fpga:  (only with --fpga) synth_xilinx of the same configuration with the RAM
#             wrappers read as real memory, so the RAMs become BRAM/LUTRAM: LUT, FF, BRAM,
#             and LUT levels per module; a second, flattened run for LUT levels across
#             blocks and from an input to an output.
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
# The RAM wrappers (qpm_ram_1p: one port; qpm_ram_2p: one read and one write port).
RAMS="rtl/common/qpm_ram_1p.sv rtl/common/qpm_ram_2p.sv"
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

# A chparam line for every parameter given (the others keep qpm_top's defaults), before
# `hierarchy`: Yosys 0.23's `hierarchy -chparam` fails an internal assertion on the
# recursive qpm_mux_tree ("modules_.count(module->name) == 0"); `chparam -set` on the
# top module before elaboration does not.
chparams() {
  [ -n "$sets" ]  && echo "chparam -set Sets $sets qpm_top"
  [ -n "$ways" ]  && echo "chparam -set Ways $ways qpm_top"
  [ -n "$mshrs" ] && echo "chparam -set Mshrs $mshrs qpm_top"
  return 0
}

# The read commands for every file of rtl/files.f. $1 = "box": the RAM wrappers are
# read with -lib, black boxes: for the ASIC numbers a RAM is an SRAM macro, counted in
# bits from its parameters, never turned into flip-flops (a 4096 x 512 table would be two
# million of them). $1 = "mem": they are read as RTL, so synth_xilinx can infer BRAM.
rtl_reads() {
  local f
  while read -r f; do
    [ -z "$f" ] && continue
    if [[ " $RAMS " == *" $f "* ]] && [ "$1" = box ]; then
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

# What starts and ends a path in the xc7 netlist (out of ltp's selection): flip-flops,
# shift registers, RAMs, DSPs.
FPGA_CUT="t:FD* %d t:SRL* %d t:RAM* %d t:DSP* %d"

# The cells ltp must not walk through: submodule instances and the RAM black boxes. A
# cell left out of the selection cuts the path, so a RAM read (registered) starts a path
# and a submodule's ports end or start one; ltp then measures each module on its own.
LTP_SEL='* */t:qpm_* %d */t:$paramod* %d'

# The sharing logic of the QP cache: the logic that lets many requests and miss
# registers share one pipe, the QPC RAM's read and write ports and the memory ports. Per
# block of the cache (module: signals); the names are the blocks' own:
#   qpm_qpc_pipe     the pipe's decision and RAM-port selection
#   qpm_qpc_ram      the forwarding of P1's last write to the read data (a compare and a
#                    512 + 58-bit mux)
#   qpm_mshr_sched   the miss registers' scheduler (can, round-robin), the file's choice
#   qpm_mshr_match   the write-back hazard compare and the views the pipe arbitrates on
#   qpm_park_pool    the replay and free-slot finders
#   qpm_wb_buffer    the send and free-slot selection
# These signals get a keep attribute, so abc leaves them as named nets (measured on an
# earlier RTL: under 1 % of the cache's area), and their input cones through
# combinational cells are selected on the mapped netlist. A cone stops at flip-flops,
# RAM outputs, submodule ports and module inputs, so it stays inside its block.
SHARE_SIGNALS="
  qpm_qpc_pipe:  p_act req_ready_o read_port_busy write_slot_busy xread_go ram_re
                 ram_raddr
  qpm_qpc_ram:   fwd_data fwd_addr rdata_o raddr_data_o
  qpm_mshr_file: c_idx c_any w_idx w_any
  qpm_mshr_sched: c_can w_can
  qpm_mshr_match: hazard look_on_o look_filling_o look_idx_o free_any_o free_idx_o
                 page_busy_o
  qpm_park_pool: free_any free_idx replay_any replay_idx stage_now
  qpm_wb_buffer: send_idx send_any free_any free_idx"
# Blocks that are sharing logic as a whole (every cell, its lock flops included): the
# memory request port's arbiter and multiplexer.
SHARE_MODULES="qpm_mem_arbiter"
# The tag lookup and the victim choice are not sharing logic: kept too, and their
# drivers cut before the cones are taken (a name may be a pattern: vict_*).
LOOKUP_SIGNALS="
  qpm_cache_lines:   look_hit_o look_line_o look_way vict_*
  qpm_victim_select: found_o way_o"

# "module: a b c  module2: d e" -> "*module*/w:a *module*/w:b ... *module2*/w:d ...". The
# pattern *module* matches the module's derived names ($paramod$<hash>\module,
# $paramod\module\P=V) and only them (no module name contains another's).
# A name that selects nothing is reported as missing by synth_report.py, which compares
# the selection (DIR/share_names.txt, DIR/lookup_names.txt) with DIR/share_expected.txt.
block_wires() {
  local - t mod="" s=""
  set -f   # vict_* is a Yosys pattern, not a file name
  for t in $1; do
    case "$t" in
      *:) mod=${t%:} ;;
      *)  s+=" *${mod}*/w:$t" ;;
    esac
  done
  echo "$s"
}

# DIR/share_expected.txt: one "kind module name" line per signal and whole module.
write_share_expected() {
  local - kind t mod=""
  set -f
  {
    for kind in share lookup; do
      local list=$SHARE_SIGNALS
      [ "$kind" = lookup ] && list=$LOOKUP_SIGNALS
      for t in $list; do
        case "$t" in
          *:) mod=${t%:} ;;
          *)  echo "$kind $mod $t" ;;
        esac
      done
    done
    for mod in $SHARE_MODULES; do echo "module $mod *"; done
  } > "$out/share_expected.txt"
}

block_cells() {
  local m s=""
  for m in $1; do s+=" *${m}*/t:*"; done
  echo "$s"
}

# Mapping: Yosys' coarse synth, then the fine steps of `synth` up to abc. The flip-flops
# are first legalized to the three the liberty has (async reset to 0 or 1, or none; an
# enable becomes a MUX2 in front of D), so abc maps that extra logic too and dfflibmap
# afterwards is a one-to-one rename. Two mappings start from here: for area, abc with
# the liberty (its areas; it has no delays, and abc's area rewriting, dc2, turns Yosys'
# Brent-Kung adders into ripple-carry ones: a 64-bit add maps to 117 levels); for
# timing, abc's delay-oriented mapper (map -D) after structural choices (dch) and
# without dc2, on a library of 2-input gates and MUX2 of one unit of delay each, so a
# level is one simple gate and the fast structures stay (the same add: 22 levels). The
# two mappings are two Yosys runs side by side (asic.ys, timing.ys).
premap_steps() {
  cat <<EOF
synth -top qpm_top -run coarse:fine
opt -fast -full
memory_map
opt -full
techmap
opt -fast
dfflegalize -cell \$_DFF_PN0_ x -cell \$_DFF_PN1_ x -cell \$_DFF_P_ x
EOF
}
DELAY_GATES="AND,NAND,OR,NOR,XOR,XNOR,ANDNOT,ORNOT,MUX"
DELAY_SCRIPT="+strash;dch,-f;map,-D,1"

write_asic_ys() {
  {
    echo "# generated by scripts/synth.sh: GE area and logic levels of qpm_top"
    echo "read_liberty -lib $LIB"   # cell port directions, for ltp and the cones
    rtl_reads box
    chparams
    echo "hierarchy -check -top qpm_top"
    echo "proc"
    echo "check -assert"
    # Every instance of the elaborated hierarchy with its parameters: RAM bits come
    # from the qpm_ram_1p and qpm_ram_2p cells' Width x Depth, instance counts from the
    # tree.
    echo "dump -o $out/hier.il */t:qpm_* */t:\$paramod*"
    echo "tee -q -o $out/share_names.txt select -list $(block_wires "$SHARE_SIGNALS")"
    echo "tee -q -o $out/lookup_names.txt select -list $(block_wires "$LOOKUP_SIGNALS")"
    echo "setattr -set keep 1 $(block_wires "$SHARE_SIGNALS") $(block_wires "$LOOKUP_SIGNALS")"
    premap_steps
    echo "abc $ABC_FLAGS -liberty $LIB"
    echo "opt_clean"
    # Longest path per module in the area mapping (the flip-flops are still Yosys' own
    # cells here, so -noff knows them: paths run from flop to flop), the same across
    # blocks on the flattened design, and a check for combinational loops that only
    # exist across module boundaries.
    echo "tee -q -o $out/ltp_blocks_area.txt ltp -noff $LTP_SEL"
    echo "design -save mapped"
    echo "flatten"
    echo "tee -q -o $out/ltp_flat_area.txt ltp -noff * */t:qpm_ram_1p %d */t:qpm_ram_2p %d"
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
    # the module's inputs and the cut signals. The signals are first saved as one set:
    # %ci expands only the top set of select's stack, so "select a b c %ci*" would take
    # the cone of c alone. Then every cell of the SHARE_MODULES.
    echo "select -set lookup $(block_wires "$LOOKUP_SIGNALS")"
    echo "delete @lookup %ci1:+[Y] t:* %i"
    echo "select -set share_wires $(block_wires "$SHARE_SIGNALS")"
    echo "select -set share @share_wires %ci*:+[A,B,C,S,Y] $(block_cells "$SHARE_MODULES")"
    echo "tee -q -o $out/share_stat.txt stat -liberty $LIB @share"
  } > "$out/asic.ys"
}

# The timing figures: the delay-oriented mapping of the same netlist. Per module; across
# blocks on the flattened design (RAMs stay black boxes, out of the selection: a RAM's
# read data starts a path, its inputs end one); and from a top-level input to an output
# through logic only: the cells both in the fanout cone of the inputs and in the fanin
# cone of the outputs, followed through the gates' pins only (A, B, S -> Y), so a cone
# stops at a flip-flop's output and at the RAM black boxes. None: length 0.
write_timing_ys() {
  {
    echo "# generated by scripts/synth.sh: logic levels of qpm_top, delay-oriented mapping"
    rtl_reads box
    chparams
    echo "hierarchy -check -top qpm_top"
    echo "proc"
    premap_steps
    echo "abc -g $DELAY_GATES -script $DELAY_SCRIPT"
    echo "opt_clean"
    echo "tee -q -o $out/ltp_blocks.txt ltp -noff $LTP_SEL"
    echo "flatten"
    echo "tee -q -o $out/ltp_flat.txt ltp -noff * */t:qpm_ram_1p %d */t:qpm_ram_2p %d"
    echo "tee -q -o $out/ltp_in_out.txt ltp -noff i:* %co*:+[A,B,C,S,Y] o:* %ci*:+[A,B,C,S,Y] %i"
  } > "$out/timing.ys"
}

write_fpga_ys() {
  {
    echo "# generated by scripts/synth.sh: Xilinx 7-series resources of qpm_top"
    rtl_reads mem
    chparams
    echo "hierarchy -check -top qpm_top"
    echo "proc"
    echo "check -assert"
    # Out of context: no I/O buffers (qpm_top is a block, not a chip).
    echo "synth_xilinx -top qpm_top -family xc7 -noiopad"
    echo "tee -q -o $out/fpga_stat.txt stat"
    # LUT levels per module: the LUT, MUXF and CARRY4 cells on the longest path;
    # flip-flops, shift registers, RAMs and submodule instances start and end paths (out
    # of the selection).
    echo "tee -q -o $out/fpga_ltp_blocks.txt ltp -noff * */t:qpm_* %d */t:\$paramod* %d $FPGA_CUT"
  } > "$out/fpga.ys"
}

# LUT levels across blocks need a flat netlist, and Yosys 0.23 aborts flattening the
# mapped one (dict::at, after the block RAMs' port resizing), so a second run flattens
# before mapping. The input-to-output cone select aborts the same way on that netlist,
# so in_to_out has no LUT levels (the ASIC run measures it).
write_fpga_flat_ys() {
  {
    echo "# generated by scripts/synth.sh: Xilinx 7-series LUT levels of qpm_top, flattened"
    rtl_reads mem
    chparams
    echo "hierarchy -check -top qpm_top"
    echo "proc"
    echo "synth_xilinx -top qpm_top -family xc7 -noiopad -flatten"
    echo "tee -q -o $out/fpga_ltp_flat.txt ltp -noff * $FPGA_CUT"
  } > "$out/fpga_flat.ys"
}

main() {
  # Only what this script writes: a sweep's files next to it stay.
  (cd "$out" && rm -f times.txt stat.txt ltp_blocks.txt ltp_flat.txt ltp_in_out.txt \
     ltp_blocks_area.txt ltp_flat_area.txt \
     check_flat.txt fpga_ltp_blocks.txt fpga_ltp_flat.txt timing.csv \
     share_names.txt lookup_names.txt share_expected.txt share_stat.txt fpga_stat.txt \
     blocks.csv rams.csv summary.csv fpga.csv share.csv report.md)
  local t0=$SECONDS
  write_share_expected
  write_asic_ys
  write_timing_ys
  # The area and the timing mapping at once (Yosys is single-threaded).
  run_yosys asic &
  local asic_pid=$!
  run_yosys timing &
  local timing_pid=$!
  wait "$asic_pid"
  wait "$timing_pid"
  if [ "$do_fpga" = 1 ]; then
    write_fpga_ys
    run_yosys fpga
    write_fpga_flat_ys
    run_yosys fpga_flat
  fi
  echo "total $((SECONDS - t0))" >> "$out/times.txt"
  python3 scripts/synth_report.py point --lib "$LIB" --dir "$out"
}

main
