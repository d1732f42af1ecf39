#!/bin/sh
# Misuse of shmemx requests (under SHMEM_DEBUG=1) and spaces (shmemx_misuse.c): every case
# ends the job (nonzero exit, within the timeout) with one line naming the
# routine and the mistake.  Then a plugin built for ABI 2.0 (tests/abi's
# abi20: no nbe ops, no seg_register) runs the nbe family by the quiet
# fallback and refuses a space it would have to carry.
# Usage: shmemx_misuse.sh OSHRUN PROGRAM ABI_PLUGIN_DIR SUITE_API
OSHRUN=$1
PROG=$2
ABI_DIR=$3
SUITE=$4
fail=0
check() { # case, expected text, SHMEM_DEBUG (default 1), one more VAR=value
    out=$(env SHMEM_DEBUG=${3:-1} ${4:-} timeout 60 "$OSHRUN" -n 2 "$PROG" "$1" 2>&1)
    rc=$?
    if [ $rc -eq 0 ] || [ $rc -eq 124 ]; then
        echo "FAIL $1 (SHMEM_DEBUG=${3:-1}): exit status $rc, expected an error"; echo "$out"; fail=1
    elif ! printf '%s\n' "$out" | grep -qF -- "$2"; then
        echo "FAIL $1: no line with '$2' in:"; echo "$out"; fail=1
    else
        echo "ok   $1: $(printf '%s\n' "$out" | grep -F -- "$2" | head -1)"
    fi
}
check wait-twice "shmemx_request_wait: *req was already completed or freed"
check test-freed "shmemx_request_test: *req was already completed or freed"
check merge-null "shmemx_request_merge: reqs[0] points to SHMEMX_REQUEST_NULL"
check null-req "shmemx_long_put_nbe: req is NULL"
check null-req "shmemx_long_put_nbe: req is NULL" 0
check alloc-active "shmemx_request_alloc: *req is an active request"
check space-cuda "shmemx_space_create: memkind SHMEMX_SPACE_CUDA needs accelerator support" 0
check space-destroy "shmemx_space_destroy: the space is attached; shmemx_space_detach it first" 0
check space-size "every PE must create it with the same sheap_size" 0
if [ -e "$ABI_DIR/transport-abi20.so" ]; then
    ABI20="SHMEM_TRANSPORT_PATH=$ABI_DIR SHMEM_TRANSPORT=abi20 SHMEM_BYPASS=0"
    check space-destroy "shmemx_space_attach: transport 'abi20' cannot register memory spaces" 0 "$ABI20"
    if out=$(env $ABI20 timeout 120 "$OSHRUN" -n 2 "$SUITE" nbe 2>&1); then
        echo "ok   nbe over the ABI 2.0 plugin abi20 (quiet fallback)"
    else
        echo "FAIL nbe over the ABI 2.0 plugin abi20:"; echo "$out"; fail=1
    fi
else
    echo "skip abi20 cases: $ABI_DIR/transport-abi20.so not built"
fi
exit $fail
