#!/bin/bash
# The installed man pages: each page renders with `man -l` at 80 columns
# without a single warning; every routine declared in the installed shmem.h
# and every function of the OpenSHMEM 1.6 list (tests/data) has a page or
# a link to the family page that names it; `man NAME` finds the family
# pages, typed names and the tools.  Skipped (77) without man.
#   test_man.sh BUILD_DIR FUNCTIONS_TSV
set -uo pipefail
build=$1 tsv=$2
# man-db's seccomp sandbox costs 0.2 s per call here; the pages are ours.
export MAN_DISABLE_SECCOMP=1
command -v man >/dev/null && command -v groff >/dev/null ||
  { echo "SKIP: man or groff not installed (Debian: man-db groff-base)"; exit 77; }
pass=0 fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if ! meson install -C "$build" --destdir "$work/stage" --quiet >"$work/install.log" 2>&1; then
  bad "meson install"; cat "$work/install.log"; echo "$pass passed, $fail failed"; exit 1
fi
mandir=$(find "$work/stage" -type d -path '*/man/man3' -printf '%h\n' | head -n 1)
inc=$(find "$work/stage" -name shmem.h -printf '%h\n' | head -n 1)
[ -n "$mandir" ] && [ -n "$inc" ] || { bad "man3 folder or shmem.h not installed"; exit 1; }

# Every real page (not a link) renders, without warnings, within 80 columns.
n=0 nbad=0
while IFS= read -r f; do
  n=$((n + 1))
  err=$(MANWIDTH=80 man --warnings -l "$f" 2>&1 >"$work/out")
  if [ -n "$err" ] || [ ! -s "$work/out" ] || ! grep -q '^NAME' "$work/out"; then
    nbad=$((nbad + 1)); bad "${f#"$mandir"/} renders with warnings or empty: $err"
  elif long=$(awk 'length($0) > 80' "$work/out" | head -n 1) && [ -n "$long" ]; then
    nbad=$((nbad + 1)); bad "${f#"$mandir"/} has a line wider than 80 columns: $long"
  fi
done < <(find "$mandir" -type f -name '*.[13]' | sort)
[ "$n" -gt 100 ] && [ "$nbad" = 0 ] && ok "$n pages render with man --warnings -l at 80 columns, no warning, no wider line" ||
  bad "$n pages, $nbad with warnings"
dangling=$(find "$mandir" -xtype l | head -n 5)
[ -z "$dangling" ] && ok "$(find "$mandir" -type l | wc -l) links, none dangling" || bad "dangling links: $dangling"

# Every routine name has a page: its own, or a link to a page whose
# SYNOPSIS names it (one python3 pass: a process per name is minutes).
check_names() { # what, file of names
  python3 - "$mandir/man3" "$1" "$2" <<'PY'
import os, re, sys
d, what = sys.argv[1], sys.argv[2]
names = [l.strip() for l in open(sys.argv[3]) if l.strip()]
missing = []
for n in names:
    f = os.path.join(d, n + ".3")
    if not os.path.exists(f) or not re.search(r"(?<!\w)%s(?!\w)" % re.escape(n), open(os.path.realpath(f)).read()):
        missing.append(n)
if names and not missing:
    print("ok   all %d %s have a page naming them" % (len(names), what))
else:
    print("FAIL %s without a page (%d of %d): %s" % (what, len(missing), len(names), " ".join(missing[:20])))
    sys.exit(1)
PY
  [ $? = 0 ] && pass=$((pass + 1)) || fail=$((fail + 1))
}
# Declarations of the installed header as C: names followed by "(".
printf '#include <shmem.h>\n' | cc -E -P -I"$inc" -x c - 2>/dev/null |
  grep -oE '\b(shmem_[a-z0-9_]+|start_pes|_my_pe|_num_pes|shmalloc|shfree|shrealloc|shmemalign) ?\(' |
  tr -d ' (' | sort -u >"$work/declared"
check_names "routines declared in shmem.h" "$work/declared"
# A missing or empty list is a failure: a check that shrinks quietly on
# some clones is one nobody notices is gone.
if [ -s "$tsv" ]; then
  grep -v '^#' "$tsv" | cut -f2 | grep . | sort -u >"$work/listed"
  check_names "functions of the OpenSHMEM 1.6 list" "$work/listed"
else
  bad "no OpenSHMEM 1.6 function list at '$tsv'"
fi

# man finds them by name, as after an install (family, typed, deprecated,
# ctx forms, tools).
for name in shmem_put shmem_atomic_fetch_add shmem_team_split_strided shmem_int_put \
  shmem_ctx_uint64_atomic_fetch_add_nbi shmem_complexd_sum_reduce shmem_int_sum_to_all \
  shmem_long_wait_until_any_vector shmem_putmem_signal_nbi shmalloc oshrun oshcc oshc++ shmem_info shmem_compare \
  plugshmem-transport-check; do
  out=$(MANWIDTH=200 man -M "$mandir" "$name" 2>&1)
  if grep -q '^NAME' <<<"$out" && grep -qF -- "$name" <<<"$out"; then
    ok "man $name"
  else
    bad "man $name: $(head -n 3 <<<"$out")"
  fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
