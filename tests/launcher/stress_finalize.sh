#!/bin/bash
# stress_finalize.sh OSHRUN LATE_FINALIZE [RUNS [HOGS]]
#
# Issue 25, row 8: a correct 2-PE job must never be reported as "exited
# without finalizing", even when the machine is so loaded that PMIx's
# answer to a PE's PMIx_Finalize comes late. RUNS short jobs (default 40)
# (`late_finalize plain`) run beside HOGS busy loops (default 3, `yes >/dev/null`, killed at the
# end, each bounded by `timeout` should this script die first); every job
# must exit 0 with nothing on stderr. Prints one line per failure and a
# summary; exits 1 if any job failed.
OSHRUN=$1 PROG=$2 RUNS=${3:-40} HOGS=${4:-3}
[ -x "$OSHRUN" ] && [ -x "$PROG" ] || { echo "usage: $0 OSHRUN LATE_FINALIZE [RUNS [HOGS]]"; exit 2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/stress_fin.XXXXXX") || exit 2
hogs=()
cleanup() {
    for p in "${hogs[@]}"; do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for ((h = 0; h < HOGS; h++)); do
    timeout 1800 yes >/dev/null &
    hogs+=($!)
done

fail=0 t0=$SECONDS
for ((i = 1; i <= RUNS; i++)); do
    timeout 60 "$OSHRUN" -n 2 "$PROG" plain >"$WORK/out" 2>"$WORK/err" </dev/null
    rc=$?
    if [ "$rc" -ne 0 ] || [ -s "$WORK/err" ]; then
        fail=$((fail + 1))
        echo "run $i: exit status $rc"
        sed 's/^/    /' "$WORK/err" | head -20
    fi
done
echo "stress_finalize: $RUNS runs beside $HOGS busy loops in $((SECONDS - t0)) s: $fail failed"
[ "$fail" -eq 0 ]
