#!/bin/bash
# The RPM packages (rpm/plugshmem.spec) as a vendor builds them, here on
# Debian: a source tarball of the tree (the checkout is left as it is),
# rpmbuild -bb with --nodeps (rpm cannot see Debian's packages; meson
# finds the libraries through pkg-config as on any system) and --nocheck
# (the unit suite runs from the build tree in CI), then, per package, the
# files it holds (rpm -qpl) and what it requires (rpm -qpR): the core must
# not require libfabric, UCX or MPICH; each transport requires its library
# and the core of the same version.  Installs nothing.
#
#   tests/packaging/rpm.sh          needs rpmbuild (apt-get install rpm)
#
# Prints "ok"/"FAIL" per check and "N passed, M failed"; exits non-zero if
# anything failed.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
spec=$root/rpm/plugshmem.spec
pass=0 fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }
finish() { echo "$pass passed, $fail failed (${SECONDS}s)"; [ "$fail" = 0 ]; exit; }

command -v rpmbuild >/dev/null || { echo "rpm packaging: rpmbuild not found (apt-get install rpm)"; exit 1; }
work=$(mktemp -d /tmp/plugshmem-rpm.XXXXXX)
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM HUP

name=plugshmem
ver=$(sed -n 's/^Version: *//p' "$spec")
rel=$(rpmspec -q --qf '%{release}\n' "$spec" 2>/dev/null | head -n 1)
mver=$(sed -n "s/^ *version *: *'\([^']*\)'.*/\1/p" "$root/meson.build" | head -n 1)
if [ "$ver" = "$mver" ]; then ok "the spec's version is meson.build's ($ver)"
else bad "the spec says version $ver, meson.build $mver"; fi

# ---- build ------------------------------------------------------------------
mkdir -p "$work"/{BUILD,RPMS,SOURCES,SPECS,SRPMS,BUILDROOT}
tar -C "$root" --exclude=./.git --exclude=./build --exclude='./build-*' \
    --transform "s|^\.|$name-$ver|" -czf "$work/SOURCES/$name-$ver.tar.gz" .
start=$SECONDS
if rpmbuild -bb --nodeps --nocheck --define "_topdir $work" "$spec" >"$work/build.log" 2>&1; then
    ok "rpmbuild -bb --nodeps --nocheck ($((SECONDS - start))s)"
else
    bad "rpmbuild -bb"; tail -n 40 "$work/build.log"; finish
fi
rpm_of() { ls "$work"/RPMS/*/"$1-$ver-"*.rpm 2>/dev/null | head -n 1; }
pkgs=("$name" "$name-devel" "$name-transport-ofi" "$name-transport-ucx" "$name-transport-mpi"
      "$name-compare")
for p in "${pkgs[@]}"; do
    [ -n "$(rpm_of "$p")" ] || { bad "no $p RPM (rpmbuild made: $(ls "$work"/RPMS/*))"; finish; }
done
ok "built ${pkgs[*]}"
libdir=$(rpm --eval '%{_libdir}')
libexec=$(rpm --eval '%{_libexecdir}')
mandir=$(rpm --eval '%{_mandir}')

# ---- contents ---------------------------------------------------------------
# The files (not folders) of a package, without its manual pages, sorted.
files() {
    rpm -qp --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$(rpm_of "$1")" 2>/dev/null |
        awk '$1 !~ /^d/ {print $2}' | grep -Ev "^$mandir/|/licenses/|^/usr/lib/\.build-id/" | sort
}
expect_files() {
    local p=$1 got want; shift
    got=$(files "$p")
    want=$(printf '%s\n' "$@" | sort)
    if [ "$got" = "$want" ]; then
        ok "$p holds $(wc -l <<<"$got") files: $(xargs -n1 basename <<<"$got" | tr '\n' ' ')"
    else
        bad "$p files (- expected, + found):"; diff <(echo "$want") <(echo "$got")
    fi
}
L=$libdir
LIBEXEC=$libexec
. "$root/tests/packaging/package_files.sh"
expect_files "$name" $(package_files core)
expect_files "$name-devel" $(package_files devel)
for t in ofi ucx mpi; do
    expect_files "$name-transport-$t" $(package_files transport-$t)
done
expect_files "$name-compare" $(package_files compare)

# Manual pages: oshrun's and shmem_info's with the core, shmem_compare's
# with it, the others with -devel.
# (Compressed or not, as the distribution's brp scripts do.)
pages() {
    rpm -qpl "$(rpm_of "$1")" | grep "^$mandir/" | xargs -rn1 basename | sed 's/\.gz$//' | sort |
        tr '\n' ' '
}
if [ "$(pages "$name")" = "oshrun.1 shmem_info.1 " ]; then ok "$name holds oshrun.1 and shmem_info.1"
else bad "$name's manual pages: $(pages "$name")"; fi
if [ "$(pages "$name-compare")" = "shmem_compare.1 " ]; then ok "$name-compare holds shmem_compare.1"
else bad "$name-compare's manual pages: $(pages "$name-compare")"; fi
n3=$(rpm -qpl "$(rpm_of "$name-devel")" | grep -c "^$mandir/man3/")
if [ "$n3" -ge 20 ] && pages "$name-devel" | grep -q "oshcc.1"; then
    ok "$name-devel holds oshcc.1 and $n3 pages of section 3"
else bad "$name-devel's manual pages: $(pages "$name-devel")"; fi
# Every file of the build went to some package (rpmbuild refuses unpackaged
# files, so a build that passed has none): said here so that a reader of
# the log knows it was checked.
if grep -q "Installed (but unpackaged) file(s) found" "$work/build.log"; then
    bad "unpackaged files"; grep -A20 "unpackaged" "$work/build.log"
else ok "every installed file is in a package"; fi

# ---- requirements ---------------------------------------------------------------
reqs() { rpm -qpR "$(rpm_of "$1")" 2>/dev/null; }
core=$(reqs "$name")
if grep -Eq 'libfabric|libucp|libucs|libuct|libmpi' <<<"$core"; then
    bad "$name requires a network library:"; grep -E 'libfabric|libucp|libucs|libuct|libmpi' <<<"$core"
else ok "$name requires no network library ($(grep -c . <<<"$core") requirements)"; fi
if grep -q '^libpmix\.so' <<<"$core"; then ok "$name requires libpmix"
else bad "$name does not require libpmix:"; echo "$core"; fi
declare -A lib=([ofi]=libfabric.so [ucx]=libucp.so [mpi]=libmpich.so)
for t in ofi ucx mpi; do
    r=$(reqs "$name-transport-$t")
    if grep -q "^${lib[$t]}" <<<"$r"; then ok "$name-transport-$t requires ${lib[$t]}*"
    else bad "$name-transport-$t does not require ${lib[$t]}:"; echo "$r"; fi
done
for p in "${pkgs[@]:1}"; do
    if reqs "$p" | grep -Eq "^$name(\(x86-64\)|\([a-z0-9-]+\))? = $ver-$rel"; then
        ok "$p requires $name = $ver-$rel"
    else bad "$p does not require $name = $ver-$rel:"; reqs "$p"; fi
done
if reqs "$name-compare" | grep -q '^/usr/bin/python3$\|^python3'; then ok "$name-compare requires python3"
else bad "$name-compare does not require python3:"; reqs "$name-compare"; fi
finish
