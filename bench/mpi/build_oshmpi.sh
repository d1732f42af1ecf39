#!/bin/bash
# Builds OSHMPI (github.com/pmodels/oshmpi, OpenSHMEM over MPI-3) against
# the installed MPICH in DIR (default /work/oshmpi-build), outside this
# repository, and compiles bench/p2p/p2p_bench.c with its oshcc as
# DIR/p2p_bench.oshmpi for bench/mpi/icount_mpi.sh.  Default configure
# options: what a user gets (AMOs by active messages and an asynchronous
# progress thread, MPI_THREAD_MULTIPLE).
#
#   bench/mpi/build_oshmpi.sh [DIR] [CONFIGURE OPTIONS...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:-/work/oshmpi-build}
shift || true
mkdir -p "$dir"
cd "$dir"
if [ ! -d src ]; then
    git clone -q https://github.com/pmodels/oshmpi src
    git -C src submodule update -q --init
fi
cd src
[ -x configure ] || ./autogen.sh >../autogen.log 2>&1
./configure --prefix="$dir/install" CC=mpicc CXX=mpicxx "$@" >../configure.log 2>&1
make -j2 >../make.log 2>&1
make install >../install.log 2>&1
"$dir/install/bin/oshcc" -O2 -DHAVE_CALLGRIND -I"$here/.." -o "$dir/p2p_bench.oshmpi" "$here/../p2p/p2p_bench.c"
echo "built $dir/p2p_bench.oshmpi"
