#!/bin/sh
# Installs what PlugSHMEM needs (Debian 12 packages), builds it in ./build,
# and runs a real job: the hello example on 4 PEs on the default transport.
# Run as root, or as a user who may sudo.
set -eu
cd "$(dirname "$0")"
packages="build-essential meson ninja-build pkg-config python3 libpmix-dev libfabric-dev
libfabric-bin libucx-dev mpich libmpich-dev valgrind"
if [ "${PLUGSHMEM_SKIP_APT:-0}" != 1 ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $packages >/dev/null
fi
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build
echo
echo "Running: build/tools/oshrun -n 4 build/examples/hello"
build/tools/oshrun -n 4 build/examples/hello
