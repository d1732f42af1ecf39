"""Medians and spread of the repeats, and the markdown table."""

import statistics

# bench -> (label, whether lower is better)
BENCHES = {
    "put": ("put + quiet latency", True),
    "get": ("get latency", True),
    "fetch_add": ("fetch-add (long) latency", True),
    "compare_swap": ("compare-swap (long) latency", True),
    "put_nbi_rate": ("put_nbi 8 B message rate", False),
    "put_nbi_bw": ("put_nbi bandwidth", False),
    "barrier": ("barrier_all latency", True),
    "broadcast": ("broadcast latency", True),
    "reduce": ("sum reduction (long) latency", True),
    "alltoall": ("alltoall latency (bytes per PE)", True),
}


def size_label(n):
    if n == 0:
        return ""
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= div and n % div == 0:
            return f"{n // div} {unit}"
    return f"{n} B"


def fmt(v):
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    if v >= 1:
        return f"{v:.2f}"
    return f"{v:.3g}"


def summarize(configs, runs):
    """runs: {config name: [Job, ...]}.  One row per (bench, bytes, PEs) in
    the benchmark's order: {bench, bytes, pes, unit, label, lower_better,
    values: {config: {median, min, max, n, spread_pct}}, best}."""
    order, rows = [], {}
    for c in configs:
        for job in runs.get(c.name, []):
            for bench, nbytes, value, unit, _, _ in job.samples:
                key = (bench, nbytes, job.pes)
                if key not in rows:
                    order.append(key)
                    label, lower = BENCHES.get(bench, (bench, True))
                    rows[key] = {"bench": bench, "bytes": nbytes, "pes": job.pes, "unit": unit,
                                 "label": label, "lower_better": lower, "samples": {}}
                rows[key]["samples"].setdefault(c.name, []).append(value)
    bench_rank = {b: i for i, b in enumerate(BENCHES)}
    order.sort(key=lambda k: (bench_rank.get(k[0], len(bench_rank)), k[1], k[2]))
    out = []
    for key in order:
        r = rows[key]
        vals = {}
        for name, xs in r.pop("samples").items():
            med = statistics.median(xs)
            spread = (max(xs) - min(xs)) / 2 / med * 100 if med > 0 and len(xs) > 1 else None
            vals[name] = {"median": med, "min": min(xs), "max": max(xs), "n": len(xs),
                          "spread_pct": spread}
        pick = min if r["lower_better"] else max
        r["values"] = vals
        r["best"] = pick(vals, key=lambda n: vals[n]["median"]) if len(vals) > 1 else None
        out.append(r)
    return out


def markdown(rows, configs, runs):
    """One column per configuration that produced results; the best median
    of each row in bold; ±: half the range of the repeats, in percent of the
    median."""
    cols = [c.name for c in configs if any(j.samples for j in runs.get(c.name, []))]
    if not rows or not cols:
        return "(no results)\n"
    # A PEs column only when the run had several counts (-n 2,4,8).
    many = len({r["pes"] for r in rows}) > 1
    pes_head, pes_rule = ("PEs | ", "---: | ") if many else ("", "")
    lines = ["| benchmark | size | " + pes_head + "unit | " + " | ".join(cols) + " |",
             "| --- | --- | " + pes_rule + "--- | " + " | ".join("---:" for _ in cols) + " |"]
    for r in rows:
        cells = []
        for c in cols:
            v = r["values"].get(c)
            if not v:
                cells.append("—")
                continue
            s = fmt(v["median"])
            if r["best"] == c:
                s = f"**{s}**"
            if v["spread_pct"] is not None:
                s += f" ±{v['spread_pct']:.0f}%"
            cells.append(s)
        unit = r["unit"] + (" ↓" if r["lower_better"] else " ↑")
        pes = f"{r['pes']} | " if many else ""
        lines.append(f"| {r['label']} | {size_label(r['bytes'])} | {pes}{unit} | "
                     + " | ".join(cells) + " |")
    lines.append("")
    lines.append("Median of the repeats; ±: half their range, in percent of the median; "
                 "bold: the best of the row; ↓ lower is better, ↑ higher is better.")
    return "\n".join(lines) + "\n"
