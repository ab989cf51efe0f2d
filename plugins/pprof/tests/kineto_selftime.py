#!/usr/bin/env python3
"""Check tconv's pprof output on real Kineto traces against an independent computation.

For each trace, the spans (X, and B/E pairs; not the profiler's window, category Trace) of every
(pid, tid) track (on GPU streams, of every lane) are nested here the way
trace viewers nest them: sorted by start, longer first, then input order; a child that ends after
its parent is clipped to the parent's end. From that this script computes
  - the number of spans (pprof total of samples/count),
  - each track's busy time, the union of its top-level spans (pprof total of wall),
  - each span name's summed self time (pprof flat of that function; every ProfilerStep#N is one
    ProfilerStep, as -W steps=merge writes it),
and compares them with the profile as decoded by pprof_dump. It also converts each trace twice
and wants identical bytes, and, when `go` is installed, has `go tool pprof` read the profile
(-raw, -top, -traces) and checks that -top shows parents with flat below cum.

Usage: kineto_selftime.py TCONV PPROF_DUMP CORPUS_DIR TRACE|@LIST...
Traces are relative to CORPUS_DIR; @LIST names a file with one trace per line.
Exit 77 when the corpus is absent."""
import collections
import decimal
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile


def ns(value):
    # Timestamps are decimal µs; rounding halves away from zero, as the Chrome reader does.
    d = decimal.Decimal(value) * 1000
    return int(d.to_integral_value(rounding=decimal.ROUND_HALF_UP))


def track_key(value):
    # Tracks are keyed by pid/tid as written: a JSON number and its text name the same track.
    return value if isinstance(value, str) else str(value)


def load_events(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        doc = json.load(f, parse_float=decimal.Decimal)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation", "mtia_ccp_events",
            "memcpy", "memset", "gpu_kernel", "memcopy"}


def is_gpu(e):
    """As the Chrome reader marks GPU streams: a device category or a "stream N" tid."""
    tid = e.get("tid")
    return str(e.get("cat", "")).lower() in GPU_CATS or (
        isinstance(tid, str) and tid.startswith("stream "))


def spans_per_track(events, gpu_tracks, window=None):
    tracks = collections.defaultdict(list)  # (pid, tid) -> [start, end, seq, name]
    open_spans = collections.defaultdict(list)
    for seq, e in enumerate(events):
        ph = e.get("ph")
        if ph not in ("X", "B", "E") or "ts" not in e:
            continue
        # Kineto's recording window ("PyTorch Profiler (0)", category Trace) is not work of a
        # thread: tconv leaves it out of self time unless --all-spans.
        if ph == "X" and str(e.get("cat", "")).lower() == "trace":
            continue
        key = (track_key(e.get("pid", "")), track_key(e.get("tid", "")))
        ts = ns(e["ts"])
        name = e.get("name", "")
        if is_gpu(e):
            gpu_tracks.add(key)
        if ph == "X":
            tracks[key].append([ts, ts + ns(e.get("dur", 0)), seq, name])
        elif ph == "B":
            open_spans[key].append([ts, None, seq, name])
        elif open_spans[key]:
            span = open_spans[key].pop()
            span[1] = ts
            tracks[key].append(span)
    for key, stack in open_spans.items():
        if stack:
            raise SystemExit(f"unclosed B events on {key}: not handled by this check")
    if window:
        # --window applies after nesting repair: a span clipped to its parent before the window
        # stays out. It keeps a span that starts inside it, or that starts before and ends after
        # its start, cut to the window.
        lo, hi = window
        for key, spans in tracks.items():
            spans = clip_to_parents(spans, key in gpu_tracks)
            tracks[key] = [[max(a, lo), min(b, hi), seq, name] for a, b, seq, name in spans
                           if a < hi and (a >= lo or b > lo)]
    return tracks


