#!/usr/bin/env bash
# Bad-input tests: programs that misconfigure, exhaust, crash or abort,
# run under oshrun with 1, 2 and 4 PEs (and some without a launcher).
# For each run: the exact exit status, the expected one-line message on
# stderr (once, not once per PE, for configuration errors), and afterwards
# no process of the run left and no /dev/shm/psm-* object of the run left.
# Also shmem_info, SHMEM_INFO=1, SHMEM_VERSION=1, and the core library's
# dependencies.
#
# Usage: run_bad.sh OSHRUN PROGDIR [BUILDDIR]
#   OSHRUN    the launcher (if "", $OSHRUN from the environment; if that is
#             unset too, the runs under oshrun are skipped)
#   PROGDIR   folder of the bad_* programs (build/tests/bad)
#   BUILDDIR  top of the build tree (default $PLUGSHMEM_BUILD, else PROGDIR/../..)
# Prints "N passed, M failed"; exit 0 if none failed, 1 otherwise, 77 (skip)
# if oshrun was missing and nothing failed.

set -u

OSHRUN=${1:-${OSHRUN:-}} # until meson builds oshrun: OSHRUN=/path/to/oshrun meson test
PROGDIR=${2:?usage: run_bad.sh OSHRUN PROGDIR [BUILDDIR]}
BUILD=${3:-${PLUGSHMEM_BUILD:-$PROGDIR/../..}}
SRCDIR=$(cd "$(dirname "$0")/../.." && pwd)
# The transport ABI this library speaks, as the refusals name it.
abi_part() { sed -n "s/^#define PSHM_TRANSPORT_ABI_$1 \([0-9]*\)u$/\1/p" "$SRCDIR/core/transport.h"; }
ABI=$(abi_part MAJOR).$(abi_part MINOR)
case $OSHRUN in
"" | /*) ;;
*) [ -e "$OSHRUN" ] && OSHRUN=$(cd "$(dirname "$OSHRUN")" && pwd)/$(basename "$OSHRUN") ;;
esac
PROGDIR=$(cd "$PROGDIR" && pwd)
BUILD=$(cd "$BUILD" && pwd)
SHMEM_INFO_BIN=$BUILD/tools/shmem_info
FAKE_PLUGINS=$BUILD/tests/unit
ABI_PLUGINS=$BUILD/tests/abi
RANK_ENV=$SRCDIR/tests/bad/rank_env.sh
ANNOUNCE=$SRCDIR/tests/bad/announce.sh
TIMEOUT=60

pass=0 fail=0 skipped=0 runs=0
TMP=$(mktemp -d "${TMPDIR:-/tmp}/plugshmem-bad.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# Start from a clean environment as far as the library is concerned.
for v in $(env | sed -n 's/^\(SHMEM_[A-Za-z0-9_]*\)=.*/\1/p; s/^\(PLUGSHMEM_JOB_TAG\)=.*/\1/p; s/^\(PMIX_[A-Za-z0-9_]*\)=.*/\1/p'); do
    unset "$v"
done

# Every SHMEM_ variable the core reads: those it documents, those in the
# tables of core/config.c and collectives/coll_algos.h, and any the core or
# collectives getenv().
ALL_VARS="SHMEM_SYMMETRIC_SIZE SHMEM_TRANSPORT SHMEM_TRANSPORT_PATH SHMEM_BYPASS SHMEM_GLOBALS
SHMEM_WAIT_SPINS SHMEM_WAIT_SLEEP SHMEM_DEBUG SHMEM_INFO SHMEM_VERSION"
PLUGIN_VARS=""
if [ -d "$SRCDIR/core" ]; then
    ALL_VARS="$ALL_VARS $(cat "$SRCDIR"/core/*.c "$SRCDIR"/collectives/*.c 2>/dev/null |
        grep -oE 'getenv\("SHMEM_[A-Z0-9_]+"\)' | sed 's/.*"\(.*\)".*/\1/')"
    ALL_VARS="$ALL_VARS $(cat "$SRCDIR/core/config.c" "$SRCDIR/collectives/coll_algos.h" |
        grep -oE '^ *\{"SHMEM_[A-Z0-9_]+"' | tr -d ' {"')"
    # The settings of the plugins built (read through svc->getenv), which
    # their descriptors' tables must list for shmem_info.
    for d in "$SRCDIR"/transports/*/; do
        n=$(basename "$d")
        [ -e "$BUILD/transports/$n/transport-$n.so" ] &&
            PLUGIN_VARS="$PLUGIN_VARS $(cat "$d"*.c | grep -oE '"SHMEM_[A-Z0-9_]+"' | tr -d '"')"
    done
    PLUGIN_VARS=$(echo $PLUGIN_VARS | tr ' ' '\n' | sort -u)
fi
ALL_VARS=$(echo $ALL_VARS | tr ' ' '\n' | sort -u)
PLUGIN_VARS=$(comm -23 <(echo "$PLUGIN_VARS") <(echo "$ALL_VARS") | grep . )

ok()   { pass=$((pass + 1)); echo "ok   $CASE: $*"; }
bad()  { fail=$((fail + 1)); echo "FAIL $CASE: $*"; }
skip() { skipped=$((skipped + 1)); echo "skip $CASE: $*"; }

shown=0
show_output() {
    [ "$shown" = 1 ] && return
    shown=1
    echo "     --- status $status; stdout:"; sed 's/^/     | /' "$TMP/out" | head -20
    echo "     --- stderr:"; sed 's/^/     | /' "$TMP/err" | head -20
}

# run NAME NPES PROG [ARGS...]: environment settings in the array ENVS.
# NPES 0 runs PROG directly, without a launcher (a singleton PE).
# Sets status, and $TMP/out, $TMP/err.  Checks the leftovers.
ENVS=()
OSHRUN_OPTS=()
run() {
    CASE=$1
    local np=$2 prog=$3
    shift 3
    runs=$((runs + 1))
    shown=0
    local mark="plugshmem-bad-$$-$runs"
    local before after
    before=$(ls /dev/shm 2>/dev/null | grep '^psm-' | sort)
    if [ "$np" -gt 0 ]; then
        env ${ENVS[@]+"${ENVS[@]}"} PLUGSHMEM_BAD_MARK="$mark" \
            timeout -k 5 "$TIMEOUT" "$OSHRUN" -n "$np" ${OSHRUN_OPTS[@]+"${OSHRUN_OPTS[@]}"} "$prog" "$@" >"$TMP/out" 2>"$TMP/err"
    else
        # (the braces keep bash's own "Segmentation fault" notice quiet)
        { env ${ENVS[@]+"${ENVS[@]}"} PLUGSHMEM_BAD_MARK="$mark" \
            timeout -k 5 "$TIMEOUT" "$prog" "$@" >"$TMP/out" 2>"$TMP/err"; } 2>/dev/null
    fi
    status=$?
    after=$(ls /dev/shm 2>/dev/null | grep '^psm-' | sort)
    [ "$status" = 124 ] && echo "     (timed out after ${TIMEOUT}s)"

    # No process of the run is left (they carry the mark in their environment).
    local left
    left=$(grep -lzx "PLUGSHMEM_BAD_MARK=$mark" /proc/[0-9]*/environ 2>/dev/null |
        sed 's|/proc/\([0-9]*\)/environ|\1|' | grep -vx "$$" | tr '\n' ' ')
    if [ -z "$left" ]; then
        ok "no process left"
    else
        bad "processes left: $left($(for p in $left; do tr '\0' ' ' </proc/$p/cmdline 2>/dev/null; echo -n '; '; done))"
        for p in $left; do kill -KILL "$p" 2>/dev/null; done
    fi

    # No shared-memory object of the run is left: new psm-* entries that
    # carry this run's job tag (or, without a launcher, its pid).
    local new ours="" others="" f tags pids
    new=$(comm -13 <(echo "$before") <(echo "$after"))
    tags=$(sed -n 's/^jobtag=\([0-9a-zA-Z]*\) .*/\1/p' "$TMP/out" | grep -vx none | sort -u)
    pids=$(sed -n 's/^jobtag=.* pid=\([0-9]*\)$/\1/p' "$TMP/out" | sort -u)
    for f in $new; do
        local mine=0 t
        for t in $tags; do case $f in psm-$t-*) mine=1 ;; esac; done
        for t in $pids; do case $f in psm-p$t-*) mine=1 ;; esac; done
        [ -z "$tags$pids" ] && mine=1 # cannot tell: count it
        if [ $mine = 1 ]; then ours="$ours $f"; else others="$others $f"; fi
    done
    # Also anything of this job that existed before (a tag collision).
    for t in $tags; do
        for f in $after; do case $f in psm-$t-*) case " $ours " in *" $f "*) ;; *) ours="$ours $f" ;; esac ;; esac; done
    done
    if [ -z "$ours" ]; then
        ok "no /dev/shm/psm-* object left"
    else
        bad "/dev/shm objects left:$ours"
    fi
    [ -n "$others" ] && echo "     (new /dev/shm objects of other jobs, ignored:$others)"
    return 0
}

