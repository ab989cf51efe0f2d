#!/usr/bin/env python3
"""The generated Kineto-like trace of the benchmarks in tests/bench (chrome-bench.sh,
speed-bench.py, jobs-bench.sh, mpi-bench.sh): one generator, so that their numbers are of the
same trace.

usage: gen_trace.py OUT SIZE_MB            one trace of about SIZE_MB MB (plain JSON)
       gen_trace.py --ranks N DIR SIZE_MB  N rank traces DIR/rank-K.pt.trace.json, each with the
                                           rank's own pid (1234 + K), so that they merge as ranks
"""
import random
import sys

def gen_kineto(path, size_mb):
    """A Kineto-like trace: CPU ops with args, runtime calls with correlation ids and ac2g flows,
    kernels on a GPU stream, [memory] instants; microsecond timestamps with three decimals; names
    from a fixed vocabulary (a fixed seed: the same bytes every time)."""
    size = size_mb * 1000 * 1000
    rnd = random.Random(7)
    ops = ["aten::linear", "aten::addmm", "aten::relu", "aten::conv2d", "aten::convolution",
           "aten::_convolution", "aten::cudnn_convolution", "aten::add_", "aten::mul",
           "aten::empty", "aten::copy_", "aten::to", "aten::batch_norm", "aten::softmax"]
    kernels = ["void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>",
               "sm80_xmma_fprop_implicit_gemm_f32f32_tf32f32_f32_nhwckrsc_nhwc",
               "ampere_sgemm_128x64_tn", "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float>"]
    with open(path, "w") as f:
        f.write('{\n  "schemaVersion": 1,\n  "deviceProperties": [{"id": 0, "name": "GPU", "totalGlobalMem": 42297524224}],\n  "traceEvents": [\n')
        f.write('  {"name": "process_name", "ph": "M", "ts": 1712195495519000.000, "pid": 1234, "tid": 0, "args": {"name": "python"}},\n')
        f.write('  {"name": "thread_name", "ph": "M", "ts": 1712195495519000.000, "pid": 1234, "tid": 1234, "args": {"name": "thread 1234 (python)"}}')
        ts = 1712195495519689.047
        written, corr, ext = 0, 1000, 1
        buf = []
        while written < size:
            op = rnd.choice(ops)
            dur = rnd.randint(5000, 90000) / 1000
            buf.append(',\n  {"ph": "X", "cat": "cpu_op", "name": "%s", "pid": 1234, "tid": 1234, "ts": %.3f, "dur": %.3f, "args": {"External id": %d, "Record function id": 0, "Ev Idx": %d, "Input Dims": [[32, 128], [128]], "Input type": ["float", "float"]}}' % (op, ts, dur, ext, ext))
            buf.append(',\n  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1234, "tid": 1234, "ts": %.3f, "dur": 4.512, "args": {"External id": %d, "cbid": 211, "correlation": %d}}' % (ts + 1.25, ext, corr))
            buf.append(',\n  {"ph": "s", "id": %d, "pid": 1234, "tid": 1234, "ts": %.3f, "cat": "ac2g", "name": "ac2g"}' % (corr, ts + 1.25))
            kts = ts + 20.5
            buf.append(',\n  {"ph": "X", "cat": "kernel", "name": "%s", "pid": 0, "tid": 7, "ts": %.3f, "dur": %.3f, "args": {"External id": %d, "queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": %d, "registers per thread": 32, "shared memory": 0, "blocks per SM": 0.009259, "grid": [1, 1, 1], "block": [128, 1, 1]}}' % (rnd.choice(kernels), kts, rnd.randint(1500, 9000) / 1000, ext, corr))
            buf.append(',\n  {"ph": "f", "id": %d, "pid": 0, "tid": 7, "ts": %.3f, "cat": "ac2g", "name": "ac2g", "bp": "e"}' % (corr, kts))
            if ext % 4 == 0:
                buf.append(',\n  {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1234, "tid": 1234, "ts": %.3f, "args": {"Device Type": 1, "Device Id": 0, "Addr": %d, "Bytes": 4096, "Total Allocated": %d, "Total Reserved": 20971520}}' % (ts + 2, 139800000000 + ext * 4096, 1000000 + ext % 1000 * 4096))
            ts += dur + rnd.randint(100, 3000) / 1000
            corr += 1
            ext += 1
            if len(buf) > 2000:
                s = "".join(buf)
                f.write(s)
                written += len(s)
                buf = []
        f.write("".join(buf))
        f.write('\n  ],\n  "traceName": "generated.pt.trace.json"\n}\n')


def gen_ranks(folder, size_mb, ranks):
    one = "%s/gen.json" % folder
    gen_kineto(one, size_mb)
    text = open(one).read()
    for r in range(ranks):
        with open("%s/rank-%d.pt.trace.json" % (folder, r), "w") as f:
            f.write(text.replace('"pid": 1234,', '"pid": %d,' % (1234 + r)))
    import os
    os.remove(one)


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--ranks":
        gen_ranks(sys.argv[3], int(sys.argv[4]), int(sys.argv[2]))
    elif len(sys.argv) == 3:
        gen_kineto(sys.argv[1], int(sys.argv[2]))
    else:
        sys.exit(__doc__)
