#!/usr/bin/env python3
"""Merges the output directories of regression shards into one report, and fails when the
nightly is not all there.

  scripts/regress_merge.py OUT SHARD_DIR... [--shards N --seeds R --base-seed B]
                           [--suite-fcov DIR] [--no-coverage] [--no-gate]

Each SHARD_DIR is the --out directory of one `scripts/regress.py --shard k/N` run (for
example a downloaded CI artifact); a SHARD_DIR that does not exist counts as a shard
that wrote nothing. OUT receives what one unsharded regression writes: junit.xml (one
<testsuite> holding every run), summary.txt, the merged Verilator coverage
(coverage/merged.dat, merged.info, html/, source paths relative to the repo root, so
shards from checkouts at different paths merge) and the merged functional coverage
(fcov.txt, fcov.json) with the coverage gate.

The expected run list comes from --shards, --seeds and --base-seed (what the nightly
submitted; give them, so that even shards that never started are counted), else from the
plans (plan.json) the shards wrote before their first run. Every run of that list that no
shard reported is a failure: a <testcase> with a "missing:" failure in junit.xml and a
line on stderr naming it and its shard (no output, or stopped before it finished).

Exit status: 0 when every run of the list was reported and passed (and the coverage gate
passed); 1 when a run failed or is missing, or the gate failed; 2 on bad input (usage,
overlapping shards, shards cut from different run lists, nothing to know the list from).
"""
import argparse
import collections
import os
import shutil
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import regress_lib as lib


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def parse_args(argv):
    p = argparse.ArgumentParser(description="Merge regression shard outputs into OUT.",
                                epilog="Exit status: 0 all runs reported and passed, 1 a run "
                                       "failed or is missing, 2 bad input.")
    p.add_argument("out", type=Path, help="output directory of the merged report")
    p.add_argument("shards", type=Path, nargs="+", metavar="SHARD_DIR",
                   help="--out directories of the shards")
    p.add_argument("--shards", dest="expect_shards", type=positive_int, metavar="N",
                   help="the nightly had N shards")
    p.add_argument("--seeds", dest="expect_rounds", type=positive_int, metavar="R",
                   help="the nightly's --seeds (rounds of the run list)")
    p.add_argument("--base-seed", dest="expect_base", type=int, metavar="B",
                   help="the nightly's --base-seed")
    p.add_argument("--suite-fcov", type=Path, metavar="DIR",
                   help="also merge the directed tests' fcov-*.json from DIR (make test)")
    p.add_argument("--no-coverage", action="store_true", help="skip the coverage merges")
    p.add_argument("--no-gate", action="store_true",
                   help="merge coverage but do not fail on unhit bins (a run list too "
                        "small to reach them, e.g. scripts/slurm/selftest.sh)")
    args = p.parse_args(argv)
    args.out = Path(os.path.abspath(args.out))
    if any(Path(os.path.abspath(s)) == args.out for s in args.shards):
        p.error("OUT must not be one of the shard directories")
    given = [x is not None for x in (args.expect_shards, args.expect_rounds, args.expect_base)]
    if any(given) and not all(given):
        p.error("--shards, --seeds and --base-seed go together (they define the run list)")
    return args


class Shard:
    """What one SHARD_DIR holds: its plan and the runs its junit.xml reports."""

    def __init__(self, path: Path):
        self.path = path
        self.plan: Optional[lib.Plan] = None
        self.results: List[lib.Result] = []
        self.props: Dict[str, str] = {}
        self.problems: List[str] = []
        if not path.is_dir():
            self.problems.append("no such directory")
            return
        try:
            self.plan = lib.read_plan(path / lib.PLAN_NAME)
        except ValueError as e:
            self.problems.append(str(e))
        junit = path / "junit.xml"
        if junit.exists():
            try:
                self.results, self.props = lib.read_junit(junit)
            except (OSError, ET.ParseError) as e:
                self.problems.append(f"{junit}: unreadable: {e}")
        else:
            self.problems.append("no junit.xml (killed before its first run finished?)")

    @property
    def spec(self) -> Optional[str]:
        return self.plan.shard if self.plan else self.props.get("shard")

    @property
    def complete(self) -> bool:
        return self.props.get("complete", "true") == "true"


