#!/bin/sh
# Every mutant patch (tests/mutants for make mutate, formal/mutants for make
# formal-mutants) still applies to today's RTL exactly as the runners apply it
# (patch -p1 --fuzz=0). A patch that no longer applies is an ERROR there, found only by
# the slow runs (one reached CI unseen); here it fails make test in a second.
# Exit 0 when all apply, 1 with the offenders listed.
cd "$(dirname "$0")/.." || exit 2
bad=0
n=0
for p in tests/mutants/*.patch formal/mutants/*.patch; do
  n=$((n + 1))
  if ! patch -p1 --dry-run --fuzz=0 -s -i "$p" >/dev/null 2>&1; then
    echo "does not apply (patch -p1 --fuzz=0): $p"
    bad=$((bad + 1))
  fi
done
echo "mutant patches: $((n - bad)) of $n apply"
[ "$bad" -eq 0 ]
