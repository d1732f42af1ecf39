#!/usr/bin/env bash
# PlugSHMEM programs under MPICH's hydra (mpiexec.hydra), which speaks PMI,
# not PMIx: one job of N PEs (never N singletons), node locality, the shm,
# ofi, ucx and mpi transports, shmem_global_exit, crashes, and wrong PMI
# environments that must stop with one line naming the launcher.
#
#   test_hydra.sh LAUNCH_PROBE PMI_ALLGATHER [MPI_PROBE]
#
# PMI_ALLGATHER is the PMI bootstrap alone; MPI_PROBE (MPICH and PlugSHMEM
# in one program) is optional. Exits 77 (skip) without mpiexec.hydra.
set -u

if [ $# -lt 2 ]; then
    echo "usage: $0 LAUNCH_PROBE PMI_ALLGATHER [MPI_PROBE]" >&2
    exit 2
fi
PROBE=$(realpath "$1") || exit 2
ALLGATHER=$(realpath "$2") || exit 2
MPI_PROBE=${3:+$(realpath "$3")}
HYDRA=$(command -v mpiexec.hydra) || { echo "no mpiexec.hydra: skipped"; exit 77; }
. "$(dirname "$0")/launch_lib.sh"

# Settings of the calling environment must not choose for the tests.
for v in $(env | sed -n 's/^\(SHMEM_[A-Z_]*\|FI_PROVIDER\|PMIX_[A-Z_]*\|PMI_[A-Z_]*\)=.*/\1/p'); do
    unset "$v"
done

hydra() { run "$HYDRA" "$@"; }

# ---- one job of N PEs, per transport ---------------------------------------

for n in 1 2 4; do
    begin "shm, $n PEs"
    hydra -n "$n" env SHMEM_TRANSPORT=shm "$PROBE" "" "$marker"
    expect_rc 0
    expect_pes "$n" "$n" shm pmi
    expect_err_empty
    end
done

begin "no transport named: shm chosen, 4 PEs"
hydra -n 4 "$PROBE" "" "$marker"
expect_rc 0
expect_pes 4 4 shm pmi
end

for prov in "tcp;ofi_rxm" shm; do
    for n in 2 4; do
        begin "ofi over $prov, $n PEs"
        hydra -n "$n" env SHMEM_TRANSPORT=ofi "FI_PROVIDER=$prov" "$PROBE" "" "$marker"
        expect_rc 0
        expect_pes "$n" "$n" ofi pmi
        expect_err_empty
        end
    done
done

begin "ofi, bypass off (every put crosses libfabric), 4 PEs"
hydra -n 4 env SHMEM_TRANSPORT=ofi "FI_PROVIDER=tcp;ofi_rxm" SHMEM_BYPASS=0 "$PROBE" "" "$marker"
expect_rc 0
expect_pes 4 1 ofi pmi
end

# The other network transports, where this build has them: every put and
# AMO crosses UCX or MPI (MPICH joins the same PMI-1 job).
for tp in ucx mpi; do
    begin "$tp, bypass off, 4 PEs"
    if [ -e "${PLUGSHMEM_BUILD:-/nonexistent}/transports/$tp/transport-$tp.so" ]; then
        hydra -n 4 env SHMEM_TRANSPORT=$tp SHMEM_BYPASS=0 "$PROBE" "" "$marker"
        expect_rc 0
        expect_pes 4 1 $tp pmi
        end
    else
        skip_case "transport-$tp.so is not built"
    fi
done

for opt in "" -pmi-port; do
    begin "bootstrap exchanges of 0 B to 70 kB (many PMI values)${opt:+, $opt}, 3 PEs"
    hydra $opt -n 3 "$ALLGATHER" "$marker"
    expect_rc 0
    for r in 0 1 2; do
        expect_line "allgather ok: rank $r of 3, local 3"
    done
    end
done

begin "PMI_PORT instead of PMI_FD (-pmi-port), 4 PEs"
hydra -pmi-port -n 4 "$PROBE" "" "$marker"
expect_rc 0
expect_pes 4 4 shm pmi
end

# Odd ranks in a UTS namespace of their own: another host name, so another
# node to the bootstrap. shm cannot serve two nodes; ofi is chosen.
begin "two nodes by host name (unshare --uts), 4 PEs"
if unshare --uts true 2>/dev/null; then
    hydra -n 4 sh -c 'if [ $((PMI_RANK % 2)) = 1 ]; then
            exec unshare --uts sh -c "hostname pshm-node-b && exec \"\$0\" \"\$@\"" "$0" "$@"
        fi
        exec "$0" "$@"' "$PROBE" "" "$marker"
    expect_rc 0
    expect_pes 4 2 ofi pmi
    end
else
    skip_case "unshare --uts is not permitted here"
fi

# ---- ending the job ----------------------------------------------------------

for tp in shm ofi; do
    begin "$tp: shmem_global_exit(7) while the others wait in a barrier"
    hydra -n 4 env SHMEM_TRANSPORT=$tp "$PROBE" global_exit:7 "$marker"
    expect_rc 7
    expect_no_line "not reached|returned from"
    end
done

begin "shmem_global_exit(0) ends the job with 0"
hydra -n 3 "$PROBE" global_exit:0 "$marker"
expect_rc 0
expect_no_line "not reached|returned from"
end

begin "1 PE: shmem_global_exit(5)"
hydra -n 1 "$PROBE" global_exit:5 "$marker"
expect_rc 5
end

# hydra reports a PE killed by signal N as exit status N. It kills the
# others outright: over libfabric's shm provider they leave /dev/shm
# objects that only their sweeper removes.
for tp in shm ofi "ofi FI_PROVIDER=shm"; do
    begin "$tp: a PE crashes (SIGSEGV) while the others wait"
    hydra -n 4 env SHMEM_TRANSPORT=$tp "$PROBE" crash "$marker"
    expect_rc 11
    expect_no_line "not reached"
    end
done

begin "ofi over shm: shmem_global_exit(3), no /dev/shm object left"
hydra -n 4 env SHMEM_TRANSPORT=ofi FI_PROVIDER=shm "$PROBE" global_exit:3 "$marker"
expect_rc 3
end

begin "a PE exits with 5 without shmem_finalize: the job ends with 5"
hydra -n 4 "$PROBE" exit:5 "$marker"
expect_rc 5
end

# hydra ends the job with 0 or 9 (its SIGKILL of the others), as it races.
begin "a PE leaves with _exit(0) while the others wait: the job ends"
hydra -n 4 "$PROBE" _exit:0 "$marker"
[ "$rc" -ne 124 ] || bad "timed out: the others were left waiting"
expect_no_line "not reached"
end

# ---- MPICH and PlugSHMEM in one program: one connection, shared -----------

if [ -n "$MPI_PROBE" ]; then
    for order in mpi-shmem shmem-mpi; do
        begin "MPI and PlugSHMEM ($order) agree on ranks, 4 PEs"
        hydra -n 4 "$MPI_PROBE" "$order" "$marker"
        expect_rc 0
        for ((r = 0; r < 4; r++)); do
            expect_line "mpi rank $r of 4 pe $r of 4"
        done
        end
    done
else
    begin "MPI and PlugSHMEM in one program"
    skip_case "no MPI probe (MPICH's pkg-config 'mpich' not found)"
fi

# ---- wrong PMI environments: one line naming the launcher, no singleton ----

EXPECTED="expected the connection to the PMI launcher \(MPICH's mpiexec, srun --mpi=pmi2, oshrun\)"

# bad_env NAME REGEX ENV...: run the probe alone with ENV; exit 1, exactly
# one stderr line (matching REGEX), no PE started.
bad_env() {
    local name=$1 re=$2
    shift 2
    begin "$name"
    run env "$@" "$PROBE" "" "$marker"
    expect_rc 1
    expect_err "plugshmem: bootstrap: $re"
    [ "$(wc -l <"$ERR")" -eq 1 ] || bad "expected exactly one stderr line"
    expect_no_line "^probe PE"
    end
}

bad_env "PMI_RANK without PMI_FD or PMI_PORT" \
    "PMI_RANK or PMI_SIZE is set, as by a PMI launcher, but neither PMI_FD nor PMI_PORT; expected one of them to name the connection to the PMI launcher .*" \
    PMI_RANK=0 PMI_SIZE=2
bad_env "PMI_FD pointing nowhere" \
    "PMI_FD=99 is not an open descriptor; $EXPECTED" \
    PMI_FD=99 PMI_RANK=0 PMI_SIZE=2
bad_env "PMI_FD not a socket" \
    "PMI_FD=0 is not a socket; $EXPECTED" \
    PMI_FD=0 PMI_RANK=0 PMI_SIZE=2
bad_env "PMI_FD not a number" \
    "PMI_FD=six is not a descriptor number; $EXPECTED" \
    PMI_FD=six PMI_RANK=0 PMI_SIZE=2
bad_env "PMI_PORT refusing connections" \
    "cannot connect to PMI_PORT=127.0.0.1:1: Connection refused; $EXPECTED" \
    PMI_PORT=127.0.0.1:1 PMI_ID=0
bad_env "PMI_PORT without a port" \
    "PMI_PORT=localhost is not HOST:PORT; $EXPECTED" \
    PMI_PORT=localhost PMI_ID=0
bad_env "PMIx variables without a PMIx server" \
    "started by a PMIx launcher \(oshrun, srun --mpi=pmix, Open MPI's mpirun; PMIX_NAMESPACE=nosuch\) but PMIx_Init failed: .*; expected that launcher's PMIx server to answer" \
    PMIX_NAMESPACE=nosuch PMIX_RANK=0

# A socket whose far end is not a PMI server: it answers nonsense, or
# closes. The far end is a socket pair held by python.
FAKE_SERVER='
import os, socket, subprocess, sys
a, b = socket.socketpair()
env = dict(os.environ, PMI_FD=str(b.fileno()), PMI_RANK="0", PMI_SIZE="2")
p = subprocess.Popen(sys.argv[2:], env=env, pass_fds=[b.fileno()])
b.close()
a.recv(4096)
if sys.argv[1]:
    a.sendall(sys.argv[1].encode() + b"\n")
else:
    a.close()
sys.exit(p.wait())
'

if command -v python3 >/dev/null; then
    begin "PMI_FD answering nonsense"
    run python3 -c "$FAKE_SERVER" "cmd=bogus" "$PROBE" "" "$marker"
    expect_rc 1
    expect_err "plugshmem: bootstrap: the PMI launcher on PMI_FD=[0-9]+ answered 'cmd=bogus' to 'cmd=init pmi_version=1 pmi_subversion=1'; expected cmd=response_to_init from a PMI-1 server"
    [ "$(wc -l <"$ERR")" -eq 1 ] || bad "expected exactly one stderr line"
    end

    begin "PMI_FD closed by the launcher"
    run python3 -c "$FAKE_SERVER" "" "$PROBE" "" "$marker"
    expect_rc 1
    expect_err "plugshmem: bootstrap: the PMI launcher on PMI_FD=[0-9]+ closed the connection after 'cmd=init pmi_version=1 pmi_subversion=1'; expected cmd=response_to_init"
    [ "$(wc -l <"$ERR")" -eq 1 ] || bad "expected exactly one stderr line"
    end
fi

# Under hydra itself, with every PE's PMI_FD broken: PE 0 reports at once,
# the others 2 s later (hydra does not end a job for a process that never
# spoke PMI): the same line, and no PE started.
begin "mpiexec with a broken PMI_FD in every PE"
hydra -n 4 env PMI_FD=99 "$PROBE" "" "$marker"
expect_failed
expect_err "plugshmem: bootstrap: PMI_FD=99 is not an open descriptor; $EXPECTED"
[ "$(grep -v '^plugshmem: bootstrap: PMI_FD=99 is not an open descriptor' "$ERR" | grep -c plugshmem)" -eq 0 ] \
    || bad "other messages than that line"
expect_no_line "^probe PE"
end

begin "SHMEM_BOOTSTRAP=nonsense"
run env SHMEM_BOOTSTRAP=nonsense "$PROBE" "" "$marker"
expect_rc 1
expect_err "plugshmem: SHMEM_BOOTSTRAP='nonsense' is not known; use one of auto, pmix, pmi, singleton"
end

begin "SHMEM_BOOTSTRAP=singleton under hydra: 2 jobs of 1 PE, as asked"
hydra -n 2 env SHMEM_BOOTSTRAP=singleton "$PROBE" "" "$marker"
expect_rc 0
[ "$(grep -cEx 'probe PE 0 of 1: local 1 mapped 1 transport shm bootstrap singleton' "$OUT")" -eq 2 ] \
    || bad "expected two singleton PEs"
end

finish
