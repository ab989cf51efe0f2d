#!/usr/bin/env python3
"""HTML reports in a real browser: headless chromium, driven over the DevTools protocol
(cdp.py), loads each report from file:// and the DOM is checked after the page's script ran.

usage: browser.py CHROMIUM TCONV WORKDIR NAME=INPUT[+INPUT...]...

For every report: the page's script ran to its end; the operators and kernels tables hold
exactly the rows of `tconv -w csv -W table=ops|kernels` for the same input, in order, cell for
cell, and each kernel's launching operators (calls per operator) are those the trace's
correlation ids and operator spans give; the flame graph (a sandboxed frame) ran its own script, its total is the one of
`tconv -w flamegraph` and its frames are that SVG's (name, offset, value), the root spanning the
full width; clicking a number's header sorts by that column, largest first, and again smallest first; and the filter box shows exactly
the rows whose name holds the text; nothing was written on the console, no exception, and no
request other than the page itself and the flame graphs' data: URLs. The GPU flame graph's
total is the one of `tconv -w flamegraph -W value=gpu`, and each kernel's time sits on the
operator that launched it as the trace's correlation ids say. The memory chart's points
are rows of `tconv -w csv -W table=memory`, at most two per slice of the bound, the lowest and
highest value of every series kept, each drawn as a line with its peak. With several inputs, the
ranks table has one row per input whose mean step is the one of that input's own report, and
exactly the row of the longest mean step is marked slowest. For an input named
hostile*: the trace's names, which try to end the script element, add elements with event
handlers and set a global or document.title, are shown as text and none of their markup or
script exists or ran, in the page or in the flame graph. A screenshot of each report goes to
WORKDIR as an artifact. Exit 0 when all hold, 1 when one fails, 77 when chromium cannot run.
"""
import base64
import csv
import io
import math
import os
import pathlib
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

NS = "{http://www.w3.org/2000/svg}"
FAILS = []


def fail(msg):
    FAILS.append(msg)
    print("FAIL: " + msg)


