#!/bin/bash
# The plugin SDK works from an install alone: after `meson install` (moved,
# as in test_install.sh), the example transport (examples/transport-loopback)
# is compiled out of the source tree with nothing but pkg-config's flags,
# loaded through SHMEM_TRANSPORT_PATH, and runs the API suite (and the
# signal family, for its put_signal) with the bypass off, so that every
# operation goes through it.
#   test_sdk.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$1 src=$2
pass=0 fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for v in $(env | sed -n 's/^\(SHMEM_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done

if ! meson install -C "$build" --destdir "$work/stage" --quiet >"$work/install.log" 2>&1; then
  bad "meson install"; cat "$work/install.log"; echo "$pass passed, $fail failed"; exit 1
fi
prefix=$(find "$work/stage" -path '*/bin/oshrun' -printf '%h\n' | head -n 1)
mv "${prefix%/bin}" "$work/moved"
p=$work/moved
pc=$(find "$p" -name plugshmem.pc | head -n 1)
export PKG_CONFIG_PATH=$(dirname "$pc")

[ -f "$p/include/plugshmem/transport.h" ] && ok "transport.h installed as <plugshmem/transport.h>" \
  || bad "transport.h not installed"
plugins=$(pkg-config --variable=pluginsdir plugshmem)
shm=$(find "$p" -name transport-shm.so | head -n 1)
if [ -n "$plugins" ] && [ "$(realpath "$plugins")" = "$(realpath "$(dirname "$shm")")" ]; then
  ok "pkg-config's pluginsdir is the folder of the installed plugins"
else
  bad "pluginsdir '$plugins', plugins in $(dirname "$shm")"
fi

# Out of tree: a copy of the source, compiled with pkg-config's flags only.
mkdir -p "$work/ext" "$work/plugins"
cp "$src/examples/transport-loopback/loopback.c" "$work/ext/"
if (cd "$work/ext" && cc -O2 -Wall -Wextra -Werror $(pkg-config --cflags plugshmem) -shared -fPIC \
      -o "$work/plugins/transport-loopback.so" loopback.c) 2>"$work/cc.log"; then
  ok "the example transport builds against the installed SDK"
else
  bad "example transport build"; cat "$work/cc.log"; echo "$pass passed, $fail failed"; exit 1
fi

info=$(SHMEM_TRANSPORT_PATH=$work/plugins "$p/bin/shmem_info" 2>&1)
if grep -q "^  loopback $work/plugins/transport-loopback.so" <<<"$info" &&
   grep -q "ABI 2\.[0-9]*, example: one node.*; usable" <<<"$info"; then
  ok "shmem_info of the install finds the plugin through SHMEM_TRANSPORT_PATH"
else
  bad "shmem_info"; echo "$info" | sed -n '/^Transports/,/^Transport /p'
fi

# The installed tools over the plugin.
export SHMEM_TRANSPORT_PATH=$work/plugins SHMEM_TRANSPORT=loopback SHMEM_BYPASS=0
"$p/bin/oshcc" -O2 "$src/examples/hello.c" -o "$work/hello" 2>"$work/cc.log" || cat "$work/cc.log"
out=$(cd "$work" && SHMEM_LOOPBACK_VERBOSE=1 timeout 60 "$p/bin/oshrun" -n 4 ./hello 2>&1)
if [ $? = 0 ] && [ "$(grep -c ': ok$' <<<"$out")" = 4 ] && grep -q 'transport loopback' <<<"$out" &&
   grep -q '^loopback transport: 4 PEs by load/store$' <<<"$out"; then
  ok "4-PE job of the installed oshrun on the loopback plugin"
else
  bad "4-PE job on loopback"; echo "$out"
fi

# Its settings table reaches the core: a bad value is refused in one line.
out=$(cd "$work" && SHMEM_LOOPBACK_VERBOSE=maybe timeout 60 "$p/bin/oshrun" -n 2 ./hello 2>&1)
rc=$?
if [ $rc = 1 ] && [ "$(grep -c "SHMEM_LOOPBACK_VERBOSE='maybe' is not a boolean" <<<"$out")" = 1 ]; then
  ok "the plugin's setting is checked by the core"
else
  bad "bad plugin setting (status $rc)"; echo "$out"
fi

# The API suite from the build tree, as tests/prog runs it.
oshrun=$build/tools/oshrun suite=$build/tests/prog/suite_api
for np in singleton 1 2 3 8; do
  if [ $np = singleton ]; then
    out=$(SHMEM_LOOPBACK_VERBOSE=1 timeout 300 "$suite" --np 1 2>&1)
  else
    out=$(SHMEM_LOOPBACK_VERBOSE=1 timeout 300 "$oshrun" -n $np "$suite" 2>&1)
  fi
  rc=$?
  if [ $rc = 0 ] && grep -q '^[0-9]* families passed$' <<<"$out" &&
     grep -q "^loopback transport: ${np/singleton/1} PEs by load/store$" <<<"$out"; then
    ok "API suite over loopback, $np"
  else
    bad "API suite over loopback, $np (status $rc)"; echo "$out" | tail -20
  fi
done
if [ -x "$build/tests/p2p/suite_p2p" ]; then
  out=$(timeout 300 "$oshrun" -n 3 "$build/tests/p2p/suite_p2p" signal 2>&1)
  rc=$?
  if [ $rc = 0 ] && grep -q '^1 families passed$' <<<"$out"; then
    ok "signal family over loopback (its put_signal), 3 PEs"
  else
    bad "signal family over loopback (status $rc)"; echo "$out" | tail -20
  fi
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
