#!/usr/bin/env python3
"""Directed tests write functional coverage (tests/fcov_listener.cpp): with QPM_FCOV_DIR
set, a qpm_tests run writes one fcov-<pid>.json whose bins are what its tests did, and
regress.py's merge counts them; without it, nothing is written.

    scripts/test_suite_fcov.py BUILD/qpm_tests
"""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import regress_lib as lib  # noqa: E402

TEST = "PORT_FAULT: PORT_ERR first*"


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    qpm_tests = str(Path(sys.argv[1]).resolve())
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "fcov"
        env = dict(os.environ, QPM_FCOV_DIR=str(out))
        subprocess.run([qpm_tests, TEST], env=env, check=True, stdout=subprocess.DEVNULL)
        files = sorted(out.glob("fcov-*.json"))
        if len(files) != 1:
            failures.append(f"expected one fcov-*.json, found {len(files)}")
        else:
            bins = json.loads(files[0].read_text())["bins"]
            for name in ("command.PORT_FAULT.OK", "event.PORT_FAULT.PORT_ERR",
                         "event.PORT_FAULT.QP_FATAL", "transition.UD.RTR->RTS"):
                if bins.get(name, 0) <= 0:
                    failures.append(f"bin {name} not hit by '{TEST}'")
            if bins.get("dp.TX_WQE.ISSUE", 0) != 0:
                failures.append("dp.TX_WQE.ISSUE hit by a test that sends no TX_WQE")
            merged, _ = lib.merge_fcov(files + files)
            if merged.get("command.PORT_FAULT.OK") != 2 * bins.get("command.PORT_FAULT.OK", 0):
                failures.append("regress_lib.merge_fcov does not sum the directed tests' file")
        plain = Path(tmp) / "plain"
        env = {k: v for k, v in os.environ.items() if k != "QPM_FCOV_DIR"}
        subprocess.run([qpm_tests, TEST], env=env, check=True, stdout=subprocess.DEVNULL,
                       cwd=tmp)
        if plain.exists() or list(Path(tmp).glob("fcov-*.json")):
            failures.append("a run without QPM_FCOV_DIR wrote coverage")
    for f in failures:
        print("FAIL:", f)
    print("test_suite_fcov:", "FAIL" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
