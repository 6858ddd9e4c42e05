#!/usr/bin/env python3
"""Turns the outputs of scripts/synth.sh into report.md and CSV files.

  synth_report.py point --dir DIR --lib LIB     one configuration (scripts/synth.sh)
  synth_report.py sweep --out DIR NAME=DIR ...  the sweep table, plot and report section
                                                (scripts/synth_sweep.sh)

Inputs of a point, all written by Yosys into DIR:
  stat.txt        `stat -liberty` of the mapped hierarchy: cells and GE per module
  hier.il         `dump` of every instance of the elaborated hierarchy with its
                  parameters: instance counts, and the RAM bits from each qpm_ram_1p
                  and qpm_ram_2p instance's Width and Depth
  ltp_blocks.txt  `ltp -noff` per module: longest path in logic levels, start and end
                  (the delay-oriented mapping; ltp_*_area.txt: the area mapping's)
  ltp_flat.txt    the same on the flattened design (paths that cross blocks)
  ltp_in_out.txt  the same on the logic between qpm_top's inputs and outputs (optional)
  fpga_ltp_blocks.txt, fpga_ltp_flat.txt
                  the same on the synth_xilinx netlists: LUT levels (optional)
  share_*.txt     the cache's sharing logic (optional): share_stat.txt its cells per
                  module, share_names.txt / lookup_names.txt the signals the selection
                  found, share_expected.txt the signals scripts/synth.sh names
  fpga_stat.txt   `stat` after synth_xilinx (optional)
  times.txt       seconds per step
Python 3 standard library only.
"""

import argparse
import csv
import datetime
import fnmatch
import os
import re
import subprocess
import sys

# Longest path above this many logic levels is a finding (issue 9).
LEVELS_LIMIT = 20

# What each RTL module is, for the tables.
BLOCK_LABELS = {
    "qpm_top": "top (glue)",
    "qpm_cmd_unit": "command unit",
    "qpm_cmd_exec": "command unit: decision (CREATE, MODIFY, DESTROY, PORT_FAULT)",
    "qpm_state_enforcer": "state enforcer",
    "qpm_qp_trans_table": "transition table",
    "qpm_qpc_reset": "QPC reset values",
    "qpm_qpc_cache": "QP cache: wiring (event counters, response decode)",
    "qpm_qpc_pipe": "QP cache: pipe (decision, RAM ports, P1)",
    "qpm_qpc_ram": "QP cache: QPC and address RAMs, P1's write forwarded",
    "qpm_cache_tags": "QP cache: tag side (wiring: lines, victim choice)",
    "qpm_cache_lines": "QP cache: lines (line state, PLRU and LRU bits)",
    "qpm_cache_miss_side": "QP cache: lookup and misses (wiring: port, tags, miss registers, park pool)",
    "qpm_cache_data_side": "QP cache: pipe and memory side (wiring)",
    "qpm_cache_port": "QP cache: request port (spill register, entries with their set's tags)",
    "qpm_defer_queue": "QP cache: deferred port requests (the parking port's queue)",
    "qpm_parking_port": "QP cache: parking port (wiring: request port and deferred requests)",
    "qpm_tag_views": "QP cache: the tags in RAM (one copy), its readers, the lookup's match",
    "qpm_mark_gate": "QP cache: when the write-back buffer's mark enters the pipe",
    "qpm_replay_gate": "QP cache: when a staged replay enters the pipe",
    "qpm_lw_keep": "QP cache: line writes for kept tag words (write B a cycle later)",
    "qpm_tag_copy": "QP cache: one copy of the tags in RAM",
    "qpm_tag_patch": "QP cache: the line writes applied to a tag word",
    "qpm_line_write": "QP cache: line writes to the tag RAMs, reset sweep",
    "qpm_mshr_file": "QP cache: miss registers (wiring: scheduled step, walk, read request)",
    "qpm_mshr_dir_hint": "QP cache: miss registers' directory cache lookups and hints",
    "qpm_updown_count": "up/down counter (two events each way a cycle)",
    "qpm_reset_sweep": "reset sweep of a RAM without reset",
    "qpm_mshr_sched": "QP cache: miss registers' scheduler (registered round-robin pick)",
    "qpm_mshr_reg": "QP cache: one miss register (state, next state)",
    "qpm_mshr_match": "QP cache: miss registers' compares (QPN, free, write-back hazard)",
    "qpm_park_pool": "QP cache: park pool (parked requests, replay select)",
    "qpm_wb_buffer": "QP cache: write-back buffer",
    "qpm_cache_maint": "QP cache: maintenance engine (SYNC, MAP/UNMAP)",
    "qpm_cache_mem_side": "QP cache: memory side (wiring: write-back, maintenance, arbiter)",
    "qpm_mem_arbiter": "QP cache: memory request arbiter",
    "qpm_victim_select": "QP cache: victim select",
    "qpm_dir_table": "QP cache: directory table",
    "qpm_plru_tree": "QP cache: PLRU victim tree",
    "qpm_axi_master": "AXI4 master",
    "qpm_csr": "CSR block",
    "qpm_ram_1p": "RAM, 1 port (black box)",
    "qpm_ram_2p": "RAM, 1 read + 1 write port (black box)",
}
# The RAM wrappers (black boxes in the ASIC run) and their ports. A RAM's bits are
# Width x Depth whatever its ports.
RAM_MODULES = {"qpm_ram_1p": "1", "qpm_ram_2p": "1R + 1W"}
CACHE_MODULE = "qpm_qpc_cache"
QPC_BITS = 512  # one QPC, 64 bytes in host memory (SPEC.md §3.1)

# Die-area assumptions of docs/capacity.md ("How many cached QPs fit in a die"):
# SRAM: TSMC N5 HD 6T bitcell 0.021 um2, about 31.8 Mibit/mm2 with ~30 % assist overhead
# (WikiChip's estimate); logic: 171.3 MTr/mm2 (WikiChip's N5 estimate) / 4 transistors
# per GE x 60 % placement utilisation.
SRAM_BITS_PER_MM2 = 31.8 * 2**20
GE_PER_MM2 = 171.3e6 / 4 * 0.6
DIE_MM2 = 1.0  # the area given to QP caching in the example


# ---------------------------------------------------------------------------------------
# Parsers
# ---------------------------------------------------------------------------------------
def base_name(module):
    """The RTL name of a (derived) module: $paramod$<hash>\\qpm_qpc_cache,
    $paramod\\qpm_plru_tree\\Ways=4 and \\qpm_top give qpm_qpc_cache, qpm_plru_tree, qpm_top."""
    if module.startswith("$paramod$"):
        return module.split("\\")[-1]
    if module.startswith("$paramod\\"):
        return module.split("\\")[1]
    return module.lstrip("\\")


