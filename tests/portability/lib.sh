# Shared by the portability scripts: cases, results, one closing line.
#   check NAME CMD...   run CMD (output to the log), pass when it exits 0
#   expect_in NAME REGEX FILE
#   finish              "N passed, M failed, K skipped"; exit 1 on a failure
# PORT_LOG is the folder for each case's output (kept for CI's log).
pass=0 fail=0 skipped=0
PORT_LOG=${PORT_LOG:-$(mktemp -d /tmp/pshm-port.XXXXXX)}
mkdir -p "$PORT_LOG"

slug() { printf '%s' "$1" | tr -c 'A-Za-z0-9._-' '_'; }

ok() { pass=$((pass + 1)); echo "ok - $1"; }
not_ok() {
    fail=$((fail + 1))
    echo "FAIL - $1"
    [ -n "${2:-}" ] && [ -f "$2" ] && sed 's/^/    | /' "$2" | tail -n 40
    return 0
}
skip() { skipped=$((skipped + 1)); echo "skip - $1: $2"; }

# check NAME [--rc N | --fail] CMD...: CMD's status must be N (default 0);
# --fail: any failure but a timeout (124, from timeout(1)).
check() {
    local name=$1 want=0 log
    shift
    if [ "$1" = --rc ]; then want=$2; shift 2; fi
    if [ "$1" = --fail ]; then want=fail; shift; fi
    log=$PORT_LOG/$(slug "$name").log
    local t0=$SECONDS
    # In the background and waited for, so that a signal runs the caller's
    # traps at once instead of after the job.
    "$@" >"$log" 2>&1 </dev/null &
    wait $!
    local rc=$?
    if [ "$rc" = "$want" ] || { [ "$want" = fail ] && [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ]; }; then
        ok "$name ($((SECONDS - t0)) s)"
    else
        echo "exit status $rc, expected $want" >>"$log"   # (124: timed out)
        not_ok "$name" "$log"
    fi
    LAST_LOG=$log
    return 0
}

# expect_in NAME REGEX [FILE]: FILE (default: the last case's log) has a
# line matching REGEX (grep -E).
expect_in() {
    local file=${3:-$LAST_LOG}
    if grep -Eq -- "$2" "$file"; then ok "$1"; else not_ok "$1: no line matching '$2'" "$file"; fi
}

finish() {
    echo "$pass passed, $fail failed, $skipped skipped"
    [ "$fail" -eq 0 ]
}
