#!/bin/bash
# shmem_compare from a moved `meson install`: a --quick comparison of shm
# and one ofi configuration (tcp;ofi_rxm, when the ofi plugin is built);
# libfabric's net provider, which lists atomics and has none, must be left
# out with the plugin's reason (a provider that still passed the query and
# failed at init would run beside them: reported with its reason, the
# others go on); a plugin that cannot be loaded is left out with the
# loader's reason; then
# the CSV, JSON, table and SVG are checked, an interrupted run must keep
# its partial results (and draw the PNG when rsvg-convert is there),
# --plot FILE.png without a converter must say what to install, a job past
# its time limit must be ended and reported, and nothing may be left
# behind.
#   test_compare.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$1 src=$2
check="python3 $src/tools/compare/check_results.py"
pass=0 fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ls /dev/shm >"$work/shm-before"

meson install -C "$build" --destdir "$work/stage" --quiet >"$work/install.log" 2>&1 \
  || { cat "$work/install.log"; echo "FAIL meson install"; exit 1; }
prefix=$(find "$work/stage" -path '*/bin/shmem_compare' -printf '%h\n' | head -n 1)
mv "${prefix%/bin}" "$work/moved"
sc=$work/moved/bin/shmem_compare

"$sc" --help | grep -q '^EXIT STATUS' && "$sc" --version | grep -q PlugSHMEM \
  && ok "--help and --version" || bad "--help and --version"