def parse_liberty(path):
    """Cell name -> (area, is_flop). The liberty is ours: one attribute per line."""
    cells = {}
    current = None
    with open(path) as f:
        for line in f:
            m = re.match(r"\s*cell\s*\(\s*\"?(\w+)\"?\s*\)", line)
            if m:
                current = m.group(1)
                cells[current] = [0.0, False]
                continue
            if current is None:
                continue
            m = re.match(r"\s*area\s*:\s*([0-9.]+)", line)
            if m:
                cells[current][0] = float(m.group(1))
            if re.match(r"\s*ff\s*\(", line):
                cells[current][1] = True
    return {k: (v[0], v[1]) for k, v in cells.items()}


def parse_stat(path):
    """Module -> {cell type: count}, from `stat` (with or without -liberty)."""
    modules = {}
    current = None
    in_cells = False
    with open(path) as f:
        for line in f:
            m = re.match(r"=== (.*?)( \(partially selected\))? ===$", line.strip())
            if m:
                current = m.group(1)
                modules[current] = {}
                in_cells = False
                continue
            if current is None:
                continue
            if re.match(r"\s*Number of cells:", line):
                in_cells = True
                continue
            if in_cells:
                m = re.match(r"\s+(\S+)\s+(\d+)\s*$", line)
                if m:
                    modules[current][m.group(1)] = int(m.group(2))
                elif line.strip():
                    in_cells = False
    return modules


def parse_hier(path):
    """From the `dump` of the elaborated hierarchy: the top module's name, each module's
    own parameters and its instances [(instance name, cell type, {param: int})]."""
    modules = {}
    top = None
    pending_top = False
    current = None
    cell = None
    with open(path) as f:
        for line in f:
            s = line.strip()
            if s == "attribute \\top 1":
                pending_top = True
                continue
            m = re.match(r"module (\S+)$", s)
            if m:
                current = m.group(1)[1:] if m.group(1).startswith("\\") else m.group(1)
                modules[current] = {"params": {}, "cells": []}
                if pending_top:
                    top = current
                pending_top = False
                continue
            if s.startswith("attribute"):
                continue
            m = re.match(r"cell (\S+) (\S+)$", s)
            if m and current:
                ctype = m.group(1)[1:] if m.group(1).startswith("\\") else m.group(1)
                cell = (m.group(2).lstrip("\\"), ctype, {})
                modules[current]["cells"].append(cell)
                continue
            m = re.match(r"parameter (?:signed )?\\(\w+) (\S+)$", s)
            if m and current:
                value = rtlil_int(m.group(2))
                if cell is not None:
                    cell[2][m.group(1)] = value
                else:
                    modules[current]["params"][m.group(1)] = value
                continue
            if s == "end":
                if cell is not None:
                    cell = None
                else:
                    current = None
    return top, modules


def rtlil_int(text):
    """An RTLIL constant: 256, or 32'00000000000000000000000100000000."""
    m = re.match(r"(\d+)'([01xz]+)$", text)
    if m:
        bits = m.group(2).replace("x", "0").replace("z", "0")
        return int(bits, 2)
    try:
        return int(text)
    except ValueError:
        return None


def instance_counts(top, modules):
    """How many times each module appears under the top module."""
    counts = {}

    def walk(mod, mult):
        counts[mod] = counts.get(mod, 0) + mult
        # hier.il holds only instance cells; a leaf module has no entry of its own.
        for _inst, ctype, _params in modules.get(mod, {}).get("cells", []):
            if base_name(ctype) not in RAM_MODULES:
                walk(ctype, mult)

    walk(top, 1)
    return counts


def subtree_counts(root, modules):
    """How many times each module appears under root (root included, once)."""
    counts = {}

    def walk(mod):
        counts[mod] = counts.get(mod, 0) + 1
        for _inst, ctype, _params in modules.get(mod, {}).get("cells", []):
            if base_name(ctype) not in RAM_MODULES:
                walk(ctype)

    walk(root)
    return counts


def rams(top, modules, counts):
    """Every RAM instance: (module, instance, width, depth, copies, RAM module)."""
    out = []
    for mod, data in modules.items():
        if mod not in counts:
            continue
        for inst, ctype, params in data["cells"]:
            if base_name(ctype) in RAM_MODULES:
                width, depth = params.get("Width"), params.get("Depth")
                if width is None or depth is None:
                    sys.exit(f"synth_report: {mod}.{inst}: no Width/Depth parameter in the hierarchy dump")
                out.append((mod, inst, width, depth, counts[mod], base_name(ctype)))
    return out


def signal_name(text):
    """'\\m_state_q [3]' -> 'm_state_q[3]'; '$abc$12$new_n5_' -> '' (no name)."""
    text = text.strip()
    if text.startswith("$") or text.startswith("1'") or text.startswith("{"):
        return ""
    text = text.lstrip("\\")
    return re.sub(r"\s+\[", "[", text)


WAYPOINTS = {}  # module -> [(level, named net)] along its longest path
WAYPOINTS_FLAT = {}


def parse_ltp(path):
    """Module -> (levels, start, end) from `ltp -noff` output."""
    result = {}
    current = None
    lines = []

    def finish():
        if current is None:
            return
        levels, path = current
        start = end = ""
        steps = [l for l in path if re.match(r"\s*\d+:", l)]
        ff = [l for l in path if re.match(r"\s*ff:", l)]
        if steps:
            start = signal_name(re.sub(r"^\s*\d+:\s*", "", steps[0]).split(" (via")[0])
            last = signal_name(re.sub(r"^\s*\d+:\s*", "", steps[-1]).split(" (via")[0])
            end = last
        if ff:
            q = signal_name(re.sub(r"^\s*ff:\s*", "", ff[0]).split(" (via")[0])
            end = f"{q} (flop)" if q else "a flop"
        # Named nets along the path (RTL signals that survived mapping), for the report.
        via = []
        for l in steps[1:-1]:
            m = re.match(r"\s*(\d+):\s*(.*?)(?: \(via .*)?$", l)
            if m:
                n = signal_name(m.group(2))
                if n and (not via or via[-1][1].split("[")[0] != n.split("[")[0]):
                    via.append((int(m.group(1)), n))
        WAYPOINTS[module] = via
        result[module] = (levels, start or "(unnamed net)", end or "(unnamed net)")

    module = None
    with open(path) as f:
        for line in f:
            m = re.match(r"Longest topological path in (.*) \(length=(-?\d+)\):", line.strip())
            if m:
                finish()
                module = m.group(1)
                current = (int(m.group(2)), [])
                continue
            if current is not None:
                current[1].append(line.rstrip("\n"))
    finish()
    return result


