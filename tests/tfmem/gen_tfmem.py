#!/usr/bin/env python3
"""Writes TensorFlow profiler memory profiles and run folders for the tfmem tests.

No real memory profile is public, so this builds them the way the profiler does: a simulated
allocator produces MemoryAllocation / MemoryDeallocation events (plus the RESERVATION and
EXPANSION activities of memory_profile.proto), and the post-processing of
tensorflow/core/profiler/convert/xplane_to_memory_profile.cc (step ids, deallocation metadata,
peak summary, active allocations, special allocations, snapshot sampling) turns them into a
MemoryProfile, printed in the proto3 JSON mapping the profiler uses: lowerCamelCase members in
field-number order, int64/uint64 as decimal strings (or, with --numbers, as JSON numbers as other
writers do), enums by name, every scalar printed even when it is zero.

Everything is deterministic (fixed seeds, gzip without a time stamp), so the tests can compare
tconv's output with golden files.

usage: gen_tfmem.py OUTDIR
"""
import gzip
import json
import os
import random
import sys

PS_PER_NS = 1000
ALLOCATION, DEALLOCATION, RESERVATION, EXPANSION = (
    "ALLOCATION", "DEALLOCATION", "RESERVATION", "EXPANSION")
INVALID_STEP = -1

# ---------------------------------------------------------------------------------------------
# The simulated allocators: each event is the allocator's state right after one activity.


class Allocator:
    def __init__(self, name, capacity, persistent, lifetime_peak):
        self.name = name
        self.capacity = capacity
        self.heap = persistent  # weights allocated before the profiling window
        self.stack = 0
        self.peak = lifetime_peak
        self.live = {}  # address -> bytes
        self.next_addr = 0x7f3a00000000 + (hash_name(name) << 24)
        self.events = []

    def _stats(self):
        self.peak = max(self.peak, self.heap + self.stack)
        # A fragmentation ratio in [0, 1) that moves with the number of live chunks.
        frag = ((len(self.live) * 37) % 100) / 1000.0
        return {
            "stack_reserved_bytes": self.stack,
            "heap_allocated_bytes": self.heap,
            "free_memory_bytes": self.capacity - self.heap - self.stack,
            "fragmentation": frag,
            "peak_bytes_in_use": self.peak,
        }

    def _event(self, t_ps, activity, meta):
        self.events.append({"time_ps": t_ps, "stats": self._stats(),
                            "meta": dict(meta, memory_activity=activity)})

    def alloc(self, t_ps, requested, op, step, region, dtype, shape):
        size = (requested + 255) // 256 * 256  # BFC chunks are 256-byte multiples
        addr = self.next_addr
        self.next_addr += size + 4096
        self.live[addr] = size
        self.heap += size
        self._event(t_ps, ALLOCATION, {
            "requested_bytes": requested, "allocation_bytes": size, "address": addr,
            "tf_op_name": op, "step_id": step, "region_type": region, "data_type": dtype,
            "tensor_shape": shape})
        return addr

    def free(self, t_ps, addr, step):
        size = self.live.pop(addr)
        self.heap -= size
        # The profiler records no op for a deallocation; post-processing copies it.
        self._event(t_ps, DEALLOCATION, {
            "requested_bytes": size, "allocation_bytes": size, "address": addr,
            "tf_op_name": "", "step_id": step, "region_type": "", "data_type": "INVALID",
            "tensor_shape": ""})

    def reserve(self, t_ps, size, op, step):
        self.stack += size
        self._event(t_ps, RESERVATION, {
            "requested_bytes": size, "allocation_bytes": size, "address": 0,
            "tf_op_name": op, "step_id": step, "region_type": "stack", "data_type": "INVALID",
            "tensor_shape": ""})

    def expand(self, t_ps, addr, extra, op, step):
        self.live[addr] += extra
        self.heap += extra
        self._event(t_ps, EXPANSION, {
            "requested_bytes": extra, "allocation_bytes": self.live[addr], "address": addr,
            "tf_op_name": op, "step_id": step, "region_type": "dynamic", "data_type": "float",
            "tensor_shape": "[?]"})


