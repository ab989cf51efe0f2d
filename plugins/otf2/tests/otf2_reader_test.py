#!/usr/bin/env python3
"""Tests of the otf2 reader against independent consumers.

  roundtrip TCONV TMP TRACE...   each Chrome trace, written as OTF2 by tconv and read back with
      -r otf2, gives the same spans, counters and flows as the trace itself (text-ordered dumps,
      compared per track after normalising track ids and flow ids), and the same instants
      (markers: time, name, category and scope; their track is the location's, not the tid's).
      What the OTF2 mapping does not carry is left out of both sides: metadata, flow names, lone
      flow events (no message); a flow step comes back as a receive and a send at one time.
  selftime TCONV TMP ARCHIVE|TRACE...  otf2 -> pprof: each region's self time in the profile
      (go tool pprof -raw, summed per leaf function) equals its exclusive time computed here
      from the archive with the OTF2 Python bindings (Debian python3-otf2). A .json(.gz)
      argument is first written as OTF2 by tconv.
Exit 77 when an input (the corpus) or a tool (go, the bindings) is absent."""
import collections
import os
import re
import shutil
import subprocess
import sys

SKIP = 77


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {r.returncode}: {r.stderr.strip()}")
    return r.stdout


def to_otf2(tconv, trace, out):
    shutil.rmtree(out, ignore_errors=True)
    run([tconv, "-q", "-w", "otf2", "-o", out, trace])
    return os.path.join(out, "traces.otf2")


LINE = re.compile(r"^(\S+)\s+(-?\d+)(?: dur=\S+)? T(\d+)(.*)$")
FIELD = re.compile(r' (\w+)=("(?:[^"\\]|\\.)*"|\S+)')


def parse(dump):
    """Events of a text dump: (kind, ts, track, fields)."""
    out = []
    for line in dump.splitlines():
        m = LINE.match(line)
        if not m or m.group(1) in ("metadata", "track", "instant"):
            continue
        out.append((m.group(1), int(m.group(2)), int(m.group(3)), dict(FIELD.findall(m.group(4)))))
    return out


INSTANT = re.compile(r"^instant\s+(-?\d+) T\d+(.*)$")


def instants(dump):
    """The instants of a text dump, without their track: (time, name, category, flags)."""
    out = []
    for line in dump.splitlines():
        m = INSTANT.match(line)
        if m:
            f = dict(FIELD.findall(m.group(2)))
            out.append((int(m.group(1)), f.get("name"), f.get("cat"), f.get("flags")))
    return sorted(out, key=repr)


def normalise(events, back):
    """Per-track blocks of comparable lines, as a sorted list."""
    flows = [e for e in events if e[0].startswith("flow")]
    ids = collections.Counter(e[3]["id"] for e in flows)
    parent = {}

    def find(x):
        while parent.get(x, x) != x:
            x = parent[x]
        return x

    if back:
        # A receive and a send at one time on one track is how a step travels: join the chains.
        by_place = collections.defaultdict(list)
        for e in flows:
            by_place[(e[1], e[2])].append(e)
        merged = set()
        for place, evs in by_place.items():
            ends = [e for e in evs if e[0] == "flow-end"]
            starts = [e for e in evs if e[0] == "flow-start"]
            if len(ends) == 1 and len(starts) == 1:
                parent[find(starts[0][3]["id"])] = find(ends[0][3]["id"])
                merged.add(id(ends[0]))
                merged.add(id(starts[0]))
                ends[0][3]["step"] = starts[0][3]["step"] = "1"
    chain = collections.defaultdict(list)
    for e in flows:
        if back or ids[e[3]["id"]] > 1:
            kind = "flow-step" if e[3].get("step") else e[0]
            if kind == "flow-step" and e[0] == "flow-start":
                continue
            chain[find(e[3]["id"])].append((kind, e[1], e[2]))
    sig = {k: tuple(sorted(v)) for k, v in chain.items()}
    blocks = collections.defaultdict(list)
    for kind, ts, track, f in events:
        if kind.startswith("flow"):
            if not back and ids[f["id"]] < 2:
                continue  # a lone flow event: no message in OTF2
            if f.get("step") and kind == "flow-start":
                continue
            kind = "flow-step" if f.get("step") else kind
            blocks[track].append((kind, ts, sig[find(f["id"])].__repr__()))
        elif kind in ("begin", "end"):
            blocks[track].append((kind, ts, f.get("name", ""), f.get("cat", "")))
        elif kind == "counter":
            blocks[track].append((kind, ts, f.get("name"), f.get("key"), f.get("value")))
        else:
            blocks[track].append((kind, ts) + tuple(sorted(f.items())))
    # Chains name tracks by number: replace them with the track's own content signature.
    return sorted(blocks.values(), key=repr)


def strip_tracks(blocks):
    """Track numbers differ between the sides: flow signatures keep only kinds and times."""
    out = []
    for b in blocks:
        nb = []
        for line in b:
            if line[0].startswith("flow"):
                sig = eval(line[2])  # our own repr of a tuple of tuples
                nb.append((line[0], line[1], tuple((k, t) for k, t, _ in sig)))
            else:
                nb.append(line)
        out.append(nb)
    return sorted(out, key=repr)


