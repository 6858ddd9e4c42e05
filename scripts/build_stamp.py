#!/usr/bin/env python3
"""The build stamp: which sources a build directory was built from.

A sharded nightly builds once (`make regress-build`) and its shards only run what was
built. They check the stamp first: a shard on a checkout whose RTL or testbench changed
since the build would report results of another design.

  build_stamp.py begin BUILD_DIR   before a build: records the sources, drops the stamp
  build_stamp.py end BUILD_DIR     after a successful build: the recorded sources become
                                   the stamp (so an edit made during the build shows up)
  build_stamp.py check BUILD_DIR   exit 0 when the stamp matches the checkout, 1 (saying
                                   why) when it is missing or stale

The sources are the files a build reads (rtl/, tb/, sim/, tests/ and CMakeLists.txt),
hashed by content: a fresh checkout of the same commit on another host matches, whatever
its path or file times.
"""
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Dict, Optional

REPO_ROOT = Path(__file__).resolve().parent.parent
STAMP_NAME = "qpm-build-stamp.json"
SOURCE_DIRS = ("rtl", "tb", "sim", "tests")
SOURCE_SUFFIXES = {".sv", ".svh", ".v", ".vh", ".vlt", ".f", ".cpp", ".cc", ".h", ".hpp",
                   ".inc", ".cmake"}


def _is_source(path: Path) -> bool:
    return path.suffix in SOURCE_SUFFIXES or path.name == "CMakeLists.txt"


def source_hashes(root: Path = REPO_ROOT) -> Dict[str, str]:
    """Relative path -> sha256 of every build input under root."""
    files = [root / "CMakeLists.txt"]
    for top in SOURCE_DIRS:
        for dirpath, dirnames, filenames in os.walk(root / top):
            dirnames.sort()
            files += [Path(dirpath) / name for name in sorted(filenames)]
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in files if p.is_file() and _is_source(p)}


def _read(path: Path) -> Optional[Dict[str, str]]:
    try:
        return json.loads(path.read_text())["sources"]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def begin(build_dir: Path) -> None:
    """source_root: the checkout the build compiled, whose path the Verilated models
    write into their coverage files (a build copied to another checkout keeps it)."""
    build_dir.mkdir(parents=True, exist_ok=True)
    (build_dir / STAMP_NAME).unlink(missing_ok=True)
    (build_dir / (STAMP_NAME + ".pending")).write_text(json.dumps(
        {"sources": source_hashes(), "source_root": str(REPO_ROOT)}, indent=1,
        sort_keys=True) + "\n")


def source_root(build_dir: Path) -> Optional[str]:
    """The checkout path the stamped build was compiled from, or None without a stamp."""
    try:
        return str(json.loads((build_dir / STAMP_NAME).read_text())["source_root"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def end(build_dir: Path) -> None:
    pending = build_dir / (STAMP_NAME + ".pending")
    if _read(pending) is None:
        raise SystemExit(f"build_stamp: {pending} is missing: run 'begin' before the build")
    pending.replace(build_dir / STAMP_NAME)


def problem(build_dir: Path) -> Optional[str]:
    """None when build_dir's stamp matches the checkout, else what is wrong and what to do."""
    shown = build_dir
    try:
        shown = build_dir.resolve().relative_to(REPO_ROOT)
    except ValueError:
        pass
    fix = "run 'make regress-build' on this checkout first (shards never build)"
    stamp = _read(build_dir / STAMP_NAME)
    if stamp is None:
        return f"{shown} has no build stamp ({STAMP_NAME}): it was not built by " \
               f"'make regress-build', or that build failed; {fix}"
    now = source_hashes()
    changed = sorted(p for p in now.keys() & stamp.keys() if now[p] != stamp[p])
    added = sorted(now.keys() - stamp.keys())
    removed = sorted(stamp.keys() - now.keys())
    if not (changed or added or removed):
        return None
    parts = [f"{what}: {', '.join(names[:5])}{' ...' if len(names) > 5 else ''}"
             for what, names in (("changed", changed), ("new", added), ("removed", removed))
             if names]
    return f"{shown} is stale against this checkout ({'; '.join(parts)}); {fix}"


def main(argv) -> int:
    if len(argv) != 2 or argv[0] not in ("begin", "end", "check"):
        print(__doc__, file=sys.stderr)
        return 2
    build_dir = Path(argv[1])
    if argv[0] == "begin":
        begin(build_dir)
    elif argv[0] == "end":
        end(build_dir)
    else:
        why = problem(build_dir)
        if why:
            print(f"build_stamp: {why}", file=sys.stderr)
            return 1
        print(f"build_stamp: {build_dir} matches the checkout")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
