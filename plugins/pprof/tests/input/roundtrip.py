#!/usr/bin/env python3
"""pprof -> tconv -> pprof keeps every sample value, as go tool pprof -raw shows both.

usage: roundtrip.py TCONV WORKDIR PROFILE...

For each PROFILE, `tconv -r pprof PROFILE -o out.pb.gz`; then, from -raw of both: the sample
types are the same, in the same order, and the values of every sample type summed per stack
(function names, inlined ones expanded, root first) are the same. tconv's writer gives each
frame a location of its own and adds the threads' labels, and pprof's -raw shows unsymbolized
locations by address: the input's are named here as the reader names them (mapping file's base
name + the address in the file). The profile's time and duration must come back too. Exit 0, 1 on a
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


def unsymbolized_names(path):
    """{location id: "base+0xADDR"} for -raw's locations without a function."""
    out = gopprof.run(["-raw", path]).splitlines()
    maps = {}
    for line in out[out.index("Mappings") + 1:] if "Mappings" in out else []:
        m = re.match(r"([0-9]+): 0x([0-9a-f]+)/0x([0-9a-f]+)/0x([0-9a-f]+) (\S*)", line)
        if m:
            maps[m.group(1)] = (int(m.group(2), 16), int(m.group(3), 16), int(m.group(4), 16),
                                os.path.basename(m.group(5)))
    names = {}
    for line in out:
        m = re.match(r"\s*([0-9]+): 0x([0-9a-f]+)(?: M=([0-9]+))? *$", line)
        if not m:
            continue
        addr = int(m.group(2), 16)
        mp = maps.get(m.group(3))
        if mp and mp[3]:
            start, limit, off, base = mp
            if addr >= start and (limit == 0 or addr < limit):
                addr = addr - start + off
            names[int(m.group(1))] = "%s+0x%x" % (base, addr)
        else:
            names[int(m.group(1))] = "0x%x" % addr
    return names


def header(path, key):
    for line in gopprof.run(["-raw", path]).splitlines():
        if line.startswith(key + ":"):
            return line
    return None


def check(tconv, work, path):
    label = os.path.basename(path)
    out = os.path.join(work, label + ".out.pb.gz")
    p = subprocess.run([tconv, "-q", "-r", "pprof", "-o", out, path], stderr=subprocess.PIPE)
    if p.returncode != 0:
        fail("%s: tconv exit %d: %s" % (label, p.returncode, p.stderr.decode()[:300]))
        return
    if gopprof.sample_types(path) != gopprof.sample_types(out):
        fail("%s: sample types %s became %s" % (label, gopprof.sample_types(path),
                                                gopprof.sample_types(out)))
        return
    names = unsymbolized_names(path)
    want = gopprof.raw_samples(path, names)
    got = gopprof.raw_samples(out)
    if want != got:
        only = sorted(set(want) ^ set(got))[:2]
        diff = [(k[-2:], want[k], got[k]) for k in want if k in got and want[k] != got[k]][:2]
        fail("%s: %d stacks in, %d out; on one side only %s; values differ %s" %
             (label, len(want), len(got), only, diff))
    else:
        print("%s: %d stacks, %d sample types: every value kept" %
              (label, len(got), len(gopprof.sample_types(out))))
    for key in ("Time", "Duration"):
        h_in, h_out = header(path, key), header(out, key)
        if h_in != h_out:
            fail("%s: %r became %r" % (label, h_in, h_out))


def main():
    tconv, work = sys.argv[1:3]
    if not shutil.which("go"):
        print("go not installed: skipped")
        return 77
    os.makedirs(work, exist_ok=True)
    paths = [p for p in sys.argv[3:] if os.path.exists(p)]
    for path in paths:
        check(tconv, work, path)
    if not paths:
        return 77
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
