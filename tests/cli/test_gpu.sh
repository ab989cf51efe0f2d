# GPU attribution end to end, on small traces whose answers can be checked by hand
# (tests/data/gpu/SOURCES.md): each correlation form, the uprobe + CUPTI pair, the pprof side.
source "$(dirname "$0")/lib.sh"
G=$DATA/gpu
"$TCONV" --list >"$TMP/list"
for p in "reader  chrome " "reader  folded " "writer  folded " "writer  pprof "; do
    grep -qF "$p" "$TMP/list" || {
        echo "gpu: no$p plugin built: skipped"
        exit 77
    }
done

# Kineto's args.correlation: launches inside nested ops and Python frames, a 0.8 µs kernel,
# two launches from one site (one line), one launch with two kernels (a graph), a copy on
# another stream, a kernel whose launch is not in the trace, a sync that is no GPU work.
expect_rc 0 "$TCONV" -w folded -W value=gpu "$G/kineto.json"
golden gpu-kineto.folded "$TMP/out"
expect_grep "$TMP/err" "tconv: warning: GPU activity 'orphan_kernel' at 120000 ns on 'stream 7' has no launch to attribute it to"
[ "$(grep -c 'gpu\.' "$TMP/err")" = 1 ] || fail "kineto: expected exactly one gpu warning"
# The default stays CPU self time, and says nothing about GPU attribution.
expect_rc 0 "$TCONV" -w folded "$G/kineto.json"
cp "$TMP/out" "$TMP/cpu"
grep -q '\[gpu\]' "$TMP/cpu" && fail "kineto: [gpu] frames without -W value=gpu"
grep -q 'gpu\.' "$TMP/err" && fail "kineto: gpu warnings without -W value=gpu"
expect_rc 0 "$TCONV" -w folded -W value=cpu "$G/kineto.json"
cmp -s "$TMP/out" "$TMP/cpu" || fail "kineto: -W value=cpu differs from the default"
# GPU time is exact ns by default; -W unit=us rounds like span input (0.8 + 1.2 µs -> 2).
expect_rc 0 "$TCONV" -w folded -W value=gpu -W unit=us "$G/kineto.json"
expect_grep "$TMP/out" "train.py(10): main;aten::relu;cudaLaunchKernel;[gpu] relu_kernel 2"
expect_grep "$TMP/out" "train.py(10): main;cudaGraphLaunch;[gpu] graph_node_a 3"

# CUPTI-style JSON: args.correlationId, "Kernel: " names, tracks no reader marks as GPU.
expect_rc 0 "$TCONV" -w folded -W value=gpu "$G/cupti.json"
golden gpu-cupti.folded "$TMP/out"
[ ! -s "$TMP/err" ] || fail "cupti: unexpected warnings: $(cat "$TMP/err")"
# Every writer sees the same GPU work in it: the core's roles (GPU_Kernel, MemCopy) and
# correlation ids (correlationId), not each writer's own reading of categories and args.
expect_rc 0 "$TCONV" -w csv -W table=kernels "$G/cupti.json"
expect_grep "$TMP/out" "Kernel: vectorAdd,1,750,750,750,750,"
expect_rc 0 "$TCONV" -w summary "$G/cupti.json"
expect_grep "$TMP/out" "pid Device_0: kernel busy 750 ns (0.7%); 1 kernels 750 ns; 1 memcpy 20.125 us"
expect_rc 0 "$TCONV" -w text-ordered "$G/cupti.json"
expect_grep "$TMP/out" 'track T1 input=0 kind=gpu pid="Device_0" tid="GPU0_Stream7"'
expect_rc 0 "$TCONV" -w otf2 -o "$TMP/cupti-otf2" "$G/cupti.json"
otf2-print "$TMP/cupti-otf2/traces.otf2" >"$TMP/out" 2>&1 || fail "otf2-print failed on the cupti archive"
grep -q "Kernel: vectorAdd" "$TMP/out" || fail "cupti: the kernel is missing from the OTF2 archive"

# Flows only (Kineto 2021 names): bp=e at the kernel, bind-next before the copy, a flow whose
# start is missing.
expect_rc 0 "$TCONV" -w folded -W value=gpu "$G/flows.json"
golden gpu-flows.folded "$TMP/out"
expect_grep "$TMP/err" "GPU activity 'late_kernel' at 40000 ns on '1/stream 7' has no launch"

