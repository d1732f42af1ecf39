#!/bin/sh
# run_collmpi.sh [--expect-out REGEX] LAUNCHER NP [--expect-fail REGEX] PROGRAM [ARGS...]
#
# tests/mpi/run_mpi.sh (the job, its exit status, one-line failures, no
# leftovers in /dev/shm or processes), and with --expect-out the job's
# output must also match REGEX (e.g. that MPI served the collectives).
here=$(dirname "$0")
expect=
if [ "$1" = "--expect-out" ]; then expect=$2; shift 2; fi
out=$(sh "$here/../mpi/run_mpi.sh" "$@" 2>&1)
rc=$?
printf '%s\n' "$out"
[ $rc -ne 0 ] && exit $rc
if [ -n "$expect" ] && ! printf '%s\n' "$out" | grep -Eq -- "$expect"; then
    echo "run_collmpi: the output does not match: $expect"
    exit 1
fi
exit 0
