#!/usr/bin/env python3
"""The ops and kernels tables of tconv's csv writer on every Kineto trace of the corpus,
against figures computed here from the JSON, independently of the C code, by the rules
docs/csv.md states (those of the PyTorch TensorBoard profiler plugin, with spans nested per
thread as tconv's ordering stage nests them: a child ending after its parent is clipped, except
on GPU streams, where it goes to a lane of its own and keeps its length).

usage: kineto_tables.py TCONV CORPUS_DIR @LIST | TRACE...
Exit 0 when every table matches, 1 on a difference, 77 when the corpus or the chrome reader
is missing."""
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


def ext_id(s):
    a = s["args"]
    return a.get("External id", a.get("external id"))


def launch_owner(s):
    """The enclosing tree node with the launch's External id (the plugin's match), else the
    innermost enclosing tree node."""
    inner = tree_parent(s)
    x = ext_id(s)
    if x:
        p = inner
        while p is not None:
            if ext_id(p) == x:
                return p
            p = tree_parent(p)
    return inner


def device_times(tracks):
    dev = defaultdict(int)
    for spans in tracks.values():
        for s in spans:
            if s["role"] in ("kernel", "memcpy", "memset") and "correlation" in s["args"]:
                dev[s["args"]["correlation"]] += s["end"] - s["start"]
    return dev


def remove_dup(node):
    """The plugin's merge of a node with its only child of the same name (both operators)."""
    while len(node["children"]) == 1:
        c = node["children"][0]
        if not (node["optype"] and c["optype"] and node["name"] == c["name"]):
            break
        node["children"] = c["children"]
        node["runtimes"] = c["runtimes"]
    for c in node["children"]:
        remove_dup(c)


def fill(node, dev):
    node["self"] = node["end"] - node["start"]
    node["dev_total"] = node["dev_self"] = 0
    for c in node["children"]:
        fill(c, dev)
        node["self"] -= c["end"] - c["start"]
        node["dev_total"] += c["dev_total"]
    for rt in node["runtimes"]:
        node["self"] -= rt["end"] - rt["start"]
        d = 0
        corr = rt["args"].get("correlation")
        if corr is not None and dev.get(corr):
            d = dev[corr]
            dev[corr] = 0  # one launch per correlation id
        node["dev_total"] += d
        node["dev_self"] += d


def reference_ops(tracks):
    agg = {}
    roots = []
    for key, spans in tracks.items():
        nest(spans, lanes=is_gpu_track(key, spans))
    dev = device_times(tracks)
    for key in sorted(tracks, key=lambda k: min(s["seq"] for s in tracks[k])):
        spans = tracks[key]
        for s in spans:
            if in_tree(s):
                s["children"], s["runtimes"] = [], []
                s["optype"] = s["role"] == "op" and not is_step(s["name"])
        for s in spans:
            if in_tree(s):
                p = tree_parent(s)
                (p["children"] if p else roots).append(s)
            elif s["role"] == "runtime":
                p = launch_owner(s)
                if p:
                    p["runtimes"].append(s)
    for r in roots:
        remove_dup(r)
    for r in roots:
        fill(r, dev)

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
                                           "bw": 0.0, "ow": 0.0, "configs": {}})
            k["calls"] += 1
            k["total"] += d
            k["min"] = d if k["min"] is None else min(k["min"], d)
            k["max"] = d if k["max"] is None else max(k["max"], d)
            k["bw"] += num(a.get("blocks per SM")) * d
            k["ow"] += num(a.get("est. achieved occupancy %")) * d
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


def check(tconv, corpus, rel, tmp):
    path = os.path.join(corpus, rel)
    tracks = spans_by_track(load(path))
    errors = []

    want = reference_ops(tracks)
    got = run_csv(tconv, path, "ops", os.path.join(tmp, "ops.csv"))
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
            for col, key in (("calls", "calls"), ("host_total_ns", "total"),
                             ("host_self_ns", "self"), ("host_min_ns", "min"),
                             ("host_max_ns", "max"), ("device_total_ns", "dev_total"),
                             ("device_self_ns", "dev_self")):
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
        for col, v in (("blocks_per_sm", w["bw"] / t if t > 0 else 0.0),
                       ("est_occupancy_pct", w["ow"] / t if t > 0 else 0.0),
                       ("mean_ns", t / w["calls"])):
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


def main():
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    tconv, corpus = sys.argv[1], sys.argv[2]
    if not os.path.isdir(corpus):
        print("SKIP: no corpus at " + corpus)
        return 77
    listing = subprocess.run([tconv, "--list"], capture_output=True, text=True).stdout
    if "reader  chrome" not in listing:
        print("SKIP: no chrome reader")
        return 77
    traces = []
    for a in sys.argv[3:]:
        if a.startswith("@"):
            with open(a[1:]) as f:
                traces += [l.strip() for l in f if l.strip() and not l.startswith("#")]
        else:
            traces.append(a)
    # A partial corpus (the in-tree slice) has some of the traces: check those, count the others.
    absent = [rel for rel in traces if not os.path.isfile(os.path.join(corpus, rel))]
    traces = [rel for rel in traces if rel not in absent]
    if not traces:
        print("SKIP: none of the %d traces is in %s" % (len(absent), corpus))
        return 77
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for rel in traces:
            errors, nops, nkern = check(tconv, corpus, rel, tmp)
            print("%s %s: %d ops rows, %d kernel rows" % ("FAIL" if errors else "ok", rel,
                                                          nops, nkern))
            for e in errors[:20]:
                print("   " + e)
            failed += bool(errors)
    print("%d of %d traces differ; %d absent from the corpus (skipped)" % (failed, len(traces),
                                                                           len(absent)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
