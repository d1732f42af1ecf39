#!/bin/bash
# Instructions per 8-byte put + quiet through PlugSHMEM's ofi plugin and
# through libfabric alone (raw_ofi_put), counted by callgrind, split into
# what libfabric (and the libc it calls) executes and what the program
# above it executes.  The difference of the second column is our overhead.
#
#   bench/ofi/icount_ofi.sh [PROVIDER] [ITERATIONS]     (default shm, 2000)
#
# Counts are repeatable for one binary and provider; on providers where the
# initiator polls while waiting for an acknowledgement (tcp;ofi_rxm) the
# libfabric column varies with the number of polls.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${PLUGSHMEM_BUILD:-$here/../../build}
prov=${1:-shm}
n=${2:-2000}
window=256
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Sums callgrind's self cost per object, per call: libfabric + libc vs the
# rest (the benchmark loop, PlugSHMEM or nothing).
split() {
    callgrind_annotate --inclusive=no "$1" 2>/dev/null | awk -v n="$2" '
        /^ *[0-9,]+ +\(/ {
            c = $1; gsub(",", "", c)
            if ($0 ~ /PROGRAM TOTALS/) { total = c; next }
            if ($NF ~ /libfabric|libc\.so|libpthread|ld-linux/) below += c
        }
        END { printf "%8.1f %8.1f %8.1f", total / n, below / n, (total - below) / n }'
}

# ours TOGGLE: callgrind on PE 0 of ofi_put; raw TOGGLE: on raw_ofi_put.
ours() {
    SHMEM_TRANSPORT=ofi SHMEM_BYPASS=0 FI_PROVIDER="$prov" \
        "$build/tools/oshrun" -n 2 sh -c '
        if [ "$PMIX_RANK" = 0 ]; then
            exec valgrind -q --tool=callgrind --toggle-collect='"$1"' \
                --callgrind-out-file='"$out/$1"'.%p "$0" '"$n $window"'
        else
            exec "$0" '"$n $window"'
        fi' "$build/bench/ofi/ofi_put" >/dev/null
    ls -S "$out/$1".* | head -1
}
raw() {
    FI_PROVIDER="$prov" valgrind -q --tool=callgrind --toggle-collect="$1" \
        --callgrind-out-file="$out/$1.%p" "$build/bench/ofi/raw_ofi_put" "$n" "$window" >/dev/null
    ls -S "$out/$1".* | head -1 # the parent; the forked target collected nothing
}

# Each loop also runs a tenth (put+quiet) or 4 windows (put_nbi) as warm-up.
pq=$((n + n / 10))
nbi=$((4 * n + 4 * window))
printf '%-40s %8s %8s %8s\n' "provider $prov, instructions per call" total libfabric above
printf '%-40s %s\n' "put8+quiet  PlugSHMEM" "$(split "$(ours put_quiet_loop)" $pq)"
printf '%-40s %s\n' "            libfabric alone" "$(split "$(raw raw_put_quiet_loop)" $pq)"
printf '%-40s %s\n' "put_nbi 8 B PlugSHMEM (quiet per $window)" "$(split "$(ours put_nbi_loop)" $nbi)"
printf '%-40s %s\n' "            libfabric alone" "$(split "$(raw raw_put_nbi_loop)" $nbi)"
