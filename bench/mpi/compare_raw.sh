#!/bin/bash
# Latency of the 8-byte operations an atomics path changes (put + quiet,
# get, fetch-add, add, compare-swap) through the mpi transport with the
# bypass off, on each of its atomics paths (SHMEM_MPI_AMO=am and rma), and
# on am with waits that never yield (SHMEM_WAIT_SPINS=10^9: the target
# polls from its barrier as OSHMPI's progress thread and MPICH's own
# barrier do, where by default it yields its CPU after 16 384 polls),
# beside OSHMPI on the same MPICH and beside MPI alone (raw_mpi_put).  The
# programs alternate RUNS times, so that all see the same machine; prints
# the median and the best of each, microseconds per call.
#
#   bench/mpi/compare_raw.sh [RUNS] [ITERATIONS]         (default 9, 20000)
#
# MPI_LAUNCHER (default "mpiexec.hydra -n 2") starts every program; extra
# PlugSHMEM settings pass through the environment.  OSHMPI_BENCH names
# p2p_bench built with OSHMPI's oshcc (bench/mpi/build_oshmpi.sh; skipped if
# absent).  RAW_LEVEL=single runs the raw loop at MPI_THREAD_SINGLE (the
# plugin uses MPI_THREAD_MULTIPLE unless SHMEM_PROGRESS_THREAD=0).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${PLUGSHMEM_BUILD:-$here/../../build}
runs=${1:-9}
iters=${2:-20000}
launch=${MPI_LAUNCHER:-mpiexec.hydra -n 2}
oshmpi=${OSHMPI_BENCH:-/work/oshmpi-build/p2p_bench.oshmpi}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# who PROGRAM ARGS...: one "who op us" line per operation it printed.
one() {
    local who=$1
    shift
    $launch "$@" | awk -v who="$who" 'NF == 2 && $2 ~ /^[0-9.]+$/ { print who, $1, $2 }' >>"$out"
}

for _ in $(seq "$runs"); do
    SHMEM_TRANSPORT=mpi SHMEM_BYPASS=0 SHMEM_MPI_AMO=am one am "$build/bench/p2p/p2p_bench" ops "$iters"
    SHMEM_TRANSPORT=mpi SHMEM_BYPASS=0 SHMEM_MPI_AMO=am SHMEM_WAIT_SPINS=1000000000 \
        one spin "$build/bench/p2p/p2p_bench" ops "$iters"
    SHMEM_TRANSPORT=mpi SHMEM_BYPASS=0 SHMEM_MPI_AMO=rma one rma "$build/bench/p2p/p2p_bench" ops "$iters"
    [ -x "$oshmpi" ] && one oshmpi "$oshmpi" ops "$iters"
    one raw "$build/bench/mpi/raw_mpi_put" "$iters" "${RAW_LEVEL:-multiple}"
done

stats() { # who op -> "median best", or "- -"
    awk -v who="$1" -v op="$2" '$1 == who && $2 == op { print $3 }' "$out" | sort -g |
        awk '{ v[NR] = $1 } END { if (!NR) { printf "%9s %9s", "-", "-"; exit }
                                  m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
                                  printf "%9.3f %9.3f", m, v[1] }'
}
printf '%d alternating runs of %d calls, microseconds per call (median, best)\n' "$runs" "$iters"
printf '%-14s %19s %19s %19s %19s %19s\n' "" "PlugSHMEM am" "am, waits spin" "PlugSHMEM rma" \
    OSHMPI "MPI alone"
for op in put8+quiet get8 fetch_add add compare_swap; do
    printf '%-14s %s %s %s %s %s\n' "$op" "$(stats am "$op")" "$(stats spin "$op")" \
        "$(stats rma "$op")" "$(stats oshmpi "$op")" "$(stats raw "$op")"
done
