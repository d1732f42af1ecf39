#!/bin/bash
# Instructions per call of one collective of coll_bench at one size on the
# world team, counted by callgrind on every PE of an N-PE job, leaving out
# waiting (pshm_wait_step and the turns of the loops around it, counted by
# wait_turns.py): what the algorithm itself executes, whatever the load.
#   icount_coll.sh OP BYTES [NPES] [BUILD]
#     OP: alltoall | reduce (long sum) | fcollect | inscan (long sum) | bcast
# Prints the mean over PEs and the largest, and the wait turns per call.
# Slow: 16 PEs under valgrind take minutes here.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
op=$1 bytes=$2 np=${3:-2}
build=$(readlink -f "${4:-${PLUGSHMEM_BUILD:-$here/../../build}}")
case $op in
  alltoall) fn=shmem_alltoallmem ;;
  reduce) fn=shmem_long_sum_reduce ;;
  fcollect) fn=shmem_fcollectmem ;;
  inscan) fn=shmem_long_sum_inscan ;;
  bcast) fn=shmem_broadcastmem ;;
  *) echo "icount_coll.sh: unknown operation '$op' (alltoall, reduce, fcollect, inscan, bcast)" >&2; exit 2 ;;
esac
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
iters=${ICOUNT_ITERS:-400}
# coll_bench: iters/10+1 warm-up calls then iters timed ones; a tenth of
# that from 32 KiB up.
[ "$bytes" -ge 32768 ] && iters=$((iters / 10 + 1))
calls=$((iters + iters / 10 + 1))
COLL_BENCH_OPS=$op COLL_BENCH_MIN=$bytes "$build/tools/oshrun" -n "$np" valgrind -q --tool=callgrind \
  --toggle-collect="*$fn" --callgrind-out-file="$out/cg.%p" \
  "$build/bench/coll/coll_bench" "$bytes" "${ICOUNT_ITERS:-400}" >/dev/null
# Per PE: all instructions inside the call, those inside pshm_wait_step,
# and the turns of the wait loops around it (coll_wait, inlined: 7
# instructions a turn), whose number follows the load: left out, what
# remains is what the algorithm executes.
src=$(readlink -f "$here/../..")
line=$(awk '/^void pshm_wait_step\(/ { f = 1 } f && /pshm_g.tp_progress/ { print NR; exit }' "$src/core/sync.c")
for f in "$out"/cg.*; do
  ann=$(callgrind_annotate --inclusive=yes "$f" 2>/dev/null)
  total=$(echo "$ann" | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }')
  wait=$(echo "$ann" | awk '/:pshm_wait_step/ { gsub(",", "", $1); print $1; exit }')
  echo "${total:-0} ${wait:-0} $(python3 "$here/wait_turns.py" "$f" "$line")"
done | awk -v n="$calls" -v op="$op" -v b="$bytes" -v np="$np" '
  { o = ($1 - $2 - 7 * $3) / n; t = $3 / n; so += o; st += t; if (o > mo) mo = o; if (t > mt) mt = t; k++ }
  END { printf "%s %s B, %d PEs: %.0f instructions per call, mean of the PEs (largest %.0f), waiting left out; %.1f wait turns per call (largest %.1f)\n",
               op, b, np, so / k, mo, st / k, mt }'
