#!/usr/bin/env python3
"""Inputs for the Chrome reader's fast path (chrome_fast.c): events near its shape with one thing
different (member orders, blanks, escapes, repeated members, numbers in every form, other
values), mixed into runs of events it takes; truncated and corrupted copies; large files so that
the reader's 256 KiB chunk boundary falls inside objects. A fixed seed: the same files each run.

usage: fastpath_gen.py OUT_DIR [SEED]
"""
import json
import os
import random
import sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rnd = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 35)

NUMS = ["0", "-0", "1", "9", "12", "99", "1234", "1234567", "12345678", "123456789",
        "123456789012345", "1234567890123456", "12345678901234567890", "1e3", "1E+3", "1e-3",
        "1.5", "1.000", "-5", "-12345", "0.0001", "1e400", "-1e400", "4611686018427387", "4611686018427388",
        "9223372036854775807", "0.5e2", "7E0", "3.", "01", "-", "1e", "1e+", ".5", "+1", "00",
        "1.2.3", "0x10", "1_0", "2e-400", "5e18", "4611686018427387903"]
STRS = ["a", "", "aten::empty", "CPU functions", "stream 7", "stream 7x", "stream ", "x" * 40,
        "y" * 70, "ProfilerStep#3", "a\\\"b", "a\\\\b", "\\u0041b", "a\\nb", "é", "\xff",
        "\\ud800", "tab\there", "ctl\x01", "del\x7f", "a/b", "\\/", "gpu_memcpy", "kernel",
        "cuda_runtime", "python_function", "user_annotation", "gpu_user_annotation",
        "a" * 15, "b" * 16, "c" * 17, "12345678", "\\"]
PHS = ["X", "X", "X", "B", "E", "i", "C", "M", "x", "XX", "", "b", "e", "s", "f", "P", "I"]
SEPS_KV = [": ", ":", " : ", ":  ", ":\n", ":\t", " :", ":\v", ":\f"]
SEPS_M = [", ", ",", " , ", ",\n", "\n,", ",  ", ",\r\n", ", \t"]
NAMES = ["name", "ph", "ts", "dur", "tid", "pid", "cat", "args"]
ODD_KEYS = ["names", "nam", "na", "n", "phase", "p", "tss", "t", "durr", "du", "tidd", "pidx",
            "pi", "cats", "ca", "argsx", "arg", "id", "bind_id", "flow_in", "flow_out", "s",
            "n\\u0061me", "", "\\u0070h", "Name", "dur ", " ts"]


def num():
    return rnd.choice(NUMS)


def dense(ts, tid=1, name="aten::empty", dur=0):
    return ('{"name": "%s", "ph": "X", "ts": %d, "dur": %d, "tid": %d, "pid": "CPU functions", '
            '"args": {}}' % (name, ts, dur, tid))


def odd_value(key):
    r = rnd.random()
    if key in ("ts", "dur") and r < 0.6:
        return num()
    if key in ("tid", "pid") and r < 0.4:
        return num()
    if key == "ph" and r < 0.7:
        return '"%s"' % rnd.choice(PHS)
    if key == "args":
        return rnd.choice(["{}", "{ }", "{\n}", '{"a": 1}', "[]", "null", "{}", '{"x": {}}', "{}  "])
    if r < 0.8:
        return '"%s"' % rnd.choice(STRS)
    return rnd.choice(["null", "true", "false", "[]", "{}", "[1, 2]", '{"a": "b"}', num()])


