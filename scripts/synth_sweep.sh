#!/usr/bin/env bash
# The capacity sweep of issue 9 (make synth-sweep; docs/capacity.md).
#
#   scripts/synth_sweep.sh [--jobs N] [--only NAME[,NAME...]] [--no-default] [--no-fpga]
#
# Runs scripts/synth.sh once per configuration, one axis at a time around the default
# (qpm_top: Sets 64, Ways 4, Mshrs 8):
#   cache entries 256 .. 4096  Sets 64 .. 1024 with Ways 4      (entries256 = default)
#   ways 2, 4, 8               Sets 64                          (ways4 = default)
#   MSHRs 4, 8, 16             Sets 64, Ways 4                  (mshrs8 = default)
#     (the cache needs Mshrs + 1 AXI IDs, one per miss register plus the maintenance
#     engine: qpm_top's ID is 4 bits up to 15 MSHRs and 5 at 16)
# The default point runs first, into build/synth itself, with (unless --no-fpga) the
# synth_xilinx count; the others go to build/synth/sweep/NAME. Then
# scripts/synth_report.py writes build/synth/sweep.csv and build/synth/sweep.png and
# appends the sweep table and the area at stated densities to build/synth/report.md.
#
# Run time: a few minutes per point. The cache's line state is built of repeated modules
# (one qpm_cache_set per set, qpm_mux_tree views), which Yosys maps once each, so a point
# costs little more at 4096 entries than at 256. --only runs some points and keeps the
# others' earlier results (a full run starts from an empty build/synth/sweep);
# --no-default reuses build/synth's default run. The table has every point whose run
# finished. docs/capacity.md has measured times.
#
# --jobs N runs N configurations at a time after the default (default 1; make
# synth-sweep passes 2, the machine's cores). Yosys runs under nice (SYNTH_NICE).
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
# Smallest first, so a partial run (--only, or an interrupted one) has the cheap points.
POINTS=(
  "mshrs4      64   4  4"
  "ways2       64   2  8"
  "mshrs16     64   4  16"
  "entries512  128  4  8"
  "ways8       64   8  8"
  "entries1024 256  4  8"
  "entries2048 512  4  8"
  "entries4096 1024 4  8"
)

wanted() {
  [ -z "$only" ] && return 0
  [[ ",$only," == *",$1,"* ]]
}

# One configuration; its own summary line goes to its log, not to the terminal.
run_point() {
  local name=$1 sets=$2 ways=$3 mshrs=$4
  local dir=$out/sweep/$name
  rm -rf "$dir"
  mkdir -p "$dir"
  if scripts/synth.sh --sets "$sets" --ways "$ways" --mshrs "$mshrs" --out "$dir" \
       > "$dir/synth.txt" 2>&1; then
    touch "$dir/ok"
    echo "synth-sweep: $name done ($(awk '$1 == "total" {print $2}' "$dir/times.txt") s)"
  else
    echo "synth-sweep: $name FAILED, see $dir/synth.txt" >&2
    return 1
  fi
}

main() {
  local t0=$SECONDS
  local args=() p name sets ways mshrs
  if [ "$default" = 1 ]; then
    echo "synth-sweep: default configuration (Sets 64, Ways 4, Mshrs 8) into $out"
    scripts/synth.sh --out "$out" $fpga
  else
    [ -f "$out/summary.csv" ] || { echo "synth-sweep: no default run in $out" >&2; exit 1; }
    # The sweep section is appended to the default's report: start from its own again.
    python3 scripts/synth_report.py point --lib constraints/qpm_ge.lib --dir "$out" > /dev/null
  fi
  args+=("default=$out")
  [ -z "$only" ] && rm -rf "$out/sweep"
  local names=()
  for p in "${POINTS[@]}"; do
    read -r name sets ways mshrs <<< "$p"
    wanted "$name" || continue
    names+=("$name")
    # At most $jobs configurations at a time.
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
    run_point "$name" "$sets" "$ways" "$mshrs" &
  done
  wait
  for name in "${names[@]}"; do
    [ -f "$out/sweep/$name/ok" ] || { echo "synth-sweep: $name failed" >&2; exit 1; }
  done
  for p in "${POINTS[@]}"; do
    read -r name _ <<< "$p"
    if [ -f "$out/sweep/$name/ok" ]; then args+=("$name=$out/sweep/$name"); fi
  done
  python3 scripts/synth_report.py sweep --out "$out" "${args[@]}"
  echo "synth-sweep: done in $((SECONDS - t0)) s"
}

main
