#!/usr/bin/env python3
"""qpm nightly regression: many seeds of qpm_sim and of the cache random test, in parallel.

The run list is --seeds rounds; a round is one qpm_sim run per config (default, tiny) and
memory profile, each with a replacement policy and a QPN space in rotation, then one run
of the cache random test of qpm_tests. Every run has its own seed, derived from the base
seed and its index in the list (regress_lib.build_run_list). Each run works in
OUT/runs/<name>/ (log.txt, fcov.json, Verilator coverage-*.dat). The runner writes
OUT/plan.json (the run list, first), OUT/junit.xml (after every run, so a killed shard
still reports what finished), OUT/summary.txt, OUT/coverage/ (merged line+toggle
coverage, HTML), OUT/fcov.txt and OUT/fcov.json, prints a replay command for every
failure, and re-runs up to --waves failing qpm_sim runs with an FST waveform into
OUT/waves/.

  scripts/regress.py --seeds 10 --jobs 2                  # usually through `make regress`
  scripts/regress.py --base-seed 261130000 --seeds 4 --run sim.tiny.slow.plru.qpn4k.r3
  scripts/regress.py --seeds 40 --shard 2/4 --base-seed 261130000 --out build/rs2
  scripts/regress.py --list --seeds 5                     # the run list; runs nothing

A shard (--shard) never builds: it checks that --build was made by `make regress-build`
from this checkout's sources (scripts/build_stamp.py) and stops with exit 2 if not.

Exit status: 0 when every run passed, 1 when any failed, 2 on bad usage or a missing or
stale build, 143 when stopped by SIGTERM (a scheduler's time limit or scancel).
"""
import argparse
import concurrent.futures
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import List, Optional, Tuple

import build_stamp
import regress_lib as lib

RUN_TIMEOUT_S = 1200  # default, slow, 2000 commands: 455 s on the coverage build
MAX_SEED = 2**32 - 1  # Catch2 2.13 --rng-seed reads an unsigned int and refuses more


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def shard_spec(text: str):
    """'k/N' with 1 <= k <= N."""
    try:
        k, n = (int(part) for part in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected k/N, got '{text}'") from None
    if not 1 <= k <= n:
        raise argparse.ArgumentTypeError(f"needs 1 <= k <= N, got '{text}'")
    return k, n


def default_base_seed() -> int:
    """Today's date (YYMMDD) x 1000: a nightly is reproducible, and the seeds still fit
    Catch2's 32-bit --rng-seed (YYYYMMDD x 1000 would not)."""
    return int(time.strftime("%y%m%d")) * 1000


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="qpm nightly regression (qpm_sim and the cache random test).",
        epilog="Exit status: 0 all passed, 1 a run failed, 2 bad usage or build, "
               "143 SIGTERM.")
    p.add_argument("--seeds", type=positive_int, default=10,
                   help="rounds of the run list, each with its own seeds (10)")
    p.add_argument("--jobs", type=positive_int, default=2, help="runs at a time (2)")
    p.add_argument("--seed", type=int,
                   help="every selected run with this seed instead of its own")
    p.add_argument("--test", action="append", choices=lib.TESTS, help="only this test")
    p.add_argument("--config", action="append", choices=lib.CONFIGS, help="only this config")
    p.add_argument("--profile", action="append", choices=list(lib.PROFILES),
                   help="only this memory profile")
    p.add_argument("--policy", action="append", choices=lib.POLICIES,
                   help="only this replacement policy")
    p.add_argument("--space", action="append", choices=list(lib.SPACES),
                   help="only this QPN space")
    p.add_argument("--run", action="append", metavar="NAME",
                   help="only the run of this name (what a replay line names)")
    p.add_argument("--shard", type=shard_spec, metavar="k/N",
                   help="only runs whose position i in the (filtered) run list has "
                        "i %% N == k-1; needs a build from make regress-build")
    p.add_argument("--base-seed", type=int,
                   help="the seed every run's seed derives from (default: today, YYMMDD000)")
    p.add_argument("--build", type=Path, default=lib.REPO_ROOT / "build" / "cov",
                   help="directory with qpm_sim and qpm_tests (build/cov)")
    p.add_argument("--out", type=Path, default=lib.REPO_ROOT / "build" / "regress",
                   help="output directory (build/regress)")
    p.add_argument("--list", action="store_true", help="print name<TAB>command per run, exit")
    p.add_argument("--waves", type=int, default=3, help="failing runs re-run with FST (3)")
    p.add_argument("--cmds", type=positive_int, default=lib.DEFAULT_CMDS,
                   help=f"commands per qpm_sim run ({lib.DEFAULT_CMDS})")
    p.add_argument("--timeout", type=positive_int, default=RUN_TIMEOUT_S,
                   help=f"seconds before a run is killed ({RUN_TIMEOUT_S})")
    p.add_argument("--no-coverage", action="store_true", help="skip the coverage merges")
    p.add_argument("--suite-fcov", type=Path, metavar="DIR",
                   help="also merge the directed tests' fcov-*.json from DIR (make test "
                        "writes them to build/fcov-tests)")
    args = p.parse_args(argv)
    if args.base_seed is None:
        args.base_seed = default_base_seed()
    if args.base_seed < 0:
        p.error("--base-seed must be 0 or more")
    if args.waves < 0:
        p.error("--waves must be 0 or more")
    if args.seed is not None and not 0 <= args.seed <= MAX_SEED:
        p.error(f"--seed must lie in 0..{MAX_SEED} (Catch2 --rng-seed is 32-bit)")
    args.filters = lib.Filters(args.test or [], args.config or [], args.profile or [],
                               args.policy or [], args.space or [], args.run or [])
    return args


