#!/usr/bin/env python3
"""Inputs for tests/cli/test_split.sh: Chrome traces whose event array, read in parts at any
cut, must give what a read of the whole gives. Every kind of event and every state the reader
keeps from one event to the next is in them, spread over the whole array: tracks that get their
kind at their first event (GPU streams, process and global tracks), async tracks named after
their first event, [memory] instants summed per device, samples whose stackFrames come after the
events, metadata in the middle, bad events of every kind. Strings hold escaped quotes, runs of
backslashes, '}, {' and ',', \\u escapes, surrogate pairs and bytes that are not UTF-8; args nest
objects and arrays; numbers have fractions and exponents; blanks between elements vary. Before
the array, top-level arrays and objects whose ',' sit at the event array's depth; after it, the
members a trace gives there (displayTimeUnit, traceName, stackFrames, ...).

usage: split-gen.py DIR    writes DIR/kineto.json, DIR/legacy.json, DIR/<host>.trace.json and
                           DIR/err-*.json (one damage each, at places spread over the array)
"""
import os
import random
import sys

NAMES = ['aten::mm', 'a\\"quoted\\"', 'back\\\\slash\\\\\\\\', 'brace}, {\\"ph\\": \\"X\\"',
         'comma, and [bracket]', 'caf\\u00e9', 'smile \\ud83d\\ude00', 'tab\\tnew\\nline',
         'slash\\/ok', 'x' * 90]


def args(rnd):
    k = rnd.randrange(6)
    if k == 0:
        return '{}'
    if k == 1:
        return '{"a": [1, {"b": "}, {\\""}], "c": -1.5e3, "d": null, "e": true, "f": false}'
    if k == 2:
        return '{"External id": %d, "Sequence number": %d, "s": "%s"}' % (
            rnd.randrange(10 ** 6), rnd.randrange(100), rnd.choice(NAMES))
    if k == 3:
        return '{"deep": {"x": [[[], {}], [1e-3, -0.0, 12345678901234567890]]}}'
    if k == 4:
        return '{"u": "\\u0041\\u00df\\u6c34", "n": 2.5E+2}'
    return '{"grid": [1, 1, 1], "stream": 7}'


def events(rnd, n, legacy):
    out = []
    ts = 1000
    for i in range(n):
        ts += rnd.randrange(0, 7)
        pick = rnd.randrange(100)
        tid = rnd.choice([1, 2, 3])
        name = rnd.choice(NAMES)
        tsx = rnd.choice(['%d' % ts, '%d.%03d' % (ts, rnd.randrange(1000)), '%de0' % ts])
        if legacy or pick < 40:
            out.append('{"name": "%s", "ph": "X", "ts": %s, "dur": %d, "tid": %d, "pid": %s, '
                       '"cat": "cpu_op", "args": %s}' % (
                           name, tsx, rnd.choice([0, 0, 1, 3, 12]), tid,
                           '"CPU functions"' if legacy else '1', args(rnd)))
        elif pick < 50:
            out.append('{"ph": "X", "cat": "kernel", "name": "k%d", "pid": 0, "tid": "stream %d",'
                       ' "ts": %d, "dur": %d, "args": {"correlation": %d}}' % (
                           i % 5, rnd.choice([7, 8]), ts, rnd.randrange(1, 9), i))
        elif pick < 55:
            out.append('{"ph": "B", "name": "%s", "pid": 1, "tid": %d, "ts": %d}' % (name, tid, ts))
            out.append('{"ph": "E", "pid": 1, "tid": %d, "ts": %d}' % (tid, ts + 2))
        elif pick < 60:
            out.append('{"ph": "i", "name": "mark", "s": "%s", "pid": 1, "tid": %d, "ts": %d}' % (
                rnd.choice('gpt'), tid, ts))
        elif pick < 64:
            out.append('{"ph": "C", "name": "ctr", "pid": %d, "ts": %d, "args": {"v": %s, '
                       '"w": "%s"}}' % (rnd.choice([1, 2]), ts, rnd.choice(['1', '2.5', '"7"']),
                                        rnd.choice(['3', 'x'])))
        elif pick < 70:
            out.append('{"ph": "%s", "cat": "async", "name": "req%d", "id": %d, "pid": 1, '
                       '"ts": %d}' % (rnd.choice('ben'), i % 3, rnd.choice([1, 2, 3]), ts))
        elif pick < 74:
            fid = rnd.randrange(50)
            out.append('{"ph": "s", "cat": "ac2g", "name": "flow", "id": %d, "pid": 1, "tid": %d,'
                       ' "ts": %d}' % (fid, tid, ts))
            out.append('{"ph": "f", "bp": "e", "cat": "ac2g", "name": "flow", "id": %d, '
                       '"pid": 0, "tid": "stream 7", "ts": %d}' % (fid, ts + 1))
        elif pick < 77:
            out.append('{"ph": "M", "name": "%s", "pid": %d, "tid": %d, "args": {"name": "%s"}}' % (
                rnd.choice(['thread_name', 'process_name', 'thread_sort_index']),
                rnd.choice([0, 1]), tid, rnd.choice(NAMES)))
        elif pick < 81:
            if rnd.randrange(2):
                out.append('{"ph": "P", "name": "s", "pid": 1, "tid": %d, "ts": %d, "sf": %d}' % (
                    tid, ts, rnd.choice([1, 2, 3, 9])))
            else:
                out.append('{"ph": "P", "name": "s", "pid": 1, "tid": %d, "ts": %d, '
                           '"stack": ["main", "%s"]}' % (tid, ts, name))
        elif pick < 86:
            total = ', "Total Allocated": %d' % (1000 * i) if rnd.randrange(2) else ''
            out.append('{"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": %d, "ts": %d,'
                       ' "args": {"Device Type": %d, "Device Id": 0, "Bytes": %d%s}}' % (
                           tid, ts, rnd.choice([0, 1]), rnd.randrange(-500, 1000), total))
        elif pick < 92:
            bad = rnd.randrange(8)
            out.append([
                '{"name": "noph", "ts": 1}', '{"ph": "X", "name": "badts", "ts": "abc", "pid": 1}',
                '{"ph": "X", "name": "negdur", "ts": 5, "dur": -3, "pid": 1, "tid": 1}',
                '{"ph": "XX", "ts": 1}', '{"ph": "N", "ts": 1, "id": 3}', '17', '"a string"',
                '[1, 2, {"ph": "X"}]'][bad])
        elif pick < 94:
            out.append('{}')
        else:
            out.append('{"ph": "X", "name": "bad\xff\xfeutf8", "pid": 1, "tid": %d, "ts": %d, '
                       '"dur": 1}' % (tid, ts))
    return out


