#!/bin/bash
# 8-byte put+quiet latency and put_nbi rate through PlugSHMEM's ofi plugin
# beside libfabric alone, alternating the two programs RUNS times so that
# both see the same machine, then the median and best of each.
#
#   bench/ofi/compare_raw.sh [PROVIDER] [RUNS] [ITERATIONS]
#                                        (default shm, 9, 20000; tcp wants fewer)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${PLUGSHMEM_BUILD:-$here/../../build}
prov=${1:-shm}
runs=${2:-9}
iters=${3:-20000}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

for _ in $(seq "$runs"); do
    SHMEM_TRANSPORT=ofi SHMEM_BYPASS=0 FI_PROVIDER="$prov" \
        "$build/tools/oshrun" -n 2 "$build/bench/ofi/ofi_put" "$iters" |
        awk '/put8\+quiet/ { print "ours", $3, $6 }' >>"$out"
    FI_PROVIDER="$prov" "$build/bench/ofi/raw_ofi_put" "$iters" |
        awk '/put8\+wait/ { print "raw", $4, $7 }' >>"$out"
done

stats() { # column of "who" lines -> median best (best = min for latency, max for rate)
    awk -v who="$1" -v col="$2" '$1 == who { print $col }' "$out" | sort -g |
        awk -v hi="$3" '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
                          printf "%9.3f %9.3f", m, hi ? v[NR] : v[1] }'
}
printf 'provider %s, %d alternating runs of %d iterations\n' "$prov" "$runs" "$iters"
printf '%-22s %9s %9s   %9s %9s\n' "" "lat med" "lat best" "Mmsg/s med" "best"
for who in ours raw; do
    name=$([ $who = ours ] && echo "PlugSHMEM ofi_put" || echo "libfabric raw_ofi_put")
    printf '%-22s %s   %s\n' "$name" "$(stats $who 2 0)" "$(stats $who 3 1)"
done
read -r om ob <<<"$(stats ours 2 0)"
read -r rm rb <<<"$(stats raw 2 0)"
awk -v om="$om" -v ob="$ob" -v rm="$rm" -v rb="$rb" \
    'BEGIN { printf "latency, PlugSHMEM / libfabric: median %.2f, best %.2f\n", om / rm, ob / rb }'
