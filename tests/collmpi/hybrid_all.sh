#!/bin/sh
# hybrid_all.sh LAUNCHER NP PROGRAM: the hybrid program in each of its four
# orders (MPI_Init or shmem_init first, MPI_Finalize or shmem_finalize
# first), each through run_collmpi.sh; fails if any does.
here=$(dirname "$0")
launcher=$1; np=$2; prog=$3
status=0
for init in mpi-first shmem-first; do
    for fini in mpi-first shmem-first; do
        sh "$here/run_collmpi.sh" --expect-out "^hybrid: ok" "$launcher" "$np" "$prog" \
            "$init" "$fini" || { echo "hybrid_all: $init $fini failed"; status=1; }
    done
done
exit $status