def hash_name(name):
    return sum((i + 1) * ord(c) for i, c in enumerate(name)) % 251


# ---------------------------------------------------------------------------------------------
# One host's workload: a few training steps of a small model. Ops run on a host thread; their
# outputs live on the GPU, input batches pass through pinned host memory and the CPU allocator.

OPS = [
    ("model/conv2d/Conv2D", "Conv2D", "float", "[32, 64, 56, 56]", 32 * 64 * 56 * 56 * 4),
    ("model/conv2d/BiasAdd", "BiasAdd", "float", "[32, 64, 56, 56]", 32 * 64 * 56 * 56 * 4),
    ("model/dense/MatMul", "MatMul", "float", "[32, 1000]", 32 * 1000 * 4),
    ("gradient_tape/model/dense/MatMul", "MatMul", "float", "[2048, 1000]", 2048 * 1000 * 4),
    ("Adam/Adam/update/ResourceApplyAdam", "ResourceApplyAdam", "float", "[2048, 1000]", 0),
]


def workload(host, seed, with_cpu, with_special):
    rng = random.Random(seed)
    gpu = Allocator("GPU_0_bfc", 15843721216, 268435456 + seed * 1048576, 1610612736)
    pinned = Allocator("gpu_host_bfc", 68719476736, 0, 33554432)
    cpu = Allocator("mklcpu", 135089938432, 1048576, 4194304) if with_cpu else None
    spans = []  # (tid, name, long_name, start_ps, dur_ps, step)
    t = 5_000_000 + seed * 1_000  # ps; the host tracer starts a few microseconds in
    for step in range(3):
        step_start = t
        batch = 32 * 3 * 224 * 224 * 4 // 8
        if cpu:
            c = cpu.alloc(t + 1_500, batch, "IteratorGetNext", step, "output", "float",
                          "[32, 224, 224, 3]")
        h = pinned.alloc(t + 2_250, batch, "IteratorGetNext", step, "output", "float",
                         "[32, 224, 224, 3]")
        t += 40_000_000
        temps = []
        for i, (op, kind, dtype, shape, out_bytes) in enumerate(OPS):
            start = t
            dur = 20_000_000 + rng.randrange(0, 10_000_000, 1_000)
            if out_bytes:
                addr = gpu.alloc(t + 1_234_567, out_bytes, op, step, "output", dtype, shape)
                temps.append(addr)
            if with_special and step == 1 and i == 0:
                gpu.reserve(t + 2_000_001, 8388608, op, step)
            if with_special and step == 1 and i == 2:
                gpu.expand(t + 3_000_500, temps[-1], 1048576, op, step)
            if i == 3:
                # The backward pass frees the forward activations.
                for a in temps[:-1]:
                    gpu.free(t + dur - 999, a, step)
                temps = temps[-1:]
            spans.append((4711, kind, op, start, dur, step))
            t += dur + 5_000_000
        for a in temps:
            gpu.free(t, a, step)
        pinned.free(t + 3_333, h, INVALID_STEP)
        if cpu:
            cpu.free(t + 4_444, c, INVALID_STEP)
        spans.append((4710, "train_step", "train_step", step_start, t - step_start + 10_000, step))
        t += 50_000_000
    allocators = [a for a in (cpu, gpu, pinned) if a]
    return allocators, spans


# ---------------------------------------------------------------------------------------------
# The profiler's post-processing (ProcessMemoryProfileProto and its helpers).


def update_summary(summary, stats, t_ps):
    summary["peak_bytes_usage_lifetime"] = stats["peak_bytes_in_use"]
    peak = summary.setdefault("peak_stats", zero_stats())
    in_use = stats["stack_reserved_bytes"] + stats["heap_allocated_bytes"]
    if in_use >= peak["peak_bytes_in_use"]:
        summary["peak_stats"] = dict(stats, peak_bytes_in_use=in_use)
        summary["peak_stats_time_ps"] = t_ps
        summary["memory_capacity"] = in_use + stats["free_memory_bytes"]


