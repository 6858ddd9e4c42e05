#!/usr/bin/env bash
# Tests the regression's sharding and shard merge without a built model:
#  1. for SEEDS=5 and N in 1..4, the runs of `regress.py --list --shard k/N` over k are
#     exactly the runs of `regress.py --list` (as a multiset), and no run is in two shards;
#     every run has its own seed, and a round's runs do not depend on the round count;
#  2. --shard 0/3, 4/3 and malformed specs exit 2;
#  3. regress.py on fake qpm_sim/qpm_tests (made here) for shards 1/2 and 2/2, then
#     regress_merge.py: JUnit counts add up, the failure keeps its signature, functional
#     coverage is summed, line coverage of builds from two checkout paths merges on one
#     relative path, and merging a shard with itself (overlap) is refused; a shard
#     without a build stamp, or with a stale one, refuses to run;
#  3b. a missing shard, a shard killed (SIGTERM) after its first run, and no shard at all:
#     the merge exits 1 with a "missing:" JUnit failure and a MISSING line per lost run;
#  4. failure signatures: each kind of failure line qpm_sim prints (command and datapath
#     scoreboard fields, EQE and doorbell mismatches, the final check's events and
#     doorbells problems) gets its own key, and two failures of one kind that differ only
#     in numbers or in the doorbell or event they name share it.
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
total=$((5 * 22))  # 5 rounds x (2 configs x 8 profiles + deadpages on default + large x 4 + the cache test)
[ "$(wc -l <"$tmp/all")" -eq "$total" ] || fail "expected $total runs, got $(wc -l <"$tmp/all")"
[ -z "$(cut -f1 "$tmp/all" | sort | uniq -d)" ] || fail "run names repeat in the full list"
seeds=$(grep -oE -- '--(rng-)?seed [0-9]+' "$tmp/all" | sort | uniq -d | head -3)
[ -z "$seeds" ] || fail "runs share a seed: $seeds"
if "${regress[@]}" --list --seeds 2 --base-seed 1000 | cmp -s - <(head -44 "$tmp/all"); then
  ok "the first 2 rounds of 5 are the list of 2 rounds (seeds included)"
else
  fail "a round's runs change with the number of rounds"
fi
for policy in plru lru random trap; do
  grep -q -- "--evict-policy $policy " "$tmp/all" || fail "no run with --evict-policy $policy"
done
grep -q -- "--qpn-limit 16777216" "$tmp/all" || fail "no run in the 2^24 QPN space"
for n in 1 2 3 4; do
  : >"$tmp/union"
  for k in $(seq 1 "$n"); do
    "${list[@]}" --shard "$k/$n" >"$tmp/shard"
    lines=$(wc -l <"$tmp/shard")
    # round-robin: every shard holds floor or ceil of total/N runs
    if [ "$lines" -lt $((total / n)) ] || [ "$lines" -gt $(((total + n - 1) / n)) ]; then
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
# qpm_sim: writes fcov.json, and a Verilator coverage file naming line 20 of
# rtl/qpm_top.sv under the checkout path in the file "root" beside it (where a real
# build was compiled); the tiny/backpressure run under the trap policy (round 0 only) fails
# with a mismatch; with FAKE_SLOW set every run takes that many seconds.
cat >"$fake/qpm_sim" <<'EOF'
#!/usr/bin/env bash
config= fcov= backpressure=0 policy=
while [ $# -gt 0 ]; do
  case "$1" in
    --config) config=$2; shift ;;
    --evict-policy) policy=$2; shift ;;
    --fcov) fcov=$2; shift ;;
    --mem-backpressure) backpressure=1; shift ;;
  esac
  shift
done
sleep "${FAKE_SLOW:-0}"
[ -n "$fcov" ] && echo '{"bins": {"state.a": 1, "state.never": 0, "status/OK": 2}}' >"$fcov"
printf "# SystemC::Coverage-3\nC '\001t\002line\001page\002v_line/qpm_top\001f\002%s/rtl/qpm_top.sv\001l\00220\001n\0020\001o\002block\001h\002TOP.qpm_top' 1\n" \
  "$(cat "$(dirname "$0")/root")" >"coverage-$$.dat"
