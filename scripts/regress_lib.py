"""Shared pieces of the nightly regression: the run matrix, failure signatures, JUnit,
the summary, and the merges of Verilator line coverage and functional coverage.

Used by scripts/regress.py (one regression or one shard) and scripts/regress_merge.py
(several shards into one report). Python 3 standard library only.
"""
import collections
import dataclasses
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Tuple

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CMDS = 2000
CONFIGS = ("default", "tiny", "large")
# Memory profiles: named sets of qpm_sim flags. The order is part of the run list's order,
# and so of which shard a run lands in and of every run's seed: append new profiles,
# never insert.
PROFILES = {
    "fast": ["--mem-latency", "1:8"],
    "slow": ["--mem-latency", "100:400", "--mem-reorder"],
    "backpressure": ["--mem-latency", "10:60", "--mem-backpressure", "0.3",
                     "--mem-aw-waits-for-w", "--mem-interleave"],
    "errors": ["--mem-latency", "20:60", "--mem-reorder", "--mem-read-error-rate", "0.02",
               "--mem-write-error-rate", "0.05"],
    # Reset with work in flight (docs/reset.md): resets beside traffic and a DMA engine.
    "resets": ["--mem-latency", "20:120", "--mem-reorder", "--reset-stress", "0.05"],
    # The profiles above run the loopback transport model (qpm_sim's default traffic);
    # this one runs the random mix of before, with resets beside it, for the drop paths
    # it covers (every operation on every QP type in every state, QUIESCE on each).
    "mix": ["--mem-latency", "20:60", "--mem-reorder", "--traffic", "random",
            "--reset-stress", "0.05"],
    # Pressure where bugs hide (docs/verification.md): doorbells on QPs in ERR and SQE
    # while their flushes run, an EQE consumer that holds 200 cycles after each event
    # (the EQ fills while events keep coming), a third of the RC QPs without their
    # remote access flags (more events), more hostile operations.
    "pressure": ["--mem-latency", "20:120", "--mem-reorder", "--flush-storm", "0.002",
                 "--eqe-hold", "200", "--access-fault", "0.3", "--hostile-rate", "0.1"],
    # The transport's own knobs turned up (docs/verification.md, "Knobs"): a lossy,
    # duplicating, reordering fabric, peers that NAK, late receives (RNR), wrong Q_Keys,
    # UC/UD READs, and commands meeting the pairs' QPs three times as often.
    "fabric": ["--mem-latency", "20:60", "--loss", "0.02", "--dup", "0.02", "--reorder",
               "0.02", "--peer-nak", "0.002", "--short-rq", "0.4", "--bad-qkey", "0.05",
               "--local-err", "0.005", "--meet-rate", "0.3"],
    # Write faults (docs/errors.md, "Write faults in the harness"): two mapped pages refuse
    # every write for the whole run, and a write-back is given up after two tries, so
    # QPs end in QP_FATAL with their contexts kept on chip. `default` only (PROFILE_CONFIGS):
    # `tiny`'s 2 x 2 lines and 2 buffer entries hold 2 dead contexts per set, fewer than
    # the QPN spaces put there (docs/qp-cache.md section 20).
    "deadpages": ["--mem-latency", "20:60", "--mem-dead-pages", "2", "--wb-retry-budget", "2"],
}
# Profiles that run on some configurations only; every other runs on all of CONFIGS.
PROFILE_CONFIGS = {"deadpages": ("default",)}
# Configurations that run some profiles only, with fewer commands: `large` (1,024 x 4
# lines, 64 miss registers) simulates about three times slower than `default`, so it runs
# the memory profiles that load its miss registers, and the random mix, at a quarter of
# the commands (issue 25).
CONFIG_PROFILES = {"large": ("fast", "slow", "errors", "mix")}
CONFIG_CMDS_DIVISOR = {"large": 4}
# Replacement policies (docs/eviction.md) and QPN spaces (--qps, --qpn-limit). Above 65536
# the harness maps only the pages in use (at 65536 it maps all 1024 at start, a minute of
# the coverage build on default); the last is the whole 24-bit space. They rotate over the qpm_sim runs
# instead of multiplying them: run j of round r takes policy (r + j) mod 4 and space
# (r + j) mod 3, so every (config, profile) meets each policy within 4 rounds, each space
# within 3, and each pair of them within 12. Append, never insert (as for PROFILES).
POLICIES = ("plru", "lru", "random", "trap")
SPACES = {
    "qpn4k": ["--qps", "256", "--qpn-limit", "4096"],
    "qpn128k": ["--qps", "2000", "--qpn-limit", "131072"],
    "qpn16m": ["--qps", "4096", "--qpn-limit", str(1 << 24)],
}
TESTS = ("sim", "cache")
LOG_TAIL_LINES = 60


