#!/bin/bash
# A build on a machine without libfabric: CI installs libfabric-dev, so this
# hides it from pkg-config instead (a machine file pointing
# PKG_CONFIG_LIBDIR at a folder holding every .pc file but libfabric.pc,
# which also holds when meson regenerates).  Configured with -Dofi=auto,
# the build must say it skipped ofi, build no ofi plugin and link no
# libfabric, register no ofi test, pass the suites that need no network
# library, and name ofi as not installed when it is asked for.
#
#   tests/nofabric/run.sh [BUILD_DIR]     default: build-nofabric
#
# Prints "ok"/"FAIL" per check and "N passed, M failed"; exits non-zero
# if anything failed.  The build and about a minute of tests on a quiet
# machine (docs/testing.md has measured times).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build-nofabric}
suites=(unit api-shm shm coll-shm bad launcher install)
pass=0 fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }
finish() { echo "$pass passed, $fail failed"; [ "$fail" = 0 ]; exit; }
# The library's settings come from each check, not from the caller.
for v in $(env | sed -n 's/^\(SHMEM_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done

# ---- configure --------------------------------------------------------------
# The pkg-config folder and the machine file live in the build folder, so
# a later regeneration (ninja after a meson.build changed) sees them too.
mkdir -p "$build/nofabric-pkgconfig"
find "$build/nofabric-pkgconfig" -type l -delete
IFS=: read -ra pcdirs <<<"$(pkg-config --variable pc_path pkg-config)"
for d in "${pcdirs[@]}"; do
    for pc in "$d"/*.pc; do
        [ -e "$pc" ] || continue
        name=$(basename "$pc")
        [ "$name" = libfabric.pc ] || [ -e "$build/nofabric-pkgconfig/$name" ] ||
            ln -s "$pc" "$build/nofabric-pkgconfig/$name"
    done
done
printf "[properties]\npkg_config_libdir = ['%s']\n" "$build/nofabric-pkgconfig" \
    >"$build/nofabric.ini"
if PKG_CONFIG_LIBDIR=$build/nofabric-pkgconfig pkg-config --exists libfabric; then
    bad "libfabric hidden from pkg-config"; finish
fi

log=$build/nofabric-setup.log
if [ -f "$build/build.ninja" ]; then
    meson setup --reconfigure "$build" -Dofi=auto >"$log" 2>&1
else
    meson setup "$build" --native-file "$build/nofabric.ini" -Dofi=auto >"$log" 2>&1
fi || { bad "meson setup"; cat "$log"; finish; }
# The summary's line for ofi, e.g. "ofi: no: libfabric not found (install libfabric-dev)".
line=$(sed -n '/^ *Transports$/,/^$/p' "$log" | grep -E '^ +ofi +:' | sed 's/^ *//; s/  */ /g')
if grep -q '^ofi : no: libfabric not found' <<<"$line"; then
    ok "configure with -Dofi=auto skips ofi ($line)"
else
    bad "configure summary has no 'ofi: no: libfabric not found' line"; cat "$log"
fi

# ---- build ------------------------------------------------------------------
if ninja -C "$build" >"$build/nofabric-ninja.log" 2>&1; then
    ok "build"
else
    bad "build"; tail -n 30 "$build/nofabric-ninja.log"; finish
fi
if [ -z "$(find "$build" -name 'transport-ofi.so')" ]; then
    ok "no ofi plugin built"
else
    bad "an ofi plugin is in the build tree: $(find "$build" -name 'transport-ofi.so')"
fi
linked=$(find "$build" -type f \( -name '*.so' -o -perm -u+x \) -exec sh -c \
    'readelf -d "$1" 2>/dev/null | grep -q "NEEDED.*libfabric" && echo "$1"' _ {} \; | head -n 5)
if [ -z "$linked" ]; then
    ok "nothing built links libfabric"
else
    bad "built files link libfabric: $linked"
fi

# ---- registered tests ---------------------------------------------------------
# "meson test --list" prints "project:suite+suite / name".
list=$(meson test -C "$build" --no-rebuild --list 2>/dev/null)
if [ -z "$list" ]; then
    bad "meson test --list printed nothing"
elif grep -qi 'ofi' <<<"$list"; then
    bad "ofi tests registered: $(grep -i ofi <<<"$list" | head -n 3 | tr '\n' ' ')"
else
    ok "no ofi test or suite registered ($(wc -l <<<"$list") tests)"
fi

# ---- the suites -----------------------------------------------------------------
args=()
for s in "${suites[@]}"; do args+=(--suite "$s"); done
if meson test -C "$build" --no-rebuild --print-errorlogs --num-processes 2 "${args[@]}" \
    >"$build/nofabric-test.log" 2>&1; then
    ok "suites ${suites[*]}: $(grep -E '^Ok:' "$build/nofabric-test.log" | tr -s ' ')"
else
    bad "suites ${suites[*]}"; tail -n 40 "$build/nofabric-test.log"
fi

# ---- what a user sees -----------------------------------------------------------
info=$("$build/tools/shmem_info" 2>&1)
if grep -Eq '^  shm +/' <<<"$info" && ! grep -Eq '^  ofi ' <<<"$info"; then
    ok "shmem_info lists shm and no ofi"
else
    bad "shmem_info transports:"; sed -n '/^Transports/,/^Transport that/p' <<<"$info"
fi
out=$(SHMEM_TRANSPORT=ofi timeout 60 "$build/tools/oshrun" -n 2 "$build/examples/hello" 2>&1)
rc=$?
# The installed list is every plugin this build made (shm, and ucx and mpi
# where their libraries are found): shm among them, ofi not.
want="SHMEM_TRANSPORT='ofi': no usable transport (ofi: not installed); installed: "
built=$(cd "$build/transports" && ls -d */transport-*.so | sed 's|/.*||' | sort | paste -sd, | sed 's/,/, /g')
want="$want$built"
if [ $rc != 0 ] && [ "$(grep -cxF "plugshmem (PE 0): $want" <<<"$out")" = 1 ] &&
    grep -qw shm <<<"$built" && ! grep -qw ofi <<<"$built"; then
    ok "SHMEM_TRANSPORT=ofi: exit $rc, one line: $(grep -F "$want" <<<"$out")"
else
    bad "SHMEM_TRANSPORT=ofi: exit $rc, expected the line \"$want\" once:"; echo "$out"
fi
finish
