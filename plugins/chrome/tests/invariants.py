"""Counted invariants of the Chrome reader on a real trace, computed independently with Python's
json module (numbers kept as exact decimals) and compared with tconv's text dump: events per
output kind (with the memory counters of PyTorch's [memory] instants and the host metadata of
TensorFlow traces), per track the number of complete events, the sum of their durations and of
their start times in exact nanoseconds, the latest complete event, and the events of each phase
that the model cannot hold.

usage: invariants.py TCONV CORPUS_DIR RELATIVE_PATH
exit 77 when the corpus is absent.
"""

import collections
import decimal
import gzip
import io
import json
import os
import re
import subprocess
import sys
import tempfile

decimal.getcontext().prec = 60


def open_text(path):
    raw = open(path, "rb")
    magic = raw.read(2)
    raw.seek(0)
    stream = gzip.GzipFile(fileobj=raw) if magic == b"\x1f\x8b" else raw
    return io.TextIOWrapper(stream, encoding="utf-8", errors="replace")


def to_ns(v):
    """Exact µs -> ns, halves away from zero; None when not a number."""
    if isinstance(v, bool):
        return None
    if isinstance(v, str):
        try:
            v = decimal.Decimal(v.strip())
        except decimal.InvalidOperation:
            return None
        if not v.is_finite():
            return None
    if isinstance(v, (int, decimal.Decimal)):
        q = decimal.Decimal(v) * 1000
        return int(q.quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP))
    return None


def text_of(v):
    """pid/tid as tconv names the track: the number's text or the string."""
    if v is None or isinstance(v, bool):
        return ""
    if isinstance(v, str):
        return v
    return str(v)


def is_number(v):
    if isinstance(v, bool):
        return False
    if isinstance(v, (int, decimal.Decimal)):
        return True
    if isinstance(v, str):
        return to_ns(v) is not None
    return False


def is_integer(v):
    if isinstance(v, bool):
        return False
    if isinstance(v, str):
        try:
            v = decimal.Decimal(v.strip())
        except decimal.InvalidOperation:
            return False
    if isinstance(v, int):
        return True
    return isinstance(v, decimal.Decimal) and v.is_finite() and v == int(v)


def memory_counters(args):
    """Counter values the reader derives from one [memory] instant."""
    if not is_integer(args.get("Device Type")):
        return 0
    allocated = is_number(args.get("Total Allocated")) or is_number(args.get("Bytes"))
    return int(allocated) + int(is_number(args.get("Total Reserved")))


def tf_host(path):
    """The host of a TensorFlow profiler trace, <host>.trace.json[.gz]; None for others."""
    base = os.path.basename(path)
    for sfx in (".trace.json.gz", ".trace.json"):
        if base.endswith(sfx) and len(base) > len(sfx):
            stem = base[:-len(sfx)]
            return None if stem.endswith(".pt") else stem
    return None


def expected(path):
    with open_text(path) as f:
        doc = json.load(f, parse_float=decimal.Decimal)
    kinds = collections.Counter()
    process_pids = set()  # pids whose process track the reader uses
    unsupported = collections.Counter()
    bad = 0
    tracks = collections.defaultdict(lambda: [0, 0, 0])  # count, sum dur, sum ts
    latest = None
    async_tracks = set()
    events = doc if isinstance(doc, list) else doc.get("traceEvents") or []
    if isinstance(doc, dict):
        for k in doc:
            if k not in ("traceEvents", "systemTraceEvents", "stackFrames", "samples"):
                kinds["metadata"] += 1
        sys_ev = doc.get("systemTraceEvents")
        if isinstance(sys_ev, dict):
            for e in sys_ev.get("events", []):
                if e.get("ph") in ("p", "t"):
                    kinds["metadata"] += 1
                    if e.get("ph") == "p":
                        process_pids.add(text_of(e.get("pid")))
                else:
                    unsupported["system-phase-" + e.get("ph", "?")] += 1
        kinds["sample"] += len(doc.get("samples") or [])
    for e in events:
        if not isinstance(e, dict):
            bad += 1
            continue
        if not e:
            continue  # the "{}" that ends TensorFlow's traces
        ph = e.get("ph")
        if not isinstance(ph, str) or len(ph) != 1:
            bad += 1
            continue
        ts = to_ns(e["ts"]) if "ts" in e else None
        if ts is None and ph != "M":
            bad += 1
            continue
        if ph in "BEX":
            if ph == "X":
                dur = to_ns(e["dur"]) if "dur" in e else 0
                if dur is None or dur < 0:
                    bad += 1
                    continue
                key = (text_of(e.get("pid")), text_of(e.get("tid")))
                t = tracks[key]
                t[0] += 1
                t[1] += dur
                t[2] += ts
                if latest is None or (ts, dur) > latest:
                    latest = (ts, dur)
                kinds["complete"] += 1
            else:
                kinds["begin" if ph == "B" else "end"] += 1
            if ph != "E" and "bind_id" in e and (e.get("flow_in") is True or e.get("flow_out") is True):
                fi, fo = e.get("flow_in") is True, e.get("flow_out") is True
                kinds["flow-step" if fi and fo else "flow-start" if fo else "flow-end"] += 1
        elif ph in "iIR":
            kinds["instant"] += 1
            if ph != "R" and e.get("s") == "p":
                process_pids.add(text_of(e.get("pid")))
            if ph != "R" and e.get("name") == "[memory]":
                n = memory_counters(e.get("args") or {})
                kinds["counter"] += n
                if n:
                    process_pids.add(text_of(e.get("pid")))
        elif ph == "C":
            process_pids.add(text_of(e.get("pid")))
            for v in (e.get("args") or {}).values():
                if is_number(v):
                    kinds["counter"] += 1
        elif ph in "bneSTpF":
            kinds["begin" if ph in "bS" else "end" if ph in "eF" else "instant"] += 1
            id2 = e.get("id2") or {}
            if "global" in id2:
                key = ("", e.get("cat"), e.get("scope"), "g", text_of(id2["global"]))
            elif "local" in id2:
                key = (text_of(e.get("pid")), e.get("cat"), e.get("scope"), "l", text_of(id2["local"]))
            else:
                key = (text_of(e.get("pid")), e.get("cat"), e.get("scope"), "", text_of(e.get("id")))
            if key not in async_tracks:
                async_tracks.add(key)
                kinds["metadata"] += 1
        elif ph in "stf":
            kinds[{"s": "flow-start", "t": "flow-step", "f": "flow-end"}[ph]] += 1
        elif ph == "P":
            kinds["sample"] += 1
        elif ph == "M":
            kinds["metadata"] += 1
            name = e.get("name")
            if isinstance(name, str) and len(name) > 8 and name.startswith("process_"):
                process_pids.add(text_of(e.get("pid")))
        else:
            unsupported["phase-" + ph] += 1
    if tf_host(path):
        kinds["metadata"] += len(process_pids)
    return kinds, unsupported, bad, tracks, latest


