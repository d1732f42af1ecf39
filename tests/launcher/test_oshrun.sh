#!/usr/bin/env bash
# Tests of the oshrun launcher.
#
#   test_oshrun.sh OSHRUN PROBE
#
# OSHRUN is the oshrun binary, PROBE the pmix_probe test client. Every run
# is wrapped in `timeout 20`, so a hang fails its case instead of hanging the
# suite. After each case the suite checks that no process of that case is
# left (each case passes a unique marker argument to its PEs), that oshrun's
# private temp dir is gone and that no /dev/shm/psm-<tag>-* object of the
# case's jobs remains (other jobs on the machine may come and go: oshrun
# runs with OSHRUN_DEBUG=1, its job tags are read from the trace and the
# trace is taken out of stderr unless the case asked for it).
# Prints "N passed, M failed" and exits non-zero if any case failed.
set -u

if [ $# -ne 2 ]; then
    echo "usage: $0 OSHRUN PROBE" >&2
    exit 2
fi
OSHRUN=$(realpath "$1") || exit 2
PROBE=$(realpath "$2") || exit 2
for f in "$OSHRUN" "$PROBE"; do
    [ -x "$f" ] || { echo "$0: $f is not executable" >&2; exit 2; }
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/test_oshrun.XXXXXX") || exit 2
MARK="oshrun-test-$$-$RANDOM"
mkdir "$WORK/tmp"
export TMPDIR="$WORK/tmp"         # oshrun makes its private dir in here
SLEEP=$(command -v sleep)
OUT="$WORK/out"
ERR="$WORK/err"

cleanup() {
    pkill -KILL -f -- "$MARK" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

passed=0
failed=0
case_no=0
case_name=
case_errs=
case_tags=
marker=
rc=0
ms=0

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# begin NAME: start a case; sets $marker
begin() {
    case_no=$((case_no + 1))
    case_name=$1
    case_errs=
    case_tags=
    marker="$MARK.c$case_no"
    # a sleep whose command line carries the marker, for shell-script PEs
    ln -sf "$SLEEP" "$WORK/sleep-$marker"
}

bad() { case_errs+="    $*"$'\n'; }

# after_run: note the job's tag; keep the debug trace in $ERR only if the
# case set OSHRUN_DEBUG itself. oshrun's stderr went to $ERR.raw.
after_run() {
    case_tags+=" $(sed -n 's/^oshrun\[debug\]: job oshrun\.\([0-9a-f]*\),.*/\1/p' \
                   "$ERR.raw")"
    if [ -n "${1:-}" ]; then
        cp "$ERR.raw" "$ERR"
    else
        grep -v '^oshrun\[debug\]: ' "$ERR.raw" >"$ERR"
    fi
}

# run ARGS...: run oshrun under timeout; sets $rc and $ms
run() {
    local t0 want_dbg=${OSHRUN_DEBUG:-}
    t0=$(now_ms)
    OSHRUN_DEBUG=1 timeout 20 "$OSHRUN" "$@" >"$OUT" 2>"$ERR.raw" </dev/null
    rc=$?
    ms=$(( $(now_ms) - t0 ))
    after_run "$want_dbg"
}

expect_rc() {
    if [ "$rc" -ne "$1" ]; then
        if [ "$rc" -eq 124 ]; then
            bad "timed out (hang?), expected exit status $1"
        else
            bad "exit status $rc, expected $1"
        fi
    fi
}

# expect_err REGEX: some stderr line matches (extended regex, whole line)
expect_err() {
    grep -Eqx -- "$1" "$ERR" || bad "no stderr line matching: $1"
}
expect_no_err() {
    ! grep -Eq -- "$1" "$ERR" || bad "unexpected stderr line matching: $1"
}
expect_err_empty() {
    [ ! -s "$ERR" ] || bad "stderr not empty"
}
expect_out_line() {
    grep -Fqx -- "$1" "$OUT" || bad "no stdout line: $1"
}

# expect_ok_lines N: every rank printed its ok line exactly once
expect_ok_lines() {
    local n=$1 r c
    for ((r = 0; r < n; r++)); do
        c=$(grep -cFx "probe rank $r of $n ok" "$OUT")
        [ "$c" -eq 1 ] || bad "rank $r printed its ok line $c times"
    done
    c=$(grep -c '^probe rank' "$OUT")
    [ "$c" -eq "$n" ] || bad "$c ok lines, expected $n"
}

# No process of this case, no temp dir and no /dev/shm/psm-<tag>-* object of
# its jobs left.
check_leftovers() {
    local i left shm pat
    for ((i = 0; i < 40; i++)); do
        left=$(pgrep -f -- "$marker") || break
        sleep 0.05
    done
    if [ -n "${left:-}" ]; then
        bad "processes left running: $(echo $left)"
        pkill -KILL -f -- "$marker" 2>/dev/null
    fi
    if [ -n "$(ls -A "$TMPDIR")" ]; then
        bad "temp dir left: $(ls -A "$TMPDIR" | tr '\n' ' ')"
        rm -rf "${TMPDIR:?}"/*
    fi
    pat=$(echo $case_tags | tr ' ' '|')
    shm=
    if [ -n "$pat" ]; then
        shm=$(ls /dev/shm 2>/dev/null | grep -E "^psm-($pat)-")
    fi
    if [ -n "$shm" ]; then
        bad "/dev/shm objects left: $(echo $shm)"
    fi
}

# end: report the case
end() {
    check_leftovers
    if [ -z "$case_errs" ]; then
        passed=$((passed + 1))
        printf 'ok   %2d %s (%d ms)\n' "$case_no" "$case_name" "$ms"
    else
        failed=$((failed + 1))
        printf 'FAIL %2d %s (%d ms)\n%s' "$case_no" "$case_name" "$ms" \
            "$case_errs"
        echo "    --- stdout:"; sed 's/^/    | /' "$OUT" | head -20
        echo "    --- stderr:"; sed 's/^/    | /' "$ERR" | head -20
    fi
}

# ---- normal runs -----------------------------------------------------------

for n in 1 2 4 8 16; do
    begin "$n PEs, normal exit"
    run -n "$n" "$PROBE" "" "$marker"
    expect_rc 0
    expect_ok_lines "$n"
    expect_err_empty
    end
    if [ "$n" -eq 16 ]; then
        echo "     16-PE launch to finalize (init, fence, gets): $ms ms"
    fi
done

begin "-np form, 3 PEs"
run -np 3 "$PROBE" "" "$marker"
expect_rc 0
expect_ok_lines 3
end

begin "16 PEs, 20 runs in a row, never misreported"
t0=$(now_ms)
for ((k = 0; k < 20; k++)); do
    run -n 16 "$PROBE" "" "$marker"
    if [ "$rc" -ne 0 ] || [ -s "$ERR" ]; then
        bad "run $k: exit status $rc"
        break
    fi
    expect_ok_lines 16
done
ms=$(( $(now_ms) - t0 ))
end

# ---- failing PEs -----------------------------------------------------------

begin "PE exits with status 5"
run -n 4 "$PROBE" exit:5 "$marker"
expect_rc 5
expect_err "oshrun: PE 1 \(pid [0-9]+\) exited with status 5; ending the job"
[ "$(wc -l <"$ERR")" -eq 1 ] || bad "expected exactly one stderr line"
end

begin "PE killed by SIGSEGV"
run -n 4 "$PROBE" crash "$marker"
expect_rc 139
expect_err "oshrun: PE 1 \(pid [0-9]+\) killed by signal 11 \(Segmentation fault\); ending the job"
[ "$(wc -l <"$ERR")" -eq 1 ] || bad "expected exactly one stderr line"
end

begin "PMIx_Abort(7, \"\") while the others block in a fence"
run -n 4 "$PROBE" abort:7 "$marker"
expect_rc 7
expect_err_empty
end

begin "PMIx_Abort(3, msg), 16 PEs"
run -n 16 "$PROBE" "abort:3:custom message" "$marker"
expect_rc 3
expect_err "oshrun: PE 1 aborted the job: custom message"
[ "$(wc -l <"$ERR")" -eq 1 ] || bad "expected exactly one stderr line"
end

# PMIx 4.2.2 can complete a fence twice when PEs waiting in it die, and
# then works on freed memory in its progress thread: oshrun halts that
# thread before it signals the PEs. First the order, from the debug trace.
begin "PMIx server halted before the PEs are signalled"
OSHRUN_DEBUG=1 run -n 4 "$PROBE" abort:7 "$marker"
expect_rc 7
halt=$(grep -nFx 'oshrun[debug]: PMIx progress thread halted (status 0)' \
       "$ERR" | cut -d: -f1)
kill=$(grep -n '^oshrun\[debug\]: ending the job: signal' "$ERR" | cut -d: -f1)
if [ -z "$halt" ] || [ -z "$kill" ] || [ "$halt" -ge "$kill" ]; then
    bad "no halt of the PMIx progress thread before the PEs were signalled"
fi
end

# Then the crash itself: it hit about 1 run in 25 with freed memory poisoned
# (MALLOC_PERTURB_), in oshrun as in the PEs.
begin "PMIx_Abort mid-fence, 16 PEs, 40 runs with freed memory poisoned"
t0=$(now_ms)
for ((k = 0; k < 40; k++)); do
    MALLOC_PERTURB_=85 run -n 16 "$PROBE" "abort:3:custom message" "$marker"
    if [ "$rc" -ne 3 ] ||
       [ "$(cat "$ERR")" != "oshrun: PE 1 aborted the job: custom message" ]
    then
        bad "run $k: exit status $rc, expected 3 and one stderr line"
        break
    fi
done
ms=$(( $(now_ms) - t0 ))
end

begin "PMIx_Abort(0, msg) ends the job with status 0"
run -n 3 "$PROBE" "abort:0:bye" "$marker"
expect_rc 0
expect_err "oshrun: PE 1 aborted the job: bye"
end

begin "PE exits 0 without PMIx_Finalize"
run -n 4 "$PROBE" nofinalize "$marker"
expect_rc 1
expect_err "oshrun: PE 1 \(pid [0-9]+\) exited without finalizing; ending the job"
end

begin "PEs leave /dev/shm/psm-<tag>-* objects and crash"
run -n 4 "$PROBE" shm "$marker"
expect_rc 139
expect_err "oshrun: PE 1 \(pid [0-9]+\) killed by signal 11 \(Segmentation fault\); ending the job"
end

begin "PEs ignoring SIGTERM get SIGKILL"
# Ranks 0 and 2 ignore SIGTERM, then say so; rank 1 waits for both, fails.
OSHRUN_DEBUG=1 run -n 3 sh -c 'ready="$1-ready"
    if [ "$PMIX_RANK" = 1 ]; then
        while [ "$(ls "$ready".* 2>/dev/null | wc -l)" -lt 2 ]; do
            "$0" 0.02
        done
        exit 3
    fi
    trap "" TERM
    : >"$ready.$PMIX_RANK"
    "$0" 30' "$WORK/sleep-$marker" "$WORK/$marker"
expect_rc 3
expect_err "oshrun: PE 1 \(pid [0-9]+\) exited with status 3; ending the job"
expect_err "oshrun\[debug\]: SIGKILL to 2 PEs"
end

# ---- signals to oshrun -----------------------------------------------------

for sig in INT TERM HUP; do
    num=$(kill -l "$sig")
    begin "SIG$sig to oshrun while 4 PEs sleep"
    t0=$(now_ms)
    : >"$OUT"           # the previous case's ok lines must not count
    OSHRUN_DEBUG=1 timeout 20 "$OSHRUN" -n 4 "$PROBE" sleep "$marker" \
        >"$OUT" 2>"$ERR.raw" </dev/null &
    tpid=$!
    for ((i = 0; i < 300; i++)); do
        [ "$(grep -c '^probe rank' "$OUT")" -ge 4 ] && break
        sleep 0.05
    done
    opid=$(pgrep -P "$tpid" | head -1)
    if [ -n "$opid" ]; then
        kill -"$sig" "$opid"
    else
        bad "oshrun process not found"
    fi
    wait "$tpid"
    rc=$?
    ms=$(( $(now_ms) - t0 ))
    after_run
    expect_rc $((128 + num))
    expect_ok_lines 4
    end
done

# ---- SIGKILL to oshrun: its temp dir is swept by the next oshrun -------------

begin "SIGKILL to oshrun: the next oshrun sweeps its temp dir, and only that"
: >"$OUT"
OSHRUN_DEBUG=1 timeout 20 "$OSHRUN" -n 2 "$PROBE" sleep "$marker" \
    >"$OUT" 2>"$ERR.raw" </dev/null &
tpid=$!
for ((i = 0; i < 300; i++)); do
    [ "$(grep -c '^probe rank' "$OUT")" -ge 2 ] && break
    sleep 0.05
done
opid=$(pgrep -P "$tpid" | head -1)
[ -n "$opid" ] && kill -KILL "$opid" || bad "oshrun process not found"
wait "$tpid"
after_run
# The PEs die with it (PR_SET_PDEATHSIG); its folder stays.
for ((i = 0; i < 100; i++)); do pgrep -f -- "$marker" >/dev/null || break; sleep 0.05; done
left=$(cd "$TMPDIR" && ls -d oshrun.* 2>/dev/null)
[ "$left" = "$(cd "$TMPDIR" && ls -d "oshrun.$opid".?????? 2>/dev/null)" ] && [ -n "$left" ] ||
    bad "expected one folder oshrun.$opid.XXXXXX after the SIGKILL, found: ${left:-nothing}"
ls "$TMPDIR/$left" | grep -q . || bad "the killed oshrun's folder is empty (PMIx kept nothing there?)"
# Folders no later oshrun may touch: a live oshrun's (this shell's pid), an
# old-style name without a pid, a link, and another user's.
sh -c 'exit 0' & dead=$!; wait $dead  # a pid that is gone
mkdir "$TMPDIR/oshrun.$$.live01" "$TMPDIR/oshrun.abcdef" "$WORK/target"
: >"$TMPDIR/oshrun.$$.live01/keep"
: >"$WORK/target/keep"
ln -s "$WORK/target" "$TMPDIR/oshrun.$dead.link01"
keep="oshrun.$$.live01 oshrun.abcdef oshrun.$dead.link01"
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
    mkdir "$TMPDIR/oshrun.$dead.other1"
    chown nobody "$TMPDIR/oshrun.$dead.other1"
    keep="$keep oshrun.$dead.other1"
fi
run -n 1 true "$marker"
expect_rc 0
[ ! -e "$TMPDIR/$left" ] || bad "$left not swept by the next oshrun"
for k in $keep; do
    [ -e "$TMPDIR/$k" ] || [ -L "$TMPDIR/$k" ] || bad "$k was removed"
done
[ -e "$TMPDIR/oshrun.$$.live01/keep" ] || bad "a live oshrun's folder was emptied"
[ -e "$WORK/target/keep" ] || bad "the sweep followed a link"
for k in $keep; do rm -rf "${TMPDIR:?}/$k"; done
rm -rf "$WORK/target"
end

# ---- command line ----------------------------------------------------------

begin "-n 0 is refused"
run -n 0 "$PROBE" "" "$marker"
expect_rc 2
expect_err "oshrun: invalid number of PEs '0'.*"
end

begin "-n abc is refused"
run -n abc "$PROBE" "" "$marker"
expect_rc 2
expect_err "oshrun: invalid number of PEs 'abc'.*"
end

begin "-n 4097 is refused"
run -n 4097 "$PROBE" "" "$marker"
expect_rc 2
expect_err "oshrun: invalid number of PEs '4097'.*"
end

begin "unknown option"
run -x "$PROBE" "" "$marker"
expect_rc 2
expect_err "oshrun: unknown option '-x'; see 'oshrun --help'"
[ "$(wc -l <"$ERR")" -eq 1 ] || bad "expected exactly one stderr line"
end

begin "missing program"
run -n 2
expect_rc 2
expect_err "oshrun: .*program.*"
end

begin "nonexistent program"
run -n 2 "no-such-program-$marker"
expect_rc 127
expect_err "oshrun: cannot execute 'no-such-program-$marker': No such file or directory"
end

begin "nonexistent program path"
run -n 2 "$WORK/no-such-$marker"
expect_rc 127
expect_err "oshrun: cannot execute '$WORK/no-such-$marker': No such file or directory"
end

begin "program not executable"
printf '#!/bin/sh\nexit 0\n' >"$WORK/noexec-$marker"
chmod 644 "$WORK/noexec-$marker"
run -n 2 "$WORK/noexec-$marker"
expect_rc 127
expect_err "oshrun: cannot execute '$WORK/noexec-$marker': Permission denied"
end

begin "--help"
run --help
expect_rc 0
for word in SYNOPSIS OPTIONS ENVIRONMENT "EXIT STATUS" --transport; do
    grep -q -- "$word" "$OUT" || bad "--help lacks $word"
done
end

begin "--version"
run -V
expect_rc 0
grep -Eqx 'oshrun \(PlugSHMEM\) [0-9]+\.[0-9]+\.[0-9]+.*' "$OUT" \
    || bad "bad version line: $(cat "$OUT")"
end

begin "-- ends the options"
run -n 2 -- sh -c 'exit 0' "$marker"
expect_rc 0
end

# ---- programs that do not use PMIx -----------------------------------------

begin "non-PMIx program: sh -c 'exit 7'"
run -n 3 sh -c 'exit 7' "$marker"
expect_rc 7
expect_err "oshrun: PE [0-2] \(pid [0-9]+\) exited with status 7; ending the job"
end

begin "non-PMIx program: /bin/true"
run -n 4 true "$marker"
expect_rc 0
expect_err_empty
end

begin "non-PMIx program killed by SIGKILL"
run -n 2 sh -c 'if [ "$PMIX_RANK" = 0 ]; then kill -9 $$; fi; "$0" 30' \
    "$WORK/sleep-$marker"
expect_rc 137
expect_err "oshrun: PE 0 \(pid [0-9]+\) killed by signal 9 \(Killed\); ending the job"
end

begin "background child of a PE is killed at the end"
run -n 2 sh -c '"$0" 30 & exit 0' "$WORK/sleep-$marker"
expect_rc 0
end

# ---- environment -----------------------------------------------------------

begin "environment passes through"
OSHRUN_TEST_VAR="hello world" run -n 3 sh -c 'echo "var=$OSHRUN_TEST_VAR"' \
    "$marker"
expect_rc 0
[ "$(grep -cFx 'var=hello world' "$OUT")" -eq 3 ] || bad "variable not seen by every PE"
end

begin "PLUGSHMEM_JOB_TAG and PLUGSHMEM_LAUNCHER"
PLUGSHMEM_JOB_TAG=stale run -n 3 sh -c \
    'echo "tag=$PLUGSHMEM_JOB_TAG launcher=$PLUGSHMEM_LAUNCHER"' "$marker"
expect_rc 0
[ "$(grep -cEx 'tag=[0-9a-f]{16} launcher=oshrun' "$OUT")" -eq 3 ] \
    || bad "bad tag/launcher lines"
[ "$(sort -u "$OUT" | wc -l)" -eq 1 ] || bad "PEs see different tags"
tag1=$(sed -n 's/^tag=\([0-9a-f]*\) .*/\1/p' "$OUT" | head -1)
run -n 1 sh -c 'echo "$PLUGSHMEM_JOB_TAG"' "$marker"
[ "$(cat "$OUT")" != "$tag1" ] || bad "two jobs got the same tag"
end

begin "--transport sets SHMEM_TRANSPORT"
SHMEM_TRANSPORT=old run -n 2 --transport foo "$PROBE" env "$marker"
expect_rc 0
[ "$(grep -cE '^probe rank [01] env tag=[0-9a-f]{16} launcher=oshrun transport=foo$' "$OUT")" -eq 2 ] \
    || bad "SHMEM_TRANSPORT not set to foo in every PE"
end

begin "SHMEM_TRANSPORT inherited without --transport"
SHMEM_TRANSPORT=bar run -n 2 sh -c 'echo "t=$SHMEM_TRANSPORT"' "$marker"
expect_rc 0
[ "$(grep -cFx 't=bar' "$OUT")" -eq 2 ] || bad "SHMEM_TRANSPORT not inherited"
end

begin "stdin passes through"
t0=$(now_ms)
echo "from-stdin" | OSHRUN_DEBUG=1 timeout 20 "$OSHRUN" -n 1 sh -c 'cat' \
    "$marker" >"$OUT" 2>"$ERR.raw"
rc=$?
ms=$(( $(now_ms) - t0 ))
after_run
expect_rc 0
expect_out_line "from-stdin"
end

echo "$passed passed, $failed failed"
if [ "$failed" -ne 0 ]; then
    echo "$0: $failed case(s) failed" >&2
    exit 1
fi
exit 0