expect_status() {
    if [ "$status" = "$1" ]; then ok "exit status $1"; else bad "exit status $status, expected $1"; show_output; fi
}

# expect_once FILE TEXT: exactly one line of FILE contains TEXT (fixed string).
expect_once() {
    local n
    n=$(grep -cF -- "$2" "$TMP/$1")
    if [ "$n" = 1 ]; then
        ok "$1 has \"$2\" once"
    else
        bad "$1 has \"$2\" $n times, expected once"; show_output
    fi
}

# expect_count FILE N TEXT
expect_count() {
    local n
    n=$(grep -cF -- "$3" "$TMP/$1")
    if [ "$n" = "$2" ]; then ok "$1 has \"$3\" $2 times"; else bad "$1 has \"$3\" $n times, expected $2"; show_output; fi
}

# expect_line FILE KEY TEXT...: the line of FILE containing KEY also
# contains every TEXT.
expect_line() {
    local file=$1 key=$2 line t
    shift 2
    line=$(grep -F -- "$key" "$TMP/$file" | head -1)
    for t in "$@"; do
        case $line in
        *"$t"*) ok "message has \"$t\"" ;;
        *) bad "the $file line with \"$key\" lacks \"$t\": ${line:-(no such line)}" ;;
        esac
    done
}

# expect_match FILE ERE: some line matches (extended regexp)
expect_match() {
    if grep -qE -- "$2" "$TMP/$1"; then ok "$1 matches /$2/"; else bad "$1 does not match /$2/"; show_output; fi
}

expect_none() {
    if grep -qF -- "$2" "$TMP/$1"; then bad "$1 has \"$2\""; show_output; else ok "$1 lacks \"$2\""; fi
}

have_oshrun() {
    [ -n "$OSHRUN" ] && [ -x "$OSHRUN" ]
}

P=$PROGDIR

