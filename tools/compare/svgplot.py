"""The --plot figure as SVG, written by hand so that plotting needs no
package: latency and bandwidth against message size (log-log, one line per
configuration), bar charts of atomics, message rate and collectives, and
with several PE counts the collectives' latency against PEs.
Each marker or bar shows the median; the whisker spans the repeats."""

import math
from xml.sax.saxutils import escape

from summary import size_label

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
          "#17becf", "#7f7f7f", "#bcbd22"]
DASHES = ["", "6,3", "2,3", "8,3,2,3"]
PANEL_W, PANEL_H = 580, 330
MARGIN_L, MARGIN_R, MARGIN_T, MARGIN_B = 70, 20, 34, 58


def _style(i):
    return COLORS[i % len(COLORS)], DASHES[(i // len(COLORS)) % len(DASHES)]


def _num(v):
    if v >= 1e4 or v < 1e-3:
        return f"{v:.0e}".replace("e+0", "e").replace("e-0", "e-")
    return f"{v:g}"


class Svg:
    def __init__(self, w, h):
        self.w, self.h, self.parts = w, h, []

    def add(self, s):
        self.parts.append(s)

    def text(self, x, y, s, size=12, anchor="start", weight="normal", rotate=None):
        tr = f' transform="rotate({rotate} {x:.1f} {y:.1f})"' if rotate else ""
        self.add(f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
                 f'font-weight="{weight}"{tr}>{escape(s)}</text>')

    def line(self, x1, y1, x2, y2, color="#000", width=1, dash=""):
        d = f' stroke-dasharray="{dash}"' if dash else ""
        self.add(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
                 f'stroke="{color}" stroke-width="{width}"{d}/>')

    def render(self):
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.w}" height="{self.h}" '
                f'viewBox="0 0 {self.w} {self.h}" font-family="DejaVu Sans, Arial, sans-serif">\n'
                f'<rect width="100%" height="100%" fill="white"/>\n')
        return head + "\n".join(self.parts) + "\n</svg>\n"


class LogAxis:
    """Maps values to pixels on a log scale; by default widened to whole
    decades (value axes), exact=True keeps the data's ends (size axes)."""

    def __init__(self, lo, hi, p0, p1, exact=False):
        lo, hi = max(lo, 1e-12), max(hi, 1e-12)
        if not exact:
            lo, hi = 10 ** math.floor(math.log10(lo)), 10 ** math.ceil(math.log10(hi))
        self.lo, self.hi = lo, hi if hi > lo else lo * 10
        self.p0, self.p1 = p0, p1

    def __call__(self, v):
        v = min(max(v, self.lo), self.hi)
        f = (math.log10(v) - math.log10(self.lo)) / (math.log10(self.hi) - math.log10(self.lo))
        return self.p0 + f * (self.p1 - self.p0)

    def decades(self):
        k = round(math.log10(self.lo))
        while 10 ** k <= self.hi * 1.0001:
            yield 10 ** k
            k += 1


def _frame(svg, x0, y0, title, ylabel, yaxis, width=PANEL_W):
    """Panel title, plot box and the y axis's decades with grid lines."""
    left, top = x0 + MARGIN_L, y0 + MARGIN_T
    right, bottom = x0 + width - MARGIN_R, y0 + PANEL_H - MARGIN_B
    svg.text((left + right) / 2, y0 + 20, title, 14, "middle", "bold")
    for v in yaxis.decades():
        y = yaxis(v)
        svg.line(left, y, right, y, "#ddd")
        svg.text(left - 6, y + 4, _num(v), 11, "end")
    svg.add(f'<rect x="{left}" y="{top}" width="{right - left}" height="{bottom - top}" '
            f'fill="none" stroke="#000"/>')
    svg.text(x0 + 16, (top + bottom) / 2, ylabel, 12, "middle", rotate=-90)
    return left, top, right, bottom