def roundtrip(tconv, tmp, traces):
    for trace in traces:
        if not os.path.exists(trace):
            print(f"{trace} absent: skipping", file=sys.stderr)
            return SKIP
        a = os.path.join(tmp, "rt")
        to_otf2(tconv, trace, a)
        dump_orig = run([tconv, "-q", "-w", "text-ordered", trace])
        dump_back = run([tconv, "-q", "-r", "otf2", "-w", "text-ordered", a])
        if instants(dump_orig) != instants(dump_back):
            sys.exit(f"FAIL: {trace}: instants {instants(dump_orig)[:3]}... came back as "
                     f"{instants(dump_back)[:3]}... ({len(instants(dump_orig))} vs "
                     f"{len(instants(dump_back))})")
        orig, back = parse(dump_orig), parse(dump_back)
        no, nb = strip_tracks(normalise(orig, False)), strip_tracks(normalise(back, True))
        if no != nb:
            for i, (x, y) in enumerate(zip(no, nb)):
                if x != y:
                    for j, (p, q) in enumerate(zip(x, y)):
                        if p != q:
                            print(f"track block {i}, line {j}: {p} != {q}", file=sys.stderr)
                            break
                    else:
                        print(f"track block {i}: {len(x)} vs {len(y)} lines", file=sys.stderr)
                    break
            sys.exit(f"FAIL: {trace}: the OTF2 round trip changed the events "
                     f"({sum(map(len, no))} vs {sum(map(len, nb))} in {len(no)} vs {len(nb)} tracks)")
        kinds = collections.Counter(line[0] for b in no for line in b)
        kinds["instant"] = len(instants(dump_orig))
        print(f"ok roundtrip {os.path.basename(trace)}: {dict(sorted(kinds.items()))}")
    return 0


def exclusive(anchor):
    """Exclusive ns per region name, computed with the OTF2 Python bindings."""
    import otf2
    from otf2.events import Enter, Leave

    self_ns = collections.Counter()
    with otf2.reader.open(anchor) as t:
        res = t.definitions.clock_properties.timer_resolution
        stacks = collections.defaultdict(list)
        for loc, ev in t.events:
            ns = ev.time * 10**9 // res
            st = stacks[loc]
            if isinstance(ev, Enter):
                st.append([ev.region.name, ns, 0])
            elif isinstance(ev, Leave):
                name, start, children = st.pop()
                self_ns[name] += ns - start - children
                if st:
                    st[-1][2] += ns - start
    return self_ns


def pprof_flat(profile):
    raw = run(["go", "tool", "pprof", "-raw", profile], env=dict(os.environ, GOFLAGS="-mod=mod"))
    locs, flat, samples = {}, collections.Counter(), []
    section = None
    for line in raw.splitlines():
        if line in ("Samples:", "Locations", "Mappings"):
            section = line
            continue
        if section == "Samples:":
            m = re.match(r"^\s+(\d+)\s+(\d+): (\d+)", line)
            if m:
                samples.append((int(m.group(3)), int(m.group(2))))
        elif section == "Locations":
            m = re.match(r"^\s+(\d+): 0x0 (.*) ([^ ]*):0 s=0\(\)$", line)
            if m:
                locs[int(m.group(1))] = m.group(2)
    for leaf, value in samples:
        flat[locs[leaf]] += value
    return flat


def selftime(tconv, tmp, inputs):
    try:
        import otf2  # noqa: F401
    except ImportError:
        print("the OTF2 Python bindings (python3-otf2) are not installed: skipping", file=sys.stderr)
        return SKIP
    if not shutil.which("go"):
        print("go is not installed: skipping", file=sys.stderr)
        return SKIP
    for src in inputs:
        if not os.path.exists(src):
            print(f"{src} absent: skipping", file=sys.stderr)
            return SKIP
        anchor = src
        if re.search(r"\.json(\.gz)?$", src):
            anchor = to_otf2(tconv, src, os.path.join(tmp, "st"))
        prof = os.path.join(tmp, "st.pb.gz")
        # a region per step, as OTF2 holds them (pprof merges steps by default)
        run([tconv, "-q", "-r", "otf2", "-w", "pprof", "-W", "steps=keep", "-o", prof, anchor])
        want = {k: v for k, v in exclusive(anchor).items() if v}
        got = {k: v for k, v in pprof_flat(prof).items() if v}
        if want != got:
            for k in sorted(set(want) | set(got)):
                if want.get(k) != got.get(k):
                    print(f"  {k}: OTF2 exclusive {want.get(k)} ns, pprof flat {got.get(k)} ns",
                          file=sys.stderr)
            sys.exit(f"FAIL: {src}: pprof self time differs from the exclusive time")
        print(f"ok selftime {os.path.basename(os.path.dirname(anchor))}: {len(want)} regions, "
              f"{sum(want.values())} ns")
    return 0