def zero_stats():
    return {"stack_reserved_bytes": 0, "heap_allocated_bytes": 0, "free_memory_bytes": 0,
            "fragmentation": 0.0, "peak_bytes_in_use": 0}


def build_profile(allocator):
    summary = {"peak_bytes_usage_lifetime": 0, "peak_stats": zero_stats(),
               "peak_stats_time_ps": 0, "memory_capacity": 0}
    snaps = []
    for ev in allocator.events:
        update_summary(summary, ev["stats"], ev["time_ps"])
        snaps.append({"time_offset_ps": ev["time_ps"], "aggregation_stats": dict(ev["stats"]),
                      "activity_metadata": dict(ev["meta"])})
    snaps.sort(key=lambda s: s["time_offset_ps"])
    # UpdateStepId
    last = -1
    for s in snaps:
        m = s["activity_metadata"]
        if m["step_id"] == INVALID_STEP:
            m["step_id"] = last + 1
        else:
            last = m["step_id"]
    # UpdateDeallocation
    by_addr = {}
    for s in snaps:
        m = s["activity_metadata"]
        if m["memory_activity"] == DEALLOCATION:
            a = by_addr.pop(m["address"], None)
            if a:
                for k in ("tf_op_name", "region_type", "data_type", "tensor_shape"):
                    m[k] = a[k]
        elif m["memory_activity"] == ALLOCATION and m["address"] not in by_addr:
            by_addr[m["address"]] = m
    return {"snapshots": snaps, "summary": summary}


def peak_step(profile):
    peak = profile["summary"]["peak_stats"]["peak_bytes_in_use"]
    step = 0
    for s in profile["snapshots"]:
        st = s["aggregation_stats"]
        if st["heap_allocated_bytes"] + st["stack_reserved_bytes"] == peak:
            step = s["activity_metadata"]["step_id"]
    return step


def meta_key(m):
    return (-m["allocation_bytes"], -m["requested_bytes"], m["tf_op_name"], m["region_type"],
            m["data_type"], m["tensor_shape"])


def active_allocations(profile):
    """ProcessActiveAllocations: the allocations alive at the peak, and the special ones."""
    summary = profile["summary"]
    step = peak_step(profile)
    unmapped = summary["peak_stats"]["heap_allocated_bytes"]
    unmapped_dealloc = 0
    active = {}
    for i, s in enumerate(profile["snapshots"]):
        m = s["activity_metadata"]
        if s["time_offset_ps"] > summary["peak_stats_time_ps"]:
            break
        if m["step_id"] != step:
            continue
        if m["memory_activity"] == ALLOCATION:
            active[m["address"]] = (i, m)
            unmapped -= m["allocation_bytes"]
        elif m["memory_activity"] == DEALLOCATION:
            if m["address"] in active:
                del active[m["address"]]
            else:
                unmapped_dealloc += m["allocation_bytes"]
            unmapped += m["allocation_bytes"]
    unmapped -= unmapped_dealloc
    rows = list(active.values())
    special = []
    index = 0

    def special_alloc(nbytes, op, region):
        return {"memory_activity": ALLOCATION, "requested_bytes": nbytes,
                "allocation_bytes": nbytes, "address": 0, "tf_op_name": op, "step_id": step,
                "region_type": region, "data_type": "INVALID", "tensor_shape": "unknown"}
    if unmapped > 0:
        special.append(special_alloc(unmapped, "unused preallocated device memory",
                                     "persist/dynamic"))
        index -= 1
        rows.append((index, special[-1]))
    stack = summary["peak_stats"]["stack_reserved_bytes"]
    if stack > 0:
        special.append(special_alloc(stack, "stack", "stack"))
        index -= 1
        rows.append((index, special[-1]))
    rows.sort(key=lambda r: meta_key(r[1]))
    out = []
    i = 0
    while i < len(rows):
        idx, m = rows[i]
        row = {"snapshot_index": idx, "special_index": -idx - 1 if idx < 0 else -1,
               "num_occurrences": 1}
        while i + 1 < len(rows) and meta_key(rows[i + 1][1]) == meta_key(m):
            row["num_occurrences"] += 1
            i += 1
        out.append(row)
        i += 1
    profile["active"] = out
    profile["special"] = special


