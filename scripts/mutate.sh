#!/usr/bin/env bash
# qpm mutation check: does the verification suite notice a realistic RTL bug?
#
#   scripts/mutate.sh [PATTERN]      # usually through `make mutate [MUTANT=PATTERN]`
#
# Every tests/mutants/NN-<block>-<what>.patch whose file name matches PATTERN (an
# extended regular expression; default: all) is applied, one at a time, to a scratch
# copy of the working tree, which is then linted, rebuilt and tested:
#
#   ctest (every entry but mutants_apply, TEST_TIMEOUT s each), then qpm_sim --seed 1 --cmds SIM_CMDS on
#   the default and the tiny configuration.
#
#   KILLED    a test or a qpm_sim run failed (first failing check named)
#   SURVIVED  everything passed: the suite did not see the bug
#   ERROR     the patch does not apply (--fuzz=0), or the mutant fails lint or the build;
#             such a mutant proves nothing and must be fixed
#
# Before the mutants, the unmutated copy is built and tested the same way (the
# baseline): a red baseline would kill every mutant, so the run stops (exit 2) unless
# MUTATE_ALLOW_RED_BASELINE=1, which skips the baseline's failing ctest entries in the
# mutant runs (and a failing baseline qpm_sim run no longer counts as a kill).
#
# Layout, under MUTATE_DIR (default build/mutate):
#   src/     the scratch copy: re-synced from the working tree at every run (content
#            compared, so an unchanged file keeps its timestamp and is not rebuilt);
#            each mutant is reverted (patch -R) before the next
#   build/   one CMake Release build dir for all mutants: only the Verilated models and
#            what links them rebuild per mutant
#   logs/<mutant>/{patch,lint,build,ctest,sim-default,sim-tiny}.log
#   report.txt
#
# Environment: JOBS (build and ctest jobs, 2), TEST_TIMEOUT (per ctest entry, 180 s),
# SIM_CMDS (2000), SIM_TIMEOUT (300 s), MUTATE_DIR, MUTATE_ALLOW_RED_BASELINE.
# Exit status: 0 every mutant killed, 1 any survived or errored, 2 bad usage or a red
# baseline. One run at a time per MUTATE_DIR (a lock file).
set -u -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PATTERN=${1:-}
JOBS=${JOBS:-2}
TEST_TIMEOUT=${TEST_TIMEOUT:-180}
SIM_CMDS=${SIM_CMDS:-2000}
SIM_TIMEOUT=${SIM_TIMEOUT:-300}
OUT=${MUTATE_DIR:-$ROOT/build/mutate}
SRC=$OUT/src
BLD=$OUT/build
LOGS=$OUT/logs
REPORT=$OUT/report.txt
# The patches are read from the snapshot, so they match the RTL they are applied to.
MUTANTS_DIR=$SRC/tests/mutants

case "${1:-}" in
  -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
