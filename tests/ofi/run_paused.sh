#!/bin/sh
# run_paused.sh RUN_OFI OSHRUN NP PROGRAM [ARGS...]
#
# Runs PROGRAM through run_ofi.sh (which checks for leftovers) while
# stopping its PEs one at a time for 0.1-0.3 s, again and again, until the
# job ends.  A PE that comes back finds its socket full and its peers
# retrying: the provider's recovery is what gets tested.
run_ofi=$1; shift
prog=$3
name=$(basename "$prog")
"$run_ofi" "$@" &
job=$!
(
    while kill -0 "$job" 2>/dev/null; do
        for p in $(pgrep -x "$name"); do
            kill -STOP "$p" 2>/dev/null
            sleep 0.$(( $(od -An -N1 -tu1 /dev/urandom) % 3 + 1 ))
            kill -CONT "$p" 2>/dev/null
        done
        sleep 0.05
    done
) &
pauser=$!
wait "$job"
rc=$?
kill "$pauser" 2>/dev/null
wait "$pauser" 2>/dev/null
for p in $(pgrep -x "$name"); do kill -CONT "$p" 2>/dev/null; done
exit $rc