# pprof: a third sample type; CPU samples carry gpu=0, GPU samples count 1 and wall 0.
DUMP=$(dirname "$TCONV")/pprof_dump
expect_rc 0 "$TCONV" -w pprof -W gpu=attribute -o "$TMP/k.pb.gz" "$G/kineto.json"
expect_rc 0 "$TCONV" -w pprof -W gpu=attribute -o "$TMP/k2.pb.gz" "$G/kineto.json"
cmp -s "$TMP/k.pb.gz" "$TMP/k2.pb.gz" || fail "pprof: two runs gave different bytes"
expect_rc 0 "$TCONV" -w pprof -o "$TMP/plain.pb.gz" "$G/kineto.json"
if [ -x "$DUMP" ]; then
    "$DUMP" samples "$TMP/k.pb.gz" >"$TMP/samples"
    expect_grep "$TMP/samples" "types samples/count wall/nanoseconds gpu/nanoseconds"
    expect_grep "$TMP/samples" "default wall"
    # (pprof names the Python frame by its function, "main", with its file and line.)
    expect_grep "$TMP/samples" "2,0,2000 | pid=100 tid=100 thread=python | main;aten::relu;cudaLaunchKernel;[gpu] relu_kernel"
    expect_grep "$TMP/samples" "1,0,12500 | pid=100 tid=100 thread=python | main;aten::linear;aten::addmm;cudaLaunchKernel;[gpu] sgemm_128x64"
    expect_grep "$TMP/samples" "1,0,4000 | pid=100 tid=100 thread=python | main;cudaGraphLaunch;[gpu] graph_node_b"
    # The stream-rooted samples stay, as wall time, with no GPU time; graph_node_b, which
    # outlives the annotation it starts in, keeps its whole length on a second lane.
    expect_grep "$TMP/samples" "2,2000,0 | pid=0 tid=7 thread=stream 7 device=0 | 0/stream 7;## forward ##;relu_kernel"
    expect_grep "$TMP/samples" "1,4000,0 | pid=0 tid=7 #2 thread=stream 7 #2 device=0 | 0/stream 7 #2;graph_node_b"
    "$DUMP" flat "$TMP/k.pb.gz" | grep '^total' >"$TMP/tg"
    "$DUMP" flat "$TMP/plain.pb.gz" | grep '^total' >"$TMP/tp"
    # 6 GPU samples; the same wall time as without attribution; 12500+2000+3001+4000+6250.
    read -r _ c0 w0 <"$TMP/tp"
    [ "$(cat "$TMP/tg")" = "total $((c0 + 6)) $w0 27751" ] ||
        fail "pprof totals: $(cat "$TMP/tg"), expected total $((c0 + 6)) $w0 27751"
else
    echo "gpu: no pprof_dump next to tconv: pprof sample checks skipped"
fi
if command -v go >/dev/null; then
    export HOME=$TMP GOCACHE=$TMP/gocache GOPATH=$TMP/gopath GOFLAGS= GOPROXY=off TZ=UTC
    expect_rc 0 go tool pprof -sample_index=gpu -top "$TMP/k.pb.gz"
    expect_grep "$TMP/out" "Type: gpu"
    expect_grep "$TMP/out" "Showing nodes accounting for 27.75us, 100% of 27.75us total"
fi