def unquote(s):
    return re.sub(r"\\(.)", r"\1", s)


def actual(tconv, path):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.txt")
        p = subprocess.run([tconv, "-r", "chrome", "-w", "text", "-o", out, path],
                           stderr=subprocess.PIPE, text=True, errors="replace")
        if p.returncode != 0:
            sys.exit("FAIL: tconv exited %d: %s" % (p.returncode, p.stderr))
        kinds = collections.Counter()
        per_track = collections.defaultdict(lambda: [0, 0, 0])
        names = {}
        latest = None
        line_re = re.compile(r"^(\S+) +(-?\d+) (?:dur=(-?\d+) )?T(\d+)\b")
        track_re = re.compile(r'^track T(\d+) .*?pid="((?:[^"\\]|\\.)*)" tid="((?:[^"\\]|\\.)*)"')
        with open(out, encoding="utf-8", errors="replace") as f:
            for line in f:
                m = line_re.match(line)
                if m:
                    kind = m.group(1)
                    kinds[kind] += 1
                    if kind == "complete":
                        ts, dur = int(m.group(2)), int(m.group(3))
                        t = per_track[int(m.group(4))]
                        t[0] += 1
                        t[1] += dur
                        t[2] += ts
                        if latest is None or (ts, dur) > latest:
                            latest = (ts, dur)
                    continue
                m = track_re.match(line)
                if m:
                    names[int(m.group(1))] = (unquote(m.group(2)), unquote(m.group(3)))
        tracks = {names[k]: v for k, v in per_track.items()}
        warn = {}
        for m in re.finditer(r"\[chrome\.([^,\]]+)(?:, (\d+) times)?", p.stderr):
            warn[m.group(1)] = int(m.group(2) or 1)
        return kinds, warn, tracks, latest


def main():
    tconv, corpus, rel = sys.argv[1:4]
    path = os.path.join(corpus, rel)
    if not os.path.exists(path):
        print("corpus file %s absent: skipped" % rel)
        sys.exit(77)
    kinds, unsupported, bad, tracks, latest = expected(path)
    got_kinds, warn, got_tracks, got_latest = actual(tconv, path)
    errors = []
    kinds = +kinds
    if dict(kinds) != dict(got_kinds):
        errors.append("event kinds: expected %s, got %s" % (dict(sorted(kinds.items())),
                                                             dict(sorted(got_kinds.items()))))
    for phase, n in unsupported.items():
        if warn.get(phase) != n:
            errors.append("phase %s: expected %d counted, got %s" % (phase, n, warn.get(phase)))
    if bad != warn.get("bad-event", 0):
        errors.append("malformed events: expected %d, got %d" % (bad, warn.get("bad-event", 0)))
    if dict(tracks) != dict(got_tracks):
        for key in sorted(set(tracks) | set(got_tracks)):
            if tracks.get(key) != got_tracks.get(key):
                errors.append("track pid=%r tid=%r: expected [count, sum dur, sum ts] %s, got %s"
                              % (key[0], key[1], tracks.get(key), got_tracks.get(key)))
    if latest != got_latest:
        errors.append("latest complete event: expected %s, got %s" % (latest, got_latest))
    if errors:
        for e in errors[:20]:
            print("FAIL: " + e, file=sys.stderr)
        sys.exit(1)
    total = sum(kinds.values())
    print("invariants: %s: %d events, %d tracks with complete events, all match"
          % (rel, total, len(tracks)))


if __name__ == "__main__":
    main()
