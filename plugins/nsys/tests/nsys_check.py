#!/usr/bin/env python3
"""The nsys reader against the exports themselves, read independently of tconv: every expected
number comes from SQL run by the sqlite3 shell on the same file, and is compared with what the
writers give, parsed here.

usage: nsys_check.py TCONV SQLITE3 GO WORK FILE...

For each FILE (an `nsys export --type sqlite` file):
  kernels   per kernel name, calls and total ns of the csv kernels table = the KERNEL table's
            rows grouped by demangled name (and CUDA graph launches, which are device work too)
  copies    count and total ns of memcpy and memset spans = the MEMCPY and MEMSET tables
  calls     per API name (without its _v suffix), count and total ns of CUDA runtime and driver
            spans = the RUNTIME table without its backtrace rows; the same for OS runtime calls
  nvtx      per (domain, name), count and total ns of NVTX ranges = NVTX_EVENTS' push/pop and
            start/end rows
  samples   with -R samples=true, the csv stacks table's count per stack = COMPOSITE_EVENTS
            with their SAMPLING_CALLCHAINS frames, root first
  memory    the last "allocated bytes" counter per device = the sum of allocations minus frees
  gpu       `go tool pprof -raw` of -W gpu=attribute: the gpu/nanoseconds total = the summed
            duration of every kernel, copy, set and graph launch whose correlation id names a
            CUDA call of its process
  launches  folded -W value=gpu (no backtraces): each GPU activity's time on exactly the stack of
            the spans that enclose its launching call on that call's thread, the call last
Exit 0 when all hold, 1 otherwise.
"""
import csv
import io
import json
import re
import subprocess
import sys
from collections import defaultdict

TCONV, SQLITE3, GO, WORK = sys.argv[1:5]
FILES = sys.argv[5:]
failures = 0


def fail(msg):
    global failures
    failures += 1
    print("FAIL: " + msg)


def sql(db, query):
    """Rows of a query, through the sqlite3 shell (read-only, immutable), as dicts."""
    out = subprocess.run([SQLITE3, "-readonly", "-json", "file:%s?immutable=1" % db, query],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out) if out.strip() else []


def tables(db):
    return {r["name"] for r in sql(db, "SELECT name FROM sqlite_master WHERE type='table'")}


def columns(db, table):
    return {r["name"] for r in sql(db, "SELECT name FROM pragma_table_info('%s')" % table)}


