#!/bin/bash
# Instructions per operation, counted by callgrind on PE 0 of a 2-PE job.
#   icount.sh [--launcher "CMD..."] BENCH [N]
# The default launcher is PlugSHMEM's oshrun from the build tree; for
# another OpenSHMEM pass its launcher, e.g.
#   icount.sh --launcher "oshrun --mca osc ^rdma -np 2" ./p2p_bench.ompi
# Prints one line per operation: instructions per call, the loop's own
# overhead subtracted.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
launcher="${PLUGSHMEM_BUILD:-$here/../../build}/tools/oshrun -n 2"
if [ "${1:-}" = --launcher ]; then launcher=$2; shift 2; fi
bench=$(readlink -f "$1"); n=${2:-10000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# PE 0 runs under callgrind: the rank variable depends on the launcher.
$launcher sh -c '
  r=${PMIX_RANK:-${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}}
  if [ "$r" = 0 ]; then
    exec valgrind -q --tool=callgrind --instr-atstart=no --callgrind-out-file='"$out"'/cg.%p "$0" icount '"$n"'
  else
    exec "$0" icount '"$n"'
  fi' "$bench" >/dev/null
declare -A ir
for f in "$out"/cg.*; do
  part=$(sed -n 's/^desc: Trigger: Client Request: \(.*\)/\1/p' "$f")
  [ -n "$part" ] || continue
  ir[$part]=$(sed -n 's/^totals: \([0-9]*\).*/\1/p' "$f")
done
base=${ir[empty_loop]:-0}
for op in putmem8+quiet long_atomic_fetch_add long_atomic_add long_p; do
  [ -n "${ir[$op]:-}" ] || { echo "$op: no count (did the benchmark run?)"; continue; }
  awk -v t="${ir[$op]}" -v b="$base" -v n="$n" -v op="$op" \
    'BEGIN { printf "%-24s %8.1f instructions per call\n", op, (t - b) / n }'
done
