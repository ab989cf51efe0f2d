#!/usr/bin/env python3
"""The pprof reader against go tool pprof -top, per function and per sample type.

usage: top.py TCONV WORKDIR PROFILE...

For each PROFILE and each of its sample types, `tconv -R sample=I -w folded` gives the stacks;
each function's flat value (the stacks it ends) and cumulative value (the stacks it is in, once
per stack) are computed from them here and must equal `go tool pprof -top -sample_index=I` with
every node shown. pprof groups an unsymbolized location under its mapping (`[libc.so.6]`), so
the reader's `libc.so.6+0x29d90` frames are counted under that name here. A legacy profile must
be refused with the conversion in the message, and is then converted with go tool pprof -proto
and checked like the others. Exit 0 when all agree, 1 when one differs, 77 when go is missing.
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


def pprof_name(frame):
    m = re.fullmatch(r"(.*)\+0x[0-9a-f]+", frame)
    return "[%s]" % m.group(1) if m else frame


def ours(tconv, path, index):
    p = subprocess.run([tconv, "-q", "-r", "pprof", "-R", "sample=%d" % index, "-w", "folded",
                        path], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise RuntimeError("tconv: " + p.stderr.decode()[:300])
    res = {}
    for line in p.stdout.decode().splitlines():
        stack, value = line.rsplit(" ", 1)
        value = int(value)
        frames = [pprof_name(f) for f in stack.split(";")]
        flat = res.setdefault(frames[-1], [0, 0])
        flat[0] += value
        for f in set(frames):
            res.setdefault(f, [0, 0])[1] += value
    return {k: tuple(v) for k, v in res.items() if v != [0, 0]}


def check(tconv, path, label):
    types = gopprof.sample_types(path)
    for i, (typ, unit) in enumerate(types):
        want = {k: v for k, v in gopprof.top(path, i, unit).items() if v != (0, 0)}
        got = ours(tconv, path, i)
        if got != want:
            diff = sorted(set(got) ^ set(want))[:3]
            wrong = [(k, got[k], want[k]) for k in got if k in want and got[k] != want[k]][:3]
            fail("%s %s: %d functions, pprof %d; only on one side %s; differ %s" %
                 (label, typ, len(got), len(want), diff, wrong))
        else:
            print("%s %s/%s: %d functions agree" % (label, typ, unit, len(got)))


def main():
    tconv, work = sys.argv[1:3]
    if not shutil.which("go"):
        print("go not installed (.ci/install-deps installs golang-go): skipped")
        return 77
    os.makedirs(work, exist_ok=True)
    n = 0
    for path in sys.argv[3:]:
        if not os.path.exists(path):
            print("absent, not checked: " + path)
            continue
        n += 1
        label = os.path.basename(path)
        head = open(path, "rb").read(24)
        if head[:8] == b"\0" * 8 and head[8:12] == b"\x03\0\0\0":
            p = subprocess.run([tconv, "-o", os.path.join(work, "x.folded"), path],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            err = p.stderr.decode()
            if p.returncode == 0 or "go tool pprof -proto" not in err:
                fail("%s: a legacy profile must be refused with how to convert it: %r" %
                     (label, err[:300]))
            conv = os.path.join(work, label + ".pb.gz")
            with open(conv, "wb") as f:
                subprocess.run(["go", "tool", "pprof", "-symbolize=none", "-proto", path],
                               stdout=f, stderr=subprocess.DEVNULL, check=True)
            path, label = conv, label + " (go tool pprof -proto)"
        check(tconv, path, label)
    if n == 0:
        return 77
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
