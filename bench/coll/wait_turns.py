#!/usr/bin/env python3
"""Turns of the wait loops in a callgrind profile: how many times
pshm_wait_step (core/sync.c) ran while callgrind was collecting, read off
the instructions counted on its first statement (the progress test:
INSNS of them per call, 3 with gcc 12 -O2).  Callgrind's own call counts
cannot serve: they include calls made while it was not collecting.

  wait_turns.py CALLGRIND_OUT [LINE] [INSNS]
"""
import re
import sys


def turns(path, want_line, insns):
    names, files = {}, {}
    fn = fl = cur = None
    last, total, skip = 0, 0, False
    for raw in open(path):
        line = raw.rstrip("\n")
        m = re.match(r"(fl|fi|fe|fn|cfn|cfi|cfl|ob|cob)=\((\d+)\)(?: (.*))?$", line)
        if m:
            kind, ident, name = m.groups()
            table = names if kind in ("fn", "cfn") else files
            if name is not None:
                table[ident] = name
            if kind == "fn":
                fn = names.get(ident)
            elif kind == "fl":
                fl = cur = files.get(ident)
            elif kind in ("fi", "fe"):
                cur = files.get(ident)
            continue
        if line.startswith("calls="):
            skip = True  # the next cost line is the call's inclusive cost
            continue
        m = re.match(r"([+-]\d+|\*|\d+|0x[0-9a-f]+)\s+(\d+)", line)
        if not m:
            continue
        pos, cost = m.group(1), int(m.group(2))
        if pos == "*":
            pass
        elif pos[0] in "+-":
            last += int(pos)
        else:
            last = int(pos, 0)
        if skip:
            skip = False
            continue
        if fn == "pshm_wait_step" and cur and cur.endswith("core/sync.c") and last == want_line:
            total += cost
    return total // insns


if __name__ == "__main__":
    print(turns(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 161,
                int(sys.argv[3]) if len(sys.argv) > 3 else 3))
