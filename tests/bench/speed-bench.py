#!/usr/bin/env python3
"""Throughput, CPU time and peak memory of Chrome trace conversions (on demand; not a CI test).

usage: tests/bench/speed-bench.py BUILD_DIR [BASE_BUILD_DIR]

  BUILD_DIR       a Release build of tconv (cmake -DCMAKE_BUILD_TYPE=Release)
  BASE_BUILD_DIR  optional: a Release build of an older commit; each tconv measurement then
                  alternates old and new runs and prints both

environment:
  RUNS=5          runs per measurement (the median is printed)
  SIZE_MB=220     size of the generated Kineto-like trace
  DENSE_MB=136    size of the generated dense legacy-shape trace (gen_dense.py; 0: none)
  SPANS=200000    spans of the distinct-stacks trace
  DATA=DIR        keep the generated inputs in DIR and reuse them (default: a temporary dir)
  WRITERS         default "pprof folded otf2"
  ONLY=REGEX      only the inputs whose name matches

Inputs: a generated Kineto-like trace (plain and gzipped), a generated trace in the dense shape of
PyTorch's legacy exporter (plain and gzipped), the largest Kineto trace of the corpus (gzipped as
stored, and plain), and a generated trace of nested spans whose self-time stacks are nearly all
distinct. For each: `cat` and `gzip -dc` as floors, then `tconv -r chrome -w WRITER`,
and `-w text-stacks` on the distinct-stacks trace. Each line shows medians: wall seconds, MB/s of
decompressed JSON by wall time and by CPU time (user + system, of the process and its threads),
user CPU seconds, events per second (M ev/s, by wall and by CPU time), peak RSS. CPU figures are the steadier ones on a shared machine.
"""
import gzip
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from gen_dense import gen_dense
from gen_trace import gen_kineto

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
CORPUS = os.path.join(ROOT, "..", "shared", "corpus")
LARGEST = "HolisticTraceAnalysis/tests/data/mtia_trace_single_rank/mtia_rank_0.json.gz"




def gen_distinct(path, spans):
    """Nested spans whose self-time stacks are nearly all distinct: one parent per 100 spans,
    named after its index, with 99 children named from a vocabulary of 5000 (so 200 k spans give
    about 198 k distinct stacks over about 7 k distinct frames)."""
    rnd = random.Random(11)
    ts = 1000000
    out = []
    with open(path, "w") as f:
        f.write('{"traceEvents": [\n')
        first = True
        for p in range(spans // 100):
            start = ts
            out.append('{"ph": "X", "name": "step_%d", "pid": 1, "tid": 1, "ts": %d, "dur": %d}'
                       % (p, start, 99 * 10 + 5))
            for c in range(99):
                out.append('{"ph": "X", "name": "op::kernel_%d", "pid": 1, "tid": 1, "ts": %d, "dur": 7}'
                           % (rnd.randrange(5000), start + 2 + c * 10))
            ts += 1000
            if len(out) > 5000:
                f.write(("" if first else ",\n") + ",\n".join(out))
                first = False
                out = []
        if out:
            f.write(("" if first else ",\n") + ",\n".join(out))
        f.write('\n]}\n')


def run_once(cmd, out, tfile):
    """One run: wall seconds, user and system CPU seconds (with threads), peak RSS in KB. The peak
    RSS comes from /usr/bin/time (a child forked by this interpreter would inherit its own); the
    times from wait4, which counts the children that /usr/bin/time waited for."""
    if out:
        shutil.rmtree(out, ignore_errors=True)
        if os.path.exists(out):
            os.remove(out)
    with open(os.devnull, "wb") as null, open(tfile + ".err", "wb") as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", tfile] + cmd, stdout=null,
                             stderr=err)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        with open(tfile + ".err", "rb") as err:
            sys.stderr.buffer.write(err.read())
        sys.exit("failed (%d): %s" % (p.returncode, " ".join(cmd)))
    with open(tfile) as f:
        rss = int(f.read().split()[-1])
    return wall, ru.ru_utime, ru.ru_stime, rss


def measure(cmds, runs, tfile):
    """Medians per command over runs that alternate between the commands."""
    res = [[] for _ in cmds]
    for _ in range(runs):
        for i, (cmd, out) in enumerate(cmds):
            res[i].append(run_once(cmd, out, tfile))
    meds = []
    for r in res:
        meds.append(tuple(statistics.median(x[k] for x in r) for k in range(3)) +
                    (statistics.median(x[3] for x in r),
                     statistics.median(x[1] + x[2] for x in r)))
    return meds


