#!/usr/bin/env python3
"""Steps, threads and devices as go tool pprof filters them, on real Kineto traces.

For each case (one trace, or several converted together) this script converts with
`tconv -w pprof` and runs the real consumer:
  - `go tool pprof -top`, with no option: the steps show as one node, `ProfilerStep`, and no
    `ProfilerStep#N` node (with -W steps=keep, one node per step and no merged one);
  - `-tagfocus=step=N` for every step N of the trace: the total pprof shows is the self time of
    every span under a ProfilerStep#N (itself included, its GPU annotations on the streams too),
    computed here from the trace's JSON;
  - `-tagfocus=tid=N` for every numeric tid: the busy time of the threads with that tid;
  - `-tagfocus=thread=^NAME$` for every thread name: the busy time of the threads so named (a
    Kineto name "thread 25772 (python)" is labelled "python", the tid being a label already);
  - `-tagfocus=device=D` for every GPU's pid: the busy time of that device's streams.
The nesting and self times are kineto_selftime.py's, an independent model of the rules.

Usage: pprof_tags.py TCONV CORPUS_DIR CASE...  (a case: traces relative to CORPUS_DIR joined
with '+'). Exit 77 when no case's traces are present, or go is absent."""
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kineto_selftime import is_gpu, load_events, track_key, walk  # noqa: E402

KINETO_THREAD = re.compile(r"thread (\d+) \((.*)\)")
ACCOUNTING = re.compile(r"^Showing nodes accounting for (-?\d+)ns,")
TOP_NAME = re.compile(r"^ *\S+ +\S+% +\S+% +\S+ +\S+%  (.*)$")


def thread_names(events):
    """(pid, tid) -> the thread's name as its label: Kineto's "thread N (name)" is name."""
    names = {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            key = (track_key(e.get("pid", "")), track_key(e.get("tid", "")))
            name = str(e.get("args", {}).get("name", ""))
            m = KINETO_THREAD.fullmatch(name)
            names[key] = m.group(2) if m and m.group(1) == key[1] else name
    return names


def expected(paths):
    """Totals per step, numeric tid, thread name and device, in ns, over the inputs."""
    by_step, by_tid = collections.Counter(), collections.Counter()
    by_thread, by_device = collections.Counter(), collections.Counter()
    for path in paths:
        events = load_events(path)
        names = thread_names(events)
        gpu = {(track_key(e.get("pid", "")), track_key(e.get("tid", ""))) for e in events
               if e.get("ph") in ("X", "B") and is_gpu(e)}
        spans, _, _ = walk(events)
        for key, _, self_time, step in spans:
            if step is not None:
                by_step[step] += self_time
            if key in gpu:
                if key[0].isdigit():
                    by_device[int(key[0])] += self_time
                continue
            if key[1].isdigit():
                by_tid[int(key[1])] += self_time
            if names.get(key):
                by_thread[names[key]] += self_time
    return by_step, by_tid, by_thread, by_device


def go_quote(name):
    """name as a Go regexp matching it whole (Python's re.escape also escapes spaces, which Go
    refuses)."""
    return "^" + re.sub(r"([\\.+*?()|\[\]{}^$])", r"\\\1", name) + "$"


def pprof_total(env, profile, focus):
    r = subprocess.run(["go", "tool", "pprof", "-symbolize=none", "-top", "-unit=ns",
                        "-nodefraction=0", "-nodecount=1000000", f"-tagfocus={focus}", profile],
                       capture_output=True, text=True, env=env)
    for line in r.stdout.splitlines():
        m = ACCOUNTING.match(line)
        if m:
            return int(m.group(1))
    if "matched no samples" in r.stderr:
        return 0
    raise SystemExit(f"go tool pprof -tagfocus={focus} {profile}: {r.stderr.strip()}")


def top_names(env, profile):
    r = subprocess.run(["go", "tool", "pprof", "-top", profile], capture_output=True, text=True,
                       env=env, check=True)
    return [m.group(1) for m in map(TOP_NAME.match, r.stdout.splitlines()) if m]


def main():
    tconv, corpus = sys.argv[1:3]
    if shutil.which("go") is None:
        print("go is not installed: skipping", file=sys.stderr)
        return 77
    cases = [[os.path.join(corpus, p) for p in c.split("+")] for c in sys.argv[3:]]
    present = [c for c in cases if all(os.path.isfile(p) for p in c)]
    print(f"{len(present)} of {len(cases)} cases have their traces in {corpus}")
    if not present:
        return 77
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, HOME=os.path.join(tmp, "home"), GOCACHE=os.path.join(tmp, "gocache"),
                   GOPATH=os.path.join(tmp, "gopath"), GOFLAGS="", GOPROXY="off", TZ="UTC",
                   PPROF_TMPDIR=os.path.join(tmp, "pprof"))
        os.makedirs(env["HOME"])
        for paths in present:
            name = "+".join(os.path.relpath(p, corpus) for p in paths)
            problems = []
            profile = os.path.join(tmp, "out.pb.gz")
            subprocess.run([tconv, "-q", "--force", "-w", "pprof", "-o", profile, *paths],
                           check=True)
            by_step, by_tid, by_thread, by_device = expected(paths)
            if not by_step:
                problems.append("the trace has no ProfilerStep#N (wrong case)")
            shown = top_names(env, profile)
            if "ProfilerStep" not in shown or any(n.startswith("ProfilerStep#") for n in shown):
                problems.append(f"-top does not show the steps as one ProfilerStep: "
                                f"{[n for n in shown if n.startswith('ProfilerStep')]}")
            checks = [(f"step={n}", t) for n, t in sorted(by_step.items())]
            checks += [(f"tid={n}", t) for n, t in sorted(by_tid.items())]
            # (-tagfocus splits its value at commas)
            checks += [(f"thread={go_quote(n)}", t) for n, t in sorted(by_thread.items())
                       if "," not in n]
            checks += [(f"device={n}", t) for n, t in sorted(by_device.items())]
            for focus, want in checks:
                got = pprof_total(env, profile, focus)
                if got != want:
                    problems.append(f"-tagfocus={focus}: {got} ns, expected {want}")
            # One frame per step, as the trace names them, with -W steps=keep.
            subprocess.run([tconv, "-q", "--force", "-w", "pprof", "-W", "steps=keep", "-o",
                            profile, *paths], check=True)
            kept = {n for n in top_names(env, profile) if n.startswith("ProfilerStep")}
            if "ProfilerStep" in kept or not kept:
                problems.append(f"-W steps=keep: -top shows {sorted(kept)}")
            status = "ok" if not problems else "FAIL"
            print(f"{status} {name}: {len(by_step)} steps, {len(by_tid)} tids, "
                  f"{len(by_thread)} thread names, {len(by_device)} devices")
            for p in problems[:20]:
                print(f"    {p}")
            failures += bool(problems)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
