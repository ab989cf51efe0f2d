#!/usr/bin/env python3
"""The firefox reader against counts taken from the JSON here, independently.

usage: counts.py TCONV PROFILE...

For each PROFILE (a processed or Gecko profile, gzip or not), Python reads the document and
counts per thread the samples that have a stack, the sum of their weights, the first and last
sample times, and the markers (instants, intervals and interval starts); it also folds every sample's stack, naming frames as
the reader documents it (the function's name; an unsymbolicated address as library+0xoffset; a
Gecko location's name without its "(script:line:col)" or "(in library)"). Then `tconv -w text`
must give, per thread, as many samples with the same summed samples/count value, the same first
and last times in ns (timeDeltas added up, a Gecko subprocess moved by its start), and as many
marker events on the thread's marker tracks, and `tconv -w folded` the same stacks with the same
values. Exit 0 when all agree, 1 otherwise, 77 when no profile is present.
"""
import gzip
import json
import os
import re
import subprocess
import sys

FAILS = []


def fail(msg):
    FAILS.append(msg)
    print("FAIL: " + msg)


def load(path):
    data = open(path, "rb").read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    doc = json.loads(data)
    if "meta" not in doc and isinstance(doc.get("profile"), dict):
        doc = doc["profile"]
    return doc


class Table:
    """Columns (processed) or schema + rows (Gecko), read the same way."""

    def __init__(self, obj):
        self.obj = obj or {}
        if "schema" in self.obj and "data" in self.obj:
            self.rows = self.obj["data"]
            self.schema = self.obj["schema"]
            self.n = len(self.rows)
        else:
            self.rows = None
            lens = [len(v) for v in self.obj.values() if isinstance(v, list)]
            self.n = self.obj.get("length", lens[0] if lens else 0)

    def get(self, col, i):
        if self.rows is not None:
            k = self.schema.get(col)
            row = self.rows[i]
            return row[k] if k is not None and k < len(row) else None
        c = self.obj.get(col)
        return c[i] if isinstance(c, list) and i < len(c) else None

    def has(self, col):
        return col in self.schema if self.rows is not None else isinstance(self.obj.get(col), list)


def threads(doc, root_start):
    """[(thread, strings, libs, gecko, its process's start)] in the reader's order."""
    out = []
    if "preprocessedProfileVersion" in doc["meta"]:
        shared = (doc.get("shared") or {}).get("stringArray")
        for t in doc["threads"]:
            strings = t.get("stringArray", t.get("stringTable", shared))
            out.append((t, strings, t.get("libs", doc.get("libs", [])), False, root_start))
        return out

    def walk(p):
        for t in p.get("threads", []):
            out.append((t, t.get("stringTable"), p.get("libs", []), True,
                        p.get("meta", {}).get("startTime", 0)))
        for sub in p.get("processes", []):
            walk(sub)

    walk(doc)
    return out


def ident(v, fallback):
    if isinstance(v, bool) or v is None:
        return fallback
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return "%.0f" % v
    return v


def table(doc, t, name):
    """The thread's table, or the profile's shared one."""
    return t.get(name, (doc.get("shared") or {}).get(name))


def frame_names(doc, t, strings, libs, gecko):
    ft = Table(table(doc, t, "frameTable"))
    names = []
    if gecko:
        for i in range(ft.n):
            loc = strings[ft.get("location", i)]
            if re.fullmatch(r"0x[0-9a-fA-F]+", loc):
                a = int(loc, 16)
                lib = next((l for l in libs if l.get("start", 0) <= a < l.get("end", 0)), None)
                names.append("%s+0x%x" % (lib["name"], a - lib["start"]) if lib else loc)
                continue
            m = re.fullmatch(r"(.*) \((.*)\)", loc)
            names.append(m.group(1) if m else loc)
        return names
    fn, rs = Table(table(doc, t, "funcTable")), Table(table(doc, t, "resourceTable"))
    for i in range(ft.n):
        f = ft.get("func", i)
        name = strings[fn.get("name", f)]
        res = fn.get("resource", f)
        if res is not None and res >= 0 and re.fullmatch(r"0x[0-9a-fA-F]+", name):
            lib = rs.get("lib", res)
            mod = libs[lib]["name"] if lib is not None else strings[rs.get("name", res)]
            name = "%s+%s" % (mod, name)
        names.append(name)
    return names


