#!/bin/bash
# The repository stands alone: no file names a path beside the checkout
# (the development machines keep notes and the specification's function
# list in a folder next to it, which a user's clone does not have). A test
# or doc that reaches out there passes, or quietly checks less, only where
# that folder happens to exist.
#   check_self_contained.sh SOURCE_DIR
set -uo pipefail
src=$1
cd "$src" || { echo "FAIL cannot enter $src"; exit 1; }
# The pattern is spelt with escapes so that this file does not match it.
pattern='\.\./shared|'"'"'\.\.'"'"' */ *'"'"'shared'"'"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  # Tracked files and new ones not yet added (but not ignored ones: build
  # folders hold copies of the sources' paths in their logs).
  list() { git ls-files -z --cached --others --exclude-standard; }
  what="files of the checkout"
else
  # A release tarball: every file but meson build folders.
  list() { find . \( -type d -exec test -e '{}/meson-private' \; -prune \) -o -type f -print0; }
  what="files of the source tree"
fi
n=$(list | tr -cd '\0' | wc -c)
hits=$(list | xargs -0 grep -nIE -- "$pattern" 2>/dev/null)
if [ "$n" -lt 100 ]; then
  echo "FAIL only $n files found under $src"; exit 1
elif [ -n "$hits" ]; then
  echo "FAIL these lines name a folder outside the repository:"
  echo "$hits"
  exit 1
fi
echo "ok   none of the $n $what names a folder beside the repository"
