#!/usr/bin/env python3
"""The ops and kernels tables of tconv's csv writer on Kineto traces, against figures computed
here from the JSON, independently of the C code, by the rules docs/csv.md states (those of the
PyTorch TensorBoard profiler plugin, with spans nested per thread as tconv's ordering stage
nests them: a child ending after its parent is clipped, except on GPU streams, where it goes to
a lane of its own and keeps its length).

Host self time is computed as docs/csv.md defines it, from intervals: an op's own time minus
the union of the ops and launches below it, a merged op's the sum over the ops merged. No
value of the ops table may be negative.

usage: kineto_tables.py TCONV --corpus DIR    every Kineto trace (.json, .json.gz) under DIR
       kineto_tables.py TCONV TRACE...
Exit 0 when every table matches, 1 on a difference (or a corpus without Kineto traces), 77
when the corpus or the chrome reader is missing."""
import csv
import decimal
import gzip
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict

sys.setrecursionlimit(100000)
ROUND = decimal.Context(rounding=decimal.ROUND_HALF_UP)


def ns(v):
    """Chrome microseconds (number as read) to integer nanoseconds, rounded half up."""
    if v is None:
        return 0
    d = decimal.Decimal(v) if not isinstance(v, decimal.Decimal) else v
    return int((d * 1000).to_integral_value(context=ROUND))


def text(v):
    return v if isinstance(v, str) else json.dumps(v)


def role(cat):
    c = (cat or "").lower()
    if c in ("cpu_op", "operator"):
        return "op"
    if c == "user_annotation":
        return "annotation"
    if c == "python":
        return "python"
    if c == "runtime" or c.endswith("_runtime") or c.endswith("_driver"):
        return "runtime"
    if c in ("kernel", "mtia_ccp_events"):
        return "kernel"
    if c in ("memcpy", "gpu_memcpy"):
        return "memcpy"
    if c in ("memset", "gpu_memset"):
        return "memset"
    return "other"


def is_step(n):
    return n.startswith("ProfilerStep#")


def is_dataloader(n):
    return (n.startswith("enumerate(DataLoader)#") and n.endswith(".__next__")) or \
        n.startswith("enumerate(DataPipe)#")


def in_tree(s):
    r, n = s["role"], s["name"]
    if r in ("op", "python"):
        return True
    if r == "annotation":
        return is_step(n) or is_dataloader(n) or n.startswith("Optimizer.step") or \
            n.startswith("nccl:") or n.startswith("gloo:")
    return False


def in_table(s):
    n = s["name"]
    return s["role"] == "op" and not is_step(n) and not is_dataloader(n) and \
        not n.startswith("Optimizer.") and \
        n not in ("DataParallel.forward", "DistributedDataParallel.forward")


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        doc = json.load(f, parse_float=decimal.Decimal)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def spans_by_track(events):
    tracks = defaultdict(list)
    for seq, e in enumerate(events):
        if e.get("ph") != "X" or "ts" not in e:
            continue
        ts = ns(e["ts"])
        dur = ns(e.get("dur", 0))
        args = e.get("args") or {}
        tracks[(text(e.get("pid", "")), text(e.get("tid", "")))].append({
            "name": e.get("name", ""), "cat": e.get("cat", ""), "role": role(e.get("cat")),
            "start": ts, "end": ts + dur, "seq": seq, "args": args})
    return tracks


def is_gpu_track(key, spans):
    """As the Chrome reader marks GPU streams: device or GPU-annotation categories, or a
    "stream N" tid."""
    return key[1].startswith("stream ") or any(
        s["role"] in ("kernel", "memcpy", "memset") or s["cat"].lower() == "gpu_user_annotation"
        for s in spans)


def nest(spans, lanes=False):
    """Parents by time, as the ordering stage does: sorted by start, longer first; a span
    starting before the innermost open one ends is its child, clipped to its end. On a GPU
    stream (lanes) nothing is clipped: a span that would outlive its parent goes to the first
    lane where it nests."""
    spans.sort(key=lambda s: (s["start"], -s["end"], s["seq"]))
    stacks = [[]]
    for s in spans:
        for stack in stacks if lanes else stacks[:1]:
            while stack and stack[-1]["end"] <= s["start"]:
                stack.pop()
            if lanes and stack and s["end"] > stack[-1]["end"]:
                continue
            if stack and s["end"] > stack[-1]["end"]:
                s["end"] = stack[-1]["end"]
            break
        else:
            stack = []
            stacks.append(stack)
        s["parent"] = stack[-1] if stack else None
        stack.append(s)


