#!/usr/bin/env python3
"""Checks what shmem_compare wrote (test_compare.sh):
  check_results.py results DIR --configs a,b --repeat R --points P [--failed NAME] [--pes 2,3]
  check_results.py table FILE --configs a,b [--pes 2,3]
  check_results.py plot FILE --configs a,b [--pes 2,3]
  check_results.py leftovers BEFORE_LIST
Prints one line per failed check and exits 1 if any failed."""

import csv
import json
import os
import sys
import xml.etree.ElementTree as ET

errors = []


def check(cond, what):
    if not cond:
        errors.append(what)
    return cond


def results(d, configs, repeat, points, failed, pes=None):
    """pes: the PE counts of a scaling run (-n 2,4,8); None: one count."""
    counts = len(pes) if pes else 1
    with open(os.path.join(d, "samples.csv")) as f:
        rows = list(csv.reader(f))
    head = rows[0]
    check(head[:3] == ["config", "transport", "detail"] and "value" in head,
          f"samples.csv header: {head}")
    col = {h: i for i, h in enumerate(head)}
    for c in configs:
        mine = [r for r in rows[1:] if r[col["config"]] == c]
        check(len(mine) == repeat * points * counts,
              f"samples.csv: {c} has {len(mine)} rows, expected {repeat} x {points} x {counts}")
        if pes:
            check({int(r[col["pes"]]) for r in mine} == set(pes),
                  f"samples.csv: {c}'s PE counts {sorted({r[col['pes']] for r in mine})}")
        for r in mine:
            check(len(r) == len(head), f"samples.csv: short row {r}")
            for k in ("value", "seconds"):
                check(float(r[col[k]]) > 0, f"samples.csv: {k} not > 0 in {r}")
            check(int(r[col["iterations"]]) > 0, f"samples.csv: iterations in {r}")
    with open(os.path.join(d, "summary.csv")) as f:
        summ = list(csv.DictReader(f))
    keys = {(r["bench"], r["bytes"], r["pes"]) for r in summ}
    check(len(keys) == points * counts,
          f"summary.csv: {len(keys)} benchmarks, expected {points} x {counts}")
    for k in keys:
        these = [r for r in summ if (r["bench"], r["bytes"], r["pes"]) == k]
        check({r["config"] for r in these} == set(configs), f"summary.csv: configs of {k}")
        check(sum(int(r["best"]) for r in these) == (1 if len(configs) > 1 else 0),
              f"summary.csv: one best of {k}")
        for r in these:
            check(0 < float(r["min"]) <= float(r["median"]) <= float(r["max"]),
                  f"summary.csv: min <= median <= max in {r}")
            check(int(r["samples"]) == repeat, f"summary.csv: samples in {r}")
    with open(os.path.join(d, "results.json")) as f:
        doc = json.load(f)
    check(doc["machine"]["cpus"] > 0 and doc["machine"]["kernel"], "results.json: machine")
    check("PlugSHMEM" in (doc["versions"].get("plugshmem") or ""), "results.json: library version")
    check(doc["interrupted"] is False, "results.json: not interrupted")
    by = {c["name"]: c for c in doc["configurations"]}
    for c in configs:
        conf = by.get(c)
        if not check(conf, f"results.json: no configuration {c}"):
            continue
        check(conf["status"] == "ok", f"results.json: {c} status {conf['status']}")
        check(len(conf["runs"]) == repeat * counts, f"results.json: {c} runs")
        check(sorted({run["pes"] for run in conf["runs"]}) == (pes or [doc["pes"][0]]),
              f"results.json: {c}'s runs' PE counts")
        for run in conf["runs"]:
            check(len(run["samples"]) == points, f"results.json: {c} samples per run")
            check(run["header"].get("transport") == conf["transport"],
                  f"results.json: {c} ran on {run['header'].get('transport')}")
        if conf["transport"] == "ofi":
            check(any(conf["detail"] in i for i in conf["transport_info"]),
                  f"results.json: {c}'s plugin did not describe its provider: {conf['transport_info']}")
    if failed:
        conf = by.get(failed, {})
        check(conf.get("status") == "failed" and conf.get("reason"),
              f"results.json: {failed} should have failed with a reason: {conf.get('status')}")
        check(len(conf.get("runs", [])) == 1, f"results.json: failed {failed} was repeated")