if [ "$config" = tiny ] && [ "$backpressure" = 1 ] && [ "$policy" = trap ]; then
  printf '[error] MISMATCH at command #3: query qpn=0x10\n  qpc.state: expected 0x1 got 0x2\n'
  exit 1
fi
echo PASS
EOF
printf '#!/usr/bin/env bash\necho "All tests passed"\n' >"$fake/qpm_tests"
chmod +x "$fake/qpm_sim" "$fake/qpm_tests"

run_shard() {  # k [BUILD]: runs shard k/2 of 2 rounds (44 runs) into $tmp/s$k
  local rc=0
  "${regress[@]}" --seeds 2 --base-seed 1000 --jobs 2 --shard "$1/2" --build "${2:-$fake}" \
    --out "$tmp/s$1" --waves 0 >"$tmp/s$1.out" 2>&1 || rc=$?
  echo "$rc"
}
# A shard runs only a build that make regress-build stamped from these sources.
expect_refusal() {  # WHAT PATTERN: shard 1 exits 2 with PATTERN in its output
  local rc
  rc=$(run_shard 1)
  if [ "$rc" -eq 2 ] && grep -q "$2" "$tmp/s1.out"; then
    ok "a shard refuses $1"
  else
    fail "a shard on $1 exits $rc: $(head -2 "$tmp/s1.out")"
  fi
}
stamp() { python3 "$here/build_stamp.py" begin "$fake" && python3 "$here/build_stamp.py" end "$fake"; }
expect_refusal "a build without a stamp" "no build stamp"
stamp
sed -i 's/"CMakeLists.txt": "[0-9a-f]*"/"CMakeLists.txt": "0"/' "$fake/qpm-build-stamp.json"
expect_refusal "a stale build, naming the changed file" "stale.*changed: CMakeLists.txt"
stamp
# Two builds compiled in checkouts at different paths (the stamp says where): the merged
# coverage must name rtl/qpm_top.sv once, relative, whatever the paths.
cp -r "$fake" "$tmp/fake2"
for pair in "$fake:/checkout-a/qpm" "$tmp/fake2:/checkout-b/qpm"; do
  echo "${pair#*:}" >"${pair%%:*}/root"
  python3 - "${pair%%:*}/qpm-build-stamp.json" "${pair#*:}" <<'EOF'
import json, sys
stamp = json.load(open(sys.argv[1]))
stamp["source_root"] = sys.argv[2]
json.dump(stamp, open(sys.argv[1], "w"))
EOF
done

rc1=$(run_shard 1)
rc2=$(run_shard 2 "$tmp/fake2")
# The failing run is index 11 (round 0, tiny, backpressure, trap): odd, so in shard 2/2.
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
    "44 test cases": len(cases) == 44 and len(set(names)) == 44,
    "tests=44 failures=1 on both levels": all(
        (e.get("tests"), e.get("failures")) == ("44", "1") for e in [root] + suites),
    "the failure keeps its signature": [c.find("failure").get("message") for c in cases
        if c.find("failure") is not None] == ["mismatch:qpc.state"],
    "fcov summed over 42 qpm_sim runs": json.load(open(f"{out}/fcov.json"))["bins"]
        == {"state.a": 42, "state.never": 0, "status/OK": 84},
    "fcov_unhit.txt names the unhit bin": open(f"{out}/fcov_unhit.txt").read() == "state.never\n",
    "the coverage gate fails on it": "coverage gate: FAIL" in open(f"{out}/summary.txt").read(),
    "coverage of both checkouts on one relative path":
        open(f"{out}/coverage/merged.info").read().split("\n")[1:3]
        == ["SF:rtl/qpm_top.sv", "DA:20,42"],
    "summary names the replay": "sim.tiny.backpressure.trap.qpn16m.r0" in open(f"{out}/summary.txt").read()
        and "--evict-policy trap --qps 4096" in open(f"{out}/summary.txt").read(),
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

