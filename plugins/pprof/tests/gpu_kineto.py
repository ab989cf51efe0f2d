#!/usr/bin/env python3
"""Check GPU attribution (-W gpu=attribute, and folded -W value=gpu) on real Kineto traces.

Computed here from the JSON alone: the GPU activities (kernel, copy and set categories) whose
correlation id is also on a CPU span of the trace (a runtime call; syncs and annotations are
neither), their summed duration in exact ns, and the names of the launching CPU spans. Then:
  - the pprof profile's gpu total equals that sum, it has one more sample count per attributed
    activity than the profile without attribution, and the same wall total and per-function wall
    (CPU self time is unchanged);
  - every sample with GPU time ends in "[gpu] <activity>" under a launching span's name, and no
    other sample has GPU time;
  - folded -W value=gpu adds up to the same sum, every line ending the same way;
  - when go is installed, `go tool pprof -sample_index=gpu -top` reads the profile.

Usage: gpu_kineto.py TCONV PPROF_DUMP CORPUS_DIR TRACE|@LIST...
Exit 77 when the corpus is absent."""
import collections
import decimal
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

DEVICE = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset", "GPU_Kernel",
          "MemCopy", "MemSet", "memcpy", "memset", "mtia_ccp_events"}
NEITHER = {"cuda_sync", "gpu_user_annotation", "Overhead"}


def ns(value):
    d = decimal.Decimal(value) * 1000
    return int(d.to_integral_value(rounding=decimal.ROUND_HALF_UP))


def correlation(e):
    args = e.get("args") or {}
    for key in ("correlation", "correlationId", "correlation_id"):
        if key in args:
            try:
                v = int(args[key])
            except (TypeError, ValueError):
                return 0
            return v if v > 0 else 0
    return 0


def folded_name(name):
    # The folded writer's escaping: ';' would split the frame, line breaks the line.
    return name.replace(";", ":").replace("\n", " ").replace("\r", " ")


def expected(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        doc = json.load(f, parse_float=decimal.Decimal)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    launches = {}
    for e in events:
        c = correlation(e)
        if c and e.get("ph") in ("X", "B") and e.get("cat") not in DEVICE | NEITHER:
            launches.setdefault(c, set()).add(e.get("name", ""))
    total, count, leaves = 0, 0, set()
    launch_names = set()
    for e in events:
        c = correlation(e)
        if e.get("ph") != "X" or e.get("cat") not in DEVICE or c not in launches:
            continue
        total += ns(e.get("dur", 0))
        count += 1
        name = e.get("name", "")
        leaves.add("[gpu] " + (name[8:] if name.startswith("Kernel: ") else name))
        launch_names |= launches[c]
    return total, count, leaves, launch_names


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def flat(dump, profile):
    types, totals, rows = None, None, {}
    for line in run([dump, "flat", profile]).splitlines():
        if line.startswith("types "):
            types = line
        elif line.startswith("total "):
            totals = [int(v) for v in line.split()[1:]]
        elif line.startswith("flat\t"):
            parts = line.split("\t")
            rows[parts[1]] = [int(v) for v in parts[2:]]
    return types, totals, rows


def check(tconv, dump, trace, tmp, env, have_go, have_folded):
    problems = []
    want_total, want_count, leaves, launch_names = expected(trace)
    gpu = os.path.join(tmp, "gpu.pb.gz")
    plain = os.path.join(tmp, "plain.pb.gz")
    run([tconv, "-q", "--force", "-r", "chrome", "-w", "pprof", "-W", "gpu=attribute", "-o", gpu,
         trace])
    run([tconv, "-q", "--force", "-r", "chrome", "-w", "pprof", "-o", plain, trace])
    types, totals, rows = flat(dump, gpu)
    _, ptotals, prows = flat(dump, plain)
    if types != "types samples/count wall/nanoseconds gpu/nanoseconds":
        problems.append(f"sample types: {types}")
        return problems
    if totals[2] != want_total:
        problems.append(f"gpu total {totals[2]} ns, expected {want_total}")
    if totals[0] != ptotals[0] + want_count:
        problems.append(f"{totals[0] - ptotals[0]} GPU samples, expected {want_count}")
    if totals[1] != ptotals[1]:
        problems.append(f"wall total {totals[1]}, {ptotals[1]} without attribution")
    for name, (count, wall, _) in rows.items():
        if name not in prows and not name.startswith("[gpu] "):
            problems.append(f"flat {name!r} appears only with attribution")
        elif name in prows and prows[name][1] != wall:
            problems.append(f"flat wall of {name!r}: {wall}, {prows[name][1]} without")

    for line in run([dump, "samples", gpu]).splitlines()[2:]:
        values, stack = line.partition(" | ")[0], line.rpartition(" | ")[2]
        count, wall, gtime = (int(v) for v in values.split(","))
        frames = stack.split(";")
        if frames[-1].startswith("[gpu] "):
            if wall != 0 or frames[-1] not in leaves or len(frames) < 2 or \
                    frames[-2] not in launch_names:
                problems.append(f"GPU sample {line[:200]!r}")
        elif gtime:
            problems.append(f"GPU time on a CPU sample: {line[:200]!r}")

    if have_folded:
        out = run([tconv, "-q", "-r", "chrome", "-w", "folded", "-W", "value=gpu", trace])
        got = 0
        names = {folded_name(n) for n in launch_names}
        fleaves = {folded_name(n) for n in leaves}
        for line in out.splitlines():
            stack, _, value = line.rpartition(" ")
            got += int(value)
            frames = stack.split(";")
            if frames[-1] not in fleaves or len(frames) < 2 or frames[-2] not in names:
                problems.append(f"folded line {line[:200]!r}")
        if got != want_total:
            problems.append(f"folded value=gpu adds up to {got} ns, expected {want_total}")

    if have_go and want_count:
        r = subprocess.run(["go", "tool", "pprof", "-sample_index=gpu", "-top", gpu],
                           capture_output=True, text=True, env=env)
        if r.returncode != 0 or "Type: gpu" not in r.stdout:
            problems.append(f"go tool pprof -sample_index=gpu -top: {r.stderr.strip()[:300]}")
    print(f"{'ok' if not problems else 'FAIL'} {os.path.relpath(trace)}: {want_count} GPU "
          f"activities attributed, {want_total} ns")
    return problems


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
    have_folded = "writer  folded " in run([tconv, "--list"])
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, HOME=os.path.join(tmp, "home"), GOCACHE=os.path.join(tmp, "gocache"),
                   GOPATH=os.path.join(tmp, "gopath"), GOFLAGS="", GOPROXY="off", TZ="UTC",
                   PPROF_TMPDIR=os.path.join(tmp, "pprof"))
        os.makedirs(env["HOME"])
        have_go = shutil.which("go") is not None
        if not have_go:
            print("go is not installed: go tool pprof checks skipped", file=sys.stderr)
        os.chdir(corpus)
        for rel in present:
            problems = check(tconv, dump, rel, tmp, env, have_go, have_folded)
            for p in problems[:20]:
                print(f"    {p}")
            failures += bool(problems)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