def _extent(rows, configs):
    vals = [v[k] for r in rows for c in configs if (v := r["values"].get(c))
            for k in ("min", "max") if v[k] > 0]
    return (min(vals), max(vals)) if vals else (1, 10)


# A line panel's x axis: the rows' key, its tick labels and its title.
BY_SIZE = ("bytes", lambda s: size_label(s).replace(" ", "\u00a0"),
           "message size (bytes, log scale)", "series")
BY_PES = ("pes", str, "PEs (log scale)", "scaling")


def line_panel(svg, x0, y0, rows, configs, title, ylabel, x=BY_SIZE):
    """rows of one bench by size (or of one bench and size by PE count);
    x: size or PEs (log), y: value (log)."""
    key, tick, xlabel, cls = x
    sizes = sorted({r[key] for r in rows})
    lo, hi = _extent(rows, configs)
    top, bottom = y0 + MARGIN_T, y0 + PANEL_H - MARGIN_B
    yaxis = LogAxis(lo, hi, bottom, top)
    left, top, right, bottom = _frame(svg, x0, y0, title, ylabel, yaxis)
    xaxis = LogAxis(min(sizes), max(sizes), left + 14, right - 14, exact=True)
    for s in sizes:
        px = xaxis(s)
        svg.line(px, top, px, bottom, "#eee")
        svg.text(px, bottom + 16, tick(s), 11, "middle")
    svg.text((left + right) / 2, bottom + 38, xlabel, 12, "middle")
    for i, c in enumerate(configs):
        color, dash = _style(i)
        pts = [(xaxis(r[key]), r["values"][c]) for r in rows if c in r["values"]]
        if not pts:
            continue
        d = f' stroke-dasharray="{dash}"' if dash else ""
        poly = " ".join(f"{px:.1f},{yaxis(v['median']):.1f}" for px, v in pts)
        svg.add(f'<polyline class="{cls}" data-config="{escape(c)}" points="{poly}" '
                f'fill="none" stroke="{color}" stroke-width="2"{d}/>')
        for px, v in pts:
            svg.line(px, yaxis(v["min"]), px, yaxis(v["max"]), color, 1)
            svg.add(f'<circle cx="{px:.1f}" cy="{yaxis(v["median"]):.1f}" r="3" fill="{color}"/>')


def bar_panel(svg, x0, y0, groups, configs, title, ylabel, width=PANEL_W):
    """groups: [(label, row)]; one bar per configuration in each group."""
    rows = [r for _, r in groups]
    lo, hi = _extent(rows, configs)
    yaxis = LogAxis(lo, hi, y0 + PANEL_H - MARGIN_B, y0 + MARGIN_T)
    left, top, right, bottom = _frame(svg, x0, y0, title, ylabel, yaxis, width)
    gw = (right - left) / max(len(groups), 1)
    bw = min(26.0, (gw - 10) / max(len(configs), 1))
    for g, (label, row) in enumerate(groups):
        gx = left + g * gw + (gw - bw * len(configs)) / 2
        svg.text(left + g * gw + gw / 2, bottom + 16, label, 11, "middle")
        for i, c in enumerate(configs):
            v = row["values"].get(c)
            if not v:
                continue
            color, _ = _style(i)
            x, y = gx + i * bw, yaxis(v["median"])
            svg.add(f'<rect class="bar" data-config="{escape(c)}" x="{x:.1f}" y="{y:.1f}" '
                    f'width="{bw - 2:.1f}" height="{bottom - y:.1f}" fill="{color}"/>')
            mid = x + (bw - 2) / 2
            svg.line(mid, yaxis(v["min"]), mid, yaxis(v["max"]), "#000", 1)


def _legend(svg, configs, y):
    x = 20
    for i, c in enumerate(configs):
        color, dash = _style(i)
        w = 40 + 7 * len(c)
        if x + w > svg.w - 10:
            x, y = 20, y + 20
        svg.line(x, y - 4, x + 26, y - 4, color, 3, dash)
        svg.text(x + 32, y, c, 12)
        x += w + 14
    return y