def tree_parent(s):
    p = s["parent"]
    while p is not None and not in_tree(p):
        p = p["parent"]
    return p


def corr_id(s):
    """The correlation id as tconv reads it: an integer, or a number with an integral value."""
    v = s["args"].get("correlation")
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, decimal.Decimal) and v.is_finite() and v == v.to_integral_value():
        return int(v)
    return None


def device_times(tracks):
    dev = defaultdict(int)
    for spans in tracks.values():
        for s in spans:
            c = corr_id(s)
            if s["role"] in ("kernel", "memcpy", "memset") and c is not None:
                dev[c] += s["end"] - s["start"]
    return dev


def union_length(intervals):
    total, end = 0, None
    for a, b in sorted(intervals):
        if end is None or a >= end:
            total += b - a
            end = b
        elif b > end:
            total += b - end
            end = b
    return total


def host_self(spans):
    """Every instant of a thread is charged to the innermost op or launch around it: an op's
    self time is its duration minus the union of the op and launch spans nested in it."""
    for s in spans:
        if in_tree(s) or s["role"] == "runtime":
            p = s["parent"]
            while p is not None:
                if in_tree(p):
                    p["inside"].append((s["start"], s["end"]))
                p = p["parent"]
    for s in spans:
        if in_tree(s):
            s["self"] = s["end"] - s["start"] - union_length(s["inside"])


def remove_dup(node):
    """The plugin's merge of a node with its only child of the same name (both operators):
    the merged node keeps the launches and the self time of both."""
    while len(node["children"]) == 1:
        c = node["children"][0]
        if not (node["optype"] and c["optype"] and node["name"] == c["name"]):
            break
        node["children"] = c["children"]
        node["runtimes"] = node["runtimes"] + c["runtimes"]
        node["self"] += c["self"]
    for c in node["children"]:
        remove_dup(c)


def fill(node, dev, charged):
    node["dev_total"] = node["dev_self"] = 0
    for c in node["children"]:
        fill(c, dev, charged)
        node["dev_total"] += c["dev_total"]
    for rt in node["runtimes"]:
        c = corr_id(rt)
        if c is not None and charged.get(c) is rt:
            node["dev_total"] += dev.get(c, 0)
            node["dev_self"] += dev.get(c, 0)


def reference_ops(tracks):
    agg = {}
    roots = []
    for key, spans in tracks.items():
        nest(spans, lanes=is_gpu_track(key, spans))
    dev = device_times(tracks)
    # A correlation id's device time goes to one launch: the earliest-starting one with the id,
    # then the first in the file.
    charged = {}
    for spans in tracks.values():
        for s in spans:
            c = corr_id(s) if s["role"] == "runtime" else None
            if c is not None:
                b = charged.get(c)
                if b is None or (s["start"], s["seq"]) < (b["start"], b["seq"]):
                    charged[c] = s
    for spans in tracks.values():
        for s in spans:
            if in_tree(s):
                s["children"], s["runtimes"], s["inside"] = [], [], []
                s["optype"] = s["role"] == "op" and not is_step(s["name"])
        host_self(spans)
        for s in spans:
            if in_tree(s):
                p = tree_parent(s)
                (p["children"] if p else roots).append(s)
            elif s["role"] == "runtime":
                p = tree_parent(s)
                if p:
                    p["runtimes"].append(s)
    for r in roots:
        remove_dup(r)
    for r in roots:
        fill(r, dev, charged)

    def collect(node):
        if in_table(node):
            k = (node["name"], node["cat"])
            a = agg.setdefault(k, {"calls": 0, "total": 0, "self": 0, "min": None, "max": None,
                                   "dev_total": 0, "dev_self": 0})
            d = node["end"] - node["start"]
            a["calls"] += 1
            a["total"] += d
            a["self"] += node["self"]
            a["min"] = d if a["min"] is None else min(a["min"], d)
            a["max"] = d if a["max"] is None else max(a["max"], d)
            a["dev_total"] += node["dev_total"]
            a["dev_self"] += node["dev_self"]
        for c in node["children"]:
            collect(c)

    for r in roots:
        collect(r)
    return agg


