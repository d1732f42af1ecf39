#!/bin/bash
# Long waits over a network, with and without sleeping in the transport
# (SHMEM_UCX_WAKEUP, SHMEM_OFI_WAKEUP): what a 300 ms wait costs the
# waiting PE's CPU (wait_cpu), and what the library's wake-up support
# costs every operation (p2p_bench's 8-byte put + quiet, get and
# fetch-add).  2 PEs, bypass off, rounds alternate between the settings.
#   wait_compare.sh [ROUNDS]        (default 3)
# Prints one markdown table per measurement, each cell the median of the
# rounds (the range in brackets).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${PLUGSHMEM_BUILD:-$here/../../build}
rounds=${1:-3}
run="$build/tools/oshrun -n 2"
configs=(
  "ucx tcp|SHMEM_TRANSPORT=ucx UCX_TLS=tcp SHMEM_UCX_WAKEUP=0"
  "ucx tcp, wakeup|SHMEM_TRANSPORT=ucx UCX_TLS=tcp SHMEM_UCX_WAKEUP=1"
  "ofi tcp|SHMEM_TRANSPORT=ofi FI_PROVIDER=tcp;ofi_rxm SHMEM_OFI_WAKEUP=0"
  "ofi tcp, wakeup|SHMEM_TRANSPORT=ofi FI_PROVIDER=tcp;ofi_rxm SHMEM_OFI_WAKEUP=1"
  "mpi|SHMEM_TRANSPORT=mpi"
  "shm (futex naps)|SHMEM_TRANSPORT=shm"
)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for r in $(seq "$rounds"); do
  for i in "${!configs[@]}"; do
    envs=${configs[$i]#*|}
    # One 300 ms wait after a warm-up one: the first pays for connecting.
    env $envs SHMEM_BYPASS=0 $run "$build/bench/p2p/wait_cpu" 300 2 2>/dev/null |
      awk '$1 == 2 {print $2, $3, $4}' >>"$out/wait.$i" || true
    env $envs SHMEM_BYPASS=0 $run "$build/bench/p2p/p2p_bench" 2>/dev/null |
      awk '$1 == 8 {p = $2; g = $3} /^fetch_add/ {f = $NF} END {print p, g, f}' >>"$out/p2p.$i" || true
  done
done
stat() { # column of a file -> "median [min-max]"
  sort -n -k"$2" "$1" | awk -v c="$2" '{v[NR] = $c} END {
    if (!NR) {print "-"; exit}
    m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%.1f [%.1f-%.1f]\n", m, v[1], v[NR]}'
}
table() { # TITLE FILE-PREFIX HEAD1 HEAD2 HEAD3: one row per configuration
  printf '%s (median of %s rounds [range])\n\n| transport | %s | %s | %s |\n| --- | --- | --- | --- |\n' \
    "$1" "$rounds" "$3" "$4" "$5"
  for i in "${!configs[@]}"; do
    echo "| ${configs[$i]%%|*} | $(stat "$out/$2.$i" 1) | $(stat "$out/$2.$i" 2) | $(stat "$out/$2.$i" 3) |"
  done
}
table "A 300 ms wait, 2 PEs, bypass off: the waiter's CPU use and how late it saw the release" \
  wait "process CPU %" "waiting thread CPU %" "late us"
echo
table "8-byte operations, 2 PEs, bypass off: us per call" p2p "put + quiet" get fetch-add