def tconv(*args):
    r = subprocess.run([TCONV, "-q"] + list(args), capture_output=True)
    if r.returncode != 0:
        fail("tconv %s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr.decode()[:500]))
    return r.stdout.decode("utf-8", "replace")


def csv_rows(db, table, *opts):
    return list(csv.DictReader(io.StringIO(tconv("-w", "csv", "-W", "table=" + table,
                                                 "-W", "eol=lf", *opts, db))))


def compare(what, got, want):
    """Two dicts key -> value; every difference named (the first few)."""
    if got == want:
        return
    keys = sorted(set(got) | set(want), key=str)
    bad = [k for k in keys if got.get(k) != want.get(k)]
    for k in bad[:5]:
        fail("%s: %r: tconv %r, SQL %r" % (what, k, got.get(k), want.get(k)))
    if len(bad) > 5:
        fail("%s: %d more differences" % (what, len(bad) - 5))


def api_name(s):
    return re.sub(r"_v\d+$", "", s)


def backtrace_class(db, t):
    if "ENUM_NSYS_EVENT_CLASS" in t:
        r = sql(db, "SELECT id FROM ENUM_NSYS_EVENT_CLASS WHERE name = "
                    "'TRACE_PROCESS_EVENT_CUDABACKTRACE'")
        if r:
            return r[0]["id"]
    return 67


def span_sums(rows, cats):
    out = defaultdict(lambda: [0, 0])
    for r in rows:
        if r["kind"] == "span" and r["category"] in cats:
            k = out[(r["category"], r["name"])]
            k[0] += 1
            k[1] += int(r["dur_ns"])
    return {k: tuple(v) for k, v in out.items()}


def check(db):
    name = db.rsplit("/", 1)[-1]
    t = tables(db)
    events = csv_rows(db, "events")
    n_checks = 0

    # kernels (and graph launches): the csv kernels table
    want = defaultdict(lambda: [0, 0])
    if "CUPTI_ACTIVITY_KIND_KERNEL" in t:
        for r in sql(db, "SELECT s.value AS name, count(*) AS n, sum(k.end - k.start) AS ns "
                         "FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s "
                         "ON s.id = k.demangledName GROUP BY 1"):
            want[r["name"]][0] += r["n"]
            want[r["name"]][1] += r["ns"]
    if "CUPTI_ACTIVITY_KIND_GRAPH_TRACE" in t:
        for r in sql(db, "SELECT 'CUDA graph ' || graphId AS name, count(*) AS n, "
                         "sum(end - start) AS ns FROM CUPTI_ACTIVITY_KIND_GRAPH_TRACE GROUP BY 1"):
            want[r["name"]][0] += r["n"]
            want[r["name"]][1] += r["ns"]
    got = {r["name"]: (int(r["calls"]), int(r["total_ns"])) for r in csv_rows(db, "kernels")}
    compare(name + " kernels", got, {k: tuple(v) for k, v in want.items()})
    n_checks += len(want)

    # copies and sets
    for table, cat in (("CUPTI_ACTIVITY_KIND_MEMCPY", "gpu_memcpy"),
                       ("CUPTI_ACTIVITY_KIND_MEMSET", "gpu_memset")):
        w = sql(db, "SELECT count(*) AS n, coalesce(sum(end - start), 0) AS ns FROM %s" % table) \
            if table in t else [{"n": 0, "ns": 0}]
        g = [0, 0]
        for r in events:
            if r["kind"] == "span" and r["category"] == cat:
                g[0] += 1
                g[1] += int(r["dur_ns"])
        compare(name + " " + cat, {cat: tuple(g)}, {cat: (w[0]["n"], w[0]["ns"])})

    # CUDA API and OS runtime calls
    bt = backtrace_class(db, t)
    for table, cats, where in (("CUPTI_ACTIVITY_KIND_RUNTIME", ("cuda_runtime", "cuda_driver"),
                                "WHERE r.eventClass <> %d" % bt),
                               ("OSRT_API", ("osrt",), "")):
        want = defaultdict(lambda: [0, 0])
        if table in t:
            for r in sql(db, "SELECT s.value AS name, count(*) AS n, sum(r.end - r.start) AS ns "
                             "FROM %s r JOIN StringIds s ON s.id = r.nameId %s GROUP BY 1"
                         % (table, where)):
                k = want[api_name(r["name"])]
                k[0] += r["n"]
                k[1] += r["ns"]
        got = defaultdict(lambda: [0, 0])
        for (c, n), (calls, ns) in span_sums(events, cats).items():
            got[n][0] += calls
            got[n][1] += ns
        compare(name + " " + table, {k: tuple(v) for k, v in got.items()},
                {k: tuple(v) for k, v in want.items()})
        n_checks += len(want)

    # NVTX ranges, by domain (the category) and name
    if "NVTX_EVENTS" in t:
        domains = {}
        for r in sql(db, "SELECT globalTid, domainId, text FROM NVTX_EVENTS WHERE eventType = 75"):
            domains[((r["globalTid"] >> 24) & 0xFFFFFF, r["domainId"])] = r["text"]
        has_text_id = "textId" in columns(db, "NVTX_EVENTS")
        want = defaultdict(lambda: [0, 0])
        rows = sql(db, "SELECT n.globalTid AS tid, n.domainId AS dom, %s AS name, "
                       "n.end - n.start AS ns FROM NVTX_EVENTS n WHERE n.eventType IN "
                       "(59, 60, 70, 71) AND n.end IS NOT NULL"
                   % ("coalesce(n.text, (SELECT value FROM StringIds WHERE id = n.textId))"
                      if has_text_id else "n.text"))
        for r in rows:
            dom = domains.get(((r["tid"] >> 24) & 0xFFFFFF, r["dom"] or 0)) or "NVTX"
            k = want[(dom, r["name"] or "")]
            k[0] += 1
            k[1] += r["ns"]
        cats = {k[0] for k in want}
        compare(name + " NVTX ranges", span_sums(events, cats),
                {k: tuple(v) for k, v in want.items()})
        n_checks += len(want)

    # CPU samples: one per COMPOSITE_EVENTS row, its frames root first
    if "COMPOSITE_EVENTS" in t and "SAMPLING_CALLCHAINS" in t:
        frames = defaultdict(list)
        for r in sql(db, "SELECT c.id AS id, c.stackDepth AS d, s.value AS sym FROM "
                         "SAMPLING_CALLCHAINS c JOIN StringIds s ON s.id = c.symbol"):
            frames[r["id"]].append((r["d"], r["sym"]))
        want = defaultdict(int)
        for r in sql(db, "SELECT id FROM COMPOSITE_EVENTS"):
            f = sorted(frames.get(r["id"], []), reverse=True)
            want[";".join(s for _, s in f) or "[no stack]"] += 1
        got = {r["stack"]: int(r["samples_count"])
               for r in csv_rows(db, "stacks", "-R", "samples=true")}
        compare(name + " CPU samples", got, dict(want))
        n_checks += len(want)

    # GPU memory: the running sum per device ends at allocations minus frees
    if "CUDA_GPU_MEMORY_USAGE_EVENTS" in t:
        want = {"cuda:%d" % r["dev"]: float(r["b"]) for r in sql(
            db, "SELECT deviceId AS dev, sum(CASE memoryOperationType WHEN 0 THEN bytes "
                "ELSE -bytes END) AS b FROM CUDA_GPU_MEMORY_USAGE_EVENTS GROUP BY 1")}
        last = {}
        for r in csv.DictReader(io.StringIO(tconv("-w", "csv", "-W", "table=counters",
                                                   "-W", "eol=lf", db))):
            if r.get("name") == "allocated bytes":
                last[r["series"]] = float(r["value"])
        compare(name + " GPU memory", last, want)

    # GPU attribution in pprof: the gpu total is the device time of correlated activities
    acts = [tb for tb in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                          "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_GRAPH_TRACE")
            if tb in t]
    if acts and "CUPTI_ACTIVITY_KIND_RUNTIME" in t:
        union = " UNION ALL ".join("SELECT start, end, correlationId AS c, globalPid AS p FROM %s"
                                   % tb for tb in acts)
        want = sql(db, "SELECT coalesce(sum(g.end - g.start), 0) AS ns FROM (%s) g WHERE EXISTS "
                       "(SELECT 1 FROM CUPTI_ACTIVITY_KIND_RUNTIME r WHERE r.correlationId = g.c "
                       "AND (r.globalTid >> 24) & 16777215 = (g.p >> 24) & 16777215)"
                   % union)[0]["ns"]
        pb = "%s/%s.gpu.pb.gz" % (WORK, name)
        tconv("-w", "pprof", "-W", "gpu=attribute", "-R", "samples=false", "-o", pb, db)
        raw = subprocess.run([GO, "tool", "pprof", "-raw", pb], capture_output=True, text=True)
        types = re.search(r"^(samples/count .*)$", raw.stdout, re.M)
        if raw.returncode != 0 or not types or "gpu/nanoseconds" not in types.group(1):
            fail("%s: go tool pprof -raw: %s %s" % (name, raw.stderr[:300], types))
        else:
            col = types.group(1).split().index("gpu/nanoseconds")
            got = 0
            for line in raw.stdout.split("\nLocations")[0].splitlines():
                m = re.match(r"^\s+((?:-?\d+\s+)*-?\d+):", line)
                if m:
                    got += int(m.group(1).split()[col])
            compare(name + " pprof gpu total", {"gpu ns": got}, {"gpu ns": want})
        check_launches(db, name, t, acts, bt)
        n_checks += 1
    print("%s: %d names and totals compared" % (name, n_checks))


