#!/usr/bin/env python3
"""The step-time breakdown where it used to go wrong, against independent sums.

usage: summary_steps.py TCONV CPU_TRACE [RANK0 RANK1]

1. A CPU-only trace of PyTorch's exporter without Kineto (no categories): its ProfilerStep#N are
   steps, and the breakdown's mean step and CPU execution are the ones python computes from the
   JSON (CPU execution: the union of the other spans inside each step, per step, then the mean).
2. The same trace with --step-name iteration: the spans named "iteration" alone are the steps.
3. --step-name that matches nothing: a warning says so.
4. Two ranks of one job (HolisticTraceAnalysis trace_filter/sampled_rank-0 and -1, when given
   and present): each input's row of "Steps per input" is its own report's breakdown, the
   combined mean step is the mean of the two, and the slowest rank is named.
Exit 0 when all hold, 1 otherwise.
"""
import json
import os
import re
import subprocess
import sys

FAILS = []


def fail(msg):
    FAILS.append(msg)
    print("FAIL: " + msg)


def dur(ns):
    """summary_dur: integer fixed point, rounded half up."""
    a = abs(ns)
    if a < 1000:
        return "%d ns" % ns
    for scale, unit in ((1000000000, "s"), (1000000, "ms"), (1000, "us")):
        if a >= scale:
            break
    milli = a // 1000000 + (a % 1000000 >= 500000) if scale == 1000000000 else \
        (a * 1000 + scale // 2) // scale
    return "%s%d.%03d %s" % ("-" if ns < 0 else "", milli // 1000, milli % 1000, unit)


def run(tconv, *args):
    p = subprocess.run([tconv, "-w", "summary"] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise RuntimeError("tconv %s: %s" % (args, p.stderr.decode()))
    return p.stdout.decode(), p.stderr.decode()


def breakdown(text):
    """(header line, {role: (time text, pct text)}) of the report's step breakdown."""
    m = re.search(r"^Step time breakdown \((.*)\)\n((?:  .*\n)+)", text, re.M)
    if not m:
        return None, {}
    rows = {}
    for line in m.group(2).splitlines():
        r = re.match(r"  (.{14}) +(\S+ \S+) +(\S+)$", line)
        if r:
            rows[r.group(1).strip()] = (r.group(2), r.group(3))
    return m.group(1), rows


def union(ranges):
    out = []
    for s, e in sorted(ranges):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def overlap(merged, s, e):
    return sum(max(0, min(e, b) - max(s, a)) for a, b in merged)


def cpu_only(tconv, path, step_name):
    events = json.load(open(path))
    spans = [(e["name"], int(e["ts"]) * 1000, (int(e["ts"]) + int(e["dur"])) * 1000)
             for e in events if e.get("ph") == "X"]
    if step_name:
        is_step = lambda n: n == step_name or re.fullmatch(re.escape(step_name) + r"[#:_\- .=]*\d+", n)
    else:
        is_step = lambda n: re.fullmatch(r"ProfilerStep#\d+", n)
    steps = sorted((s, e) for n, s, e in spans if is_step(n))
    # the rest is CPU execution, but ProfilerStep# ranges around user-named steps
    cpu = union([(s, e) for n, s, e in spans if not is_step(n) and not n.startswith("ProfilerStep#")])
    n = len(steps)
    mean = sum(e - s for s, e in steps) // n
    cpu_mean = sum(overlap(cpu, s, e) for s, e in steps) // n
    args = ["--step-name", step_name] if step_name else []
    out, _ = run(tconv, "-q", *args, path)
    head, rows = breakdown(out)
    label = "steps %s" % (step_name or "ProfilerStep#")
    if head is None:
        fail("%s: no step breakdown" % label)
        return
    if not head.startswith("%d %s" % (n, "steps" if step_name else "ProfilerStep#")) or \
            not head.endswith("mean step " + dur(mean)):
        fail("%s: breakdown says (%s), python: %d steps, mean %s" % (label, head, n, dur(mean)))
    if rows.get("CPU execution", ("",))[0] != dur(cpu_mean):
        fail("%s: CPU execution %s, python %s" % (label, rows.get("CPU execution"), dur(cpu_mean)))
    print("%s: %d steps, mean %s, CPU execution %s" % (label, n, dur(mean), dur(cpu_mean)))


def ranks(tconv, inputs):
    out, _ = run(tconv, "-q", *inputs)
    head, rows = breakdown(out)
    m = re.search(r"^Steps per input .*\n  +input +rank .*\n((?:  .*\n)+)", out, re.M)
    if head is None or not m:
        fail("ranks: no per-input breakdown:\n" + out[-2000:])
        return
    table = m.group(1).splitlines()
    means = []
    for i, path in enumerate(inputs):
        alone, _ = run(tconv, "-q", path)
        h, r = breakdown(alone)
        mm = re.search(r"; mean step (\S+ \S+)", h or "")
        want = [mm.group(1) if mm else None] + [r[k][1] for k in
                                                ("kernel", "memcpy", "memset", "communication",
                                                 "runtime", "data loader", "CPU execution", "other")]
        cells = table[i].split()
        # input rank steps mean(2 words) 8 percentages name [(slowest)]
        got = [cells[3] + " " + cells[4]] + cells[5:13]
        if got != want:
            fail("ranks: input %d is %s in the pair's report, %s alone" % (i, got, want))
        scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
        means.append(float(want[0].split()[0]) * scale[want[0].split()[1]])
    # the combined mean: the inputs' means averaged (within the 1 us rounding of each)
    mm = re.search(r"each one's mean step (\S+) (ns|us|ms|s)\b", head)
    scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
    combined = float(mm.group(1)) * scale[mm.group(2)] if mm else -1
    if abs(combined - sum(means) / len(means)) > 1000:
        fail("ranks: combined mean step %s, the inputs' %s" % (head, means))
    slow = max(range(len(means)), key=lambda i: means[i])
    if "slowest rank %d (input %d)" % (slow, slow) not in head or "(slowest)" not in table[slow]:
        fail("ranks: the slowest input %d is not named: %s" % (slow, head))
    print("ranks: per input %s, combined %s" % (means, head))


def main():
    tconv, cpu = sys.argv[1], sys.argv[2]
    cpu_only(tconv, cpu, None)
    cpu_only(tconv, cpu, "iteration")
    _, err = run(tconv, "--step-name", "iterashun", cpu)
    if "--step-name 'iterashun' matched no span" not in err:
        fail("--step-name iterashun: no warning that it matched nothing: %s" % err)
    pair = sys.argv[3:5]
    if len(pair) == 2 and all(os.path.exists(p) for p in pair):
        ranks(tconv, pair)
    else:
        print("the two ranks' traces are absent: not checked")
    if FAILS:
        print("%d checks failed" % len(FAILS))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