def expected(doc):
    per_thread, folded, times = {}, {}, {}
    root_start = doc["meta"].get("startTime", 0)
    tracing = any(Table(t.get("samples")).obj.get("weightType") == "tracing-ms"
                  for t, _, _, _, _ in threads(doc, 0))
    for index, (t, strings, libs, gecko, start) in enumerate(threads(doc, root_start)):
        key = (ident(t.get("pid"), ""), ident(t.get("tid"), str(index)))
        offset = (start - root_start) if gecko and start and root_start else 0
        names = frame_names(doc, t, strings, libs, gecko)
        st = Table(table(doc, t, "stackTable"))
        s = Table(t.get("samples"))
        wtype = s.obj.get("weightType", "samples")
        n = total = 0
        at = 0
        for i in range(s.n):
            if s.has("timeDeltas"):
                at += s.get("timeDeltas", i) or 0
            elif s.get("time", i) is not None:
                at = s.get("time", i)
            stack = s.get("stack", i)
            if stack is None:
                continue
            ts = round((at + offset) * 1e6)
            lo, hi = times.get(key, (ts, ts))
            times[key] = (min(lo, ts), max(hi, ts))
            w = s.get("weight", i) if s.has("weight") else None
            w = 1 if w is None else w
            n += 1
            total += w if wtype == "samples" else 1
            frames = []
            k = stack
            while k is not None:
                frames.append(names[st.get("frame", k)])
                k = st.get("prefix", k)
            line = ";".join(reversed(frames))
            value = round(w * 1e6) if tracing else (w if wtype == "samples" else 1)
            folded[line] = folded.get(line, 0) + value
        m = Table(t.get("markers"))
        markers = 0
        for i in range(m.n):
            if m.has("phase") or not m.has("time"):
                ph = m.get("phase", i) or 0
                markers += ph in (0, 1, 2)
            else:
                data = m.get("data", i)
                markers += not (isinstance(data, dict) and data.get("interval") == "end")
        per_thread[key] = (n, total, markers)
    return per_thread, folded, times


def ours(tconv, path):
    text = subprocess.run([tconv, "-q", "-r", "firefox", "-w", "text", path],
                          stdout=subprocess.PIPE, check=True).stdout.decode("utf-8", "replace")
    tracks, samples, markers, times = {}, {}, {}, {}
    for line in text.splitlines():
        m = re.match(r'track T(\d+) input=\d+ kind=(\w+) pid="((?:[^"\\]|\\.)*)" '
                     r'tid="((?:[^"\\]|\\.)*)"', line)
        if m:
            tracks[int(m.group(1))] = (m.group(2), m.group(3), m.group(4))
    for line in text.splitlines():
        m = re.match(r"sample\s+(-?\d+) T(\d+) .*values=\[([-0-9,]+)\]", line)
        if m:
            ts = int(m.group(1))
            kind, pid, tid = tracks[int(m.group(2))]
            lo, hi = times.get((pid, tid), (ts, ts))
            times[(pid, tid)] = (min(lo, ts), max(hi, ts))
            n, total = samples.get((pid, tid), (0, 0))
            samples[(pid, tid)] = (n + 1, total + int(m.group(3).split(",")[0]))
            continue
        m = re.match(r"(instant|begin|complete)\s+-?\d+ (?:dur=-?\d+ )?T(\d+) ", line)
        if m:
            kind, pid, tid = tracks[int(m.group(2))]
            if kind == "async":
                key = (pid, tid.split("/", 1)[0])
                markers[key] = markers.get(key, 0) + 1
    res = {}
    for key in set(samples) | set(markers):
        res[key] = samples.get(key, (0, 0)) + (markers.get(key, 0),)
    folded = {}
    out = subprocess.run([tconv, "-q", "-r", "firefox", "-w", "folded", path],
                         stdout=subprocess.PIPE, check=True).stdout.decode("utf-8", "replace")
    for line in out.splitlines():
        stack, value = line.rsplit(" ", 1)
        folded[stack] = folded.get(stack, 0) + int(value)
    return res, folded, times


def main():
    tconv = sys.argv[1]
    paths = [p for p in sys.argv[2:] if os.path.exists(p)]
    for path in paths:
        label = os.path.basename(path)
        want, want_folded, want_times = expected(load(path))
        want = {k: v for k, v in want.items() if v != (0, 0, 0)}
        got, got_folded, got_times = ours(tconv, path)
        if want_times != got_times:
            fail("%s: first and last sample times per thread (ns): JSON %s, tconv %s" %
                 (label, sorted(want_times.items())[:3], sorted(got_times.items())[:3]))
        if want != got:
            fail("%s: per thread (samples, samples/count, markers): JSON %s, tconv %s" %
                 (label, sorted(want.items())[:4], sorted(got.items())[:4]))
        else:
            print("%s: %d threads: %s" % (label, len(got), ", ".join(
                "%s/%s %d samples %d markers" % (k[0], k[1], v[0], v[2])
                for k, v in sorted(got.items()))))
        want_folded = {k: v for k, v in want_folded.items() if v}
        if want_folded != got_folded:
            only = sorted(set(want_folded) ^ set(got_folded))[:2]
            fail("%s: folded stacks differ: %d from the JSON, %d from tconv; one side only: %s" %
                 (label, len(want_folded), len(got_folded), [s[-120:] for s in only]))
        else:
            print("%s: %d folded stacks agree" % (label, len(got_folded)))
    if not paths:
        return 77
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