# The uprobe + CUPTI pair, each reader detected. CUPTI writes the pthread handle as thread id,
# so the stacks pair by process; same counts: by order, whatever the clocks.
expect_rc 0 "$TCONV" -v -w folded -W value=gpu "$G/uprobe-order.folded" "$G/uprobe-order.json"
golden gpu-uprobe-order.folded "$TMP/out"
expect_grep "$TMP/err" "reading '$G/uprobe-order.folded' with the folded reader"
expect_grep "$TMP/err" "reading '$G/uprobe-order.json' with the chrome reader"
expect_grep "$TMP/err" "tconv: 3 of 3 launch stacks matched a launch (3 by order, 0 by time, the clocks +2999999900 ns apart"
grep -q 'warning' "$TMP/err" && fail "uprobe-order: unexpected warnings: $(cat "$TMP/err")"
# A tracer that names its runtime span as the probe names its frame (cudaLaunchKernel): the
# call shows once where the two stacks meet, as the tracer's frame.
sed 's/Runtime: cudaLaunchKernel_v7000/cudaLaunchKernel/' "$G/uprobe-order.json" >"$TMP/plain.json"
expect_rc 0 "$TCONV" -w folded -W value=gpu "$G/uprobe-order.folded" "$TMP/plain.json"
expect_grep "$TMP/out" "_start;main;train_step;forward;cudaLaunchKernel;[gpu] gemm 3500"
grep -q 'cudaLaunchKernel;cudaLaunchKernel' "$TMP/out" && fail "uprobe-order: the launch call shows twice"
# Counts differ (an extra copy launch, two stacks without a launch): nearest in time once the
# clocks are aligned, within the tolerance; the copy keeps the trace's own stack.
expect_rc 0 "$TCONV" -w folded -W value=gpu -R tolerance=2us "$G/uprobe-time.folded" "$G/uprobe-time.json"
golden gpu-uprobe-time.folded "$TMP/out"
expect_grep "$TMP/err" "tconv: warning: 3 of 5 launch stacks matched a launch (0 by order, 3 by time, the clocks +2999999900 ns apart, tolerance 2000 ns); the others are left out (first: thread myapp at 2000070000 ns) [gpu.unmatched-stack, 2 times; first shown]"
expect_grep "$TMP/err" "tconv: warning: 1 of 4 launches with GPU work have no launch stack; their GPU time goes to the trace's own stack (first: thread 4242/4242 at 5000060000 ns) [gpu.unmatched-launch]"
# The default tolerance (1 ms) lets the stack 10 µs from the copy's launch take it.
expect_rc 0 "$TCONV" -w folded -W value=gpu "$G/uprobe-time.folded" "$G/uprobe-time.json"
expect_grep "$TMP/out" "_start;main;save;cudaLaunchKernel;Runtime: cudaMemcpy_v3020;[gpu] MemCopy: HtoD 20125"
expect_grep "$TMP/err" "4 of 5 launch stacks matched a launch (0 by order, 4 by time"
# The launch stacks end up on the probe's thread in pprof too.
expect_rc 0 "$TCONV" -w pprof -W gpu=attribute -W sample_type=gpu -o "$TMP/u.pb.gz" \
    "$G/uprobe-order.folded" "$G/uprobe-order.json"
if [ -x "$DUMP" ]; then
    "$DUMP" samples "$TMP/u.pb.gz" >"$TMP/samples"
    expect_grep "$TMP/samples" "default gpu"
    expect_grep "$TMP/samples" "2,0,3500 | pid=4242 tid=4242 thread=myapp input=0 | _start;main;train_step;forward;cudaLaunchKernel;Runtime: cudaLaunchKernel_v7000;[gpu] gemm"
fi
# Without attribution the pair is two unrelated inputs, counts and self times that one folded
# file cannot hold; tconv refuses and says how to relate them.
expect_rc 1 "$TCONV" -w folded "$G/uprobe-order.folded" "$G/uprobe-order.json"
expect_grep "$TMP/err" "hint: these are stacks sampled at GPU launch calls: to charge the trace's GPU time to them, ask the writer with -W value=gpu (folded) or -W gpu=attribute (pprof)"
# A writer that keeps spans and samples apart (text) converts the pair as it is.
expect_rc 0 "$TCONV" -w text "$G/uprobe-order.folded" "$G/uprobe-order.json"
expect_rc 2 "$TCONV" -w folded -W value=gpu -R tolerance=soon "$G/uprobe-order.folded" "$G/uprobe-order.json"
expect_grep "$TMP/err" "folded: tolerance=soon is not a duration (like 1500, 200us, 2ms)"

# Nothing to attribute: said once, and nothing is written.
expect_rc 0 "$TCONV" -w folded -W value=gpu "$DATA/chrome/nanoseconds.json"
[ ! -s "$TMP/out" ] || fail "no GPU input: output is not empty"
expect_grep "$TMP/err" "[gpu.none]"
echo "gpu: ok"
