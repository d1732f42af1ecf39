#!/bin/sh
# raw_coll_check.sh TOOL: the raw N-process baselines (raw_ucx_coll,
# raw_ofi_coll) finish every shape at 2 and 4 processes and print a time,
# so that a floor the benchmarks show was measured, not lost.
tool=$1
for np in 2 4; do
    for shape in exchange doubling bcast; do
        out=$(timeout 60 "$tool" "$np" 50 64 "$shape" 2>&1) || {
            echo "$tool $np 50 64 $shape failed: $out" >&2
            exit 1
        }
        echo "$out" | grep -Eq "^raw .* $np processes: .* [0-9]+\.[0-9]+ us" || {
            echo "$tool $np 50 64 $shape printed no time: $out" >&2
            exit 1
        }
    done
done
if timeout 20 "$tool" 4 50 64 bogus >/dev/null 2>&1; then
    echo "$tool accepted the shape 'bogus'" >&2
    exit 1
fi
echo "$tool: every shape at 2 and 4 processes"
