#!/bin/bash
# The Debian packages (debian/) as a user gets them: builds them in a copy
# of this tree (the checkout is left as it is), checks what each holds and
# depends on, runs lintian on the .debs and the .changes, installs the core
# and -dev packages into the real system paths, compiles a job with the
# installed oshcc and runs it with the installed oshrun over shm, finds
# and renders installed manual pages with man, adds the compare package
# (shmem_compare --help from the installed paths), adds the
# ofi package (shmem_info lists it, a job runs over it), removes it (the
# core still works, ofi is gone), then purges everything and checks that
# nothing is left: no file of any package's dpkg -L list that was not there
# before, no diversion, no /dev/shm object or process of the jobs.
#
#   tests/packaging/run.sh          as root; CI runs it last (.ci/run)
#
# It installs into the system, so it is not a meson test.  It refuses to
# run where one of the packages is already installed, and undoes its own
# installs on any exit (trap), failed checks included.  Prints "ok"/"FAIL"
# per check and "N passed, M failed"; exits non-zero if anything failed.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
pkgs=(libplugshmem0 libplugshmem-dev plugshmem-transport-ofi plugshmem-transport-ucx
      plugshmem-transport-mpi plugshmem-compare)
pass=0 fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }
finish() { echo "$pass passed, $fail failed (${SECONDS}s)"; [ "$fail" = 0 ]; exit; }
# The jobs' settings come from each check, not from the caller.
for v in $(env | sed -n 's/^\(SHMEM_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
unset LD_LIBRARY_PATH PLUGSHMEM_JOB_TAG FI_PROVIDER UCX_TLS
export DEBIAN_FRONTEND=noninteractive

[ "$(id -u)" = 0 ] || { echo "packaging: run as root (it installs the packages)"; exit 1; }
for t in dpkg-buildpackage dh lintian apt-get; do
    command -v "$t" >/dev/null ||
        { echo "packaging: $t not found (apt-get install debhelper dpkg-dev lintian fakeroot)"; exit 1; }
done
# dpkg's state: anything but not-installed (config-files too) counts as present.
present() {
    local s
    s=$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)
    [ -n "$s" ] && [ "$s" != not-installed ]
}
for p in "${pkgs[@]}"; do
    if present "$p"; then
        echo "packaging: $p is already on this system; not touching it (purge it first)"; exit 1
    fi
done

