#!/bin/bash
# Instructions per call, on PE 0 of a 2-PE job (callgrind), of the 8-byte
# operations an atomics path changes: put + quiet, get, long fetch-add,
# long add (N adds and one quiet) and long compare-swap.  Over PlugSHMEM's
# mpi transport with the bypass off on each atomics path (SHMEM_MPI_AMO=am,
# rma), over OSHMPI on the same MPICH, and on MPI alone (raw_mpi_put:
# MPI_Put + MPI_Win_flush, MPI_Get + MPI_Win_flush_local, MPI_Fetch_and_op
# and MPI_Compare_and_swap + MPI_Win_flush_local, MPI_Accumulate and one
# MPI_Win_flush), alternating ROUNDS times.
#
# Each count is split in two: "wait", what UCX's progress function
# (ucp_worker_progress, inclusive) executed, which is mostly polling until
# the target answers and grows with how late the target runs (on a shared
# machine, by tens of thousands); and "work", the rest, what the library
# and MPI do per operation besides waiting for UCX (MPICH's own polling
# loop, its locks under MPI_THREAD_MULTIPLE and OSHMPI's MPI_Test loops
# still count here, so work varies too).  total = work + wait.  "above":
# what the OpenSHMEM library itself executed (outside MPI, UCX and libc),
# which does not depend on the target and is the same in every run.
#
#   bench/mpi/icount_mpi.sh [ROUNDS] [N]                 (default 5, 2000)
#
# OSHMPI_BENCH names p2p_bench built with OSHMPI's oshcc (default
# /work/oshmpi-build/p2p_bench.oshmpi; bench/mpi/build_oshmpi.sh makes it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${PLUGSHMEM_BUILD:-$here/../../build}
rounds=${1:-5}
n=${2:-2000}
launch=${MPI_LAUNCHER:-mpiexec.hydra -n 2}
oshmpi=${OSHMPI_BENCH:-/work/oshmpi-build/p2p_bench.oshmpi}
out=$(mktemp)
cg=$(mktemp -d)
trap 'rm -rf "$out" "$cg"' EXIT

# run WHO PROGRAM ARGS...: callgrind on rank 0, one line per region:
# WHO REGION total wait (per operation, the empty loop subtracted).
run() {
    local who=$1
    shift
    rm -f "$cg"/*
    $launch sh -c '
      if [ "${PMI_RANK:-0}" = 0 ]; then
        exec valgrind -q --tool=callgrind --instr-atstart=no --callgrind-out-file='"$cg"'/cg.%p "$@"
      else exec "$@"; fi' sh "$@" >/dev/null 2>&1 || true
    local base=0
    for f in "$cg"/cg.*; do
        [ "$(sed -n 's/^desc: Trigger: Client Request: //p' "$f")" = empty_loop ] &&
            base=$(sed -n 's/^totals: //p' "$f")
    done
    for f in "$cg"/cg.*; do
        local part total wait above
        part=$(sed -n 's/^desc: Trigger: Client Request: //p' "$f")
        local op
        case "$part" in
        putmem8+quiet | put8+flush) op=put ;;
        getmem8 | get8+flush_local) op=get ;;
        long_atomic_fetch_add | fetch_and_op+flush_local) op=fetch_add ;;
        long_atomic_add | accumulate+flush) op=add ;;
        long_atomic_compare_swap | compare_and_swap+flush_local) op=compare_swap ;;
        *) continue ;;
        esac
        total=$(sed -n 's/^totals: //p' "$f")
        wait=$(callgrind_annotate --auto=no --inclusive=yes "$f" 2>/dev/null |
            awk '/ucp_worker_progress \[/ && !done { c = $1; gsub(",", "", c); print c; done = 1 }')
        # Executed in the OpenSHMEM library and the program, not in MPI,
        # UCX or libc: what the library adds, the same in every run.
        above=$(callgrind_annotate --auto=no --threshold=100 --inclusive=no "$f" 2>/dev/null | awk '
            /^ *[0-9,]+ +\(/ && !/PROGRAM TOTALS/ {
                c = $1; gsub(",", "", c)
                if ($NF !~ /libmpich|libucp|libuct|libucs|libc\.so|libpthread|ld-linux|libhwloc/) a += c
            }
            END { print a + 0 }')
        echo "$who $op $(((total - base) / n)) $((${wait:-0} / n)) $(((above - base) / n))" >>"$out"
    done
}

for _ in $(seq "$rounds"); do
    SHMEM_TRANSPORT=mpi SHMEM_BYPASS=0 SHMEM_MPI_AMO=am run am "$build/bench/p2p/p2p_bench" icount "$n"
    SHMEM_TRANSPORT=mpi SHMEM_BYPASS=0 SHMEM_MPI_AMO=rma run rma "$build/bench/p2p/p2p_bench" icount "$n"
    [ -x "$oshmpi" ] && run oshmpi "$oshmpi" icount "$n"
    run raw "$build/bench/mpi/raw_mpi_put" icount "$n"
done

# who region column stat -> the median or the minimum over the rounds.
# The minimum is the least disturbed run: other work on the machine only
# ever adds polling.
pick() {
    awk -v who="$1" -v p="$2" -v c="$3" '$1 == who && $2 == p { print (c == 0 ? $3 - $4 : $c) }' "$out" |
        sort -g | awk -v s="$4" '{ v[NR] = $1 } END { if (!NR) { printf "-"; exit }
              printf "%.0f", s == "min" ? v[1] : (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
row() { # label who region
    printf '%-34s %8s %8s %8s %8s %8s\n' "$1" "$(pick "$2" "$3" 5 med)" "$(pick "$2" "$3" 0 med)" \
        "$(pick "$2" "$3" 4 med)" "$(pick "$2" "$3" 3 med)" "$(pick "$2" "$3" 3 min)"
}
printf '%d rounds of %d operations; instructions per call (medians; min: least disturbed total)\n' \
    "$rounds" "$n"
printf '%-34s %8s %8s %8s %8s %8s\n' "" above work wait total min
for op in put get fetch_add add compare_swap; do
    row "$op, PlugSHMEM mpi am" am "$op"
    row "$op, PlugSHMEM mpi rma" rma "$op"
    row "$op, OSHMPI" oshmpi "$op"
    row "$op, MPI alone" raw "$op"
done
