#!/usr/bin/env bash
# Two "hosts" on one machine: two network namespaces joined by a veth pair,
# each with its own address and (by a UTS namespace) its own host name.
# MPICH's hydra starts 4-PE jobs over both, 2 PEs per host, entering each
# host through netns_exec.sh as it would through ssh; PEs of one host reach
# each other by load/store, PEs of the other only through the network
# transport (ofi over tcp;ofi_rxm, ucx over tcp, mpi). The API, p2p and
# collective suites run on each; then auto collectives over the mpi
# transport at 5 PEs (3 and 2), a crash and a global exit across hosts.
#
#   multihost.sh BUILD_DIR      (root; exits 77 when namespaces cannot be made)
#
# The namespaces (and anything left running in them) are removed on every
# exit path: a trap on EXIT, INT, TERM and HUP.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
build=$(realpath "${1:?usage: multihost.sh BUILD_DIR}") || exit 2

command -v mpiexec.hydra >/dev/null || { echo "skip: no mpiexec.hydra (package mpich)"; exit 77; }
nsa=pshm-mh$$-a nsb=pshm-mh$$-b
ipa=10.231.0.1 ipb=10.231.0.2    # only ever inside these two namespaces

cleanup() {
    local ns
    for ns in $nsa $nsb; do
        [ -e "/run/netns/$ns" ] || continue
        # Whatever a timed-out job left: only processes inside our namespaces.
        ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null
        ip netns del "$ns" 2>/dev/null
    done
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

if ! ip netns add $nsa 2>/dev/null; then
    echo "skip: 'ip netns add' is not permitted here (needs root and CAP_SYS_ADMIN)"
    exit 77
fi
ip netns add $nsb &&
ip link add pshm0 netns $nsa type veth peer name pshm0 netns $nsb &&
ip -n $nsa addr add $ipa/24 dev pshm0 &&
ip -n $nsb addr add $ipb/24 dev pshm0 &&
for ns in $nsa $nsb; do
    ip -n $ns link set lo up && ip -n $ns link set pshm0 up || exit 1
done || { echo "FAIL: could not set up the namespaces"; exit 1; }
# Wait for IPv6 duplicate address detection on the veth, as on a host that
# has been up a while: while fe80:: is tentative libfabric's tcp lists only
# the IPv4 fabric, and PEs started on either side of that moment chose
# different address formats (fi_writemsg: Invalid argument).
for i in $(seq 50); do
    [ -z "$(ip -n $nsa -6 addr show dev pshm0 tentative)$(ip -n $nsb -6 addr show dev pshm0 tentative)" ] && break
    sleep 0.2
done

# netns_exec.sh maps each host address to its namespace.
export PSHM_NETNS_MAP="$ipa=$nsa $ipb=$nsb"
export PLUGSHMEM_BUILD=$build
for v in $(env | sed -n 's/^\(SHMEM_[A-Z_]*\|FI_[A-Z_]*\|UCX_[A-Z_]*\|PMIX_[A-Z_]*\|PMI_[A-Z_]*\)=.*/\1/p'); do
    unset "$v"
done

# mh ARGS...: mpiexec started on host a; -ppn 1 deals the ranks round-robin
# (0 and 2 on host a, 1 and 3 on host b), the placement the API suite's
# locality check expects from PSHM_TEST_NODES; -iface makes the proxies
# call back over the veth.
mh() {
    timeout -k 10 600 ip netns exec $nsa unshare --uts sh -c 'hostname "$0" && exec "$@"' $nsa \
        mpiexec.hydra -launcher ssh -launcher-exec "$here/netns_exec.sh" -iface pshm0 \
        -hosts $ipa,$ipb -ppn 1 "$@"
}

check "placement: ranks 0 and 2 on host a, 1 and 3 on host b" \
    mh -n 4 sh -c 'echo "rank $PMI_RANK host $(hostname) ns $(ip netns identify $$)"'
for r in 0 2; do expect_in "rank $r in $nsa" "^rank $r host $nsa ns $nsa\$"; done
for r in 1 3; do expect_in "rank $r in $nsb" "^rank $r host $nsb ns $nsb\$"; done

probe=$build/tests/launcher/launch_probe
declare -A tenv=(
    [ofi-tcp]="SHMEM_TRANSPORT=ofi FI_PROVIDER=tcp;ofi_rxm SHMEM_OFI_DOMAIN=pshm0"
    [ucx-tcp]="SHMEM_TRANSPORT=ucx UCX_TLS=tcp UCX_NET_DEVICES=pshm0"
    [mpi]="SHMEM_TRANSPORT=mpi"
)
coll_light="COLL_FULL=0 COLL_LARGE=10000 B2B_ITERS=0.1"
for cfg in ofi-tcp ucx-tcp mpi; do
    tp=${cfg%%-*}
    if [ ! -e "$build/transports/$tp/transport-$tp.so" ]; then
        skip "$cfg" "transport-$tp.so is not built"
        continue
    fi
    # shellcheck disable=SC2086  # the settings are words on purpose
    check "$cfg: probe, 4 PEs on 2 hosts" mh -n 4 env ${tenv[$cfg]} "$probe" "" mh
    # Each PE maps its host's 2 heaps and no more: the node is the host.
    expect_in "$cfg: every PE has 2 local, maps 2, uses $tp" \
        "^probe PE 3 of 4: local 2 mapped 2 transport $tp bootstrap pmi\$"
    if [ "$(grep -c "local 2 mapped 2 transport $tp bootstrap pmi" "$LAST_LOG")" = 4 ]; then
        ok "$cfg: 4 PEs of one job"
    else not_ok "$cfg: 4 PEs of one job" "$LAST_LOG"; fi
    check "$cfg: api suite, 4 PEs on 2 hosts" mh -n 4 env ${tenv[$cfg]} PSHM_TEST_NODES=2 \
        "$build/tests/prog/suite_api" --np 4
    check "$cfg: p2p suite, 4 PEs on 2 hosts" mh -n 4 env ${tenv[$cfg]} \
        "$build/tests/p2p/suite_p2p"
    check "$cfg: collective suite (every family, light sizes), 4 PEs on 2 hosts" mh -n 4 env ${tenv[$cfg]} $coll_light \
        "$build/tests/coll/suite_coll"
done

# auto collectives over the mpi transport, 5 PEs: 3 on host a (more than
# its cores on a 2-core machine), 2 on host b. auto takes every operation
# to MPI when some node has more PEs than cores; every member must decide
# alike whichever host it is on, or one waits in MPI's barrier while
# another runs the native one.
if [ -e "$build/transports/mpi/transport-mpi.so" ] && [ -e "$build/collectives/mpi/coll-mpi.so" ]; then
    # shellcheck disable=SC2086
    check "mpi: auto collectives, 5 PEs on 2 hosts (3 and 2)" mh -n 5 env ${tenv[mpi]} \
        SHMEM_COLLECTIVES=auto $coll_light "$build/tests/coll/suite_coll" basic b2b
fi

# Ending a job that spans hosts. A global exit: hydra exits with its
# status. A crash on host b: hydra names the PE and its status 11 in its
# banner, but its proxy on host a fails an assertion as the job is torn
# down and mpiexec exits 255 (on one host it exits 11).
if [ -e "$build/transports/ofi/transport-ofi.so" ]; then
    check "ofi-tcp: shmem_global_exit(7) across hosts" --rc 7 \
        mh -n 4 env ${tenv[ofi-tcp]} "$probe" global_exit:7 mh
    check "ofi-tcp: a PE crashes (SIGSEGV), the job on both hosts ends" --fail \
        mh -n 4 env ${tenv[ofi-tcp]} "$probe" crash mh
    expect_in "ofi-tcp: hydra names the crashed PE's status 11" '^= +EXIT CODE: 11$'
    if grep -q "not reached" "$LAST_LOG"; then not_ok "ofi-tcp: a PE went on after the crash" "$LAST_LOG"
    else ok "ofi-tcp: no PE went on after the crash"; fi
    # The crashed job's PEs leave no /dev/shm object (their sweepers).
    sleep 1
    left=
    for p in $(sed -n 's/^probe pid \([0-9]*\)$/\1/p' "$LAST_LOG"); do
        ls /dev/shm/psm-p"$p"-* >/dev/null 2>&1 && left="$left $p"
    done
    if [ -z "$left" ]; then ok "no /dev/shm object left by the crashed job"
    else not_ok "/dev/shm objects left by PEs$left"; fi
fi

for ns in $nsa $nsb; do
    if [ -z "$(ip netns pids $ns)" ]; then ok "nothing left running in $ns"
    else not_ok "processes left in $ns: $(ip netns pids $ns | tr '\n' ' ')"; fi
done
finish
