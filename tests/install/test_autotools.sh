#!/bin/bash
# The compiler wrappers as autotools uses them: a small autotools project
# (generated here) configured with `./configure CC=oshcc CXX=oshc++` builds a
# C and a C++ program that run at 2 PEs under the installed oshrun; and a
# wrapper never recurses (CC or PLUGSHMEM_CC naming a wrapper, or a compiler
# script that runs the wrapper again).  Every step has a timeout, so a
# recursion fails instead of hanging.  Skipped (77) without autoreconf.
#   test_autotools.sh BUILD_DIR
set -uo pipefail
build=$1
command -v autoreconf >/dev/null && command -v automake >/dev/null ||
  { echo "SKIP: autoreconf/automake not installed (Debian: autoconf automake)"; exit 77; }
pass=0 fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if ! meson install -C "$build" --destdir "$work/stage" --quiet >"$work/install.log" 2>&1; then
  bad "meson install"; cat "$work/install.log"; echo "$pass passed, $fail failed"; exit 1
fi
bin=$(find "$work/stage" -path '*/bin/oshcc' -printf '%h\n' | head -n 1)
export PATH="$bin:$PATH"

proj=$work/proj
mkdir -p "$proj"
cat >"$proj/configure.ac" <<'EOF'
AC_INIT([ringtest], [1.0])
AM_INIT_AUTOMAKE([foreign -Wall])
AC_PROG_CC
AC_PROG_CXX
AC_CHECK_HEADERS([shmem.h], [], [AC_MSG_ERROR([shmem.h not found through the wrapper])])
AC_SEARCH_LIBS([shmem_init], [], [], [AC_MSG_ERROR([shmem_init does not link through the wrapper])])
AC_CONFIG_FILES([Makefile])
AC_OUTPUT
EOF
cat >"$proj/Makefile.am" <<'EOF'
bin_PROGRAMS = ring ringxx
ring_SOURCES = ring.c
ringxx_SOURCES = ringxx.cpp
EOF
cat >"$proj/ring.c" <<'EOF'
#include <shmem.h>
#include <stdio.h>
static int got = -1;
int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_int_p(&got, me, (me + 1) % n);
    shmem_barrier_all();
    printf("PE %d got %d\n", me, got);
    int rc = got == (me + n - 1) % n ? 0 : 1;
    shmem_finalize();
    return rc;
}
EOF
cat >"$proj/ringxx.cpp" <<'EOF'
#include <shmem.h>
#include <cstdio>
static long sum;
int main()
{
    shmem_init();
    int me = shmem_my_pe();
    shmem_long_atomic_add(&sum, me + 1, 0);
    shmem_barrier_all();
    if (me == 0)
        std::printf("C++ sum %ld\n", sum);
    int rc = me == 0 && sum != (long)shmem_n_pes() * (shmem_n_pes() + 1) / 2;
    shmem_finalize();
    return rc;
}
EOF
cd "$proj" || exit 1
if timeout 300 autoreconf -i >"$work/autoreconf.log" 2>&1; then
  ok "autoreconf -i"
else
  bad "autoreconf -i"; cat "$work/autoreconf.log"
fi
# configure exports CC=oshcc to every compiler run: the wrapper must not
# run itself.
if timeout 300 ./configure CC=oshcc CXX=oshc++ >"$work/configure.log" 2>&1; then
  ok "./configure CC=oshcc CXX=oshc++"
else
  bad "./configure CC=oshcc CXX=oshc++ (status $?)"; tail -n 30 config.log
fi
if timeout 300 make >"$work/make.log" 2>&1; then
  ok "make"
else
  bad "make"; tail -n 30 "$work/make.log"
fi
out=$(timeout 60 oshrun -n 2 ./ring 2>&1)
if [ $? = 0 ] && grep -q '^PE 0 got 1$' <<<"$out" && grep -q '^PE 1 got 0$' <<<"$out"; then
  ok "autotools-built C program at 2 PEs"
