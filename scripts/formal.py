#!/usr/bin/env python3
"""qpm's proofs (make formal, make formal-mutants; docs/formal.md).

Every formal/*.toml lists proofs as [[proof]] tables:

  name     unique, dotted: block.config.property
  what     one line: the property in words
  top      the property wrapper module (formal/*_props.sv)
  files    the RTL and the wrapper, relative to the repository, in read order;
           "@rtl/files.f" stands for every file that list names
  params   optional: top-level parameters (chparam)
  defines  the `define that switches the property on in the wrapper
  method   sat        combinational: Yosys `sat -prove-asserts`, every input at once
           bmc        bounded: yosys-smtbmc with z3, every input sequence of `depth`
                      cycles from reset
           induction  unbounded: the bmc base case of `depth` cycles, then
                      yosys-smtbmc -i (k-induction, k = depth)
           sat-seq    bounded like bmc, with Yosys' own solver (`sat -seq depth`):
                      for models z3 loads slowly (wide multiplexed compares)
  depth    cycles (bmc, induction)
  engine   optional, bmc only: "z3" (the default: yosys-smtbmc with z3) or "abc":
           the model bit-blasted to an AIGER file, reduced by scorr and checked by
           yosys-abc's bmc3 (ships with Yosys); for big control-heavy models (the QP
           cache) that z3 decides in seconds per cycle and ABC in seconds for all of
           them. When scorr proves the property's output 0 in every reachable state,
           the proof is reported as an invariant
  asserts  optional: a Yosys selection of the assertions the proof is about
           (e.g. "n:*FUniqueTag_A"); every other assertion is dropped, and with it
           the logic only it reads (without the key every assertion counts, the RTL's
           embedded ones included)
  mutant   a patch (formal/mutants/) that plants a bug the proof must catch, or a list
           of them

Each proof prints one line: PROVEN (method, depth) or FAILED, with a counterexample VCD
under build/formal/<name>/. Exit status 1 when any proof failed.

  scripts/formal.py [--only REGEX] [--jobs N] [--mutants] [--list]

--mutants applies each proof's mutant to a scratch copy of the files it reads and
expects the proof to fail (KILLED); a mutant the proof still proves SURVIVED and makes
the run fail.
"""
import argparse
import concurrent.futures
import pathlib
import re
import resource
import shutil
import subprocess
import sys
import time
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "build" / "formal"
KEYS = {"name", "what", "top", "files", "params", "defines", "method", "depth", "mutant",
        "engine", "asserts"}
METHODS = {"sat", "sat-seq", "bmc", "induction"}
ENGINES = {"z3", "abc"}
# Per solver run: a proof that needs more is a proof to restructure, not to wait for.
# 1,200 s since 2026-12-07 (900 before): cache.no_early_write, unchanged, took 681 s
# alone and 767 s in a CI run, too close to 900 (docs/formal.md).
MEM_LIMIT = 6 << 30
TIME_LIMIT = 1200


def expand_files(files, where):
    out = []
    for f in files:
        if f.startswith("@"):
            listed = (ROOT / f[1:]).read_text().split()
            out += [x for x in listed if x not in out]
        elif f not in out:
            out.append(f)
    for f in out:
        if not (ROOT / f).is_file():
            sys.exit(f"formal: {where}: no file {f}")
    return out


