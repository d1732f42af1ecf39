#!/usr/bin/env python3
"""Prints the time each suite took in the last `meson test` run, from
meson's JSON test log: one line per suite (the most specific suite a test
belongs to, e.g. coll-ofi-tcp), its tests and the sum of their durations,
then the wall time from the first test's start to the last one's end.

    suite_times.py BUILD/meson-logs/testlog.json"""
import json
import sys

per = {}
first, last = None, None
for line in open(sys.argv[1]):
    t = json.loads(line)
    name = t['name']
    # "project:suite1+suite2 / test": the last suite is the most specific
    s = name.split(' / ')[0].split(':', 1)[-1].split('+')[-1]
    n, d = per.get(s, (0, 0.0))
    per[s] = (n + 1, d + t.get('duration', 0.0))
    start = t.get('starttime')
    if start is not None:
        first = start if first is None else min(first, start)
        end = start + t.get('duration', 0.0)
        last = end if last is None else max(last, end)
if not per:
    sys.exit(0)
print('%-24s %6s %9s' % ('suite', 'tests', 'seconds'))
for s, (n, d) in sorted(per.items(), key=lambda kv: -kv[1][1]):
    print('%-24s %6d %9.1f' % (s, n, d))
if first is not None:
    print('%-24s %6d %9.1f  (wall clock, tests run 2 at a time where they allow)' %
          ('all', sum(n for n, _ in per.values()), last - first))
