#!/bin/sh
# run_ucx.sh OSHRUN NP [--expect REGEX | --expect-fail REGEX] PROGRAM [ARGS...]
#
# Runs PROGRAM on NP PEs under oshrun with the ucx transport (the
# environment picks UCX_TLS and the settings), then checks that the job
# left nothing behind: no new UCX file in /dev/shm (ucx_*) and no process
# of PROGRAM.  --expect: the job must succeed and its output match REGEX;
# --expect-fail: it must fail and its output match REGEX.
oshrun=$1; np=$2; shift 2
expect= fail=0
case $1 in
--expect) expect=$2; shift 2 ;;
--expect-fail) expect=$2; fail=1; shift 2 ;;
esac
prog=$1; shift

before=$(ls /dev/shm 2>/dev/null | grep '^ucx_' | sort)
out=$(mktemp)
"$oshrun" -n "$np" --transport ucx "$prog" "$@" >"$out" 2>&1
rc=$?
cat "$out"
status=0
if [ $fail = 1 ] && [ $rc -eq 0 ]; then
    echo "run_ucx: expected the job to fail, it exited 0"; status=1
elif [ $fail = 0 ] && [ $rc -eq 77 ]; then
    rm -f "$out"; exit 77
elif [ $fail = 0 ] && [ $rc -ne 0 ]; then
    echo "run_ucx: the job exited $rc"; status=1
fi
if [ -n "$expect" ] && ! grep -Eq "$expect" "$out"; then
    echo "run_ucx: the output does not match: $expect"; status=1
fi
rm -f "$out"
sleep 0.2
tmp=$(mktemp)
printf '%s\n' "$before" > "$tmp"
new=$(ls /dev/shm 2>/dev/null | grep '^ucx_' | sort | comm -13 "$tmp" - | tr "\n" " ")
rm -f "$tmp"
if [ -n "$new" ]; then
    echo "run_ucx: left in /dev/shm: $new"; status=1
fi
# Ours only, as in run_ofi.sh: the same relative path may run from another
# build folder (another worktree's suite, or run_ofi.sh with the same
# tests/ofi programs).
exe=$(readlink -f "$prog")
for p in $(pgrep -f "(^|/)$(basename "$prog")( |\$)"); do
    if [ "$(readlink -f /proc/$p/exe 2>/dev/null)" = "$exe" ]; then
        echo "run_ucx: processes of $prog are still running"; status=1; break
    fi
done
exit $status