def load_proofs():
    proofs = []
    for toml in sorted((ROOT / "formal").glob("*.toml")):
        with open(toml, "rb") as f:
            data = tomllib.load(f)
        for i, p in enumerate(data.get("proof", [])):
            where = f"{toml.relative_to(ROOT)} proof #{i + 1}"
            unknown = set(p) - KEYS
            if unknown:
                sys.exit(f"formal: {where}: unknown key(s) {sorted(unknown)}")
            for k in ("name", "what", "top", "files", "defines", "method", "mutant"):
                if k not in p:
                    sys.exit(f"formal: {where}: missing '{k}'")
            if p["method"] not in METHODS:
                sys.exit(f"formal: {where}: method '{p['method']}' is not one of {sorted(METHODS)}")
            if p["method"] != "sat" and int(p.get("depth", 0)) < 1:
                sys.exit(f"formal: {where}: method {p['method']} needs depth >= 1")
            p.setdefault("engine", "z3")
            if p["engine"] not in ENGINES:
                sys.exit(f"formal: {where}: engine '{p['engine']}' is not one of {sorted(ENGINES)}")
            if p["engine"] == "abc" and p["method"] != "bmc":
                sys.exit(f"formal: {where}: engine abc is for method bmc only")
            p["files"] = expand_files(p["files"], where)
            p.setdefault("params", {})
            p.setdefault("depth", 0)
            # one mutant, or a list of them (each must be killed)
            p["mutants"] = [p["mutant"]] if isinstance(p["mutant"], str) else list(p["mutant"])
            p["source"] = str(toml.relative_to(ROOT))
            proofs.append(p)
    names = [p["name"] for p in proofs]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        sys.exit(f"formal: duplicate proof names {sorted(dup)}")
    return proofs


def yosys_script(p, src, work):
    files = " ".join(str(src / f) for f in p["files"])
    defs = " ".join(f"-D{d}" for d in p["defines"])
    lines = [f"read_verilog -sv -formal -DFORMAL -I{src / 'rtl'} -I{src / 'formal'} {defs} {files}"]
    for k, v in p["params"].items():
        lines.append(f"chparam -set {k} {v} {p['top']}")
    lines.append(f"prep -top {p['top']}")
    lines.append("flatten")
    if p.get("asserts"):
        # only the proof's own assertions; opt_clean then drops what only the others read
        lines += [f"chformal -assert -remove t:$assert {p['asserts']} %d", "opt_clean"]
    if p["engine"] == "abc":
        # bit level for ABC: memories as flops, free wires as free inputs, assumptions
        # as AIGER constraints in the cycle they are about, then an and-inverter graph
        # (no opt after techmap: opt_merge on the bit-level netlist costs more than ABC
        # saves); model.il (the word-level netlist, every signal) and model.aim turn
        # ABC's witness back into a VCD (sim)
        lines += ["async2sync", "dffunmap", "memory_map", "opt -fast",
                  "setundef -undriven -anyseq", "chformal -assume -early", "opt_clean",
                  f"write_rtlil {work / 'model.il'}",
                  "techmap", "dffunmap", "abc -g AND -fast", "opt_clean",
                  f"write_aiger -I -B -zinit -map {work / 'model.aim'} {work / 'model.aig'}"]
        return "\n".join(lines) + "\n"
    if p["method"] == "sat":
        lines.append("opt_clean")
        lines.append(f"sat -prove-asserts -set-assumes -verify -show-inputs "
                     f"-dump_vcd {work / 'counterexample.vcd'}")
    elif p["method"] == "sat-seq":
        # Flops start from their init values (the wrapper's reset register), the rest at 0;
        # the wrapper holds reset in the first cycle, so every state is a reset state.
        lines += ["async2sync", "opt_clean",
                  f"sat -seq {int(p['depth'])} -prove-asserts -set-assumes -set-init-zero "
                  f"-verify -show-inputs -dump_vcd {work / 'counterexample.vcd'}"]
    else:
        # Asynchronous resets as synchronous ones, flops as the solver's state.
        lines += ["async2sync", "dffunmap", f"write_smt2 -wires {work / 'model.smt2'}"]
    return "\n".join(lines) + "\n"


def limit_resources():
    resource.setrlimit(resource.RLIMIT_AS, (MEM_LIMIT, MEM_LIMIT))


