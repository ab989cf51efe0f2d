#!/usr/bin/env python3
"""go tool pprof shows every name tconv writes, whole, in its default views.

pprof's symbolizer simplifies the names of functions it takes for undemangled C++ symbols (it cuts
out every <...> and (...)), which merges differently templated kernels into one node and turns
<forked function> into <unknown>. For each Kineto trace of the corpus this script converts the
trace and runs the real consumer without any option that changes names:
  - `go tool pprof -top -nodecount=100000`: the nodes it shows plus the nodes it reports as
    dropped (its default -nodefraction hides small ones) are as many as the distinct function
    names of the samples with a value (pprof_dump names);
  - the same with -nodefraction=0: the node names are exactly those names;
  - `-traces`: the frame names are exactly the names of all samples;
  - the flame graph of `-http` (the JSON of /ui/flamegraph): its full names are those names;
  - independently of tconv, every span of the trace with a duration whose name pprof would
    take for demangled C++ (it holds one of `<>[]` or `::`: CUTLASS kernels, `<forked
    function>`, `Memcpy HtoD (Pinned -> Device)`; Python frames `file.py(1): f` aside, which
    the writer splits into function and file) is a node of -top, character for character.

Usage: pprof_names.py TCONV PPROF_DUMP CORPUS_DIR TRACE|@LIST...
Traces are relative to CORPUS_DIR; @LIST names a file with one trace per line.
Exit 77 when the corpus or go is absent."""
import gzip
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

PYFRAME = re.compile(r"^.+\(\d+\): .*$")
# pprof's test for a name that looks like demangled C++ (symbolizer.looksLikeDemangledCPlusPlus).
CXXLIKE = re.compile(r"[<>\[\]]|::")
TOP_ROW = re.compile(r"^ *\S+ +\S+% +\S+% +\S+ +\S+%  (.*)$")
DROPPED = re.compile(r"^Dropped (\d+) nodes? ")


def trace_list(args):
    for a in args:
        if a.startswith("@"):
            with open(a[1:], encoding="utf-8") as f:
                yield from (l.strip() for l in f if l.strip() and not l.startswith("#"))
        else:
            yield a


def shown_name(name):
    # pprof prints a function without a name as <unknown>.
    return name if name else "<unknown>"


def written_names(dump, profile):
    text = subprocess.run([dump, "names", profile], check=True, capture_output=True,
                          text=True).stdout
    shown, anywhere = set(), set()
    for line in text.split("\n"):
        if not line:
            continue
        kind, name = line.split("\t", 1)
        (shown if kind == "shown" else anywhere).add(shown_name(name))
    return shown, anywhere


