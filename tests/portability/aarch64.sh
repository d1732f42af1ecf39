#!/usr/bin/env bash
# The aarch64 build under emulation: Debian's gcc-aarch64-linux-gnu builds
# the core, the shm transport and the tests without PMIx (-Dpmix=disabled:
# the arm64 -dev packages would replace the amd64 ones others need), and
# qemu-user runs them: the unit suite through meson (the cross file's exe
# wrapper), then the API, p2p and collective suites on shm at 1 to 4 PEs,
# launched by this machine's x86-64 oshrun over PMI-1 with each PE an
# aarch64 process under qemu-aarch64.
#
#   aarch64.sh X86_BUILD_DIR [AARCH64_BUILD_DIR]    (77 without the tools)
#
# Programs are run through qemu-aarch64 -L explicitly: no binfmt_misc entry
# is registered, so there is nothing to undo afterwards.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
build=$(realpath "${1:?usage: aarch64.sh X86_BUILD_DIR [AARCH64_BUILD_DIR]}") || exit 2
a64=${2:-$src/build-aarch64}
for p in aarch64-linux-gnu-gcc qemu-aarch64; do
    command -v $p >/dev/null || { echo "skip: no $p (packages gcc-aarch64-linux-gnu qemu-user)"; exit 77; }
done
[ -x "$build/tools/oshrun" ] || { echo "FAIL: no $build/tools/oshrun"; exit 1; }

if [ ! -f "$a64/build.ninja" ]; then
    check "configure the aarch64 cross build" meson setup "$a64" "$src" \
        --cross-file "$here/aarch64-cross.ini" \
        -Dpmix=disabled -Dofi=disabled -Ducx=disabled -Dmpi=disabled
fi
check "build for aarch64" ninja -C "$a64"
expect_in "the library is an aarch64 object" 'ARM aarch64' \
    <(file -L "$a64/libplugshmem.so")
[ "$fail" -eq 0 ] || { finish; exit 1; }

check "unit suite under qemu-aarch64 (meson test)" \
    meson test -C "$a64" --suite unit --num-processes 1 --print-errorlogs

Q=(qemu-aarch64 -L /usr/aarch64-linux-gnu)
for v in $(env | sed -n 's/^\(SHMEM_[A-Z_]*\|PMIX_[A-Z_]*\|PMI_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export PLUGSHMEM_BUILD=$a64 SHMEM_TRANSPORT=shm
run() { timeout -k 10 600 "$build/tools/oshrun" "$@"; }
probe=$a64/tests/launcher/launch_probe

check "x86 oshrun, 4 aarch64 PEs: one job over PMI-1" run -n 4 "${Q[@]}" "$probe"
[ "$(grep -c 'of 4: local 4 mapped 4 transport shm bootstrap pmi$' "$LAST_LOG")" = 4 ] &&
    ok "4 PEs, all mapped, bootstrap pmi" || not_ok "4 PEs, all mapped, bootstrap pmi" "$LAST_LOG"
check "a PMIx launch of a build without PMIx stops with one line" --rc 1 \
    env PMIX_NAMESPACE=nosuch PMIX_RANK=0 "${Q[@]}" "$probe"
expect_in "... naming -Dpmix=disabled" \
    '^plugshmem: bootstrap: started by a PMIx launcher \(PMIX_NAMESPACE=nosuch\) but this PlugSHMEM was built without PMIx \(-Dpmix=disabled\)'

for n in 1 2 3 4; do
    check "api suite, $n PEs" run -n $n "${Q[@]}" "$a64/tests/prog/suite_api" --np $n
done
for n in 2 4; do
    check "p2p suite, $n PEs" run -n $n "${Q[@]}" "$a64/tests/p2p/suite_p2p"
done
for n in 3 4; do
    check "collectives suite, $n PEs" run -n $n "${Q[@]}" "$a64/tests/coll/suite_coll"
done
check "a PE crashes (SIGSEGV): oshrun ends the job with 139" --rc 139 \
    run -n 4 "${Q[@]}" "$probe" crash a64
check "shmem_global_exit(7): oshrun exits 7" --rc 7 \
    run -n 4 "${Q[@]}" "$probe" global_exit:7 a64
finish