def num(v):
    return float(v) if v is not None else 0.0


def reference_kernels(tracks):
    agg = {}
    for spans in tracks.values():
        for s in spans:
            if s["role"] != "kernel":
                continue
            d = s["end"] - s["start"]
            a = s["args"]
            k = agg.setdefault(s["name"], {"calls": 0, "total": 0, "min": None, "max": None,
                                           "bw": 0.0, "ow": 0.0, "hb": False, "ho": False,
                                           "configs": {}})
            k["calls"] += 1
            k["total"] += d
            k["min"] = d if k["min"] is None else min(k["min"], d)
            k["max"] = d if k["max"] is None else max(k["max"], d)
            k["bw"] += num(a.get("blocks per SM")) * d
            k["ow"] += num(a.get("est. achieved occupancy %")) * d
            k["hb"] |= a.get("blocks per SM") is not None
            k["ho"] |= a.get("est. achieved occupancy %") is not None
            cfg = (json.dumps(a.get("grid"), separators=(",", ":")) if "grid" in a else "",
                   json.dumps(a.get("block"), separators=(",", ":")) if "block" in a else "",
                   str(a.get("registers per thread", "")), str(a.get("shared memory", "")))
            k["configs"].setdefault(cfg, [len(k["configs"]), 0])[1] += d
    return agg