def clip_to_parents(spans, lanes):
    """The spans with each end clipped to its parent's, as the ordering stage nests them (on a
    GPU stream, in lanes, nothing is clipped)."""
    spans = sorted(spans, key=lambda s: (s[0], -s[1], s[2]))
    out = []
    stacks = [[]]
    for start, end, seq, name in spans:
        for stack in stacks if lanes else stacks[:1]:
            while stack and stack[-1] <= start:
                stack.pop()
            if lanes and stack and end > stack[-1]:
                continue
            break
        else:
            stack = []
            stacks.append(stack)
        if stack:
            end = min(end, stack[-1])
        stack.append(end)
        out.append([start, end, seq, name])
    return out


STEP = re.compile(r"ProfilerStep#(\d+)")


def merged_name(name):
    """The frame a span is in the profile: every ProfilerStep#N is one ProfilerStep (-W steps,
    merge by default; the number is the sample's step label)."""
    return "ProfilerStep" if STEP.fullmatch(name) else name


def walk(events, window=None):
    """Every span as nested: (track, name, self time, step) where step is the number of its
    outermost ProfilerStep#N ancestor (itself included), or None; whether anything nested; and
    the busy time of the tracks, the union of their top-level spans.
    On a thread a span outliving its parent is clipped; on a GPU stream it goes to the first
    lane where it nests, whole, and each lane is busy on its own."""
    out = []
    nested = False
    busy = 0
    gpu_tracks = set()
    for key, spans in spans_per_track(events, gpu_tracks, window).items():
        spans.sort(key=lambda s: (s[0], -s[1], s[2]))
        lanes = [[]]  # per lane, a stack of [end, child time, name, start, step]
        def close(entry):
            end, children, name, start, step = entry
            out.append((key, name, end - start - children, step))
        for start, end, _, name in spans:
            for stack in lanes if key in gpu_tracks else lanes[:1]:
                while stack and stack[-1][0] <= start:
                    close(stack.pop())
                if key in gpu_tracks and stack and end > stack[-1][0]:
                    continue
                break
            else:
                stack = []
                lanes.append(stack)
            step = stack[-1][4] if stack else None
            if step is None and STEP.fullmatch(name):
                step = int(STEP.fullmatch(name).group(1))
            if stack:
                nested = True
                end = min(end, stack[-1][0])
                stack[-1][1] += end - start
            else:
                busy += end - start
            stack.append([end, 0, name, start, step])
        for stack in lanes:
            while stack:
                close(stack.pop())
    return out, nested, busy


def expected(events, window=None):
    spans, nested, busy = walk(events, window)
    self_time = collections.Counter()
    for _, name, t, _ in spans:
        self_time[merged_name(name)] += t
    return len(spans), busy, self_time, nested


def convert(tconv, trace, out, extra=()):
    subprocess.run([tconv, "-q", "--force", "-r", "chrome", "-w", "pprof", "-o", out, *extra,
                    trace], check=True)
    with open(out, "rb") as f:
        return f.read()


def go_pprof(profile, env, nested):
    """Problems found by go tool pprof reading the profile."""
    problems = []
    for view in ("-raw", "-traces", "-top"):
        # Every node in -top, however small, so that the parents are there.
        r = subprocess.run(["go", "tool", "pprof", "-symbolize=none", "-nodefraction=0",
                            "-nodecount=1000000", view, profile],
                           capture_output=True, text=True, env=env)
        if r.returncode != 0:
            problems.append(f"go tool pprof {view} failed: {r.stderr.strip()}")
    # -top rows: flat flat% sum% cum cum% name. A parent's own time is below its inclusive time.
    row = re.compile(r"^\s*(\S+)\s+\S+%\s+\S+%\s+(\S+)\s+\S+%\s+(.*)$")
    parents = [m for m in map(row.match, r.stdout.splitlines()) if m and m.group(1) != m.group(2)]
    if nested and not parents and r.returncode == 0:
        problems.append("go tool pprof -top shows no node whose flat differs from its cum")
    return problems


