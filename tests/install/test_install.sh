#!/bin/bash
# `meson install` gives a working install, and the install still works
# after being moved: oshcc compiles against it, oshrun runs a 4-PE job on
# the installed transport plugin, shmem_info finds the plugin beside the
# installed library, and pkg-config describes the library.
#   test_install.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$1 src=$2
pass=0 fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if meson install -C "$build" --destdir "$work/stage" --quiet >"$work/install.log" 2>&1; then
  ok "meson install"
else
  bad "meson install"; cat "$work/install.log"; echo "$pass passed, $fail failed"; exit 1
fi
prefix=$(find "$work/stage" -path '*/bin/oshrun' -printf '%h\n' | head -n 1)
prefix=${prefix%/bin}
# Move the whole install elsewhere: nothing may depend on its first path.
mv "$prefix" "$work/moved"
p=$work/moved

lib=$(find "$p" -name 'libplugshmem.so.0' | head -n 1)
plugin=$(find "$p" -name 'transport-shm.so' | head -n 1)
[ -n "$lib" ] && ok "library installed ($lib)" || bad "library installed"
[ -n "$plugin" ] && [ "$(dirname "$plugin")" = "$(dirname "$lib")/plugshmem" ] \
  && ok "plugin in the plugshmem folder beside the library" || bad "plugin location: $plugin"
[ -f "$p/include/shmem.h" ] && [ -f "$p/include/pshmem.h" ] && [ -f "$p/include/shmemx.h" ] \
  && ok "headers installed" || bad "headers installed"

if "$p/bin/oshcc" -O2 "$src/examples/hello.c" -o "$work/hello" 2>"$work/cc.log"; then
  ok "oshcc compiles against the moved install"
else
  bad "oshcc"; cat "$work/cc.log"
fi
out=$(cd "$work" && timeout 60 "$p/bin/oshrun" -n 4 ./hello 2>&1)
if [ $? = 0 ] && [ "$(grep -c ': ok$' <<<"$out")" = 4 ] && grep -q 'transport shm' <<<"$out"; then
  ok "4-PE job on the installed shm plugin"
else
  bad "4-PE job"; echo "$out"
fi
info=$("$p/bin/shmem_info" 2>&1)
if grep -q "$(dirname "$plugin")" <<<"$info" && grep -q 'would be selected: shm' <<<"$info"; then
  ok "shmem_info finds the plugin beside the moved library"
else
  bad "shmem_info"; echo "$info"
fi
pc=$(find "$p" -name plugshmem.pc | head -n 1)
if [ -n "$pc" ] && PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --libs plugshmem | grep -q -- -lplugshmem; then
  ok "pkg-config file"
else
  bad "pkg-config file"
fi
if ! ldd "$lib" | grep -Eq 'libfabric|libucp|libucs|libmpi'; then
  ok "core library links no network library"
else
  bad "core library links a network library"; ldd "$lib"
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
