#!/usr/bin/env bash
# Submits the sharded nightly to Slurm: the array of scripts/slurm/regress.sbatch (one task
# per shard) and scripts/slurm/merge.sbatch after it (afterany). Run it on the submit host
# from a checkout on a file system the compute nodes share, after `make regress-build`.
#
#   scripts/slurm/submit.sh [--shards N] [--seeds R] [--base-seed B] [--out DIR]
#                           [--build DIR] [--regress-args 'FLAGS'] [--merge-args 'FLAGS']
#                           [SBATCH_ARG...]
#
# Defaults: 8 shards, 10 rounds, today's base seed (YYMMDD000), build/regress-shards,
# build/cov (paths relative to the repo root).
# SBATCH_ARGs go to both jobs (e.g. --partition=nightly --account=hw). The shards write
# OUT/shard-k/, the merge OUT/merged/ (junit.xml, summary.txt, coverage/, fcov.txt), the
# logs OUT/logs/. Prints the two job ids and writes them to OUT/jobs.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)

usage() { sed -n '2,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }
shards=8 seeds=10 base_seed=$(date +%y%m%d)000 out=build/regress-shards build=build/cov
regress_args="" merge_args="" sbatch_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --shards|--seeds|--base-seed|--out|--build|--regress-args|--merge-args)
      [ $# -ge 2 ] || { echo "submit: $1 needs a value" >&2; usage; }
      case "$1" in
        --shards) shards=$2 ;;
        --seeds) seeds=$2 ;;
        --base-seed) base_seed=$2 ;;
        --out) out=$2 ;;
        --build) build=$2 ;;
        --regress-args) regress_args=$2 ;;
        --merge-args) merge_args=$2 ;;
      esac
      shift 2 ;;
    -h|--help) usage ;;
    *) sbatch_args+=("$1"); shift ;;
  esac
done
for v in "$shards" "$seeds" "$base_seed"; do
  [[ "$v" =~ ^[0-9]+$ ]] || { echo "submit: '$v' is not a number" >&2; exit 2; }
done
if [ "$shards" -lt 1 ] || [ "$seeds" -lt 1 ]; then
  echo "submit: --shards and --seeds must be at least 1" >&2
  exit 2
fi
# sbatch --export splits on commas.
case "$regress_args$merge_args$out$build" in
  *,*) echo "submit: --regress-args, --merge-args, --out and --build cannot hold a comma" >&2; exit 2 ;;
esac
command -v sbatch >/dev/null || { echo "submit: sbatch not found (a Slurm client is needed)" >&2; exit 2; }

cd "$repo"
# The shards would refuse it one by one on the nodes: say it once, before queueing.
python3 scripts/build_stamp.py check "$build" >/dev/null
mkdir -p "$out/logs"
rm -rf "$out"/shard-* "$out/merged" "$out/jobs"

export_vars="ALL,BASE_SEED=$base_seed,SEEDS=$seeds,SHARDS=$shards,OUT=$out,BUILD=$build"
array=$(sbatch --parsable --chdir="$repo" --array="1-$shards" \
  --output="$out/logs/shard-%a.log" \
  --export="$export_vars,REGRESS_ARGS=$regress_args" "${sbatch_args[@]}" \
  scripts/slurm/regress.sbatch)
array=${array%%;*}  # "id;cluster" on a multi-cluster setup
merge=$(sbatch --parsable --chdir="$repo" --dependency="afterany:$array" \
  --output="$out/logs/merge.log" \
  --export="$export_vars,MERGE_ARGS=$merge_args" "${sbatch_args[@]}" \
  scripts/slurm/merge.sbatch)
merge=${merge%%;*}
printf 'array=%s\nmerge=%s\n' "$array" "$merge" >"$out/jobs"
echo "submit: array job $array ($shards shards of $seeds round(s), base seed $base_seed)," \
     "merge job $merge; results in $out/merged/, logs in $out/logs/"