def sample_v0(profile, max_snapshots):
    """SampleSnapshots (profiles before version 1): keep the referenced snapshots and those with
    the least free memory, in time order, and renumber the references."""
    snaps = profile["snapshots"]
    if len(snaps) <= max_snapshots:
        return
    keep = []
    for row in profile["active"]:
        if row["snapshot_index"] >= 0 and row["snapshot_index"] not in keep:
            keep.append(row["snapshot_index"])
    rest = [i for i in range(len(snaps)) if i not in keep]
    rest.sort(key=lambda i: snaps[i]["aggregation_stats"]["free_memory_bytes"])
    keep += rest[:max_snapshots - len(keep)]
    keep.sort(key=lambda i: snaps[i]["time_offset_ps"])
    new_index = {old: new for new, old in enumerate(keep)}
    for row in profile["active"]:
        if row["snapshot_index"] >= 0:
            row["snapshot_index"] = new_index.get(row["snapshot_index"], -1)
    profile["snapshots"] = [snaps[i] for i in keep]


def sample_v1(profile, max_snapshots):
    """SampleMemoryProfileTimeline and SaveActiveAllocationSnapshots (version 1): the timeline is
    a max-box filter of the snapshots, and memoryProfileSnapshots keeps only the snapshots the
    active allocations refer to."""
    snaps = profile["snapshots"]
    n = len(snaps)
    if n > max_snapshots:
        timeline = []

        def box(width, count, start):
            for i in range(count):
                best = snaps[start + width * i]
                best_bytes = in_use(best)
                for j in range(start + width * i + 1, start + width * (i + 1)):
                    if in_use(snaps[j]) > best_bytes:
                        best, best_bytes = snaps[j], in_use(snaps[j])
                timeline.append(best)
        width = n // max_snapshots
        count1 = max_snapshots * (width + 1) - n
        count2 = max_snapshots - count1
        box(width, count1, 0)
        box(width + 1, count2, width * count1)
    else:
        timeline = list(snaps)
    profile["timeline"] = timeline
    kept = []
    for row in profile["active"]:
        if row["snapshot_index"] < 0:
            continue
        kept.append(snaps[row["snapshot_index"]])
        row["snapshot_index"] = len(kept) - 1
    profile["snapshots"] = kept


def in_use(s):
    st = s["aggregation_stats"]
    return st["heap_allocated_bytes"] + st["stack_reserved_bytes"]


# ---------------------------------------------------------------------------------------------
# proto3 JSON printing.


class Printer:
    def __init__(self, numbers):
        self.numbers = numbers

    def i64(self, v):
        return v if self.numbers else str(v)

    @staticmethod
    def dbl(v):
        return int(v) if float(v).is_integer() else v  # protobuf prints 0.0 as 0

    def stats(self, s):
        return {"stackReservedBytes": self.i64(s["stack_reserved_bytes"]),
                "heapAllocatedBytes": self.i64(s["heap_allocated_bytes"]),
                "freeMemoryBytes": self.i64(s["free_memory_bytes"]),
                "fragmentation": self.dbl(s["fragmentation"]),
                "peakBytesInUse": self.i64(s["peak_bytes_in_use"])}

    def meta(self, m):
        return {"memoryActivity": m["memory_activity"],
                "requestedBytes": self.i64(m["requested_bytes"]),
                "allocationBytes": self.i64(m["allocation_bytes"]),
                "address": self.i64(m["address"]),
                "tfOpName": m["tf_op_name"],
                "stepId": self.i64(m["step_id"]),
                "regionType": m["region_type"],
                "dataType": m["data_type"],
                "tensorShape": m["tensor_shape"]}

    def snapshot(self, s):
        return {"timeOffsetPs": self.i64(s["time_offset_ps"]),
                "aggregationStats": self.stats(s["aggregation_stats"]),
                "activityMetadata": self.meta(s["activity_metadata"])}

    def allocator(self, p, version):
        out = {"memoryProfileSnapshots": [self.snapshot(s) for s in p["snapshots"]],
               "profileSummary": {
                   "peakBytesUsageLifetime": self.i64(p["summary"]["peak_bytes_usage_lifetime"]),
                   "peakStats": self.stats(p["summary"]["peak_stats"]),
                   "peakStatsTimePs": self.i64(p["summary"]["peak_stats_time_ps"]),
                   "memoryCapacity": self.i64(p["summary"]["memory_capacity"])},
               "activeAllocations": [
                   {"snapshotIndex": self.i64(r["snapshot_index"]),
                    "specialIndex": self.i64(r["special_index"]),
                    "numOccurrences": self.i64(r["num_occurrences"])} for r in p["active"]],
               "specialAllocations": [self.meta(m) for m in p["special"]]}
        if version >= 1:
            out["sampledTimelineSnapshots"] = [self.snapshot(s) for s in p["timeline"]]
        return out


