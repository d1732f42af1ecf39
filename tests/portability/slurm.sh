#!/usr/bin/env bash
# PlugSHMEM jobs under Slurm (Debian's slurm-wlm 22.05): a one-node cluster
# (slurmctld + slurmd) configured in a temporary folder, started here and
# stopped on every exit path, then srun --mpi=pmix and --mpi=pmi2 (which
# answers PMI-1, the wire protocol the core speaks) at 4 PEs, on shm and
# ofi over tcp, with a global exit and a crashing PE.
#
#   slurm.sh BUILD_DIR          (root; 77 when slurmctld/slurmd are missing)
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
build=$(realpath "${1:?usage: slurm.sh BUILD_DIR}") || exit 2
for p in slurmctld slurmd srun scontrol; do
    command -v $p >/dev/null || { echo "skip: no $p (packages slurmctld slurmd slurm-client)"; exit 77; }
done
plugdir=/usr/lib/x86_64-linux-gnu/slurm-wlm

dir=$(mktemp -d /tmp/pshm-slurm.XXXXXX)
ctld_pid= slurmd_pid=
cleanup() {
    # Jobs first (their slurmstepd ends with them), then the two daemons
    # started here: no process of anyone else's is touched.
    if [ -n "$ctld_pid" ] && [ -n "$(squeue -h -o %i 2>/dev/null)" ]; then
        scancel --full $(squeue -h -o %i) 2>/dev/null
        for i in $(seq 50); do [ -z "$(squeue -h 2>/dev/null)" ] && break; sleep 0.2; done
    fi
    for p in $slurmd_pid $ctld_pid; do
        kill "$p" 2>/dev/null
    done
    for p in $slurmd_pid $ctld_pid; do
        for i in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$p" 2>/dev/null
    done
    rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# Two free ports for the daemons (others may run a Slurm of their own).
read -r cport dport < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')

cpus=$(nproc)
mkdir -p "$dir/state" "$dir/spool"
cat >"$dir/slurm.conf" <<CONF
ClusterName=plugshmem
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$cport
SlurmdPort=$dport
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
PluginDir=$plugdir
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
SchedulerType=sched/builtin
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=pshmnode NodeAddr=127.0.0.1 NodeHostname=$(hostname) CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=pshmnode Default=YES MaxTime=10 State=UP OverSubscribe=FORCE
CONF
export SLURM_CONF=$dir/slurm.conf
slurmctld -D -f "$SLURM_CONF" >"$dir/ctld.out" 2>&1 &
ctld_pid=$!
slurmd -D -N pshmnode -f "$SLURM_CONF" >"$dir/slurmd.out" 2>&1 &
slurmd_pid=$!
for i in $(seq 100); do
    sinfo -h -o %t 2>/dev/null | grep -qx 'idle' && break
    sleep 0.2
done
if ! sinfo -h -o %t 2>/dev/null | grep -qx idle; then
    not_ok "slurmctld and slurmd up, node idle"
    tail -n 20 "$dir"/*.log "$dir"/*.out
    finish
    exit 1
fi
ok "slurmctld and slurmd up, node idle"

for v in $(env | sed -n 's/^\(SHMEM_[A-Z_]*\|FI_[A-Z_]*\|PMIX_[A-Z_]*\|PMI_[A-Z_]*\|SLURM_[A-Z_]*\)=.*/\1/p'); do
    [ "$v" = SLURM_CONF ] || unset "$v"
done
export PLUGSHMEM_BUILD=$build
probe=$build/tests/launcher/launch_probe

# srun with -O (4 PEs on fewer CPUs), a 5-minute limit; --kill-on-bad-exit
# ends the step when one task fails, as oshrun does.
run_srun() { timeout -k 10 400 srun -O -t 5 --kill-on-bad-exit=1 "$@"; }

for mpi in pmix pmi2; do
    boot=pmix; [ $mpi = pmi2 ] && boot=pmi
    if [ $mpi = pmix ] && [ ! -e $plugdir/mpi_pmix.so ]; then
        skip "--mpi=pmix" "no $plugdir/mpi_pmix.so (slurm-wlm-basic-plugins)"
        continue
    fi
    for tp in shm ofi; do
        env_tp="SHMEM_TRANSPORT=$tp"
        [ $tp = ofi ] && env_tp="SHMEM_TRANSPORT=ofi FI_PROVIDER=tcp;ofi_rxm SHMEM_BYPASS=0"
        [ $tp = ofi ] && [ ! -e "$build/transports/ofi/transport-ofi.so" ] && continue
        # shellcheck disable=SC2086
        check "srun --mpi=$mpi -n 4, $tp: probe" run_srun --mpi=$mpi -n 4 env $env_tp "$probe" "" sl
        # One job of 4 PEs on one node (with the bypass off each PE is
        # its own SHMEM_TEAM_SHARED, as under oshrun).
        want=4; [ $tp = ofi ] && want=1
        n=$(grep -c "of 4: local $want mapped $want transport $tp bootstrap $boot\$" "$LAST_LOG")
        if [ "$n" = 4 ]; then ok "srun --mpi=$mpi, $tp: 4 PEs of one job, bootstrap $boot"
        else not_ok "srun --mpi=$mpi, $tp: expected 4 lines 'local $want mapped $want transport $tp bootstrap $boot'" "$LAST_LOG"; fi
    done
    check "srun --mpi=$mpi -n 4: api suite on shm" \
        run_srun --mpi=$mpi -n 4 env SHMEM_TRANSPORT=shm "$build/tests/prog/suite_api" --np 4
    # Slurm ends the step when a task fails (--kill-on-bad-exit) or calls
    # PMIx_Abort / PMI abort, by SIGKILL to every task, the caller too;
    # srun's status is the largest of its tasks' (a killed task counts
    # 128+9), so it is 137, or 7 when task 1's exit wins the race (pmix
    # only: Slurm's PMI abort drops the code). What must hold: the job
    # ends at once, non-zero, and no PE goes on.
    check "srun --mpi=$mpi: shmem_global_exit(7) ends the job" --fail \
        run_srun --mpi=$mpi -n 4 "$probe" global_exit:7 sl
    expect_in "srun --mpi=$mpi: srun reports task 1's exit code 7 or the step's kill" \
        'task 1: Exited with exit code 7|tasks [0-9,-]+: Killed'
    if grep -Eq "not reached|returned from" "$LAST_LOG"; then not_ok "srun --mpi=$mpi: a PE went on" "$LAST_LOG"
    else ok "srun --mpi=$mpi: no PE went on after the global exit"; fi
    check "srun --mpi=$mpi: a PE crashes (SIGSEGV), the job ends" --fail \
        run_srun --mpi=$mpi -n 4 "$probe" crash sl
    expect_in "srun --mpi=$mpi: srun names task 1's SIGSEGV" 'task 1: Segmentation fault'
    # A PE that calls exit(0) without shmem_finalize while the others are
    # in shmem_barrier_all: one line names it and the step ends non-zero
    # (docs/design.md, "A PE that leaves without finalizing").
    check "srun --mpi=$mpi: PE 2 exits without finalize, the job ends" --fail \
        run_srun --mpi=$mpi -n 4 env SHMEM_TRANSPORT=shm "$build/tests/bad/bad_exit_nofinalize" 2
    expect_in "srun --mpi=$mpi: one line names PE 2" 'PE 2 exited without calling shmem_finalize'
    check "srun --mpi=$mpi: every PE returns from main without finalize, exit 0" \
        run_srun --mpi=$mpi -n 4 env SHMEM_TRANSPORT=shm "$build/tests/bad/bad_exit_nofinalize" return
done

# Nothing left: no job step (a cancelled one completes within seconds), no PE.
for i in $(seq 50); do [ -z "$(squeue -h 2>/dev/null)" ] && break; sleep 0.2; done
if [ -z "$(squeue -h 2>/dev/null)" ]; then ok "no job left in the queue"; else not_ok "jobs left: $(squeue -h)"; fi
if pgrep -f "launch_probe .* sl$" >/dev/null; then not_ok "PEs left running"; else ok "no PE left running"; fi
finish
