#!/usr/bin/env python3
"""Identities survive a conversion to Chrome JSON: every flow event keeps the id the producer
wrote (Kineto's flow id is the correlation id users join on), as the same member ("id", or
"id2" with "local"/"global") and JSON type, and every thread keeps its pid and tid (as text:
the writer writes a decimal id as a number, "25738" as 25738, which names the same thread).

usage: identity.py TCONV WORKDIR VIA INPUT...

VIA is "chrome" (`tconv -w chrome IN`) or "otf2" (`tconv -w otf2 -o DIR IN`, then
`tconv -w chrome DIR`). Per input, read here with Python's json module:
  - the flows: the multiset of (ph, pid, tid, ts, cat, name, id member) of the input's s/t/f
    events equals the output's (flow v2 bind_id flows are left out: the writer writes them as
    s/t/f);
  - the threads: the set of (pid, tid) of the input's X/B events equals the output's, as text
    (a GPU lane "<tid> #N" the ordering stage makes counts as its stream's).
Exit 0 when all hold, 1 when one fails, 77 when every input is absent.
"""
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter

FAILS = []


def fail(msg):
    FAILS.append(msg)
    print("FAIL: " + msg)


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    d = json.loads(data)
    return d["traceEvents"] if isinstance(d, dict) else d


def key(v):
    """A JSON value with its type: 7 and "7" differ."""
    return (type(v).__name__, v)


def us(ts):
    """ts in ns, exactly, from the text Python read (ints stay ints)."""
    return round(ts * 1000) if isinstance(ts, float) else ts * 1000


def flows(events):
    out = Counter()
    for e in events:
        if e.get("ph") not in ("s", "t", "f"):
            continue
        if "id2" in e:
            ident = ("id2",) + tuple(sorted((k, key(v)) for k, v in e["id2"].items()))
        else:
            ident = ("id", key(e.get("id")))
        out[(e["ph"], key(e.get("pid")), key(e.get("tid")), us(e["ts"]), e.get("cat"),
             e.get("name"), ident)] += 1
    return out


def threads(events):
    out = set()
    for e in events:
        if e.get("ph") not in ("X", "B"):
            continue
        tid = e.get("tid")
        if isinstance(tid, str) and re.fullmatch(r".* #[0-9]+", tid):
            tid = tid.rsplit(" #", 1)[0]
        out.add((str(e.get("pid")), str(tid)))
    return out


def run(*args):
    p = subprocess.run(list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(args), p.returncode,
                                                 p.stderr.decode("utf-8", "replace")[:400]))


def check(tconv, work, via, inp):
    name = os.path.basename(inp)
    out = os.path.join(work, name + "." + via + ".json")
    try:
        if via == "otf2":
            archive = os.path.join(work, name + ".otf2")
            shutil.rmtree(archive, ignore_errors=True)
            run(tconv, "-q", "-w", "otf2", "-o", archive, inp)
            run(tconv, "-q", "-w", "chrome", "-o", out, archive)
        else:
            run(tconv, "-q", "-w", "chrome", "-o", out, inp)
    except RuntimeError as e:
        fail("%s: %s" % (name, e))
        return
    a, b = load(inp), load(out)
    fa, fb = flows(a), flows(b)
    if fa != fb:
        missing, extra = fa - fb, fb - fa
        fail("%s: %d flow events lost or changed, %d new; first lost %s, first new %s" %
             (name, sum(missing.values()), sum(extra.values()),
              next(iter(missing), None), next(iter(extra), None)))
    ta, tb = threads(a), threads(b)
    if ta != tb:
        fail("%s: threads lost %s, new %s" % (name, sorted(ta - tb)[:4], sorted(tb - ta)[:4]))
    if fa == fb and ta == tb:
        print("%s via %s: %d flow events with their ids, %d threads with their pid and tid" %
              (name, via, sum(fa.values()), len(ta)))


def main():
    tconv, work, via = sys.argv[1:4]
    inputs = [i for i in sys.argv[4:] if os.path.exists(i)]
    for i in sys.argv[4:]:
        if i not in inputs:
            print("absent, not checked: " + i)
    if not inputs:
        return 77
    os.makedirs(work, exist_ok=True)
    for inp in inputs:
        check(tconv, work, via, inp)
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
