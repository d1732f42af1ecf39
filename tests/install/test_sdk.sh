#!/bin/bash
# The plugin SDK works from an install alone: after `meson install` (moved,
# as in test_install.sh), the example transport is compiled from the
# install's own copy (pkg-config's sdkdir) with nothing but pkg-config's
# flags, in C and in its C++ variant (the latter with -fvisibility=hidden,
# so that only PSHM_TRANSPORT_EXPORT makes its descriptor visible), and
# the installed plugshmem-transport-check runs the installed API suite over
# each at 1, 2 and 3 PEs with the bypass off; the C one also runs the
# suite as a singleton and at 8 PEs, and the build tree's signal family
# (its put_signal).  The check must fail, by name, a plugin whose get is
# wrong and a C++ plugin whose descriptor is not exported.  The installed
# helpers (SDKDIR/common: the ticket lock and the progress thread) build
# as C and C++ and work (sdk_helpers.c).
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

sdk=$(pkg-config --variable=sdkdir plugshmem)
missing=
for f in writing-a-transport.md examples/transport-loopback/loopback.c \
         examples/transport-loopback/loopback.cpp common/progress_thread.c \
         common/progress_thread.h common/lock.h common/cpu_relax.h common/backoff.h; do
  [ -s "$sdk/$f" ] || missing="$missing $f"
done
if [ -z "$missing" ] && cmp -s "$sdk/writing-a-transport.md" "$src/docs/writing-a-transport.md"; then
  ok "the SDK's guide, examples and helpers are in pkg-config's sdkdir"
else
  bad "sdkdir '$sdk' lacks:${missing:- nothing, but its guide differs from docs/}"
fi
check=$p/bin/plugshmem-transport-check
[ -x "$check" ] && ok "plugshmem-transport-check installed in bin/" || bad "no $check"

# Out of tree: copies of the installed examples, compiled with pkg-config's
# flags only.
mkdir -p "$work/ext" "$work/plugins" "$work/bad"
cp "$sdk/examples/transport-loopback/loopback.c" "$sdk/examples/transport-loopback/loopback.cpp" \
  "$work/ext/"
if (cd "$work/ext" && cc -O2 -Wall -Wextra -Werror $(pkg-config --cflags plugshmem) -shared -fPIC \
      -o "$work/plugins/transport-loopback.so" loopback.c) 2>"$work/cc.log"; then
  ok "the example transport builds against the installed SDK"
else
  bad "example transport build"; cat "$work/cc.log"; echo "$pass passed, $fail failed"; exit 1
fi
cxx=$(command -v c++ || command -v g++ || command -v clang++)
if [ -n "$cxx" ] && (cd "$work/ext" && "$cxx" -std=c++11 -O2 -Wall -Wextra -Werror -pedantic \
      -fvisibility=hidden $(pkg-config --cflags plugshmem) -shared -fPIC \
      -o "$work/plugins/transport-loopbackcxx.so" loopback.cpp) 2>"$work/cxx.log"; then
  ok "the C++ example transport builds against the installed SDK (C++11, -fvisibility=hidden)"
else
  bad "C++ example transport build (${cxx:-no C++ compiler})"; cat "$work/cxx.log" 2>/dev/null
fi

info=$(SHMEM_TRANSPORT_PATH=$work/plugins "$p/bin/shmem_info" 2>&1)
if grep -q "^  loopback $work/plugins/transport-loopback.so" <<<"$info" &&
   grep -q "ABI 2\.[0-9]*, example: one node.*; usable" <<<"$info"; then
  ok "shmem_info of the install finds the plugin through SHMEM_TRANSPORT_PATH"
else
  bad "shmem_info"; echo "$info" | sed -n '/^Transports/,/^Transport /p'
fi

# The installed check over each example: every PE count passes, and each
# job's own output (-v) shows that the plugin carried it.
for t in loopback loopbackcxx; do
  [ -f "$work/plugins/transport-$t.so" ] || continue
  upper=$(tr a-z A-Z <<<"$t")
  out=$(cd "$work" && env "SHMEM_${upper}_VERBOSE=1" timeout 900 "$check" -v \
          "$work/plugins/transport-$t.so" 2>&1)
  rc=$?
  if [ $rc = 0 ] && [ "$(grep -cE "^ok   $t, [123] PEs?: [0-9]+ families passed" <<<"$out")" = 3 ] &&
     grep -q "^$t: 3 passed, 0 failed (SHMEM_BYPASS=0)$" <<<"$out" &&
     [ "$(grep -cE "^  \[[123]\] $t transport: [123] PEs by load/store" <<<"$out")" -ge 3 ]; then
    ok "plugshmem-transport-check $t: API suite at 1, 2 and 3 PEs"
  else
    bad "plugshmem-transport-check $t (status $rc)"; grep -v '^  \[' <<<"$out" | tail -40
  fi
done

# The check fails, by PE count, on a plugin that is wrong: its gets copy
# half of what they should.
sed 's|memcpy(dst, at(pe, seg, off), len);|memcpy(dst, at(pe, seg, off), len / 2);|' \
  "$work/ext/loopback.c" >"$work/ext/halfget.c"