# --- 3b. missing and killed shards make the merge fail -----------------------------------
# check_missing WHAT DIR NAMES_FILE EXPECTED_LINE: the merge into DIR wrote a junit.xml of
# all 44 runs with a "missing:" failure for exactly the runs in NAMES_FILE, and named each
# of them, and EXPECTED_LINE, on its stderr (DIR.err).
check_missing() {
  local what=$1 dir=$2 names=$3 line=$4 unnamed
  if ! python3 - "$dir" "$names" <<'EOF'; then fail "$what: junit.xml"; return; fi
import sys, xml.etree.ElementTree as ET
root = ET.parse(f"{sys.argv[1]}/junit.xml").getroot()
want = set(open(sys.argv[2]).read().split())
got = {c.get("name") for c in root.iter("testcase") if c.find("failure") is not None
       and c.find("failure").get("message").startswith("missing:")}
total = int(root.get("tests"))
if got != want or total != 44:
    print(f"missing failures for {len(got)} runs, expected {len(want)}; {total} test cases, "
          f"expected 44; not reported: {sorted(want - got)[:3]}, extra: {sorted(got - want)[:3]}")
    sys.exit(1)
EOF
  unnamed=$(while read -r name; do grep -q "MISSING $name " "$dir.err" || echo "$name"; done <"$names")
  if [ -z "$unnamed" ] && grep -q "$line" "$dir.err"; then
    ok "$what: a JUnit failure and a MISSING line per lost run ($(wc -l <"$names"))"
  else
    fail "$what: not named: $(echo "$unnamed" | head -3); '$line' $(grep -c "$line" "$dir.err")"
  fi
}
expect=(--shards 2 --seeds 2 --base-seed 1000)
"${regress[@]}" --list --seeds 2 --base-seed 1000 --shard 2/2 | cut -f1 >"$tmp/owed2"

# A shard that never ran: shard 1's directory only, the second's does not exist. With the
# flags the merge knows the list itself; without, from shard 1's plan.json.
for how in flags plans; do
  args=("${expect[@]}")
  [ "$how" = plans ] && args=()
  rc=0
  "${merge[@]}" "$tmp/m-$how" "$tmp/s1" "$tmp/nowhere" "${args[@]}" >"$tmp/m-$how.out" \
    2>"$tmp/m-$how.err" || rc=$?
  if [ "$rc" -eq 1 ]; then
    ok "shard 2/2 missing ($how): merge exits 1"
  else
    fail "shard 2/2 missing ($how): merge exits $rc"
  fi
  check_missing "shard 2/2 missing ($how)" "$tmp/m-$how" "$tmp/owed2" "shard 2/2 no output"
done

# A shard killed (SIGTERM, as scancel or a time limit sends) after its first run.
FAKE_SLOW=2 "${regress[@]}" --seeds 2 --base-seed 1000 --jobs 1 --shard 2/2 --build "$fake" \
  --out "$tmp/k2" --waves 0 >"$tmp/k2.out" 2>&1 &
shard_pid=$!
for _ in $(seq 100); do  # until junit.xml holds a run (at most 20 s)
  grep -q "<testcase" "$tmp/k2/junit.xml" 2>/dev/null && break
  sleep 0.2
done
kill -TERM "$shard_pid"
rc=0
wait "$shard_pid" || rc=$?
reported=$(grep -c "<testcase" "$tmp/k2/junit.xml" || true)
if [ "$rc" -eq 143 ] && [ "$reported" -ge 1 ] && [ "$reported" -lt 22 ]; then
  ok "a killed shard exits 143 and its junit.xml keeps the $reported run(s) that finished"
else
  fail "killed shard: exit $rc, $reported run(s) in its junit.xml"
