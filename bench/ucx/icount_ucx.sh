#!/bin/bash
# Instructions per shmem_putmem(8 B)+shmem_quiet, per
# shmem_long_atomic_fetch_add and per shmem_long_p on PE 0 of a 2-PE job
# over UCX with the bypass off, through PlugSHMEM and, when Debian's
# openmpi-bin is installed, through Open MPI's OSHMEM on the same UCX_TLS.
# Counted by callgrind (bench/p2p/p2p_bench icount), split into what UCX
# and libc execute and what runs above them, with the number of
# ucp_worker_progress calls per operation and the instructions outside
# them: a put+quiet or a fetch-add waits for the target's answer, and every
# poll while waiting counts, so the totals grow with how long the target
# takes (the machine's load); what is left outside ucp_worker_progress is
# the cost of issuing, completing and the wait loops' own turns.
#
#   bench/ucx/icount_ucx.sh [UCX_TLS] [N]        (default tcp, 2000)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${PLUGSHMEM_BUILD:-$here/../../build}
tls=${1:-tcp}
n=${2:-2000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# run LAUNCHER... BENCH: callgrind on rank 0, one dump per measured loop.
run() {
    local dir=$1
    shift
    mkdir -p "$dir"
    "$@" sh -c '
      r=${PMIX_RANK:-${OMPI_COMM_WORLD_RANK:-0}}
      if [ "$r" = 0 ]; then
        exec valgrind -q --tool=callgrind --instr-atstart=no --callgrind-out-file='"$dir"'/cg.%p "$0" icount '"$n"'
      else
        exec "$0" icount '"$n"'
      fi' "$bench" >/dev/null 2>&1
}

# report DIR NAME: one line per operation.
report() {
    local dir=$1 name=$2 f op
    declare -A file
    for f in "$dir"/cg.*; do
        op=$(sed -n 's/^desc: Trigger: Client Request: \(.*\)/\1/p' "$f")
        [ -n "$op" ] && file[$op]=$f
    done
    local base
    base=$(sed -n 's/^totals: \([0-9]*\).*/\1/p' "${file[empty_loop]}")
    for op in putmem8+quiet long_atomic_fetch_add long_p; do
        f=${file[$op]:-}
        [ -n "$f" ] || { printf '%-10s %-22s no count\n' "$name" "$op"; continue; }
        local total below polls inprog
        total=$(sed -n 's/^totals: \([0-9]*\).*/\1/p' "$f")
        below=$(callgrind_annotate --inclusive=no "$f" 2>/dev/null | awk '
            /^ *[0-9,]+ +\(/ && !/PROGRAM TOTALS/ {
                c = $1; gsub(",", "", c)
                if ($NF ~ /libuc[pstm]|libc\.so|libpthread|ld-linux/) s += c
            }
            END { print s + 0 }')
        # Calls of ucp_worker_progress: callgrind names a function once
        # ("cfn=(7) name"), then by number ("cfn=(7)").
        polls=$(awk '
            /^c?fn=\(/ {
                id = $1; sub(/^c?fn=/, "", id)
                if (NF > 1) nm[id] = $2
                if ($1 ~ /^cfn=/) callee = nm[id]
                next
            }
            /^calls=/ { if (callee == "ucp_worker_progress") { split($1, a, "="); s += a[2] } callee = "" }
            END { print s + 0 }' "$f")
        inprog=$(callgrind_annotate --inclusive=yes "$f" 2>/dev/null |
            awk '/:ucp_worker_progress / && !done { c = $1; gsub(",", "", c); print c; done = 1 }')
        awk -v t="$total" -v b="$base" -v u="$below" -v p="$polls" -v i="${inprog:-0}" -v n="$n" \
            -v op="$op" -v who="$name" \
            'BEGIN { printf "%-10s %-22s %9.1f %9.1f %9.1f %7.1f %9.1f\n", who, op, (t - b) / n,
                     u / n, (t - b - u) / n, p / n, (t - b - i) / n }'
    done
}

printf 'UCX_TLS=%s, %d calls each; instructions per call\n' "$tls" "$n"
printf '%-10s %-22s %9s %9s %9s %7s %9s\n' "" "" total "UCX+libc" above polls "not-poll"
bench=$build/bench/p2p/p2p_bench
run "$work/ours" env SHMEM_TRANSPORT=ucx SHMEM_BYPASS=0 UCX_TLS="$tls" "$build/tools/oshrun" -n 2
report "$work/ours" PlugSHMEM
if [ -x /usr/bin/oshcc ]; then
    /usr/bin/oshcc -O2 -DHAVE_CALLGRIND -I"$here/.." "$here/../p2p/p2p_bench.c" -o "$work/p2p_bench.ompi"
    bench=$work/p2p_bench.ompi
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    run "$work/ompi" /usr/bin/oshrun --mca osc ^rdma -x UCX_TLS="$tls" -np 2
    report "$work/ompi" "Open MPI"
else
    echo "(Open MPI's oshcc not installed: apt-get install openmpi-bin libopenmpi-dev, then set the mpi/mpirun alternatives back to MPICH)"
fi