def join(rnd, evs):
    seps = [', ', ',', ',\n', ' ,\t', ',\r\n  ', ' , ']
    return ''.join(e + (rnd.choice(seps) if i + 1 < len(evs) else '') for i, e in enumerate(evs))


def separators(raw, a):
    """The offsets of the ',' between the elements of the array that starts at raw[a]."""
    out, depth, i, instr = [], 1, a, False
    while depth:
        c = raw[i]
        if instr:
            if c == 0x5c:
                i += 1
            elif c == 0x22:
                instr = False
        elif c == 0x22:
            instr = True
        elif c in b'[{':
            depth += 1
        elif c in b']}':
            depth -= 1
        elif c == 0x2c and depth == 1:
            out.append(i)
        i += 1
    return out


def write(path, text):
    with open(path, 'wb') as f:
        f.write(text.encode('utf-8', 'surrogateescape') if isinstance(text, str) else text)


def main(d):
    rnd = random.Random(36)
    body = join(rnd, events(rnd, 2500, False))
    head = ('{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "gpu, 0"}, '
            '{"id": 1, "name": "gpu \\"1\\""}], "distributedInfo": {"rank": 0, "w": [1, 2]}, '
            '"traceEvents": [\n')
    tail = ('\n], "traceName": "t, [x]", "displayTimeUnit": "ns", "baseTimeNanoseconds": 17, '
            '"stackFrames": {"1": {"name": "main", "category": "c"}, "2": {"name": "f", '
            '"parent": "1"}, "3": {"name": "g\\"q", "parent": "2"}}, '
            '"otherData": {"k": [1, {"v": ","}]}}\n')
    kineto = head + body + tail
    write(os.path.join(d, 'kineto.json'), kineto.encode('latin-1'))
    legacy = '[' + join(rnd, events(rnd, 3000, True)) + ']'
    write(os.path.join(d, 'legacy.json'), legacy.encode('latin-1'))
    # TensorFlow's name: every process track gets the host's metadata at its first event.
    tf = '{"traceEvents": [' + join(rnd, events(rnd, 800, False)) + ']}'
    write(os.path.join(d, 'worker1.trace.json'), tf.encode('latin-1'))

    # One damage each, at fractions of the event array, each at an element's start or inside
    # one: a stray byte, a cut, an unescaped quote, a ',' before ']', a missing ','.
    raw = kineto.encode('latin-1')
    a = raw.index(b'"traceEvents": [') + 16
    seps = separators(raw, a)
    for k, frac in enumerate([0.02, 0.3, 0.55, 0.8, 0.99]):
        c = seps[int(frac * (len(seps) - 1))]  # a ',' between two events
        s = c + 1
        while raw[s:s + 1] in b' \t\r\n':
            s += 1
        write(os.path.join(d, 'err-byte-%d.json' % k), raw[:s] + b'#' + raw[s:])
        write(os.path.join(d, 'err-cut-%d.json' % k), raw[:s + 9])
        write(os.path.join(d, 'err-quote-%d.json' % k), raw[:s + 9] + b'"' + raw[s + 9:])
        write(os.path.join(d, 'err-nocomma-%d.json' % k), raw[:c] + b' ' + raw[c + 1:])
        # cut right after a ',' between two events: read up to there, with a warning
        write(os.path.join(d, 'cut-between-%d.json' % k), raw[:c + 1])
    z = raw.rindex(b'\n]')
    write(os.path.join(d, 'err-trailing-comma.json'), raw[:z] + b',' + raw[z:])


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