def parse_ltp_file(path):
    """parse_ltp of an optional file (None when absent), leaving WAYPOINTS as it was."""
    if not os.path.exists(path):
        return None
    saved = dict(WAYPOINTS)
    result = parse_ltp(path)
    WAYPOINTS.clear()
    WAYPOINTS.update(saved)
    return result


def timing_rows(blocks, flat, in_out, fpga_blocks, fpga_flat):
    """timing.csv: scope, levels, lut_levels, start, end. One row per block (the deepest
    of its parameterizations), `across` (the flattened design, register to register) and
    `in_to_out` (a qpm_top input to an output through logic; 0 levels when there is none).
    lut_levels is empty without the FPGA run, and for in_to_out (see scripts/synth.sh)."""
    def deepest(table, module):
        if table is None:
            return None
        found = [v[0] for k, v in table.items() if base_name(k) == module]
        return max(found) if found else 0
    by_block = {}
    for b in blocks:
        cur = by_block.get(b["module"])
        if b["levels"] is not None and (cur is None or b["levels"] > cur["levels"]):
            by_block[b["module"]] = b
    rows = []
    for module in sorted(by_block):
        b = by_block[module]
        rows.append([module, b["levels"], deepest(fpga_blocks, module), b["path_start"], b["path_end"]])

    def whole(table):
        if table is None:
            return None
        return max((v for v in table.values()), key=lambda v: v[0], default=(0, "", ""))
    f = whole(flat) or (None, "", "")
    ff = whole(fpga_flat)
    rows.append(["across", f[0], ff[0] if ff else None, f[1], f[2]])
    io = whole(in_out)
    io_levels = max(io[0], 0) if io else None
    rows.append(["in_to_out", io_levels, None,
                 io[1] if io and io_levels else "", io[2] if io and io_levels else ""])
    return rows


def ltp_key(module):
    """ltp prints log_id(module): no leading backslash for plain names."""
    return module[1:] if module.startswith("\\") else module


def flat_loops(d):
    """Named wires on the logic loops `check` found in the flattened design, if any."""
    path = os.path.join(d, "check_flat.txt")
    if not os.path.exists(path):
        return []
    names = []
    in_loop = False
    with open(path) as f:
        for line in f:
            if "found logic loop" in line:
                in_loop = True
                continue
            if in_loop:
                m = re.search(r"wire (\S+)", line)
                if m:
                    n = signal_name(m.group(1).replace("$flatten", ""))
                    if n and n not in names:
                        names.append(n)
    return names


def parse_times(path):
    times = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 2:
                    times[parts[0]] = int(parts[1])
    return times


def hierarchy_totals(stat):
    return stat.get("design hierarchy", {})