else
  bad "C program at 2 PEs"; echo "$out"
fi
out=$(timeout 60 oshrun -n 2 ./ringxx 2>&1)
if [ $? = 0 ] && grep -q '^C++ sum 3$' <<<"$out"; then
  ok "autotools-built C++ program at 2 PEs"
else
  bad "C++ program at 2 PEs"; echo "$out"
fi

# Recursion: CC naming the wrapper (by path, by name, with arguments) is
# ignored; PLUGSHMEM_CC naming one is refused in one line.
cp ring.c "$work/x.c"
cd "$work" || exit 1
for v in "$bin/oshcc" oshcc "$bin/oshcc -O2" "$bin/oshc++"; do
  if CC=$v timeout 60 "$bin/oshcc" x.c -o x >"$work/cc.log" 2>&1 && [ -x x ]; then
    ok "CC='$v' oshcc x.c terminates and compiles"
  else
    bad "CC='$v' oshcc x.c (status $?)"; head -n 5 "$work/cc.log"
  fi
  rm -f x
done
if CXX="$bin/oshc++" timeout 60 "$bin/oshc++" -c proj/ringxx.cpp -o xx.o 2>"$work/cc.log"; then
  ok "CXX=oshc++ oshc++ terminates and compiles"
else
  bad "CXX=oshc++ oshc++"; head -n 5 "$work/cc.log"
fi
err=$(PLUGSHMEM_CC="$bin/oshcc" timeout 60 "$bin/oshcc" x.c -o x 2>&1)
if [ $? = 1 ] && [ "$(wc -l <<<"$err")" = 1 ] && grep -q 'PLUGSHMEM_CC=.*names a compiler wrapper' <<<"$err"; then
  ok "PLUGSHMEM_CC naming a wrapper: one error line"
else
  bad "PLUGSHMEM_CC naming a wrapper: $err"
fi
printf '#!/bin/sh\nexec "%s" "$@"\n' "$bin/oshcc" >"$work/mycc"
chmod +x "$work/mycc"
err=$(PLUGSHMEM_CC="$work/mycc" timeout 60 "$bin/oshcc" x.c -o x 2>&1)
if [ $? = 1 ] && grep -q 'called again by its own compiler' <<<"$err"; then
  ok "a compiler script running oshcc again: stopped"
else
  bad "compiler script running oshcc again: $err"
fi
# The --showme forms give what a hand-written build needs.
if PLUGSHMEM_CC=gcc timeout 60 sh -c "$(oshcc --showme:command) $(oshcc --showme:compile) x.c -o x2 $(oshcc --showme:link)" 2>"$work/cc.log" &&
  [ "$(timeout 60 oshrun -n 2 ./x2 | sort | tr '\n' ' ')" = "PE 0 got 1 PE 1 got 0 " ]; then
  ok "--showme:command, --showme:compile and --showme:link build a program that runs"
else
  bad "--showme:compile/--showme:link"; cat "$work/cc.log"
fi
[ "$(PLUGSHMEM_CC=clang-x oshcc --showme:command)" = clang-x ] && [ "$(CC=oshcc oshcc --showme:command)" = cc ] &&
  ok "--showme:command follows PLUGSHMEM_CC and ignores CC=oshcc" || bad "--showme:command"
# The build tree's wrapper (README: build/tools/oshcc) works before any install.
if timeout 60 "$build/tools/oshcc" x.c -o x3 2>"$work/cc.log" &&
  [ "$(timeout 60 "$build/tools/oshrun" -n 2 ./x3 | sort | tr '\n' ' ')" = "PE 0 got 1 PE 1 got 0 " ]; then
  ok "build/tools/oshcc builds a program that runs"
else
  bad "build/tools/oshcc"; cat "$work/cc.log"
fi
oshcc --help | grep -q PLUGSHMEM_CC && oshc++ --help | grep -q PLUGSHMEM_CXX &&
  ok "--help names PLUGSHMEM_CC / PLUGSHMEM_CXX" || bad "--help"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
