#!/bin/bash
# Runs the whole PlugSHMEM test suite (building first if needed), prints the
# time each suite took, and ends with one line "N passed, M failed".
#   ./test.sh              every suite over every transport configuration
#   ./test.sh --quick      a few minutes: unit tests and the shm suites
#   ./test.sh ARGS...      ARGS go to meson test, e.g. ./test.sh --suite api
set -uo pipefail
cd "$(dirname "$0")"
if [ "${1:-}" = --quick ]; then
  shift
  set -- --suite unit --suite api-shm --suite shm --suite coll-shm --suite bad "$@"
fi
[ -f build/build.ninja ] || meson setup build >/dev/null || exit 1
ninja -C build >/dev/null || { ninja -C build; exit 1; }
out=build/meson-logs/test-summary.txt
meson test -C build --print-errorlogs --num-processes 2 "$@" 2>&1 | tee "$out"
rc=$?
echo
python3 tests/suite_times.py build/meson-logs/testlog.json
# Restate meson's summary ("Ok: 10", "Fail: 0", ...) as one plain line.
count() { sed -n "s/^$1: *\([0-9]*\).*/\1/p" "$out" | tail -n 1; }
ok=$(count Ok) fail=$(count Fail) xpass=$(count 'Unexpected Pass') tmo=$(count Timeout)
skip=$(count Skipped)
echo "${ok:-0} passed, $(( ${fail:-0} + ${xpass:-0} + ${tmo:-0} )) failed, ${skip:-0} skipped"
exit $rc
