#!/usr/bin/env bash
# The sharded nightly end to end on a real Slurm: starts a single-node Slurm on localhost
# (munged, slurmctld, slurmd as root, all under a scratch directory with their own
# slurm.conf, munge key, state and spool), builds build/cov once (make regress-build), and
# submits the nightly with scripts/slurm/submit.sh, as on a cluster:
#  1. SHARDS array tasks and the merge job after them: the merged junit.xml must hold
#     every run of the list, all passed, and the merged line and functional coverage
#     must be there, with source paths relative to the repo root;
#  2. the same again, but one shard is cancelled (scancel) once its first run reported:
#     the merge must fail, naming that shard and each run it did not report.
# It stops every daemon it started (by PID) and prints
#   slurm selftest: N shards, R runs, merged: PASS      (or FAIL: why)
# Exit 0 only when pass 1 passed and pass 2 failed as it must.
#
#   scripts/slurm/selftest.sh          # or make regress-slurm-selftest
# Environment: SHARDS (4), SEEDS (rounds, 1), CMDS (commands per qpm_sim run, 100),
# SCRATCH (build/slurm-selftest; emptied first), JOBS (build jobs, 2), COV_BUILD (the
# build the shards run, build/cov: made by make regress-build; another directory is used
# as it is, and must carry its stamp). Needs root (the daemons run as root); installs
# slurm-wlm and munge when missing (scripts/deps.sh slurm).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
cd "$repo"
shards=${SHARDS:-4} seeds=${SEEDS:-1} cmds=${CMDS:-100} jobs=${JOBS:-2}
cov_build=${COV_BUILD:-build/cov}
scratch=$(mkdir -p "${SCRATCH:-build/slurm-selftest}" && cd "${SCRATCH:-build/slurm-selftest}" && pwd)
base_seed=1202  # fixed: the selftest runs the same list every time
# Runs per round: the list itself says (one line per run).
runs=$(python3 scripts/regress.py --list --seeds "$seeds" --base-seed "$base_seed" | wc -l)

say() { echo "slurm selftest: $*"; }
verdict() {  # verdict PASS | verdict FAIL WHY...: the final line, and the exit status
  if [ "$1" = PASS ]; then say "$shards shards, $runs runs, merged: PASS"; exit 0; fi
  say "$shards shards, $runs runs, merged: FAIL: ${*:2}"
  exit 1
}
for v in "$shards" "$seeds" "$cmds"; do
  [[ "$v" =~ ^[1-9][0-9]*$ ]] || { echo "selftest: SHARDS, SEEDS and CMDS must be positive numbers" >&2; exit 2; }
done
[ "$(id -u)" -eq 0 ] || { echo "selftest: run as root (slurmd and munged run as root here)" >&2; exit 2; }

# --- the packages and the build -------------------------------------------------------
for tool in munged slurmctld slurmd sbatch; do
  command -v "$tool" >/dev/null || { scripts/deps.sh slurm; break; }
done
if [ "$cov_build" = build/cov ]; then
  make --no-print-directory regress-build JOBS="$jobs"
fi

# --- a single-node Slurm under $scratch ------------------------------------------------
for pidfile in "$scratch"/slurmctld.pid "$scratch"/slurmd.pid "$scratch"/munge/run/munged.pid; do
  if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
    echo "selftest: $pidfile names a running process: another selftest uses $scratch" \
         "(stop it, or set SCRATCH)" >&2
    exit 2
  fi