def select_runs(args) -> Tuple[List[lib.Run], List[lib.Run]]:
    """(the filtered run list, this shard's part of it). Filters first, then the shard:
    shards of one filtered list still partition it. Exits 2 on a --run name the list
    does not hold."""
    everything = lib.build_run_list(args.base_seed, args.seeds,
                                    Path(os.path.abspath(args.build)), args.cmds)
    unknown = sorted(set(args.filters.names) - {r.name for r in everything})
    if unknown:
        print(f"regress: no run named {', '.join(unknown)} in the {args.seeds} round(s) of "
              f"the list (--seeds must reach the round, .r<N>, of the name)", file=sys.stderr)
        sys.exit(2)
    runs = [r for r in everything if args.filters.keeps(r)]
    if args.seed is not None:
        runs = [r.with_seed(args.seed) for r in runs]
    mine = runs
    if args.shard:
        k, n = args.shard
        mine = [r for i, r in enumerate(runs) if lib.shard_of(i, n) == k]
    return runs, mine


# ---------------------------------------------------------------------------------------
# Running processes
# ---------------------------------------------------------------------------------------
_live = set()  # running Popen objects, so Ctrl-C can end their process groups
_live_lock = threading.Lock()


def kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def run_process(argv: List[str], cwd: Path, log_path: Path, timeout: int):
    """Runs argv in cwd, output to log_path. Returns (returncode, timed_out). Each run
    gets its own session so a timeout kills whatever it started, too."""
    with open(log_path, "wb") as log:
        try:
            proc = subprocess.Popen(argv, cwd=cwd, stdout=log, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, start_new_session=True)
        except OSError as e:
            log.write(f"regress: cannot start {argv[0]}: {e}\n".encode())
            return 127, False
        with _live_lock:
            _live.add(proc)
        try:
            return proc.wait(timeout=timeout), False
        except subprocess.TimeoutExpired:
            kill_group(proc)
            proc.wait()
            log.write(f"\nregress: timeout: killed after {timeout} s\n".encode())
            return proc.returncode, True
        finally:
            with _live_lock:
                _live.discard(proc)


def execute(run: lib.Run, args) -> lib.Result:
    run_dir = args.out / "runs" / run.name
    run_dir.mkdir(parents=True, exist_ok=True)
    log_path = run_dir / "log.txt"
    start = time.monotonic()
    rc, timed_out = run_process([str(run.program)] + run.args + run.report_args, run_dir,
                                log_path, args.timeout)
    seconds = time.monotonic() - start
    result = lib.Result(run.name, run.test, run.config, run.profile, run.seed, seconds,
                        replay=run.replay(), make_replay=run.make_replay(args.cmds),
                        index=run.index, policy=run.policy, space=run.space)
    if rc != 0 or timed_out:
        text = log_path.read_text(errors="replace")
        result.signature = lib.failure_signature(text, rc, timed_out)
        result.log_tail = lib.log_tail(text)
    return result


def progress_line(done: int, total: int, r: lib.Result) -> str:
    verdict = "PASS" if r.passed else "FAIL"
    line = f"[{done}/{total}] {verdict} {r.name:<36} {r.seconds:6.1f} s"
    if not r.passed:
        line += f"  {r.signature}\n    replay: {r.replay}"
    return line


