#!/usr/bin/env python3
"""Inputs near the shape the rocprofv3 JSON reader's fast path takes (rocprof_jfast.c), for
fastpath.sh: the test documents written out in several layouts, with records the fast path
must leave to the lexer (other members, orders, numbers, strings, arrays) and damage it must
leave to the lexer's errors, at the first record of a list, the second (the first one the fast
path sees), in the middle and at the end.

usage: fastpath_gen.py OUTDIR DOC.json[.gz]..."""
import copy
import gzip
import json
import os
import random
import sys

LISTS = ("kernel_symbols", "kernel_dispatch", "hip_api", "hsa_api", "marker_api",
         "rccl_api", "memory_copy")


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def dump(v, style):
    if style == "compact":
        return json.dumps(v, separators=(",", ":"))
    if style == "spaced":
        return json.dumps(v)  # ", " and ": "
    if style == "tabs":
        return json.dumps(v, indent="\t")
    return json.dumps(v, indent=int(style))


def write_doc(d, style_of, edit=None):
    """The document as text: records of the lists above each written by style_of(kind, i, rec)
    (a layout name or a text), the rest compact; edit(kind, i, text) may change a record's
    text last."""
    marks = {}
    d = copy.deepcopy(d)
    for p in d["rocprofiler-sdk-tool"]:
        for holder in (p, p.get("buffer_records", {})):
            for kind in LISTS:
                if kind not in holder:
                    continue
                texts = []
                for i, rec in enumerate(holder[kind]):
                    s = style_of(kind, i, rec)
                    t = s if s.startswith("{") else dump(rec, s)
                    if edit:
                        t = edit(kind, i, t)
                    texts.append(t)
                key = "@@%d@@" % len(marks)
                marks[key] = "[" + ",".join(texts) + "]"
                holder[kind] = key
    text = json.dumps(d, separators=(",", ":"))
    for key, t in marks.items():
        text = text.replace('"%s"' % key, t)
    return text


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rnd = random.Random(7)
    for path in sys.argv[2:]:
        base = os.path.basename(path).split(".")[0]
        d = load(path)
        count = {}
        for p in d["rocprofiler-sdk-tool"]:
            for holder in (p, p.get("buffer_records", {})):
                for kind in LISTS:
                    if holder.get(kind):
                        count[kind] = len(holder[kind])

        def at(places):
            """Record indices of each list: first, second, middle, last."""
            return {k: {i for i in places(n) if 0 <= i < n} for k, n in count.items()}

        def put(name, text, gz=False):
            fn = os.path.join(out, "%s-%s.json" % (base, name))
            if gz:
                with gzip.open(fn + ".gz", "wt") as f:
                    f.write(text)
            else:
                with open(fn, "w") as f:
                    f.write(text)

        for style in ("compact", "spaced", "1", "4", "tabs"):
            put("layout-" + style, write_doc(d, lambda k, i, r, s=style: s))
        put("layout-compact", write_doc(d, lambda k, i, r: "compact"), gz=True)
        styles = ("compact", "spaced", "1", "2")
        put("layout-mixed", write_doc(d, lambda k, i, r: rnd.choice(styles)))

        def member_edit(change, every=7):
            """Records (one in every) changed by change(kind, rec) -> rec."""
            def style(k, i, r):
                if i % every == 1:
                    return dump(change(k, copy.deepcopy(r)), "compact")
                return "compact"
            return style

        def reorder(k, r):
            items = list(r.items())
            rnd.shuffle(items)
            return dict(items)

        def extra(value):
            def f(k, r):
                r["zz_extra"] = value
                return r
            return f

        def numbers(value):
            def f(k, r):
                for key in ("start_timestamp", "kernel_id", "thread_id"):
                    if key in r:
                        r[key] = value
                if "dispatch_info" in r:
                    r["dispatch_info"]["workgroup_size"]["y"] = value
                return r
            return f

        put("reorder", write_doc(d, member_edit(reorder)))
        put("missing", write_doc(d, member_edit(
            lambda k, r: {a: b for a, b in r.items() if a not in ("end_timestamp", "kernel_id")})))
        for name, value in (("object", {"a": {"b": 1}}), ("array", [1, 2]), ("true", True),
                            ("null", None), ("float", 1.5), ("escape", "a\"b\\c"),
                            ("unicode", "\u00e9\u4e2d"), ("brace", "x}y{z"),
                            ("empty", {})):
            put("extra-" + name, write_doc(d, member_edit(extra(value))))
        for name, value in (("neg", -42), ("zero", 0), ("big18", 999999999999999999),
                            ("big19", 1234567890123456789), ("big20", 12345678901234567890),
                            ("int64min", -9223372036854775808),
                            ("huge", 10 ** 30)):
            put("num-" + name, write_doc(d, member_edit(numbers(value))))
        # Numbers as written, not as python writes them.
        for name, text in (("frac", "12.0"), ("exp", "1e3"), ("negzero", "-0"),
                           ("fracexp", "-2.5E+2")):
            put("numtext-" + name, write_doc(
                d, lambda k, i, r: "compact",
                lambda k, i, t, text=text: t.replace('"thread_id":', '"thread_id":%s,"x":' % text, 1)
                if i % 5 == 2 else t))
        # Duplicate keys: the first of each is the one read.
        put("dupkey", write_doc(d, lambda k, i, r: "compact",
                                lambda k, i, t: t.replace("{", '{"start_timestamp":7,"kernel_id":3,', 1)
                                if i % 3 == 1 else t))
        # Kernel names the fast path leaves to the lexer, and braces inside strings.
        def names(k, r):
            if k == "kernel_symbols":
                for key in ("formatted_kernel_name", "demangled_kernel_name"):
                    if key in r:
                        r[key] = r[key] + ["}", "\"q\"", "\u00e9", "\\", "{}"][r.get("kernel_id", 0) % 5]
            return r
        put("names", write_doc(d, member_edit(names, every=2)))

        # Damage: where the lexer must give its own error, with its offset.
        places = at(lambda n: (0, 1, 2, n // 2, n - 1))
        for name, (old, new) in (("colon", ('":', '"')), ("comma", (",", ",,")),
                                 ("trailing", ("}", ",}")), ("zero", (':1', ':01')),
                                 ("minus", (':1', ':-')), ("ctl", ('"', '"\x01')),
                                 ("brace", ("}", "")), ("word", (':1', ':tru'))):
            for kind, idx in places.items():
                for i in sorted(idx):
                    text = write_doc(d, lambda k, j, r: "compact",
                                     lambda k, j, t, kind=kind, i=i, old=old, new=new:
                                     t[:len(t) // 2] + t[len(t) // 2:].replace(old, new, 1)
                                     if k == kind and j == i else t)
                    put("bad-%s-%s-%d" % (name, kind, i), text)
        # Truncated inside records, and between them.
        text = write_doc(d, lambda k, i, r: "compact")
        for frac in (0.31, 0.5, 0.77, 0.93, 0.999):
            put("trunc-%d" % int(frac * 1000), text[:int(len(text) * frac)])


if __name__ == "__main__":
    main()