def _notes(svg, x0, y0, lines):
    """How the numbers were taken, in a free panel slot."""
    svg.text(x0 + MARGIN_L, y0 + 20, "how measured", 14, "start", "bold")
    for i, ln in enumerate(lines):
        svg.text(x0 + MARGIN_L, y0 + 48 + 20 * i, ln, 12)


def figure(rows, configs, title, notes=()):
    """The whole figure as SVG text; configs: names, in column order;
    notes: short lines on how the numbers were taken.  With several PE
    counts, the point-to-point panels show the smallest, and the
    collectives are drawn against PEs, one panel per operation and size."""
    counts = sorted({r["pes"] for r in rows})
    by, scaling = {}, {}
    for r in rows:
        if r["pes"] == counts[0]:
            by.setdefault(r["bench"], []).append(r)
        scaling.setdefault((r["bench"], r["bytes"]), []).append(r)
    panels = []
    for bench, ttl, yl in (("put", "put + quiet latency", "microseconds (log)"),
                           ("get", "get latency", "microseconds (log)"),
                           ("put_nbi_bw", "put_nbi bandwidth", "MB/s (log)")):
        if by.get(bench):
            panels.append(("line", by[bench], ttl, yl))
    amo = [(lbl, r[0]) for b, lbl in (("fetch_add", "fetch-add"), ("compare_swap", "compare-swap"))
           if (r := by.get(b))]
    if amo:
        panels.append(("bar", amo, "atomics (long) latency", "microseconds (log)"))
    if by.get("put_nbi_rate"):
        panels.append(("bar", [("8 B put_nbi", by["put_nbi_rate"][0])],
                       "put_nbi message rate", "million messages/s (log)"))
    coll = []
    for b, lbl in (("barrier", "barrier"), ("broadcast", "bcast"), ("reduce", "reduce"),
                   ("alltoall", "alltoall")):
        for r in by.get(b, []):
            coll.append((lbl + (f" {size_label(r['bytes'])}" if r["bytes"] else ""), r))
    if coll and len(counts) == 1:
        panels.append(("bar", coll, "collectives latency (slowest PE)", "microseconds (log)"))
    for lbl, r in coll if len(counts) > 1 else ():
        panels.append(("pes", scaling[(r["bench"], r["bytes"])],
                       f"{lbl} latency by PEs (slowest PE)", "microseconds (log)"))
    width = 2 * PANEL_W + 20
    # Panels two a row; the collectives (many groups of bars) take a row.
    places, free, col, rowi = [], [], 0, 0
    for kind, data, _, _ in panels:
        wide = kind == "bar" and len(data) > 4
        if wide and col:
            free.append((1, rowi))
            col, rowi = 0, rowi + 1
        places.append((col, rowi, wide))
        col, rowi = (0, rowi + 1) if wide or col else (1, rowi)
    if col:
        free.append((1, rowi))
        rowi += 1
    if notes and not free:
        free.append((0, rowi))
        rowi += 1
    nrows = rowi
    legend_rows = 1 + sum(40 + 7 * len(c) + 14 for c in configs) // (width - 40)
    head = 50 + 20 * legend_rows
    svg = Svg(width, head + PANEL_H * nrows + 10)
    svg.text(width / 2, 24, title, 16, "middle", "bold")
    _legend(svg, configs, 50)
    for (kind, data, ttl, yl), (c, r, wide) in zip(panels, places):
        x0, y0 = 10 + c * (PANEL_W + 10), head + r * PANEL_H
        if kind == "line":
            line_panel(svg, x0, y0, data, configs, ttl, yl)
        elif kind == "pes":
            line_panel(svg, x0, y0, data, configs, ttl, yl, BY_PES)
        else:
            bar_panel(svg, x0, y0, data, configs, ttl, yl, 2 * PANEL_W + 10 if wide else PANEL_W)
    if notes:
        c, r = free[0]
        _notes(svg, 10 + c * (PANEL_W + 10), head + r * PANEL_H, notes)
    return svg.render()
