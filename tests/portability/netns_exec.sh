#!/bin/sh
# Hydra's "ssh" for the multi-host test: hydra runs
#   netns_exec.sh [-x] HOST 'COMMAND...'
# as it would run ssh.  HOST is the address of a namespace "host"; the
# command runs there, in a UTS namespace whose host name is that host's
# (so the library sees another node), as a remote shell would run it.
# PSHM_NETNS_MAP lists "ADDRESS=NAMESPACE ..." (set by multihost.sh).
while [ $# -gt 0 ]; do
    case $1 in
        -*) shift ;;
        *) break ;;
    esac
done
host=${1:?usage: netns_exec.sh [-x] HOST COMMAND...}
shift
ns=
for pair in $PSHM_NETNS_MAP; do
    [ "${pair%%=*}" = "$host" ] && ns=${pair#*=}
done
if [ -z "$ns" ]; then
    echo "netns_exec.sh: host '$host' is not one of the test's namespaces ($PSHM_NETNS_MAP)" >&2
    exit 255
fi
exec ip netns exec "$ns" unshare --uts sh -c 'hostname "$0" && exec sh -c "$1"' "$ns" "$*"
