#!/usr/bin/env bash
# Runs a CMake build with its full log in a file and only the progress on the terminal:
# one line per target built. On failure it shows the end of the log.
#   quiet_build.sh BUILD_DIR JOBS [cmake --build args...]
set -uo pipefail
build=$1 jobs=$2
shift 2
log="$build/build.log"
echo "build: $build (full log: $log)"
cmake --build "$build" -j "$jobs" "$@" 2>&1 | tee "$log" |
  grep --line-buffered -E '^\[ *[0-9]+%\] Built target' | sed -u 's/^/  /'
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
  echo "build FAILED; the end of $log:"
  tail -40 "$log"
fi
exit "$status"
