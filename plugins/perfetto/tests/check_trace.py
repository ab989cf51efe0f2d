"""Checks a Perfetto trace with python3-protobuf and the project's proto, independently of the
reader (run with Debian's /usr/bin/python3, which has python3-protobuf).

usage: check_trace.py PROTO_DIR FILE            structure of a trace tconv wrote
       check_trace.py PROTO_DIR FILE --counts   counts of what any trace holds, one per line

Structure: `protoc --decode=tconv.perfetto.Trace` reads the file; the first packet clears the
sequence's incremental state; every interned id a packet uses (event names, categories,
annotation names and string values, callstacks, frames, functions, mappings, paths) was
interned earlier on its sequence (or in the same packet); every track uuid an event or a
descriptor refers to has a descriptor; slices begin and end in pairs on each track.
Counts: packets by payload; track events by type (flow points and metadata events, which tconv
writes as instants and typeless events, apart); perf samples with a callstack."""
import collections
import gzip
import os
import subprocess
import sys
import tempfile

proto_dir, path = sys.argv[1], sys.argv[2]
counts_mode = "--counts" in sys.argv[3:]

gen = tempfile.mkdtemp()
subprocess.run(["protoc", "--proto_path=" + proto_dir, "--python_out=" + gen,
                os.path.join(proto_dir, "perfetto_trace.proto")], check=True)
sys.path.insert(0, gen)
import perfetto_trace_pb2 as pb  # noqa: E402

data = open(path, "rb").read()
if data[:2] == b"\x1f\x8b":
    data = gzip.decompress(data)
trace = pb.Trace()
trace.ParseFromString(data)

if counts_mode:
    c = collections.Counter()
    for p in trace.packet:
        kind = p.WhichOneof("_payload") if False else None
        for field in ("track_event", "track_descriptor", "perf_sample", "process_tree",
                      "clock_snapshot", "streaming_profile_packet"):
            if p.HasField(field):
                c["packet." + field] += 1
        if p.HasField("track_event"):
            te = p.track_event
            phase = te.legacy_event.phase if te.HasField("legacy_event") else 0
            if te.type == 0 and phase == ord("M"):
                c["event.metadata"] += 1
            elif te.type == 3 and phase in (ord("s"), ord("t"), ord("f")):
                c["event.flow"] += 1
            else:
                c["event.type%d" % te.type] += 1
        if p.HasField("perf_sample") and p.perf_sample.HasField("callstack_iid"):
            c["sample.perf"] += 1
    for k in sorted(c):
        print(k, c[k])
    sys.exit(0)

errors = []


def err(i, what):
    if len(errors) < 20:
        errors.append("packet %d: %s" % (i, what))


r = subprocess.run(["protoc", "--proto_path=" + proto_dir, "--decode=tconv.perfetto.Trace",
                    os.path.join(proto_dir, "perfetto_trace.proto")], input=data,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
if r.returncode != 0:
    errors.append("protoc --decode fails: " + r.stderr.decode(errors="replace")[:200])

TABLES = ("event_names", "event_categories", "debug_annotation_names",
          "debug_annotation_string_values", "function_names", "mapping_paths", "frames",
          "mappings", "callstacks")
state = {}  # sequence -> table -> set of iids
tracks = {}
depth = collections.Counter()
referenced = []
for i, p in enumerate(trace.packet):
    seq = p.trusted_packet_sequence_id
    if i == 0 and not (p.sequence_flags & 1):
        err(i, "the first packet does not clear the incremental state")
    if p.sequence_flags & 1 or seq not in state:
        if seq in state and not p.sequence_flags & 1:
            pass
        state[seq] = {t: set() for t in TABLES}
    st = state[seq]
    idata = p.interned_data
    for t in TABLES:
        for e in getattr(idata, t):
            st[t].add(e.iid)

    def need(table, iid, what):
        if iid and iid not in st[table]:
            err(i, "%s %d is not interned on sequence %d" % (what, iid, seq))

    for m in idata.mappings:
        for pid in m.path_string_ids:
            need("mapping_paths", pid, "mapping path")
    for fr in idata.frames:
        need("function_names", fr.function_name_id, "function name")
        need("mappings", fr.mapping_id, "mapping")
    for cs in idata.callstacks:
        for fid in cs.frame_ids:
            need("frames", fid, "frame")
    if p.HasField("track_descriptor"):
        td = p.track_descriptor
        tracks[td.uuid] = td
        if td.HasField("parent_uuid"):
            referenced.append((i, td.parent_uuid, "parent"))
    if p.HasField("perf_sample"):
        need("callstacks", p.perf_sample.callstack_iid, "callstack")
    if p.HasField("track_event"):
        te = p.track_event
        need("event_names", te.name_iid, "event name")
        for c in te.category_iids:
            need("event_categories", c, "category")

        def annot(a):
            need("debug_annotation_names", a.name_iid, "annotation name")
            need("debug_annotation_string_values", a.string_value_iid, "string value")
            for x in list(a.dict_entries) + list(a.array_values):
                annot(x)

        for a in te.debug_annotations:
            annot(a)
        if te.HasField("track_uuid"):
            if te.track_uuid not in tracks:
                err(i, "track %d has no descriptor before its first event" % te.track_uuid)
            if te.type == 1:
                depth[te.track_uuid] += 1
            elif te.type == 2:
                depth[te.track_uuid] -= 1
                if depth[te.track_uuid] < 0:
                    err(i, "a slice ends on track %d where none is open" % te.track_uuid)
for i, uuid, what in referenced:
    if uuid not in tracks:
        err(i, "%s track %d has no descriptor" % (what, uuid))
for uuid, d in depth.items():
    if d:
        errors.append("track %d: %d slices never end" % (uuid, d))
if errors:
    print("\n".join(errors))
    sys.exit(1)
print("ok: %d packets, %d tracks" % (len(trace.packet), len(tracks)))