def odd_event(ts):
    """An event near the fast path's shape with a few things changed."""
    members = [["name", '"%s"' % rnd.choice(STRS[:10])], ["ph", '"X"'], ["ts", str(ts)],
               ["dur", str(rnd.randint(0, 3))], ["tid", str(rnd.randint(1, 2))],
               ["pid", '"CPU functions"'], ["args", "{}"]]
    if rnd.random() < 0.3:
        members.insert(rnd.randint(0, len(members)), ["cat", '"%s"' % rnd.choice(STRS)])
    for _ in range(rnd.choice([1, 1, 1, 2, 3])):
        what = rnd.randrange(8)
        if what == 0:
            rnd.shuffle(members)
        elif what == 1 and members:
            del members[rnd.randrange(len(members))]
        elif what == 2:  # duplicate a key with another value
            k = rnd.choice(NAMES)
            members.insert(rnd.randint(0, len(members)), [k, odd_value(k)])
        elif what == 3:  # another value
            if members:
                m = rnd.choice(members)
                m[1] = odd_value(m[0])
        elif what == 4:  # unknown key
            members.insert(rnd.randint(0, len(members)), [rnd.choice(ODD_KEYS), odd_value("x")])
        elif what == 5:
            members.append(["args", rnd.choice(['{"a": 1}', "{}", '{"Input Dims": [[1]]}'])])
        elif what == 6:  # empty object or near it
            if rnd.random() < 0.3:
                return rnd.choice(["{}", "{ }", "[]", "1", '"x"', "null", "{\"ph\"}"])
        else:
            pass
    kv = [rnd.choice(SEPS_KV) if rnd.random() < 0.3 else ": " for _ in members]
    ms = [rnd.choice(SEPS_M) if rnd.random() < 0.3 else ", " for _ in members]
    body = ""
    for i, (k, v) in enumerate(members):
        if i:
            body += ms[i]
        body += '"%s"%s%s' % (k, kv[i], v)
    lead = rnd.choice(["", "", "", " ", "\n", "  "])
    tail = rnd.choice(["", "", "", " ", "\n"])
    return "{" + lead + body + tail + "}"


def valid_json(text):
    try:
        json.loads(text)
        return True
    except ValueError:
        return False


def events(n, odd_rate, valid=False):
    """n events, odd_rate of them odd; valid: only odd events that are valid JSON (warnings but
    no error), so that a large file reaches its chunk boundaries."""
    evs = []
    ts = rnd.randrange(1000, 100000)
    for _ in range(n):
        ts += rnd.randint(0, 5)
        if rnd.random() < odd_rate:
            e = odd_event(ts)
            while valid and not valid_json(e):
                e = odd_event(ts)
            evs.append(e)
        else:
            evs.append(dense(ts, rnd.randint(1, 2), rnd.choice(["aten::empty", "aten::view",
                                                                 "aten::mm", "x"]),
                             rnd.choice([0, 0, 1, 2, 30])))
    return evs


def join(evs):
    out = ""
    for i, e in enumerate(evs):
        if i:
            out += rnd.choice([", ", ", ", ", ", ",", ",\n", " ,", ",\n  "])
        out += e
    return out


def doc(evs, form):
    body = join(evs)
    if form == 0:
        return "[" + body + "]"
    if form == 1:
        return '{"traceEvents": [' + body + '], "displayTimeUnit": "ns"}'
    if form == 2:
        return '{"displayTimeUnit": "ms", "traceEvents": [\n' + body + '\n]}\n'
    return "[" + body  # unclosed array: accepted between two events


def write(name, text):
    with open(os.path.join(out, name), "wb") as f:
        f.write(text.encode("latin-1") if isinstance(text, str) else text)


for i in range(120):
    evs = events(rnd.randint(2, 60), rnd.choice([0.02, 0.1, 0.3, 0.6]))
    text = doc(evs, rnd.randrange(4))
    write("mix-%03d.json" % i, text)
    # truncated
    cut = rnd.randrange(1, len(text))
    write("cut-%03d.json" % i, text[:cut])
    # one byte corrupted or dropped or inserted
    pos = rnd.randrange(len(text))
    c = rnd.choice(list('{}[],:" \\0a-.eE\x00\x01\xff') + [""])
    op = rnd.randrange(3)
    if op == 0:
        t2 = text[:pos] + c + text[pos + 1:]
    elif op == 1:
        t2 = text[:pos] + text[pos + 1:]
    else:
        t2 = text[:pos] + c + text[pos:]
    write("bad-%03d.json" % i, t2)

# Large: the 256 KiB chunk boundary inside objects, at offsets of every kind.
for i in range(8):
    evs = events(2800, rnd.choice([0.0, 0.01, 0.05, 0.2]), valid=True)
    text = doc(evs, 0)
    pad = rnd.randrange(0, 300)
    text = " " * pad + text
    write("big-%02d.json" % i, text)
    if i % 3 == 0:
        cut = 262144 + rnd.randrange(-200, 200)
        write("bigcut-%02d.json" % i, text[:cut])
    if i % 3 == 1:
        pos = 262144 + rnd.randrange(-150, 150)
        write("bigbad-%02d.json" % i, text[:pos] + rnd.choice(['"', "}", "{", "x", ","]) + text[pos + 1:])