def display_path(path: Path) -> str:
    """A path as a user types it from the repo root: relative inside the repo."""
    path = Path(os.path.abspath(path))
    try:
        return str(path.relative_to(REPO_ROOT))
    except ValueError:
        return str(path)


def run_seed(base_seed: int, index: int) -> int:
    """The seed of run `index` of the list cut from base_seed: a hash of both, so no two
    runs of a nightly share a seed, and 32 bits, as Catch2's --rng-seed wants."""
    digest = hashlib.sha256(f"qpm-regress/{base_seed}/{index}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


@dataclasses.dataclass
class Run:
    """One entry of the run matrix: a program, its arguments, and where it came from."""
    name: str
    index: int             # position in the full run list (decides the seed and the shard)
    round: int
    test: str
    config: Optional[str]
    profile: Optional[str]
    policy: Optional[str]
    space: Optional[str]
    seed: int
    base_seed: int
    program: Path          # absolute, for execution from the run's own directory
    args: List[str]
    report_args: List[str]  # extra arguments only the regression wants (--fcov)

    def command_line(self) -> str:
        """What --list prints: exactly what runs, in the form typed at the repo root."""
        return shlex.join([display_path(self.program)] + self.args + self.report_args)

    def replay(self) -> str:
        """The one-line command that reproduces this run from the repo root."""
        return shlex.join([display_path(self.program)] + self.args)

    def make_replay(self, cmds: int) -> str:
        """The same run through make (rebuilds build/cov first if needed): the list cut
        from the same base seed, up to this run's round, narrowed to this run."""
        extra = f" --cmds {cmds}" if cmds != DEFAULT_CMDS and self.test == "sim" else ""
        return (f"make regress BASE_SEED={self.base_seed} SEEDS={self.round + 1} "
                f"REGRESS_ARGS='--run {self.name}{extra}'")

    def with_seed(self, seed: int) -> "Run":
        """This run with another seed (regress.py --seed)."""
        flag = "--seed" if self.test == "sim" else "--rng-seed"
        args = list(self.args)
        args[args.index(flag) + 1] = str(seed)
        return dataclasses.replace(self, seed=seed, args=args)


def build_run_list(base_seed: int, rounds: int, build_dir: Path, cmds: int) -> List[Run]:
    """The full run matrix in its fixed order, round by round: each round is one qpm_sim
    run per (config, profile) (less those PROFILE_CONFIGS and CONFIG_PROFILES leave out),
    its policy and QPN space rotating (POLICIES), then one run
    of the cache random test. A run's index gives its seed (run_seed) and its shard; a
    round's runs do not depend on how many rounds there are. Keep the order stable."""
    sim, tests = build_dir / "qpm_sim", build_dir / "qpm_tests"
    runs: List[Run] = []
    for rnd in range(rounds):
        for c, config in enumerate(CONFIGS):
            for p, (profile, flags) in enumerate(PROFILES.items()):
                if config not in PROFILE_CONFIGS.get(profile, CONFIGS):
                    continue
                if profile not in CONFIG_PROFILES.get(config, PROFILES):
                    continue
                turn = rnd + c * len(PROFILES) + p
                policy = POLICIES[turn % len(POLICIES)]
                space = list(SPACES)[turn % len(SPACES)]
                seed = run_seed(base_seed, len(runs))
                run_cmds = max(1, cmds // CONFIG_CMDS_DIVISOR.get(config, 1))
                args = (["--config", config, "--seed", str(seed), "--cmds", str(run_cmds),
                         "--evict-policy", policy] + SPACES[space] + flags)
                runs.append(Run(f"sim.{config}.{profile}.{policy}.{space}.r{rnd}", len(runs),
                                rnd, "sim", config, profile, policy, space, seed, base_seed,
                                sim, args, ["--fcov", "fcov.json"]))
        seed = run_seed(base_seed, len(runs))
        # --warn NoTests: without it Catch2 passes when no test carries the [random] tag.
        args = ["[random]", "--rng-seed", str(seed), "--warn", "NoTests"]
        runs.append(Run(f"cache.r{rnd}", len(runs), rnd, "cache", None, None, None, None,
                        seed, base_seed, tests, args, []))
    return runs


@dataclasses.dataclass
class Filters:
    """Which runs of the list to keep; an empty field keeps all."""
    tests: List[str] = dataclasses.field(default_factory=list)
    configs: List[str] = dataclasses.field(default_factory=list)
    profiles: List[str] = dataclasses.field(default_factory=list)
    policies: List[str] = dataclasses.field(default_factory=list)
    spaces: List[str] = dataclasses.field(default_factory=list)
    names: List[str] = dataclasses.field(default_factory=list)

    def keeps(self, run: Run) -> bool:
        return all(not wanted or value in wanted for wanted, value in (
            (self.tests, run.test), (self.configs, run.config), (self.profiles, run.profile),
            (self.policies, run.policy), (self.spaces, run.space), (self.names, run.name)))

    def empty(self) -> bool:
        return not any(dataclasses.astuple(self))


def shard_of(position: int, shards: int) -> int:
    """The shard (1..N) that runs the run at this position of the (filtered) list."""
    return position % shards + 1


# ---------------------------------------------------------------------------------------
# The plan: what a shard owes, written before its first run
# ---------------------------------------------------------------------------------------
PLAN_NAME = "plan.json"


@dataclasses.dataclass
class Plan:
    base_seed: int
    rounds: int
    cmds: int
    seed: Optional[int]     # regress.py --seed: every run with this seed
    shard: str              # "k/N" ("1/1" unsharded)
    repo_root: str          # the checkout path the build's coverage files name
    build: str              # --build, as given (the replay lines of runs a shard lost)
    run_list: List[str]     # every run of the (filtered) list, all shards together
    runs: List[str]         # this shard's

    @property
    def shard_index(self) -> Tuple[int, int]:
        k, n = self.shard.split("/")
        return int(k), int(n)


def write_plan(path: Path, plan: Plan) -> None:
    path.write_text(json.dumps(dataclasses.asdict(plan), indent=1) + "\n")


def read_plan(path: Path) -> Plan:
    """Raises ValueError naming the file when it is unreadable or not a plan."""
    try:
        plan = Plan(**json.loads(path.read_text()))
        plan.shard_index  # a malformed shard spec fails here, not later
        return plan
    except (OSError, ValueError, TypeError) as e:
        raise ValueError(f"{path}: not a regression plan: {e}") from None


# ---------------------------------------------------------------------------------------
# Failure signatures: one short key per failure, so the summary can group them.
# ---------------------------------------------------------------------------------------
# The first field line under a MISMATCH: a command's (qpc.<field>, status, syndrome
# parts), a datapath response's (dp.<field>, dp.tag, dp.order), an EQE's (eqe.type) or a
# doorbell's (doorbell.result, whose text says what went wrong).
_MISMATCH_FIELD = re.compile(r"^\s*(qpc\.\w+|dp\.\w+|eqe\.type|doorbell\.result|status|missing"
                             r"|forbidden|bad_value):\s*(.*)")
_NAMED_ASSERT = re.compile(r"\[ASSERT FAILED\]\s+\S+:\s+(.+?)\s*$")
_VERILATOR_ASSERT = re.compile(r"%Error:\s+(\S+?:\d+):\s+Assertion failed")
_CATCH_RULE = re.compile(r"^-{20,}$")
# Problems of qpm_sim's final check (QpmEnv::final_check), in the order they are tried.
_FINAL_CHECK_SIGNATURES = [
    (re.compile(r"memory image"), "memory-image"),
    (re.compile(r"directory entry \d+: memory"), "directory-image"),
    (re.compile(r"\bmemory: "), "memory-protocol"),
    (re.compile(r"\bstream: "), "stream-protocol"),
    # Before counters: a lost or extra event, or a doorbell judged wrongly, also puts the
    # events or db_refused counter off.
    (re.compile(r"\bevents: (.+)"), "events:"),
    (re.compile(r"\bdoorbells: (.+)"), "doorbells:"),
    (re.compile(r"\bcounters: (\w+)"), "counters:"),
]
# What varies between two failures of one kind: the doorbell or event a problem names,
# and numbers (QPNs, counts, cycles).
_DOORBELL_TEXT = re.compile(r"doorbell qpn=\S+ queue=\w+ n=\d+:?\s*")
_EVENT_TEXT = re.compile(r":?\s*(?:qpn|port) \S+ type=\w+ syndrome=\d+")
_NUMBER = re.compile(r"\b(?:0x[0-9a-fA-F]+|\d+)\b")


def _problem_kind(text: str) -> str:
    """A problem's text as a grouping key: without the doorbell or event it names, every
    number as N, at most 60 characters."""
    text = _EVENT_TEXT.sub("", _DOORBELL_TEXT.sub("", text))
    return " ".join(_NUMBER.sub("N", text).split())[:60]


def _first_match(lines: List[str], pattern: re.Pattern, start: int = 0):
    for line in lines[start:]:
        m = pattern.search(line)
        if m:
            return m
    return None


def _mismatch_signature(lines: List[str]) -> Optional[str]:
    for i, line in enumerate(lines):
        if "MISMATCH" in line:
            m = _first_match(lines, _MISMATCH_FIELD, i + 1)
            if not m:
                return "mismatch"
            if m.group(1) == "doorbell.result":  # one field, many kinds of wrong
                return f"mismatch:doorbell.result:{_problem_kind(m.group(2))}"
            return f"mismatch:{m.group(1)}"
    return None


def _assert_signature(lines: List[str]) -> Optional[str]:
    m = _first_match(lines, _NAMED_ASSERT)
    if m:
        return f"assert:{m.group(1)[:60]}"
    m = _first_match(lines, _VERILATOR_ASSERT)  # e.g. a unique case with no match
    return f"assert:{m.group(1)}" if m else None


def _catch_signature(lines: List[str]) -> Optional[str]:
    """Catch2 prints the test name between two rules of dashes above each FAILED:."""
    if any(line.startswith("No test cases matched") for line in lines):
        return "catch:no test matched"
    for i, line in enumerate(lines):
        if line.rstrip().endswith("FAILED:"):
            rules = [j for j in range(i) if _CATCH_RULE.match(lines[j].strip())]
            if len(rules) >= 2 and rules[-2] + 1 < len(lines):
                return f"catch:{lines[rules[-2] + 1].strip()}"
            return "catch"
    return None


def failure_signature(log_text: str, returncode: int, timed_out: bool) -> str:
    """The most telling cause first: an RTL assertion names the broken invariant, while
    mismatches and memory differences are often its consequences."""
    lines = log_text.splitlines()
    for finder in (_assert_signature, _mismatch_signature):
        sig = finder(lines)
        if sig:
            return sig
    for pattern, sig in _FINAL_CHECK_SIGNATURES:
        m = _first_match(lines, pattern)
        if m:
            return sig + (_problem_kind(m.group(1)) if pattern.groups else "")
    if timed_out or any("timeout:" in line for line in lines):
        return "timeout"
    sig = _catch_signature(lines)
    if sig:
        return sig
    if returncode < 0:
        return f"signal:{signal.Signals(-returncode).name}"
    return f"exit:{returncode}"


# ---------------------------------------------------------------------------------------
# Results, JUnit XML and the summary
# ---------------------------------------------------------------------------------------
@dataclasses.dataclass
class Result:
    """The outcome of one run; everything the reports need, and what JUnit carries."""
    name: str
    test: str
    config: Optional[str]
    profile: Optional[str]
    seed: int
    seconds: float
    signature: Optional[str] = None  # None = passed
    index: int = -1                  # in the full run list; -1 when unknown
    policy: Optional[str] = None
    space: Optional[str] = None
    replay: str = ""
    make_replay: str = ""
    log_tail: str = ""
    waves: str = ""

    @property
    def passed(self) -> bool:
        return self.signature is None

    @property
    def group(self):
        return (self.test, self.config or "-", self.profile or "-")


_XML_BAD = re.compile("[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_PROPERTY_FIELDS = ("test", "seed", "index", "config", "profile", "policy", "space", "replay",
                    "make_replay", "waves")


def log_tail(log_text: str, lines: int = LOG_TAIL_LINES) -> str:
    return _XML_BAD.sub("?", "\n".join(log_text.splitlines()[-lines:]))


def result_to_testcase(r: Result) -> ET.Element:
    classname = "regress." + ".".join(p for p in (r.test, r.config, r.profile) if p)
    case = ET.Element("testcase", classname=classname, name=r.name, time=f"{r.seconds:.3f}")
    props = ET.SubElement(case, "properties")
    for field in _PROPERTY_FIELDS:
        value = getattr(r, field)
        if value not in (None, ""):
            ET.SubElement(props, "property", name=field, value=_XML_BAD.sub("?", str(value)))
    if not r.passed:
        ET.SubElement(case, "failure", message=r.signature).text = r.log_tail
    return case


def testcase_to_result(case: ET.Element) -> Result:
    props = {p.get("name"): p.get("value") for p in case.iter("property")}
    failure = case.find("failure")
    return Result(name=case.get("name"), test=props.get("test", "?"),
                  config=props.get("config"), profile=props.get("profile"),
                  seed=int(props.get("seed", "0")), seconds=float(case.get("time", "0")),
                  signature=None if failure is None else failure.get("message", "failure"),
                  replay=props.get("replay", ""), make_replay=props.get("make_replay", ""),
                  log_tail="" if failure is None else (failure.text or ""),
                  waves=props.get("waves", ""), index=int(props.get("index", "-1")),
                  policy=props.get("policy"), space=props.get("space"))


def write_junit(path: Path, results: List[Result], suite_props: Dict[str, str]) -> None:
    """One <testsuites> holding one <testsuite> with every run, counts that add up. The
    file is replaced in one step, so a reader (or a shard killed while writing it) never
    sees half a file: a shard rewrites it after every run."""
    failures = sum(not r.passed for r in results)
    total_time = f"{sum(r.seconds for r in results):.3f}"
    counts = dict(tests=str(len(results)), failures=str(failures), errors="0", time=total_time)
    root = ET.Element("testsuites", name="qpm-regress", **counts)
    suite = ET.SubElement(root, "testsuite", name="regress", skipped="0", **counts)
    props = ET.SubElement(suite, "properties")
    for key, value in suite_props.items():
        ET.SubElement(props, "property", name=key, value=str(value))
    suite.extend(result_to_testcase(r) for r in results)
    ET.indent(root)
    partial = path.with_name(path.name + ".partial")
    ET.ElementTree(root).write(partial, encoding="utf-8", xml_declaration=True)
    partial.replace(path)


def read_junit(path: Path):
    """(results, suite properties) of a junit.xml written by write_junit."""
    root = ET.parse(path).getroot()
    suite_props = {}
    for suite in root.iter("testsuite"):
        props = suite.find("properties")
        if props is not None:
            suite_props.update({p.get("name"): p.get("value") for p in props})
    return [testcase_to_result(c) for c in root.iter("testcase")], suite_props


def _index(seq, value) -> int:
    seq = list(seq)
    return seq.index(value) if value in seq else len(seq)


def run_order_key(r: Result):
    """The run list's order (build_run_list), recovered from a result: merged shards are
    reported as one unsharded regression would be."""
    return (r.index, r.name)


def group_order_key(r: Result):
    return (_index(TESTS, r.test), _index(CONFIGS, r.config), _index(PROFILES, r.profile))


def format_summary(results: List[Result], header: List[str], trailer: List[str]) -> str:
    """Runs per (test, config, profile), failures grouped by signature with their replay
    commands, then the trailer (coverage lines, where the reports are)."""
    rows = collections.OrderedDict()
    for r in sorted(results, key=group_order_key):
        row = rows.setdefault(r.group, [0, 0, 0.0])
        row[0 if r.passed else 1] += 1
        row[2] += r.seconds
    out = ["qpm regression summary"] + [f"  {h}" for h in header] + [""]
    out.append(f"{'test':<6} {'config':<8} {'profile':<13} {'runs':>5} {'pass':>5} "
               f"{'fail':>5} {'time (s)':>9}")
    for (test, config, profile), (ok, bad, secs) in rows.items():
        out.append(f"{test:<6} {config:<8} {profile:<13} {ok + bad:>5} {ok:>5} {bad:>5} "
                   f"{secs:>9.1f}")
    passed = sum(r.passed for r in results)
    out.append(f"{'total':<29} {len(results):>5} {passed:>5} {len(results) - passed:>5} "
               f"{sum(r.seconds for r in results):>9.1f}")
    out += [""] + _failure_groups(results) + [""] + trailer
    return "\n".join(out) + "\n"


def _failure_groups(results: List[Result]) -> List[str]:
    groups = collections.defaultdict(list)
    for r in results:
        if not r.passed:
            groups[r.signature].append(r)
    if not groups:
        return ["all runs passed"]
    failed = sum(len(g) for g in groups.values())
    out = [f"{failed} failing run(s), {len(groups)} signature(s); replay from the repo root:"]
    for sig, runs in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        out.append(f"  {sig}  ({len(runs)} run(s))")
        for r in runs:
            out += [f"    {r.name}", f"      {r.replay}", f"      {r.make_replay}"]
            if r.waves:
                out.append(f"      waves: {r.waves}")
    return out


# ---------------------------------------------------------------------------------------
# Verilator line + toggle coverage: merge, lcov .info, genhtml
# ---------------------------------------------------------------------------------------
_MERGE_BATCH = 400  # files per verilator_coverage call, to stay far below ARG_MAX


def _tool(cmd: List[str], cwd: Optional[Path] = None) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          cwd=cwd)


def relative_dat(src: Path, dst: Path, root: str) -> None:
    """A copy of a Verilator coverage file with the source paths under root (the checkout
    it was written from, on whichever host) made relative to it: shards from checkouts at
    different paths merge into one point per source line, and genhtml finds the sources
    of this checkout."""
    data = src.read_bytes()
    key = b"\x01f\x02"  # a point's source file field: \1 f \2 <path>
    for prefix in {root.rstrip("/"), os.path.realpath(root)}:
        data = data.replace(key + prefix.encode() + b"/", key)
    dst.write_bytes(data)


def line_coverage_rate(info: Path):
    """(hit, found) source lines of an lcov .info, counted as genhtml counts them."""
    lines, current = {}, None
    for text in info.read_text(errors="replace").splitlines():
        if text.startswith("SF:"):
            current = text[3:]
        elif text.startswith("DA:") and current is not None:
            line_no, count = text[3:].split(",")[:2]
            key = (current, int(line_no))
            lines[key] = max(lines.get(key, 0), int(float(count)))
    return sum(1 for c in lines.values() if c > 0), len(lines)


def merge_line_coverage(dat_files: List[Tuple[Path, str]], cov_dir: Path) -> Optional[str]:
    """verilator_coverage merge -> lcov info -> genhtml, over (file, the checkout root it
    was written under) pairs; the merged source paths are relative to the repo root.
    Returns the report line, or a reason it was skipped; failures of the tools are
    reported, not raised."""
    if not dat_files:
        return "line coverage: no coverage-*.dat files (not a coverage build?): skipped"
    for tool in ("verilator_coverage", "genhtml"):
        if shutil.which(tool) is None:
            return f"line coverage: {tool} not found (make deps installs it): skipped"
    cov_dir.mkdir(parents=True, exist_ok=True)
    merged, info = cov_dir / "merged.dat", cov_dir / "merged.info"
    partial, parts = cov_dir / "partial.dat", cov_dir / "parts"
    pending, have_merged = list(dat_files), False
    while pending:  # merge in batches, folding the merge so far into the next batch
        shutil.rmtree(parts, ignore_errors=True)
        parts.mkdir()
        batch = [str(merged)] if have_merged else []
        for number, (dat, root) in enumerate(pending[:_MERGE_BATCH]):
            batch.append(str(parts / f"{number}.dat"))
            relative_dat(dat, Path(batch[-1]), root)
        pending = pending[_MERGE_BATCH:]
        done = _tool(["verilator_coverage", "--write", str(partial)] + batch)
        if done.returncode != 0:
            return f"line coverage: verilator_coverage --write failed:\n{done.stdout}"
        partial.replace(merged)
        have_merged = True
    shutil.rmtree(parts, ignore_errors=True)
    done = _tool(["verilator_coverage", "--write-info", str(info), str(merged)])
    if done.returncode != 0:
        return f"line coverage: verilator_coverage --write-info failed:\n{done.stdout}"
    html = cov_dir / "html"
    # The paths in the .info are relative to the repo root: genhtml reads from there.
    done = _tool(["genhtml", "-q", "-o", str(html), str(info)], cwd=REPO_ROOT)
    if done.returncode != 0:
        return f"line coverage: genhtml failed:\n{done.stdout}"
    hit, found = line_coverage_rate(info)
    rate = 100.0 * hit / found if found else 0.0
    return (f"line coverage: {rate:.1f}% ({hit} of {found} lines, from {len(dat_files)} "
            f".dat files); report {display_path(html / 'index.html')}")


# ---------------------------------------------------------------------------------------
# Functional coverage: fcov.json files {"bins": {name: count}} summed per bin
# ---------------------------------------------------------------------------------------
def read_fcov(path: Path) -> Optional[Dict[str, Dict[str, int]]]:
    """The bins of one fcov.json ({"bins": ..., "undeclared": ...}), or None (with a
    warning) when it is unreadable: a run that crashed may leave a partial file, and that
    must not hide the others."""
    try:
        data = json.loads(path.read_text())
        return {key: {str(k): int(v) for k, v in data.get(key, {}).items()}
                for key in ("bins", "undeclared")} if "bins" in data else None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        print(f"fcov: ignoring {display_path(path)}: {e}")
        return None


def merge_fcov(paths: List[Path]) -> Tuple[Dict[str, int], Dict[str, int]]:
    """The declared bins summed over the files (a bin never hit still appears, with 0),
    and the undeclared ones: hit, but outside the coverage plan."""
    merged, undeclared = collections.Counter(), collections.Counter()
    for path in paths:
        data = read_fcov(path) or {"bins": {}, "undeclared": {}}
        for name, count in data["bins"].items():
            merged[name] += count
        for name, count in data["undeclared"].items():
            undeclared[name] += count
    return dict(merged), dict(undeclared)


# Bins the nightly may leave unhit, each with its reason (docs/verification.md).
EXCLUSIONS_PATH = REPO_ROOT / "tests" / "coverage_exclusions.txt"


def read_exclusions(path: Path = EXCLUSIONS_PATH) -> Dict[str, str]:
    """bin -> reason, from lines "<bin> <reason>" ('#' starts a comment). A line without
    a reason, or a bin named twice, raises ValueError naming its line."""
    out: Dict[str, str] = {}
    if not path.exists():
        return out
    for number, line in enumerate(path.read_text().splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split(None, 1)
        if len(parts) < 2:
            raise ValueError(f"{display_path(path)}: line {number}: '{parts[0]}' has no reason")
        if parts[0] in out:
            raise ValueError(f"{display_path(path)}: line {number}: '{parts[0]}' excluded twice")
        out[parts[0]] = parts[1]
    return out


def fcov_group(bin_name: str) -> str:
    return re.split(r"[./]", bin_name, maxsplit=1)[0]


def write_fcov_reports(bins: Dict[str, int], out_dir: Path, sources: int,
                       undeclared: Optional[Dict[str, int]] = None,
                       exclusions: Optional[Dict[str, str]] = None) -> Tuple[str, List[str]]:
    """OUT/fcov.json (merged), OUT/fcov.txt (hit X of Y per group, then unhit bins) and
    OUT/fcov_unhit.txt (one unhit bin per line, the excluded ones left out). Returns the
    headline and the coverage gate's problems: unhit bins not excluded, bins hit outside
    the plan, exclusions of bins the plan does not have."""
    undeclared = undeclared or {}
    exclusions = exclusions or {}
    (out_dir / "fcov.json").write_text(json.dumps(
        {"bins": dict(sorted(bins.items())), "undeclared": dict(sorted(undeclared.items()))},
        indent=1) + "\n")
    groups = collections.defaultdict(lambda: [0, 0])
    for name, count in bins.items():
        groups[fcov_group(name)][0] += count > 0
        groups[fcov_group(name)][1] += 1
    unhit = sorted(name for name, count in bins.items() if count == 0)
    open_bins = [name for name in unhit if name not in exclusions]
    hit = len(bins) - len(unhit)
    headline = (f"functional coverage: {hit} of {len(bins)} bins hit"
                f" ({100.0 * hit / len(bins) if bins else 0.0:.1f}%), {len(unhit)} unhit"
                f" ({len(unhit) - len(open_bins)} excluded), from {sources} fcov.json file(s)")
    text = [headline, ""] + [f"  {g:<24} hit {h} of {n}" for g, (h, n) in sorted(groups.items())]
    text += ["", f"unhit bins ({len(unhit)}):"]
    text += [f"  {name}" + (f"   [excluded: {exclusions[name]}]" if name in exclusions else "")
             for name in unhit]
    if undeclared:
        text += ["", f"hit outside the plan ({len(undeclared)}):"]
        text += [f"  {name} {count}" for name, count in sorted(undeclared.items())]
    (out_dir / "fcov.txt").write_text("\n".join(text) + "\n")
    (out_dir / "fcov_unhit.txt").write_text("".join(f"{name}\n" for name in open_bins))
    problems = []
    if open_bins:
        problems.append(f"{len(open_bins)} bin(s) unhit and not excluded "
                        f"({display_path(out_dir / 'fcov_unhit.txt')})")
    if undeclared:
        problems.append(f"{len(undeclared)} bin(s) hit outside the plan: "
                        + ", ".join(sorted(undeclared)[:5]))
    stale = sorted(name for name in exclusions if name not in bins)
    if stale:
        problems.append(f"{len(stale)} exclusion(s) of bins the plan does not have: "
                        + ", ".join(stale[:5]))
    return f"{headline}; report {display_path(out_dir / 'fcov.txt')}", problems


def report_functional_coverage(paths: List[Path], out_dir: Path,
                               gate: bool = False) -> Tuple[str, List[str]]:
    """The merged reports; with gate, the coverage gate's problems (none without)."""
    if not paths:
        return "functional coverage: no fcov.json files (qpm_sim without --fcov?): skipped", []
    bins, undeclared = merge_fcov(paths)
    exclusions = read_exclusions() if gate else {}
    line, problems = write_fcov_reports(bins, out_dir, len(paths), undeclared, exclusions)
    if not gate:
        return line, []
    gate_line = ("coverage gate: PASS (every bin hit or excluded in "
                 f"{display_path(EXCLUSIONS_PATH)})" if not problems
                 else "coverage gate: FAIL: " + "; ".join(problems))
    return line + "\n" + gate_line, problems
