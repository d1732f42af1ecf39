#!/bin/bash
# Instructions per 8-byte shmem_broadcastmem on the world team, counted by
# callgrind on every PE of an N-PE job (root: PE 0), time spent waiting for
# other PEs left out: what the algorithm itself executes.
#   icount_bcast.sh [NPES] [BUILD]      (default 2 PEs, ./build)
# Prints one line per PE (in order of exit, the root usually last):
# instructions per call outside pshm_wait_step (the polls of the wait loops
# themselves are counted), and inside it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
np=${1:-2}
build=$(readlink -f "${2:-${PLUGSHMEM_BUILD:-$here/../../build}}")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
iters=2000
# coll_bench runs iters/10+1 warm-up calls and iters timed ones per size.
calls=$((iters + iters / 10 + 1))
"$build/tools/oshrun" -n "$np" valgrind -q --tool=callgrind \
  --toggle-collect='*shmem_broadcastmem' --callgrind-out-file="$out/cg.%p" \
  "$build/bench/coll/coll_bench" 8 "$iters" >/dev/null
for f in "$out"/cg.*; do
  ann=$(callgrind_annotate --inclusive=yes "$f" 2>/dev/null)
  total=$(echo "$ann" | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }')
  wait=$(echo "$ann" | awk '/:pshm_wait_step/ { gsub(",", "", $1); print $1; exit }')
  awk -v t="${total:-0}" -v w="${wait:-0}" -v n="$calls" -v f="$(basename "$f")" \
    'BEGIN { printf "%-14s %8.1f instructions per broadcast, %8.1f more waiting\n", f, (t - w) / n, w / n }'
done
