#!/usr/bin/env python3
"""Write a synthetic Kineto-like Chrome trace of about the requested size, for benchmarks.

Several CPU threads run steps of nested spans (python_function > cpu_op > cpu_op >
cuda_runtime), each runtime call launching a kernel or memcpy on one of a few GPU streams;
timestamps are µs with three decimals and events carry Kineto-style args. The output is the same
for the same arguments.

Usage: gen_kineto.py MEGABYTES OUT.json"""
import json
import random
import re
import sys

OPS = ["aten::linear", "aten::matmul", "aten::mm", "aten::add", "aten::relu", "aten::conv2d",
       "aten::convolution", "aten::_convolution", "aten::cudnn_convolution", "aten::batch_norm",
       "aten::softmax", "aten::layer_norm", "aten::dropout", "aten::copy_", "aten::to"]
PY = ["torch/nn/modules/module.py(1194): _call_impl", "models/net.py(42): forward",
      "models/block.py(17): forward", "train.py(88): step"]
KERNELS = ["volta_sgemm_128x64_nn", "void at::native::vectorized_elementwise_kernel<4>",
           "cudnn::detail::implicit_convolve_sgemm", "void at::native::reduce_kernel<512, 1>"]


NUMBER = re.compile(r'"(ts|dur)": "([0-9.]+)"')


def us(ns):
    return f"{ns // 1000}.{ns % 1000:03d}"


def main():
    megabytes, out = int(sys.argv[1]), sys.argv[2]
    rnd = random.Random(4)
    target = megabytes * 1000 * 1000
    written = 0
    pid = 4242
    threads = [pid, pid + 1, pid + 2, pid + 3]
    streams = [7, 13, 21]
    clock = {t: 1712195495000000000 for t in threads}
    gpu_clock = {s: 1712195495000000000 for s in streams}
    ext = 0
    with open(out, "w", encoding="utf-8") as f:
        def emit(ev):
            nonlocal written
            text = json.dumps(ev, separators=(", ", ": "))
            # Times are built as exact decimal text; write them as JSON numbers, as Kineto does.
            text = NUMBER.sub(r'"\1": \2', text)
            text = text if written == 0 else ",\n" + text
            f.write(text)
            written += len(text)

        f.write('{"schemaVersion": 1, "traceEvents": [\n')
        emit({"ph": "M", "name": "process_name", "pid": pid, "tid": 0,
              "args": {"name": "python"}})
        for t in threads:
            emit({"ph": "M", "name": "thread_name", "pid": pid, "tid": t,
                  "args": {"name": f"thread {t} (python)"}})
        for s in streams:
            emit({"ph": "M", "name": "thread_name", "pid": 0, "tid": s,
                  "args": {"name": f"stream {s} "}})

        def span(t, depth, start, budget):
            """Spans nested in [start, start + budget); returns nothing, emits events."""
            nonlocal ext
            cursor = start
            while cursor < start + budget:
                dur = rnd.randint(budget // 8 + 1, budget // 2 + 2)
                gap = rnd.randint(0, budget // 10 + 1)
                if cursor + gap + dur > start + budget:
                    break
                s = cursor + gap
                ext += 1
                if depth == 0:
                    name, cat = rnd.choice(PY), "python_function"
                elif depth < 3:
                    name, cat = rnd.choice(OPS), "cpu_op"
                else:
                    name, cat = "cudaLaunchKernel", "cuda_runtime"
                args = {"External id": ext}
                if cat == "cpu_op":
                    args["Input Dims"] = [[rnd.randint(1, 512), rnd.randint(1, 512)], []]
                    args["Input type"] = ["float", "Scalar"]
                if cat == "cuda_runtime":
                    args = {"correlation": ext, "cbid": 211}
                emit({"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": t, "ts": us(s),
                      "dur": us(dur), "args": args})
                if cat == "cuda_runtime":
                    st = rnd.choice(streams)
                    gs = max(gpu_clock[st], s + dur + rnd.randint(1000, 20000))
                    gd = rnd.randint(2000, 200000)
                    gpu_clock[st] = gs + gd
                    kcat = "kernel" if rnd.random() < 0.8 else "gpu_memcpy"
                    kname = rnd.choice(KERNELS) if kcat == "kernel" else "Memcpy HtoD (Pageable -> Device)"
                    emit({"ph": "X", "cat": kcat, "name": kname, "pid": 0, "tid": st,
                          "ts": us(gs), "dur": us(gd),
                          "args": {"correlation": ext, "device": 0, "stream": st,
                                   "grid": [rnd.randint(1, 1024), 1, 1], "block": [256, 1, 1]}})
                elif depth < 3:
                    span(t, depth + 1, s, dur)
                cursor = s + dur

        while written < target:
            t = rnd.choice(threads)
            budget = rnd.randint(200000, 2000000)
            span(t, 0, clock[t], budget)
            clock[t] += budget + rnd.randint(0, 50000)
        f.write("\n]}\n")


if __name__ == "__main__":
    main()
