"""The fewest bytes any Perfetto TrackEvent trace can take for the events of a Chrome trace, next
to the JSON's size (on demand; not a CI test).

usage: python3 tests/bench/perfetto-size-floor.py TRACE.json[.gz] [WRITTEN.pftrace] ...
  each TRACE may be followed by the .pftrace tconv wrote of it, whose size is shown beside

The floor keeps every event and arg (a faithful conversion) in the shape docs/perfetto.md
describes: a span is a SLICE_BEGIN and a SLICE_END packet, an arg a debug annotation. It counts
only what protobuf cannot leave out and takes the cheapest case everywhere, so a real trace
is larger:
  - a packet: its key and length, the sequence id, a time and the track event's key and length,
    one byte each value (8 bytes); a BEGIN adds its type, name and category ids (6), an END its
    type (2), any other event a name or type (2);
  - an annotation: its key and length, the name's id and a value (2 + 2 + value); a scalar value
    is a key and a byte (a bool), a string the cheaper of its bytes with a key and length and
    an interned id of one byte (whose field takes a key of two), an integer a key and its
    varint, a double the cheaper of its 8 bytes and its shortest text; a list or object the
    cheaper of its items as annotations and its compact JSON text;
  - each distinct event name, category, annotation name and string value once, as its bytes and
    two more.
Two relaxations the writer does not take are shown too: a complete span as one legacy `X`
event (its duration in whole microseconds; the name and category ids plus the legacy event's key,
length, phase and duration: 18 bytes instead of 24), and no sequence id at all (2 bytes a
packet less; Perfetto refuses a clock snapshot of a sequence's own clock without it, and
the writer's incremental times are on such a clock)."""
import gzip
import json
import math
import os
import sys


def load(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    doc = json.loads(raw)
    return len(raw), doc["traceEvents"] if isinstance(doc, dict) else doc


def varint_len(v):
    v = v if v >= 0 else v + (1 << 64)
    n = 1
    while v >= 0x80:
        v >>= 7
        n += 1
    return n


class Floor:
    def __init__(self):
        self.strings = set()

    def value(self, v):
        if isinstance(v, bool) or v is None:
            return 2
        if isinstance(v, str):
            self.strings.add(v)
            return min(2 + len(v.encode("utf-8", "surrogatepass")), 3)
        if isinstance(v, int):
            return 1 + varint_len(v)
        if isinstance(v, float):
            text = repr(v) if math.isfinite(v) else "0"
            return min(9, 2 + len(text))
        text = 2 + len(json.dumps(v, separators=(",", ":")))
        if isinstance(v, dict):
            items = sum(2 + 2 + self.value(x) for x in v.values())
            for k in v:
                self.strings.add(k)
        else:
            items = sum(2 + self.value(x) for x in v)
        return min(items, text)

    def strings_bytes(self):
        return sum(len(s.encode("utf-8", "surrogatepass")) + 2 for s in self.strings)


def floor_of(events):
    fl = Floor()
    packets = spans_us = npackets = 0
    for e in events:
        if not isinstance(e, dict):
            continue
        ph = e.get("ph")
        for key in ("name", "cat"):
            if isinstance(e.get(key), str):
                fl.strings.add(e[key])
        if ph == "X":
            packets += 8 + 6 + 8 + 2
            npackets += 2
            dur = e.get("dur", 0)
            if isinstance(dur, (int, float)) and float(dur).is_integer():
                spans_us += 1
        elif ph == "B":
            packets += 8 + 6
            npackets += 1
        else:
            packets += 8 + 2
            npackets += 1
        args = e.get("args")
        if isinstance(args, dict):
            for k, v in args.items():
                fl.strings.add(k)
                packets += 2 + 2 + fl.value(v)
    total = packets + fl.strings_bytes()
    x = total - 6 * spans_us
    return total, x, x - 2 * (npackets - spans_us)


def main(argv):
    print("%-46s %11s %9s %9s %9s %9s" % ("trace", "JSON bytes", "floor", "with X", "+no seq",
                                          "written"))
    i = 0
    while i < len(argv):
        path = argv[i]
        written = ""
        if i + 1 < len(argv) and not argv[i + 1].endswith((".json", ".json.gz")):
            size = os.path.getsize(argv[i + 1])
            i += 1
        else:
            size = None
        i += 1
        raw, events = load(path)
        floors = floor_of(events)
        if size is not None:
            written = "%.1f %%" % (100.0 * size / raw)
        print("%-46s %11d %8.1f%% %8.1f%% %8.1f%% %9s" % (
            os.path.basename(path)[:46], raw, *(100.0 * f / raw for f in floors), written))


if __name__ == "__main__":
    main(sys.argv[1:])
