#!/bin/bash
# coll_refusals.sh SHMEM_INFO OLD_SO WORK
#
# Collectives components are refused as transports are (core/loader.c),
# one line each: a 1.0 file by its version, a damaged file, an unknown
# name with the names found, and under auto a damaged file met first.
set -u
info=$1 old=$2 work=$3/coll-refusals
fails=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fails=$((fails + 1)); }
expect() { # NAME SHMEM_COLLECTIVES PATTERN
    local out
    out=$(SHMEM_COLLECTIVES=$2 "$info" 2>&1 | sed -n '/^Collectives/,/^$/p')
    if grep -qF -- "$3" <<<"$out"; then ok "$1"; else bad "$1: want '$3'"; echo "$out"; fi
}

rm -rf "$work"
mkdir -p "$work/a" "$work/b"
cp "$old" "$work/a/coll-old.so" || { echo "FAIL no $old"; exit 1; }
: >"$work/a/coll-empty.so"
export SHMEM_TRANSPORT_PATH=$work/a
unset SHMEM_TRANSPORT
expect "listed" native "components found: empty ($work/a/coll-empty.so), old ($work/a/coll-old.so)"
expect "1.0 refused by its version" old \
    "not usable: SHMEM_COLLECTIVES=old: $work/a/coll-old.so cannot be used: built for collectives interface 1.0, this library speaks ABI 2.1"
expect "damaged" empty "SHMEM_COLLECTIVES=empty: $work/a/coll-empty.so cannot be used: damaged: empty file"
expect "unknown name" bogus "SHMEM_COLLECTIVES='bogus' is not known; use one of native, empty, "
expect "auto stops at a damaged file" auto \
    "SHMEM_COLLECTIVES=auto: empty ($work/a/coll-empty.so) cannot be used: damaged: empty file; repair or remove the file"

# Without them, auto passes over a 1.0 file to the next (a component with
# rules where MPICH is built, else no component with rules).
rm "$work/a/coll-empty.so"
out=$(SHMEM_COLLECTIVES=auto "$info" 2>&1 | sed -n '/^Collectives/,/^$/p')
if grep -q '^  component .*/coll-[a-z]*\.so$' <<<"$out" ||
   grep -qF "no collectives component gives auto rules (old: built for collectives interface 1.0" <<<"$out"; then
    ok "auto passes over a refused file"
else
    bad "auto and a refused file"; echo "$out"
fi
[ $fails = 0 ] && rm -rf "$work"
echo "$fails failed"
[ $fails = 0 ]
