#!/usr/bin/env bash
# Yosys 0.23 synthesis check and cell summary of qpm_top (make synth).
# Every RAM goes through qpm_ram_1p, which is read with -lib (a black box), so the
# summary counts logic and flip-flops only: a 4096 x 512 QPC table mapped to flops would
# be two million cells and stall the flow. The full area report is a later step.
set -euo pipefail
cd "$(dirname "$0")/.."
out=build/synth
mkdir -p "$out"
ram=rtl/common/qpm_ram_1p.sv
reads=""
while read -r f; do
  [ -z "$f" ] && continue
  if [ "$f" = "$ram" ]; then
    reads+="read_verilog -sv -lib -I rtl $f; "
  else
    reads+="read_verilog -sv -I rtl $f; "
  fi
done < rtl/files.f
# Flop arrays (tags, miss registers) are reported as "Replacing memory ... with list of
# registers": expected, and kept in the log only.
yosys -q -l "$out/yosys.log" -e "implicitly declared" -p "
  $reads
  hierarchy -check -top qpm_top;
  proc; check -assert;
  synth -top qpm_top;
  check -assert;
  tee -q -o $out/stat.txt stat" 2>&1 | { grep -v "with list of registers" || true; }
# The whole-design summary; per-module numbers are in the file.
sed -n '/=== design hierarchy ===/,$p' "$out/stat.txt"
echo "synth: OK (log: $out/yosys.log, summary: $out/stat.txt)"