if ! cmp -s "$work/ext/loopback.c" "$work/ext/halfget.c" &&
   cc $(pkg-config --cflags plugshmem) -shared -fPIC -o "$work/bad/transport-loopback.so" \
     "$work/ext/halfget.c" 2>"$work/cc.log"; then
  out=$(cd "$work" && timeout 300 "$check" --np 2 --timeout 120 "$work/bad/transport-loopback.so" rma 2>&1)
  rc=$?
  if [ $rc = 1 ] && grep -q '^FAIL loopback, 2 PEs: exit status [1-9]' <<<"$out" &&
     grep -q '^loopback: 0 passed, 1 failed' <<<"$out"; then
    ok "plugshmem-transport-check fails a plugin whose get is wrong"
  else
    bad "check of a wrong plugin (status $rc)"; echo "$out" | tail -20
  fi
else
  bad "could not make the wrong plugin"; cat "$work/cc.log"
fi
# ... and a C++ plugin whose descriptor is declared as C would declare it
# (no extern "C"): refused by name, before any job.
if [ -n "$cxx" ]; then
  sed 's|^PSHM_TRANSPORT_EXPORT const pshm_transport_desc|__attribute__((visibility("default"))) const pshm_transport_desc|' \
    "$work/ext/loopback.cpp" >"$work/ext/noexport.cpp"
  "$cxx" $(pkg-config --cflags plugshmem) -shared -fPIC -o "$work/bad/transport-loopbackcxx.so" \
    "$work/ext/noexport.cpp" 2>/dev/null
  out=$(cd "$work" && timeout 120 "$check" "$work/bad/transport-loopbackcxx.so" 2>&1)
  rc=$?
  if [ $rc = 1 ] && grep -q "no symbol 'plugshmem_transport'" <<<"$out" &&
     grep -q "^FAIL transport 'loopbackcxx' is not usable here" <<<"$out"; then
    ok "plugshmem-transport-check refuses a C++ plugin without PSHM_TRANSPORT_EXPORT"
  else
    bad "check of an unexported C++ plugin (status $rc)"; echo "$out" | tail -10
  fi
fi

# The helpers as a plugin uses them: SDKDIR/common on the include path,
# progress_thread.c compiled as C beside the plugin's own files (C or C++).
for lang in c c++; do
  comp=cc
  [ $lang = c++ ] && comp=$cxx
  [ -n "$comp" ] || continue
  if cc -c -O2 -Wall -Wextra -Werror -I"$sdk/common" -o "$work/ext/pt.o" \
       "$sdk/common/progress_thread.c" 2>"$work/h.log" &&
     "$comp" -x $lang -O2 -Wall -Wextra -Werror -I"$sdk/common" -c -o "$work/ext/h.o" \
       "$src/tests/install/sdk_helpers.c" 2>>"$work/h.log" &&
     "$comp" -o "$work/ext/helpers" "$work/ext/h.o" "$work/ext/pt.o" -lpthread 2>>"$work/h.log"; then
    out=$(timeout 30 "$work/ext/helpers" 2>&1)
    if [ $? = 0 ] && grep -qE '^served [1-9]' <<<"$out"; then
      ok "the SDK's ticket lock and progress thread work from $lang ($out)"
    else
      bad "the SDK's helpers from $lang: $out"
    fi
  else
    bad "the SDK's helpers do not build as $lang"; cat "$work/h.log"
  fi
done

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

# The installed API suite without a launcher and at 8 PEs (the check ran
# it at 1 to 3).
suite=$(find "$p" -path '*/plugshmem/suite_api' | head -n 1)
for np in singleton 8; do
  if [ $np = singleton ]; then
    out=$(cd "$work" && SHMEM_LOOPBACK_VERBOSE=1 timeout 300 "$suite" --np 1 2>&1)
  else
    out=$(cd "$work" && SHMEM_LOOPBACK_VERBOSE=1 timeout 300 "$p/bin/oshrun" -n $np "$suite" 2>&1)
  fi
  rc=$?
  if [ $rc = 0 ] && grep -q '^[0-9]* families passed$' <<<"$out" &&
     grep -q "^loopback transport: ${np/singleton/1} PEs by load/store$" <<<"$out"; then
    ok "installed API suite over loopback, $np"
  else
    bad "installed API suite over loopback, $np (status $rc)"; echo "$out" | tail -20
  fi
done
# The signal family is not installed: the build tree's, over the plugin.
if [ -x "$build/tests/p2p/suite_p2p" ]; then
  out=$(timeout 300 "$build/tools/oshrun" -n 3 "$build/tests/p2p/suite_p2p" signal 2>&1)
  rc=$?
  if [ $rc = 0 ] && grep -q '^1 families passed$' <<<"$out"; then
    ok "signal family over loopback (its put_signal), 3 PEs"
  else
    bad "signal family over loopback (status $rc)"; echo "$out" | tail -20
  fi
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
