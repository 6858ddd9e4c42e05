#!/usr/bin/env bash
# Installs the Debian 12 packages qpm needs, only those missing, saying what it does.
#   scripts/deps.sh           the packages every target needs (CI installs these)
#   scripts/deps.sh slurm     only the single-node Slurm of scripts/slurm/selftest.sh
#                             (slurm-wlm, munge): the nightly's, kept out of CI's list
set -euo pipefail
case "${1:-core}" in
  core) pkgs=(verilator yosys z3 catch2 libcli11-dev libspdlog-dev libfmt-dev nlohmann-json3-dev
              lcov cmake g++ make patch python3 gnuplot-nox) ;;
  slurm) pkgs=(slurm-wlm munge) ;;
  *) echo "deps: unknown group '$1' (core or slurm)" >&2; exit 2 ;;
esac
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
