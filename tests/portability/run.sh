#!/usr/bin/env bash
# The portability matrix (tests/portability/README.md): two hosts in
# network namespaces under hydra, Slurm's srun, the aarch64 build under
# qemu-user. Each part prints its cases and "N passed, M failed"; this ends
# with the sum. A part that cannot run here (not root, a package missing)
# is skipped, or fails when PORTABILITY_REQUIRE=1 (CI sets it).
#
#   tests/portability/run.sh [X86_BUILD_DIR]        (default build/)
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=${1:-$src/build}
[ -f "$build/build.ninja" ] || meson setup "$build" "$src" >/dev/null || exit 1
ninja -C "$build" >/dev/null || { ninja -C "$build"; exit 1; }
export PORT_LOG=${PORT_LOG:-$build/meson-logs/portability}
rm -rf "$PORT_LOG"

tp=0 tf=0 ts=0
for part in multihost slurm aarch64; do
    echo "=== $part"
    t0=$SECONDS
    out=$(mktemp)
    PORT_LOG=$PORT_LOG/$part "$here/$part.sh" "$build" 2>&1 | tee "$out"
    rc=${PIPESTATUS[0]}
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
    rm -f "$out"
    if [ "$rc" = 77 ]; then
        ts=$((ts + 1))
        [ "${PORTABILITY_REQUIRE:-0}" = 1 ] && { echo "FAIL - $part skipped, but PORTABILITY_REQUIRE=1"; tf=$((tf + 1)); }
    elif [ -n "$line" ]; then
        read -r p _ f _ s _ <<<"${line//,/}"
        tp=$((tp + p)) tf=$((tf + f)) ts=$((ts + ${s:-0}))
        [ "$rc" = 0 ] || [ "$f" -gt 0 ] || tf=$((tf + 1))
    else
        echo "FAIL - $part ended with status $rc and no result line"
        tf=$((tf + 1))
    fi
    echo "=== $part: $((SECONDS - t0)) s"
done
echo "portability: $tp passed, $tf failed, $ts skipped"
[ "$tf" -eq 0 ]