def table(path, configs, pes=None):
    lines = open(path).read().splitlines()
    head = next((ln for ln in lines if ln.startswith("| benchmark")), "")
    cells = [c.strip() for c in head.strip("|").split("|")]
    check(("PEs" in cells) == bool(pes), f"table: a PEs column only with several counts: {cells}")
    cols = cells[cells.index("unit") + 1:] if "unit" in cells else []
    check(cols == configs, f"table columns {cols}, expected {configs}")
    body = [ln for ln in lines if ln.startswith("| ") and not ln.startswith(("| benchmark", "| ---"))]
    check(len(body) > 10, f"table: {len(body)} rows")
    for ln in body:
        check(ln.count("**") == (2 if len(configs) > 1 else 0), f"table: one best cell in {ln}")


def plot(path, configs, pes=None, coll_points=7):
    if path.endswith(".png"):
        with open(path, "rb") as f:
            check(f.read(8) == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG")
        return
    root = ET.parse(path).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    lines = [e.get("data-config") for e in root.iter(ns + "polyline") if e.get("class") == "series"]
    bars = [e.get("data-config") for e in root.iter(ns + "rect") if e.get("class") == "bar"]
    scaling = [e.get("data-config") for e in root.iter(ns + "polyline")
               if e.get("class") == "scaling"]
    texts = " ".join(e.text or "" for e in root.iter(ns + "text"))
    for c in configs:
        check(lines.count(c) == 3, f"plot: {lines.count(c)} curves of {c}, expected 3")
        # Atomics and message rate; the collectives are bars with one count.
        want = 3 if pes else 6
        check(bars.count(c) >= want, f"plot: {bars.count(c)} bars of {c}, expected {want}+")
        want = coll_points if pes else 0
        check(scaling.count(c) == want,
              f"plot: {scaling.count(c)} curves of {c} against PEs, expected {want}")
        check(c in texts, f"plot: no legend entry {c}")
    labels = ["put + quiet latency", "get latency", "message size"]
    labels += ["latency by PEs", "PEs (log scale)"] if pes else ["collectives"]
    for label in labels:
        check(label in texts, f"plot: no label '{label}'")


def leftovers(before_file):
    before = set(open(before_file).read().split())
    new = [n for n in os.listdir("/dev/shm") if n not in before]
    held = set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            for ln in open(f"/proc/{pid}/maps"):
                if "/dev/shm/" in ln:
                    held.add(ln.split("/dev/shm/", 1)[1].split()[0])
            for fd in os.listdir(f"/proc/{pid}/fd"):
                t = os.readlink(f"/proc/{pid}/fd/{fd}")
                if t.startswith("/dev/shm/"):
                    held.add(t[len("/dev/shm/"):])
        except OSError:
            continue
    # Other engineers' jobs run beside ours; theirs are open or mapped.
    left = [n for n in new if n not in held]
    check(not left, f"left in /dev/shm: {left}")


def main(argv):
    kind, target = argv[0], argv[1]
    opts = dict(zip(argv[2::2], argv[3::2]))
    configs = [c for c in opts.get("--configs", "").split(",") if c]
    pes = sorted(int(n) for n in opts["--pes"].split(",")) if "--pes" in opts else None
    if kind == "results":
        results(target, configs, int(opts["--repeat"]), int(opts["--points"]), opts.get("--failed"),
                pes)
    elif kind == "table":
        table(target, configs, pes)
    elif kind == "plot":
        plot(target, configs, pes)
    elif kind == "leftovers":
        leftovers(target)
    for e in errors:
        print("FAIL", e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
