#!/bin/bash
# Latency of the 8-byte operations over UCX with the bypass off (put +
# quiet, get, fetch-add, add, compare-swap: p2p_bench ops, atomics on a
# heap word) through PlugSHMEM's ucx plugin with the heap in UCX's memory
# (SHMEM_UCX_HEAP=ucx) and registered (core), beside Open MPI's OSHMEM on
# the same UCX_TLS (oshrun --mca osc ^rdma -x UCX_TLS) and a raw UCP put +
# flush on memory UCX allocated (raw_ucx_put, RAW_UCX_ALLOCATE=1).  The
# programs alternate RUNS times; prints the median and best of each,
# microseconds per call.
#
#   bench/ucx/compare_ompi.sh [UCX_TLS] [RUNS] [ITERATIONS]   (default sm, 9, 20000)
#
# Open MPI's column needs Debian's openmpi-bin and libopenmpi-dev (its
# oshcc builds p2p_bench); without them it is left empty.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${PLUGSHMEM_BUILD:-$here/../../build}
tls=${1:-sm}
runs=${2:-9}
iters=${3:-20000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=$work/out

ompi=
if [ -x /usr/bin/oshcc ] && /usr/bin/oshcc -O2 -I"$here/.." "$here/../p2p/p2p_bench.c" \
    -o "$work/p2p_bench.ompi" 2>/dev/null; then
    ompi=$work/p2p_bench.ompi
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

# who COMMAND...: one "who op us" line per operation printed.
one() {
    local who=$1
    shift
    "$@" | awk -v who="$who" 'NF == 2 && $2 ~ /^[0-9.]+$/ { print who, $1, $2 }' >>"$out" || true
}

for _ in $(seq "$runs"); do
    for heap in ucx core; do
        one "$heap" env SHMEM_TRANSPORT=ucx SHMEM_BYPASS=0 UCX_TLS="$tls" SHMEM_UCX_HEAP=$heap \
            "$build/tools/oshrun" -n 2 "$build/bench/p2p/p2p_bench" ops "$iters" heap
    done
    # Open MPI fails to start now and then here: one retry.
    [ -n "$ompi" ] && for _ in 1 2; do
        n=$(wc -l <"$out")
        one ompi timeout 120 /usr/bin/oshrun --mca osc ^rdma -x UCX_TLS="$tls" -np 2 \
            "$ompi" ops "$iters" heap 2>/dev/null
        [ "$(wc -l <"$out")" -gt "$n" ] && break
    done
    RAW_UCX_ALLOCATE=1 UCX_TLS="$tls" "$build/bench/ucx/raw_ucx_put" "$iters" |
        awk '/put8\+flush/ { print "raw", "put8+quiet", $5 }' >>"$out"
done

stats() { # who op -> "median best", or dashes
    awk -v who="$1" -v op="$2" '$1 == who && $2 == op { print $3 }' "$out" | sort -g |
        awk '{ v[NR] = $1 } END { if (!NR) { printf "%9s %9s", "-", "-"; exit }
                                  m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
                                  printf "%9.3f %9.3f", m, v[1] }'
}
printf 'UCX_TLS=%s, %d alternating runs of %d calls, microseconds per call (median, best)\n' \
    "$tls" "$runs" "$iters"
printf '%-14s %19s %19s %19s %19s\n' "" "heap from UCX" "heap registered" "Open MPI" "raw UCP"
for op in put8+quiet get8 fetch_add add compare_swap; do
    printf '%-14s %s %s %s %s\n' "$op" "$(stats ucx "$op")" "$(stats core "$op")" \
        "$(stats ompi "$op")" "$(stats raw "$op")"
done