def expected_runs(args, shards: List[Shard]) -> Tuple[List[str], int, Dict[str, lib.Run]]:
    """(the run names the nightly had, in order; its shard count; Run by name for the
    replay lines of missing runs). Raises ValueError when the shards disagree with each
    other or with the command line, or nothing tells the list."""
    plans = [s.plan for s in shards if s.plan]
    lists = {tuple(p.run_list) for p in plans}
    if len(lists) > 1:
        raise ValueError("the shards were cut from different run lists (different "
                         "--seeds, --base-seed or filters): "
                         + ", ".join(f"{s.path} ({s.plan.shard}, base seed {s.plan.base_seed}, "
                                     f"{s.plan.rounds} round(s), {len(s.plan.run_list)} runs)"
                                     for s in shards if s.plan))
    counts = {p.shard_index[1] for p in plans}
    if len(counts) > 1:
        raise ValueError(f"the shards disagree on how many shards there are: {sorted(counts)}")
    if args.expect_shards:
        base, rounds, shard_count = args.expect_base, args.expect_rounds, args.expect_shards
        names = [r.name for r in lib.build_run_list(base, rounds, Path("build/cov"),
                                                    lib.DEFAULT_CMDS)]
        if lists and list(next(iter(lists))) != names:
            plan = plans[0]
            raise ValueError(f"the shards ran another run list (base seed {plan.base_seed}, "
                             f"{plan.rounds} round(s), {len(plan.run_list)} runs) than "
                             f"--base-seed {base} --seeds {rounds} ({len(names)} runs)")
        if counts and counts != {shard_count}:
            raise ValueError(f"the shards were cut {counts.pop()} ways, not --shards "
                             f"{shard_count}")
    elif plans:
        base, rounds, names = plans[0].base_seed, plans[0].rounds, plans[0].run_list
        shard_count = counts.pop()
    else:
        raise ValueError("no shard wrote its plan.json, so the run list is unknown: give "
                         "--shards, --seeds and --base-seed as the nightly was submitted")
    cmds = plans[0].cmds if plans else lib.DEFAULT_CMDS
    build = lib.REPO_ROOT / (plans[0].build if plans else "build/cov")
    by_name = {r.name: r for r in lib.build_run_list(base, rounds, build, cmds)}
    if plans and plans[0].seed is not None:
        by_name = {n: r.with_seed(plans[0].seed) for n, r in by_name.items()}
    return list(names), shard_count, by_name


def read_shards(shards: List[Shard]) -> List[lib.Result]:
    """Every reported run. Raises ValueError when two shards report one run: they were not
    cut from one run list."""
    owner, results, overlaps = {}, [], []
    for shard in shards:
        for r in shard.results:
            if r.name in owner:
                overlaps.append(f"{r.name} (in {owner[r.name]} and {shard.path})")
            owner[r.name] = shard.path
        results += shard.results
    if overlaps:
        shown = "\n  ".join(overlaps[:10])
        more = f"\n  ... and {len(overlaps) - 10} more" if len(overlaps) > 10 else ""
        raise ValueError(f"{len(overlaps)} run(s) in two shards:\n  {shown}{more}")
    return results


def shard_states(shards: List[Shard], shard_count: int,
                 names: List[str]) -> Tuple[Dict[int, str], List[str]]:
    """(why a shard k did not report everything, by k; lines about SHARD_DIRs that are
    not shards of this nightly)."""
    by_k = {}
    notes = []
    for shard in shards:
        spec = shard.spec
        if spec is None:
            notes.append(f"{shard.path}: not a shard ({'; '.join(shard.problems)})")
            continue
        k = int(spec.split("/")[0])
        if k in by_k:
            raise ValueError(f"two directories hold shard {spec}: {by_k[k].path} and "
                             f"{shard.path}")
        by_k[k] = shard
    owed = collections.Counter(lib.shard_of(i, shard_count) for i in range(len(names)))
    states = {}
    for k in range(1, shard_count + 1):
        shard = by_k.get(k)
        if shard is None:
            states[k] = "no output (not among the shard directories: never ran, or lost)"
        elif not shard.results:
            states[k] = f"reported none of its {owed[k]} runs ({'; '.join(shard.problems)})"
        elif not shard.complete or len(shard.results) < owed[k]:
            states[k] = (f"stopped after {len(shard.results)} of its {owed[k]} runs "
                         f"(killed, or out of time?); {shard.path}")
    return states, notes


def missing_results(missing: List[str], names: List[str], shard_count: int,
                    states: Dict[int, str], by_name: Dict[str, lib.Run]) -> List[lib.Result]:
    """A failed Result per run no shard reported, saying which shard owed it and why."""
    position = {name: i for i, name in enumerate(names)}
    out = []
    for name in missing:
        k = lib.shard_of(position[name], shard_count)
        why = states.get(k, "reported the other runs but not this one")
        run = by_name.get(name)
        r = lib.Result(name, run.test if run else "?", run.config if run else None,
                       run.profile if run else None, run.seed if run else 0, 0.0,
                       signature=f"missing:shard {k}/{shard_count}",
                       index=run.index if run else position[name],
                       policy=run.policy if run else None, space=run.space if run else None)
        if run:
            r.replay, r.make_replay = run.replay(), run.make_replay(run_cmds(run))
        r.log_tail = f"shard {k}/{shard_count} {why}: this run has no result"
        out.append(r)
    return out


