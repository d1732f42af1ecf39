#!/bin/bash
# Runs coll_bench with PlugSHMEM and with Open MPI's OSHMEM (Debian's
# openmpi-bin: opal_wrapper as oshcc, mpirun.openmpi) at the given PE counts,
# alternating, ROUNDS times each.
#   compare_ompi.sh [ROUNDS] [NPES...]      e.g. compare_ompi.sh 2 2 8 16
# PLUGSHMEM_BEFORE=DIR also runs another PlugSHMEM build (e.g. the one
# before a change) in the same rounds; COLL_BENCH_ARGS (default
# "65536 1000") are coll_bench's max_bytes and iterations, and
# COLL_BENCH_OPS / COLL_BENCH_MIN select rows (coll_bench.c).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${PLUGSHMEM_BUILD:-$here/../../build}
before=${PLUGSHMEM_BEFORE:-}
args=${COLL_BENCH_ARGS:-65536 1000}
rounds=${1:-2}
shift || true
npes=${*:-2 8}
# Open MPI's wrappers by their own names: /usr/bin/oshcc and oshrun are
# alternatives another OpenSHMEM install may take over (OMPI_OSHRUN
# overrides).  opal_wrapper called as "oshcc" is Open MPI's oshcc.
[ -x /usr/bin/opal_wrapper ] || { echo "Open MPI's opal_wrapper (openmpi-bin) not installed"; exit 2; }
ompirun=${OMPI_OSHRUN:-/usr/bin/mpirun.openmpi}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ln -s /usr/bin/opal_wrapper "$work/oshcc"
"$work/oshcc" -O2 -I"$here/.." "$here/coll_bench.c" -o "$work/coll_bench.ompi"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
pass=()
for v in COLL_BENCH_OPS COLL_BENCH_MIN; do [ -n "${!v:-}" ] && pass+=(-x "$v"); done
for n in $npes; do
  for r in $(seq "$rounds"); do
    if [ -n "$before" ]; then
      echo "== PlugSHMEM before np$n (round $r)"
      # shellcheck disable=SC2086
      "$before/tools/oshrun" -n "$n" "$before/bench/coll/coll_bench_as" $args
    fi
    # shellcheck disable=SC2086
    echo "== PlugSHMEM np$n (round $r)"; "$build/tools/oshrun" -n "$n" "$build/bench/coll/coll_bench_as" $args
    echo "== Open MPI np$n (round $r)"
    # shellcheck disable=SC2086
    "$ompirun" --mca osc ^rdma --oversubscribe -np "$n" "${pass[@]}" \
      "$work/coll_bench.ompi" $args 2>&1 | grep -v '^\[' || true
  done
done