def git_describe():
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "rtl"], capture_output=True,
                               text=True, check=True).stdout.strip()
        return head + (" + uncommitted RTL changes" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def yosys_version():
    try:
        return subprocess.run(["yosys", "-V"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "unknown"


# ---------------------------------------------------------------------------------------
# One configuration
# ---------------------------------------------------------------------------------------
def area_of(cells, lib):
    """(logic GE, flop count, flop GE, unmapped cell types) of a {type: count} table."""
    logic = flop_ge = 0.0
    flops = 0
    unmapped = []
    for ctype, n in cells.items():
        if ctype in lib:
            area, is_flop = lib[ctype]
            if is_flop:
                flops += n
                flop_ge += n * area
            else:
                logic += n * area
        elif ctype.startswith("$") and not ctype.startswith("$paramod"):
            unmapped.append(ctype)  # a Yosys cell the liberty did not map
    return logic, flops, flop_ge, unmapped


def fmt(x, digits=0):
    if x is None or x == "":
        return "–"
    if isinstance(x, float):
        return f"{x:,.{digits}f}"
    return f"{x:,}"


def point(args):
    d = args.dir
    lib = parse_liberty(args.lib)
    stat = parse_stat(os.path.join(d, "stat.txt"))
    top, hier = parse_hier(os.path.join(d, "hier.il"))
    if top is None:
        sys.exit("synth_report: no top module in hier.il")
    counts = instance_counts(top, hier)
    ram_list = rams(top, hier, counts)
    ltp = parse_ltp(os.path.join(d, "ltp_blocks.txt"))
    flat = parse_ltp(os.path.join(d, "ltp_flat.txt"))
    WAYPOINTS_FLAT.update({k: WAYPOINTS.get(k, []) for k in flat})
    in_out = parse_ltp_file(os.path.join(d, "ltp_in_out.txt"))
    fpga_blocks = parse_ltp_file(os.path.join(d, "fpga_ltp_blocks.txt"))
    fpga_flat = parse_ltp_file(os.path.join(d, "fpga_ltp_flat.txt"))
    ltp = parse_ltp(os.path.join(d, "ltp_blocks.txt"))  # again: the flat run shares qpm_top's key
    times = parse_times(os.path.join(d, "times.txt"))

    # The configuration, from the cache's own parameters in the elaborated design.
    cache = next((m for m in hier if base_name(m) == "qpm_qpc_cache"), None)
    cparams = hier[cache]["params"] if cache else {}
    sets, ways, mshrs = cparams.get("Sets"), cparams.get("Ways"), cparams.get("Mshrs")

    # Per module (own cells only), then per block name across parameterizations.
    blocks = []
    unmapped_all = set()
    for mod, n in sorted(counts.items(), key=lambda kv: kv[0]):
        if mod not in stat:
            # Elaborated, then removed whole by the optimizer (every output unused, e.g. a
            # view's multiplexer of bits a configuration does not read): no cells, no area.
            print(f"synth_report: module {mod} was optimized away (not in stat.txt)",
                  file=sys.stderr)
            continue
        logic, flops, flop_ge, unmapped = area_of(stat[mod], lib)
        unmapped_all.update(unmapped)
        ram_bits = sum(w * dep for (m, _i, w, dep, _c, _r) in ram_list if m == mod)
        lv, start, end = ltp.get(ltp_key(mod), (None, "", ""))
        blocks.append({
            "module": base_name(mod), "derived": mod, "instances": n,
            "ge_logic": logic * n, "flops": flops * n, "ge_flops": flop_ge * n,
            "ram_bits": ram_bits * n, "levels": lv, "path_start": start, "path_end": end,
            "via": WAYPOINTS.get(ltp_key(mod), []),
        })
    if unmapped_all:
        sys.exit("synth_report: cells left unmapped by the liberty: " + ", ".join(sorted(unmapped_all)))

    # Cross-check against Yosys' own total of the hierarchy.
    tot_logic, tot_flops, tot_flop_ge, _ = area_of(hierarchy_totals(stat), lib)
    sum_logic = sum(b["ge_logic"] for b in blocks)
    if hierarchy_totals(stat) and abs(tot_logic - sum_logic) > 1.0:
        sys.exit(f"synth_report: per-module logic GE {sum_logic:.1f} != hierarchy total {tot_logic:.1f}")

    ge_logic = sum(b["ge_logic"] for b in blocks)
    ge_flops = sum(b["ge_flops"] for b in blocks)
    flops = sum(b["flops"] for b in blocks)
    ram_bits = sum(w * dep * c for (_m, _i, w, dep, c, _r) in ram_list)
    worst = max((b for b in blocks if b["levels"] is not None), key=lambda b: b["levels"])
    flat_levels, flat_start, flat_end = next(iter(flat.values()), (None, "", ""))

    # The QP cache as a whole: its module and everything under it (one instance of it).
    ctot = cache_total(cache, hier, blocks, ram_list) if cache else None
    share = share_numbers(d, lib, counts, ctot["ge_total"] if ctot else None)
    fpga = fpga_numbers(d)
    if fpga and fpga["ff"] - flops > min((w * dep for (_m, _i, w, dep, _c, _r) in ram_list), default=0) / 2:
        fpga["ram_as_ff"] = True  # more flops than the ASIC run: a RAM may have become flops
    summary = {
        "sets": sets, "ways": ways, "mshrs": mshrs,
        "cached_qps": sets * ways if sets and ways else None,
        "ge_total": ge_logic + ge_flops, "ge_logic": ge_logic, "ge_flops": ge_flops,
        "flops": flops, "ram_bits": ram_bits,
        "worst_levels": worst["levels"], "worst_block": worst["module"],
        "flat_levels": flat_levels,
        "cache_ge": ctot["ge_total"] if ctot else None,
        "cache_ge_logic": ctot["ge_logic"] if ctot else None,
        "cache_flops": ctot["flops"] if ctot else None,
        "cache_ram_bits": ctot["ram_bits"] if ctot else None,
        "cache_levels": ctot["levels"] if ctot else None,
        "cache_worst_block": ctot["worst_block"] if ctot else None,
        "share_ge": share["ge"] if share else None,
        "share_pct_total": (100.0 * share["ge"] / (ge_logic + ge_flops)) if share else None,
        "share_pct_cache": (100.0 * share["ge"] / share["cache_ge"]) if share else None,
        "share_missing": len(share["missing"]) if share else None,
        "fpga_lut": fpga["lut"] if fpga else None, "fpga_ff": fpga["ff"] if fpga else None,
        "fpga_bram36": fpga["bram36"] if fpga else None,
        "fpga_lutram": fpga["lutram"] if fpga else None,
        "seconds": times.get("total"),
    }
    if summary["cached_qps"]:
        summary["bits_per_qp"] = (ram_bits + flops) / summary["cached_qps"]
        summary["cache_ge_per_qp"] = (ctot["ge_total"] / summary["cached_qps"]) if ctot else None
    else:
        summary["bits_per_qp"] = None
        summary["cache_ge_per_qp"] = None

    write_csv(os.path.join(d, "blocks.csv"),
              ["module", "label", "instances", "ge_logic", "flops", "ge_flops", "ge_total",
               "ram_bits", "levels", "path_start", "path_end"],
              [[b["module"], BLOCK_LABELS.get(b["module"], b["module"]), b["instances"],
                round(b["ge_logic"], 1), b["flops"], round(b["ge_flops"], 1),
                round(b["ge_logic"] + b["ge_flops"], 1), b["ram_bits"], b["levels"],
                b["path_start"], b["path_end"]] for b in blocks])
    timing = timing_rows(blocks, flat, in_out, fpga_blocks, fpga_flat)
    write_csv(os.path.join(d, "timing.csv"), ["scope", "levels", "lut_levels", "start", "end"],
              [["" if x is None else x for x in r] for r in timing])
    summary["in_to_out_levels"] = timing[-1][1]
    summary["across_lut_levels"] = timing[-2][2]
    summary["worst_lut_levels"] = max((r[2] for r in timing[:-2] if r[2] is not None), default=None)
    write_csv(os.path.join(d, "rams.csv"),
              ["module", "instance", "ram", "ports", "width", "depth", "copies", "bits"],
              [[base_name(m), i, r, RAM_MODULES[r], w, dep, c, w * dep * c]
               for (m, i, w, dep, c, r) in ram_list])
    keys = ["sets", "ways", "mshrs", "cached_qps", "ge_total", "ge_logic", "ge_flops", "flops",
            "ram_bits", "bits_per_qp", "worst_levels", "worst_block", "flat_levels",
            "cache_ge", "cache_ge_logic", "cache_flops", "cache_ram_bits", "cache_ge_per_qp",
            "cache_levels", "cache_worst_block", "share_ge",
            "share_pct_total", "share_pct_cache", "share_missing", "fpga_lut", "fpga_ff",
            "fpga_bram36", "fpga_lutram", "seconds"]
    write_csv(os.path.join(d, "summary.csv"), keys,
              [[round(summary[k], 1) if isinstance(summary[k], float) else summary[k] for k in keys]])
    if fpga:
        write_csv(os.path.join(d, "fpga.csv"), ["resource", "count"],
                  [[k, v] for k, v in sorted(fpga["cells"].items())])
    if share:
        write_csv(os.path.join(d, "share.csv"), ["module", "ge", "signals", "missing"],
                  [[m, round(share["per_module"].get(m, 0.0), 1),
                    " ".join(share["found"].get(m, [])), " ".join(share["missing_by_module"].get(m, []))]
                   for m in share["modules"]])

    write_point_report(d, summary, blocks, ram_list, (flat_levels, flat_start, flat_end),
                       share, fpga, times, ctot)
    print_summary(d, summary, worst)
    if share and share["missing"]:
        print("synth: WARNING: sharing-logic signals that select nothing (renamed or removed in "
              "the RTL?): " + ", ".join(f"{m}.{n}" for m, n in share["missing"]), file=sys.stderr)
    if fpga and fpga.get("ram_as_ff"):
        print(f"synth: WARNING: the FPGA run has {fpga['ff']:,} flip-flops against {flops:,} in the "
              "ASIC run: a RAM may have been mapped to flip-flops", file=sys.stderr)


def cache_total(cache, hier, blocks, ram_list):
    """The QP cache and everything under it: sums over its subtree, and its deepest block."""
    sub = subtree_counts(cache, hier)
    by_mod = {b["derived"]: b for b in blocks}
    t = {"ge_logic": 0.0, "ge_flops": 0.0, "flops": 0, "ram_bits": 0, "modules": [],
         "levels": None, "worst_block": None}
    for mod, n in sub.items():
        if mod not in by_mod:
            continue  # optimized away: no cells
        b = by_mod[mod]
        per = b["instances"]
        t["ge_logic"] += b["ge_logic"] / per * n
        t["ge_flops"] += b["ge_flops"] / per * n
        t["flops"] += b["flops"] // per * n
        t["modules"].append(b["module"])
        if b["levels"] is not None and (t["levels"] is None or b["levels"] > t["levels"]):
            t["levels"], t["worst_block"] = b["levels"], b["module"]
    t["ram_bits"] = sum(w * dep * sub[m] for (m, _i, w, dep, _c, _r) in ram_list if m in sub)
    t["ge_total"] = t["ge_logic"] + t["ge_flops"]
    return t


def selected_names(path):
    """(module base name, wire name) of every object a `select -list` printed."""
    out = set()
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if "/" in line:
                    mod, _, wire = line.rpartition("/")
                    out.add((base_name(mod), wire.lstrip("\\")))
    return out


def share_numbers(d, lib, counts, cache_ge):
    """GE of the cache's sharing logic (share_stat.txt: the selected cells per module,
    logic and any flip-flops of whole modules), per module and in all, against the cache;
    which named signals the selection found and which it did not (share_expected.txt)."""
    sel = os.path.join(d, "share_stat.txt")
    if not os.path.exists(sel) or not cache_ge:
        return None
    copies = {}
    for mod, n in counts.items():
        copies[base_name(mod)] = copies.get(base_name(mod), 0) + n
    per_module = {}
    for mod, cells in parse_stat(sel).items():
        logic, _flops, flop_ge, _ = area_of(cells, lib)
        if logic + flop_ge > 0:
            name = base_name(mod)
            per_module[name] = per_module.get(name, 0.0) + (logic + flop_ge) * copies.get(name, 1)
    found_share = selected_names(os.path.join(d, "share_names.txt"))
    found_lookup = selected_names(os.path.join(d, "lookup_names.txt"))
    expected = []
    exp_file = os.path.join(d, "share_expected.txt")
    if os.path.exists(exp_file):
        with open(exp_file) as f:
            expected = [tuple(l.split()) for l in f if len(l.split()) == 3]
    found, lookup, missing, missing_by_module, modules = {}, {}, [], {}, []
    whole = []
    for kind, mod, name in expected:
        if kind == "module":
            ok = per_module.get(mod, 0.0) > 0
            hits = ["(whole module)"] if ok else []
            whole.append(mod)
        else:
            pool = found_share if kind == "share" else found_lookup
            hits = sorted({w for (m, w) in pool if m == mod and fnmatch.fnmatchcase(w, name)})
        if kind != "lookup" and mod not in modules:
            modules.append(mod)
        if hits:
            (found if kind != "lookup" else lookup).setdefault(mod, []).extend(
                h for h in hits if h not in (found if kind != "lookup" else lookup).get(mod, []))
        else:
            missing.append((mod, name))
            missing_by_module.setdefault(mod, []).append(name)
    for mod in per_module:
        if mod not in modules:
            modules.append(mod)
    return {"ge": sum(per_module.values()), "cache_ge": cache_ge, "per_module": per_module,
            "found": found, "lookup": lookup, "missing": missing,
            "missing_by_module": missing_by_module, "modules": modules, "whole": whole}


def fpga_numbers(d):
    path = os.path.join(d, "fpga_stat.txt")
    if not os.path.exists(path):
        return None
    stat = parse_stat(path)
    cells = hierarchy_totals(stat) or next(iter(stat.values()))
    lut = sum(n for c, n in cells.items() if re.match(r"LUT[1-6]$", c))
    ff = sum(n for c, n in cells.items() if re.match(r"FD[CPRS]E?$", c))
    bram36 = cells.get("RAMB36E1", 0) + 0.5 * cells.get("RAMB18E1", 0)
    lutram = sum(n for c, n in cells.items() if re.match(r"RAM(32|64|128|256)", c))
    return {"lut": lut, "ff": ff, "bram36": bram36, "lutram": lutram, "cells": cells}


def write_csv(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


def write_point_report(d, s, blocks, ram_list, flat, share, fpga, times, ctot):
    L = []
    L.append("# qpm synthesis report")
    L.append("")
    L.append(f"Generated by `scripts/synth.sh` on {datetime.date.today().isoformat()}, "
             f"RTL at {git_describe()}, {yosys_version()}, liberty `constraints/qpm_ge.lib` "
             "(areas in NAND2 gate equivalents, GE).")
    L.append("")
    L.append(f"Configuration: Sets = {s['sets']}, Ways = {s['ways']}, Mshrs = {s['mshrs']} "
             f"({fmt(s['cached_qps'])} cached QPs).")
    L.append("")
    L.append("| total GE | logic GE | flip-flops | flop GE | SRAM bits | on-chip bits per cached QP | worst levels (block) | across blocks |")
    L.append("|---:|---:|---:|---:|---:|---:|---|---:|")
    L.append(f"| {fmt(s['ge_total'])} | {fmt(s['ge_logic'])} | {fmt(s['flops'])} | {fmt(s['ge_flops'])} "
             f"| {fmt(s['ram_bits'])} | {fmt(s['bits_per_qp'], 1)} | {s['worst_levels']} ({s['worst_block']}) "
             f"| {fmt(flat[0])} |")
    L.append("")
    L.append("SRAM bits are the RAM wrappers' instances (`qpm_ram_1p`, one port, and `qpm_ram_2p`, "
             "one read and one write port: black boxes here, SRAM macros, not flip-flops; Width × "
             "Depth bits each); they are not in the GE columns. On-chip bits per cached QP = "
             "(SRAM bits + flip-flops) / cached QPs.")
    L.append("")
    L.append("## Blocks")
    L.append("")
    L.append("Per module of the hierarchy, its own cells (children are their own rows). Levels: "
             "the longest path inside the module on the mapped netlist, in cells, from a flip-flop, "
             "RAM output, submodule output or input port to a flip-flop, RAM input, submodule "
             "input or output port (`ltp -noff`).")
    L.append("")
    L.append("| block | module | logic GE | flops | flop GE | total GE | SRAM bits | levels | longest path |")
    L.append("|---|---|---:|---:|---:|---:|---:|---:|---|")
    for b in sorted(blocks, key=lambda b: -(b["ge_logic"] + b["ge_flops"])):
        path = ""
        if b["levels"] is not None:
            hops = [f"`{b['path_start']}`"] + [f"`{n}` ({lv})" for lv, n in b["via"]] + [f"`{b['path_end']}`"]
            path = " → ".join(hops)
        L.append(f"| {BLOCK_LABELS.get(b['module'], b['module'])} | `{b['module']}`"
                 f"{' ×' + str(b['instances']) if b['instances'] > 1 else ''} "
                 f"| {fmt(b['ge_logic'])} | {fmt(b['flops'])} | {fmt(b['ge_flops'])} "
                 f"| {fmt(b['ge_logic'] + b['ge_flops'])} | {fmt(b['ram_bits'])} | {fmt(b['levels'])} | {path} |")
    L.append(f"| **total** | | **{fmt(s['ge_logic'])}** | **{fmt(s['flops'])}** | **{fmt(s['ge_flops'])}** "
             f"| **{fmt(s['ge_total'])}** | **{fmt(s['ram_bits'])}** | | |")
    L.append("")
    if ctot:
        L.append("### The QP cache as a whole")
        L.append("")
        L.append(f"`qpm_qpc_cache` and everything under it ({len(ctot['modules'])} modules: "
                 + ", ".join(f"`{m}`" for m in sorted(ctot["modules"])) + "), the rows labelled "
                 "\"QP cache\" above. Levels: its deepest block.")
        L.append("")
        L.append("| QP cache | logic GE | flops | flop GE | total GE | of the design | SRAM bits | GE per cached QP | levels (block) |")
        L.append("|---|---:|---:|---:|---:|---:|---:|---:|---|")
        L.append(f"| all its blocks | {fmt(ctot['ge_logic'])} | {fmt(ctot['flops'])} | {fmt(ctot['ge_flops'])} "
                 f"| {fmt(ctot['ge_total'])} | {100.0 * ctot['ge_total'] / s['ge_total']:.1f} % "
                 f"| {fmt(ctot['ram_bits'])} | {fmt(s['cache_ge_per_qp'])} "
                 f"| {fmt(ctot['levels'])} ({ctot['worst_block']}) |")
        L.append("")
    L.append("## RAMs")
    L.append("")
    L.append("From the Width and Depth parameters of every `qpm_ram_1p` and `qpm_ram_2p` instance in "
             "the elaborated hierarchy (`hier.il`). Bits = Width × Depth for either; a 2-port "
             "(1 read + 1 write) macro is larger per bit than a 1-port one, which bits do not show.")
    L.append("")
    L.append("| module | instance | RAM | ports | width | depth | bits |")
    L.append("|---|---|---|---|---:|---:|---:|")
    for (m, i, w, dep, c, r) in ram_list:
        L.append(f"| `{base_name(m)}` | `{i}`{' ×' + str(c) if c > 1 else ''} | `{r}` | {RAM_MODULES[r]} "
                 f"| {w} | {dep} | {fmt(w * dep * c)} |")
    L.append("")
    L.append("## Timing proxy")
    L.append("")
    flat_via = next(iter(WAYPOINTS_FLAT.values()), [])
    L.append(f"Across blocks (flattened design): {fmt(flat[0])} levels, "
             + " → ".join([f"`{flat[1]}`"] + [f"`{n}` ({lv})" for lv, n in flat_via] + [f"`{flat[2]}`"]) + ".")
    L.append("")
    L.append("Numbers in parentheses: the logic level at which the path passes a named RTL signal. "
             "Levels come from the delay-oriented mapping (abc map -D on 2-input gates and MUX2, one "
             "unit of delay each), so a wide add counts about log2(bits) levels. The area mapping "
             "(the liberty, no delays) may ripple an adder; its levels are in ltp_blocks_area.txt "
             "and ltp_flat_area.txt beside this report.")
    L.append("")
    deep = [b for b in blocks if b["levels"] is not None and b["levels"] > LEVELS_LIMIT]
    if flat[0] is not None and flat[0] > LEVELS_LIMIT:
        deep_flat = True
    else:
        deep_flat = False
    loops = flat_loops(d)
    if deep or deep_flat or loops:
        L.append(f"**Findings** (a stage deeper than {LEVELS_LIMIT} levels):")
        L.append("")
        for b in sorted(deep, key=lambda b: -b["levels"]):
            L.append(f"- `{b['module']}`: {b['levels']} levels, `{b['path_start']}` → `{b['path_end']}`")
        if deep_flat:
            L.append(f"- across blocks: {flat[0]} levels, `{flat[1]}` → `{flat[2]}`")
        if loops:
            L.append("- a combinational loop exists only across module boundaries (Yosys `check` "
                     "on the flattened netlist; each block alone has none), through: "
                     + ", ".join(f"`{w}`" for w in loops[:8]) + (" ..." if len(loops) > 8 else ""))
    else:
        L.append(f"No stage deeper than {LEVELS_LIMIT} levels.")
    L.append("")
    if share:
        L.append("## Sharing logic of the QP cache")
        L.append("")
        L.append(f"{fmt(share['ge'])} GE: {s['share_pct_cache']:.1f} % of the QP cache (all its blocks, "
                 f"{fmt(share['cache_ge'])} GE) and {s['share_pct_total']:.1f} % of the total. Measured "
                 "on the mapped netlist as the input cones (through combinational cells, stopping at "
                 "flip-flops, RAM outputs, submodule ports and module inputs) of the named decision, "
                 "arbitration, hazard, port-selection and forwarding signals of each block, with the "
                 "tag lookup and victim choice cut off; "
                 + (", ".join(f"`{m}`" for m in share["whole"]) + " counts whole (every cell, flip-flops "
                    "included). " if share["whole"] else "")
                 + "Registers are not counted (the cones stop at them), so the forward register's "
                 "flip-flops are not, its compare and multiplexer are.")
        L.append("")
        L.append("| module | sharing GE | signals found | missing |")
        L.append("|---|---:|---|---|")
        for m in share["modules"]:
            names = share["found"].get(m, [])
            miss = share["missing_by_module"].get(m, [])
            L.append(f"| `{m}` | {fmt(share['per_module'].get(m, 0.0))} | "
                     + (", ".join(f"`{n}`" for n in names) if names else "–") + " | "
                     + (", ".join(f"**`{n}`**" for n in miss) if miss else "none") + " |")
        L.append("")
        if share["lookup"]:
            L.append("Cut (lookup and victim choice): "
                     + "; ".join(f"`{m}`: " + ", ".join(f"`{n}`" for n in ns)
                                 for m, ns in share["lookup"].items()) + ".")
            L.append("")
        if share["missing"]:
            L.append("**Missing:** these names select nothing in the elaborated design (renamed or "
                     "removed in the RTL?), so their logic is not counted: "
                     + ", ".join(f"`{m}.{n}`" for m, n in share["missing"]) + ".")
        else:
            L.append("Every named signal was found.")
        L.append("")
    if fpga:
        L.append("## FPGA (Xilinx 7-series, `synth_xilinx -noiopad`)")
        L.append("")
        L.append("| LUT | FF | BRAM (36 Kb equivalents) | LUTRAM cells |")
        L.append("|---:|---:|---:|---:|")
        L.append(f"| {fmt(fpga['lut'])} | {fmt(fpga['ff'])} | {fpga['bram36']:g} | {fmt(fpga['lutram'])} |")
        L.append("")
        L.append("Here the RAM wrappers are read as RTL, so Yosys infers block RAM (or LUTRAM for the "
                 "small ones); `fpga.csv` lists every cell type. Memory cells: "
                 + (", ".join(f"{n} `{c}`" for c, n in sorted(fpga["cells"].items())
                              if re.match(r"RAM", c)) or "none") + ".")
        L.append("")
        if fpga.get("ram_as_ff"):
            L.append(f"**Check:** {fmt(fpga['ff'])} flip-flops here against {fmt(s['flops'])} in the "
                     "ASIC run: a RAM may have been mapped to flip-flops.")
            L.append("")
    L.append("## Run")
    L.append("")
    L.append(", ".join(f"{k}: {v} s" for k, v in times.items()) + ". Logs and Yosys scripts: "
             f"`{d}/*.log`, `{d}/*.ys`.")
    L.append("")
    with open(os.path.join(d, "report.md"), "w") as f:
        f.write("\n".join(L))


def print_summary(d, s, worst):
    rows = [
        ("configuration", f"Sets {s['sets']} x Ways {s['ways']}, Mshrs {s['mshrs']} ({s['cached_qps']} cached QPs)"),
        ("total GE (logic + flops)", f"{s['ge_total']:,.0f}"),
        ("  logic GE", f"{s['ge_logic']:,.0f}"),
        ("  flip-flops", f"{s['flops']:,} ({s['ge_flops']:,.0f} GE)"),
        ("SRAM bits (RAM wrappers)", f"{s['ram_bits']:,}"),
        ("worst levels in a block", f"{worst['levels']} ({worst['module']}: {worst['path_start']} -> {worst['path_end']})"),
        ("worst levels across blocks", f"{s['flat_levels']}"),
        ("input to output levels", "none (every port registered)" if s["in_to_out_levels"] == 0
         else f"{s['in_to_out_levels']}"),
    ]
    if s["worst_lut_levels"] is not None:
        rows.append(("FPGA LUT levels", f"{s['worst_lut_levels']} in a block, {s['across_lut_levels']} "
                     "across blocks"))
    if s["cache_ge"] is not None:
        rows.append(("QP cache (all its blocks)", f"{s['cache_ge']:,.0f} GE, {s['cache_flops']:,} flops, "
                     f"{s['cache_ram_bits']:,} SRAM bits, {s['cache_levels']} levels ({s['cache_worst_block']})"))
    if s["share_ge"] is not None:
        rows.append(("cache sharing logic", f"{s['share_ge']:,.0f} GE ({s['share_pct_cache']:.1f} % of the "
                     f"cache, {s['share_pct_total']:.1f} % of total)"
                     + (f"; {s['share_missing']} named signal(s) MISSING" if s["share_missing"] else "")))
    if s["fpga_lut"] is not None:
        rows.append(("FPGA (xc7)", f"{s['fpga_lut']:,} LUT, {s['fpga_ff']:,} FF, {s['fpga_bram36']:g} BRAM36"))
    rows.append(("run time", f"{s['seconds']} s"))
    width = max(len(r[0]) for r in rows)
    for k, v in rows:
        print(f"  {k:<{width}}  {v}")
    print(f"synth: report {d}/report.md, tables {d}/blocks.csv {d}/rams.csv {d}/summary.csv "
          f"{d}/timing.csv")


# ---------------------------------------------------------------------------------------
# The sweep
# ---------------------------------------------------------------------------------------
def read_summary(d):
    with open(os.path.join(d, "summary.csv")) as f:
        return next(csv.DictReader(f))


def sweep(args):
    out = args.out
    points = []
    for item in args.points:
        name, _, d = item.partition("=")
        row = read_summary(d)
        row["config"] = name
        points.append(row)
    order = {"default": 0, "entries": 1, "ways": 2, "mshrs": 3}
    points.sort(key=lambda p: (order.get(re.sub(r"\d+$", "", p["config"]), 9),
                               int(p["cached_qps"]), int(p["mshrs"])))
    keys = ["config", "sets", "ways", "mshrs", "cached_qps", "ge_total", "ge_logic", "ge_flops",
            "flops", "ram_bits", "bits_per_qp", "worst_levels", "worst_block", "flat_levels",
            "cache_ge", "cache_ge_per_qp", "share_ge", "share_pct_cache", "share_pct_total",
            "share_missing", "fpga_lut", "fpga_ff", "fpga_bram36", "seconds"]
    write_csv(os.path.join(out, "sweep.csv"), keys, [[p.get(k, "") for k in keys] for p in points])

    # gnuplot data: one file per axis, so each axis is its own line.
    axes = {"entries": [], "ways": [], "mshrs": []}
    for p in points:
        for axis in axes:
            if p["config"].startswith(axis) or p["config"] == "default":
                axes[axis].append(p)
    for axis, rows in axes.items():
        rows.sort(key=lambda p: (int(p["cached_qps"]), int(p["mshrs"])))
        with open(os.path.join(out, f"sweep_{axis}.dat"), "w") as f:
            f.write("# cached_qps ge_total_kGE ram_kbit mshrs\n")
            for p in rows:
                f.write(f"{p['cached_qps']} {float(p['ge_total']) / 1000:.2f} "
                        f"{int(p['ram_bits']) / 1024:.2f} {p['mshrs']}\n")
    plot(out)

    L = ["", "## Sweep", ""]
    L.append("One axis at a time around the default (Sets 64, Ways 4, Mshrs 8). Cache entries = "
             "Sets × Ways = cached QPs. `sweep.csv` has every column; `sweep.png` the plot.")
    L.append("")
    L.append("Cache GE: the QP cache with all its blocks (`qpm_qpc_cache` and everything under it); "
             "a point measured before the cache was split into blocks has none (–).")
    L.append("")
    L.append("| config | sets | ways | mshrs | cached QPs | total GE | logic GE | flip-flops | SRAM bits | on-chip bits per cached QP | over a 512-bit QPC | GE per cached QP | cache GE (per cached QP) | worst levels (block) | sharing GE (% of cache, of total) | run s |")
    L.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---:|")
    for p in points:
        share = "–"
        if p.get("share_ge"):
            # A point from before the split has no cache total: its "% of cache" was of the
            # single cache module, not comparable, so it is left out.
            keys = ("share_pct_cache", "share_pct_total") if p.get("cache_ge") else ("share_pct_total",)
            pct = [f"{float(p[k]):.1f} %" for k in keys if p.get(k)]
            share = f"{float(p['share_ge']):,.0f} ({', '.join(pct)})"
            if p.get("share_missing") not in (None, "", "0"):
                share += f", {p['share_missing']} signal(s) missing"
        cache = (f"{float(p['cache_ge']):,.0f} ({float(p['cache_ge_per_qp']):,.0f})"
                 if p.get("cache_ge") and p.get("cache_ge_per_qp") else "–")
        L.append(f"| {p['config']} | {p['sets']} | {p['ways']} | {p['mshrs']} | {int(p['cached_qps']):,} "
                 f"| {float(p['ge_total']):,.0f} | {float(p['ge_logic']):,.0f} | {int(p['flops']):,} "
                 f"| {int(p['ram_bits']):,} | {float(p['bits_per_qp']):,.1f} "
                 f"| +{100.0 * (float(p['bits_per_qp']) / QPC_BITS - 1):.0f} % "
                 f"| {float(p['ge_total']) / int(p['cached_qps']):,.0f} | {cache} "
                 f"| {p['worst_levels']} ({p['worst_block']}) | {share} | {p['seconds']} |")
    L.append("")
    L += scale_targets(points)
    L += die_section(points)
    with open(os.path.join(out, "report.md"), "a") as f:
        f.write("\n".join(L))
    for line in L[5:]:
        print(line)
    print(f"synth-sweep: {out}/sweep.csv, {out}/sweep.png, section in {out}/report.md")


def scale_targets(points):
    """The scale targets of SPEC.md §11.2 (issue 25) at 4,096 entries, Ways 4, Mshrs 8:
    logic and flip-flop GE at most 1.3 x the 256-entry point's, and on-chip bits per
    cached QP (SRAM + flip-flops) at most 1.2 x a 512-bit QPC."""
    by_name = {p["config"]: p for p in points}
    base, big = by_name.get("default"), by_name.get("entries4096")
    if not base or not big:
        return []
    ratio = float(big["ge_total"]) / float(base["ge_total"])
    bits = float(big["bits_per_qp"])
    limit = 1.2 * QPC_BITS
    verdict = lambda ok: "met" if ok else "NOT met"
    return ["### Scale targets at 4,096 entries", "",
            f"- logic and flip-flop GE: {ratio:.2f} x the 256-entry point's (target at most "
            f"1.3 x): {verdict(ratio <= 1.3)}",
            f"- on-chip bits per cached QP: {bits:.1f} (target at most {limit:.1f}, 1.2 x "
            f"{QPC_BITS}): {verdict(bits <= limit)}", ""]


def die_section(points):
    """Silicon area per configuration at the stated densities, and how many cached QPs
    fit in DIE_MM2 at the marginal cost of the two largest points of the entries axis."""
    L = ["### Area at stated densities", ""]
    L.append(f"SRAM at {SRAM_BITS_PER_MM2 / 2**20:.1f} Mibit/mm² (TSMC N5 HD bitcell 0.021 µm² "
             f"with about 30 % overhead); logic at {GE_PER_MM2 / 1e6:.1f} MGE/mm² (171.3 MTr/mm² "
             "/ 4 transistors per GE × 60 % utilisation). Assumptions, see docs/capacity.md.")
    L.append("")
    L.append("| config | cached QPs | SRAM mm² | logic + flops mm² | total mm² | µm² per cached QP |")
    L.append("|---|---:|---:|---:|---:|---:|")
    for p in points:
        sram = int(p["ram_bits"]) / SRAM_BITS_PER_MM2
        logic = float(p["ge_total"]) / GE_PER_MM2
        qps = int(p["cached_qps"])
        L.append(f"| {p['config']} | {qps:,} | {sram:.4f} | {logic:.4f} | {sram + logic:.4f} "
                 f"| {1e6 * (sram + logic) / qps:.1f} |")
    L.append("")
    axis = sorted((p for p in points if p["config"] == "default" or p["config"].startswith("entries")),
                  key=lambda p: int(p["cached_qps"]))
    if len(axis) >= 2:
        a, b = axis[-2], axis[-1]
        area = lambda p: int(p["ram_bits"]) / SRAM_BITS_PER_MM2 + float(p["ge_total"]) / GE_PER_MM2
        dq = int(b["cached_qps"]) - int(a["cached_qps"])
        marginal = (area(b) - area(a)) / dq
        fixed = area(b) - marginal * int(b["cached_qps"])
        fit = (DIE_MM2 - fixed) / marginal
        L.append(f"Marginal cost per cached QP between {a['config']} and {b['config']}: "
                 f"{marginal * 1e6:.1f} µm² (of which SRAM "
                 f"{1e6 * (int(b['ram_bits']) - int(a['ram_bits'])) / dq / SRAM_BITS_PER_MM2:.1f} µm²); "
                 f"the rest of the design: {fixed:.3f} mm². In {DIE_MM2:g} mm², Ways 4 and Mshrs 8: "
                 f"**about {fit:,.0f} cached QPs** (linear extrapolation of that marginal cost; "
                 f"{DIE_MM2 * SRAM_BITS_PER_MM2 / QPC_BITS:,.0f} if the mm² held raw 512-bit QPCs in SRAM "
                 "and nothing else).")
        L.append("")
    return L


def plot(out):
    script = f"""
set terminal pngcairo size 900,560 font ",11"
set output '{out}/sweep.png'
set title 'qpm: area against cached QPs (Yosys 0.23, GE liberty; SRAM as bits)'
set xlabel 'cached QPs (Sets x Ways)'
set logscale x 2
set ylabel 'logic + flip-flops (kGE)'
set y2label 'SRAM (kbit)'
set ytics nomirror
set y2tics
set logscale y 2
set logscale y2 2
set key top left
set grid
plot '{out}/sweep_entries.dat' using 1:2 with linespoints lw 2 pt 7 title 'kGE, Ways 4 (Sets varies)', \\
     '{out}/sweep_entries.dat' using 1:3 axes x1y2 with linespoints lw 2 pt 5 dt 2 title 'SRAM kbit, Ways 4', \\
     '{out}/sweep_ways.dat' using 1:2 with points pt 9 ps 1.8 title 'kGE, Sets 64 (Ways 2, 4, 8)', \\
     '{out}/sweep_mshrs.dat' using 1:2:(sprintf("%d MSHRs", $4)) with labels offset 4,0.8 point pt 13 ps 1.5 title 'kGE, Sets 64 Ways 4 (MSHRs 4, 8, 16)'
"""
    try:
        subprocess.run(["gnuplot"], input=script, text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"synth-sweep: no plot ({e}); install gnuplot-nox", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("point")
    p.add_argument("--dir", required=True)
    p.add_argument("--lib", required=True)
    s = sub.add_parser("sweep")
    s.add_argument("--out", required=True)
    s.add_argument("points", nargs="+", help="NAME=DIR")
    args = ap.parse_args()
    if args.cmd == "point":
        point(args)
    else:
        sweep(args)


if __name__ == "__main__":
    main()