def run(tconv, *args):
    p = subprocess.run([tconv, "-q"] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise RuntimeError("tconv %s: exit %d: %s" % (" ".join(args), p.returncode,
                                                      p.stderr.decode("utf-8", "replace")))
    return p.stdout.decode("utf-8", "replace")


def csv_rows(tconv, inp, table, drop):
    text = run(tconv, "-w", "csv", "-W", "table=" + table, "-W", "eol=lf", *inp)
    rows = list(csv.reader(io.StringIO(text, newline="")))[1:]
    return [[c for i, c in enumerate(r) if i != drop] for r in rows]


TABLES_JS = """(function () {
  function rows(id) {
    return Array.from(document.querySelectorAll('#' + id + ' tbody tr')).map(function (tr) {
      return Array.from(tr.children).map(function (td) {
        return td.hasAttribute('data-v') ? td.getAttribute('data-v') : td.textContent; });
    });
  }
  function cols(id) {
    return Array.from(document.querySelectorAll('#' + id + ' thead th')).map(function (th) {
      return th.getAttribute('data-col'); });
  }
  // what a reader sees: numbers with float noise, and whether the kernels table fits its box
  var kt = document.getElementById('kernels-table');
  var noisy = Array.from(document.querySelectorAll('td')).filter(function (td) {
    return td.offsetParent !== null && !td.classList.contains('text') &&
      /\\d\\.\\d{4,}/.test(td.textContent); }).map(function (td) {
    return td.textContent; });
  return {ops: rows('ops'), kernels: rows('kernels-table'), opsCols: cols('ops'),
          kernelsCols: cols('kernels-table'), noisy: noisy.slice(0, 5),
          fits: kt ? [kt.parentNode.scrollWidth, kt.parentNode.clientWidth] : null,
          firstCols: kt ? cols('kernels-table').slice(0, 2) : null};
})()"""


def by_columns(label, rows, cols, text):
    """The page's rows as the csv's columns: each page column says which csv column it is."""
    header = list(csv.reader(io.StringIO(text, newline="")))[0]
    missing = [c for c in header if c not in cols and c not in ("mean_ns", "host_mean_ns")]
    if missing:
        fail("%s: csv columns %s are not in the page" % (label, missing))
    keep = [c for c in header if c in cols]
    return [[r[cols.index(c)] for c in keep] for r in rows], \
        [[row[header.index(c)] for c in keep] for row in
         list(csv.reader(io.StringIO(text, newline="")))[1:]]

FLAME_JS = """(function () {
  var s = document.documentElement;
  return {ready: s.getAttribute('data-ready'), total: s.getAttribute('data-total'),
          title: document.getElementById('title').textContent,
          inner: s.getAttribute('data-inner'), pwned: typeof window.pwned,
          handlers: Array.from(document.querySelectorAll('*')).filter(function (e) {
            return Array.from(e.attributes).some(function (a) { return /^on/i.test(a.name); });
          }).length,
          scripts: document.getElementsByTagName('script').length,
          frames: Array.from(document.querySelectorAll('#frames > g')).map(function (g) {
            return [g.querySelector('title').textContent, g.getAttribute('data-o'),
                    g.getAttribute('data-v'), g.querySelector('rect').getAttribute('width'),
                    g.querySelector('rect').getAttribute('y'), g.getAttribute('data-stream')];
          })};
})()"""

HOSTILE_JS = """(function () {
  var all = Array.from(document.querySelectorAll('*'));
  return {title: document.title, pwned: typeof window.pwned,
          handlers: all.filter(function (e) {
            return Array.from(e.attributes).some(function (a) { return /^on/i.test(a.name); });
          }).map(function (e) { return e.tagName; }),
          foreign: document.querySelectorAll('img, svg, circle, b, body style, object, embed')
                       .length,
          scripts: document.getElementsByTagName('script').length,
          styles: document.getElementsByTagName('style').length,
          frames: document.getElementsByTagName('iframe').length,
          visible: getComputedStyle(document.body).display};
})()"""

# Sort by a column twice and filter; returns what the rows look like after each step.
def interact_js(col, term):
    return """(function () {
  var t = document.getElementById('ops'), th = t.querySelectorAll('thead th')[%d], out = {};
  function col() {
    return Array.from(t.querySelectorAll('tbody tr')).map(function (tr) {
      return +tr.children[%d].getAttribute('data-v'); });
  }
  th.click(); out.desc = col(); out.descClass = th.className;
  th.click(); out.asc = col(); out.ascClass = th.className;
  var box = document.getElementById('ops-filter');
  box.value = %s; box.dispatchEvent(new Event('input'));
  out.shown = Array.from(t.querySelectorAll('tbody tr')).filter(function (tr) {
    return !tr.classList.contains('hidden'); }).map(function (tr) {
    return tr.children[0].textContent; });
  out.count = document.getElementById('ops-count').textContent;
  box.value = ''; box.dispatchEvent(new Event('input'));
  return out;
})()""" % (col, col, json_str(term))


def json_str(s):
    import json
    return json.dumps(s)


def svg_frames(path):
    root = ET.parse(path).getroot()
    box = [g for g in root.iter(NS + "g") if g.get("id") == "frames"][0]
    return root.get("data-total"), [[g.find(NS + "title").text or "", g.get("data-o"),
                                     g.get("data-v")] for g in box]


def same_cells(a, b):
    if a == b:
        return True
    try:
        return float(a) == float(b)
    except ValueError:
        return False


def compare_rows(label, got, want):
    if len(got) != len(want):
        fail("%s: %d rows in the page, %d in the csv" % (label, len(got), len(want)))
    for i, (g, w) in enumerate(zip(got, want)):
        if len(g) != len(w) or not all(same_cells(x, y) for x, y in zip(g, w)):
            fail("%s: row %d is %r in the page, %r in the csv" % (label, i, g, w))
            return


MEMORY_JS = """(function () {
  var d = JSON.parse(document.getElementById('data').textContent);
  return {start: d.span ? d.span[0] : '0', buckets: d.memory.buckets, series: d.memory.series,
          lines: Array.from(document.querySelectorAll('#memory-chart polyline')).map(function (l) {
            return [l.getAttribute('data-label'), l.getAttribute('data-measure'),
                    l.getAttribute('data-n'), l.getAttribute('data-max'),
                    l.getAttribute('stroke'), l.getAttribute('stroke-dasharray')]; }),
          yticks: Array.from(document.querySelectorAll('#memory-chart .ytick')).map(function (t) {
            return t.textContent; })};
})()"""


def check_memory_axes(name, m):
    """Each drawn series its own colour, reserved dashed; the byte axis at round values."""
    strokes = [l[4] for l in m["lines"]]
    if len(set(strokes)) != len(strokes):
        fail("%s memory: series share a colour: %s" % (name, strokes))
    for l in m["lines"]:
        if (l[5] is not None) != (l[1] == "reserved"):
            fail("%s memory %s/%s: dashed is %s" % (name, l[0], l[1], l[5]))
    units = {"B": 1, "KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3}
    ticks = []
    for t in m["yticks"]:
        num, unit = t.split(" ")
        ticks.append((float(num), unit))
    if not m["lines"]:
        return
    if len({u for _, u in ticks}) > 1 or len(ticks) < 2:
        fail("%s memory: byte ticks %s" % (name, m["yticks"]))
        return
    vals = sorted(v for v, _ in ticks)
    step = vals[1] - vals[0]
    exp = 10 ** math.floor(math.log10(step))
    mant = round(step / exp, 6)
    if mant not in (1, 2, 5, 10) or any(abs(v / step - round(v / step)) > 1e-6 for v in vals):
        fail("%s memory: ticks %s are not at round values" % (name, m["yticks"]))
    else:
        print("%s memory: ticks %s" % (name, ", ".join(m["yticks"])))


def check_memory(b, s, tconv, inp, name):
    text = run(tconv, "-w", "csv", "-W", "table=memory", "-W", "eol=lf", *inp)
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    m = b.evaluate(s, MEMORY_JS)
    check_memory_axes(name, m)
    start = int(m["start"])
    want = {}
    for r in rows:
        for measure, col in (("allocated", "total_allocated"), ("reserved", "total_reserved")):
            if r[col] != "":
                want.setdefault((r["device"] or "memory", measure), []).append(
                    (int(r["ts_ns"]) - start, float(r[col])))
    got = {(x["label"], x["measure"]): x for x in m["series"]}
    if sorted(got) != sorted(want):
        fail("%s memory: series %s in the page, %s in the csv" % (name, sorted(got), sorted(want)))
        return
    lines = {(l[0], l[1]): l for l in m["lines"]}
    top = max([v for pts in want.values() for _, v in pts] + [0])
    for key, pts in want.items():
        # a series whose peak is under a thousandth of the top would lie on the axis: listed,
        # not drawn
        if max(v for _, v in pts) * 1000 < top or max(v for _, v in pts) <= 0:
            if key in lines:
                fail("%s memory %s: drawn, though its peak is a line on the axis" % (name, key))
            else:
                print("%s memory %s: peak %g beside %g, not drawn" % (name, "/".join(key),
                                                                      max(v for _, v in pts), top))
            continue
        page = [(p[0], float(p[1])) for p in got[key]["points"]]
        if got[key]["count"] != len(pts):
            fail("%s memory %s: %d points counted, %d csv rows" % (name, key, got[key]["count"],
                                                                  len(pts)))
        if len(page) > 2 * m["buckets"]:
            fail("%s memory %s: %d points, over the bound %d" % (name, key, len(page),
                                                                 2 * m["buckets"]))
        rowset = set(pts)
        if not all(p in rowset for p in page) or page != sorted(page, key=lambda p: p[0]):
            fail("%s memory %s: points that are not csv rows, or out of time order" % (name, key))
        peak = max(v for _, v in pts)
        if max(v for _, v in page) != peak or min(v for _, v in page) != min(v for _, v in pts):
            fail("%s memory %s: the lowest or highest value was lost" % (name, key))
        line = lines.get(key)
        if not line or int(line[2]) != len(page) or float(line[3]) != peak:
            fail("%s memory %s: drawn as %s, peak %s over %d points" % (name, key, line, peak,
                                                                      len(page)))
        print("%s memory %s: %d csv rows, %d in the page" % (name, "/".join(key), len(pts),
                                                            len(page)))


RANKS_JS = """Array.from(document.querySelectorAll('#ranks-table tbody tr')).map(function (tr) {
  return [tr.className].concat(Array.from(tr.children).map(function (td) {
    return td.textContent; })); })"""

STEPS_JS = """(function () {
  var several = document.querySelectorAll('#steps-table thead th').length > 4;
  return {overview: Array.from(document.querySelectorAll('#trace dt')).map(function (dt) {
            return [dt.textContent, dt.nextSibling.textContent]; }),
          steps: Array.from(document.querySelectorAll('#steps-table tbody tr')).map(function (tr) {
            var c = tr.children, k = several ? 2 : 0;
            return [several ? c[1].textContent : '0', c[k].textContent,
                    +c[k + 2].getAttribute('data-v')]; })};
})()"""

ROLES = ("kernel", "memcpy", "memset", "communication", "runtime", "data loader",
         "CPU execution", "other")


def summary_of(tconv, *inp):
    """The -w summary report's step breakdown: (header, {role: (time, pct)})."""
    import re
    text = run(tconv, "-w", "summary", *inp)
    m = re.search(r"^Step time breakdown \((.*)\)\n((?:  .*\n)+)", text, re.M)
    if not m:
        return None, {}
    rows = {}
    for line in m.group(2).splitlines():
        r = re.match(r"  (.{14}) +(\S+ \S+) +(\S+)$", line)
        if r:
            rows[r.group(1).strip()] = (r.group(2), r.group(3))
    return m.group(1), rows


def check_steps(b, s, tconv, name, inp):
    """The overview's steps say what -w summary says, and every step's time is listed: per
    input, the steps' mean is that input's mean step."""
    import re
    got = b.evaluate(s, STEPS_JS)
    head, _ = summary_of(tconv, *inp)
    row = dict(got["overview"]).get("Steps", "")
    if head is None:
        if not row.startswith("none"):
            fail("%s steps: the summary has no breakdown, the page says %r" % (name, row))
        return
    mean = re.search(r"mean step (\d+(?:\.\d+)? [a-z]+)", head)
    want = mean.group(1) if mean else None
    if not want or want not in row:
        fail("%s steps: the page says %r, the summary (%s)" % (name, row, head))
    for i, one in enumerate(inp):
        h, _ = summary_of(tconv, one)
        durs = [x[2] for x in got["steps"] if x[0] == str(i)]
        if h is None:
            if durs:
                fail("%s steps: input %d has no steps alone, %d in the page" % (name, i, len(durs)))
            continue
        m = re.search(r"^(\d+)", h)
        alone = re.search(r"mean step (\d+(?:\.\d+)? [a-z]+)", h).group(1)
        if not durs or len(durs) != int(m.group(1)):
            fail("%s steps: input %d lists %d steps, its summary %s" % (name, i, len(durs), h))
            continue
        from_page = sum(durs) // len(durs)
        if dur_text(from_page) != alone:
            fail("%s steps: input %d's steps average %s, its summary's mean step %s"
                 % (name, i, dur_text(from_page), alone))
    print("%s steps: %s; %d steps listed" % (name, row, len(got["steps"])))


def dur_text(ns):
    """summary_dur's text."""
    a = abs(ns)
    if a < 1000:
        return "%d ns" % ns
    for scale, unit in ((1000000000, "s"), (1000000, "ms"), (1000, "us")):
        if a >= scale:
            break
    milli = a // 1000000 + (a % 1000000 >= 500000) if scale == 1000000000 else \
        (a * 1000 + scale // 2) // scale
    return "%s%d.%03d %s" % ("-" if ns < 0 else "", milli // 1000, milli % 1000, unit)


def check_ranks(b, s, tconv, work, name, inp):
    """One row per input: its mean step and each role's share as -w summary gives them for
    that input alone; the slowest marked."""
    rows = b.evaluate(s, RANKS_JS)
    if len(rows) != len(inp):
        fail("%s ranks: %d rows for %d inputs" % (name, len(rows), len(inp)))
        return
    means = []
    for i, one in enumerate(inp):
        head, roles = summary_of(tconv, one)
        if head is None:
            means.append(-1)
            continue
        import re
        want = [re.search(r"mean step (\d+(?:\.\d+)? [a-z]+)", head).group(1)] + \
            [roles[r][1] for r in ROLES]
        page = [rows[i][4]] + rows[i][5:13]
        if page != want:
            fail("%s ranks: input %d shows %s, -w summary of it alone %s" % (name, i, page, want))
        means.append(page_data_mean(tconv, work, name, i, one))
    want = [i for i, m in enumerate(means) if m == max(means)][:1]
    got = [i for i, r in enumerate(rows) if "slowest" in r[0].split()]
    if got != want or "(slowest)" not in rows[want[0]][2]:
        fail("%s ranks: rows %s marked slowest, expected %s" % (name, got, want))
    print("%s ranks: mean steps %s as each input's summary, slowest input %s" % (name, means, want))


def page_data(path):
    import json
    import re
    text = open(path, encoding="utf-8").read()
    return json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>',
                                text, re.S).group(1))


def page_data_mean(tconv, work, name, i, one):
    alone = os.path.join(work, "%s-input%d.html" % (name, i))
    run(tconv, "-o", alone, one)
    return page_data(alone)["steps"]["mean"]


def load_trace(path):
    import gzip
    import json
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        doc = json.loads(f.read().decode("utf-8", "replace"))
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def chrome_traces(inp):
    """Are all the inputs Chrome trace JSON, whose operators the checks can read?"""
    try:
        return all(p.endswith((".json", ".json.gz")) and load_trace(p) is not None for p in inp)
    except (KeyError, TypeError, ValueError):  # other JSON (rocprofv3's)
        return False


def launchers_of(path, launched_only=False):
    """(kernel name, operator or None) -> [calls, ns], straight from a Kineto trace: a kernel's
    correlation id names its launch (the earliest runtime or driver call carrying it), and the
    launch's operator is the innermost cpu_op/Operator span around it on its thread."""
    import bisect
    spans = [e for e in load_trace(path) if e.get("ph") == "X" and "dur" in e]
    ns = lambda us: int(round(float(us) * 1000))
    corr = lambda e: (e.get("args") or {}).get("correlation")
    launches = {}
    for e in spans:
        cat = str(e.get("cat", "")).lower()
        if corr(e) is not None and (cat.endswith("runtime") or cat.endswith("driver")):
            prev = launches.get(corr(e))
            if prev is None or ns(e["ts"]) < ns(prev["ts"]):
                launches[corr(e)] = e
    ops = {}
    for e in spans:
        if e.get("cat") in ("cpu_op", "Operator"):
            ops.setdefault((e.get("pid"), e.get("tid")), []).append(e)
    starts = {}
    for key, v in ops.items():
        v.sort(key=lambda e: (ns(e["ts"]), -ns(e["dur"])))
        starts[key] = [ns(x["ts"]) for x in v]
    out = {}
    for e in spans:
        if str(e.get("cat", "")).lower() not in ("kernel", "mtia_ccp_events"):
            continue
        op = None
        l = launches.get(corr(e))
        if l is None and launched_only:
            continue
        if l is not None:
            key = (l.get("pid"), l.get("tid"))
            cand = ops.get(key, [])
            start, end = ns(l["ts"]), ns(l["ts"]) + ns(l["dur"])
            inner = None
            # spans nest: the enclosing one that starts last (the shorter of equals) is innermost
            for i in range(bisect.bisect_right(starts.get(key, []), start) - 1, -1, -1):
                o = cand[i]
                if ns(o["ts"]) + ns(o["dur"]) >= end:
                    inner = o
                    break
            op = inner["name"] if inner is not None else None
        k = out.setdefault((e["name"], op), [0, 0])
        k[0] += 1
        k[1] += ns(e["dur"])
    return out


KERNEL_OPS_JS = """JSON.parse(document.getElementById('data').textContent).kernels.map(
  function (k) { return [k[0], k[13]]; })"""


def check_launchers(b, s, name, inp, rows):
    """The launching operators of each kernel, against the trace itself (Kineto JSON inputs)."""
    if not chrome_traces(inp):
        return
    want = {}
    for p in inp:
        for (k, op), (calls, t) in launchers_of(p).items():
            w = want.setdefault((k.replace("\ufffd", "?"), op), [0, 0])
            w[0] += calls
            w[1] += t
    got = {}
    for k, ops in b.evaluate(s, KERNEL_OPS_JS):
        for op, calls, t in ops:
            got[(k.replace("\ufffd", "?"), op)] = [calls, t]
    if sorted((k, op, c) for (k, op), (c, _) in got.items()) != \
            sorted((k, op, c) for (k, op), (c, _) in want.items()):
        diff = sorted(set((k, op, c) for (k, op), (c, _) in got.items()) ^
                      set((k, op, c) for (k, op), (c, _) in want.items()))
        fail("%s: launching operators differ from the trace's: %s" % (name, diff[:6]))
    for r in rows:
        ops = sorted(((c, t, op) for (k, op), (c, t) in got.items() if k == r[0].replace("\ufffd", "?")),
                     key=lambda x: -x[1])
        top = "" if not ops else ("(no operator)" if ops[0][2] is None else ops[0][2])
        if not r[-1].startswith(top):
            fail("%s: kernel %r shows launcher %r, expected %r first" % (name, r[0], r[-1], top))
    print("%s: %d (kernel, launching operator) pairs as in the trace" % (name, len(got)))


def check_gpu_graph(tconv, work, name, inp, gpu):
    svg = os.path.join(work, name + "-gpu.svg")
    run(tconv, "-o", svg, "-W", "value=gpu", *inp)
    total = ET.parse(svg).getroot().get("data-total")
    if total == "0":
        # no GPU work on a known launch: the report leaves the section out
        if gpu:
            fail("%s: a GPU flame graph though no GPU time has a known launch" % name)
        return
    if not gpu or gpu["ready"] != "1":
        fail("%s: the GPU flame graph's script did not run" % name)
        return
    if gpu["total"] != total:
        fail("%s: GPU flame graph total %s, -W value=gpu's %s" % (name, gpu["total"], total))
    if gpu["pwned"] != "undefined" or gpu["handlers"] or gpu["scripts"] != 1:
        fail("%s: the GPU flame graph ran or holds markup of the trace" % name)
    if not chrome_traces(inp):
        return
    # a [gpu] leaf sits on the operator that launched it (or on the root): the trace's pairs
    frames = [(f[0][:f[0].rfind(" (")], int(f[1]), int(f[2]), int(f[4])) for f in gpu["frames"]]
    by_row = {}
    for f in frames:
        by_row.setdefault(f[3], []).append(f)
    drawn, leaves = {}, 0
    for nm, o, v, y in frames:
        if not nm.startswith("[gpu] "):
            continue
        parent = [p for p in by_row.get(y + 16, []) if p[1] <= o < p[1] + p[2]]
        op = parent[0][0] if parent and parent[0][0] != "all" else None
        key = (nm[6:].replace("\ufffd", "?"), op)
        drawn[key] = drawn.get(key, 0) + v
        leaves += v
    want = {}
    for p in inp:
        for (k, op), (_, t) in launchers_of(p, launched_only=True).items():
            key = (k.replace("\ufffd", "?"), op)
            want[key] = want.get(key, 0) + t
    # kernels only: leaves of copies and sets are in the total, not in the trace's pairs
    kernels = {k for k, _ in want}
    for key, d in drawn.items():
        if key[0] in kernels and d > want.get(key, 0):
            fail("%s: GPU flame graph has %d ns of %s under that operator, the trace %d"
                 % (name, d, key, want.get(key, 0)))
    # when every leaf is drawn (none under 0.1 px), each pair is there whole
    if leaves == int(total):
        for key, t in want.items():
            if drawn.get(key, 0) != t:
                fail("%s: GPU flame graph has %d ns of %s under that operator, the trace %d"
                     % (name, drawn.get(key, 0), key, t))
    print("%s: GPU flame graph total %s; %d kernels drawn on their launching operator"
          % (name, total, len(drawn)))


def frame_paths(frames):
    """Each frame's stack, rebuilt from the geometry: (path -> summed value, frames under a GPU
    stream's root). frames: [name, offset, value, y, stream]."""
    import bisect
    if not frames:
        return {}, 0
    root_y = max(f[3] for f in frames)
    levels = {}
    for f in frames:
        levels.setdefault((root_y - f[3]) // 16, []).append(f)
    paths, gpu, info = {}, 0, {}
    for d in sorted(levels):
        row = sorted(levels[d], key=lambda f: f[1])
        starts = [p[1] for p in sorted(levels.get(d - 1, []), key=lambda f: f[1])]
        parents = sorted(levels.get(d - 1, []), key=lambda f: f[1])
        for f in row:
            if d == 0:
                info[id(f)] = ((), False)
                continue
            i = bisect.bisect_right(starts, f[1]) - 1
            path, under = info[id(parents[i])]
            under = under or bool(f[4])
            path = path + (f[0],)
            info[id(f)] = (path, under)
            if under:
                if f[4]:
                    gpu += f[2]
                continue
            paths[path] = paths.get(path, 0) + f[2]
    return paths, gpu


def svg_file_frames(path):
    root = ET.parse(path).getroot()
    box = [g for g in root.iter(NS + "g") if g.get("id") == "frames"][0]
    out = []
    for g in box:
        t = g.find(NS + "title").text or ""
        out.append([t[: t.rfind(" (")], int(g.get("data-o")), int(g.get("data-v")),
                    int(g.find(NS + "rect").get("y")), g.get("data-stream") == "1"])
    return int(root.get("data-total")), float(root.get("data-inner")), out


def check_cpu_graph(tconv, work, name, inp, flame, kernels):
    """The CPU graph is -w flamegraph's without its GPU streams: each stack's value the same,
    every stack wide enough drawn, no GPU work in it."""
    svg = os.path.join(work, name + "-all.svg")
    run(tconv, "-o", svg, "-W", "minwidth=0", *inp)
    total, _, frames = svg_file_frames(svg)
    want, gpu = frame_paths(frames)
    cpu_total = total - gpu
    if cpu_total <= 0:
        if flame:
            fail("%s: a CPU flame graph without CPU time" % name)
        return
    if not flame or flame["ready"] != "1":
        fail("%s: the CPU flame graph's script did not run (%s)" % (name, flame and flame["ready"]))
        return
    if flame["total"] != str(cpu_total):
        fail("%s: CPU flame graph total %s, -w flamegraph's %d less its GPU streams' %d"
             % (name, flame["total"], total, gpu))
    page = [[f[0][: f[0].rfind(" (")], int(f[1]), int(f[2]), int(f[4]), f[5] == "1"]
            for f in flame["frames"]]
    got, gpu_in_page = frame_paths(page)
    scale = float(flame["inner"]) / cpu_total
    for k in sorted(set(got) | set(want)):
        if k in got and got[k] != want.get(k):
            fail("%s: CPU graph %s is %s, -w flamegraph's %s" % (name, ";".join(k), got[k],
                                                                  want.get(k)))
            break
        if k not in got and want[k] * scale >= 0.1:
            fail("%s: CPU graph lacks %s (%d)" % (name, ";".join(k), want[k]))
            break
    names = {f[0] for f in page}
    if gpu_in_page or names & set(kernels):
        fail("%s: GPU work in the CPU graph: %s" % (name, sorted(names & set(kernels))[:3]))
    root = [f for f in flame["frames"] if f[1] == "0" and f[0].startswith("all (")]
    if not root or abs(float(root[0][3]) - float(flame["inner"])) > 0.05:
        fail("%s: the root frame %s does not span %s px" % (name, root, flame["inner"]))
    if flame["pwned"] != "undefined" or flame["handlers"] or flame["scripts"] != 1:
        fail("%s: the flame graph ran or holds markup of the trace: %s"
             % (name, {k: flame[k] for k in ("pwned", "handlers", "scripts")}))
    print("%s: CPU graph %d of -w flamegraph's %d (GPU streams %d), %d frames"
          % (name, cpu_total, total, gpu, len(page)))


SEARCH_JS = """(function () {
  var t = document.getElementById('term'), m = document.getElementById('matched');
  return {value: t ? t.value : null, matched: m ? m.getAttribute('data-v') : null,
          focused: document.activeElement ? document.activeElement.id : null,
          hits: Array.from(document.querySelectorAll('#frames > g.match')).map(function (g) {
            return g.querySelector('title').textContent; })};
})()"""


def check_search(b, session, name, graph, label):
    """Typing into a report graph's own search box highlights the frames whose name holds the
    text: the graph is in a sandboxed frame, where no dialog may open."""
    frames = graph["frames"]
    if not frames:
        return
    import re
    words = sorted({w for f in frames if not f[0].startswith("all (")
                    for w in re.findall(r"[A-Za-z][A-Za-z0-9_]{3,}", f[0][: f[0].rfind(" (")])})
    term = words[len(words) // 2][:5] if words else "all"
    try:
        b.evaluate(session, "document.getElementById('term') && "
                            "document.getElementById('term').focus()")
        b.send("Input.insertText", {"text": term}, session=session, timeout=20)
        got = b.evaluate(session, SEARCH_JS, timeout=20)
    except (TimeoutError, RuntimeError) as e:
        fail("%s %s graph: search did not answer: %s" % (name, label, e))
        return
    import re
    want = [f[0] for f in frames if re.search(re.escape(term), f[0][: f[0].rfind(" (")])]
    if got["value"] != term or sorted(got["hits"]) != sorted(want) or not want:
        fail("%s %s graph: typing %r highlights %d frames (%s), expected %d"
             % (name, label, term, len(got["hits"]), got["value"], len(want)))
    else:
        print("%s %s graph: typing %r highlights %d frames" % (name, label, term, len(want)))


SECTIONS_JS = """(function () {
  function has(id) { return !!document.getElementById(id); }
  return {title: document.title, kernels: has('kernels'), cpu: has('flame-cpu'),
          gpu: has('flame-gpu'), memory: has('memory'), ranks: has('ranks'),
          gpus: !document.getElementById('gpus-part').classList.contains('hidden'),
          nav: Array.from(document.querySelectorAll('nav a')).map(function (a) {
            return a.getAttribute('href'); }),
          empty: Array.from(document.querySelectorAll('.empty')).filter(function (e) {
            return e.offsetParent !== null; }).map(function (e) { return e.textContent; })};
})()"""


def check_sections(b, s, tconv, name, inp, graphs):
    """Sections without data are left out (with their links); the tab says which trace."""
    got = b.evaluate(s, SECTIONS_JS)
    d = b.evaluate(s, "JSON.parse(document.getElementById('data').textContent)")
    want = {"kernels": len(d["kernels"]) > 0, "gpu": len(d["gpus"]) > 0,
            "memory": len(d["memory"]["series"]) > 0, "ranks": len(inp) > 1}
    for k, on in want.items():
        if k == "gpu":
            on = on and "GPU time by launching operator" in graphs
        if got[k] != on:
            fail("%s: section %s %s" % (name, k, "missing" if on else "shown without data"))
    if got["gpus"] != (len(d["gpus"]) > 0):
        fail("%s: GPU utilisation shown %s with %d GPUs" % (name, got["gpus"], len(d["gpus"])))
    for g, frame in graphs.items():
        if g and frame.get("total") == "0":
            fail("%s: a flame graph without samples: %s" % (name, g))
    base = os.path.basename(inp[0])
    if not got["title"].startswith(base) or not got["title"].endswith(" - tconv report"):
        fail("%s: the tab is titled %r, not after %s" % (name, got["title"], base))
    links = {"#kernels": got["kernels"], "#flame-gpu-section": got["gpu"],
             "#memory": got["memory"], "#ranks": got["ranks"]}
    for href, on in links.items():
        if (href in got["nav"]) != on:
            fail("%s: the link to %s is %s" % (name, href, "there" if not on else "missing"))
    # the devices by name, as each input's deviceProperties says them
    import json
    for g in d["gpus"]:
        if "number" not in g:
            continue
        props = json.loads(d["ranks"][g["input"]]["devices"] or "[]")
        named = [p["name"] for p in props if isinstance(p, dict) and p.get("id") == g["number"]]
        overview = dict(b.evaluate(s, STEPS_JS)["overview"])
        shown = overview.get("Device", "") + overview.get("Devices", "")
        if named and named[0] not in shown:
            fail("%s: device %s is %r in its input, the overview says %r" % (name, g["label"],
                                                                             named[0], shown))
    # the rank and world size, as each input's distributedInfo says them
    overview = dict(b.evaluate(s, STEPS_JS)["overview"])
    shown = overview.get("Rank", "") + overview.get("Ranks", "")
    for r in d["ranks"]:
        info = json.loads(r.get("distributed") or "{}")
        if r.get("rank") is not None and isinstance(info, dict) and "world_size" in info:
            says = "rank %s of %s" % (r["rank"], info["world_size"])
            if says not in shown:
                fail("%s: the overview says %r, not %r" % (name, shown, says))
            else:
                print("%s: overview %r" % (name, says))
    print("%s: title %r; sections %s; empty notes %s" % (name, got["title"],
                                                         {k: got[k] for k in want}, got["empty"]))


def check(browser, tconv, work, name, inp):
    page = os.path.join(work, name + ".html")
    run(tconv, "-o", page, *inp)
    url = pathlib.Path(page).resolve().as_uri()
    with open(page, encoding="utf-8") as f:
        nframes = f.read().count("<iframe ")
    b = cdp.Chromium(browser, work)
    try:
        s = b.open_page()
        b.send("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 2400,
                                                      "deviceScaleFactor": 1, "mobile": False},
               session=s)
        b.send("Page.navigate", {"url": url}, session=s)
        end = time.time() + 60
        while time.time() < end:
            b.pump(0.2)
            if b.evaluate(s, "document.body && document.body.getAttribute('data-ready')") == "1":
                break
        else:
            fail("%s: the page's script did not run to its end" % name)
            return
        # the flame graphs' frames, told apart by their titles
        end = time.time() + 30
        graphs, sessions = {}, {}
        while time.time() < end:
            b.pump(0.2)
            graphs = {}
            for k, v in b.sessions.items():
                if v.get("type") == "iframe":
                    g = b.evaluate(k, FLAME_JS)
                    graphs[g["title"]] = g
                    sessions[g["title"]] = k
            if len(graphs) == nframes and all(g["ready"] == "1" for g in graphs.values()):
                break
        flame = graphs.get("CPU self time")
        gpu = graphs.get("GPU time by launching operator")
        b.pump(0.5)

        # 1. the tables are the csv writer's, column for column; the kernels table fits its
        # column, name and launcher first; no number with float noise
        got = b.evaluate(s, TABLES_JS)
        page_rows, csv_want = by_columns(name + " ops", got["ops"], got["opsCols"], run(
            tconv, "-w", "csv", "-W", "table=ops", "-W", "eol=lf", *inp))
        compare_rows(name + " ops", page_rows, csv_want)
        if got["kernels"]:
            page_rows, csv_want = by_columns(name + " kernels", got["kernels"],
                                             got["kernelsCols"], run(
                tconv, "-w", "csv", "-W", "table=kernels", "-W", "eol=lf", *inp))
            compare_rows(name + " kernels", page_rows, csv_want)
            if "launched_by" in got["kernelsCols"]:
                launched = got["kernelsCols"].index("launched_by")
                check_launchers(b, s, name, inp, [[r[0], r[launched]] for r in got["kernels"]])
            if got["firstCols"] != ["name", "launched_by"]:
                fail("%s: the kernels table starts with %s" % (name, got["firstCols"]))
            if got["fits"] and got["fits"][0] > got["fits"][1]:
                fail("%s: the kernels table is %d px wide in a %d px box" % (name, *got["fits"]))
        if got["noisy"]:
            fail("%s: numbers with float noise: %s" % (name, got["noisy"]))

        # 2. the memory chart's points are rows of the csv memory table, peaks kept
        check_memory(b, s, tconv, inp, name)

        # 3. the CPU graph is -w flamegraph's without its GPU streams; 3b. the GPU graph
        kernels = [r[0] for r in got["kernels"]]
        check_cpu_graph(tconv, work, name, inp, flame, kernels)
        if gpu or any(p.endswith((".json", ".json.gz")) for p in inp) and kernels:
            check_gpu_graph(tconv, work, name, inp, gpu)
        # 3c. both are searchable from their own box
        for label, title in (("CPU", "CPU self time"), ("GPU", "GPU time by launching operator")):
            if title in graphs:
                check_search(b, sessions[title], name, graphs[title], label)

        # 4. steps as -w summary gives them, every step listed; per rank, each input alone
        check_steps(b, s, tconv, name, inp)
        if len(inp) > 1:
            check_ranks(b, s, tconv, work, name, inp)
        check_sections(b, s, tconv, name, inp, graphs)

        # 5. sorting and filtering
        ops = got["ops"]
        if len(ops) >= 2:
            term = ops[len(ops) // 2][0][:6].lower()
            r = b.evaluate(s, interact_js(4, term))
            if r["desc"] != sorted(r["desc"], reverse=True) or r["asc"] != sorted(r["desc"]) \
                    or "sorted-desc" not in r["descClass"] or "sorted-asc" not in r["ascClass"]:
                fail("%s: clicking 'host self' does not sort both ways: %s" % (name, r))
            want_shown = [o[0] for o in ops if term in o[0].lower()]
            if sorted(r["shown"]) != sorted(want_shown) or \
                    r["count"] != "%d of %d rows" % (len(want_shown), len(ops)):
                fail("%s: filter %r shows %d rows (%s), expected %d" % (name, term, len(r["shown"]),
                                                                       r["count"], len(want_shown)))

        # 6. hostile names stay text
        if name.startswith("hostile"):
            h = b.evaluate(s, HOSTILE_JS)
            if h["title"] != "hostile.json - tconv report" or h["pwned"] != "undefined" or \
                    h["handlers"] or \
                    h["foreign"] or h["scripts"] != 2 or h["styles"] != 1 or h["frames"] != 2 \
                    or h["visible"] == "none":
                fail("%s: the trace's markup took effect: %s" % (name, h))
            names = [o[0] for o in ops]
            if not any("</script>" in n for n in names) or not any("<img" in n for n in names) \
                    or not any("\ufffd" in n for n in names):
                fail("%s: the hostile names are not shown as text: %s" % (name, names))
            if flame and not any("</script>" in f[0] for f in flame["frames"]):
                fail("%s: the flame graph does not show the hostile names as text" % name)

        # 7. console and network, of the page and of the flame graph's frame
        for e in b.events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.consoleAPICalled":
                fail("%s: console.%s: %s" % (name, p.get("type"), p.get("args")))
            elif m == "Runtime.exceptionThrown":
                fail("%s: exception: %s" % (name, p.get("exceptionDetails", {}).get("text")))
            elif m == "Log.entryAdded" and p["entry"]["level"] in ("error", "warning"):
                fail("%s: log %s: %s" % (name, p["entry"]["level"], p["entry"]["text"]))
            elif m == "Network.requestWillBeSent":
                u = p["request"]["url"]
                if u != url and not u.startswith("data:image/svg+xml;base64,"):
                    fail("%s: a request for %s" % (name, u[:200]))

        # 8. the screenshot, an artifact
        shot = b.send("Page.captureScreenshot", {"format": "png"}, session=s)
        out = os.path.join(work, name + ".png")
        with open(out, "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        print("%s: %d ops, %d kernels, %d flame frames; screenshot %s"
              % (name, len(ops), len(got["kernels"]), len(flame["frames"]) if flame else 0, out))
    finally:
        b.close()


def main():
    browser, tconv, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    probe = os.path.join(work, "probe.html")
    with open(probe, "w") as f:
        f.write("<!DOCTYPE html><body><script>document.body.setAttribute('data-ran','1')"
                "</script></body>\n")
    try:
        b = cdp.Chromium(browser, work)
        s = b.open_page()
        b.send("Page.navigate", {"url": pathlib.Path(probe).resolve().as_uri()}, session=s)
        b.pump(1)
        ran = b.evaluate(s, "document.body && document.body.getAttribute('data-ran')")
        b.close()
    except (OSError, EOFError, TimeoutError, RuntimeError) as e:
        print("chromium cannot run here (%s): skipped" % e)
        return 77
    if ran != "1":
        print("chromium does not run scripts here: skipped")
        return 77
    for case in sys.argv[4:]:
        name, inp = case.split("=", 1)
        check(browser, tconv, work, name, inp.split("+"))
    if FAILS:
        print("%d checks failed" % len(FAILS))
        return 1
    print("ok: %d reports" % (len(sys.argv) - 4))
    return 0


if __name__ == "__main__":
    sys.exit(main())
