#!/bin/bash
# 8-byte put+quiet latency through PlugSHMEM's ucx plugin (bench/ofi's
# ofi_put, bypass off) beside a raw UCP put + endpoint flush loop
# (raw_ucx_put), alternating the two RUNS times so that both see the same
# machine, then the median and best of each.
#
#   bench/ucx/compare_raw.sh [UCX_TLS] [RUNS] [ITERATIONS]   (default tcp, 9, 5000)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${PLUGSHMEM_BUILD:-$here/../../build}
tls=${1:-tcp}
runs=${2:-9}
iters=${3:-5000}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

for _ in $(seq "$runs"); do
    SHMEM_TRANSPORT=ucx SHMEM_BYPASS=0 UCX_TLS="$tls" \
        "$build/tools/oshrun" -n 2 "$build/bench/ofi/ofi_put" "$iters" |
        awk '/put8\+quiet/ { print "ours", $3 }' >>"$out"
    UCX_TLS="$tls" "$build/bench/ucx/raw_ucx_put" "$iters" |
        awk '/put8\+flush/ { print "raw", $5 }' >>"$out"
done

stats() { # median best of the latencies of one side
    awk -v who="$1" '$1 == who { print $2 }' "$out" | sort -g |
        awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
                                  printf "%9.3f %9.3f", m, v[1] }'
}
printf 'UCX_TLS=%s, %d alternating runs of %d put8+quiet (us)\n' "$tls" "$runs" "$iters"
printf '%-26s %9s %9s\n' "" median best
printf '%-26s %s\n' "PlugSHMEM ucx (ofi_put)" "$(stats ours)"
printf '%-26s %s\n' "UCP alone (raw_ucx_put)" "$(stats raw)"
read -r om ob <<<"$(stats ours)"
read -r rm rb <<<"$(stats raw)"
awk -v om="$om" -v ob="$ob" -v rm="$rm" -v rb="$rb" \
    'BEGIN { printf "latency, PlugSHMEM / UCP: median %.2f, best %.2f\n", om / rm, ob / rb }'
