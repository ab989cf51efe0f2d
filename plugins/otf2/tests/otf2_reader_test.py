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
  hostile TCONV TMP TRACE   damaged archives: a positioned error or a counted repair.
  scale TCONV TMP   hostile archives written with libotf2's own writer (the bindings' C layer):
      each is read in bounded CPU time and memory, where reading them once took quadratic time
      or memory out of proportion to the archive; and files libotf2 would open blindly (a FIFO
      among the members, an anchor whose counts ask for gigabytes) are refused. The environment
      variable TCONV_TEST_SANITIZED=ON scales the limits (4x memory, 8x time), and
      TCONV_TEST_VALGRIND=1 drops them.
Exit 77 when an input (the corpus) or a tool (go, the bindings) is absent."""
import collections
import os
import re
import resource
import shutil
import subprocess
import sys

SKIP = 77


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {r.returncode}: {r.stderr.strip()}")
    return r.stdout


def to_otf2(tconv, trace, out, *opts):
    shutil.rmtree(out, ignore_errors=True)
    run([tconv, "-q", "-w", "otf2", *opts, "-o", out, trace])
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


def normalise(events, back, messages):
    """Per-track blocks of comparable lines, as a sorted list. With messages (-W flows=messages),
    a lone flow event has no message, and a step comes back as a receive and a send; else every
    flow event comes back as it was, numbered by its flow."""
    flows = [e for e in events if e[0].startswith("flow")]
    ids = collections.Counter(e[3]["id"] for e in flows)
    parent = {}
    lone = 2 if messages else 1
    back = back and messages

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
        if back or ids[e[3]["id"]] >= lone:
            kind = "flow-step" if e[3].get("step") else e[0]
            if kind == "flow-step" and e[0] == "flow-start":
                continue
            chain[find(e[3]["id"])].append((kind, e[1], e[2]))
    sig = {k: tuple(sorted(v)) for k, v in chain.items()}
    blocks = collections.defaultdict(list)
    for kind, ts, track, f in events:
        if kind.startswith("flow"):
            if not back and ids[f["id"]] < lone:
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


def roundtrip_one(tconv, tmp, trace, messages):
    a = os.path.join(tmp, "rt")
    to_otf2(tconv, trace, a, *(["-W", "flows=messages"] if messages else []))
    dump_orig = run([tconv, "-q", "-w", "text-ordered", trace])
    dump_back = run([tconv, "-q", "-r", "otf2", "-w", "text-ordered", a])
    if instants(dump_orig) != instants(dump_back):
        sys.exit(f"FAIL: {trace}: instants {instants(dump_orig)[:3]}... came back as "
                 f"{instants(dump_back)[:3]}... ({len(instants(dump_orig))} vs "
                 f"{len(instants(dump_back))})")
    orig, back = parse(dump_orig), parse(dump_back)
    no = strip_tracks(normalise(orig, False, messages))
    nb = strip_tracks(normalise(back, True, messages))
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
    print(f"ok roundtrip {os.path.basename(trace)}{' (flows=messages)' if messages else ''}: "
          f"{dict(sorted(kinds.items()))}")


def roundtrip(tconv, tmp, traces):
    """Each trace through OTF2 and back, with flows as Parameter records (the default) and as
    messages."""
    for trace in traces:
        if not os.path.exists(trace):
            print(f"{trace} absent: skipping", file=sys.stderr)
            return SKIP
        for messages in (False, True):
            roundtrip_one(tconv, tmp, trace, messages)
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
        try:
            r = subprocess.run([tconv] + args, capture_output=True, text=True, timeout=120,
                               env=dict(os.environ, **(env or {})))
        except subprocess.TimeoutExpired:
            sys.exit(f"FAIL: {what}: still running after 120 s")
        if r.returncode != code or not re.search(pattern, r.stderr):
            sys.exit(f"FAIL: {what}: exit {r.returncode} (want {code}), stderr: {r.stderr.strip()}")
        print(f"ok hostile {what}: {(r.stderr.strip().splitlines() or [''])[0]}")

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

    # What libotf2 would act on blindly is refused first: a member that is no regular file
    # (a FIFO blocked for ever), an anchor whose counts ask for gigabytes or whose properties
    # take seconds to compare.
    good = open(anchor, "rb").read()
    for member in ("traces.def", "traces.marker", "traces/0.evt", "traces/0.def"):
        f = os.path.join(a, member)
        keep = os.path.join(tmp, "kept")
        if os.path.exists(f):
            os.rename(f, keep)
        os.mkfifo(f)
        expect(f"a FIFO as {member}", ["-w", "text", anchor], 1, r"is not a regular file")
        os.unlink(f)
        if os.path.exists(keep):
            os.rename(keep, f)

    def anchor_with(what, data, pattern):
        open(anchor, "wb").write(data)
        expect(what, ["-w", "text", anchor], 1, pattern)
        open(anchor, "wb").write(good)

    def at(off, value, size):
        return good[:off] + value.to_bytes(size, "little") + good[off + size:]

    anchor_with("an anchor's event chunks of 3 GB", at(12, 3 << 30, 8), r"chunk sizes are outside")
    anchor_with("an anchor's definition chunks of 1 TB", at(20, 1 << 40, 8), r"chunk sizes are outside")
    anchor_with("an anchor of 2^38 locations", at(30, 1 << 38, 8), r"claims 274877906944 locations")
    nul = good.index(b"\0", good.index(b"\0", good.index(b"\0", 46) + 1) + 1) + 1  # 3 names
    anchor_with("an anchor of 2^31 properties", at(nul, 0x7fffffff, 4), r"claims 2147483647 properties")
    props = b"".join(b"A::P%d\0V\0" % i for i in range(40000))
    anchor_with("an anchor of 40 000 properties",
                good[:nul] + (40000).to_bytes(4, "little") + props + good[nul + 4:],
                r"far more than one holds")
    anchor_with("an anchor cut short", good[:40], r"ends before its fields")
    expect("the archive intact again", ["-w", "text", anchor], 0, r"^$")

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
    # A marker whose end is past 2^64 ticks: an error, not a negative duration.
    import _otf2
    from otf2.enums import LocationType

    def marker(m):
        _otf2.MarkerWriter_WriteDefMarker(m, 0, "group", "category", _otf2.SEVERITY_NONE)
        _otf2.MarkerWriter_WriteMarker(m, 1000, 2**64 - 500, 0, _otf2.MARKER_SCOPE_GLOBAL, 0, "text")

    def span(w):
        _otf2.EvtWriter_Enter(w, None, 1, 0)
        _otf2.EvtWriter_Leave(w, None, 2, 0)
    wrap = raw_archive(os.path.join(tmp, "wrap"), lambda g, c: _otf2.GlobalDefWriter_WriteLocation(
        g, 0, 1, LocationType.CPU_THREAD, c[0], 0), {0: span}, marker)
    expect("a marker ending past 2^64 ticks", ["-w", "text", wrap], 1,
           r"a marker at 1000 ticks lasts \d+ ticks, which ends past")

    # A group's member count made 2^32 - 16 in a file of a few hundred bytes (the record's
    # length kept): libotf2 allocates 32 GB for the members before it reads them. The run names
    # the definitions file, and an allocation that fails is called damage, not a lack of memory.
    # A sanitizer would stop at the request itself, so it is told to fail it as libc does.
    from otf2.enums import GroupType, GroupFlag, Paradigm
    far = 1 << 56  # a member of 8 significant bytes: 01 03 08 .. is the count 3, then one

    def big_group(g, c):
        _otf2.GlobalDefWriter_WriteLocation(g, 0, 1, LocationType.CPU_THREAD, c[0], 0)
        _otf2.GlobalDefWriter_WriteGroup(g, 0, 1, GroupType.COMM_GROUP, Paradigm.MPI,
                                         GroupFlag.NONE, [far] * 3)
    grp = raw_archive(os.path.join(tmp, "group"), big_group, {0: span})
    defs = os.path.join(tmp, "group", "traces.def")
    raw = open(defs, "rb").read()
    three = b"\x01\x03\x08" + far.to_bytes(8, "little")
    if raw.count(three) != 1:
        sys.exit("FAIL: the group's members are not where this test looks for them")
    open(defs, "wb").write(raw.replace(three, b"\x04\xf0\xff\xff\xff\x08" + far.to_bytes(8, "little")[3:]))
    r = subprocess.run([tconv, "-w", "text", grp], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") +
                                ":allocator_may_return_null=1"))
    if (r.returncode != 1 or not re.search(r"group/traces\.def: the global definitions cannot be "
                                           r"read: .*members", r.stderr) or
            ("allocate" in r.stderr and "is damage, not a lack of memory" not in r.stderr)):
        sys.exit(f"FAIL: a group of 2^32 - 16 members: exit {r.returncode}, stderr: {r.stderr}")
    print(f"ok hostile a group of 2^32 - 16 members: {r.stderr.strip().splitlines()[0]}")
    expect("ENTER without LEAVE", ["-w", "text", os.path.join(u, "traces.otf2")], 0,
           r"otf2\.leave-not-innermost.*\n.*otf2\.leave-without-enter")
    dump = run([tconv, "-q", "-w", "text", os.path.join(u, "traces.otf2")])
    spans = [l.split()[0] for l in dump.splitlines() if l.startswith(("begin", "end"))]
    if spans.count("begin") != spans.count("end"):
        sys.exit(f"FAIL: unbalanced archive read as unbalanced spans: {spans}")
    return 0


# ---- hostile archives, written through libotf2's C API (_otf2, from python3-otf2) -----------

def raw_archive(path, defs, events, markers=None):
    """An archive of plain files: events(loc) -> fn(writer) per location, then the global
    definitions: a clock, strings 0-2 ("", "a", "b"), a system tree node, location group 0,
    regions 0 ("a") and 1 ("b"), and what defs(writer, counts) adds (counts: events per
    location)."""
    import _otf2
    from otf2.enums import (FileMode, FileSubstrate, Compression, FlushType, LocationGroupType,
                            RegionRole, Paradigm, RegionFlag)
    shutil.rmtree(path, ignore_errors=True)
    ar = _otf2.Archive_Open(path, "traces", FileMode.WRITE, 1 << 20, 4 << 20,
                            FileSubstrate.POSIX, Compression.NONE)
    flush = _otf2.FlushCallbacks(pre_flush=lambda *a: FlushType.FLUSH, post_flush=None)
    _otf2.Archive_SetFlushCallbacks(ar, flush, None)
    _otf2.Archive_SetSerialCollectiveCallbacks(ar)
    _otf2.Archive_OpenDefFiles(ar)
    _otf2.Archive_OpenEvtFiles(ar)
    counts = {}
    for loc, fn in events.items():
        w = _otf2.Archive_GetEvtWriter(ar, loc)
        fn(w)
        counts[loc] = _otf2.EvtWriter_GetNumberOfEvents(w)
        _otf2.Archive_CloseEvtWriter(ar, w)
        _otf2.Archive_CloseDefWriter(ar, _otf2.Archive_GetDefWriter(ar, loc))
    _otf2.Archive_CloseEvtFiles(ar)
    _otf2.Archive_CloseDefFiles(ar)
    g = _otf2.Archive_GetGlobalDefWriter(ar)
    _otf2.GlobalDefWriter_WriteClockProperties(g, 10**9, 0, 10**9, 0)
    for ref, text in enumerate(("", "a", "b")):
        _otf2.GlobalDefWriter_WriteString(g, ref, text)
    _otf2.GlobalDefWriter_WriteSystemTreeNode(g, 0, 1, 1, 0xffffffff)
    _otf2.GlobalDefWriter_WriteLocationGroup(g, 0, 1, LocationGroupType.PROCESS, 0, 0xffffffff)
    for ref in (0, 1):
        _otf2.GlobalDefWriter_WriteRegion(g, ref, ref + 1, ref + 1, 0, RegionRole.FUNCTION,
                                          Paradigm.USER, RegionFlag.NONE, 0, 0, 0)
    defs(g, counts)
    _otf2.Archive_CloseGlobalDefWriter(ar, g)
    if markers:
        m = _otf2.Archive_GetMarkerWriter(ar)
        markers(m)
        _otf2.Archive_CloseMarkerWriter(ar, m)
    _otf2.Archive_Close(ar)
    return os.path.join(path, "traces.otf2")


def scale_archives(tmp):
    """(name, anchor, what the run must say) of each hostile archive, made here."""
    import _otf2
    from otf2.enums import LocationType, GroupType, GroupFlag, CommFlag, Paradigm

    def location(g, ref, n):
        _otf2.GlobalDefWriter_WriteLocation(g, ref, 1, LocationType.CPU_THREAD, n, 0)

    def one_span(w):
        _otf2.EvtWriter_Enter(w, None, 1, 0)
        _otf2.EvtWriter_Leave(w, None, 2, 0)

    def one_location(g, counts):
        location(g, 0, counts[0])

    out = []
    # 400 000 nested Enters of region 0, then 400 000 Leaves of region 1, never entered (8.8 MB).
    n = 400000

    def storm(w):
        for i in range(n):
            _otf2.EvtWriter_Enter(w, None, i, 0)
        for i in range(n):
            _otf2.EvtWriter_Leave(w, None, n + i, 1)
    out.append(("leave-storm", raw_archive(os.path.join(tmp, "storm"), one_location, {0: storm}),
                r"otf2\.leave-without-enter, 400000 times"))

    # 200 communicators of one group of a million ranks (1 MB).
    def shared(g, counts):
        one_location(g, counts)
        _otf2.GlobalDefWriter_WriteGroup(g, 0, 1, GroupType.COMM_LOCATIONS, Paradigm.MPI,
                                         GroupFlag.NONE, [0])
        _otf2.GlobalDefWriter_WriteGroup(g, 1, 1, GroupType.COMM_GROUP, Paradigm.MPI,
                                         GroupFlag.NONE, [0] * 1000000)
        for c in range(200):
            _otf2.GlobalDefWriter_WriteComm(g, c, 1, 1, 0xffffffff, CommFlag.NONE)
    out.append(("shared-group", raw_archive(os.path.join(tmp, "shared"), shared, {0: one_span}),
                None))

    # 100 000 communicators and 100 000 groups, none of them a locations group (2.4 MB).
    def comms(g, counts):
        one_location(g, counts)
        for k in range(100000):
            _otf2.GlobalDefWriter_WriteGroup(g, k, 1, GroupType.COMM_GROUP, Paradigm.MPI,
                                             GroupFlag.NONE, [0])
        for c in range(100000):
            _otf2.GlobalDefWriter_WriteComm(g, c, 1, c, 0xffffffff, CommFlag.NONE)
    out.append(("comms-groups", raw_archive(os.path.join(tmp, "comms"), comms, {0: one_span}),
                None))

    # One location defined 200 times, 100 000 events (1.1 MB): read once, not 200 times.
    def spans(w):
        for i in range(50000):
            _otf2.EvtWriter_Enter(w, None, 2 * i, 0)
            _otf2.EvtWriter_Leave(w, None, 2 * i + 1, 0)

    def dup(g, counts):
        for _ in range(200):
            location(g, 0, counts[0])
    out.append(("duplicate-location", raw_archive(os.path.join(tmp, "dup"), dup, {0: spans}),
                r"otf2\.duplicate-location, 199 times"))

    # 200 000 locations (2.1 MB); libotf2 searched its list of them for each one selected.
    def many(g, counts):
        one_location(g, counts)
        for k in range(1, 200000):
            location(g, k, 0)
    out.append(("many-locations", raw_archive(os.path.join(tmp, "many"), many, {0: one_span}),
                None))
    return out


def measure(cmd, timeout):
    """(exit status, stderr, CPU seconds, peak RSS in MB) of cmd."""
    with open(os.devnull, "w") as null:
        p = subprocess.Popen(cmd, stdout=null, stderr=subprocess.PIPE, text=True)
        try:
            err = p.communicate(timeout=timeout)[1]
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
            sys.exit(f"FAIL: still running after {timeout} s: {' '.join(cmd)}")
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return p.returncode, err, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024


def scale(tconv, tmp, args):
    try:
        import _otf2  # noqa: F401
    except ImportError:
        print("python3-otf2 absent: skipping", file=sys.stderr)
        return SKIP
    limits = os.environ.get("TCONV_TEST_VALGRIND") != "1"
    sanitized = os.environ.get("TCONV_TEST_SANITIZED") == "ON"
    max_s, max_mb = (5 * 8, 200 * 4) if sanitized else (5, 200)
    archives = scale_archives(tmp)
    # Each alone, then all at once with -j 2 (within twice the limits).
    runs = [(name, [anchor], says, 1) for name, anchor, says in archives]
    runs.append(("all, -j 2", ["-j", "2"] + [a for _, a, _ in archives], None, 2))
    for name, args, says, scale in runs:
        # Each run in a child of its own, so that RUSAGE_CHILDREN is this run's.
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            res = measure([tconv, "-w", "summary"] + args, 600 if not limits else max_s * 12 * scale)
            os.write(w, repr(res).encode())
            os._exit(0)
        os.close(w)
        data = b""
        while chunk := os.read(r, 65536):
            data += chunk
        os.close(r)
        os.waitpid(pid, 0)
        if not data:
            sys.exit(f"FAIL: {name}: the measuring child died")
        rc, err, secs, mb = eval(data.decode())
        if rc != 0 or re.search("Sanitizer|runtime error", err):
            sys.exit(f"FAIL: {name}: exit {rc}: {err.strip()[:2000]}")
        if says and not re.search(says, err):
            sys.exit(f"FAIL: {name}: no '{says}' in: {err.strip()[:2000]}")
        if limits and (secs > max_s * scale or mb > max_mb * scale):
            sys.exit(f"FAIL: {name}: {secs:.2f} s CPU, {mb:.0f} MB "
                     f"(limits {max_s * scale} s, {max_mb * scale} MB)")
        print(f"ok scale {name}: {secs:.2f} s CPU, {mb:.0f} MB")
    return 0


def main():
    mode, tconv, tmp = sys.argv[1:4]
    os.makedirs(tmp, exist_ok=True)
    return {"roundtrip": roundtrip, "selftime": selftime, "convert": convert,
            "hostile": hostile, "scale": scale}[mode](tconv, tmp, sys.argv[4:])


if __name__ == "__main__":
    sys.exit(main())