def run(cmd, log, cwd):
    with open(log, "a") as f:
        f.write("$ " + " ".join(str(c) for c in cmd) + "\n")
        f.flush()
        try:
            r = subprocess.run(cmd, cwd=cwd, stdout=f, stderr=subprocess.STDOUT,
                               preexec_fn=limit_resources, timeout=TIME_LIMIT)
        except subprocess.TimeoutExpired:
            f.write(f"formal: stopped after {TIME_LIMIT} s\n")
            return -1
    return r.returncode


def prove(p, src, work):
    """Returns (verdict, detail): verdict is "proven", "cex" (a counterexample) or "error"."""
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    log = work / "log.txt"
    ys = work / "script.ys"
    ys.write_text(yosys_script(p, src, work))
    # An implicitly declared net is an error, as in make synth (a name the package lacks
    # would otherwise become a wire of its own, silently wrong).
    rc = run(["yosys", "-q", "-e", "implicitly declared", "-l", str(work / "yosys.log"), "-s", str(ys)],
             log, work)
    if p["method"] in ("sat", "sat-seq"):
        if rc == 0:
            if p["method"] == "sat":
                return "proven", "sat, every input"
            return "proven", f"sat -seq, {p['depth']} cycles from reset"
        text = (work / "yosys.log").read_text(errors="replace") if (work / "yosys.log").exists() else ""
        if "SAT proof finished - model found: FAIL" in text:
            return "cex", f"counterexample: {(work / 'counterexample.vcd').relative_to(ROOT)}"
        return "error", f"yosys error, see {log.relative_to(ROOT)}"
    if rc != 0:
        return "error", f"yosys error, see {log.relative_to(ROOT)}"
    depth = int(p["depth"])
    if p["engine"] == "abc":
        return prove_abc(work, log, depth)
    smt = str(work / "model.smt2")
    vcd = work / "counterexample.vcd"
    rc = run(["yosys-smtbmc", "-s", "z3", "--unroll", "--presat", "-t", str(depth), "--dump-vcd", str(vcd), smt],
             log, work)
    if rc != 0:
        if not vcd.exists():
            return "error", f"yosys-smtbmc error, see {log.relative_to(ROOT)}"
        return "cex", f"fails within {depth} cycles from reset: {vcd.relative_to(ROOT)}"
    if p["method"] == "bmc":
        return "proven", f"bmc, {depth} cycles from reset"
    ivcd = work / "induction.vcd"
    rc = run(["yosys-smtbmc", "-s", "z3", "--unroll", "-i", "-t", str(depth), "--dump-vcd", str(ivcd), smt],
             log, work)
    if rc != 0:
        if not ivcd.exists():
            return "error", f"yosys-smtbmc error, see {log.relative_to(ROOT)}"
        return "cex", (f"not {depth}-inductive (a real bug, or invariants to strengthen): "
                       f"{ivcd.relative_to(ROOT)}")
    return "proven", f"k-induction, k = {depth}"


def prove_abc(work, log, depth):
    """yosys-abc bmc3 on the AIGER model: `depth` frames from reset (frame 0 = cycle 0)."""
    aiw = work / "counterexample.aiw"
    # scorr merges the latches that hold equal values in every reachable state (sound
    # for a check from reset); on the QP cache it halves bmc3's time
    reduce = f"read_aiger {work / 'model.aig'}; fold; strash; dc2; scleanup; scorr; dc2; scleanup"
    run(["yosys-abc", "-c", f"{reduce}; bmc3 -F {depth}; write_cex -a {aiw}"], log, work)
    text = log.read_text(errors="replace")
    if f"No output asserted in {depth} frames" in text:
        return "proven", f"bmc (abc), {depth} cycles from reset"
    if "The network is combinational" in text:
        # scorr left no latch: the property's output is a function of this cycle's inputs
        # alone; unsatisfiable, it holds in every reachable state (an inductive invariant)
        run(["yosys-abc", "-c", f"{reduce}; sat"], log, work)
        if "UNSATISFIABLE" in log.read_text(errors="replace"):
            return "proven", "invariant (abc scorr), every cycle from reset"
    if re.search(r"Output \d+ of miter .* was asserted in frame \d+", text) and aiw.exists():
        vcd = work / "counterexample.vcd"
        run(["yosys", "-q", "-p", f"read_rtlil {work / 'model.il'}; sim -clock clk_i -r {aiw} "
             f"-map {work / 'model.aim'} -vcd {vcd}"], log, work)
        trace = vcd if vcd.exists() else aiw
        return "cex", f"fails within {depth} cycles from reset: {trace.relative_to(ROOT)}"
    return "error", f"yosys-abc error, see {log.relative_to(ROOT)}"