esac
if [[ $# -gt 1 ]]; then
  echo "usage: scripts/mutate.sh [PATTERN]" >&2
  exit 2
fi

mkdir -p "$OUT" "$SRC" "$LOGS"
exec 9>"$OUT/lock"
if ! flock -n 9; then
  echo "mutate: another run holds $OUT/lock" >&2
  exit 2
fi

now() { date +%s; }
fmt_time() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }
T_START=$(now)

# ---------------------------------------------------------------------------------------
# Scratch copy: the working tree without build/ and .git/. A file is copied only when its
# content differs, and gets a fresh timestamp then, so the build sees exactly what changed
# (a preserved older timestamp could hide an edit from make).
# ---------------------------------------------------------------------------------------
sync_tree() {
  local rel out_rel=""
  case "$OUT/" in "$ROOT"/*) out_rel=${OUT#"$ROOT"/} ;; esac
  local list
  list=$(mktemp)
  (cd "$ROOT" && find . \( -path ./build -o -path ./.git ${out_rel:+-o -path "./$out_rel"} \) -prune \
       -o \( -type f -o -type l \) -print0) > "$list"
  while IFS= read -r -d '' rel; do
    if [[ -L $ROOT/$rel || ! -e $SRC/$rel ]] || ! cmp -s "$ROOT/$rel" "$SRC/$rel"; then
      mkdir -p "$(dirname "$SRC/$rel")"
      rm -f "$SRC/$rel"
      cp -P --preserve=mode "$ROOT/$rel" "$SRC/$rel"
    fi
  done < "$list"
  # Files that are gone from the working tree go from the copy too.
  (cd "$SRC" && find . \( -type f -o -type l \) -print0) | while IFS= read -r -d '' rel; do
    [[ -e $ROOT/$rel || -L $ROOT/$rel ]] || rm -f "$SRC/$rel"
  done
  rm -f "$list"
}

# ---------------------------------------------------------------------------------------
# One check of the copy as it is now. Sets CHECK_STATUS (ok, lint, build) and FAILED (the
# failing checks, one a line, the first one first).
# ---------------------------------------------------------------------------------------
lint_copy() {  # $1: log
  (cd "$SRC" && verilator --lint-only -Wall -Irtl rtl/lint.vlt $(cat rtl/files.f) \
     --top-module qpm_top) > "$1" 2>&1
}

# A mutant that changes how Verilator splits a model into files leaves the previous
# split's objects in the model's library (undefined references at the link): on a failed
# build the Verilated models' outputs are removed and the build is run once more.
build_copy() {  # $1: log
  {
    if [[ ! -f $BLD/CMakeCache.txt ]]; then
      cmake -S "$SRC" -B "$BLD" -DCMAKE_BUILD_TYPE=Release || return 1
    fi
    cmake --build "$BLD" -j "$JOBS" && return 0
    echo "mutate: build failed; removing the Verilated models' outputs and building again"
    rm -rf "$BLD"/vqpm_*.dir "$BLD"/libvqpm_*.a "$BLD"/CMakeFiles/vqpm_*.dir
    cmake "$BLD" && cmake --build "$BLD" -j "$JOBS"
  } > "$1" 2>&1
}

# The failing entries of a ctest log, in test-number order, but real failures before
# timeouts: on a loaded machine a slow test can time out without any mutant's help.
ctest_failures() {  # $1: log
  local sect
  sect=$(sed -n '/^The following tests FAILED:/,/^Errors while running CTest/p' "$1")
  printf '%s\n' "$sect" | sed -n -E '/\(Timeout\)$/d; s/^[[:space:]]*[0-9]+ - (.*) \([^()]*\)$/\1/p'
  printf '%s\n' "$sect" | sed -n -E 's/^[[:space:]]*[0-9]+ - (.*) \(Timeout\)$/\1/p'
}

# ctest -E argument that skips the baseline's failing entries (exact names), and always
# mutants_apply: it checks that every patch applies to the unmutated tree, so on a
# mutated copy it fails whatever the mutant does, and would report a survivor killed.
CTEST_EXCLUDE=(-E '^mutants_apply$')
exclude_baseline() {
  local re='^mutants_apply$' name
  while IFS= read -r name; do
    [[ -z $name || $name == "qpm_sim "* || $name == "ctest ("* ]] && continue
    name=$(printf '%s' "$name" | sed 's/[][\.*^$+?(){}|]/\\&/g')
    re=${re:+$re|}^$name\$
  done <<< "$1"
  [[ -n $re ]] && CTEST_EXCLUDE=(-E "$re")
}

test_copy() {  # $1: log dir
  local dir=$1 rc
  FAILED=""
  (cd "$BLD" && ctest -j "$JOBS" --timeout "$TEST_TIMEOUT" --output-on-failure \
     "${CTEST_EXCLUDE[@]}") > "$dir/ctest.log" 2>&1
  rc=$?
  FAILED=$(ctest_failures "$dir/ctest.log")
  if [[ $rc -ne 0 && -z $FAILED ]]; then
    FAILED="ctest (exit $rc, see ctest.log)"
  fi
  local cfg
  for cfg in default tiny; do
    timeout "$SIM_TIMEOUT" "$BLD/qpm_sim" --config "$cfg" --seed 1 --cmds "$SIM_CMDS" \
      > "$dir/sim-$cfg.log" 2>&1
    rc=$?
    if [[ $rc -ne 0 ]]; then
      local what="qpm_sim --config $cfg --seed 1 --cmds $SIM_CMDS"
      [[ $rc -eq 124 ]] && what="$what (timeout)" || what="$what (exit $rc)"
      FAILED=${FAILED:+$FAILED$'\n'}$what
    fi
  done
}

# Drop the baseline's failing checks (MUTATE_ALLOW_RED_BASELINE=1 only).
minus_baseline() {
  if [[ -z $BASELINE_FAILED ]]; then printf '%s' "$FAILED"; return; fi
  printf '%s\n' "$FAILED" | grep -v -x -F -f <(printf '%s\n' "$BASELINE_FAILED") || true
}

# ---------------------------------------------------------------------------------------
# Baseline
# ---------------------------------------------------------------------------------------
sync_tree
# ---------------------------------------------------------------------------------------
# The mutants to run (from the snapshot just taken)
# ---------------------------------------------------------------------------------------
mutants=()
for p in "$MUTANTS_DIR"/*.patch; do
  [[ -e $p ]] || continue
  name=$(basename "$p" .patch)
  if [[ -z $PATTERN || $name =~ $PATTERN ]]; then mutants+=("$name"); fi
done
if [[ ${#mutants[@]} -eq 0 ]]; then
  echo "mutate: no mutant in tests/mutants/ matches '${PATTERN}'" >&2
  exit 2
fi

echo "mutate: ${#mutants[@]} mutant(s); scratch copy and build in $OUT (JOBS=$JOBS)"
BASE_LOG=$LOGS/baseline
mkdir -p "$BASE_LOG"
BASELINE_FAILED=""
if ! lint_copy "$BASE_LOG/lint.log"; then
  echo "mutate: the unmutated RTL fails lint (see $BASE_LOG/lint.log)" >&2
  exit 2
fi
if ! build_copy "$BASE_LOG/build.log"; then
  echo "mutate: the unmutated copy does not build (see $BASE_LOG/build.log)" >&2
  exit 2
fi
test_copy "$BASE_LOG"
if [[ -n $FAILED ]]; then
  echo "mutate: the baseline (no mutant) fails:" >&2
  printf '%s\n' "$FAILED" | sed 's/^/  /' >&2
  if [[ ${MUTATE_ALLOW_RED_BASELINE:-0} != 1 ]]; then
    echo "mutate: fix the suite first (or MUTATE_ALLOW_RED_BASELINE=1 to ignore these)" >&2
    exit 2
  fi
  BASELINE_FAILED=$FAILED
  exclude_baseline "$BASELINE_FAILED"
  echo "mutate: MUTATE_ALLOW_RED_BASELINE=1: these checks are skipped (ctest) or do not count" >&2
fi
echo "mutate: baseline green ($(fmt_time $(($(now) - T_START))))"

# ---------------------------------------------------------------------------------------
# The mutants
# ---------------------------------------------------------------------------------------
declare -a RESULTS DETAILS
n_killed=0 n_survived=0 n_error=0
for name in "${mutants[@]}"; do
  t0=$(now)
  patch_file=$MUTANTS_DIR/$name.patch
  dir=$LOGS/$name
  rm -rf "$dir" && mkdir -p "$dir"
  verdict="" by="" detail=""
  if ! (cd "$SRC" && patch -p1 --batch --forward --fuzz=0 --no-backup-if-mismatch \
          --dry-run -i "$patch_file" && \
        patch -p1 --batch --forward --fuzz=0 --no-backup-if-mismatch -i "$patch_file") \
        > "$dir/patch.log" 2>&1 < /dev/null; then
    verdict=ERROR by="patch does not apply to the working tree"
    sync_tree   # undo whatever part of it went in
  else
    if ! lint_copy "$dir/lint.log"; then
      verdict=ERROR by="fails lint, see $dir/lint.log"
    elif ! build_copy "$dir/build.log"; then
      verdict=ERROR by="does not build, see $dir/build.log"
    else
      test_copy "$dir"
      FAILED=$(minus_baseline)
      if [[ -n $FAILED ]]; then
        verdict=KILLED
        by=$(printf '%s\n' "$FAILED" | head -n 1)
        detail=$FAILED
      else
        verdict=SURVIVED
      fi
    fi
    if ! (cd "$SRC" && patch -p1 --batch --reverse --fuzz=0 --no-backup-if-mismatch \
            -i "$patch_file") >> "$dir/patch.log" 2>&1 < /dev/null; then
      echo "mutate: reverting $name failed; re-syncing the scratch copy" >&2
      sync_tree
    fi
  fi
  dt=$(($(now) - t0))
  case $verdict in
    KILLED)   n_killed=$((n_killed + 1));     line="KILLED   $name (by: $by)" ;;
    SURVIVED) n_survived=$((n_survived + 1)); line="SURVIVED $name" ;;
    *)        n_error=$((n_error + 1));       line="ERROR    $name ($by)" ;;
  esac
  echo "$line [$(fmt_time $dt)]"
  RESULTS+=("$line [$(fmt_time $dt)]")
  n_fail=$(printf '%s' "$detail" | grep -c . || true)
  DETAILS+=("$name: $(head -n 1 "$patch_file" | sed 's/^# *//')"$'\n'"  failing checks: $n_fail"$'\n'"$(printf '%s\n' "$detail" | sed '/^$/d; s/^/    /')")
done

# ---------------------------------------------------------------------------------------
# Summary and report
# ---------------------------------------------------------------------------------------
total=${#mutants[@]}
elapsed=$(fmt_time $(($(now) - T_START)))
summary="mutate: $total mutant(s): $n_killed killed, $n_survived survived, $n_error error(s) in $elapsed"
echo "$summary"
{
  echo "qpm mutation check, $(date -u +'%Y-%m-%d %H:%M UTC')"
  echo "working tree: $ROOT ($(cd "$ROOT" && git rev-parse --short HEAD 2>/dev/null || echo 'no git')$(cd "$ROOT" && [[ -n $(git status --porcelain 2>/dev/null) ]] && echo ', with local changes'))"
  echo "pattern: ${PATTERN:-<all>}   JOBS=$JOBS   TEST_TIMEOUT=${TEST_TIMEOUT}s   SIM_CMDS=$SIM_CMDS"
  if [[ -n $BASELINE_FAILED ]]; then
    echo "baseline RED, ignored (MUTATE_ALLOW_RED_BASELINE=1):"
    printf '%s\n' "$BASELINE_FAILED" | sed 's/^/  /'
  else
    echo "baseline: green"
  fi
  echo
  printf '%s\n' "${RESULTS[@]}"
  echo
  echo "$summary"
  echo
  echo "Details (the patch's header, then every failing check):"
  printf '%s\n' "${DETAILS[@]}"
} > "$REPORT"
echo "mutate: report in $REPORT"
[[ $n_survived -eq 0 && $n_error -eq 0 ]]
