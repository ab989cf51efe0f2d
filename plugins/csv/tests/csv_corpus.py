#!/usr/bin/env python3
"""The events table of tconv's csv writer on every trace and profile of the corpus, read back
with Python's csv module: the table is UTF-8, every row has the 12 columns, the args column is
a JSON object, spans have 0 <= self <= dur, each track's rows are in time order, and the rows
of each kind are exactly as many as the events the core's ordering stage delivers (the
text-ordered writer's lines; a span is one row for its BEGIN/END pair).

usage: csv_corpus.py TCONV CORPUS_DIR
Exit 0 when every file checks out, 1 otherwise, 77 when the corpus is missing."""
import csv
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter

csv.field_size_limit(1 << 30)

COLUMNS = ["kind", "pid", "tid", "process", "thread", "ts_ns", "dur_ns", "self_ns", "depth",
           "name", "category", "args"]
# Not traces: the OTF2 archive, Jest snapshots, a pprof profile, a zip, docs.
SKIP_DIRS = ("fastotf2",)
SKIP_EXT = (".snap", ".md", ".cfg", ".prof", ".zip", ".def", ".evt", ".otf2")


def candidates(corpus):
    for root, dirs, files in os.walk(corpus):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for f in sorted(files):
            if f == "SOURCES.md" or f.endswith(SKIP_EXT):
                continue
            yield os.path.join(root, f)


def run(args):
    return subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE).returncode


def check(tconv, path, tmp):
    ordered, table = os.path.join(tmp, "ordered.txt"), os.path.join(tmp, "events.csv")
    rc_text = run([tconv, "-q", "-w", "text-ordered", "-W", "tracks=false", "-o", ordered, path])
    rc_csv = run([tconv, "-q", "-w", "csv", "-o", table, path])
    if rc_text != 0:
        # Not a trace any reader takes: the csv writer must fail the same way.
        return None if rc_csv == rc_text else ["text-ordered exit %d, csv exit %d" %
                                               (rc_text, rc_csv)]
    if rc_csv != 0:
        return ["csv exit %d" % rc_csv]
    want = Counter()
    with open(ordered, "rb") as f:
        for line in f:
            kind = line.split(b" ", 1)[0].decode()
            if kind == "end":
                continue
            want["span" if kind == "begin" else kind] += 1
    errors = []
    got = Counter()
    last = {}
    with open(table, newline="", encoding="utf-8", errors="strict") as f:
        rows = csv.reader(f)
        header = next(rows, None)
        if header != COLUMNS:
            return ["header %r" % header]
        for n, row in enumerate(rows, 2):
            if len(row) != len(COLUMNS):
                errors.append("row %d has %d fields" % (n, len(row)))
                continue
            r = dict(zip(COLUMNS, row))
            got[r["kind"]] += 1
            try:
                if not isinstance(json.loads(r["args"]), dict):
                    errors.append("row %d: args is not an object" % n)
            except ValueError as e:
                errors.append("row %d: args is not JSON: %s" % (n, e))
            if r["kind"] == "span":
                dur, self_ = int(r["dur_ns"]), int(r["self_ns"])
                if not 0 <= self_ <= dur:
                    errors.append("row %d: self %d, dur %d" % (n, self_, dur))
            if r["kind"] != "metadata":
                key, ts = (r["pid"], r["tid"]), int(r["ts_ns"])
                if key in last and last[key][0] == n - 1 and ts < last[key][1]:
                    errors.append("row %d: time goes back on track %r" % (n, key))
                last[key] = (n, ts)
            if len(errors) > 10:
                break
    if got != want:
        errors.append("rows per kind %s, events %s" % (dict(got), dict(want)))
    return errors


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    tconv, corpus = sys.argv[1], sys.argv[2]
    if not os.path.isdir(corpus):
        print("SKIP: no corpus at " + corpus)
        return 77
    checked = skipped = failed = rows = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in candidates(corpus):
            rel = os.path.relpath(path, corpus)
            errors = check(tconv, path, tmp)
            if errors is None:
                skipped += 1
                continue
            checked += 1
            if errors:
                failed += 1
                print("FAIL " + rel)
                for e in errors[:10]:
                    print("   " + e)
    print("%d files checked, %d failed, %d not readable by any reader (csv failed alike)" %
          (checked, failed, skipped))
    return 1 if failed or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