def actual(tconv, dump, trace, tmp, extra=()):
    out = os.path.join(tmp, "out.pb.gz")
    first = convert(tconv, trace, out, extra)
    if convert(tconv, trace, os.path.join(tmp, "again.pb.gz"), extra) != first:
        raise SystemExit(f"{trace}: two conversions gave different bytes")
    text = subprocess.run([dump, "flat", out], check=True, capture_output=True,
                          text=True).stdout
    totals = None
    flat = {}
    for line in text.splitlines():
        if line.startswith("types "):
            if line != "types samples/count wall/nanoseconds":
                raise SystemExit(f"{trace}: unexpected sample types: {line}")
        elif line.startswith("total "):
            totals = [int(v) for v in line.split()[1:]]
        elif line.startswith("flat\t"):
            _, name, count, wall = line.split("\t")
            flat[name] = (int(count), int(wall))
    return out, totals, flat


def trace_list(args):
    for a in args:
        if a.startswith("@"):
            with open(a[1:], encoding="utf-8") as f:
                yield from (l.strip() for l in f if l.strip() and not l.startswith("#"))
        else:
            yield a


def main():
    tconv, dump, corpus = sys.argv[1:4]
    if not os.path.isdir(corpus):
        print(f"corpus not found at {corpus}: skipping", file=sys.stderr)
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
        # go tool pprof must work on a clean machine, without network.
        env = dict(os.environ, HOME=os.path.join(tmp, "home"), GOCACHE=os.path.join(tmp, "gocache"),
                   GOPATH=os.path.join(tmp, "gopath"), GOFLAGS="", GOPROXY="off", TZ="UTC",
                   PPROF_TMPDIR=os.path.join(tmp, "pprof"))
        os.makedirs(env["HOME"])
        have_go = shutil.which("go") is not None
        if not have_go:
            print("go is not installed: go tool pprof checks skipped", file=sys.stderr)
        for rel in present:
            trace = os.path.join(corpus, rel)
            nspans, busy, self_time, nested = expected(load_events(trace))
            out, totals, flat = actual(tconv, dump, trace, tmp)
            problems = go_pprof(out, env, nested) if have_go else []
            if totals != [nspans, busy]:
                problems.append(f"totals {totals}, expected [{nspans}, {busy}]")
            if sum(self_time.values()) != busy:
                problems.append("self times do not add up to busy time (check is wrong)")
            got = {name: wall for name, (_, wall) in flat.items()}
            want = {name: t for name, t in self_time.items() if t}
            for name in sorted(set(got) | set(want)):
                if got.get(name, 0) != want.get(name, 0):
                    problems.append(f"flat {name!r}: {got.get(name, 0)}, expected "
                                    f"{want.get(name, 0)}")
            # The middle third of the trace through --window: the busy time inside it.
            events = load_events(trace)
            ends = [s[1] for t in spans_per_track(events, set()).values() for s in t]
            starts = [s[0] for t in spans_per_track(events, set()).values() for s in t]
            if starts:
                first_t, last_t = min(starts), max(ends)
                lo = first_t + (last_t - first_t) // 3
                hi = first_t + 2 * (last_t - first_t) // 3 + 1
                wspans, wbusy, _, _ = expected(events, (lo, hi))
                _, wtotals, _ = actual(tconv, dump, trace, tmp, ["--window", f"@{lo}ns:{hi}ns"])
                if wtotals != [wspans, wbusy]:
                    problems.append(f"--window @{lo}ns:{hi}ns: totals {wtotals}, expected "
                                    f"[{wspans}, {wbusy}]")
            status = "ok" if not problems else "FAIL"
            print(f"{status} {rel}: {nspans} spans, busy {busy} ns, {len(want)} ops")
            for p in problems[:20]:
                print(f"    {p}")
            failures += bool(problems)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
