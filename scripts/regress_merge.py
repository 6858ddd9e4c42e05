#!/usr/bin/env python3
"""Merges the output directories of regression shards into one report.

  scripts/regress_merge.py OUT SHARD_DIR...   [--no-coverage]

Each SHARD_DIR is the --out directory of one `scripts/regress.py --shard k/N` run (for
example a downloaded CI artifact). OUT receives what one unsharded regression writes:
junit.xml (one <testsuite> holding every shard's test cases), summary.txt, the merged
Verilator coverage (coverage/merged.dat, merged.info, html/) and the merged functional
coverage (fcov.txt, fcov.json). A run name found in two shards is refused: the shards
overlap, so they were not cut from one run list.

Exit status: 0 when every run passed, 1 when any failed, 2 on bad input (usage, a
missing or unreadable junit.xml, overlapping shards).
"""
import argparse
import os
import shutil
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Dict, List, Tuple

import regress_lib as lib


def parse_args(argv):
    p = argparse.ArgumentParser(description="Merge regression shard outputs into OUT.")
    p.add_argument("out", type=Path, help="output directory of the merged report")
    p.add_argument("shards", type=Path, nargs="+", metavar="SHARD_DIR",
                   help="--out directories of the shards")
    p.add_argument("--no-coverage", action="store_true", help="skip the coverage merges")
    args = p.parse_args(argv)
    args.out = Path(os.path.abspath(args.out))
    if any(Path(os.path.abspath(s)) == args.out for s in args.shards):
        p.error("OUT must not be one of the shard directories")
    return args


def read_shards(shards: List[Path]):
    """(results of all shards in order, suite properties per shard). Raises ValueError
    with a readable message on a missing junit.xml or an overlap."""
    results, props_by_shard, owner = [], {}, {}
    overlaps = []
    for shard in shards:
        junit = shard / "junit.xml"
        try:
            shard_results, props = lib.read_junit(junit)
        except (OSError, ET.ParseError) as e:
            raise ValueError(f"{junit}: {e}") from None
        for r in shard_results:
            if r.name in owner:
                overlaps.append(f"{r.name} (in {owner[r.name]} and {shard})")
            owner[r.name] = shard
        results += shard_results
        props_by_shard[shard] = props
    if overlaps:
        shown = "\n  ".join(overlaps[:10])
        more = f"\n  ... and {len(overlaps) - 10} more" if len(overlaps) > 10 else ""
        raise ValueError(f"{len(overlaps)} run(s) in two shards:\n  {shown}{more}")
    return sorted(results, key=lib.run_order_key), props_by_shard


def consistency_warnings(props_by_shard: Dict[Path, Dict[str, str]]) -> List[str]:
    """Shards of one regression share a base seed and cover 1..N once each; anything
    else merges fine but is probably not what was meant, so say so."""
    warnings = []
    bases = {p.get("base_seed") for p in props_by_shard.values()}
    if len(bases) > 1:
        warnings.append(f"shards have different base seeds {sorted(bases)}: "
                        "pass the same --base-seed (BASE_SEED=) to every shard")
    specs = [p.get("shard") for p in props_by_shard.values()]
    if None not in specs:
        totals = {s.split("/")[1] for s in specs}
        got = sorted(int(s.split("/")[0]) for s in specs)
        if len(totals) == 1 and got != list(range(1, int(next(iter(totals))) + 1)):
            warnings.append(f"shards {', '.join(specs)} are not all of 1..{totals.pop()}")
    return warnings


def shard_dat_files(shard: Path) -> List[Path]:
    """A shard's merged coverage if it made one, else its raw per-run files."""
    merged = shard / "coverage" / "merged.dat"
    return [merged] if merged.exists() else sorted(shard.glob("runs/*/coverage-*.dat"))


def shard_fcov_files(shard: Path) -> List[Path]:
    merged = shard / "fcov.json"
    return [merged] if merged.exists() else sorted(shard.glob("runs/*/fcov.json"))


def clean_outputs(out: Path) -> None:
    shutil.rmtree(out / "coverage", ignore_errors=True)
    for name in ("junit.xml", "summary.txt", "fcov.txt", "fcov.json", "fcov_unhit.txt"):
        (out / name).unlink(missing_ok=True)


def merge_coverage(shards: List[Path], out: Path) -> Tuple[List[str], List[str]]:
    """The coverage report lines and the coverage gate's problems: merged shards are the
    nightly, so the gate applies (tests/coverage_exclusions.txt)."""
    dat_files = [f for s in shards for f in shard_dat_files(s)]
    fcov_files = [f for s in shards for f in shard_fcov_files(s)]
    fcov_line, problems = lib.report_functional_coverage(fcov_files, out, gate=True)
    return [lib.merge_line_coverage(dat_files, out / "coverage"), fcov_line], problems


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        results, props_by_shard = read_shards(args.shards)
    except ValueError as e:
        print(f"regress_merge: {e}", file=sys.stderr)
        return 2
    for warning in consistency_warnings(props_by_shard):
        print(f"regress_merge: warning: {warning}", file=sys.stderr)
    args.out.mkdir(parents=True, exist_ok=True)
    clean_outputs(args.out)
    specs = ", ".join(p.get("shard", "unsharded") for p in props_by_shard.values())
    bases = ", ".join(sorted({p.get("base_seed", "?") for p in props_by_shard.values()}))
    header = [f"merge of {len(args.shards)} shard(s) ({specs}), base seed {bases}, "
              f"{len(results)} runs",
              "shards: " + " ".join(lib.display_path(s) for s in args.shards)]
    suite_props = {"base_seed": bases, "shards": specs}
    lib.write_junit(args.out / "junit.xml", results, suite_props)
    coverage, gate_problems = ([], []) if args.no_coverage else merge_coverage(args.shards, args.out)
    reports = [f"junit: {lib.display_path(args.out / 'junit.xml')}"]
    summary = lib.format_summary(results, header, reports + coverage)
    (args.out / "summary.txt").write_text(summary)
    print(summary, end="")
    return 0 if all(r.passed for r in results) and not gate_problems else 1


if __name__ == "__main__":
    sys.exit(main())
