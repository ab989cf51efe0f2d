#!/usr/bin/env python3
"""The summary's time totals against pprof's wall total on real Kineto traces.

pprof's wall samples are the self times of the spans that are work of their thread, so their
total is the busy time of every track. The summary must report the same time twice: as the sum
of the tracks' busy times ("Processes and threads") and as the sum of the categories' self
times ("Time by category"). By default both leave out the profiler's window (Kineto's
"PyTorch Profiler (0)") and other spans that are not work of their thread, and the report says
so; with --all-spans both count them. The summary prints rounded durations, so a sum may differ
from pprof's by at most half the last printed digit of each of its terms.

Usage: summary_wall.py TCONV PPROF_DUMP CORPUS_DIR TRACE|@LIST...
Traces are relative to CORPUS_DIR; @LIST names a file with one trace per line; traces missing
from the corpus are skipped. Exit 77 when none is present."""
import os
import re
import subprocess
import sys
import tempfile

UNITS = {"ns": 1, "us": 1000, "ms": 1000000, "s": 1000000000}
DUR = r"(-?\d+(?:\.\d+)?) (ns|us|ms|s)"


def dur(number, unit):
    """A printed duration in ns, and how far the true value may lie from it."""
    scale = UNITS[unit]
    if "." not in number:
        return int(number) * scale, 0
    whole, frac = number.split(".")
    step = scale // 10 ** len(frac)
    value = (abs(int(whole)) * 10 ** len(frac) + int(frac)) * step
    return (-value if number.startswith("-") else value), step // 2


def summary_totals(text):
    busy = busy_err = cats = cats_err = 0
    section = None
    for line in text.splitlines():
        if not line.startswith(" "):
            section = line
            continue
        if section == "Processes and threads":
            m = re.search(r", busy " + DUR + "$", line)
            if m:
                v, e = dur(*m.groups())
                busy += v
                busy_err += e
        elif section and section.startswith("Time by category"):
            m = re.match(r"\s+" + DUR + r"\s+\S+\s+\d+\s", line)
            if m:
                v, e = dur(*m.groups())
                cats += v
                cats_err += e
    return busy, busy_err, cats, cats_err


def pprof_wall(dump, profile):
    out = subprocess.run([dump, "flat", profile], capture_output=True, text=True, check=True)
    for line in out.stdout.splitlines():
        if line.startswith("total "):
            return int(line.split()[2])
    raise RuntimeError("no total in pprof_dump output")


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), p.returncode, p.stderr))
    return p


def check(tconv, dump, path, tmp, extra):
    """Errors of one run, pprof's wall total, and whether the report says spans were left out."""
    errors = []
    profile = os.path.join(tmp, "wall.pb.gz")
    run([tconv, "-q"] + extra + ["-w", "pprof", "-o", profile, path])
    wall = pprof_wall(dump, profile)
    report = run([tconv] + extra + ["-w", "summary", "-W", "top=1", "-o", "-", path]).stdout
    busy, busy_err, cats, cats_err = summary_totals(report)
    if abs(busy - wall) > busy_err:
        errors.append("busy time of the tracks %d ns, pprof wall total %d ns" % (busy, wall))
    if abs(cats - wall) > cats_err:
        errors.append("self time of the categories %d ns, pprof wall total %d ns" % (cats, wall))
    return errors, wall, re.search(r"^  not work .*--all-spans counts", report, re.M) is not None


def main():
    if len(sys.argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    tconv, dump, corpus = sys.argv[1:4]
    traces = []
    for arg in sys.argv[4:]:
        if arg.startswith("@"):
            with open(arg[1:]) as f:
                traces += [l.strip() for l in f if l.strip() and not l.startswith("#")]
        else:
            traces.append(arg)
    present = [t for t in traces if os.path.isfile(os.path.join(corpus, t))]
    if not present:
        print("SKIP: none of the traces is in " + corpus)
        return 77
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for rel in present:
            path = os.path.join(corpus, rel)
            try:
                errors, wall, said = check(tconv, dump, path, tmp, [])
                all_errors, all_wall, all_said = check(tconv, dump, path, tmp, ["--all-spans"])
            except RuntimeError as e:
                errors, all_errors = [str(e)], []
            else:
                all_errors = ["--all-spans: " + e for e in all_errors]
                if all_wall != wall and not said:
                    errors.append("spans were left out and the report does not say so")
                if all_wall == wall and said:
                    errors.append("the report says spans were left out, and none was")
                if all_said:
                    errors.append("--all-spans, and the report says spans were left out")
            if errors or all_errors:
                failed += 1
                print("FAIL " + rel)
                for e in errors + all_errors:
                    print("   " + e)
    print("%d traces checked, %d failed" % (len(present), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