# ---------------------------------------------------------------------------
if have_oshrun; then

    # A good program first: anything failing here makes the rest moot.
    for np in 1 2 4; do
        ENVS=()
        run "hello np=$np" $np "$P/bad_hello"
        expect_status 0
        expect_count out $np "hello from PE"
        expect_count out $np ": ok"
        expect_none err "plugshmem"
    done

    # A PE outside an active set calls its collectives: no effect, and
    # under SHMEM_DEBUG one error line per such PE (PEs 0 and 2 of 4).
    ENVS=()
    run "non-member active-set calls np=4" 4 "$P/bad_nonmember"
    expect_status 0
    expect_count out 4 ": ok"
    expect_none err "plugshmem"
    ENVS=(SHMEM_DEBUG=1)
    run "non-member active-set calls SHMEM_DEBUG=1 np=4" 4 "$P/bad_nonmember"
    expect_status 0
    expect_count out 4 ": ok"
    expect_count err 2 "is not in the active set"
    expect_line err "PE 2 is not in the active set" "shmem_long_sum_to_all" "PE_start 1, logPE_stride 1, PE_size 2" "no effect"

    # Unknown transport: named, with the installed ones, once.
    for np in 1 2 4; do
        ENVS=(SHMEM_TRANSPORT=nosuch)
        run "unknown transport np=$np" $np "$P/bad_hello"
        expect_status 1
        expect_once err "SHMEM_TRANSPORT='nosuch'"
        expect_line err "SHMEM_TRANSPORT='nosuch'" "nosuch: not installed" "installed: " "shm"
        expect_none out "hello from PE"
    done
    ENVS=()
    OSHRUN_OPTS=(--transport nosuch)
    run "oshrun --transport nosuch np=2" 2 "$P/bad_hello"
    OSHRUN_OPTS=()
    expect_status 1
    expect_once err "SHMEM_TRANSPORT='nosuch'"
    expect_line err "SHMEM_TRANSPORT='nosuch'" "installed: " "shm"

    # A preference list falls through to an installed transport.
    ENVS=(SHMEM_TRANSPORT=nosuch,shm)
    run "SHMEM_TRANSPORT=nosuch,shm np=2" 2 "$P/bad_hello"
    expect_status 0
    expect_count out 2 ": ok"

    # Malformed heap size: variable, value and the accepted forms, once.
    for np in 1 2 4; do
        ENVS=(SHMEM_SYMMETRIC_SIZE=12Q)
        run "SHMEM_SYMMETRIC_SIZE=12Q np=$np" $np "$P/bad_hello"
        expect_status 1
        expect_once err "SHMEM_SYMMETRIC_SIZE='12Q'"
        expect_line err "SHMEM_SYMMETRIC_SIZE='12Q'" "is not a size" "K, M, G or T" "e.g. 512M"
        expect_none out "hello from PE"
    done

    # Other malformed settings, 2 PEs: each named once with what is accepted.
    for setting in "SHMEM_SYMMETRIC_SIZE=1.5G|K, M, G or T" \
                   "SHMEM_SYMMETRIC_SIZE=99999999999T|K, M, G or T" \
                   "SHMEM_SYMMETRIC_SIZE=-1|K, M, G or T" \
                   "SHMEM_SYMMETRIC_SIZE=0|is an empty heap; use a size from 1 byte to 64T" \
                   "SHMEM_DEBUG=maybe|use 1 or 0" \
                   "SHMEM_INFO=2|use 1 or 0" \
                   "SHMEM_VERSION=sure|use 1 or 0" \
                   "SHMEM_BYPASS=nope|use 1 or 0" \
                   "SHMEM_GLOBALS=xyz|use map or cma" \
                   "SHMEM_WAIT_SPINS=-3|integer from 0 to 1000000000" \
                   "SHMEM_WAIT_SPINS=lots|integer from 0 to 1000000000" \
                   "SHMEM_WAIT_SLEEP=1ms|integer from 0 to 1000000"; do
        kv=${setting%%|*} accepted=${setting#*|}
        name=${kv%%=*} value=${kv#*=}
        ENVS=("$kv")
        run "$kv np=2" 2 "$P/bad_hello"
        expect_status 1
        expect_once err "$name='$value'"
        expect_line err "$name='$value'" "$accepted"
    done

    # Plugin problems reach the user with their reason.
    if [ -e "$FAKE_PLUGINS/transport-broken.so" ]; then
        ENVS=(SHMEM_TRANSPORT_PATH="$FAKE_PLUGINS" SHMEM_TRANSPORT=broken)
        run "SHMEM_TRANSPORT=broken np=2" 2 "$P/bad_hello"
        expect_status 1
        expect_once err "SHMEM_TRANSPORT='broken'"
        expect_line err "SHMEM_TRANSPORT='broken'" "broken: cannot load" "undefined symbol" "installed: "
        ENVS=(SHMEM_TRANSPORT_PATH="$FAKE_PLUGINS" SHMEM_TRANSPORT=badabi)
        run "SHMEM_TRANSPORT=badabi np=2" 2 "$P/bad_hello"
        expect_status 1
        expect_once err "SHMEM_TRANSPORT='badabi'"
        expect_line err "SHMEM_TRANSPORT='badabi'" "built for transport ABI 999." "this library speaks ABI $ABI"
        # A plugin built for ABI 1 (as those written before ABI 2 are).
        ENVS=(SHMEM_TRANSPORT_PATH="$FAKE_PLUGINS" SHMEM_TRANSPORT=abi1)
        run "SHMEM_TRANSPORT=abi1 np=2" 2 "$P/bad_hello"
        expect_status 1
        expect_once err "SHMEM_TRANSPORT='abi1'"
        expect_line err "SHMEM_TRANSPORT='abi1'" "abi1: built for transport ABI 1.0, this library speaks ABI $ABI: rebuild the plugin"
        ENVS=(SHMEM_TRANSPORT_PATH="$FAKE_PLUGINS" SHMEM_TRANSPORT=unusable,shm)
        run "SHMEM_TRANSPORT=unusable,shm np=2" 2 "$P/bad_hello"
        expect_status 0
        expect_count out 2 ": ok"
        ENVS=(SHMEM_TRANSPORT_PATH="$FAKE_PLUGINS")
        run "fake plugins installed, no preference np=2" 2 "$P/bad_hello"
        expect_status 0
        expect_count out 2 ": ok"
        ENVS=(SHMEM_TRANSPORT_PATH="$FAKE_PLUGINS" SHMEM_TRANSPORT=dummy)
        run "transport whose init fails np=2" 2 "$P/bad_hello"
        expect_status 1
        expect_match err "transport 'dummy' .*failed to initialize"
    else
        CASE="fake plugins"; skip "$FAKE_PLUGINS/transport-broken.so not built"
    fi

    # A damaged plugin file (empty, random bytes, cut short) first on
    # SHMEM_TRANSPORT_PATH, hiding the install's shm: an error wherever it
    # would have been chosen, never a silent run on another transport.
    DMG=$TMP/damaged
    mkdir -p "$DMG"
    for kind in empty noise cut; do
        case $kind in
        empty) : >"$DMG/transport-shm.so"; what="damaged: empty file" ;;
        noise) head -c 8192 /dev/urandom | tr '\177' x >"$DMG/transport-shm.so"; what="damaged: not an ELF file" ;;
        cut) head -c 4096 "$BUILD/transports/shm/transport-shm.so" >"$DMG/transport-shm.so"
             what="damaged: cut short (4096 bytes)" ;;
        esac
        ENVS=(SHMEM_TRANSPORT_PATH="$DMG")
        run "damaged transport-shm.so ($kind) np=2" 2 "$P/bad_hello"
        expect_status 1
        expect_once err "transport 'shm' ($DMG/transport-shm.so) cannot be used: $what"
        expect_line err "transport 'shm' ($DMG/transport-shm.so)" \
            "it hides $BUILD/transports/shm/transport-shm.so" "name the transport with SHMEM_TRANSPORT"
        expect_none out "hello from PE"
    done
    ENVS=(SHMEM_TRANSPORT_PATH="$DMG" SHMEM_TRANSPORT=shm,ofi)
    run "damaged transport-shm.so, SHMEM_TRANSPORT=shm,ofi np=2" 2 "$P/bad_hello"
    expect_status 1
    expect_once err "SHMEM_TRANSPORT='shm,ofi': transport 'shm' ($DMG/transport-shm.so) cannot be used: damaged: cut short"
    expect_none out "hello from PE"
    if [ -e "$BUILD/transports/ofi/transport-ofi.so" ]; then
        # Not chosen: no matter.
        ENVS=(SHMEM_TRANSPORT_PATH="$DMG" SHMEM_TRANSPORT=ofi "FI_PROVIDER=tcp;ofi_rxm")
        run "damaged transport-shm.so, SHMEM_TRANSPORT=ofi np=2" 2 "$P/bad_hello"
        expect_status 0
        expect_count out 2 ": ok"
    fi
    CASE="shmem_info with a damaged transport-shm.so"
    SHMEM_TRANSPORT_PATH=$DMG timeout 10 "$SHMEM_INFO_BIN" >"$TMP/out" 2>"$TMP/err"
    status=$?
    expect_status 0
    expect_match out "^  shm +$DMG/transport-shm\.so$"
    expect_match out "^ +damaged: cut short \(4096 bytes\).*; it hides "
    expect_once out "Transport that would be selected: none: transport 'shm' ($DMG/transport-shm.so) cannot be used: damaged"
    rm -rf "$DMG"

    # A SHMEM_TRANSPORT_PATH folder that does not exist: a warning on PE 0.
    ENVS=(SHMEM_TRANSPORT_PATH=/nonexistent)
    run "SHMEM_TRANSPORT_PATH=/nonexistent np=2" 2 "$P/bad_hello"
    expect_status 0
    expect_count out 2 ": ok"
    expect_once err "plugshmem (PE 0): warning: SHMEM_TRANSPORT_PATH='/nonexistent': cannot open /nonexistent (No such file or directory); searching the other folders only"
    expect_count err 1 "SHMEM_TRANSPORT_PATH"

    # An ofi domain that no provider has: one line with the domains there
    # are, wherever ofi would have been chosen; a warning when it is not.
    if [ -e "$BUILD/transports/ofi/transport-ofi.so" ]; then
        for want in ofi ofi,shm; do # (run sets $t)
            ENVS=(SHMEM_TRANSPORT=$want SHMEM_OFI_DOMAIN=nonexistent "FI_PROVIDER=tcp;ofi_rxm")
            run "SHMEM_OFI_DOMAIN=nonexistent SHMEM_TRANSPORT=$want np=2" 2 "$P/bad_hello"
            expect_status 1
            expect_once err "SHMEM_TRANSPORT='$want': transport 'ofi' refused: SHMEM_OFI_DOMAIN='nonexistent' is not a domain of provider 'tcp;ofi_rxm'; use one of "
            expect_line err "SHMEM_OFI_DOMAIN='nonexistent'" "lo"
            expect_none out "hello from PE"
        done
        ENVS=(SHMEM_TRANSPORT=ofi SHMEM_OFI_DOMAIN=lo "FI_PROVIDER=tcp;ofi_rxm")
        run "SHMEM_OFI_DOMAIN=lo over tcp np=2" 2 "$P/bad_hello"
        expect_status 0
        expect_count out 2 ": ok"
        ENVS=(SHMEM_OFI_DOMAIN=nonexistent SHMEM_EMULATE_NODES=2)
        run "SHMEM_OFI_DOMAIN=nonexistent, two emulated nodes np=2" 2 "$P/bad_hello"
        expect_status 1
        expect_once err "transport 'ofi' refused: SHMEM_OFI_DOMAIN='nonexistent' is not a domain of the providers offered; use one of "
        ENVS=(SHMEM_OFI_DOMAIN=nonexistent)
        run "SHMEM_OFI_DOMAIN=nonexistent on shm np=2" 2 "$P/bad_hello"
        expect_status 0
        expect_count out 2 ": ok"
        expect_once err "plugshmem (PE 0): warning: transport 'shm' is in use, which does not read SHMEM_OFI_DOMAIN='nonexistent' (transport ofi)"
    fi

    # A transport's settings (its descriptor's table) are checked by the
    # core before the plugin starts: one line, as for the core's own.
    if [ -e "$BUILD/transports/ofi/transport-ofi.so" ]; then
        ENVS=(SHMEM_TRANSPORT=ofi SHMEM_PROGRESS_THREAD=maybe)
        run "SHMEM_PROGRESS_THREAD=maybe over ofi np=2" 2 "$P/bad_hello"
        expect_status 1
        expect_once err "SHMEM_PROGRESS_THREAD='maybe'"
        expect_line err "SHMEM_PROGRESS_THREAD='maybe'" "is not known; use auto, 1 or 0"
        expect_none out "hello from PE"
    fi

    # Plugin ABI 2 (tests/abi): over working fake plugins, with the bypass
    # off so that every put, get and AMO goes through them.
    if [ -e "$ABI_PLUGINS/transport-abi20.so" ]; then
        # Built for ABI 2.0: accepted; put_nbi/get_nbi absent, so the core
        # calls put/get; the 2.1 ops beyond its size are never read.
        ENVS=(SHMEM_TRANSPORT_PATH="$ABI_PLUGINS" SHMEM_TRANSPORT=abi20 SHMEM_BYPASS=0 ABI_PLUGIN_REPORT=1)
        run "ABI 2.0 plugin runs the rma and amo families np=2" 2 "$ANNOUNCE" "$BUILD/tests/prog/suite_api" rma amo
        expect_status 0
        expect_none err "FAIL"
        expect_none err "beyond this 2.0 table"
        # (one line per PE and family: rma, then amo; the rma family's 2
        # AMOs are shmem_finalize's notice to the other PE, core/init.c)
        expect_match out "^abi20 transport: PE 0: [1-9][0-9]* puts, [1-9][0-9]* gets, 2 AMOs$"
        expect_match out "^abi20 transport: PE 1: [1-9][0-9]* puts, 0 gets, [1-9][0-9]* AMOs$"
        if [ -x "$BUILD/tests/p2p/suite_p2p" ]; then
            ENVS=(SHMEM_TRANSPORT_PATH="$ABI_PLUGINS" SHMEM_TRANSPORT=abi20 SHMEM_BYPASS=0)
            run "ABI 2.0 plugin: put_signal falls back np=3" 3 "$ANNOUNCE" "$BUILD/tests/p2p/suite_p2p" signal
            expect_status 0
            expect_none err "beyond this 2.0 table"
        fi
        # Not PSHM_CAP_THREAD_SAFE: SHMEM_THREAD_MULTIPLE is not granted.
        run "thread level over a plugin that is not thread-safe np=2" 2 "$ANNOUNCE" "$BUILD/tests/abi/abi_thread_level"
        expect_status 0
        expect_once out "provided 2, queried 2"
        ENVS=(SHMEM_TRANSPORT=shm)
        run "thread level over shm np=2" 2 "$ANNOUNCE" "$BUILD/tests/abi/abi_thread_level"
        expect_status 0
        expect_once out "provided 3, queried 3"

        # An ops table without a mandatory op: refused at init, one line.
        for np in 1 2; do
            ENVS=(SHMEM_TRANSPORT_PATH="$ABI_PLUGINS" SHMEM_TRANSPORT=noget SHMEM_BYPASS=0)
            run "plugin without get np=$np" $np "$P/bad_hello"
            expect_status 1
            expect_once err "its ops table lacks get"
            expect_line err "its ops table lacks get" \
                "transport 'noget' ($ABI_PLUGINS/transport-noget.so): its ops table lacks get, which every transport must provide"
            expect_none out "hello from PE"
        done

        # svc->fatal on PE 1 while PE 0 waits in a barrier: the job ends
        # with the message and status 1.
        for np in 2 4; do
            ENVS=(SHMEM_TRANSPORT_PATH="$ABI_PLUGINS" SHMEM_TRANSPORT=fatal SHMEM_BYPASS=0)
            run "plugin calls fatal() np=$np" $np "$P/bad_hello"
            expect_status 1
            expect_once err "gives up on purpose"
            expect_line err "gives up on purpose" "plugshmem (PE 1): fatal transport: PE 1 gives up on purpose (put of 8 bytes to PE "
            expect_none out "hello from PE"
            expect_none err "killed by signal"
        done
    else
        CASE="ABI plugins"; skip "$ABI_PLUGINS/transport-abi20.so not built"
    fi

    # Heap exhaustion: NULL on every PE; under SHMEM_DEBUG=1 one report with
    # the size asked, what is free and the variable to raise.
    for np in 1 2 4; do
        ENVS=(SHMEM_DEBUG=1 SHMEM_SYMMETRIC_SIZE=1M)
        run "exhaustion SHMEM_DEBUG=1 np=$np" $np "$P/bad_exhaust" 2097152
        expect_status 0
        expect_count out $np "shmem_malloc(2097152) = NULL"
        expect_once err "shmem_malloc(2097152)"
        expect_line err "shmem_malloc(2097152)" "out of symmetric memory" "1048576 bytes free" \
            "largest free block 1048576" "raise SHMEM_SYMMETRIC_SIZE" "(now 1048576)"
        expect_once err "shmem_calloc("
    done
    ENVS=(SHMEM_SYMMETRIC_SIZE=1M)
    run "exhaustion without SHMEM_DEBUG np=2" 2 "$P/bad_exhaust" 2097152
    expect_status 0
    expect_count out 2 "shmem_malloc(2097152) = NULL"
    expect_none err "out of symmetric memory"
    # An empty heap is refused at shmem_init (it used to run and fail every
    # shmem_malloc), with or without SHMEM_DEBUG.
    ENVS=(SHMEM_DEBUG=1 SHMEM_SYMMETRIC_SIZE=0)
    run "empty heap SHMEM_SYMMETRIC_SIZE=0 np=2" 2 "$P/bad_exhaust" 1
    expect_status 1
    expect_once err "SHMEM_SYMMETRIC_SIZE='0' is an empty heap; use a size from 1 byte to 64T, e.g. 512M"
    expect_none err "shmem_malloc(1)"

    # A heap size so large that adding the library's internal area to it
    # overflows: a clean error, not a crash.
    for np in 1 2; do
        ENVS=(SHMEM_SYMMETRIC_SIZE=18446744073709551615)
        run "SHMEM_SYMMETRIC_SIZE=2^64-1 np=$np" $np "$P/bad_hello"
        expect_status 1
        expect_none err "killed by signal"
        expect_match err "SHMEM_SYMMETRIC_SIZE|cannot (map|size)"
    done
    ENVS=(SHMEM_SYMMETRIC_SIZE=100T)
    run "SHMEM_SYMMETRIC_SIZE=100T np=2" 2 "$P/bad_hello"
    expect_status 1
    expect_once err "SHMEM_SYMMETRIC_SIZE='100T' is too large"

    # Settings that differ between PEs (PE 1 only gets the variable).
    ENVS=()
    run "PE 1 only: SHMEM_SYMMETRIC_SIZE=12Q np=2" 2 "$RANK_ENV" 1 SHMEM_SYMMETRIC_SIZE=12Q "$P/bad_hello"
    expect_status 1
    expect_once err "SHMEM_SYMMETRIC_SIZE='12Q'"
    run "PE 1 only: SHMEM_TRANSPORT=nosuch np=2" 2 "$RANK_ENV" 1 SHMEM_TRANSPORT=nosuch "$P/bad_hello"
    expect_status 1
    expect_once err "SHMEM_TRANSPORT='nosuch'"
    run "PE 1 only: SHMEM_SYMMETRIC_SIZE=2M np=2" 2 "$RANK_ENV" 1 SHMEM_SYMMETRIC_SIZE=2M "$P/bad_hello"
    expect_status 1
    expect_match err "SHMEM_SYMMETRIC_SIZE differs between PEs"
    run "PE 1 only: SHMEM_BYPASS=0 np=2" 2 "$RANK_ENV" 1 SHMEM_BYPASS=0 "$P/bad_hello"
    expect_status 1
    expect_match err "SHMEM_BYPASS"
    run "PE 1 only: SHMEM_GLOBALS=cma np=2" 2 "$RANK_ENV" 1 SHMEM_GLOBALS=cma "$P/bad_hello"
    expect_status 0
    expect_count out 2 ": ok"

    # A PE dies of a signal: the job ends, naming the PE and the signal.
    for np in 2 4; do
        ENVS=()
        run "PE 1 SIGSEGV np=$np" $np "$P/bad_segv" 1
        expect_status 139
        expect_once err "killed by signal"
        expect_match err "PE 1 \(pid [0-9]+\) killed by signal 11 \((Segmentation fault|SIGSEGV)"
        expect_none out "not reached"
    done
    # The same over libfabric, which loads libpsm_infinipath: its SIGSEGV
    # handler blocks after printing unless the core turns it off.
    if [ -e "$BUILD/transports/ofi/transport-ofi.so" ]; then
        ENVS=(SHMEM_TRANSPORT=ofi "FI_PROVIDER=tcp;ofi_rxm")
        run "PE 1 SIGSEGV over ofi np=2" 2 "$P/bad_segv" 1
        expect_status 139
        expect_once err "killed by signal"
        expect_match err "PE 1 \(pid [0-9]+\) killed by signal 11"
    fi
    # The same over UCX, whose own SIGSEGV handler prints a backtrace and
    # must then let the PE die; UCX's shared-memory files
    # (/dev/shm/ucx_shm_posix_*) must not outlive the job either.
    if [ -e "$BUILD/transports/ucx/transport-ucx.so" ]; then
        for tls in sm tcp; do
            ucx_before=$(ls /dev/shm 2>/dev/null | grep '^ucx_' | sort)
            ENVS=(SHMEM_TRANSPORT=ucx SHMEM_BYPASS=0 UCX_TLS=$tls)
            run "PE 1 SIGSEGV over ucx ($tls) np=2" 2 "$P/bad_segv" 1
            expect_status 139
            expect_once err "killed by signal"
            expect_match err "PE 1 \(pid [0-9]+\) killed by signal 11"
            ucx_new=$(comm -13 <(echo "$ucx_before") <(ls /dev/shm 2>/dev/null | grep '^ucx_' | sort) | tr '\n' ' ')
            if [ -z "$ucx_new" ]; then ok "no /dev/shm/ucx_* object left"; else bad "UCX objects left in /dev/shm: $ucx_new"; fi
        done
    fi
    ENVS=()
    run "PE 0 SIGSEGV np=1" 1 "$P/bad_segv" 0
    expect_status 139
    expect_match err "PE 0 \(pid [0-9]+\) killed by signal 11"

    # shmem_global_exit(7) on one PE while the others are in a barrier.
    for np in 1 2 4; do
        who=1
        [ $np = 1 ] && who=0
        ENVS=()
        run "global_exit(7) on PE $who np=$np" $np "$P/bad_global_exit" $who 7
        expect_status 7
        expect_none out "not reached"
        expect_none out "returned from shmem_global_exit"
    done
    ENVS=()
    run "global_exit(0) on PE 1 np=2" 2 "$P/bad_global_exit" 1 0
    expect_status 0
    expect_none out "not reached"

    # shmem_global_exit from PE 0 while the others wait in wait_until.
    for np in 2 4; do
        ENVS=()
        run "global_exit(5) from PE 0, others in wait_until np=$np" $np "$P/bad_wait_exit" 5
        expect_status 5
        expect_none out "not reached"
    done
    ENVS=(SHMEM_WAIT_SPINS=0)
    run "global_exit(3) from PE 0, others yield-waiting np=4" 4 "$P/bad_wait_exit" 3
    expect_status 3

    # A PE that leaves without shmem_finalize ends the job with status 1.
    ENVS=()
    run "PE 1 exits without finalize np=2" 2 "$P/bad_nofinalize"
    expect_status 1
    expect_once err "without finalizing"
    expect_match err "PE 1 \(pid [0-9]+\) exited without finalizing"

    # A PE that exits (exit(0), so the implicit finalize at exit runs)
    # while the others go on to shmem_barrier_all: one line naming it, not
    # a hang; and a program whose PEs all return from main without
    # shmem_finalize still completes and exits 0.  Over shm and over a
    # network transport with the bypass off.
    OFI_ENVS=()
    [ -e "$BUILD/transports/ofi/transport-ofi.so" ] &&
        OFI_ENVS=(SHMEM_TRANSPORT=ofi "FI_PROVIDER=tcp;ofi_rxm" "SHMEM_OFI_PROVIDER=tcp;ofi_rxm" SHMEM_BYPASS=0)
    for tp in shm ofi; do
        if [ $tp = ofi ]; then
            [ ${#OFI_ENVS[@]} = 0 ] && continue
            base=("${OFI_ENVS[@]}")
        else
            base=(SHMEM_TRANSPORT=shm)
        fi
        ENVS=("${base[@]}")
        run "PE 2 exits without finalize, others in barrier_all, $tp np=4" 4 "$P/bad_exit_nofinalize" 2
        expect_status 1
        expect_once err "PE 2 exited without calling shmem_finalize"
        expect_line err "PE 2 exited without" "waits for it in shmem_barrier_all"
        expect_none out "not reached"
        expect_none err "killed by signal"
        run "every PE returns from main without finalize, $tp np=4" 4 "$P/bad_exit_nofinalize" return
        expect_status 0
        expect_count out 4 ": ok"
        expect_none err "plugshmem"

        # A PE outside the job, with SHMEM_DEBUG=0: one line, status 1.
        for c in "pe -1" "pe npes" "pe 1000000" "get -1" "get 1000000" "amo -1" "amo npes" "ctx_put 1000000"; do
            set -- $c
            ENVS=("${base[@]}" SHMEM_DEBUG=0)
            run "$1 to PE $2 (SHMEM_DEBUG=0), $tp np=4" 4 "$P/bad_misuse" $c
            expect_status 1
            pe=$2; [ "$pe" = npes ] && pe=4
            expect_once err "pe=$pe is out of range; this job has PEs 0 to 3"
            expect_none out "not stopped"
            expect_none err "killed by signal"
        done

        # Ranges past the end: of the heap with SHMEM_DEBUG=0 (and a heap
        # small enough that the copy would reach the library's own area),
        # of the allocation with SHMEM_DEBUG=1.
        ENVS=("${base[@]}" SHMEM_DEBUG=0 SHMEM_SYMMETRIC_SIZE=512K)
        run "1 MiB into shmem_malloc(16), 512K heap (SHMEM_DEBUG=0), $tp np=4" 4 "$P/bad_misuse" past_alloc
        expect_status 1
        expect_once err "shmem_putmem: dest"
        expect_line err "shmem_putmem: dest" "+ 1048576 bytes runs past the end of the symmetric heap (524288 bytes at"
        expect_none out "not stopped"
        ENVS=("${base[@]}" SHMEM_DEBUG=0 SHMEM_SYMMETRIC_SIZE=256M)
        run "64 B at shmem_malloc(16) + 256 MiB (SHMEM_DEBUG=0), $tp np=4" 4 "$P/bad_misuse" past_heap 268435456
        expect_status 1
        expect_line err "shmem_putmem: dest" "+ 64 bytes runs past the end of the symmetric heap (268435456 bytes at"
        expect_none out "not stopped"
        ENVS=("${base[@]}" SHMEM_DEBUG=1)
        run "1 MiB into shmem_malloc(16) (SHMEM_DEBUG=1), $tp np=4" 4 "$P/bad_misuse" past_alloc
        expect_status 1
        expect_line err "shmem_putmem: dest" "+ 1048576 bytes runs past the end of its allocation (64 bytes at"
        run "64 B past an allocation, in the heap (SHMEM_DEBUG=1), $tp np=4" 4 "$P/bad_misuse" past_heap 1048576
        expect_status 1
        expect_line err "shmem_putmem: dest" "+ 64 bytes is not in an allocation"
        run "broadcast of 4 KiB into shmem_malloc(16) (SHMEM_DEBUG=1), $tp np=4" 4 "$P/bad_misuse" coll_past_alloc
        expect_status 1
        expect_match err "shmem_broadcastmem: dest 0x[0-9a-f]+ \+ 4096 bytes runs past the end of its allocation \(64 bytes at"
        expect_none err "killed by signal"
    done
    ENVS=()

    # After shmem_finalize, every routine: one line per PE, no signal.
    for r in barrier_all quiet fence set_lock wait_until broadcast malloc ctx_create team_split_strided putmem; do
        ENVS=()
        run "shmem_$r after shmem_finalize np=2" 2 "$P/bad_misuse" "after:$r"
        expect_status 1
        expect_match err "shmem_(long_)?$r: called after shmem_finalize"
        expect_none out "returned"
        expect_none err "killed by signal"
    done

    # SHMEM_INFO=1: the shmem_info report, at init, on PE 0 only.
    ENVS=(SHMEM_INFO=1)
    run "SHMEM_INFO=1 np=2" 2 "$P/bad_hello"
    expect_status 0
    expect_once out "implementing OpenSHMEM"
    expect_once out "Transport in use: shm"
    expect_once out "Environment (name"
    for v in $ALL_VARS; do expect_once out "  $v "; done
    expect_match out "^  shm +/.*transport-shm\.so"
    expect_count out 2 ": ok"
    cp "$TMP/out" "$TMP/info_at_init"

    # SHMEM_VERSION=1: one line with the version, on PE 0 only.
    version=$("$SHMEM_INFO_BIN" -V 2>/dev/null | sed -n 's/^shmem_info (PlugSHMEM) \([^,]*\),.*/\1/p')
    for np in 1 2 4; do
        ENVS=(SHMEM_VERSION=1)
        run "SHMEM_VERSION=1 np=$np" $np "$P/bad_hello"
        expect_status 0
        expect_once out "PlugSHMEM ${version:-?} (OpenSHMEM 1.6), transport shm"
        expect_none out "implementing OpenSHMEM"
    done
    ENVS=(SHMEM_VERSION=1 SHMEM_INFO=1)
    run "SHMEM_VERSION=1 SHMEM_INFO=1 np=2" 2 "$P/bad_hello"
    expect_status 0
    expect_once out "PlugSHMEM ${version:-?}, implementing OpenSHMEM 1.6"
else
    CASE="oshrun runs"; skip "no oshrun ('$OSHRUN')"
fi

# ---------------------------------------------------------------------------
# Without a launcher: a singleton PE.
ENVS=()
run "singleton hello" 0 "$P/bad_hello"
expect_status 0
expect_count out 1 "hello from PE 0 of 1: ok"
ENVS=(SHMEM_TRANSPORT=nosuch)
run "singleton unknown transport" 0 "$P/bad_hello"
expect_status 1
expect_once err "SHMEM_TRANSPORT='nosuch'"
expect_line err "SHMEM_TRANSPORT='nosuch'" "installed: " "shm"
ENVS=(SHMEM_SYMMETRIC_SIZE=12Q)
run "singleton SHMEM_SYMMETRIC_SIZE=12Q" 0 "$P/bad_hello"
expect_status 1
expect_once err "SHMEM_SYMMETRIC_SIZE='12Q'"
expect_line err "SHMEM_SYMMETRIC_SIZE='12Q'" "K, M, G or T"
ENVS=(SHMEM_SYMMETRIC_SIZE=18446744073709551615)
run "singleton SHMEM_SYMMETRIC_SIZE=2^64-1" 0 "$P/bad_hello"
expect_status 1
expect_match err "SHMEM_SYMMETRIC_SIZE|cannot (map|size)"
ENVS=()
run "singleton SIGSEGV" 0 "$P/bad_segv" 0
expect_status 139
ENVS=()
run "singleton global_exit(7)" 0 "$P/bad_global_exit" 0 7
expect_status 7
# Before shmem_init, every routine: one line, no signal, with or without
# SHMEM_DEBUG.
for dbg in 0 1; do
    for r in barrier_all quiet fence set_lock wait_until broadcast malloc ctx_create team_split_strided putmem; do
        ENVS=(SHMEM_DEBUG=$dbg)
        run "shmem_$r before shmem_init SHMEM_DEBUG=$dbg" 0 "$P/bad_misuse" "before:$r"
        expect_status 1
        expect_match err "^plugshmem: shmem_(long_)?$r: called before shmem_init$"
        expect_none out "returned"
    done
done
ENVS=(SHMEM_DEBUG=1 SHMEM_SYMMETRIC_SIZE=64K)
run "singleton exhaustion" 0 "$P/bad_exhaust" 1048576
expect_status 0
expect_line err "shmem_malloc(1048576)" "65536 bytes free" "raise SHMEM_SYMMETRIC_SIZE"

# ---------------------------------------------------------------------------
# shmem_info
CASE="shmem_info"
if [ -x "$SHMEM_INFO_BIN" ]; then
    timeout -k 5 "$TIMEOUT" "$SHMEM_INFO_BIN" >"$TMP/out" 2>"$TMP/err"
    status=$?
    expect_status 0
    expect_once out "implementing OpenSHMEM 1.6"
    expect_match out "^  shm +/.*transport-shm\.so"
    expect_match out "^ +ABI [0-9]+\.[0-9]+, .*; usable$"
    expect_once out "Transport that would be selected: shm"
    for v in $ALL_VARS; do expect_once out "  $v "; done
    # A plugin setting is listed once per built plugin that reads it: the
    # ofi and ucx transports share SHMEM_PROGRESS_THREAD and _INTERVAL.
    for v in $PLUGIN_VARS; do
        n=0
        for d in "$SRCDIR"/transports/*/; do
            t=$(basename "$d")
            [ -e "$BUILD/transports/$t/transport-$t.so" ] && cat "$d"*.c | grep -qF "\"$v\"" &&
                n=$((n + 1))
        done
        expect_count out "$n" "  $v "
    done
    # SHMEM_INFO=1 printed the same tables.
    if [ -s "$TMP/info_at_init" ]; then
        for v in $ALL_VARS; do
            a=$(grep -E "^  $v " "$TMP/out" | awk '{print $1}')
            b=$(grep -E "^  $v " "$TMP/info_at_init" | awk '{print $1}')
            [ -n "$a" ] && [ "$a" = "$b" ] || bad "$v: shmem_info and SHMEM_INFO=1 differ"
        done
        a=$(sed -n '/^Transports/,/^Transport /p' "$TMP/out" | grep -v '^Transport ')
        b=$(sed -n '/^Transports/,/^Transport /p' "$TMP/info_at_init" | grep -v '^Transport ')
        if [ "$a" = "$b" ]; then ok "SHMEM_INFO=1 lists the same transports as shmem_info"
        else bad "transport lists differ:"; diff <(echo "$a") <(echo "$b") | sed 's/^/     /'; fi
    fi

    CASE="shmem_info -V"
    timeout 10 "$SHMEM_INFO_BIN" -V >"$TMP/out" 2>"$TMP/err"
    status=$?
    expect_status 0
    expect_match out "^shmem_info \(PlugSHMEM\) [0-9]+\.[0-9]+\.[0-9]+, OpenSHMEM 1\.6$"

    CASE="shmem_info --bogus"
    timeout 10 "$SHMEM_INFO_BIN" --bogus >"$TMP/out" 2>"$TMP/err"
    status=$?
    expect_status 2
    expect_once err "unknown argument '--bogus'"

    CASE="shmem_info SHMEM_TRANSPORT=nosuch"
    SHMEM_TRANSPORT=nosuch timeout 10 "$SHMEM_INFO_BIN" >"$TMP/out" 2>"$TMP/err"
    status=$?
    expect_status 0
    expect_line out "Transport that would be selected" "none" "SHMEM_TRANSPORT='nosuch'"

    CASE="shmem_info SHMEM_SYMMETRIC_SIZE=12Q"
    SHMEM_SYMMETRIC_SIZE=12Q timeout 10 "$SHMEM_INFO_BIN" >"$TMP/out" 2>"$TMP/err"
    status=$?
    expect_status 0
    expect_line out "Configuration error" "SHMEM_SYMMETRIC_SIZE='12Q'" "K, M, G or T"

    CASE="shmem_info with fake plugins"
    if [ -e "$FAKE_PLUGINS/transport-broken.so" ]; then
        SHMEM_TRANSPORT_PATH=$FAKE_PLUGINS timeout 10 "$SHMEM_INFO_BIN" >"$TMP/out" 2>"$TMP/err"
        status=$?
        expect_status 0
        expect_match out "^  dummy +$FAKE_PLUGINS/transport-dummy\.so"
        expect_match out "undefined symbol"
        expect_match out "ABI 999"
        expect_once out "Transport that would be selected: shm"
    fi
else
    bad "$SHMEM_INFO_BIN not built"
fi

# ---------------------------------------------------------------------------
# The core library needs no network or MPI library: those belong to plugins.
CASE="ldd libplugshmem.so"
lib=$BUILD/libplugshmem.so
if [ -e "$lib" ]; then
    deps=$(ldd "$lib" 2>&1)
    if echo "$deps" | grep -qiE 'libfabric|libuc[pstm]|libmpi|libopen-pal|libopen-rte|libpsm|libibverbs'; then
        bad "links $(echo "$deps" | grep -iE 'libfabric|libuc[pstm]|libmpi|libopen-pal|libopen-rte|libpsm|libibverbs' | awk '{print $1}' | tr '\n' ' ')"
    else
        ok "no libfabric, UCX, MPI or verbs"
    fi
    if echo "$deps" | grep -q 'not found'; then bad "unresolved: $(echo "$deps" | grep 'not found')"; else ok "every dependency resolves"; fi
else
    bad "$lib not found"
fi

if [ "$skipped" -gt 0 ]; then
    echo "$pass passed, $fail failed ($skipped skipped)"
else
    echo "$pass passed, $fail failed"
fi
[ "$fail" -gt 0 ] && exit 1
[ "$skipped" -gt 0 ] && exit 77
exit 0
