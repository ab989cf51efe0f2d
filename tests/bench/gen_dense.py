#!/usr/bin/env python3
"""A dense trace in the shape of PyTorch's legacy Chrome exporter (what older and Debian's torch
builds write): a bare JSON array on one line, `", "` and `": "` separators, ~114 bytes per
complete event, `"args": {}`, the string pid "CPU functions", small integer microsecond
ts/dur, about 40 % zero durations, ops nested as a forward pass nests them.

usage: gen_dense.py OUT SIZE_MB

A fixed seed: the same bytes for the same size. About 1.2 M events per 136 MB.
"""
import random
import sys

# Leaf ops (often 0 us at microsecond resolution) and the composite ops that call them.
LEAVES = ["aten::empty", "aten::as_strided", "aten::resize_", "aten::view", "aten::t",
          "aten::transpose", "aten::expand", "aten::stride", "aten::size", "aten::is_nonzero",
          "aten::item", "aten::_local_scalar_dense", "aten::fill_", "aten::zero_",
          "aten::empty_strided", "aten::contiguous", "aten::detach", "aten::alias"]
COMPOSITES = {
    "aten::linear": ["aten::t", "aten::matmul", "aten::add_"],
    "aten::matmul": ["aten::mm", "aten::view"],
    "aten::mm": ["aten::empty", "aten::resize_"],
    "aten::add_": ["aten::expand"],
    "aten::relu": ["aten::empty", "aten::clamp_min"],
    "aten::clamp_min": ["aten::empty", "aten::resize_"],
    "aten::conv2d": ["aten::convolution"],
    "aten::convolution": ["aten::_convolution"],
    "aten::_convolution": ["aten::contiguous", "aten::mkldnn_convolution"],
    "aten::mkldnn_convolution": ["aten::empty", "aten::as_strided"],
    "aten::batch_norm": ["aten::_batch_norm_impl_index"],
    "aten::_batch_norm_impl_index": ["aten::native_batch_norm"],
    "aten::native_batch_norm": ["aten::empty", "aten::empty", "aten::empty"],
    "aten::softmax": ["aten::_softmax"],
    "aten::_softmax": ["aten::empty_strided"],
    "aten::to": ["aten::_to_copy"],
    "aten::_to_copy": ["aten::empty_strided", "aten::copy_"],
    "aten::copy_": [],
}
TOPS = ["aten::linear", "aten::relu", "aten::conv2d", "aten::batch_norm", "aten::softmax",
        "aten::to", "aten::linear", "aten::conv2d"]


def gen_dense(path, size_mb):
    size = size_mb * 1000 * 1000
    rnd = random.Random(35)
    tids = [1, 2]  # the legacy profiler's small thread numbers
    ts = rnd.randrange(1000, 100000)
    out, written, first = [], 0, True
    fmt = '{"name": "%s", "ph": "X", "ts": %d, "dur": %d, "tid": %d, "pid": "CPU functions", "args": {}}'

    def op(name, start, tid, depth):
        """Emit name at start and its callees; returns its end. Children are emitted after the
        parent (as the legacy exporter does: by start time, parent first)."""
        kids = COMPOSITES.get(name)
        idx = len(out)
        out.append(None)
        t = start
        if kids is None:
            # a leaf: 0 us most of the time at this resolution
            dur = 0 if rnd.random() < 0.72 else rnd.randint(1, 3)
            out[idx] = fmt % (name, start, dur, tid)
            return start + dur
        for k in kids:
            t += rnd.randint(0, 1)
            t = op(k, t, tid, depth + 1)
        if depth < 3 and rnd.random() < 0.5:
            t = op(rnd.choice(LEAVES), t + rnd.randint(0, 1), tid, depth + 1)
        end = t + rnd.randint(0, 2)
        out[idx] = fmt % (name, start, end - start, tid)
        return end

    with open(path, "w") as f:
        f.write("[")
        while written < size:
            tid = tids[0] if rnd.random() < 0.9 else tids[1]
            name = rnd.choice(TOPS) if rnd.random() < 0.8 else rnd.choice(LEAVES)
            ts = op(name, ts + rnd.randint(1, 20), tid, 0)
            if len(out) >= 4096:
                s = ", ".join(out)
                f.write(s if first else ", " + s)
                written += len(s) + 2
                first = False
                out = []
        if out:
            s = ", ".join(out)
            f.write(s if first else ", " + s)
        f.write("]")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    gen_dense(sys.argv[1], int(sys.argv[2]))