def mutant_copy(p, work, mutant):
    """A scratch tree with the proof's files, the mutant applied; None if it does not apply."""
    src = work / "src"
    if src.exists():
        shutil.rmtree(src)
    headers = {str(h.relative_to(ROOT)) for d in ("rtl", "formal") for h in (ROOT / d).glob("*.svh")}
    for f in set(p["files"]) | headers | {"rtl/files.f"}:
        dst = src / f
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / f, dst)
    patch = ROOT / mutant
    r = subprocess.run(["patch", "-p1", "--fuzz=0", "-s", "-i", str(patch)], cwd=src,
                       capture_output=True, text=True)
    if r.returncode != 0:
        (work / "patch.log").write_text(r.stdout + r.stderr)
        return None
    return src


def one(p, mutant):
    """The proof (mutant None), or the proof against one of its mutants."""
    t0 = time.time()
    name = p["name"]
    if mutant is None:
        result, detail = prove(p, ROOT, OUT / name)
        ok = result == "proven"
        verdict = {"proven": "PROVEN", "cex": "FAILED", "error": "ERROR"}[result]
    else:
        work = OUT / "mutants" / name
        if len(p["mutants"]) > 1:
            work = work / pathlib.Path(mutant).stem
        work.mkdir(parents=True, exist_ok=True)
        src = mutant_copy(p, work, mutant)
        if src is None:
            ok, verdict, detail = False, "ERROR", f"{mutant} does not apply"
        else:
            result, detail = prove(p, src, work / "run")
            ok = result == "cex"  # an error proves nothing about the proof
            verdict = {"proven": "SURVIVED", "cex": "KILLED", "error": "ERROR"}[result]
            detail = f"{pathlib.Path(mutant).name}: " + ("still proven" if result == "proven" else detail)
    return ok, f"{verdict:<9}{name:<46}{detail} ({time.time() - t0:.1f} s)"


def main():
    ap = argparse.ArgumentParser(description="Run qpm's proofs (docs/formal.md).")
    ap.add_argument("--only", help="regular expression on proof names")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--mutants", action="store_true", help="each proof must fail on its mutant")
    ap.add_argument("--list", action="store_true", help="list the proofs and exit")
    a = ap.parse_args()
    for tool in ("yosys", "yosys-smtbmc", "z3", "yosys-abc"):
        if shutil.which(tool) is None:
            sys.exit(f"formal: {tool} not found (make deps installs it)")
    proofs = load_proofs()
    if a.only:
        proofs = [p for p in proofs if re.search(a.only, p["name"])]
    if not proofs:
        sys.exit("formal: no proof selected")
    if a.list:
        for p in proofs:
            print(f"{p['name']:<46}{p['method']:<10}{p['what']}")
        return 0
    OUT.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    failed = 0
    runs = [(p, m) for p in proofs for m in p["mutants"]] if a.mutants else [(p, None) for p in proofs]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        for ok, line in ex.map(lambda r: one(*r), runs):
            print(line, flush=True)
            failed += not ok
    what = "mutants" if a.mutants else "proofs"
    good = "killed" if a.mutants else "proven"
    print(f"formal: {len(runs) - failed} of {len(runs)} {what} {good} in {time.time() - t0:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
