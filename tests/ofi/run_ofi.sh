#!/bin/sh
# run_ofi.sh OSHRUN NP [--expect-fail REGEX] PROGRAM [ARGS...]
#
# Runs PROGRAM on NP PEs under oshrun (the environment selects the ofi
# transport and the provider), then checks that the job left nothing
# behind: no new libfabric object in /dev/shm (the plugin's psm-*-ofi-* and the
# shm provider's own names; oshrun's tests check the core's) and no process of
# PROGRAM.  With
# --expect-fail, the job must fail and its output must match REGEX.
oshrun=$1; np=$2; shift 2
expect=
if [ "$1" = "--expect-fail" ]; then expect=$2; shift 2; fi
prog=$1; shift

before=$(ls /dev/shm 2>/dev/null | sort)
out=$(mktemp)
"$oshrun" -n "$np" --transport ofi "$prog" "$@" >"$out" 2>&1
rc=$?
cat "$out"
status=0
if [ -n "$expect" ]; then
    if [ $rc -eq 0 ]; then
        echo "run_ofi: expected the job to fail, it exited 0"; status=1
    elif ! grep -Eq "$expect" "$out"; then
        echo "run_ofi: the output does not match: $expect"; status=1
    fi
elif [ $rc -eq 77 ]; then
    rm -f "$out"; exit 77
elif [ $rc -ne 0 ]; then
    echo "run_ofi: the job exited $rc"; status=1
fi
rm -f "$out"
sleep 0.2
tmp=$(mktemp)
printf '%s\n' "$before" > "$tmp"
new=$(ls /dev/shm 2>/dev/null | sort | comm -13 "$tmp" - | grep -E -- "-ofi-|^fi_|^[0-9]+:[0-9]+:[0-9]+$")
rm -f "$tmp"
# The shm provider names its objects after the owning pid: one whose
# process still runs belongs to another job on this machine, not to ours.
new=$(for o in $new; do
    pid=${o%%:*}
    case $o in [0-9]*:*) [ -d "/proc/$pid" ] && continue ;; esac
    printf '%s ' "$o"
done)
if [ -n "$new" ]; then
    echo "run_ofi: left in /dev/shm: $new"; status=1
fi
# Ours only: the same relative path may run from another build folder.
exe=$(readlink -f "$prog")
for p in $(pgrep -f "(^|/)$(basename "$prog")( |\$)"); do
    if [ "$(readlink -f /proc/$p/exe 2>/dev/null)" = "$exe" ]; then
        echo "run_ofi: processes of $prog are still running"; status=1; break
    fi
done
exit $status
