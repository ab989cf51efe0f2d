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
  return {ops: rows('ops'), kernels: rows('kernels-table')};
})()"""

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
                    g.querySelector('rect').getAttribute('y')];
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
                    l.getAttribute('data-n'), l.getAttribute('data-max')]; })};
})()"""


def check_memory(b, s, tconv, inp, name):
    text = run(tconv, "-w", "csv", "-W", "table=memory", "-W", "eol=lf", *inp)
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    m = b.evaluate(s, MEMORY_JS)
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
    for key, pts in want.items():
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
  return [tr.className, tr.children[3].getAttribute('data-v'), tr.children[1].textContent]; })"""


def page_data(path):
    import json
    import re
    text = open(path, encoding="utf-8").read()
    return json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>',
                                text, re.S).group(1))


def check_ranks(b, s, tconv, work, name, inp):
    rows = b.evaluate(s, RANKS_JS)
    if len(rows) != len(inp):
        fail("%s ranks: %d rows for %d inputs" % (name, len(rows), len(inp)))
        return
    means = []
    for i, one in enumerate(inp):
        alone = os.path.join(work, "%s-input%d.html" % (name, i))
        run(tconv, "-o", alone, one)
        means.append(page_data(alone)["steps"]["mean"])
        if rows[i][1] != str(means[-1]):
            fail("%s ranks: input %d has mean step %s, %d in its own report" % (name, i, rows[i][1],
                                                                                means[-1]))
    want = [i for i, m in enumerate(means) if m == max(means)][:1]
    got = [i for i, r in enumerate(rows) if "slowest" in r[0].split()]
    if got != want or "(slowest)" not in rows[want[0]][2]:
        fail("%s ranks: rows %s marked slowest, expected %s" % (name, got, want))
    print("%s ranks: mean steps %s, slowest input %s" % (name, means, want))


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


def check(browser, tconv, work, name, inp):
    page = os.path.join(work, name + ".html")
    svg = os.path.join(work, name + ".svg")
    run(tconv, "-o", page, *inp)
    run(tconv, "-o", svg, *inp)
    url = pathlib.Path(page).resolve().as_uri()
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
        # the two flame graphs' frames, told apart by their titles
        end = time.time() + 30
        graphs = {}
        while time.time() < end:
            b.pump(0.2)
            graphs = {}
            for k, v in b.sessions.items():
                if v.get("type") == "iframe":
                    g = b.evaluate(k, FLAME_JS)
                    graphs[g["title"]] = g
            if len(graphs) == 2 and all(g["ready"] == "1" for g in graphs.values()):
                break
        flame = graphs.get("CPU self time")
        gpu = graphs.get("GPU time by launching operator")
        b.pump(0.5)

        # 1. the tables are the csv writer's
        got = b.evaluate(s, TABLES_JS)
        compare_rows(name + " ops", got["ops"], csv_rows(tconv, inp, "ops", 5))
        compare_rows(name + " kernels", [r[:-1] for r in got["kernels"]],
                     csv_rows(tconv, inp, "kernels", 3))
        check_launchers(b, s, name, inp, got["kernels"])

        # 2. the memory chart's points are rows of the csv memory table, peaks kept
        check_memory(b, s, tconv, inp, name)

        # 3. the flame graph is the flamegraph writer's, whole
        total, want = svg_frames(svg)
        if not flame or flame["ready"] != "1":
            fail("%s: the flame graph's script did not run (%s)" % (name, flame and flame["ready"]))
        else:
            if flame["total"] != total:
                fail("%s: flame graph total %s, the flamegraph writer's %s" % (name, flame["total"],
                                                                          total))
            if sorted(f[:3] for f in flame["frames"]) != sorted(want):
                fail("%s: the flame graph's frames differ from the flamegraph writer's" % name)
            root = [f for f in flame["frames"] if f[1] == "0" and f[0].startswith("all (")]
            if int(total) > 0 and (not root or root[0][2] != total or
                                   abs(float(root[0][3]) - float(flame["inner"])) > 0.05):
                fail("%s: the root frame %s does not span the total %s over %s px"
                     % (name, root, total, flame["inner"]))
            if flame["pwned"] != "undefined" or flame["handlers"] or flame["scripts"] != 1:
                fail("%s: the flame graph ran or holds markup of the trace: %s"
                     % (name, {k: flame[k] for k in ("pwned", "handlers", "scripts")}))

        # 3b. the GPU flame graph: the total of -W value=gpu, each kernel under its launcher
        check_gpu_graph(tconv, work, name, inp, gpu)

        # 4. one row per rank, each as its input alone, the slowest marked
        if len(inp) > 1:
            check_ranks(b, s, tconv, work, name, inp)

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
            if h["title"] != "tconv report" or h["pwned"] != "undefined" or h["handlers"] or \
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