done
rm -rf "${scratch:?}"/*
mkdir -p "$scratch"/{etc,state,spool,log} "$scratch"/munge/{run,key}
# munged checks its directories: the socket's must be searchable by all, the key's private.
chmod 755 "$scratch/munge/run"
chmod 700 "$scratch/munge/key"
dd if=/dev/urandom of="$scratch/munge/key/munge.key" bs=1024 count=1 status=none
chmod 400 "$scratch/munge/key/munge.key"
socket=$scratch/munge/run/munge.socket

daemon_pids=()
# shellcheck disable=SC2317  # called by the EXIT trap
stop_daemons() {
  local pid ids
  # Jobs of this Slurm still queued or running (an aborted selftest): end them first, so
  # no slurmstepd outlives its slurmd. Only with SLURM_CONF set to ours: never a real
  # cluster's jobs.
  if [ "${SLURM_CONF:-}" = "$scratch/etc/slurm.conf" ] && [ -f "$scratch/slurmctld.pid" ]; then
    ids=$(squeue -h -o %A 2>/dev/null || true)
    if [ -n "$ids" ]; then
      # shellcheck disable=SC2086
      scancel --full $ids 2>/dev/null || true
      for _ in $(seq 30); do [ -z "$(squeue -h 2>/dev/null)" ] && break; sleep 1; done
    fi
  fi
  for pidfile in slurmd.pid slurmctld.pid munge/run/munged.pid; do
    [ -f "$scratch/$pidfile" ] && daemon_pids+=("$(cat "$scratch/$pidfile")")
  done
  for pid in "${daemon_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for _ in $(seq 50); do
    alive=0
    for pid in "${daemon_pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" -eq 0 ] && return
    sleep 0.2
  done
  for pid in "${daemon_pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
}
trap stop_daemons EXIT

munged --socket="$socket" --key-file="$scratch/munge/key/munge.key" \
  --pid-file="$scratch/munge/run/munged.pid" --log-file="$scratch/log/munged.log" \
  --seed-file="$scratch/munge/key/munged.seed"

# Two free TCP ports for slurmctld and slurmd (the system's 6817/6818 may be in use).
read -r ctld_port slurmd_port < <(python3 -c '
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in socks))')
host=$(hostname -s)
cat >"$scratch/etc/slurm.conf" <<EOF
# A single-node Slurm for scripts/slurm/selftest.sh; everything under $scratch.
ClusterName=qpmselftest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
StateSaveLocation=$scratch/state
SlurmdSpoolDir=$scratch/spool
SlurmctldPidFile=$scratch/slurmctld.pid
SlurmdPidFile=$scratch/slurmd.pid
SlurmctldLogFile=$scratch/log/slurmctld.log
SlurmdLogFile=$scratch/log/slurmd.log
# No cgroups: processes tracked by parentage, tasks not bound (root in a container).
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
SwitchType=switch/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
ReturnToService=2
# Finished jobs stay visible to scontrol (their exit codes) for 10 minutes.
MinJobAge=600
KillWait=10
NodeName=$host NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=selftest Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$scratch/etc/slurm.conf
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 60); do  # until the node takes jobs (30 s at most)
  [ "$(sinfo -h -n "$host" -o %t 2>/dev/null)" = idle ] && break
  sleep 0.5
done
if [ "$(sinfo -h -n "$host" -o %t 2>/dev/null)" != idle ]; then
  tail -n 5 "$scratch/log/slurmctld.log" "$scratch/log/slurmd.log" >&2 || true
  verdict FAIL "the single-node Slurm did not come up (logs in $scratch/log)"
fi
say "Slurm up on $host (slurmctld $(cat "$scratch/slurmctld.pid"), slurmd" \
    "$(cat "$scratch/slurmd.pid"), munged $(cat "$scratch/munge/run/munged.pid")), $scratch"

# --- the passes ----------------------------------------------------------------------
# job_field ID FIELD: a field of scontrol show job (JobState, ExitCode).
job_field() { scontrol -o show job "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1; }
# wait_gone ID: until the job left the queue (finished, failed or cancelled).
wait_gone() {
  local limit=$((SECONDS + 3600))
  while [ -n "$(squeue -h -j "$1" 2>/dev/null)" ]; do
    [ "$SECONDS" -lt "$limit" ] || return 1
    sleep 2
  done
}
submit() {  # submit OUT: the nightly of this selftest into OUT; sets array and merge
  scripts/slurm/submit.sh --shards "$shards" --seeds "$seeds" --base-seed "$base_seed" \
    --out "$1" --build "$cov_build" --regress-args "--cmds $cmds --waves 0 --jobs 1" --merge-args "--no-gate" \
    --cpus-per-task=1
  array=$(sed -n 's/^array=//p' "$1/jobs")
  merge=$(sed -n 's/^merge=//p' "$1/jobs")
}

# Pass 1: everything runs; the merge must pass and hold every run and the coverage.
pass1=$scratch/pass1
submit "$pass1"
wait_gone "$merge" || verdict FAIL "pass 1: the merge job $merge did not end within an hour"
state=$(job_field "$merge" JobState) code=$(job_field "$merge" ExitCode)
problems=$(python3 - "$pass1/merged" "$runs" "$repo" <<'EOF'
import json, sys, xml.etree.ElementTree as ET
from pathlib import Path
out, runs, repo = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
problems = []
try:
    root = ET.parse(out / "junit.xml").getroot()
    tests, failures = int(root.get("tests")), int(root.get("failures"))
    if (tests, failures) != (runs, 0):
        problems.append(f"merged junit.xml: {tests} runs, {failures} failed "
                        f"(expected {runs}, 0)")
except (OSError, ET.ParseError) as e:
    problems.append(f"merged junit.xml: {e}")
info = out / "coverage" / "merged.info"
if not info.exists():
    problems.append("no merged line coverage (coverage/merged.info)")
else:
    files = [l[3:] for l in info.read_text().splitlines() if l.startswith("SF:")]
    absolute = [f for f in files if f.startswith("/")]
    if not files or absolute:
        problems.append(f"merged coverage: {len(files)} source files, absolute paths: "
                        f"{absolute[:2]}")
    hit = sum(1 for l in info.read_text().splitlines()
              if l.startswith("DA:") and int(float(l.split(",")[1])) > 0)
    if hit == 0:
        problems.append("merged line coverage hits no line")
if not (out / "coverage" / "html" / "index.html").exists():
    problems.append("no coverage HTML")
try:
    bins = json.loads((out / "fcov.json").read_text())["bins"]
    if not any(bins.values()):
        problems.append("merged functional coverage hits no bin")
except (OSError, ValueError, KeyError) as e:
    problems.append(f"merged fcov.json: {e}")
print("; ".join(problems))
EOF
)
if [ "$state" != COMPLETED ] || [ "$code" != 0:0 ] || [ -n "$problems" ]; then
  tail -n 30 "$pass1/logs/merge.log" >&2 || true
  verdict FAIL "pass 1: merge job $merge $state (exit $code)${problems:+; $problems}; logs in $pass1/logs"
fi
say "pass 1: array $array, merge $merge COMPLETED: $(grep '^regress_merge:' "$pass1/logs/merge.log" | tail -1)"

# Pass 2: shard 1 is cancelled once its first run has reported; the merge must fail,
# naming shard 1 and every run of it that has no result.
pass2=$scratch/pass2
submit "$pass2"
victim=1
limit=$((SECONDS + 1800))
until grep -q "<testcase" "$pass2/shard-$victim/junit.xml" 2>/dev/null; do
  [ "$SECONDS" -lt "$limit" ] || verdict FAIL "pass 2: shard $victim reported no run in 30 minutes"
  sleep 0.5
done
scancel "${array}_$victim"
reported=$(grep -c "<testcase" "$pass2/shard-$victim/junit.xml" || true)
wait_gone "$merge" || verdict FAIL "pass 2: the merge job $merge did not end within an hour"
state=$(job_field "$merge" JobState) code=$(job_field "$merge" ExitCode)
victim_state=$(job_field "${array}_$victim" JobState)
owed=$(python3 scripts/regress.py --list --seeds "$seeds" --base-seed "$base_seed" \
  --shard "$victim/$shards" | cut -f1)
missing=$(grep -o "^regress_merge: MISSING [^ ]* (shard $victim/$shards)" "$pass2/logs/merge.log" \
  | awk '{print $3}' || true)
unreported=$(python3 - "$pass2/shard-$victim/junit.xml" <<EOF
import sys, xml.etree.ElementTree as ET
done = {c.get("name") for c in ET.parse(sys.argv[1]).getroot().iter("testcase")}
print("\n".join(n for n in """$owed""".split() if n not in done))
EOF
)
if [ "$state" = FAILED ] && [ "$code" = 1:0 ] && [ -n "$missing" ] \
   && [ "$(sort <<<"$missing")" = "$(sort <<<"$unreported")" ] \
   && grep -q "^regress_merge: FAIL: .*shards $victim/$shards" "$pass2/logs/merge.log"; then
  say "pass 2 (negative): shard $victim/$shards cancelled after $reported run(s) ($victim_state);" \
      "the merge FAILED as it must, naming shard $victim/$shards and its $(wc -l <<<"$missing")" \
      "unreported run(s): $(grep '^regress_merge: FAIL' "$pass2/logs/merge.log" | tail -1)"
else
  tail -n 30 "$pass2/logs/merge.log" >&2 || true
  verdict FAIL "pass 2 (negative): shard $victim cancelled ($victim_state) after $reported run(s)," \
    "but the merge job ended $state (exit $code), named $(wc -w <<<"$missing") missing run(s)" \
    "of the $(wc -w <<<"$unreported") it did not report; logs in $pass2/logs"
fi
verdict PASS