out=$("$sc" -n 1 2>&1); rc=$?
[ $rc = 2 ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -q -- '-n 1' <<<"$out" \
  && ok "-n 1 refused in one line" || bad "-n 1: rc $rc: $out"
out=$("$sc" --configs nosuch -q 2>&1); rc=$?
[ $rc = 2 ] && grep -q "'nosuch' matches no usable configuration" <<<"$out" \
  && ok "unknown configuration refused" || bad "--configs nosuch: rc $rc: $out"

configs=shm failed=
if find "$work/moved" -name transport-ofi.so | grep -q .; then
  configs=shm,ofi-tcp-rxm
  "$sc" --list --configs 'ofi-net' 2>/dev/null | grep -q '^ofi-net ' && failed=ofi-net
  if fi_info -l 2>/dev/null | grep -q '^net:'; then
    out=$("$sc" --list --configs 'ofi-net*' 2>&1)
    grep -q "left out: ofi provider net: refused by the plugin's query: .*lacks 24 of the 24 atomic" <<<"$out" \
      && ok "net left out with its reason" || bad "net not left out: $out"
  fi
fi
# A plugin whose library is missing: the loader's words, not an empty reason.
mkdir -p "$work/broken"
echo 'int gone(void); int f(void) { return gone(); }' >"$work/broken/p.c"
echo 'int gone(void) { return 1; }' >"$work/broken/gone.c"
if cc -shared -fPIC -o "$work/broken/libgone.so.1" -Wl,-soname,libgone.so.1 "$work/broken/gone.c" \
   && cc -shared -fPIC -o "$work/broken/transport-broken.so" "$work/broken/p.c" \
        -L"$work/broken" -l:libgone.so.1 && rm "$work/broken/libgone.so.1"; then
  out=$(SHMEM_TRANSPORT_PATH=$work/broken "$sc" --list 2>&1)
  grep -q "left out: broken: not usable: cannot load: libgone.so.1" <<<"$out" \
    && ok "an unloadable plugin left out with the loader's reason" || bad "unloadable plugin: $out"
else
  bad "could not build the unloadable plugin"
fi
echo "configurations: $configs${failed:+ and $failed (expected to fail)}"
t0=$(date +%s)
"$sc" --quick --configs "$configs${failed:+,$failed}" --out "$work/out" \
  --plot "$work/out/plot.svg" >"$work/table.md" 2>"$work/progress.txt"
rc=$?
echo "the --quick run took $(( $(date +%s) - t0 )) s, exit status $rc"
want=0; [ -n "$failed" ] && want=1
[ $rc = $want ] && ok "exit status $rc" || { bad "exit status $rc, expected $want"; cat "$work/progress.txt"; }
$check results "$work/out" --configs "$configs" --repeat 2 --points 22 ${failed:+--failed $failed} \
  && ok "samples.csv, summary.csv, results.json" || bad "results files"
$check table "$work/table.md" --configs "$configs" && ok "markdown table" \
  || { bad "markdown table"; cat "$work/table.md"; }
$check plot "$work/out/plot.svg" --configs "$configs" && ok "SVG plot" || bad "SVG plot"
grep -q 'ETA' "$work/progress.txt" && ok "progress with ETA" || bad "progress: $(cat "$work/progress.txt")"
if [ -n "$failed" ]; then
  grep -q "^- $failed: failed: .*lacks .* atomic operations" "$work/table.md" \
    && ok "$failed reported with its reason" || bad "$failed's reason: $(grep -A3 Failed "$work/table.md")"
fi

# Scaling (-n 2,3): every configuration at each count, a PEs column in
# the table and the summary, each run's count in results.json, and the
# collectives drawn against PEs.
"$sc" -n 3,2 --quick --repeat 1 --configs shm,shm-nobypass --out "$work/scale" \
  --plot "$work/scale/plot.svg" -q >"$work/scale.md" 2>&1; rc=$?
[ $rc = 0 ] && ok "-n 3,2: exit status 0" || { bad "-n 3,2: rc $rc"; cat "$work/scale.md"; }
$check results "$work/scale" --configs shm,shm-nobypass --repeat 1 --points 22 --pes 2,3 \
  && ok "-n 3,2: the files give each count" || bad "-n 3,2: results files"
$check table "$work/scale.md" --configs shm,shm-nobypass --pes 2,3 \
  && grep -q '^| barrier_all latency |  | 3 | us ↓ |' "$work/scale.md" \
  && ok "-n 3,2: a PEs column" || { bad "-n 3,2: table"; cat "$work/scale.md"; }
$check plot "$work/scale/plot.svg" --configs shm,shm-nobypass --pes 2,3 \
  && ok "-n 3,2: collectives against PEs in the plot" || bad "-n 3,2: plot"
out=$("$sc" -n 2,x --list 2>&1); rc=$?
[ $rc = 2 ] && grep -q -- "-n '2,x': use a PE count or a comma-separated list" <<<"$out" \
  && ok "-n 2,x refused" || bad "-n 2,x: rc $rc: $out"

# Ctrl-C: after the first job's results are written, the second job is
# stopped and the run reports what it has.
png=$work/int/plot.svg; command -v rsvg-convert >/dev/null && png=$work/int/plot.png
"$sc" --configs shm --repeat 3 -q --out "$work/int" --plot "$png" >"$work/int.md" 2>&1 &
pid=$!
for _ in $(seq 600); do [ -s "$work/int/samples.csv" ] && break; sleep 0.1; done
kill -INT $pid; wait $pid; rc=$?
[ $rc = 130 ] && python3 -c "
import json, sys
d = json.load(open('$work/int/results.json'))
runs = d['configurations'][0]['runs']
sys.exit(not (d['interrupted'] and runs[0]['status'] == 'ok'
              and (len(runs) == 1 or runs[-1]['status'] == 'interrupted')))" \
  && grep -q '| shm |' "$work/int.md" \
  && ok "Ctrl-C: exit 130, partial results kept" || { bad "Ctrl-C: rc $rc"; cat "$work/int.md"; }
$check plot "$png" --configs shm && ok "plot of the partial results ($(basename "$png"))" \
  || bad "plot of the partial results"

# No PNG converter on the PATH: --plot FILE.png says what to install and
# the rest is still written.
# (the interpreter itself: python3 on the PATH may be a wrapper script)
mkdir -p "$work/bin" && ln -s "$(python3 -c 'import sys; print(sys.executable)')" "$work/bin/python3"
out=$(PATH=$work/bin "$sc" --quick --repeat 1 --configs shm -q --out "$work/nopng" \
      --plot "$work/nopng/p.png" 2>&1); rc=$?
[ $rc = 0 ] && grep -q 'apt-get install librsvg2-bin' <<<"$out" && [ ! -e "$work/nopng/p.png" ] \
  && [ "$(wc -l <"$work/nopng/samples.csv")" = 23 ] \
  && ok "--plot FILE.png without a converter: says what to install, the rest written" \
  || { bad "--plot FILE.png without a converter: rc $rc"; echo "$out"; }

# A job past its time limit (2 s per measurement, 3 s for the job).
"$sc" --configs shm --repeat 1 --budget-ms 2000 --timeout 3 -q >"$work/to.md" 2>&1; rc=$?
[ $rc = 1 ] && grep -q '^- shm: timeout: the job outran its time limit of 3 s' "$work/to.md" \
  && ok "time limit: job ended and reported" || { bad "time limit: rc $rc"; cat "$work/to.md"; }

# Other implementations as columns (--impl): a malformed one is a usage
# error; one whose wrapper fails is a failed column and the rest run; Open
# MPI's OSHMEM, where Debian's openmpi-bin is installed (never in CI),
# builds the installed compare_bench.c and runs as a column.
out=$("$sc" --impl nonsense --list 2>&1); rc=$?
[ $rc = 2 ] && grep -q "^shmem_compare: --impl 'nonsense': use NAME=OSHCC,LAUNCHER" <<<"$out" \
  && ok "--impl malformed: usage error" || bad "--impl nonsense: rc $rc: $out"
"$sc" --quick --repeat 1 --configs shm,broken --impl "broken=/bin/false,true" -q \
  >"$work/impl-broken.md" 2>&1; rc=$?
[ $rc = 1 ] && grep -q '^- broken: failed: cannot build compare_bench with /bin/false (exit status 1)' \
  "$work/impl-broken.md" && grep -q '^| benchmark | size | unit | shm |' "$work/impl-broken.md" \
  && ok "--impl that does not build: failed with its reason, shm still ran" \
  || { bad "--impl broken: rc $rc"; cat "$work/impl-broken.md"; }
if [ -x /usr/bin/opal_wrapper ] && [ -x /usr/bin/mpirun.openmpi ]; then
  ln -s /usr/bin/opal_wrapper "$work/oshcc"  # Open MPI's oshcc is opal_wrapper by that name
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "$sc" --quick --repeat 1 \
    --configs shm,ompi --impl "ompi=$work/oshcc,mpirun.openmpi --oversubscribe --mca osc ^rdma" \
    --out "$work/impl" --plot "$work/impl/plot.svg" -q >"$work/impl.md" 2>&1; rc=$?
  [ $rc = 0 ] && grep -q '^| benchmark | size | unit | shm | ompi |' "$work/impl.md" \
    && grep -q '^| barrier_all latency |  | us ↓ | .* | \(\*\*\)\?[0-9.]\+' "$work/impl.md" \
    && grep -q '>ompi<' "$work/impl/plot.svg" \
    && ok "--impl Open MPI: a column of its own in the table and the plot" \
    || { bad "--impl ompi: rc $rc"; cat "$work/impl.md"; }
else
  echo "skip --impl Open MPI: openmpi-bin is not installed"
fi

sleep 0.5
if pgrep -f "$work/moved" >/dev/null; then bad "processes left: $(pgrep -af "$work/moved")"
else ok "no process left"; fi
$check leftovers "$work/shm-before" && ok "nothing left in /dev/shm" || bad "/dev/shm leftovers"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
