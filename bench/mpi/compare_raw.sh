#!/bin/bash
# Latency of an 8-byte put + quiet and of a long fetch-add through the mpi
# transport (bypass off, so both cross MPI) beside the same operations on
# MPI alone (raw_mpi_put: MPI_Put + MPI_Win_flush, MPI_Fetch_and_op +
# MPI_Win_flush_local), alternating the programs RUNS times so that both
# see the same machine; prints medians and bests.
#
#   bench/mpi/compare_raw.sh [RUNS] [ITERATIONS]         (default 9, 20000)
#
# MPI_LAUNCHER (default "mpiexec.hydra -n 2") starts both; extra PlugSHMEM
# settings (SHMEM_PROGRESS_THREAD=0, ...) pass through the environment.
# RAW_LEVEL=single runs the raw loop at MPI_THREAD_SINGLE (the plugin uses
# MPI_THREAD_MULTIPLE unless SHMEM_PROGRESS_THREAD=0).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${PLUGSHMEM_BUILD:-$here/../../build}
runs=${1:-9}
iters=${2:-20000}
launch=${MPI_LAUNCHER:-mpiexec.hydra -n 2}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

for _ in $(seq "$runs"); do
    SHMEM_TRANSPORT=mpi SHMEM_BYPASS=0 $launch "$build/bench/mpi/shmem_put8" "$iters" |
        awk '/put8\+quiet/ { print "ours_put", $3 }' >>"$out"
    SHMEM_TRANSPORT=mpi SHMEM_BYPASS=0 $launch "$build/bench/p2p/p2p_bench" lat |
        awk '/^fetch_add/ { print "ours_fadd", $4 }' >>"$out"
    $launch "$build/bench/mpi/raw_mpi_put" "$iters" "${RAW_LEVEL:-multiple}" |
        awk '/put8\+flush/ { print "raw_put", $5; print "raw_fadd", $8 }' >>"$out"
done

stats() { # "who" -> median best
    awk -v who="$1" '$1 == who { print $2 }' "$out" | sort -g |
        awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
                                  printf "%9.3f %9.3f", m, v[1] }'
}
printf '%d alternating runs of %d iterations, microseconds\n' "$runs" "$iters"
printf '%-34s %9s %9s\n' "" median best
printf '%-34s %s\n' "put8+quiet, PlugSHMEM mpi" "$(stats ours_put)"
printf '%-34s %s\n' "MPI_Put+MPI_Win_flush, MPI alone" "$(stats raw_put)"
printf '%-34s %s\n' "long fetch-add, PlugSHMEM mpi" "$(stats ours_fadd)"
printf '%-34s %s\n' "MPI_Fetch_and_op, MPI alone" "$(stats raw_fadd)"
read -r om ob <<<"$(stats ours_put)"
read -r rm rb <<<"$(stats raw_put)"
read -r fm fb <<<"$(stats ours_fadd)"
read -r gm gb <<<"$(stats raw_fadd)"
awk -v om="$om" -v ob="$ob" -v rm="$rm" -v rb="$rb" -v fm="$fm" -v fb="$fb" -v gm="$gm" -v gb="$gb" \
    'BEGIN { printf "ours / MPI alone: put median %.2f best %.2f; fetch-add median %.2f best %.2f\n",
             om / rm, ob / rb, fm / gm, fb / gb }'