def line(label, nbytes, m, floor=None, nevents=0):
    wall, usr, _, rss, cpu = m
    mb = nbytes / 1e6
    s = "  %-40s %6.3f s %7.1f MB/s  CPU %6.3f s (user %6.3f) %7.1f MB/s  %6.1f MB RSS" % (
        label, wall, mb / wall if wall else 0, cpu, usr, mb / cpu if cpu else 0, rss / 1024)
    if nevents:
        s += "  %5.2f M ev/s (CPU %5.2f)" % (nevents / 1e6 / wall if wall else 0,
                                            nevents / 1e6 / cpu if cpu else 0)
    if floor:
        s += "  %.2fx wall of %s" % (wall / floor[1], floor[0])
    print(s, flush=True)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    new = os.path.join(sys.argv[1], "tconv")
    base = os.path.join(sys.argv[2], "tconv") if len(sys.argv) > 2 else None
    runs = int(os.environ.get("RUNS", "5"))
    size_mb = int(os.environ.get("SIZE_MB", "220"))
    spans = int(os.environ.get("SPANS", "200000"))
    writers = os.environ.get("WRITERS", "pprof folded otf2").split()
    only = re.compile(os.environ.get("ONLY", ""))
    data = os.environ.get("DATA")
    tmp = tempfile.mkdtemp(prefix="tconv-bench.")
    tfile = os.path.join(tmp, "time")
    try:
        if not data:
            data = tmp
        os.makedirs(data, exist_ok=True)
        gen = os.path.join(data, "generated-%dMB.pt.trace.json" % size_mb)
        if not os.path.exists(gen):
            gen_kineto(gen + ".tmp", size_mb)
            os.rename(gen + ".tmp", gen)
        if not os.path.exists(gen + ".gz"):
            subprocess.run("gzip -1 -c '%s' > '%s.tmp' && mv '%s.tmp' '%s.gz'" % (gen, gen, gen, gen),
                           shell=True, check=True)
        dist = os.path.join(data, "distinct-%d.json" % spans)
        if not os.path.exists(dist):
            gen_distinct(dist + ".tmp", spans)
            os.rename(dist + ".tmp", dist)
        inputs = [gen, gen + ".gz"]
        dense_mb = int(os.environ.get("DENSE_MB", "136"))
        if dense_mb:
            dense = os.path.join(data, "dense-%dMB.json" % dense_mb)
            if not os.path.exists(dense):
                gen_dense(dense + ".tmp", dense_mb)
                os.rename(dense + ".tmp", dense)
            if not os.path.exists(dense + ".gz"):
                subprocess.run("gzip -1 -c '%s' > '%s.tmp' && mv '%s.tmp' '%s.gz'" %
                               (dense, dense, dense, dense), shell=True, check=True)
            inputs += [dense, dense + ".gz"]
        largest = os.path.join(CORPUS, LARGEST)
        if os.path.exists(largest):
            plain = os.path.join(data, os.path.basename(largest)[:-3])
            if not os.path.exists(plain):
                with gzip.open(largest, "rb") as i, open(plain + ".tmp", "wb") as o:
                    shutil.copyfileobj(i, o)
                os.rename(plain + ".tmp", plain)
            inputs += [plain, largest]
        else:
            print("(the corpus is absent: no corpus trace)")
        inputs.append(dist)
        with open("/proc/loadavg") as f:
            load = " ".join(f.read().split()[:3])
        print("%d cores, load average %s, medians of %d runs%s" % (
            os.cpu_count(), load, runs, ", alternating base and new" if base else ""))
        for path in inputs:
            name = os.path.basename(path)
            if not only.search(name):
                continue
            gz = path.endswith(".gz")
            # events: one "ph" member each (no generated or corpus trace has one in its args)
            nbytes = nevents = 0
            tail = b""
            with (gzip.open(path, "rb") if gz else open(path, "rb")) as f:
                while True:
                    b = f.read(1 << 20)
                    if not b:
                        break
                    nbytes += len(b)
                    nevents += (tail + b).count(b'"ph"')
                    tail = b[-3:]
            print("%s: %.1f MB of JSON, %.2f M events%s" % (name, nbytes / 1e6, nevents / 1e6,
                  ", %.1f MB gzipped" % (os.path.getsize(path) / 1e6) if gz else ""), flush=True)
            fl = measure([(["cat", path], None)] + ([(["gzip", "-dc", path], None)] if gz else []), runs, tfile)
            line("cat", nbytes, fl[0])
            floor = ("cat", fl[0][0])
            if gz:
                line("gzip -dc", nbytes, fl[1])
                floor = ("gzip -dc", fl[1][0])
            ws = list(writers)
            if path == dist:
                ws.append("text-stacks")
            for w in ws:
                out = os.path.join(tmp, "out-" + w)
                args = ["-q", "-r", "chrome", "-w", w, "-o", out, path]
                if w == "text-stacks":
                    args = ["-q", "-r", "chrome", "-w", w, "-o", "/dev/null", path]
                    out = None
                cmds = [([new] + args, out)]
                if base:
                    cmds.insert(0, ([base] + args, out))
                ms = measure(cmds, runs, tfile)
                if base:
                    line("base: tconv -w " + w, nbytes, ms[0], floor, nevents)
                line(("new:  " if base else "") + "tconv -w " + w, nbytes, ms[-1], floor, nevents)
        with open("/proc/loadavg") as f:
            print("load average at the end: %s" % " ".join(f.read().split()[:3]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