def check_launches(db, name, t, acts, bt):
    """Each activity under the spans around its launch, as the export's intervals say."""
    spans = []  # (thread, start, end, name, order)
    order = 0

    def add(rows, namefn):
        nonlocal order
        for r in rows:
            if r["end"] is None:
                continue
            spans.append((r["tid"], r["start"], r["end"], namefn(r), order))
            order += 1
    # in the reader's order of sources, which breaks ties between equal starts
    add(sql(db, "SELECT r.globalTid AS tid, r.start, r.end, s.value AS name, r.correlationId "
                "AS c FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId "
                "WHERE r.eventClass <> %d ORDER BY r.start, r.rowid" % bt),
        lambda r: api_name(r["name"]))
    if "NVTX_EVENTS" in t:
        txt = ("coalesce(n.text, (SELECT value FROM StringIds WHERE id = n.textId))"
               if "textId" in columns(db, "NVTX_EVENTS") else "n.text")
        add(sql(db, "SELECT n.globalTid AS tid, n.start, n.end, %s AS name FROM NVTX_EVENTS n "
                    "WHERE n.eventType IN (59, 70) ORDER BY n.start, n.rowid" % txt),
            lambda r: r["name"] or "")
    if "OSRT_API" in t:
        add(sql(db, "SELECT r.globalTid AS tid, r.start, r.end, s.value AS name FROM OSRT_API r "
                    "JOIN StringIds s ON s.id = r.nameId ORDER BY r.start, r.rowid"),
            lambda r: r["name"])
    for tb in ("PROFILER_OVERHEAD", "CUPTI_ACTIVITY_KIND_OVERHEAD"):
        if tb in t:
            add(sql(db, "SELECT o.globalTid AS tid, o.start, o.end, coalesce((SELECT value FROM "
                        "StringIds WHERE id = o.nameId), 'CUPTI overhead') AS name FROM %s o "
                        "ORDER BY o.start, o.rowid" % tb), lambda r: r["name"])
    by_thread = defaultdict(list)
    for s in spans:
        by_thread[s[0]].append(s)
    launches = {}
    for r in sql(db, "SELECT r.globalTid AS tid, r.start, r.end, r.correlationId AS c FROM "
                     "CUPTI_ACTIVITY_KIND_RUNTIME r WHERE r.eventClass <> %d AND r.correlationId "
                     "IS NOT NULL ORDER BY r.start DESC" % bt):
        # of calls sharing an id, the inner one (starting last) launched the work
        launches.setdefault(((r["tid"] >> 24) & 0xFFFFFF, r["c"]), r)
    kernels = {}
    if "CUPTI_ACTIVITY_KIND_KERNEL" in t:
        for r in sql(db, "SELECT k.rowid AS id, s.value AS name FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                         "JOIN StringIds s ON s.id = k.demangledName"):
            kernels[r["id"]] = r["name"]
    want = defaultdict(int)
    for tb in acts:
        extra = {"CUPTI_ACTIVITY_KIND_MEMCPY": ", copyKind AS kind",
                 "CUPTI_ACTIVITY_KIND_GRAPH_TRACE": ", graphId AS graph"}.get(tb, "")
        for g in sql(db, "SELECT rowid AS id, start, end, correlationId AS c, globalPid AS p%s "
                         "FROM %s" % (extra, tb)):
            l = launches.get((((g["p"] or 0) >> 24) & 0xFFFFFF, g["c"]))
            if l is None:
                continue
            if tb.endswith("KERNEL"):
                leaf = kernels[g["id"]]
            elif tb.endswith("MEMSET"):
                leaf = "[CUDA memset]"
            elif tb.endswith("GRAPH_TRACE"):
                leaf = "CUDA graph %d" % g["graph"]
            else:
                leaf = None  # copies: named by kind; matched by prefix below
            stack = [s for s in by_thread[l["tid"]]
                     if s[1] <= l["start"] and s[2] >= l["end"]]
            stack.sort(key=lambda s: (s[1], -(s[2] - s[1]), s[4]))
            frames = [s[3] for s in stack]
            key = ";".join(frames) + ";[gpu] " + (leaf or "[CUDA memcpy")
            want[key] += g["end"] - g["start"]
    out = tconv("-w", "folded", "-W", "value=gpu", "-R", "samples=false", "-R",
                "backtraces=false", db)
    got = defaultdict(int)
    for line in out.splitlines():
        stack, _, v = line.rpartition(" ")
        if ";[gpu] [CUDA memcpy" in stack:
            stack = stack[:stack.index(";[gpu] [CUDA memcpy")] + ";[gpu] [CUDA memcpy"
        got[stack] += int(v)
    compare(name + " launch stacks", dict(got), dict(want))


for f in FILES:
    check(f)
sys.exit(1 if failures else 0)
