#!/bin/sh
# run_mpi.sh LAUNCHER NP [--expect-fail REGEX] PROGRAM [ARGS...]
#
# Runs PROGRAM on NP PEs (LAUNCHER -n NP; the environment selects the mpi
# transport), then checks that the job left nothing behind: no new object
# in /dev/shm of MPICH's or UCX's (names PID:N:N, ucx*, mpich*: the core's
# own are checked by the launcher tests) and no process of PROGRAM.
# With --expect-fail, the job must fail, print exactly one line, and that
# line must match REGEX.
launcher=$1; np=$2; shift 2
expect=
if [ "$1" = "--expect-fail" ]; then expect=$2; shift 2; fi
# An absolute path, so that the leftover check below cannot match other
# jobs' processes started by the same relative name.
prog=$(readlink -f "$1"); shift

before=$(mktemp)
ls /dev/shm 2>/dev/null | sort > "$before"
out=$(mktemp)
"$launcher" -n "$np" "$prog" "$@" >"$out" 2>&1
rc=$?
cat "$out"
status=0
if [ -n "$expect" ]; then
    lines=$(grep -c . "$out")
    if [ $rc -eq 0 ]; then
        echo "run_mpi: expected the job to fail, it exited 0"; status=1
    elif ! grep -Eq "$expect" "$out"; then
        echo "run_mpi: the output does not match: $expect"; status=1
    elif [ "$lines" -ne 1 ]; then
        echo "run_mpi: expected one line, got $lines"; status=1
    fi
elif [ $rc -eq 77 ]; then
    rm -f "$out" "$before"; exit 77
elif [ $rc -ne 0 ]; then
    echo "run_mpi: the job exited $rc"; status=1
fi
rm -f "$out"
sleep 0.2
new=$(ls /dev/shm 2>/dev/null | sort | comm -13 "$before" - |
    grep -E -- "^[0-9]+:[0-9]+:[0-9]+$|^ucx|^mpich" | tr "\n" " ")
rm -f "$before"
# Objects named after their owner's pid (PID:N:N): one whose process still
# runs belongs to another job on this machine, not to ours.
new=$(for o in $new; do
    case $o in [0-9]*:*) [ -d "/proc/${o%%:*}" ] && continue ;; esac
    printf '%s ' "$o"
done)
if [ -n "$new" ]; then
    echo "run_mpi: left in /dev/shm: $new"; status=1
fi
if pgrep -f "^$prog( |\$)" >/dev/null 2>&1; then
    echo "run_mpi: processes of $prog are still running"; status=1
fi
exit $status
