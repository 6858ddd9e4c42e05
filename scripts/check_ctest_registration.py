#!/usr/bin/env python3
"""Checks that every Catch2 test case runs exactly once under CTest.

    check_ctest_registration.py TEST_BINARY BUILD_DIR

TEST_BINARY is a Catch2 executable registered with catch_discover_tests (qpm_tests,
test_datapath_model; CMakeLists.txt runs the check once for each).

A test name with a ';' once became several CTest entries whose filters matched nothing,
and they "passed" with "No tests ran". This script lists the test cases the binary holds
and the entries CTest registered for it, and for every entry asks the binary which test
cases its filter selects: each entry must select exactly one, and each test case must be
selected by exactly one entry. Exit 0 when so, 1 with the offenders listed otherwise.
"""
import collections
import json
import subprocess
import sys


def catch_names(binary, filter_args=()):
    out = subprocess.run([binary, *filter_args, "--list-test-names-only"],
                         capture_output=True, text=True, check=False).stdout
    return [line for line in out.splitlines() if line.strip()]


def ctest_entries(build_dir, binary):
    """(name, filter args) of every CTest entry that runs the binary."""
    out = subprocess.run(["ctest", "-N", "--show-only=json-v1"], cwd=build_dir,
                         capture_output=True, text=True, check=True).stdout
    entries = []
    for test in json.loads(out)["tests"]:
        command = test.get("command", [])
        if len(command) >= 1 and command[0] == binary:
            entries.append((test["name"], [a for a in command[1:] if a]))
    return entries


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    binary, build_dir = sys.argv[1], sys.argv[2]
    cases = catch_names(binary)
    problems = []
    dupes = [n for n, k in collections.Counter(cases).items() if k > 1]
    problems += [f"test case name used twice: {n!r}" for n in dupes]
    selected = collections.Counter()
    for name, args in ctest_entries(build_dir, binary):
        # Only the filter: drop reporter and option arguments.
        filters = [a for a in args if not a.startswith("-")][:1]
        picks = catch_names(binary, filters)
        if len(picks) != 1:
            problems.append(f"CTest entry {name!r} selects {len(picks)} test cases: {picks}")
        selected.update(picks)
    for case in cases:
        if selected[case] != 1:
            problems.append(f"test case {case!r} is run by {selected[case]} CTest entries")
    for p in problems:
        print(p)
    print(f"ctest registration: {len(cases)} test cases, {sum(selected.values())} selections, "
          f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
