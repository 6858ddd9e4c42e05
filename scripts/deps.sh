#!/usr/bin/env bash
# Installs the Debian 12 packages qpm needs, only those missing, saying what it does.
set -euo pipefail
pkgs=(verilator yosys z3 catch2 libcli11-dev libspdlog-dev libfmt-dev nlohmann-json3-dev lcov cmake g++ make
      python3 gnuplot-nox)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all present (${pkgs[*]})"
  exit 0
fi
echo "deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "deps: done"
