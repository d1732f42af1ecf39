#!/bin/bash
# foreign_client.sh OSHRUN BAD_PEER_KILLED PMIX_INTRUDER
#
# Issue 25, row 10: what protects oshrun's PMIx server (TCP on 127.0.0.1)
# from the machine's other users. While a 2-PE job runs, uid 65534 tries
# to join it with PMIx_Init under a namespace of the old shape (oshrun.TAG,
# the tag being public in /dev/shm's names), under the job's real
# namespace (as if it had leaked) as rank 0 and as a rank outside the job,
# and sends random bytes and a silent connection to the port. Every try
# must be refused without reading anything, and the job must end well.
# A control run then shows that the same client, as the job's user and
# with the real namespace, does get in (so the refusals mean something).
# Needs root (to run as another uid and read a PE's environment): else 77.
OSHRUN=$1 PROG=$2 INTRUDER=$3
[ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null || { echo "skip: needs root and setpriv"; exit 77; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/foreign.XXXXXX") || exit 2
chmod 755 "$WORK"
cp "$INTRUDER" "$WORK/intruder" && chmod 755 "$WORK/intruder"
job=
cleanup() { [ -n "$job" ] && kill -KILL "$job" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
failed=0
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
as_nobody() { "${NOBODY[@]}" "$@"; }

# start_job SECONDS: a 2-PE job in the background; sets job, pe0, penv
start_job() {
    : >"$WORK/out"      # now: the job's redirection may come after the first look
    "$OSHRUN" -n 2 "$PROG" "$1" >"$WORK/out" 2>"$WORK/err" </dev/null &
    job=$!
    for ((t = 0; t < 600; t++)); do
        [ "$(grep -c 'in the put loop' "$WORK/out")" -ge 2 ] && break
        sleep 0.1
    done
    pe0=$(sed -n 's/^PE 0 pid \([0-9]*\) in the put loop$/\1/p' "$WORK/out")
    [ -n "$pe0" ] || return
    tr '\0' '\n' <"/proc/$pe0/environ" | grep -E '^(PMIX_|PLUGSHMEM_JOB_TAG=)' >"$WORK/penv"
}
pvar() { sed -n "s/^$1=//p" "$WORK/penv"; }

# intrude NAME NSPACE RANK [RUNNER...]: PMIx_Init with the job's server URI
intrude() {
    local name=$1 ns=$2 rank=$3
    shift 3
    mapfile -t uris < <(grep '^PMIX_SERVER_URI' "$WORK/penv")
    timeout 30 "$@" env -i PATH=/usr/bin:/bin "${uris[@]}" PMIX_NAMESPACE="$ns" \
        PMIX_RANK="$rank" PMIX_SECURITY_MODE=native PMIX_GDS_MODULE=hash \
        PMIX_BFROP_BUFFER_TYPE="$(pvar PMIX_BFROP_BUFFER_TYPE)" \
        "$WORK/intruder" >"$WORK/intr" 2>&1
    echo "$name: exit $? $(head -c 200 "$WORK/intr" | tr '\n' '|')"
}

start_job 8
[ -n "$pe0" ] || { fail "the job did not start"; cat "$WORK/err"; exit 1; }
ns=$(pvar PMIX_NAMESPACE) tag=$(pvar PLUGSHMEM_JOB_TAG)
port=$(pvar PMIX_SERVER_URI4 | sed -n 's/.*tcp4:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p')
[ -n "$ns" ] && [ -n "$port" ] || fail "no namespace or port in PE 0's environment"
case $ns in *"$tag"*) fail "the namespace $ns contains the public job tag $tag" ;; esac

for c in "old-shape oshrun.$tag 0" "real-namespace $ns 0" "outside-rank $ns 7"; do
    set -- $c
    line=$(intrude "$1" "$2" "$3" "${NOBODY[@]}")
    echo "$line"
    grep -q '^refused: ' "$WORK/intr" || fail "$1: not refused"
    grep -Eq '^(joined|read|published)' "$WORK/intr" && fail "$1: got in"
done
as_nobody bash -c "head -c 65536 /dev/urandom >/dev/tcp/127.0.0.1/$port" 2>/dev/null
as_nobody bash -c "exec 3<>/dev/tcp/127.0.0.1/$port; sleep 3" 2>/dev/null &
wait "$job"
rc=$? job=
[ "$rc" -eq 0 ] || fail "the job ended with status $rc, expected 0"
[ "$(grep -c 'in the put loop' "$WORK/out")" -eq 2 ] || fail "the job's output is not whole"
[ -s "$WORK/err" ] && { fail "the job wrote to stderr:"; sed 's/^/    /' "$WORK/err"; }
wait

# Control: the job's own user with the real namespace gets in (and, with
# the abort it then sends, ends the job with its status, 42).
start_job 20
ns=$(pvar PMIX_NAMESPACE)
[ -n "$pe0" ] || { fail "control: the job did not start"; cat "$WORK/out" "$WORK/err"; }
line=$(intrude control "$ns" 1)
echo "$line"
grep -q '^joined' "$WORK/intr" || fail "control: the job's own user did not get in"
wait "$job"
rc=$? job=
[ "$rc" -eq 42 ] || fail "control: job status $rc, expected 42 (the intruder's abort)"
echo "foreign_client: $failed failed"
[ "$failed" -eq 0 ]