def run_cmds(run: lib.Run) -> int:
    return int(run.args[run.args.index("--cmds") + 1]) if "--cmds" in run.args \
        else lib.DEFAULT_CMDS


def shard_dat_files(shard: Shard) -> List[Tuple[Path, str]]:
    """A shard's merged coverage if it made one, else its raw per-run files (a shard
    killed before its merge), each with the checkout root its paths start with (where
    the shard's build was compiled: its plan says)."""
    root = shard.plan.repo_root if shard.plan else str(lib.REPO_ROOT)
    merged = shard.path / "coverage" / "merged.dat"
    files = [merged] if merged.exists() and shard.complete else \
        sorted(shard.path.glob("runs/*/coverage-*.dat"))
    return [(f, root) for f in files]


def shard_fcov_files(shard: Shard) -> List[Path]:
    merged = shard.path / "fcov.json"
    return [merged] if merged.exists() and shard.complete else \
        sorted(shard.path.glob("runs/*/fcov.json"))


def clean_outputs(out: Path) -> None:
    shutil.rmtree(out / "coverage", ignore_errors=True)
    for name in ("junit.xml", "summary.txt", "fcov.txt", "fcov.json", "fcov_unhit.txt"):
        (out / name).unlink(missing_ok=True)


def merge_coverage(shards: List[Shard], args) -> Tuple[List[str], List[str]]:
    """The coverage report lines and the coverage gate's problems: merged shards are the
    nightly, so the gate applies (tests/coverage_exclusions.txt) unless --no-gate."""
    dat_files = [f for s in shards for f in shard_dat_files(s)]
    fcov_files = [f for s in shards for f in shard_fcov_files(s)]
    if args.suite_fcov is not None:
        if args.suite_fcov.is_dir():
            fcov_files += sorted(args.suite_fcov.glob("fcov-*.json"))
        else:
            print(f"regress_merge: warning: --suite-fcov {args.suite_fcov} is not a directory "
                  "(run make test first)", file=sys.stderr)
    fcov_line, problems = lib.report_functional_coverage(fcov_files, args.out,
                                                         gate=not args.no_gate)
    return [lib.merge_line_coverage(dat_files, args.out / "coverage"), fcov_line], problems


def main(argv=None) -> int:
    args = parse_args(argv)
    shards = [Shard(Path(os.path.abspath(s))) for s in args.shards]
    try:
        names, shard_count, by_name = expected_runs(args, shards)
        results = read_shards(shards)
        states, notes = shard_states(shards, shard_count, names)
    except ValueError as e:
        print(f"regress_merge: {e}", file=sys.stderr)
        return 2
    extra = sorted({r.name for r in results} - set(names))
    if extra:
        print(f"regress_merge: {len(extra)} reported run(s) are not in the run list: "
              f"{', '.join(extra[:5])}", file=sys.stderr)
        return 2
    for note in notes:
        print(f"regress_merge: warning: {note}", file=sys.stderr)
    reported = {r.name for r in results}
    missing = [n for n in names if n not in reported]
    for k, why in sorted(states.items()):
        print(f"regress_merge: shard {k}/{shard_count} {why}", file=sys.stderr)
    lost = missing_results(missing, names, shard_count, states, by_name)
    for r in lost:
        print(f"regress_merge: MISSING {r.name} ({r.signature[len('missing:'):]})",
              file=sys.stderr)
    results = sorted(results + lost, key=lib.run_order_key)

    args.out.mkdir(parents=True, exist_ok=True)
    clean_outputs(args.out)
    specs = ", ".join(s.spec or "?" for s in shards)
    base = next((s.plan.base_seed for s in shards if s.plan), args.expect_base)
    header = [f"merge of {len(args.shards)} shard directories ({specs}) of {shard_count} "
              f"shard(s), base seed {base}: {len(names)} runs expected, "
              f"{len(names) - len(missing)} reported, {len(missing)} missing",
              "shards: " + " ".join(lib.display_path(s.path) for s in shards)]
    suite_props = {"base_seed": base, "shards": shard_count, "expected_runs": len(names),
                   "missing_runs": len(missing)}
    lib.write_junit(args.out / "junit.xml", results, suite_props)
    coverage, gate_problems = ([], []) if args.no_coverage else merge_coverage(shards, args)
    reports = [f"junit: {lib.display_path(args.out / 'junit.xml')}"]
    summary = lib.format_summary(results, header, reports + coverage)
    (args.out / "summary.txt").write_text(summary)
    print(summary, end="")
    failed = sum(not r.passed for r in results) - len(missing)
    verdict = "PASS" if not (failed or missing or gate_problems) else "FAIL"
    print(f"regress_merge: {verdict}: {len(names)} runs expected, {len(missing)} missing"
          + (f" (shards {', '.join(f'{k}/{shard_count}' for k in sorted(states))})"
             if states else "")
          + f", {failed} failed" + (", coverage gate failed" if gate_problems else ""))
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