def memory_profile(allocators, numbers=False, version=0, max_snapshots=1000):
    pr = Printer(numbers)
    per = {}
    ids = []
    for a in allocators:
        p = build_profile(a)
        active_allocations(p)
        if version >= 1:
            sample_v1(p, max_snapshots)
        else:
            sample_v0(p, max_snapshots)
        per[a.name] = pr.allocator(p, version)
        if a.events:
            ids.append(a.name)
    doc = {"memoryProfilePerAllocator": per, "numHosts": 1, "memoryIds": sorted(ids)}
    if version >= 1:
        doc["version"] = version
        doc["hloModules"] = []
    return doc


def dumps(doc):
    return json.dumps(doc, separators=(",", ":"))


# ---------------------------------------------------------------------------------------------
# The trace that the profiler writes next to the memory profile, as trace_events_to_json.cc
# prints it: devices and resources (sorted) with their names and sort indexes, complete events
# with picoseconds turned into microseconds at full double precision ("%.17g"), string args in
# key order, and an empty object closing the list.


def us(ps):
    return "%.17g" % (ps / 1e6)


def trace(spans):
    parts = [
        '{"ph":"M","pid":1,"name":"process_name","args":{"name":"/host:CPU"}}',
        '{"ph":"M","pid":1,"name":"process_sort_index","args":{"sort_index":1}}',
    ]
    for tid, name in ((4710, "python3"), (4711, "tf_Compute")):
        parts.append('{"ph":"M","pid":1,"tid":%d,"name":"thread_name","args":{"name":"%s"}}'
                     % (tid, name))
        parts.append('{"ph":"M","pid":1,"tid":%d,"name":"thread_sort_index",'
                     '"args":{"sort_index":%d}}' % (tid, tid))
    for tid, name, long_name, start_ps, dur_ps, step in spans:
        args = {"group_id": str(step), "long_name": long_name}
        parts.append('{"ph":"X","pid":1,"tid":%d,"ts":%s,"dur":%s,"name":%s,"args":{%s}}' % (
            tid, us(start_ps), us(max(dur_ps, 1)), json.dumps(name),
            ",".join("%s:%s" % (json.dumps(k), json.dumps(v)) for k, v in sorted(args.items()))))
    parts.append("{}")
    return ('{"displayTimeUnit":"ns","metadata":{"highres-ticks":true},"traceEvents":[%s]}'
            % ",".join(parts))


# ---------------------------------------------------------------------------------------------
# Files.


def write(path, text, gz):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    data = text.encode()
    if gz:
        data = gzip.compress(data, compresslevel=6, mtime=0)
    with open(path, "wb") as f:
        f.write(data)


def write_host(folder, host, seed, with_cpu, with_special, numbers=False, gz=True, version=0,
               max_snapshots=1000, with_trace=True):
    allocators, spans = workload(host, seed, with_cpu, with_special)
    sfx = ".gz" if gz else ""
    write(os.path.join(folder, host + ".memory_profile.json" + sfx),
          dumps(memory_profile(allocators, numbers, version, max_snapshots)), gz)
    if with_trace:
        write(os.path.join(folder, host + ".trace.json" + sfx), trace(spans), gz)