fi
python3 - "$tmp/k2/junit.xml" "$tmp/owed2" >"$tmp/lost2" <<'EOF'
import sys, xml.etree.ElementTree as ET
done = {c.get("name") for c in ET.parse(sys.argv[1]).getroot().iter("testcase")}
print("\n".join(n for n in open(sys.argv[2]).read().split() if n not in done))
EOF
rc=0
"${merge[@]}" "$tmp/m-killed" "$tmp/s1" "$tmp/k2" "${expect[@]}" >"$tmp/m-killed.out" \
  2>"$tmp/m-killed.err" || rc=$?
if [ "$rc" -eq 1 ]; then ok "shard 2/2 killed: merge exits 1"; else fail "shard 2/2 killed: merge exits $rc"; fi
check_missing "shard 2/2 killed" "$tmp/m-killed" "$tmp/lost2" \
  "shard 2/2 stopped after $reported of its 22 runs"

# No shard at all: the flags alone tell the list; without them there is nothing to merge.
"${regress[@]}" --list --seeds 2 --base-seed 1000 | cut -f1 >"$tmp/owed-all"
rc=0
"${merge[@]}" "$tmp/m-none" "$tmp/nowhere" "${expect[@]}" >"$tmp/m-none.out" \
  2>"$tmp/m-none.err" || rc=$?
if [ "$rc" -eq 1 ]; then ok "no shard: merge exits 1"; else fail "no shard: merge exits $rc"; fi
check_missing "no shard" "$tmp/m-none" "$tmp/owed-all" "shard 1/2 no output"
rc=0
"${merge[@]}" "$tmp/m-blind" "$tmp/nowhere" >"$tmp/m-blind.out" 2>&1 || rc=$?
if [ "$rc" -eq 2 ] && grep -q "run list is unknown" "$tmp/m-blind.out"; then
  ok "no shard and no --shards/--seeds/--base-seed: exit 2"
else
  fail "no shard, no flags: exit $rc: $(head -2 "$tmp/m-blind.out")"
fi
rc=0
"${merge[@]}" "$tmp/m-other" "$tmp/s1" --shards 2 --seeds 3 --base-seed 1000 \
  >"$tmp/m-other.out" 2>&1 || rc=$?
if [ "$rc" -eq 2 ] && grep -q "another run list" "$tmp/m-other.out"; then
  ok "shards of another run list than --seeds/--base-seed: exit 2"
else
  fail "another run list: exit $rc: $(head -2 "$tmp/m-other.out")"
fi

# --- 4. failure signatures ------------------------------------------------------------
python3 - "$here" <<'EOF' || failures=$((failures + 1))
import sys
sys.path.insert(0, sys.argv[1])
import regress_lib as lib

