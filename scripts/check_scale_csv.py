#!/usr/bin/env python3
"""Checks a qpm_bench --scale CSV against SPEC.md section 11.1, independently of the bench.

Every row must carry the columns config, mshrs, misses_per_op, bound and efficiency (and
dir_hit_rate, empty or within [0, 1]), with
    bound      = min(1, mshrs / (misses_per_op * mem_latency), 32 / (64 * misses_per_op))
                 (1 when there are no misses)
    efficiency = ops_per_cycle / bound
to the CSV's printed precision, and the "infinite" rows at bound 1 and efficiency 1.
misses_per_op counts the misses that read memory; take_backs_per_op (the misses served
from the write-back buffer instead) must be present and within [0, 1].
Usage: check_scale_csv.py scale.csv [config]
"""
import csv
import sys


def main() -> int:
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    want_config = sys.argv[2] if len(sys.argv) == 3 else None
    with open(sys.argv[1], newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        print(f"{sys.argv[1]}: no rows", file=sys.stderr)
        return 1
    problems = []
    for n, r in enumerate(rows, start=2):  # line 1 is the header
        try:
            m = float(r["misses_per_op"])
            lat = float(r["mem_latency"])
            mshrs = float(r["mshrs"])
            rate = float(r["ops_per_cycle"])
            bound = float(r["bound"])
            eff = float(r["efficiency"])
        except (KeyError, ValueError) as e:
            problems.append(f"line {n}: missing or bad column ({e})")
            continue
        expect = 1.0 if m <= 0 else min(1.0, mshrs / (m * lat), 32.0 / (64.0 * m))
        if abs(bound - expect) > 1e-4 + 1e-3 * expect:
            problems.append(f"line {n}: bound {bound} but SPEC 11.1 gives {expect:.5f}")
        if bound > 0 and abs(eff - rate / bound) > 1e-3 + 1e-3 * eff:
            problems.append(f"line {n}: efficiency {eff} but ops_per_cycle / bound is {rate / bound:.4f}")
        if r["policy"] == "infinite" and (bound != 1.0 or eff != 1.0):
            problems.append(f"line {n}: the infinite row has bound {bound}, efficiency {eff}")
        t = r.get("take_backs_per_op", "")
        if t == "" or not 0.0 <= float(t) <= 1.0 or m < 0:
            problems.append(f"line {n}: take_backs_per_op {t!r} or misses_per_op {m} out of range")
        d = r.get("dir_hit_rate", "")
        if d and not 0.0 <= float(d) <= 1.0:
            problems.append(f"line {n}: directory-cache hit rate {d} outside [0, 1]")
        if want_config and r["config"] != want_config:
            problems.append(f"line {n}: config {r['config']}, expected {want_config}")
    for p in problems:
        print(f"{sys.argv[1]}: {p}", file=sys.stderr)
    if not problems:
        print(f"{sys.argv[1]}: {len(rows)} rows agree with SPEC 11.1's bound")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
