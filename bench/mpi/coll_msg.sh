#!/bin/bash
# The native collectives over the mpi transport with its tagged messages
# (transports/mpi/mpi_msg.c) and without them (SHMEM_COLL_MESSAGES=0: puts,
# MPI_Win_flush, then a flag), beside MPICH's own collectives on the same
# MPI (SHMEM_COLLECTIVES=mpi), alternating ROUNDS times.  MPICH is kept off
# its shared memory (MPIR_CVAR_NOLOCAL=1, UCX_TLS=tcp), so that every byte
# crosses TCP as it would between nodes.  Two setups: 2 PEs with the
# bypass off, and 4 PEs on 2 emulated nodes (SHMEM_EMULATE_NODES=2: the
# leaders talk through the transport, the rest by load/store).  Prints the
# median of each cell, µs per call, slowest PE (bench/coll/coll_bench).
#
#   bench/mpi/coll_msg.sh [ROUNDS] [ITERATIONS] [MAX_BYTES]   (default 3 200 32768)
#
# COLL_BENCH_OPS (e.g. "barrier,bcast,reduce") keeps only those operations.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${PLUGSHMEM_BUILD:-$here/../../build}
rounds=${1:-3}
iters=${2:-200}
max=${3:-32768}
out=$(mktemp)
trap '[ -n "${COLL_MSG_KEEP:-}" ] || rm -f "$out"' EXIT
export MPIR_CVAR_NOLOCAL=1 UCX_TLS=tcp SHMEM_TRANSPORT=mpi

# run SETUP WHO COMPONENT NP ENV...: one "setup who op bytes us" line per row.
# With UCX over tcp MPICH 4.0.2 now and then hangs in MPI_Finalize at 4
# ranks, with or without PlugSHMEM's messages (some ranks wait in PMI's
# barrier while others flush UCX endpoints they would have to progress):
# the table is printed by then, so a job that outlives COLL_MSG_TIMEOUT
# seconds is stopped and its rows kept.
run() {
    local setup=$1 who=$2 comp=$3 np=$4
    shift 4
    { env "$@" timeout "${COLL_MSG_TIMEOUT:-60}" mpiexec.hydra -n "$np" \
        "$build/bench/coll/coll_bench" "$max" "$iters" "$comp" 1 || true; } |
        awk -v s="$setup" -v w="$who" '$1 !~ /^#/ && $2 ~ /^[0-9]+$/ { print s, w, $1, $2, $3 }' >>"$out"
}

for _ in $(seq "$rounds"); do
    for setup in bypass-off 2nodes; do
        if [ "$setup" = bypass-off ]; then
            np=2 set=(SHMEM_BYPASS=0)
        else
            np=4 set=(SHMEM_EMULATE_NODES=2)
        fi
        run "$setup" messages native "$np" "${set[@]}" SHMEM_COLL_MESSAGES=1
        run "$setup" puts native "$np" "${set[@]}" SHMEM_COLL_MESSAGES=0
        run "$setup" mpich mpi "$np" "${set[@]}"
    done
done

for setup in bypass-off 2nodes; do
    [ "$setup" = bypass-off ] && echo "2 PEs, bypass off" || echo "4 PEs on 2 emulated nodes"
    printf '%-10s %8s %12s %12s %12s %10s\n' op bytes messages puts mpich "puts/msgs"
    awk -v s="$setup" '$1 == s { k = $3 " " $4; v[k, $2] = v[k, $2] " " $5; if (!(k in seen)) { seen[k] = 1; order[++n] = k } }
        function med(list,   a, m, i, j, t) {
            m = split(list, a, " ")
            for (i = 2; i <= m; i++) for (j = i; j > 1 && a[j] + 0 < a[j - 1] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
            return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
        }
        END {
            for (i = 1; i <= n; i++) {
                split(order[i], kb, " ")
                m = med(v[order[i], "messages"]); p = med(v[order[i], "puts"]); c = med(v[order[i], "mpich"])
                printf "%-10s %8s %12.2f %12.2f %12.2f %10.2f\n", kb[1], kb[2], m, p, c, (m > 0 ? p / m : 0)
            }
        }' "$out"
    echo
done