def malformed(folder):
    allocators, _ = workload("hostA", 1, False, False)
    good = memory_profile(allocators)

    def variant(name, doc_or_text):
        text = doc_or_text if isinstance(doc_or_text, str) else dumps(doc_or_text)
        write(os.path.join(folder, name), text, False)

    def copy():
        return json.loads(dumps(good))
    doc = copy()
    del doc["memoryProfilePerAllocator"]
    variant("no-allocators.json", doc)
    doc = copy()
    doc["memoryProfilePerAllocator"] = [doc["memoryProfilePerAllocator"]["GPU_0_bfc"]]
    variant("allocators-array.json", doc)
    variant("array.json", "[" + dumps(good) + "]")
    variant("truncated.json", dumps(good)[:2000])
    variant("empty.json", "")
    doc = copy()
    snaps = doc["memoryProfilePerAllocator"]["GPU_0_bfc"]["memoryProfileSnapshots"]
    del snaps[2]["timeOffsetPs"]
    del snaps[5]["timeOffsetPs"]
    variant("no-time.json", doc)
    doc = copy()
    snaps = doc["memoryProfilePerAllocator"]["GPU_0_bfc"]["memoryProfileSnapshots"]
    snaps[1]["aggregationStats"]["heapAllocatedBytes"] = "12 MB"
    snaps[3]["activityMetadata"]["allocationBytes"] = "lots"
    snaps[4]["timeOffsetPs"] = "soon"
    variant("bad-bytes.json", doc)
    doc = copy()
    gpu = doc["memoryProfilePerAllocator"]["GPU_0_bfc"]
    gpu["memoryProfileSnapshots"][0]["activityMetadata"]["memoryActivity"] = "FREE"
    gpu["memoryProfileSnapshots"][1] = "not a snapshot"
    gpu["activeAllocations"].append({"snapshotIndex": "999", "specialIndex": "-1",
                                     "numOccurrences": "1"})
    doc["memoryIds"].append("TPU_0")
    doc["memoryProfilePerAllocator"]["broken"] = 42
    variant("bad-records.json", doc)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    # One host, as the profiler writes it, and the same profile with numbers for int64s.
    write_host(os.path.join(out, "single"), "hostA", 1, True, True, with_trace=False)
    write_host(os.path.join(out, "numeric"), "hostA", 1, True, True, numbers=True, gz=False,
               with_trace=False)
    # Version 1: the timeline sampled to 12 snapshots per allocator.
    write_host(os.path.join(out, "v1"), "hostA", 1, True, True, version=1, max_snapshots=12,
               with_trace=False)
    # A run folder with two hosts, and a file no reader knows (the raw XSpace).
    run = os.path.join(out, "run", "plugins", "profile", "2024_05_01_12_00_00")
    write_host(run, "hostA", 1, True, True)
    write_host(run, "hostB", 2, False, False)
    with open(os.path.join(run, "hostA.xplane.pb"), "wb") as f:
        f.write(bytes(range(7, 64)))
    malformed(os.path.join(out, "bad"))
    # Ambiguous folders: a host with two memory profiles, and two runs in one input.
    dup = os.path.join(out, "ambiguous", "dup")
    write_host(dup, "hostA", 1, False, False)
    write_host(dup, "hostA", 1, False, False, gz=False, with_trace=False)
    runs = os.path.join(out, "ambiguous", "runs", "plugins", "profile")
    write_host(os.path.join(runs, "2024_05_01_12_00_00"), "hostA", 1, False, False)
    write_host(os.path.join(runs, "2024_05_02_08_30_00"), "hostB", 2, False, False)
    again = os.path.join(out, "ambiguous", "same-host", "plugins", "profile")
    write_host(os.path.join(again, "2024_05_01_12_00_00"), "hostA", 1, False, False)
    write_host(os.path.join(again, "2024_05_02_08_30_00"), "hostA", 3, False, False)


if __name__ == "__main__":
    main()
