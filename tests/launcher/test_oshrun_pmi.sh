#!/usr/bin/env bash
# oshrun's PMI-1 server: MPICH's MPI_Init under oshrun forms one job with
# oshrun's ranks, PlugSHMEM runs over PMI (SHMEM_BOOTSTRAP=pmi) as over
# PMIx, and the protocol's answers, aborts and errors.
#
#   test_oshrun_pmi.sh OSHRUN LAUNCH_PROBE PMI_ALLGATHER [MPI_PROBE]
#
# PMI_ALLGATHER is the PMI bootstrap alone; MPI_PROBE (built when MPICH is
# found) is optional; raw-protocol cases need python3.
set -u

if [ $# -lt 3 ]; then
    echo "usage: $0 OSHRUN LAUNCH_PROBE PMI_ALLGATHER [MPI_PROBE]" >&2
    exit 2
fi
OSHRUN=$(realpath "$1") || exit 2
PROBE=$(realpath "$2") || exit 2
ALLGATHER=$(realpath "$3") || exit 2
MPI_PROBE=${4:+$(realpath "$4")}
. "$(dirname "$0")/launch_lib.sh"

for v in $(env | sed -n 's/^\(SHMEM_[A-Z_]*\|FI_PROVIDER\|PMIX_[A-Z_]*\|PMI_[A-Z_]*\)=.*/\1/p'); do
    unset "$v"
done

oshrun() { run "$OSHRUN" "$@"; }

# ---- MPICH under oshrun ----------------------------------------------------

if [ -n "$MPI_PROBE" ]; then
    for n in 1 2 4; do
        begin "MPI_Init under oshrun: one MPI_COMM_WORLD of $n"
        oshrun -n "$n" "$MPI_PROBE" mpi "$marker"
        expect_rc 0
        for ((r = 0; r < n; r++)); do
            expect_line "mpi rank $r of $n sum $((n * (n - 1) / 2))"
        done
        [ "$(grep -c '^mpi rank' "$OUT")" -eq "$n" ] || bad "expected $n rank lines"
        expect_err_empty
        end
    done
    for order in mpi-shmem shmem-mpi; do
        begin "MPI (PMI) and PlugSHMEM (PMIx) in one program ($order): same ranks"
        oshrun -n 4 "$MPI_PROBE" "$order" "$marker"
        expect_rc 0
        for ((r = 0; r < 4; r++)); do
            expect_line "mpi rank $r of 4 pe $r of 4"
        done
        end
    done
else
    begin "MPI under oshrun"
    skip_case "no MPI probe (MPICH's pkg-config 'mpich' not found)"
fi

# ---- PlugSHMEM over oshrun's PMI -------------------------------------------

begin "PMIx preferred when both are offered"
oshrun -n 4 "$PROBE" "" "$marker"
expect_rc 0
expect_pes 4 4 shm pmix
end

for n in 1 4; do
    begin "SHMEM_BOOTSTRAP=pmi under oshrun, $n PEs"
    SHMEM_BOOTSTRAP=pmi oshrun -n "$n" "$PROBE" "" "$marker"
    expect_rc 0
    expect_pes "$n" "$n" shm pmi
    expect_err_empty
    end
done

begin "bootstrap exchanges of 0 B to 70 kB over oshrun's PMI, 3 PEs"
oshrun -n 3 "$ALLGATHER" "$marker"
expect_rc 0
for r in 0 1 2; do
    expect_line "allgather ok: rank $r of 3, local 3"
done
end

begin "SHMEM_BOOTSTRAP=pmi: shmem_global_exit(7) ends the job with 7"
SHMEM_BOOTSTRAP=pmi oshrun -n 4 "$PROBE" global_exit:7 "$marker"
expect_rc 7
expect_no_line "not reached|returned from"
end

begin "SHMEM_BOOTSTRAP=pmi: a PE crashes"
SHMEM_BOOTSTRAP=pmi oshrun -n 4 "$PROBE" crash "$marker"
expect_rc 139
expect_err "oshrun: PE 1 \(pid [0-9]+\) killed by signal 11 \(Segmentation fault\); ending the job"
end

begin "SHMEM_BOOTSTRAP=pmi: a PE exits with 5 without shmem_finalize"
SHMEM_BOOTSTRAP=pmi oshrun -n 4 "$PROBE" exit:5 "$marker"
expect_rc 5
end

# ---- the protocol, from a raw client -----------------------------------------

# A PMI-1 client in python: CLIENT "cmd=... ; cmd=..." sends each request,
# prints "R: reply" for each (requests named "cmd=abort..." get no reply;
# "exit" leaves at once). @RANK@ in a request is replaced by the rank,
# @KVS@ by the kvsname (asked for, unprinted, when first needed).
CLIENT='
import os, socket, sys
rank = os.environ["PMI_RANK"]
s = socket.socket(fileno=int(os.environ["PMI_FD"]))
f = s.makefile("rw")
kvs = None
for req in sys.argv[1].split(" ; "):
    if "@KVS@" in req and kvs is None:
        f.write("cmd=get_my_kvsname\n"); f.flush()
        kvs = f.readline().split("kvsname=")[1].strip()
    req = req.replace("@RANK@", rank).replace("@KVS@", kvs or "")
    if req == "exit":
        os._exit(0)
    f.write(req + "\n"); f.flush()
    if not req.startswith("cmd=abort"):
        # one write per line: the PEs share stdout
        os.write(1, (rank + ": " + f.readline().strip() + "\n").encode())
'

if command -v python3 >/dev/null; then
    begin "each PE gets PMI_FD, PMI_RANK, PMI_SIZE; outer PMI variables are dropped"
    PMI_FD=99 PMI_PORT=elsewhere:1 PMI_ID=7 oshrun -n 3 sh -c \
        'echo "rank=$PMI_RANK size=$PMI_SIZE id=${PMI_ID:-none} port=${PMI_PORT:-none} local=$MPI_LOCALRANKID/$MPI_LOCALNRANKS"; [ -S /dev/fd/$PMI_FD ] && echo "rank=$PMI_RANK socket"' "$marker"
    expect_rc 0
    for r in 0 1 2; do
        expect_line "rank=$r size=3 id=none port=none local=$r/3"
        expect_line "rank=$r socket"
    done
    end

    begin "init, maxes, kvsname, put, barrier, get, finalize across 3 PEs"
    oshrun -n 3 python3 -c "$CLIENT" "cmd=init pmi_version=1 pmi_subversion=1 ; cmd=get_maxes ; cmd=get_universe_size ; cmd=get_appnum ; cmd=get_my_kvsname ; cmd=barrier_in ; cmd=finalize" "$marker"
    expect_rc 0
    for r in 0 1 2; do
        expect_line "$r: cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0"
        expect_line "$r: cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024"
        expect_line "$r: cmd=universe_size size=3"
        expect_line "$r: cmd=appnum appnum=0"
        expect_line "$r: cmd=my_kvsname kvsname=oshrun\.[0-9a-f]{32}"
        expect_line "$r: cmd=barrier_out"
        expect_line "$r: cmd=finalize_ack"
    done
    [ "$(sed -n 's/^[0-9]: cmd=my_kvsname kvsname=//p' "$OUT" | sort -u | wc -l)" -eq 1 ] \
        || bad "PEs got different kvsnames"
    end

    begin "values put before a barrier are read by every PE after it"
    oshrun -n 3 python3 -c "$CLIENT" "cmd=init pmi_version=1 pmi_subversion=1 ; cmd=put kvsname=@KVS@ key=k@RANK@ value=v@RANK@ ; cmd=barrier_in ; cmd=get kvsname=@KVS@ key=k0 ; cmd=get kvsname=@KVS@ key=k1 ; cmd=get kvsname=@KVS@ key=k2 ; cmd=get kvsname=@KVS@ key=nosuch ; cmd=get kvsname=@KVS@ key=PMI_process_mapping ; cmd=put kvsname=wrong key=x value=y ; cmd=finalize" "$marker"
    expect_rc 0
    for r in 0 1 2; do
        expect_line "$r: cmd=put_result rc=0 msg=success"
        for k in 0 1 2; do
            expect_line "$r: cmd=get_result rc=0 msg=success value=v$k"
        done
        expect_line "$r: cmd=get_result rc=-1 msg=key_not_found"
        expect_line "$r: cmd=get_result rc=0 msg=success value=\(vector,\(0,1,3\)\)"
        expect_line "$r: cmd=put_result rc=-1 msg=unknown_kvsname"
    done
    end

    begin "cmd=abort exitcode=9 ends the job with 9"
    oshrun -n 3 python3 -c "$CLIENT" "cmd=init pmi_version=1 pmi_subversion=1 ; cmd=barrier_in ; cmd=abort exitcode=9 ; cmd=barrier_in" "$marker"
    expect_rc 9
    end

    begin "PMI init, then exit 0 without finalize"
    oshrun -n 2 python3 -c "$CLIENT" "cmd=init pmi_version=1 pmi_subversion=1 ; exit" "$marker"
    expect_rc 1
    expect_err "oshrun: PE [01] \(pid [0-9]+\) exited without finalizing; ending the job"
    end

    begin "a PMI command oshrun does not serve: one line, the job ends"
    oshrun -n 2 python3 -c "$CLIENT" "cmd=init pmi_version=1 pmi_subversion=1 ; cmd=spawn nprocs=2" "$marker"
    expect_rc 1
    expect_err "oshrun: PE [01] sent the PMI command 'cmd=spawn nprocs=2'; oshrun serves PMI-1; ending the job"
    expect_err_once "^oshrun: PE"
    end

    begin "PMI-2 init is refused with one line"
    oshrun -n 1 python3 -c "$CLIENT" "cmd=init pmi_version=2 pmi_subversion=0" "$marker"
    expect_rc 1
    expect_err "oshrun: PE 0 asked for another PMI version: 'cmd=init pmi_version=2 pmi_subversion=0'; oshrun serves PMI-1; ending the job"
    end
else
    begin "raw PMI protocol"
    skip_case "no python3"
fi

finish