def trace_names(path):
    """Names of the trace's spans that pprof would cut down, with a positive duration."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        doc = json.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    names = set()
    begins = {}
    for e in events:
        ph, name = e.get("ph"), e.get("name", "")
        if ph == "X" and float(e.get("dur", 0)) > 0:
            names.add(name)
        elif ph == "B":
            begins.setdefault((e.get("pid"), e.get("tid")), []).append((e["ts"], name))
        elif ph == "E" and begins.get((e.get("pid"), e.get("tid"))):
            ts, bname = begins[(e.get("pid"), e.get("tid"))].pop()
            if float(e["ts"]) > float(ts):
                names.add(bname)
    return {n for n in names if CXXLIKE.search(n) and not PYFRAME.match(n)}


def pprof(env, *args):
    r = subprocess.run(["go", "tool", "pprof", *args], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise RuntimeError(f"go tool pprof {' '.join(args[:-1])} failed: {r.stderr.strip()}")
    return r.stdout


def top_nodes(text):
    rows, dropped = [], 0
    for line in text.split("\n"):
        m = TOP_ROW.match(line)
        if m and not line.lstrip().startswith("flat "):
            rows.append(m.group(1))
        m = DROPPED.match(line)
        if m:
            dropped = int(m.group(1))
    return rows, dropped


def traces_names(text):
    # After the header, a frame line is "%10s   %s": the value (first frame) or blanks, three
    # spaces, the name; label lines have "%10s:  ".
    names, body = set(), False
    for line in text.split("\n"):
        if line.startswith("-----------+"):
            body = True
        elif body and len(line) > 13 and line[10:13] == "   ":
            names.add(line[13:])
    return names


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def flame_names(env, profile):
    port = free_port()
    proc = subprocess.Popen(["go", "tool", "pprof", "-no_browser", f"-http=127.0.0.1:{port}",
                             profile], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=env)
    try:
        deadline = time.time() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/ui/flamegraph",
                                            timeout=30) as r:
                    page = r.read().decode("utf-8")
                break
            except OSError:
                if time.time() > deadline or proc.poll() is not None:
                    raise RuntimeError("go tool pprof -http did not serve the flame graph")
                time.sleep(0.2)
    finally:
        proc.terminate()
        proc.wait()
    m = re.search(r'var data = JSON\.parse\(("(?:[^"\\]|\\.)*")\);', page)
    if not m:
        raise RuntimeError("no flame graph data in /ui/flamegraph")
    tree = json.loads(json.loads(m.group(1)))
    names, todo = set(), list(tree.get("c") or [])
    while todo:
        node = todo.pop()
        names.add(node["f"])
        todo.extend(node.get("c") or [])
    return names


def compare(what, got, want, problems):
    if got != want:
        missing, extra = sorted(want - got), sorted(got - want)
        problems.append(f"{what}: {len(got)} names, expected {len(want)}; missing "
                        f"{missing[:3]}, unexpected {extra[:3]}")


def main():
    tconv, dump, corpus = sys.argv[1:4]
    if not os.path.isdir(corpus):
        print(f"corpus not found at {corpus}: skipping", file=sys.stderr)
        return 77
    if shutil.which("go") is None:
        print("go is not installed: skipping", file=sys.stderr)
        return 77
    # A partial corpus (the in-tree slice) has some of the traces: check those, count the others.
    traces = list(trace_list(sys.argv[4:]))
    present = [rel for rel in traces if os.path.isfile(os.path.join(corpus, rel))]
    print(f"{len(present)} of {len(traces)} traces in {corpus}; "
          f"{len(traces) - len(present)} absent (skipped)")
    if not present:
        return 77
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, HOME=os.path.join(tmp, "home"),
                   GOCACHE=os.path.join(tmp, "gocache"), GOPATH=os.path.join(tmp, "gopath"),
                   GOFLAGS="", GOPROXY="off", TZ="UTC", PPROF_TMPDIR=os.path.join(tmp, "pprof"))
        os.makedirs(env["HOME"])
        out = os.path.join(tmp, "out.pb.gz")
        for rel in present:
            trace = os.path.join(corpus, rel)
            subprocess.run([tconv, "-q", "--force", "-r", "chrome", "-w", "pprof", "-o", out,
                            trace], check=True)
            shown, anywhere = written_names(dump, out)
            problems = []
            try:
                rows, dropped = top_nodes(pprof(env, "-top", "-nodecount=100000", out))
                if len(rows) + dropped != len(shown) or len(set(rows)) != len(rows):
                    problems.append(f"-top: {len(rows)} nodes shown + {dropped} dropped, "
                                    f"expected {len(shown)} distinct names")
                rows, _ = top_nodes(pprof(env, "-top", "-nodecount=100000", "-nodefraction=0",
                                          out))
                compare("-top -nodefraction=0", set(rows), shown, problems)
                cut = trace_names(trace) - set(rows)
                if cut:
                    problems.append(f"{len(cut)} span names of the trace are not nodes of -top, "
                                    f"e.g. {sorted(cut)[:3]}")
                compare("-traces", traces_names(pprof(env, "-traces", out)), anywhere, problems)
                compare("-http flame graph", flame_names(env, out), shown, problems)
            except RuntimeError as e:
                problems.append(str(e))
            status = "ok" if not problems else "FAIL"
            print(f"{status} {rel}: {len(shown)} names shown")
            for p in problems:
                print(f"    {p}")
            failures += bool(problems)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