def execute_all(runs: List[lib.Run], args) -> List[lib.Result]:
    """Runs J at a time, printing a line as each finishes and rewriting OUT/junit.xml
    with every run finished so far; results in run-list order."""
    results = {}
    order = {run.name: i for i, run in enumerate(runs)}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(execute, run, args): run.name for run in runs}
        try:
            for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
                r = future.result()
                results[r.name] = r
                print(progress_line(done, len(runs), r), flush=True)
                lib.write_junit(args.out / "junit.xml",
                                sorted(results.values(), key=lambda x: order[x.name]),
                                suite_properties(args, complete=False))
        except KeyboardInterrupt:
            pool.shutdown(wait=False, cancel_futures=True)
            with _live_lock:
                for proc in list(_live):
                    kill_group(proc)
            raise
    return [results[run.name] for run in runs]


def record_waves(runs: List[lib.Run], results: List[lib.Result], args) -> None:
    """Re-runs the first --waves failing qpm_sim runs with --trace, outside OUT/runs so
    their coverage is not counted twice."""
    by_name = {run.name: run for run in runs}
    failing = [r for r in results if not r.passed and r.test == "sim"]
    # A hung run would trace until the timeout: waveforms of the others come first.
    chosen = sorted(failing, key=lambda r: r.signature == "timeout")[:args.waves]
    if not chosen:
        return
    print(f"re-running {len(chosen)} failing run(s) with waveforms", flush=True)

    def one(r: lib.Result) -> None:
        run = by_name[r.name]
        work_dir = args.out / "waves" / r.name
        work_dir.mkdir(parents=True, exist_ok=True)
        fst = Path(os.path.abspath(args.out / "waves" / f"{r.name}.fst"))
        rc, _ = run_process([str(run.program)] + run.args + ["--trace", str(fst)], work_dir,
                            work_dir / "log.txt", args.timeout)
        # A failure that does not come back with the same command is worth knowing about.
        note = "  (the re-run PASSED: not reproducible?)" if rc == 0 else ""
        if fst.exists():
            r.waves = lib.display_path(fst) + note
            print(f"  waves: {r.name}: {r.waves}", flush=True)
        else:
            print(f"  waves: {r.name}: no FST written (see {work_dir / 'log.txt'})")

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        list(pool.map(one, chosen))


# ---------------------------------------------------------------------------------------
# Reports
# ---------------------------------------------------------------------------------------
def clean_outputs(out: Path) -> None:
    """Removes only what an earlier regression left in OUT, so stale coverage or logs are
    never merged into this one. OUT itself may be a shared directory: leave the rest."""
    for sub in ("runs", "waves", "coverage"):
        shutil.rmtree(out / sub, ignore_errors=True)
    for name in ("junit.xml", "summary.txt", "fcov.txt", "fcov.json", "fcov_unhit.txt",
                 lib.PLAN_NAME):
        (out / name).unlink(missing_ok=True)


def header_lines(args, runs: List[lib.Run]) -> List[str]:
    seeds = f"base seed {args.base_seed}, {args.seeds} round(s)"
    if args.seed is not None:
        seeds += f", every run with seed {args.seed}"
    shard = f", shard {args.shard[0]}/{args.shard[1]}" if args.shard else ""
    return [f"{seeds}{shard}, {len(runs)} runs, {args.cmds} commands per qpm_sim run",
            f"build {lib.display_path(args.build)}, output {lib.display_path(args.out)}"]


def suite_properties(args, complete: bool = True) -> dict:
    """complete=false while the shard runs: its junit.xml holds the runs finished so far."""
    props = {"base_seed": args.base_seed, "seeds": args.seeds, "cmds": args.cmds,
             "complete": str(complete).lower()}
    if args.seed is not None:
        props["seed"] = args.seed
    if args.shard:
        props["shard"] = f"{args.shard[0]}/{args.shard[1]}"
    return props


def coverage_root(args) -> str:
    """The checkout path in the build's coverage files: the one it was compiled from (its
    stamp says), which is this checkout unless the build was made elsewhere."""
    return build_stamp.source_root(args.build) or str(lib.REPO_ROOT)


