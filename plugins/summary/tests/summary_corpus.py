#!/usr/bin/env python3
"""The summary writer on every trace and profile of the corpus: it succeeds on every input a
reader takes, its event count equals the events the ordering stage delivers (the text-ordered
writer's lines, a span counted once), Kineto traces get operator tables (span tables when they
have no operators) and sample inputs (perf, folded) stack tables.

usage: summary_corpus.py TCONV CORPUS_DIR KINETO_LIST
Exit 0 when every file checks out, 1 otherwise, 77 when the corpus is missing."""
import os
import re
import subprocess
import sys

SKIP_DIRS = ("fastotf2",)
SKIP_EXT = (".snap", ".md", ".cfg", ".prof", ".zip", ".def", ".evt", ".otf2")


def candidates(corpus):
    for root, dirs, files in os.walk(corpus):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for f in sorted(files):
            if f != "SOURCES.md" and not f.endswith(SKIP_EXT):
                yield os.path.join(root, f)


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    tconv, corpus, listing = sys.argv[1:]
    if not os.path.isdir(corpus):
        print("SKIP: no corpus at " + corpus)
        return 77
    with open(listing) as f:
        kineto = {l.strip() for l in f if l.strip() and not l.startswith("#")}
    checked = failed = 0
    for path in candidates(corpus):
        rel = os.path.relpath(path, corpus)
        t = subprocess.run([tconv, "-q", "-w", "text-ordered", "-W", "tracks=false", "-o", "-",
                            path], capture_output=True)
        s = subprocess.run([tconv, "-q", "-w", "summary", "-o", "-", path], capture_output=True)
        if t.returncode != 0:
            if s.returncode != t.returncode:
                print("FAIL %s: text-ordered exit %d, summary exit %d" % (rel, t.returncode,
                                                                        s.returncode))
                failed += 1
            continue
        checked += 1
        errors = []
        if s.returncode != 0:
            errors.append("exit %d: %s" % (s.returncode, s.stderr.decode(errors="replace")))
        out = s.stdout.decode("utf-8", errors="replace")
        events = sum(1 for l in t.stdout.splitlines() if not l.startswith(b"end "))
        m = re.search(r"^  events   (\d+):", out, re.M)
        if not m or int(m.group(1)) != events:
            errors.append("events line %r, expected %d" % (m.group(0) if m else None, events))
        has_ops = re.search(rb' cat="(cpu_op|operator)"', t.stdout, re.I) is not None
        if rel in kineto and has_ops and "operations by self time (PyTorch operators" not in out:
            errors.append("no PyTorch operator table")
        if rel in kineto and not has_ops and "operations by self time (spans by name" not in out:
            errors.append("no span table")
        if b"\nsample " in b"\n" + t.stdout and "Stack samples:" not in out:
            errors.append("no stack sample tables")
        if errors:
            failed += 1
            print("FAIL " + rel)
            for e in errors:
                print("   " + e)
    print("%d files checked, %d failed" % (checked, failed))
    return 1 if failed or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
