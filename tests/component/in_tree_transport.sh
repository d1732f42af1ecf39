#!/bin/bash
# in_tree_transport.sh SRC WORK
#
# Adding a transport takes its folder and one line: the loopback example
# (examples/transport-loopback/loopback.c) is put into a copy of the
# source tree as transports/loopback/, with a meson.build of its own and
# subdir('loopback') in transports/meson.build, and nothing else changed
# (diff against a second copy says so).  That tree is configured and
# built; its shmem_info must list the plugin from build/transports/loopback/
# (found by scanning, core/loader.c) and a 2-PE job must run on it.
set -u
src=$1
work=$2/in-tree
fails=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fails=$((fails + 1)); }

rm -rf "$work"
mkdir -p "$work/orig" "$work/src"
# The source without build trees (a folder with a build.ninja) or .git.
for d in orig src; do
    tar -C "$src" --exclude=.git --exclude-tag-all=build.ninja -cf - . | tar -C "$work/$d" -xf - ||
        { echo "FAIL cannot copy $src"; exit 1; }
done

tree=$work/src
mkdir "$tree/transports/loopback"
cp "$src/examples/transport-loopback/loopback.c" "$tree/transports/loopback/"
cat >"$tree/transports/loopback/meson.build" <<'MESON'
shared_module('transport-loopback', 'loopback.c',
  name_prefix : '',
  dependencies : plugin_sdk_dep,
  gnu_symbol_visibility : 'hidden',
  install : true, install_dir : plugin_dir)
MESON
echo "subdir('loopback')" >>"$tree/transports/meson.build"

diffs=$(diff -rq "$work/orig" "$tree" | sed "s|$work/||g" | sort)
want="Files orig/transports/meson.build and src/transports/meson.build differ
Only in src/transports: loopback"
if [ "$diffs" = "$want" ]; then
    ok "the tree differs in transports/loopback/ and transports/meson.build only"
else
    bad "the tree differs elsewhere too:"; echo "$diffs"
fi

b=$work/build
# Only what the job needs: no network transports, no tests built.
if ! meson setup --buildtype=plain -Dofi=disabled -Ducx=disabled -Dmpi=disabled "$b" "$tree" \
        >"$work/setup.log" 2>&1; then
    bad "meson setup"; tail -20 "$work/setup.log"; exit 1
fi
if ! ninja -C "$b" transports/loopback/transport-loopback.so transports/shm/transport-shm.so \
        tools/shmem_info tools/oshrun examples/hello >"$work/ninja.log" 2>&1; then
    bad "ninja"; tail -30 "$work/ninja.log"; exit 1
fi
ok "built transports/loopback/transport-loopback.so in the tree"

unset SHMEM_TRANSPORT_PATH SHMEM_COLLECTIVES
info=$(SHMEM_TRANSPORT=loopback "$b/tools/shmem_info" 2>&1)
if grep -q "^  loopback $b/transports/loopback/transport-loopback.so\$" <<<"$info" &&
   grep -q '^Transport that would be selected: loopback$' <<<"$info"; then
    ok "shmem_info finds it in build/transports/loopback/ and would select it"
else
    bad "shmem_info does not find or select loopback"; echo "$info" | head -30
fi
if grep -q "^  shm    $b/transports/shm/transport-shm.so\$" <<<"$info"; then
    ok "shm is still found beside it"
else
    bad "shm is not listed"; echo "$info" | head -30
fi

out=$(cd "$work" && SHMEM_TRANSPORT=loopback SHMEM_BYPASS=0 SHMEM_LOOPBACK_VERBOSE=1 \
      timeout 120 "$b/tools/oshrun" -n 2 "$b/examples/hello" 2>&1)
rc=$?
if [ $rc = 0 ] && [ "$(grep -c 'on transport loopback: ok$' <<<"$out")" = 2 ] &&
   grep -q '^loopback transport: 2 PEs by load/store$' <<<"$out"; then
    ok "a 2-PE job runs on it"
else
    bad "2-PE job on loopback (exit $rc)"; echo "$out"
fi

[ $fails = 0 ] && rm -rf "$work"
echo "$fails failed"
[ $fails = 0 ]
