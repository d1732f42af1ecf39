# Shared by test_hydra.sh and test_oshrun_pmi.sh (sourced): cases, runs
# under `timeout 40` (generous: the machine may be shared), expectations,
# and the leftover checks.
#
# A case is begin NAME ... end. Each run passes the case's unique $marker
# as an argument to its processes; `end` checks that no process carrying
# it is left, and that no /dev/shm object of the run's PEs is left: the
# probes print "probe pid P" before shmem_init, and PlugSHMEM names its
# objects psm-pP-* without oshrun (libfabric's shm provider: P:*).

WORK=$(mktemp -d "${TMPDIR:-/tmp}/test_launch.XXXXXX") || exit 2
MARK="launch-test-$$-$RANDOM"
OUT="$WORK/out"
ERR="$WORK/err"

cleanup() {
    pkill -KILL -f -- "$MARK" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

passed=0 failed=0 skipped=0 case_no=0 case_name= case_errs= marker= rc=0 ms=0

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

begin() {
    case_no=$((case_no + 1))
    case_name=$1
    case_errs=
    marker="$MARK.c$case_no"
    : >"$OUT"
    : >"$ERR"
}

bad() { case_errs+="    $*"$'\n'; }

skip_case() {
    skipped=$((skipped + 1))
    printf 'skip %2d %s: %s\n' "$case_no" "$case_name" "$*"
    case_name=
}

# run CMD...: sets $rc and $ms; stdout in $OUT, stderr in $ERR
run() {
    local t0
    t0=$(now_ms)
    timeout 40 "$@" >"$OUT" 2>"$ERR" </dev/null
    rc=$?
    ms=$(( $(now_ms) - t0 ))
}

expect_rc() {
    if [ "$rc" -eq 124 ]; then
        bad "timed out (hang?), expected exit status $1"
    elif [ "$rc" -ne "$1" ]; then
        bad "exit status $rc, expected $1"
    fi
}

expect_failed() {
    if [ "$rc" -eq 124 ]; then
        bad "timed out (hang?), expected the job to fail"
    elif [ "$rc" -eq 0 ]; then
        bad "exit status 0, expected a failure"
    fi
}

# expect_line REGEX: some line of stdout matches (extended regex, whole line)
expect_line() { grep -Eqx -- "$1" "$OUT" || bad "no stdout line matching: $1"; }
expect_no_line() { ! grep -Eq -- "$1" "$OUT" || bad "unexpected stdout line matching: $1"; }
expect_err() { grep -Eqx -- "$1" "$ERR" || bad "no stderr line matching: $1"; }
expect_err_empty() { [ ! -s "$ERR" ] || bad "stderr not empty"; }

# expect_err_once REGEX: exactly one stderr line matches
expect_err_once() {
    local c
    c=$(grep -Ec -- "$1" "$ERR")
    [ "$c" -eq 1 ] || bad "$c stderr lines match '$1', expected 1"
}

# expect_pes N LOCAL TRANSPORT BOOTSTRAP: every PE of N printed its probe
# line once, with that locality, transport and bootstrap; mapped = LOCAL
expect_pes() {
    local n=$1 local=$2 tp=$3 boot=$4 r c
    for ((r = 0; r < n; r++)); do
        c=$(grep -cEx "probe PE $r of $n: local $local mapped $local transport $tp bootstrap $boot" "$OUT")
        [ "$c" -eq 1 ] || bad "PE $r: $c lines 'probe PE $r of $n: local $local mapped $local transport $tp bootstrap $boot'"
    done
    c=$(grep -c '^probe PE ' "$OUT")
    [ "$c" -eq "$n" ] || bad "$c probe lines, expected $n"
}

check_leftovers() {
    local i left pid shm=
    for ((i = 0; i < 40; i++)); do
        left=$(pgrep -f -- "$marker") || break
        sleep 0.05
    done
    if [ -n "${left:-}" ]; then
        bad "processes left running: $(echo $left)"
        pkill -KILL -f -- "$marker" 2>/dev/null
    fi
    for pid in $(sed -n 's/^probe pid \([0-9]*\)$/\1/p' "$OUT"); do
        shm+=$(ls /dev/shm 2>/dev/null | grep -E "^(psm-p$pid-|$pid:)" | tr '\n' ' ')
    done
    [ -z "$shm" ] || bad "/dev/shm objects left: $shm"
}

end() {
    [ -n "$case_name" ] || return 0     # skipped
    check_leftovers
    if [ -z "$case_errs" ]; then
        passed=$((passed + 1))
        printf 'ok   %2d %s (%d ms)\n' "$case_no" "$case_name" "$ms"
    else
        failed=$((failed + 1))
        printf 'FAIL %2d %s (%d ms)\n%s' "$case_no" "$case_name" "$ms" "$case_errs"
        echo "    --- stdout:"; sed 's/^/    | /' "$OUT" | head -20
        echo "    --- stderr:"; sed 's/^/    | /' "$ERR" | head -20
    fi
}

# finish: the summary and the exit status (77: everything skipped)
finish() {
    echo "$passed passed, $failed failed, $skipped skipped"
    if [ "$failed" -ne 0 ]; then
        exit 1
    fi
    [ "$passed" -eq 0 ] && exit 77
    exit 0
}