def run_csv(tconv, trace, table, out):
    subprocess.run([tconv, "-q", "-r", "chrome", "-w", "csv", "-W", "table=" + table,
                    "-o", out, trace], check=True)
    with open(out, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


OPS_INT_COLUMNS = (("calls", "calls"), ("host_total_ns", "total"), ("host_self_ns", "self"),
                   ("host_min_ns", "min"), ("host_max_ns", "max"),
                   ("device_total_ns", "dev_total"), ("device_self_ns", "dev_self"))


def check(tconv, path, events, tmp):
    tracks = spans_by_track(events)
    errors = []

    want = reference_ops(tracks)
    got = run_csv(tconv, path, "ops", os.path.join(tmp, "ops.csv"))
    for row in got:
        for col in row:
            if col not in ("name", "category") and row[col].startswith("-"):
                errors.append("ops %r: negative %s %s" % (row["name"], col, row[col]))
    for k, w in want.items():
        for col, key in OPS_INT_COLUMNS:
            if w[key] < 0:
                errors.append("reference %r: negative %s %d" % (k, col, w[key]))
    has_ops = any(s["role"] == "op" for sp in tracks.values() for s in sp)
    if has_ops:
        seen = set()
        for row in got:
            k = (row["name"], row["category"])
            seen.add(k)
            w = want.get(k)
            if w is None:
                errors.append("ops: unexpected row %r" % (k,))
                continue
            for col, key in OPS_INT_COLUMNS:
                if int(row[col]) != w[key]:
                    errors.append("ops %r %s: %s, expected %s" % (k, col, row[col], w[key]))
            if not close(float(row["host_mean_ns"]), w["total"] / w["calls"]):
                errors.append("ops %r host_mean_ns: %s" % (k, row["host_mean_ns"]))
        for k in want:
            if k not in seen:
                errors.append("ops: missing row %r" % (k,))
    ops_rows = len(got)
    want_k = reference_kernels(tracks)
    got = run_csv(tconv, path, "kernels", os.path.join(tmp, "kernels.csv"))
    if len(got) != len(want_k):
        errors.append("kernels: %d rows, expected %d" % (len(got), len(want_k)))
    for row in got:
        w = want_k.get(row["name"])
        if w is None:
            errors.append("kernels: unexpected row %r" % row["name"])
            continue
        for col, key in (("calls", "calls"), ("total_ns", "total"), ("min_ns", "min"),
                         ("max_ns", "max")):
            if int(row[col]) != w[key]:
                errors.append("kernel %r %s: %s, expected %s" % (row["name"][:60], col,
                                                                 row[col], w[key]))
        t = w["total"]
        for col, has in (("blocks_per_sm", w["hb"]), ("est_occupancy_pct", w["ho"])):
            if not has and row[col] != "":
                errors.append("kernel %r %s: %s, expected nothing (no call has it)" % (
                    row["name"][:60], col, row[col]))
        for col, v in (("blocks_per_sm", (w["bw"] / t if t > 0 else 0.0) if w["hb"] else None),
                       ("est_occupancy_pct", (w["ow"] / t if t > 0 else 0.0) if w["ho"] else None),
                       ("mean_ns", t / w["calls"])):
            if v is None:
                continue  # checked above: empty
            if not close(float(row[col]), v):
                errors.append("kernel %r %s: %s, expected %r" % (row["name"][:60], col,
                                                                 row[col], v))
        best = max(w["configs"].items(), key=lambda kv: (kv[1][1], -kv[1][0]))[0]
        got_cfg = (row["grid"], row["block"], row["registers_per_thread"], row["shared_memory"])
        if got_cfg != best:
            errors.append("kernel %r config %r, expected %r" % (row["name"][:60], got_cfg, best))
        if int(row["launch_configs"]) != len(w["configs"]):
            errors.append("kernel %r launch_configs %s, expected %d" % (
                row["name"][:60], row["launch_configs"], len(w["configs"])))
    return errors, ops_rows, len(got)


# Bytes one of which a Kineto trace holds (its categories, lower-cased); other files are not
# parsed.
KINETO_HINTS = (b"cpu_op", b"operator", b"runtime", b"_driver", b"kernel", b"memcpy", b"memset",
                b"mtia_ccp_events")


def kineto_events(path):
    """The trace's events when it is a Kineto trace (a span of an operator, launch or device
    category), else None."""
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rb") as f:
            raw = f.read()
    except (OSError, EOFError):
        return None
    low = raw.lower()
    if not any(h in low for h in KINETO_HINTS):
        return None
    try:
        doc = json.loads(raw.decode("utf-8"), parse_float=decimal.Decimal)
    except ValueError:
        return None
    events = doc.get("traceEvents") if isinstance(doc, dict) else doc
    if not isinstance(events, list):
        return None
    for e in events:
        if isinstance(e, dict) and e.get("ph") == "X" and \
                role(e.get("cat") if isinstance(e.get("cat"), str) else "") != "other":
            return events
    return None


def scan(corpus):
    for root, dirs, files in os.walk(corpus):
        dirs.sort()
        for f in sorted(files):
            if f.endswith(".json") or f.endswith(".json.gz"):
                yield os.path.join(root, f)


def main():
    if len(sys.argv) < 3 or (sys.argv[2] == "--corpus" and len(sys.argv) != 4):
        print(__doc__, file=sys.stderr)
        return 2
    tconv = sys.argv[1]
    corpus = sys.argv[3] if sys.argv[2] == "--corpus" else None
    if corpus is not None and not os.path.isdir(corpus):
        print("SKIP: no corpus at " + corpus)
        return 77
    listing = subprocess.run([tconv, "--list"], capture_output=True, text=True).stdout
    if "reader  chrome" not in listing:
        print("SKIP: no chrome reader")
        return 77
    paths = scan(corpus) if corpus is not None else sys.argv[2:]
    failed = checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in paths:
            events = kineto_events(path) if corpus is not None else load(path)
            if events is None:
                continue
            name = os.path.relpath(path, corpus) if corpus is not None else os.path.basename(path)
            errors, nops, nkern = check(tconv, path, events, tmp)
            del events
            checked += 1
            print("%s %s: %d ops rows, %d kernel rows" % ("FAIL" if errors else "ok", name,
                                                          nops, nkern))
            for e in errors[:20]:
                print("   " + e)
            failed += bool(errors)
    print("%d of %d Kineto traces differ" % (failed, checked))
    if not checked:
        print("FAIL: no Kineto trace found")
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
