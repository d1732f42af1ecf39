#!/usr/bin/env python3
"""Holds the node-aware collectives to the messages their algorithms need.

Runs build/tests/coll/msgcount under oshrun with SHMEM_COUNT_OPS=1 over
emulated nodes (the bypass on: only what crosses nodes reaches the
transport), at two call counts, and takes the difference: the puts, AMOs
and puts with signal one call sends, summed over the PEs.  Each must be at most the
count of the leaders' exchange (docs/collectives.md, "Across nodes"):

  L nodes, p = 2^floor(log2 L), r = log2 p, d = ceil(log2 L), n PEs
  barrier   L*d                dissemination among the leaders
  bcast     3*(L-1)            eager binomial tree: data, flag, entry notice
  reduce    2*p*r + 4*(L-p)    recursive doubling, data and flag per round
  fcollect  (L-1)*n + L*d      each leader's node blocks to every other
                               leader, then a leaders' barrier

  msgcount.py OSHRUN MSGCOUNT NODES NPES [NODES NPES ...]
"""
import math
import os
import re
import subprocess
import sys

LINE = re.compile(r"transport operations: put (\d+) get (\d+) amo (\d+) signal (\d+)")


def bound(op, nodes, npes):
    p = 1 << (nodes.bit_length() - 1)
    r = p.bit_length() - 1
    d = math.ceil(math.log2(nodes)) if nodes > 1 else 0
    return {
        "barrier": nodes * d,
        "bcast": 3 * (nodes - 1),
        "reduce": 2 * p * r + 4 * (nodes - p),
        "fcollect": (nodes - 1) * npes + nodes * d,
    }[op]


def count(oshrun, prog, nodes, npes, op, calls):
    env = dict(os.environ, SHMEM_COUNT_OPS="1", SHMEM_EMULATE_NODES=str(nodes))
    env.pop("SHMEM_BYPASS", None)
    res = subprocess.run([oshrun, "-n", str(npes), prog, op, str(calls)], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
    if res.returncode:
        sys.exit(f"msgcount {op} {calls} at {npes} PEs over {nodes} nodes failed "
                 f"(exit {res.returncode}):\n{res.stdout}{res.stderr}")
    found = [tuple(map(int, m.groups())) for m in LINE.finditer(res.stderr)]
    if len(found) != npes:
        sys.exit(f"expected {npes} count lines, got {len(found)}:\n{res.stderr}")
    return [sum(c[i] for c in found) for i in range(4)]


def main():
    if len(sys.argv) < 5 or len(sys.argv) % 2 == 0:
        sys.exit(__doc__)
    oshrun, prog = sys.argv[1], sys.argv[2]
    shapes = [(int(a), int(b)) for a, b in zip(sys.argv[3::2], sys.argv[4::2])]
    failed = 0
    for nodes, npes in shapes:
        for op in ("barrier", "bcast", "reduce", "fcollect"):
            lo, hi = 20, 60
            a = count(oshrun, prog, nodes, npes, op, lo)
            b = count(oshrun, prog, nodes, npes, op, hi)
            per = [(y - x) / (hi - lo) for x, y in zip(a, b)]
            # Gets are not the algorithm's: a wait that lasts reads the
            # peers' call counts to notice one that left (core/sync.c).
            total, want = per[0] + per[2] + per[3], bound(op, nodes, npes)
            ok = total <= want
            failed += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {op:9} {npes} PEs on {nodes} nodes: "
                  f"{total:g} transport operations per call (put {per[0]:g}, get {per[1]:g}, "
                  f"amo {per[2]:g}, signal {per[3]:g}); the algorithm needs {want}")
    sys.exit(1 if failed else 0)


main()
