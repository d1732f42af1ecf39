#!/usr/bin/env python3
"""Holds the node-aware collectives to the messages their algorithms need.

Runs build/tests/coll/msgcount under oshrun with SHMEM_COUNT_OPS=1 over
emulated nodes (the bypass on: only what crosses nodes reaches the
transport), at two call counts, and takes the difference: what one call
hands the transport, summed over the PEs.  Both ways the leaders can
talk (docs/collectives.md, "Across nodes"):

  L nodes, p = 2^floor(log2 L), r = log2 p, d = ceil(log2 L), n PEs

  messages (the default where the transport has them; ofi here): no put,
  AMO or signal at all, and at most
  barrier   L*(L-1)            every leader to every other (L <= 8; else
            L*d                dissemination)
  bcast     L-1                binomial tree, data and arrival in one
  reduce    L*(L-1)            every leader's vector to every other (L <= 8;
            p*r + 2*(L-p)      else recursive doubling, extra leaders in/out)
  fcollect  L*(L-1)            each leader's node blocks, packed, to every
                               other leader
  alltoall  X                  each PE's block to each PE on another node:
                               X = sum over PEs of the PEs off its node

  puts and flags (SHMEM_COLL_MESSAGES=0): puts, AMOs and puts with signal
  barrier   L*d
  bcast     3*(L-1)            eager binomial tree: data, flag, entry notice
  reduce    2*p*r + 4*(L-p)    recursive doubling, data and flag per round
  fcollect  (L-1)*n + L*d      each leader's node blocks to every other
                               leader, then a leaders' barrier
  alltoall  X + L*d            flat: a put to each PE off the node, then
                               the node-aware barrier

  msgcount.py OSHRUN MSGCOUNT NODES NPES [NODES NPES ...]
"""
import math
import os
import re
import subprocess
import sys

LINE = re.compile(r"transport operations: put (\d+) get (\d+) amo (\d+) signal (\d+) msg (\d+)")


def bound(op, nodes, npes, messages):
    p = 1 << (nodes.bit_length() - 1)
    r = p.bit_length() - 1
    d = math.ceil(math.log2(nodes)) if nodes > 1 else 0
    # PE k sits on emulated node k mod L (SHMEM_EMULATE_NODES).
    size = [len(range(j, npes, nodes)) for j in range(nodes)]
    across = sum(npes - size[k % nodes] for k in range(npes))
    if op == "alltoall":
        return across if messages else across + nodes * d
    if messages:
        direct = nodes <= 8  # collectives/native_msg.c, DIRECT_MAX
        return {
            "barrier": nodes * (nodes - 1) if direct else nodes * d,
            "bcast": nodes - 1,
            "reduce": nodes * (nodes - 1) if direct else p * r + 2 * (nodes - p),
            "fcollect": nodes * (nodes - 1),
        }[op]
    return {
        "barrier": nodes * d,
        "bcast": 3 * (nodes - 1),
        "reduce": 2 * p * r + 4 * (nodes - p),
        "fcollect": (nodes - 1) * npes + nodes * d,
    }[op]


def count(oshrun, prog, nodes, npes, op, calls, messages):
    env = dict(os.environ, SHMEM_COUNT_OPS="1", SHMEM_EMULATE_NODES=str(nodes),
               SHMEM_COLL_MESSAGES=str(messages))
    env.pop("SHMEM_BYPASS", None)
    res = subprocess.run([oshrun, "-n", str(npes), prog, op, str(calls)], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
    if res.returncode:
        sys.exit(f"msgcount {op} {calls} at {npes} PEs over {nodes} nodes failed "
                 f"(exit {res.returncode}):\n{res.stdout}{res.stderr}")
    found = [tuple(map(int, m.groups())) for m in LINE.finditer(res.stderr)]
    if len(found) != npes:
        sys.exit(f"expected {npes} count lines, got {len(found)}:\n{res.stderr}")
    return [sum(c[i] for c in found) for i in range(5)]


def main():
    if len(sys.argv) < 5 or len(sys.argv) % 2 == 0:
        sys.exit(__doc__)
    oshrun, prog = sys.argv[1], sys.argv[2]
    shapes = [(int(a), int(b)) for a, b in zip(sys.argv[3::2], sys.argv[4::2])]
    failed = 0
    for nodes, npes in shapes:
        for messages in (1, 0):
            for op in ("barrier", "bcast", "reduce", "fcollect", "alltoall"):
                lo, hi = 20, 60
                a = count(oshrun, prog, nodes, npes, op, lo, messages)
                b = count(oshrun, prog, nodes, npes, op, hi, messages)
                put, get, amo, sig, msg = [(y - x) / (hi - lo) for x, y in zip(a, b)]
                # Gets are not the algorithm's: a wait that lasts reads the
                # peers' call counts to notice one that left (core/sync.c).
                want = bound(op, nodes, npes, messages)
                total = msg if messages else put + amo + sig
                ok = total <= want and (not messages or put + amo + sig == 0)
                failed += not ok
                how = "messages" if messages else "puts"
                print(f"{'ok  ' if ok else 'FAIL'} {op:9} {npes} PEs on {nodes} nodes by {how:8}: "
                      f"{total:g} per call (put {put:g}, get {get:g}, amo {amo:g}, "
                      f"signal {sig:g}, msg {msg:g}); the algorithm needs {want}")
    sys.exit(1 if failed else 0)


main()
