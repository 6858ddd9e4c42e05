#!/usr/bin/env bash
# Tests the regression's sharding and shard merge without a built model:
#  1. for SEEDS=5 and N in 1..4, the runs of `regress.py --list --shard k/N` over k are
#     exactly the runs of `regress.py --list` (as a multiset), and no run is in two shards;
#  2. --shard 0/3, 4/3 and malformed specs exit 2;
#  3. regress.py on fake qpm_sim/qpm_tests (made here) for shards 1/2 and 2/2, then
#     regress_merge.py: JUnit counts add up, the failure keeps its signature, functional
#     coverage is summed, and merging a shard with itself (overlap) is refused.
# Runs from any directory: scripts/test_regress_shards.sh (CTest: regress_shards).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
regress=(python3 "$here/regress.py")
merge=(python3 "$here/regress_merge.py")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }

# A fixed base seed: the default follows the date, which could change between calls.
list=("${regress[@]}" --list --seeds 5 --base-seed 1000)

# --- 1. shards partition the run list -----------------------------------------------
"${list[@]}" >"$tmp/all"
[ "$(wc -l <"$tmp/all")" -eq 45 ] || fail "expected 45 runs (5 seeds x 9), got $(wc -l <"$tmp/all")"
[ -z "$(cut -f1 "$tmp/all" | sort | uniq -d)" ] || fail "run names repeat in the full list"
for n in 1 2 3 4; do
  : >"$tmp/union"
  for k in $(seq 1 "$n"); do
    "${list[@]}" --shard "$k/$n" >"$tmp/shard"
    lines=$(wc -l <"$tmp/shard")
    # round-robin: every shard holds floor or ceil of 45/N runs
    if [ "$lines" -lt $((45 / n)) ] || [ "$lines" -gt $(((45 + n - 1) / n)) ]; then
      fail "shard $k/$n holds $lines runs"
    fi
    cat "$tmp/shard" >>"$tmp/union"
  done
  if diff <(sort "$tmp/all") <(sort "$tmp/union") >/dev/null; then
    ok "the $n shard(s) of N=$n hold every run exactly once"
  else
    fail "N=$n: the union of the shards differs from the full list"
  fi
  dup=$(cut -f1 "$tmp/union" | sort | uniq -d | head -3)
  [ -z "$dup" ] || fail "N=$n: runs in two shards: $dup"
done

# --- 2. bad shard specs are usage errors ----------------------------------------------
for bad in 0/3 4/3 3 x/3 1/0; do
  rc=0
  "${list[@]}" --shard "$bad" >/dev/null 2>&1 || rc=$?
  if [ "$rc" -eq 2 ]; then ok "--shard $bad exits 2"; else fail "--shard $bad exits $rc, not 2"; fi
done

# --- 3. run two shards on a fake build, then merge them ---------------------------------
fake="$tmp/fake"
mkdir -p "$fake"
# qpm_sim: writes fcov.json; the tiny/errors run of seed 1000 fails with a mismatch.
cat >"$fake/qpm_sim" <<'EOF'
#!/usr/bin/env bash
config= seed= fcov= errors=0
while [ $# -gt 0 ]; do
  case "$1" in
    --config) config=$2; shift ;;
    --seed) seed=$2; shift ;;
    --fcov) fcov=$2; shift ;;
    --mem-read-error-rate) errors=1; shift ;;
  esac
  shift
done
[ -n "$fcov" ] && echo '{"bins": {"state.a": 1, "state.never": 0, "status/OK": 2}}' >"$fcov"
if [ "$config" = tiny ] && [ "$errors" = 1 ] && [ "$seed" = 1000 ]; then
  printf '[error] MISMATCH at command #3: query qpn=0x10\n  qpc.state: expected 0x1 got 0x2\n'
  exit 1
fi
echo PASS
EOF
printf '#!/usr/bin/env bash\necho "All tests passed"\n' >"$fake/qpm_tests"
chmod +x "$fake/qpm_sim" "$fake/qpm_tests"

run_shard() {  # k: runs shard k/2 of 2 seeds (18 runs) into $tmp/s$k
  local rc=0
  "${regress[@]}" --seeds 2 --base-seed 1000 --jobs 2 --shard "$1/2" --build "$fake" \
    --out "$tmp/s$1" --waves 0 >"$tmp/s$1.out" 2>&1 || rc=$?
  echo "$rc"
}
rc1=$(run_shard 1)
rc2=$(run_shard 2)
# The failing run is index 7 (seed 1000, tiny, errors): odd, so in shard 2/2.
if [ "$rc1" -eq 0 ] && [ "$rc2" -eq 1 ]; then
  ok "shard exit codes 0 and 1"
else
  fail "shard exit codes $rc1 and $rc2, expected 0 and 1"
  cat "$tmp/s1.out" "$tmp/s2.out" >&2  # $tmp is removed on exit: show the output now
fi

rc=0
"${merge[@]}" "$tmp/merged" "$tmp/s1" "$tmp/s2" >"$tmp/merge.out" 2>&1 || rc=$?
if [ "$rc" -eq 1 ]; then ok "merge exits 1 (one run failed)"; else fail "merge exits $rc, expected 1"; fi
python3 - "$tmp/merged" <<'EOF' || failures=$((failures + 1))
import json, sys, xml.etree.ElementTree as ET
out = sys.argv[1]
root = ET.parse(f"{out}/junit.xml").getroot()
suites = root.findall("testsuite")
cases = root.findall("testsuite/testcase")
names = [c.get("name") for c in cases]
checks = {
    "one <testsuite>": len(suites) == 1,
    "18 test cases": len(cases) == 18 and len(set(names)) == 18,
    "tests=18 failures=1 on both levels": all(
        (e.get("tests"), e.get("failures")) == ("18", "1") for e in [root] + suites),
    "the failure keeps its signature": [c.find("failure").get("message") for c in cases
        if c.find("failure") is not None] == ["mismatch:qpc.state"],
    "fcov summed over 16 qpm_sim runs": json.load(open(f"{out}/fcov.json"))["bins"]
        == {"state.a": 16, "state.never": 0, "status/OK": 32},
    "summary names the replay": "--config tiny --seed 1000" in open(f"{out}/summary.txt").read(),
}
bad = [what for what, good in checks.items() if not good]
for what in checks:
    print(("FAIL: merged " if what in bad else "ok: merged ") + what)
sys.exit(1 if bad else 0)
EOF

rc=0
"${merge[@]}" "$tmp/overlap" "$tmp/s1" "$tmp/s1" >"$tmp/overlap.out" 2>&1 || rc=$?
if [ "$rc" -eq 2 ] && grep -q "in two shards" "$tmp/overlap.out" && [ ! -e "$tmp/overlap/junit.xml" ]; then
  ok "overlapping shards are refused (exit 2, nothing written)"
else
  fail "overlapping shards: exit $rc; $(head -2 "$tmp/overlap.out")"
fi

if [ "$failures" -ne 0 ]; then
  echo "test_regress_shards: $failures failure(s)" >&2
  exit 1
fi
echo "test_regress_shards: all passed"
