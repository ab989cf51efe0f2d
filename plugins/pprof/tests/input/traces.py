#!/usr/bin/env python3
"""Folded stacks from a pprof profile against the same stacks folded from go tool pprof -traces.

usage: traces.py TCONV PROFILE...

For each PROFILE and sample type, `tconv -R sample=I -w folded` must be, line for line, what
folding pprof's -traces gives: each trace's frames root first joined by ';' and its value, summed
per stack, in byte order. pprof shows an unsymbolized location as its mapping (`[node]`), so the
reader's `node+0x1687610` frames are written that way here before comparing. Exit 0, 1 on a
difference, 77 without go.
"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gopprof  # noqa: E402

FAILS = []


def fail(msg):
    FAILS.append(msg)
    print("FAIL: " + msg)


def folded(lines):
    res = {}
    for stack, value in lines:
        if value:
            res[stack] = res.get(stack, 0) + value
    return {k: v for k, v in res.items() if v}


def check(tconv, path):
    label = os.path.basename(path)
    for i, (typ, unit) in enumerate(gopprof.sample_types(path)):
        want = folded((";".join(reversed(frames)), value)
                      for value, frames in gopprof.traces(path, i, unit))
        p = subprocess.run([tconv, "-q", "-r", "pprof", "-R", "sample=%d" % i, "-w", "folded",
                            path], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if p.returncode != 0:
            fail("%s: tconv exit %d: %s" % (label, p.returncode, p.stderr.decode()[:300]))
            return
        lines = p.stdout.decode().splitlines()
        if lines != sorted(lines, key=lambda l: l.rsplit(" ", 1)[0].encode()):
            fail("%s %s: folded lines are not in byte order" % (label, typ))
        got = folded((";".join(re.sub(r"^(.*)\+0x[0-9a-f]+$", r"[\1]", f)
                               for f in l.rsplit(" ", 1)[0].split(";")),
                      int(l.rsplit(" ", 1)[1])) for l in lines)
        if got != want:
            only = sorted(set(got) ^ set(want))[:2]
            diff = [(k[-60:], got[k], want[k]) for k in got if k in want and got[k] != want[k]]
            fail("%s %s: %d stacks, pprof %d; one side only %s; differ %s" %
                 (label, typ, len(got), len(want), only, diff[:2]))
        else:
            print("%s %s/%s: %d folded stacks agree" % (label, typ, unit, len(got)))


def main():
    tconv = sys.argv[1]
    if not shutil.which("go"):
        print("go not installed: skipped")
        return 77
    paths = [p for p in sys.argv[2:] if os.path.exists(p)]
    for path in paths:
        check(tconv, path)
    if not paths:
        return 77
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