def convert(tconv, tmp, archives):
    """The corpus Score-P archive, by folder without -r and by anchor, to pprof, folded, csv."""
    for a in archives:
        if not os.path.exists(a):
            print(f"{a} absent: skipping", file=sys.stderr)
            return SKIP
        for fmt, out in (("pprof", "p.pb.gz"), ("folded", "f.folded"), ("csv", "c.csv")):
            o = os.path.join(tmp, out)
            run([tconv, "-q", "-w", fmt, "-o", o, a])
            if os.path.getsize(o) == 0:
                sys.exit(f"FAIL: {a} -> {fmt}: empty output")
        folded = open(os.path.join(tmp, "f.folded")).read()
        if "main;" not in folded or "heavy_kernel" not in folded:
            sys.exit(f"FAIL: {a} -> folded lacks main's stacks or the kernel")
        print(f"ok convert {a}: pprof, folded ({len(folded.splitlines())} stacks), csv")
    return 0


def hostile(tconv, tmp, traces):
    """Damaged archives: a positioned error or a counted repair, never a crash."""
    a = os.path.join(tmp, "h")
    anchor = to_otf2(tconv, traces[0], a)

    def expect(what, args, code, pattern, env=None):
        r = subprocess.run([tconv] + args, capture_output=True, text=True,
                           env=dict(os.environ, **(env or {})))
        if r.returncode != code or not re.search(pattern, r.stderr):
            sys.exit(f"FAIL: {what}: exit {r.returncode} (want {code}), stderr: {r.stderr.strip()}")
        print(f"ok hostile {what}: {r.stderr.strip().splitlines()[0]}")

    evt = os.path.join(a, "traces", "0.evt")
    data = open(evt, "rb").read()
    for cut in (len(data) // 2, len(data) - 3, 40):
        open(evt, "wb").write(data[:cut])
        expect(f"truncated .evt ({cut} of {len(data)} bytes)", ["-r", "otf2", "-w", "text", a],
               1, r"0\.evt: event \d+ of location 0 cannot be read|0\.evt.*failed")
    open(evt, "wb").write(data)
    os.rename(os.path.join(a, "traces", "0.def"), os.path.join(tmp, "0.def"))
    expect("missing local .def", ["-w", "text", anchor], 0, r"otf2\.no-local-defs")
    os.rename(os.path.join(tmp, "0.def"), os.path.join(a, "traces", "0.def"))
    os.rename(os.path.join(a, "traces.def"), os.path.join(tmp, "traces.def"))
    expect("missing traces.def", ["-w", "text", anchor], 1, r"traces\.def: the archive.s global definitions cannot be read")
    os.rename(os.path.join(tmp, "traces.def"), os.path.join(a, "traces.def"))
    expect("an event file alone", ["-r", "otf2", "-w", "text", evt], 1, r"read through that file")
    junk = os.path.join(tmp, "junk.otf2")
    open(junk, "wb").write(b"\x03BOTF2\x00" + b"\xff" * 20)
    # libotf2 leaks the archive it was building when OTF2_Reader_Open fails (it returns NULL:
    # nothing to close), so a sanitizer build checks leaks everywhere but here.
    expect("junk anchor", ["-w", "text", junk], 1, r"junk\.otf2",
           {"ASAN_OPTIONS": os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0"})

    try:
        import otf2
    except ImportError:
        print("python3-otf2 absent: ENTER without LEAVE not checked", file=sys.stderr)
        return 0
    u = os.path.join(tmp, "unbalanced")
    shutil.rmtree(u, ignore_errors=True)
    with otf2.writer.open(u, timer_resolution=1000000000) as trace:
        root = trace.definitions.system_tree_node("root")
        grp = trace.definitions.location_group("proc", system_tree_parent=root)
        writer = trace.event_writer("thread", group=grp)
        outer, inner = trace.definitions.region("outer"), trace.definitions.region("inner")
        writer.enter(1000, outer)
        writer.enter(2000, inner)
        writer.leave(3000, inner)
        writer.enter(4000, inner)  # never left, nor is outer
        writer.leave(4500, outer)  # leaves outer while inner is open
        writer.leave(5000, inner)  # nothing of it open
    expect("ENTER without LEAVE", ["-w", "text", os.path.join(u, "traces.otf2")], 0,
           r"otf2\.leave-not-innermost.*\n.*otf2\.leave-without-enter")
    dump = run([tconv, "-q", "-w", "text", os.path.join(u, "traces.otf2")])
    spans = [l.split()[0] for l in dump.splitlines() if l.startswith(("begin", "end"))]
    if spans.count("begin") != spans.count("end"):
        sys.exit(f"FAIL: unbalanced archive read as unbalanced spans: {spans}")
    return 0


def main():
    mode, tconv, tmp = sys.argv[1:4]
    os.makedirs(tmp, exist_ok=True)
    return {"roundtrip": roundtrip, "selftime": selftime, "convert": convert,
            "hostile": hostile}[mode](tconv, tmp, sys.argv[4:])


if __name__ == "__main__":
    sys.exit(main())