def write_plan(args, run_list: List[lib.Run], mine: List[lib.Run]) -> None:
    """OUT/plan.json, before any run: what this shard owes, so a merge can name every run
    of a shard that was killed before it reported them."""
    lib.write_plan(args.out / lib.PLAN_NAME, lib.Plan(
        base_seed=args.base_seed, rounds=args.seeds, cmds=args.cmds, seed=args.seed,
        shard=f"{args.shard[0]}/{args.shard[1]}" if args.shard else "1/1",
        repo_root=coverage_root(args), build=lib.display_path(args.build), run_list=[r.name for r in run_list],
        runs=[r.name for r in mine]))


def report_coverage(runs: List[lib.Run], out: Path, gate: bool, root: str,
                    suite_fcov: Optional[Path] = None) -> Tuple[List[str], List[str]]:
    """The coverage report lines, and the coverage gate's problems (with gate). root: the
    checkout path the coverage files name (made relative in the merge)."""
    run_dirs = [out / "runs" / run.name for run in runs]
    dat_files = [(f, root) for f in sorted(f for d in run_dirs for f in d.glob("coverage-*.dat"))]
    fcov_files = [d / "fcov.json" for d in run_dirs if (d / "fcov.json").exists()]
    if suite_fcov is not None and suite_fcov.is_dir():
        fcov_files += sorted(suite_fcov.glob("fcov-*.json"))
    fcov_line, problems = lib.report_functional_coverage(fcov_files, out, gate)
    return [lib.merge_line_coverage(dat_files, out / "coverage"), fcov_line], problems


def full_matrix(args) -> bool:
    """The whole nightly ran here (no replay, filter or shard): the coverage gate applies.
    A sharded nightly is gated by regress_merge.py over all its shards."""
    return args.seed is None and args.filters.empty() and not args.shard


def check_binaries(runs: List[lib.Run]) -> bool:
    missing = sorted({str(r.program) for r in runs if not os.access(r.program, os.X_OK)})
    for path in missing:
        print(f"regress: {lib.display_path(Path(path))} is missing: build it first "
              f"(make regress builds build/cov)", file=sys.stderr)
    return not missing


def check_build(args) -> bool:
    """A shard runs only a build made by make regress-build from these sources (the stamp);
    any other run checks the stamp when there is one (make build writes none)."""
    if not args.shard and not (args.build / build_stamp.STAMP_NAME).exists():
        return True
    why = build_stamp.problem(args.build)
    if why:
        print(f"regress: {why}", file=sys.stderr)
    return why is None


_stopped_by = {"signal": signal.SIGINT}


def stop_on_sigterm(signum, frame) -> None:
    """A scheduler's time limit or scancel sends SIGTERM: end the runs as Ctrl-C does;
    junit.xml already holds the runs that finished."""
    _stopped_by["signal"] = signum
    raise KeyboardInterrupt


def main(argv=None) -> int:
    args = parse_args(argv)
    run_list, runs = select_runs(args)
    if args.list:
        for run in runs:
            print(f"{run.name}\t{run.command_line()}")
        return 0
    if not runs:
        print("regress: no run matches the filters", file=sys.stderr)
        return 2
    if not check_binaries(runs) or not check_build(args):
        return 2
    args.out = Path(os.path.abspath(args.out))
    args.out.mkdir(parents=True, exist_ok=True)
    clean_outputs(args.out)
    write_plan(args, run_list, runs)
    header = header_lines(args, runs)
    print("regress: " + "\n         ".join(header), flush=True)
    signal.signal(signal.SIGTERM, stop_on_sigterm)
    try:
        results = execute_all(runs, args)
    except KeyboardInterrupt:
        name = signal.Signals(_stopped_by["signal"]).name
        print(f"regress: stopped by {name}; {lib.display_path(args.out / 'junit.xml')} holds "
              f"the runs that finished", file=sys.stderr)
        return 128 + _stopped_by["signal"]
    record_waves(runs, results, args)
    lib.write_junit(args.out / "junit.xml", results, suite_properties(args))
    if not args.no_coverage:
        print("merging coverage", flush=True)
    coverage, gate_problems = ([], []) if args.no_coverage else report_coverage(
        runs, args.out, full_matrix(args), coverage_root(args), args.suite_fcov)
    reports = [f"junit: {lib.display_path(args.out / 'junit.xml')}, logs: "
               f"{lib.display_path(args.out / 'runs')}/<name>/log.txt"]
    summary = lib.format_summary(results, header, reports + coverage)
    (args.out / "summary.txt").write_text(summary)
    print("\n" + summary, end="")
    return 0 if all(r.passed for r in results) and not gate_problems else 1


if __name__ == "__main__":
    sys.exit(main())