dp = "[error] MISMATCH at datapath operation #{}: rx qpn={} op=WRITE pos=ONLY psn={} (tag {})"
db = "doorbell qpn={} queue={} n={}"
final = "  final image PROBLEMS"
cases = [  # (what, expected signature, log lines)
    ("a command field", "mismatch:qpc.state",
     ["[error] MISMATCH at command #3: query qpn=0x10", "  qpc.state: expected 0x1 got 0x2"]),
    ("a dp verdict", "mismatch:dp.verdict",
     [dp.format(17, "0x40", 100, 3), "  dp.verdict: expected ACCEPT got DROP",
      "  dp.drop: expected NONE got STATE"]),
    ("a dp verdict, other numbers", "mismatch:dp.verdict",
     [dp.format(912, "0x7ff", 5, 200), "  dp.verdict: expected NAK_SEQ got DUPLICATE"]),
    ("a dp PSN", "mismatch:dp.psn", [dp.format(4, "0x41", 7, 1), "  dp.psn: expected 0x7 got 0x8"]),
    ("an unknown dp tag", "mismatch:dp.tag",
     ["[error] MISMATCH: datapath response with tag 9 (qpn 0x40) but no such operation "
      "in flight", "  dp.tag: unknown"]),
    ("dp order", "mismatch:dp.order",
     ["[error] MISMATCH: datapath response #12 (tag 4) overtook 2 older operation(s) of "
      "qpn 0x43", "  dp.order: out of order", final, "    3 datapath response mismatches"]),
    ("an EQE", "mismatch:eqe.type",
     ["[error] MISMATCH on the EQE port:", "  eqe.type: expected qpn 0x40 type=COMM_EST "
      "syndrome=0 got qpn 0x40 type=SQ_DRAINED syndrome=0", final, "    events: 1 EQE mismatches"]),
    ("a doorbell never seen",
     "mismatch:doorbell.result:a QUERY_QP never showed it posted after N cycles",
     ["[error] MISMATCH on the doorbell port: " + db.format("0x45", "rq", 3) + ": a QUERY_QP "
      "never showed it posted after 2000 cycles", "  doorbell.result: " + db.format("0x45", "rq", 3)
      + ": a QUERY_QP never showed it posted after 2000 cycles", final, "    doorbells: "
      + db.format("0x45", "rq", 3) + ": a QUERY_QP never showed it posted after 2000 cycles"]),
    ("another doorbell never seen",
     "mismatch:doorbell.result:a QUERY_QP never showed it posted after N cycles",
     ["[error] MISMATCH on the doorbell port: x", "  doorbell.result: "
      + db.format("0x1f0", "sq", 12) + ": a QUERY_QP never showed it posted after 500 cycles"]),
    ("the refused count",
     "mismatch:doorbell.result:the RTL counts N refused doorbells, N predicted",
     ["[error] MISMATCH on the doorbell port: the RTL counts 5 refused doorbells, 3 predicted",
      "  doorbell.result: the RTL counts 5 refused doorbells, 3 predicted"]),
    ("a doorbell never driven",
     "mismatch:doorbell.result:taken by the doorbell port but never driven",
     ["[error] MISMATCH on the doorbell port: x", "  doorbell.result: "
      + db.format("0x40", "sq", 1) + " taken by the doorbell port but never driven"]),
    ("a lost event", "events:event never delivered",
     [final, "    events: event never delivered: qpn 0x40 type=COMM_EST syndrome=0",
      "    counters: events (vs events the model raised): 3 but expected 4"]),
    ("a lost event of another QP", "events:event never delivered",
     [final, "    events: event never delivered: qpn 0x9a type=QP_REQ_ERR syndrome=2"]),
    ("an extra event", "events:EQE that no operation raised",
     [final, "    events: EQE that no operation raised: port 1 type=PORT_ERR syndrome=0"]),
    ("EQE mismatches counted", "events:N EQE mismatches", [final, "    events: 2 EQE mismatches"]),
    ("a doorbell in the final check", "doorbells:applied but not waiting for it",
     [final, "    doorbells: " + db.format("0x47", "sq", 3) + " applied but not waiting for it",
      "    counters: db_refused (vs refusals predicted): 2 but expected 1"]),
    ("a script's doorbell problem", "doorbells:the model accepts a doorbell whose read failed",
     ["t.qpm: doorbells: " + db.format("0x47", "sq", 3)
      + ": the model accepts a doorbell whose read failed"]),
    ("a counter alone", "counters:db_refused",
     [final, "    counters: db_refused (vs refusals predicted): 2 but expected 1"]),
]
bad = 0
for what, want, lines in cases:
    got = lib.failure_signature("\n".join(lines), 1, False)
    if got == want:
        print(f"ok: signature of {what}: {got}")
    else:
        print(f"FAIL: signature of {what}: {got!r}, expected {want!r}")
        bad += 1
sys.exit(1 if bad else 0)
EOF

if [ "$failures" -ne 0 ]; then
  echo "test_regress_shards: $failures failure(s)" >&2
  exit 1
fi
echo "test_regress_shards: all passed"