work=$(mktemp -d /tmp/plugshmem-packaging.XXXXXX)
installing=0
apt_y() { apt-get -y -q -o DPkg::Lock::Timeout=300 "$@"; }
cleanup() {
    if [ "$installing" = 1 ]; then
        local left=() p
        for p in "${pkgs[@]}"; do present "$p" && left+=("$p"); done
        if [ ${#left[@]} -gt 0 ] && ! apt_y purge "${left[@]}" >"$work/cleanup.log" 2>&1; then
            echo "packaging: could not purge ${left[*]}:"; cat "$work/cleanup.log"
        fi
    fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# ---- build ------------------------------------------------------------------
mkdir "$work/src" "$work/run"
tar -C "$root" --exclude=./.git --exclude=./build --exclude='./build-*' -cf - . |
    tar -C "$work/src" -xf -
start=$SECONDS
if (cd "$work/src" && DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" \
        dpkg-buildpackage -b -us -uc) >"$work/build.log" 2>&1; then
    ok "dpkg-buildpackage -b -us -uc ($((SECONDS - start))s)"
else
    bad "dpkg-buildpackage"; tail -n 40 "$work/build.log"; finish
fi
ver=$(dpkg-parsechangelog -l "$root/debian/changelog" -S Version)
arch=$(dpkg --print-architecture)
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
deb() { echo "$work/${1}_${ver}_${arch}.deb"; }
changes=$work/plugshmem_${ver}_${arch}.changes
for p in "${pkgs[@]}"; do
    [ -f "$(deb "$p")" ] || { bad "no $(basename "$(deb "$p")")"; finish; }
done
ok "built ${pkgs[*]} $ver"

# ---- contents ---------------------------------------------------------------
# Each package's files (not folders), without the copyright and changelog.
files() {
    dpkg-deb -c "$(deb "$1")" | awk '$1 !~ /^d/ {print $6}' | sed 's|^\./|/|' |
        grep -Ev "^/usr/share/(doc|lintian/overrides)/$1(/|$)" | sort
}
expect_files() {
    local p=$1 got; shift
    got=$(files "$p")
    local want; want=$(printf '%s\n' "$@" | sort)
    # Manual pages are whatever the tree has; they are checked below.
    if [ "$(grep -v '^/usr/share/man/' <<<"$got")" = "$want" ]; then
        ok "$p holds $(wc -l <<<"$got") files: $(grep -v '^/usr/share/man/' <<<"$got" | xargs -n1 basename | tr '\n' ' ')"
    else
        bad "$p files:"; diff <(echo "$want") <(grep -v '^/usr/share/man/' <<<"$got")
    fi
}
L=/usr/lib/$ma
LIBEXEC=/usr/libexec
. "$root/tests/packaging/package_files.sh"
expect_files libplugshmem0 $(package_files core)
expect_files libplugshmem-dev $(package_files devel)
for t in ofi ucx mpi; do
    expect_files "plugshmem-transport-$t" $(package_files transport-$t)
done
expect_files plugshmem-compare $(package_files compare)
# Each package's pages, "package page" per line.
pages=$(for p in "${pkgs[@]}"; do files "$p" | grep '^/usr/share/man/' | sed "s|^|$p |"; done)
misplaced=$(grep -Ev '^(libplugshmem0 .*/man1/(oshrun|shmem_info)|plugshmem-compare .*/man1/shmem_compare|libplugshmem-dev .*/man[13]/[^/]*)\.[13]\.gz$' <<<"$pages")
lost=$(for m in oshrun shmem_info shmem_compare oshcc oshc++ plugshmem-transport-check shmem_put \
    shmem_atomic_fetch_add; do
    grep -q "/man[13]/$m\.[13]\.gz$" <<<"$pages" || echo "$m"; done)
if [ -z "$misplaced" ] && [ -z "$lost" ]; then
    ok "manual pages: $(grep -c . <<<"$pages") (oshrun's and shmem_info's in libplugshmem0, shmem_compare's in plugshmem-compare, the rest in -dev)"
else
    bad "manual pages misplaced: $(xargs <<<"$misplaced"); missing: $(xargs <<<"$lost")"
fi

# ---- dependencies -------------------------------------------------------------
# Package names without versions, sorted, one line.
dep_names() {
    dpkg-deb -f "$(deb "$1")" Depends | tr ',' '\n' | sed 's/(.*)//; s/ //g' | grep . | sort -u | xargs
}
expect_deps() {
    local p=$1 re=$2 names
    names=$(dep_names "$p")
    if grep -Eqx "$re" <<<"$names"; then
        ok "$p depends on: $(dpkg-deb -f "$(deb "$p")" Depends)"
    else
        bad "$p depends on '$names', expected /$re/"
    fi
}
expect_deps libplugshmem0 'libc6 libpmix[0-9]+'
# -dev's own program (the API suite of plugshmem-transport-check) links libc.
expect_deps libplugshmem-dev 'gcc\|c-compiler libc6 libplugshmem0'
expect_deps plugshmem-transport-ofi 'libc6 libfabric[0-9]+ libplugshmem0'
expect_deps plugshmem-transport-ucx 'libc6 libplugshmem0 libucx[0-9]+'
expect_deps plugshmem-transport-mpi 'libc6 libmpich[0-9]+ libplugshmem0'
expect_deps plugshmem-compare 'libc6 libplugshmem0 python3'
for p in libplugshmem-dev plugshmem-transport-ofi plugshmem-transport-ucx plugshmem-transport-mpi \
        plugshmem-compare; do
    if dpkg-deb -f "$(deb "$p")" Depends | grep -qF "libplugshmem0 (= $ver)"; then
        ok "$p needs libplugshmem0 (= $ver)"
    else
        bad "$p: no 'libplugshmem0 (= $ver)' in Depends"
    fi
done

# ---- lintian -------------------------------------------------------------------
# Errors and warnings fail; each remaining one must be overridden, with its
# reason, in debian/*.lintian-overrides.  Information tags are printed.
start=$SECONDS
lintian -I --fail-on none "$changes" 2>&1 | grep -v 'running with root privileges' >"$work/lintian.log"
if grep -Eq '^[EW]: ' "$work/lintian.log"; then
    bad "lintian:"; cat "$work/lintian.log"
else
    ok "lintian on the .changes and every .deb: no error or warning ($((SECONDS - start))s)"
    sed 's/^/     /' "$work/lintian.log"
fi

# ---- the system before ------------------------------------------------------------
# Every path the packages will install, and whether it exists now: a folder
# such as /usr/bin must stay after the purge, anything new must go.
for p in "${pkgs[@]}"; do
    dpkg-deb -c "$(deb "$p")" | awk '{print $6}' | sed 's|^\./|/|; s|/$||' | grep .
done | sort -u >"$work/paths"
while read -r f; do [ -e "$f" ] || [ -L "$f" ] && echo "$f"; done <"$work/paths" >"$work/existed"
# The generic OpenSHMEM names another package (Open MPI) may own: the -dev and
# core packages divert them while installed and must give them back as they were.
osh_state() {
    local f
    for f in /usr/bin/osh{run,cc,c++}{,.openmpi} /usr/share/man/man1/osh{run,cc,c++}{,.openmpi}.1.gz; do
        if [ -L "$f" ]; then echo "$f -> $(readlink "$f")"
        elif [ -e "$f" ]; then echo "$f $(md5sum <"$f")"
        else echo "$f absent"; fi
    done
}
osh_before=$(osh_state)
shm_before=$(ls /dev/shm | sort)
simulate() {   # apt must install exactly our packages, and remove nothing
    local out; out=$(apt-get -s install "$@" 2>&1)
    local other; other=$(grep -E '^(Inst|Remv) ' <<<"$out" | awk '{print $1, $2}' |
        grep -Ev "^Inst ($(IFS='|'; echo "${pkgs[*]}"))$")
    if [ -n "$other" ]; then
        bad "installing would change other packages: $(xargs <<<"$other")"; finish
    fi
}
install_pkgs() {   # install_pkgs LOG PACKAGE...: simulated, installed, their file lists kept
    local log=$1 p debs=(); shift
    for p; do debs+=("$(deb "$p")"); done
    simulate "${debs[@]}"
    installing=1   # from here the trap purges what is installed
    if ! apt_y install "${debs[@]}" >"$work/$log" 2>&1; then
        bad "apt-get install $*:"; tail -n 30 "$work/$log"; return 1
    fi
    ok "apt-get install $*"
    for p; do dpkg -L "$p" >"$work/$p.list"; done
}

# ---- a job and its leftovers ---------------------------------------------------------
tags=() pids=()
# run_job NAME NP TRANSPORT PROGRAM [VAR=VALUE...]: NP lines "... transport
# TRANSPORT ...: ok", exit 0, then no /dev/shm object of the job's tag or of
# its PEs' pids, and no process of PROGRAM.
run_job() {
    local name=$1 np=$2 tr=$3 prog=$4; shift 4
    local out rc
    out=$(cd "$work/run" && env "$@" timeout 120 /usr/bin/oshrun -n "$np" "$prog" 2>&1)
    rc=$?
    local good; good=$(grep -c "^PE [0-9]* of $np transport $tr pid [0-9]* tag [0-9a-f]*: ok$" <<<"$out")
    if [ $rc = 0 ] && [ "$good" = "$np" ]; then
        ok "$name: $np PEs over $tr, results right"
    else
        bad "$name: exit $rc, $good of $np PEs right over $tr:"; echo "$out"
    fi
    local tag pidlist
    tag=$(sed -n 's/.* tag \([0-9a-f]*\):.*/\1/p' <<<"$out" | sort -u | head -n 1)
    pidlist=$(sed -n 's/.* pid \([0-9]*\) tag .*/\1/p' <<<"$out" | xargs)
    [ -n "$tag" ] && tags+=("$tag")
    pids+=($pidlist)
    sleep 0.2
    local left; left=$(leftovers "$tag" "$pidlist")
    [ -z "$left" ] && ok "$name: nothing left in /dev/shm" || bad "$name: left in /dev/shm: $left"
    local e
    for e in /proc/[0-9]*/exe; do
        if [ "$(readlink "$e" 2>/dev/null)" = "$work/run/${prog#./}" ]; then
            bad "$name: processes of $prog still run"; break
        fi
    done
}
leftovers() {   # leftovers TAGS PIDS: /dev/shm objects named after them
    local t p
    for t in $1; do ls /dev/shm | grep -F -- "$t"; done
    for p in $2; do ls /dev/shm | grep -E "^$p:|-$p-|^p$p(-|$)"; done
}
transports() {   # the transports shmem_info lists, "name:path" per line
    /usr/bin/shmem_info 2>&1 | awk '/^  [a-z]+ +\// {print $1 ":" $2}'
}

# ---- core and -dev installed ------------------------------------------------------------
install_pkgs install.log libplugshmem0 libplugshmem-dev || finish
if cmp -s /usr/bin/oshrun "$work/src/debian/libplugshmem0/usr/bin/oshrun" &&
    cmp -s /usr/bin/oshcc "$work/src/debian/libplugshmem-dev/usr/bin/oshcc" &&
    cmp -s /usr/bin/oshc++ "$work/src/debian/libplugshmem-dev/usr/bin/oshc++"; then
    ok "/usr/bin/oshrun, oshcc and oshc++ are the packages'"
else
    bad "/usr/bin/osh* are not the packages': $(ls -l /usr/bin/osh* | xargs)"
fi
if present openmpi-bin; then
    if [ "$(readlink /usr/bin/oshrun.openmpi)" = mpirun.openmpi ]; then
        ok "Open MPI's oshrun is /usr/bin/oshrun.openmpi meanwhile"
    else
        bad "Open MPI's oshrun was not diverted: $(ls -l /usr/bin/oshrun* | xargs)"
    fi
fi

if /usr/bin/oshcc -O2 "$root/tests/packaging/pkg_job.c" -o "$work/run/pkg_job" >"$work/cc.log" 2>&1; then
    ok "/usr/bin/oshcc compiles a program"
else
    bad "/usr/bin/oshcc:"; cat "$work/cc.log"
fi
lib=$(ldd "$work/run/pkg_job" 2>&1 | awk '/libplugshmem\.so\.0/ {print $3}')
if [ "$(readlink -f "$lib")" = "$(readlink -f "$L/libplugshmem.so.0")" ] && [ -e "$lib" ]; then
    ok "the program loads the installed library ($lib)"
else
    bad "the program loads libplugshmem.so.0 from '$lib'"
fi
pc_dir=$(pkg-config --variable=pluginsdir plugshmem 2>/dev/null)
if [ -n "$pc_dir" ] && [ "$(readlink -f "$pc_dir")" = "$L/plugshmem" ] &&
    cc "$root/tests/packaging/pkg_job.c" $(pkg-config --cflags --libs plugshmem) \
        -o "$work/run/pkg_job_pc" 2>"$work/pc.log"; then
    ok "pkg-config plugshmem: compiles, pluginsdir $L/plugshmem"
else
    bad "pkg-config plugshmem: pluginsdir '$pc_dir'"; cat "$work/pc.log" 2>/dev/null
fi
run_job "oshrun over shm" 3 shm ./pkg_job
run_job "program built with pkg-config" 2 shm ./pkg_job_pc
if [ "$(transports | xargs)" = "shm:$L/plugshmem/transport-shm.so" ]; then
    ok "shmem_info lists shm only, from $L/plugshmem"
else
    bad "shmem_info lists: $(transports | xargs)"
fi
# The plugin SDK from the packages: the C example, built from the installed
# copy with pkg-config's flags, passes the installed check at 2 PEs.
sdk_dir=$(pkg-config --variable=sdkdir plugshmem 2>/dev/null)
mkdir -p "$work/run/plugins"
if [ "$(readlink -f "$sdk_dir")" = /usr/share/plugshmem/sdk ] &&
    cc -O2 $(pkg-config --cflags plugshmem) -shared -fPIC -o "$work/run/plugins/transport-loopback.so" \
        "$sdk_dir/examples/transport-loopback/loopback.c" 2>"$work/sdk.log" &&
    (cd "$work/run" && timeout 300 /usr/bin/plugshmem-transport-check --np 2 \
        "$work/run/plugins/transport-loopback.so") >>"$work/sdk.log" 2>&1 &&
    grep -q '^loopback: 1 passed, 0 failed' "$work/sdk.log"; then
    ok "plugshmem-transport-check passes the example plugin built from $sdk_dir"
else
    bad "the SDK from the packages (sdkdir '$sdk_dir'):"; tail -n 30 "$work/sdk.log" 2>/dev/null
fi

# ---- manual pages ----------------------------------------------------------------------------
# man finds each installed page by name (a family page, a typed name that
# links to one, the tools) and renders it without a warning.
export MAN_DISABLE_SECCOMP=1
man_ok() {   # man_ok NAME SECTION PACKAGE: man -w gives its page, which renders
    local name=$1 sec=$2 pkg=$3 path err
    local page=/usr/share/man/man$sec/$name.$sec.gz
    # man -w names a link's target: a typed name's family page.
    path=$(man -w "$sec" "$name" 2>/dev/null)
    if [ -z "$path" ] || [ "$path" != "$(readlink -f "$page")" ] ||
        ! grep -qxF "$page" "$work/$pkg.list"; then
        bad "man $sec $name: finds '$path', not $pkg's $page"; return
    fi
    err=$(MANWIDTH=80 man --warnings "$sec" "$name" 2>&1 >"$work/man.out")
    if [ -z "$err" ] && grep -q '^NAME' "$work/man.out" && grep -qw "$name" "$work/man.out"; then
        ok "man $sec $name: $pkg's page renders"
    else
        bad "man $sec $name renders with: $err"; head -n 5 "$work/man.out"
    fi
}
if command -v man >/dev/null && command -v groff >/dev/null; then
    for n in shmem_put shmem_atomic_fetch_add shmem_long_atomic_fetch_add shmem_team_split_strided; do
        man_ok "$n" 3 libplugshmem-dev
    done
    man_ok oshcc 1 libplugshmem-dev
    man_ok oshc++ 1 libplugshmem-dev
    man_ok plugshmem-transport-check 1 libplugshmem-dev
    man_ok oshrun 1 libplugshmem0
    man_ok shmem_info 1 libplugshmem0
else
    bad "man or groff not installed (Debian: man-db groff-base): the pages cannot be checked"
fi

# ---- the compare package -----------------------------------------------------------------------
install_pkgs install-compare.log plugshmem-compare
# From a folder without the tree: it must find its modules and benchmark
# in the installed paths.  Python may write byte code there (root may),
# so it does: the purge must take that away too.
out=$(cd "$work/run" && env -u PYTHONDONTWRITEBYTECODE timeout 60 /usr/bin/shmem_compare --help 2>&1)
rc=$?
if [ $rc = 0 ] && grep -q '^NAME' <<<"$out" && grep -q -- '--quick' <<<"$out"; then
    ok "shmem_compare --help: $(grep -A1 '^NAME' <<<"$out" | tail -n 1 | sed 's/^ *//')"
else
    bad "shmem_compare --help: exit $rc:"; head -n 20 <<<"$out"
fi
out=$(cd "$work/run" && timeout 60 /usr/bin/shmem_compare --version 2>&1)
grep -qF "${ver%%-*}" <<<"$out" && ok "shmem_compare --version: $out" ||
    bad "shmem_compare --version says '$out', not ${ver%%-*}"
command -v man >/dev/null && man_ok shmem_compare 1 plugshmem-compare
[ -d /usr/share/plugshmem/compare/__pycache__ ] &&
    ok "Python left byte code in /usr/share/plugshmem/compare/__pycache__ (the purge must take it)" ||
    bad "no byte code beside the modules: the purge's cleanup of it goes untested"

# ---- the ofi package -----------------------------------------------------------------------
install_pkgs install-ofi.log plugshmem-transport-ofi
if transports | grep -qx "ofi:$L/plugshmem/transport-ofi.so"; then
    ok "shmem_info lists ofi"
else
    bad "shmem_info lists: $(transports | xargs)"
fi
# Bypass off: every operation crosses libfabric (its shm provider: one node).
run_job "SHMEM_TRANSPORT=ofi" 2 ofi ./pkg_job SHMEM_TRANSPORT=ofi SHMEM_OFI_PROVIDER=shm SHMEM_BYPASS=0

if apt_y purge plugshmem-transport-ofi >"$work/purge-ofi.log" 2>&1 && ! present plugshmem-transport-ofi; then
    ok "apt-get purge plugshmem-transport-ofi"
else
    bad "apt-get purge plugshmem-transport-ofi:"; tail -n 30 "$work/purge-ofi.log"
fi
if ! transports | grep -q '^ofi:' && [ ! -e "$L/plugshmem/transport-ofi.so" ]; then
    ok "shmem_info no longer lists ofi"
else
    bad "after the purge shmem_info lists: $(transports | xargs)"
fi
out=$(cd "$work/run" && SHMEM_TRANSPORT=ofi timeout 60 /usr/bin/oshrun -n 2 ./pkg_job 2>&1)
rc=$?
if [ $rc != 0 ] && grep -q "SHMEM_TRANSPORT='ofi': no usable transport (ofi: not installed)" <<<"$out"; then
    ok "SHMEM_TRANSPORT=ofi now fails: $(grep -m1 'no usable transport' <<<"$out")"
else
    bad "SHMEM_TRANSPORT=ofi after the purge: exit $rc:"; echo "$out"
fi
run_job "core alone after the purge of ofi" 2 shm ./pkg_job

# ---- purge everything ------------------------------------------------------------------------
if apt_y purge libplugshmem0 libplugshmem-dev plugshmem-compare >"$work/purge.log" 2>&1; then
    ok "apt-get purge libplugshmem0 libplugshmem-dev plugshmem-compare"
else
    bad "apt-get purge:"; tail -n 30 "$work/purge.log"
fi
still=()
for p in "${pkgs[@]}"; do present "$p" && still+=("$p"); done
[ ${#still[@]} = 0 ] && ok "dpkg knows none of the packages" || bad "dpkg still has: ${still[*]}"
left=$(cat "$work"/*.list | grep '^/' | grep -vx '/\.' | sort -u | while read -r f; do
    if [ -e "$f" ] || [ -L "$f" ]; then grep -qxF "$f" "$work/existed" || echo "$f"; fi
done)
checked=$(cat "$work"/*.list | grep -c '^/')
[ -z "$left" ] && ok "no path of the dpkg -L lists is left ($checked checked)" ||
    bad "left after the purge: $(xargs <<<"$left")"
gone=$(while read -r f; do [ -e "$f" ] || [ -L "$f" ] || echo "$f"; done <"$work/existed")
[ -z "$gone" ] || bad "the purge removed what was there before: $(xargs <<<"$gone")"
div=$(dpkg-divert --list | grep -i plugshmem)
[ -z "$div" ] && ok "no diversion left" || bad "diversions left: $div"
[ "$(osh_state)" = "$osh_before" ] && ok "/usr/bin/osh* and their pages as before" ||
    bad "/usr/bin/osh* changed: $(diff <(echo "$osh_before") <(osh_state) | xargs)"
left=$(leftovers "${tags[*]}" "${pids[*]}")
[ -z "$left" ] && ok "no /dev/shm object of the ${#tags[@]} jobs" || bad "left in /dev/shm: $left"
finish
