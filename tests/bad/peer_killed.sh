#!/bin/bash
# peer_killed.sh OSHRUN BAD_PEER_KILLED RUNS TRANSPORT...
#
# Issue 25, row 7: SIGKILL to PE 1 of 3 while every PE puts to the others,
# RUNS times per transport (ucx-tcp: UCX over tcp; ofi-tcp: libfabric's
# tcp;ofi_rxm; both with the bypass off, so that the puts cross the
# network). Whatever the survivors' transports notice first, oshrun must
# name PE 1 with its pid and exit 137, and no UCX or libfabric text (a
# "Fatal:" line, a backtrace, a provider's warning) may reach the user:
# besides oshrun's line, a survivor may print the library's one line.
OSHRUN=$1 PROG=$2 RUNS=$3
shift 3
WORK=$(mktemp -d "${TMPDIR:-/tmp}/peer_killed.XXXXXX") || exit 2
job=
cleanup() {
    [ -n "$job" ] && kill -KILL "$job" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
failed=0 total=0

one() {   # one NAME: a run; prints a line per failure
    local out=$WORK/out err=$WORK/err pid rc why=
    # Emptied here, not by the job's redirection, which may come after the
    # first look below and leave the previous run's lines to be read.
    : >"$out"
    timeout 90 "$OSHRUN" -n 3 "$PROG" 60 >"$out" 2>"$err" </dev/null &
    job=$!
    for ((t = 0; t < 600; t++)); do
        [ "$(grep -c 'in the put loop' "$out")" -ge 3 ] && break
        sleep 0.1
    done
    sleep 0.5
    pid=$(sed -n 's/^PE 1 pid \([0-9]*\) in the put loop$/\1/p' "$out")
    [ -n "$pid" ] && kill -KILL "$pid"
    wait "$job"
    rc=$? job=
    if [ -z "$pid" ]; then
        why="the PEs never reached the put loop (exit status $rc); stdout: $(tr '\n' '|' <"$out")"
    elif [ "$rc" -ne 137 ]; then
        why="exit status $rc, expected 137"
    elif ! grep -Eqx "oshrun: PE 1 \(pid $pid\) killed by signal 9 \(Killed\); ending the job" "$err"; then
        why="no line naming PE 1 (pid $pid)"
    elif grep -Eiq 'fatal:|backtrace|^ *[0-9]+ +0x[0-9a-f]+|UCX +(ERROR|WARN)|libfabric:|\[warn\]' "$err"; then
        why="transport text reached the user"
    elif [ "$(grep -Evc '^oshrun: PE 1 |^plugshmem \(PE [02]\): ' "$err")" -ne 0 ]; then
        why="unexpected stderr lines"
    fi
    if [ -n "$why" ]; then
        failed=$((failed + 1))
        echo "FAIL $1 run $2: $why; stderr:"
        sed 's/^/    /' "$err" | head -30
    fi
}

for tp in "$@"; do
    case $tp in
    ucx-tcp) env=(SHMEM_TRANSPORT=ucx SHMEM_BYPASS=0 UCX_TLS=tcp) ;;
    ofi-tcp) env=(SHMEM_TRANSPORT=ofi SHMEM_BYPASS=0 'FI_PROVIDER=tcp;ofi_rxm') ;;
    *) echo "unknown transport $tp"; exit 2 ;;
    esac
    f0=$failed
    for ((i = 1; i <= RUNS; i++)); do
        total=$((total + 1))
        export "${env[@]}"
        one "$tp" "$i"
        unset SHMEM_TRANSPORT SHMEM_BYPASS UCX_TLS FI_PROVIDER
    done
    echo "$tp: $RUNS runs, $((failed - f0)) failed"
done
[ "$total" -gt 0 ] || exit 77
[ "$failed" -eq 0 ]
