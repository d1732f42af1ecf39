#!/bin/bash
# test_finalize.sh OSHRUN LATE_FINALIZE [RUNS]
#
# Issue 25, row 8: a PE that called shmem_finalize is never reported as
# "exited without finalizing", however late oshrun reads its finalize; one
# that did not, is. The three cases of late_finalize.c, then RUNS (default
# 40) short jobs beside busy loops (stress_finalize.sh; docs/testing.md
# gives the count of the longer run).
OSHRUN=$1 PROG=$2 RUNS=${3:-40}
here=$(dirname "$0")
out=$(mktemp "${TMPDIR:-/tmp}/test_finalize.XXXXXX") || exit 2
trap 'rm -f "$out"' EXIT
failed=0

# check MODE STATUS STDERR_REGEX (empty: stderr must be empty)
check() {
    timeout 60 "$OSHRUN" -n 2 "$PROG" "$1" >/dev/null 2>"$out" </dev/null
    local rc=$? ok=1
    [ "$rc" -eq "$2" ] || ok=0
    if [ -z "$3" ]; then
        [ -s "$out" ] && ok=0
    else
        [ "$(grep -Ec -- "$3" "$out")" -eq 1 ] || ok=0
        [ "$(wc -l <"$out")" -eq 1 ] || ok=0
    fi
    if [ "$ok" -eq 1 ]; then
        echo "ok   $1: exit status $rc"
    else
        failed=$((failed + 1))
        echo "FAIL $1: exit status $rc (expected $2), stderr:"
        sed 's/^/    /' "$out"
    fi
}

check stall 0 ''
check _exit 0 ''
check reinit 1 '^oshrun: PE 0 \(pid [0-9]+\) exited without finalizing; ending the job$'
bash "$here/stress_finalize.sh" "$OSHRUN" "$PROG" "$RUNS" 3 || failed=$((failed + 1))
[ "$failed" -eq 0 ]
