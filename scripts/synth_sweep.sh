#!/usr/bin/env bash
# The capacity sweep of issue 9 (make synth-sweep; docs/capacity.md).
#
#   scripts/synth_sweep.sh [--jobs N] [--only NAME[,NAME...]] [--no-default] [--no-fpga]
#
# Runs scripts/synth.sh once per configuration, one axis at a time around the default
# (qpm_top: Sets 64, Ways 4, Mshrs 8):
#   cache entries 256 .. 16384  Sets 64 .. 4096 with Ways 4, every 4 x (entries256 = default)
#   ways 2, 4, 8                Sets 64                         (ways4 = default)
#   MSHRs 8 .. 64               Sets 64, Ways 4                 (mshrs8 = default)
#     (the cache needs max(Mshrs, WbDepth) + 1 AXI IDs: qpm_top widens the ID with them)
#   MSHRs 4 only when named (--only mshrs4): below the issue's range, kept for comparison
# The default point goes into build/synth itself, with (unless --no-fpga) the
# synth_xilinx count; the others go to build/synth/sweep/NAME. Then
# scripts/synth_report.py writes build/synth/sweep.csv and build/synth/sweep.png and
# appends the sweep table and the area at stated densities to build/synth/report.md.
#
# Run time: a few minutes per point. The cache's tags and line state are RAM black
# boxes, so a point costs little more at 4096 entries than at 256. --only runs some points and keeps the
# others' earlier results (a full run starts from an empty build/synth/sweep);
# --no-default reuses build/synth's default run. The table has every point whose run
# finished. docs/capacity.md has measured times.
#
# --jobs N runs N configurations at a time, the default among them (default 1; make
# synth-sweep passes 2, the machine's cores). The longest points start first (their
# measured times are in docs/capacity.md), so the short ones fill the other core at the
# end instead of the largest starting last. Yosys runs under nice (SYNTH_NICE).
set -euo pipefail
cd "$(dirname "$0")/.."

out=build/synth
jobs=1
only=""
fpga=--fpga
default=1

while [ $# -gt 0 ]; do
  case "$1" in
    --jobs)    jobs=$2; shift 2 ;;
    --only)    only=$2; shift 2 ;;
    --no-fpga) fpga=""; shift ;;
    --no-default) default=0; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *)         echo "synth_sweep.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

# name sets ways mshrs: the default is not repeated (it is entries256, ways4 and mshrs8).
# Longest first (wall time on 2 cores: the default with its FPGA step comes second).
POINTS=(
  "mshrs64     64   4  64"
  "mshrs32     64   4  32"
  "entries4096 1024 4  8"
  "entries16384 4096 4 8"
  "mshrs16     64   4  16"
  "entries1024 256  4  8"
  "ways8       64   8  8"
  "ways2       64   2  8"
)
# Points run only when --only names them.
NAMED_POINTS=(
  "mshrs4      64   4  4"
)
DEFAULT_AFTER=mshrs64       # the default starts after this point has started

wanted() {
  [ -z "$only" ] && return 0
  [[ ",$only," == *",$1,"* ]]
}

# One scripts/synth.sh run: NAME, its directory, then synth.sh's arguments. Its summary
# goes to DIR/synth.txt, not to the terminal; DIR/ok marks a run that finished.
run_synth() {
  local name=$1 dir=$2
  shift 2
  rm -f "$dir/ok"
  if scripts/synth.sh --out "$dir" "$@" > "$dir/synth.txt" 2>&1; then
    touch "$dir/ok"
    echo "synth-sweep: $name done ($(awk '$1 == "total" {print $2}' "$dir/times.txt") s)"
  else
    echo "synth-sweep: $name FAILED, see $dir/synth.txt" >&2
    return 1
  fi
}

# One point of the sweep, in a fresh build/synth/sweep/NAME.
run_point() {
  local name=$1 sets=$2 ways=$3 mshrs=$4
  rm -rf "$out/sweep/$name"
  mkdir -p "$out/sweep/$name"
  run_synth "$name" "$out/sweep/$name" --sets "$sets" --ways "$ways" --mshrs "$mshrs"
}

# At most $jobs runs at a time: waits for a slot.
slot() {
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
}

main() {
  local t0=$SECONDS
  local args=() p name sets ways mshrs
  [ -z "$only" ] && rm -rf "$out/sweep"
  mkdir -p "$out/sweep"
  if [ "$default" = 1 ]; then
    echo "synth-sweep: default configuration (Sets 64, Ways 4, Mshrs 8) into $out, the" \
         "other points into $out/sweep, $jobs at a time"
  else
    [ -f "$out/summary.csv" ] || { echo "synth-sweep: no default run in $out" >&2; exit 1; }
    # The sweep section is appended to the default's report: start from its own again.
    python3 scripts/synth_report.py point --lib constraints/qpm_ge.lib --dir "$out" > /dev/null
    touch "$out/ok"
  fi
  args+=("default=$out")
  local names=()
  local named=()
  for p in "${NAMED_POINTS[@]}"; do
    read -r name _ <<< "$p"
    if [ -n "$only" ] && wanted "$name"; then named+=("$p"); fi
  done
  for p in "${named[@]}" "${POINTS[@]}"; do
    read -r name sets ways mshrs <<< "$p"
    if wanted "$name"; then
      names+=("$name")
      slot
      run_point "$name" "$sets" "$ways" "$mshrs" &
    fi
    if [ "$name" = "$DEFAULT_AFTER" ] && [ "$default" = 1 ]; then
      slot
      run_synth default "$out" $fpga &
    fi
  done
  wait
  [ -f "$out/ok" ] || { echo "synth-sweep: the default failed" >&2; exit 1; }
  for name in "${names[@]}"; do
    [ -f "$out/sweep/$name/ok" ] || { echo "synth-sweep: $name failed" >&2; exit 1; }
  done
  for p in "${POINTS[@]}" "${NAMED_POINTS[@]}"; do
    read -r name _ <<< "$p"
    if [ -f "$out/sweep/$name/ok" ]; then args+=("$name=$out/sweep/$name"); fi
  done
  if [ "$default" = 1 ]; then
    cat "$out/synth.txt"   # the default's summary (scripts/synth_report.py point)
  fi
  python3 scripts/synth_report.py sweep --out "$out" "${args[@]}"
  echo "synth-sweep: done in $((SECONDS - t0)) s"
}

main
