#!/usr/bin/env python3
"""Names, categories, thread names and args with commas, quotes, newlines, CRLF, tabs, control
characters, backslashes, NUL and non-ASCII text survive the events table: read back with
Python's csv module, every field equals the input (NUL read as U+FFFD) and the args column
equals the event's args as JSON. Bytes that are not UTF-8 come out as U+FFFD, one per byte
that starts no sequence, so the table always decodes as UTF-8.

usage: csv_names.py TCONV TEST_PLUGIN_DIR DATA_DIR"""
import csv
import io
import json
import os
import subprocess
import sys

FFFD = "\ufffd"


def table(tconv, path, env=None):
    out = subprocess.run([tconv, "-q", "-w", "csv", "-o", "-", path], check=True,
                         capture_output=True, env=env).stdout
    text = out.decode("utf-8", errors="strict")
    return list(csv.DictReader(io.StringIO(text, newline="")))


def check_json(tconv, data):
    with open(os.path.join(data, "names.json"), encoding="utf-8") as f:
        events = json.load(f)["traceEvents"]
    rows = table(tconv, os.path.join(data, "names.json"))
    errors = []
    fix = lambda s: s.replace("\0", FFFD)
    spans = {r["name"]: r for r in rows if r["kind"] == "span"}
    meta = {e["name"]: e["args"]["name"] for e in events if e["ph"] == "M"}
    for e in events:
        if e["ph"] != "X":
            continue
        r = spans.get(fix(e["name"]))
        if r is None:
            errors.append("span %r missing" % e["name"])
            continue
        if r["category"] != fix(e.get("cat", "")):
            errors.append("span %r: category %r" % (e["name"], r["category"]))
        if json.loads(r["args"]) != e.get("args", {}):
            errors.append("span %r: args %r, expected %r" % (e["name"], r["args"], e.get("args")))
        if r["process"] != meta["process_name"] or r["thread"] != meta["thread_name"]:
            errors.append("span %r: process %r thread %r" % (e["name"], r["process"], r["thread"]))
    inst = [r for r in rows if r["kind"] == "instant"]
    if len(inst) != 1 or inst[0]["name"] != "instant, with comma" or \
            json.loads(inst[0]["args"]) != {"quote": '"'}:
        errors.append("instant row %r" % inst)
    cnt = [r for r in rows if r["kind"] == "counter"]
    if len(cnt) != 1 or cnt[0]["name"] != 'counter "c"' or \
            json.loads(cnt[0]["args"]) != {"series": "series,1", "value": 5}:
        errors.append("counter row %r" % cnt)
    n_x = sum(1 for e in events if e["ph"] == "X")
    if len(spans) != n_x:
        errors.append("%d span rows, %d X events" % (len(spans), n_x))
    return errors


def check_bytes(tconv, plugins, data):
    env = dict(os.environ, TCONV_PLUGIN_PATH=plugins)
    rows = table(tconv, os.path.join(data, "badutf8.tevt"), env)
    got = [(r["kind"], r["name"], r["category"], r["args"]) for r in rows]
    want = [
        ("span", "bad" + FFFD + "byte,comma", 'q"cat', "{}"),
        # A sequence cut short: each of its bytes starts none.
        ("span", "cut" + FFFD + FFFD, "cat", "{}"),
        # An overlong form is not UTF-8 either.
        ("span", "over" + FFFD + FFFD + "long", "", "{}"),
        # Nor an encoded surrogate; the A line gives the instant an arg.
        ("instant", "instant" + FFFD * 3 + "surrogate", "", '{"key":"val' + FFFD + ',ue"}'),
    ]
    return [] if got == want else ["rows %r,\n expected %r" % (got, want)]


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    tconv, plugins, data = sys.argv[1:]
    errors = check_json(tconv, data) + check_bytes(tconv, plugins, data)
    for e in errors:
        print("FAIL " + e)
    print("%d problems" % len(errors))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
