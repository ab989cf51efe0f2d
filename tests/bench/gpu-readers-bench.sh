#!/usr/bin/env bash
# Rows per second of the GPU profilers' readers against the Chrome reader's events per second
# (on demand; not a CI test).
#
# usage: tests/bench/gpu-readers-bench.sh BUILD_DIR [SCALE]
#   BUILD_DIR  a Release build of tconv (cmake -DCMAKE_BUILD_TYPE=Release)
#   SCALE      copies of each nsys export laid end to end in time (default 200)
# environment:
#   ROCSCALE=N    copies of the rocprofv3 document's records (default 5: about as many rows as
#                 the Chrome trace has events)
#   RUNS=N        runs per measurement, the best of which is shown (default 3)
#   CALLGRIND=1   also count instructions per row with valgrind --tool=callgrind, the figure to
#                 compare on a shared machine
#
# Inputs: the corpus's largest nsys export (pipit-saxpy-mpi-cuda-rank0, schema 2.9.1, mostly CPU
# samples, CUDA backtraces; read with -R samples=true) and the one with most traced calls
# (fuser-64ee035-report1, NVTX and CUDA driver calls), each made SCALE times longer by SQL
# (each copy of every event table shifted in time, correlation id and sample id, so the copies
# neither overlap nor correlate across); the corpus's rocprofv3 JSON (43 915 kernel dispatches,
# 37 MB, half of it the 9 889 kernel symbols), as it is and with its buffer records ROCSCALE
# times, shifted likewise (the symbols, as StringIds, once); and, for the Chrome reader, a
# Kineto-like trace of tests/bench/gen_trace.py of about as many events as the scaled fuser
# export has rows.
# A row is a row of a table the reader reads (kernels, calls, ranges, samples: not StringIds);
# an event is a Chrome trace event. The Chrome reader is measured at the default -j, which reads
# its event array in parts on every core (docs/scale.md), and at -j 1; so is the nsys reader of
# CPU samples, which at the default -j reads the samples' frames on a second thread. Each line: seconds, rows
# (events) per second, CPU seconds, peak RSS; the load average is printed with them, since the
# machine may be shared.
set -euo pipefail
BUILD=${1:?usage: gpu-readers-bench.sh BUILD_DIR [SCALE]}
SCALE=${2:-200}
ROCSCALE=${ROCSCALE:-5}
RUNS=${RUNS:-3}
TCONV=$BUILD/tconv
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CORPUS=$ROOT/../shared/corpus
NSYS=$CORPUS/nsys/pipit-saxpy-mpi-cuda-rank0.sqlite
ROCPROF=$CORPUS/rocm/tracelens-908_results.json.gz
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for f in "$NSYS" "$ROCPROF"; do [ -f "$f" ] || { echo "no $f: the corpus is needed" >&2; exit 77; }; done
command -v sqlite3 >/dev/null || { echo "sqlite3 is needed" >&2; exit 77; }

# scale IN OUT: IN's event tables (and CPU samples with their frames) again SCALE-1 times, each
# copy after the last in time, with its own correlation and sample ids; prints the rows.
scale() {
    cp "$1" "$2"
    chmod u+w "$2"
    python3 - "$2" "$SCALE" <<'PY'
import sqlite3, sys
db, scale = sys.argv[1], int(sys.argv[2])
c = sqlite3.connect(db)
have = {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
tables = [t for t in ("CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_KERNEL",
                      "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
                      "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "NVTX_EVENTS", "OSRT_API",
                      "PROFILER_OVERHEAD", "COMPOSITE_EVENTS", "SAMPLING_CALLCHAINS",
                      "CUDA_CALLCHAINS") if t in have]
lo = min(c.execute("SELECT min(start) FROM %s" % t).fetchone()[0] or 0 for t in tables
         if t not in ("SAMPLING_CALLCHAINS", "CUDA_CALLCHAINS"))
hi = max(c.execute("SELECT max(%s) FROM %s" % ("start" if t == "COMPOSITE_EVENTS" else "end", t))
         .fetchone()[0] or 0 for t in tables if t not in ("SAMPLING_CALLCHAINS", "CUDA_CALLCHAINS"))
span = hi - lo + 1000
corr = (c.execute("SELECT max(correlationId) FROM CUPTI_ACTIVITY_KIND_RUNTIME").fetchone()[0] or 0) + 1
ids = {t: (c.execute("SELECT max(id) FROM %s" % t).fetchone()[0] or 0) + 1
       for t in ("COMPOSITE_EVENTS", "CUDA_CALLCHAINS") if t in have}
rows = 0
for t in tables:
    cols = [r[1] for r in c.execute("PRAGMA table_info(%s)" % t)]
    c.execute("CREATE TEMP TABLE orig AS SELECT * FROM %s" % t)
    for k in range(1, scale):
        sel = []
        for col in cols:
            if col in ("start", "end"):
                sel.append("%s + %d" % (col, k * span))
            elif col == "correlationId":
                sel.append("%s + %d" % (col, k * corr))
            elif col == "id" and t in ("COMPOSITE_EVENTS", "SAMPLING_CALLCHAINS"):
                sel.append("id + %d" % (k * ids["COMPOSITE_EVENTS"]))
            elif (col == "id" and t == "CUDA_CALLCHAINS") or col == "callchainId" and t == "CUPTI_ACTIVITY_KIND_RUNTIME":
                sel.append("%s + %d" % (col, k * ids.get("CUDA_CALLCHAINS", 0)))
            else:
                sel.append('"%s"' % col)
        c.execute("INSERT INTO %s SELECT %s FROM orig" % (t, ", ".join(sel)))
    c.execute("DROP TABLE orig")
    if t not in ("SAMPLING_CALLCHAINS", "CUDA_CALLCHAINS"):
        rows += c.execute("SELECT count(*) FROM %s" % t).fetchone()[0]
c.commit()
c.execute("VACUUM")
print(rows)
PY
}
rows=$(scale "$NSYS" "$TMP/pipit.sqlite")
rows2=$(scale "$CORPUS/nsys/fuser-64ee035-report1.sqlite" "$TMP/fuser.sqlite")
# rocprofv3: every kernel dispatch and API record (this file has dispatches only); the scaled
# copy's records again ROCSCALE-1 times, each copy after the last in time, with its own
# correlation and dispatch ids
rocrows=$(python3 -c '
import gzip, json, sys
d = json.load(gzip.open(sys.argv[1]))
print(sum(len(v) for p in d["rocprofiler-sdk-tool"] for v in p["buffer_records"].values()))' "$ROCPROF")
rocrows2=$(python3 - "$ROCPROF" "$TMP/rocprof.json" "$ROCSCALE" <<'PY'
import copy, gzip, json, sys
d = json.load(gzip.open(sys.argv[1]))
k = int(sys.argv[3])
rows = 0
for p in d["rocprofiler-sdk-tool"]:
    recs = [r for v in p["buffer_records"].values() for r in v]
    lo = min(r["start_timestamp"] for r in recs)
    span = max(r["end_timestamp"] for r in recs) - lo + 1000
    corr = max(r["correlation_id"]["internal"] for r in recs) + 1
    for kind, v in p["buffer_records"].items():
        out = []
        for i in range(k):
            for r in v:
                r = copy.deepcopy(r)
                r["start_timestamp"] += i * span
                r["end_timestamp"] += i * span
                r["correlation_id"]["internal"] += i * corr
                if "dispatch_info" in r:
                    r["dispatch_info"]["dispatch_id"] += i * corr
                out.append(r)
        p["buffer_records"][kind] = out
        rows += len(out)
json.dump(d, open(sys.argv[2], "w"), separators=(",", ":"))
print(rows)
PY
)
# Chrome: about as many events as the fuser export has rows (~130 bytes an event)
python3 "$ROOT/tests/bench/gen_trace.py" "$TMP/kineto.json" $(((rows2 * 130 + 999999) / 1000000)) >/dev/null
events=$("$TCONV" -q -w text "$TMP/kineto.json" | grep -cv '^track\|^sampletype' || true)

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "inputs: nsys pipit x$SCALE $(du -h "$TMP/pipit.sqlite" | cut -f1) $rows rows (CPU samples" \
     "included); nsys fuser x$SCALE $(du -h "$TMP/fuser.sqlite" | cut -f1) $rows2 rows;" \
     "rocprofv3 JSON $rocrows rows, x$ROCSCALE $(du -h "$TMP/rocprof.json" | cut -f1) $rocrows2 rows;" \
     "Kineto JSON $(du -h "$TMP/kineto.json" | cut -f1) $events events"

# measure LABEL N CMD...: the best of RUNS runs; N rows or events
measure() {
    local label=$1 n=$2
    shift 2
    local best= best_cpu= rss=0 secs usr sys r
    for ((i = 0; i < RUNS; i++)); do
        rm -rf "$TMP/out"
        # Wall time from the clock in ns (time's %e has 10 ms steps, a fifth of a small run).
        local t0 t1
        t0=$(date +%s%N)
        /usr/bin/time -f "%U %S %M" -o "$TMP/time" "$@" >/dev/null 2>"$TMP/err" || {
            cat "$TMP/err" >&2
            exit 1
        }
        t1=$(date +%s%N)
        read -r usr sys r <"$TMP/time"
        secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.4f", (b - a) / 1e9}')
        local cpu
        cpu=$(awk -v u="$usr" -v s="$sys" 'BEGIN{print u + s}')
        if [ -z "$best" ] || awk -v a="$secs" -v b="$best" 'BEGIN{exit !(a < b)}'; then best=$secs; fi
        if [ -z "$best_cpu" ] || awk -v a="$cpu" -v b="$best_cpu" 'BEGIN{exit !(a < b)}'; then best_cpu=$cpu; fi
        [ "$r" -gt "$rss" ] && rss=$r
    done
    awk -v l="$label" -v s="$best" -v c="$best_cpu" -v n="$n" -v r="$rss" 'BEGIN {
        printf "  %-30s %6.3f s %10.0f /s %6.2f s CPU %10.0f /CPU s %7.1f MB RSS", l, s,
               (s > 0 ? n / s : 0), c, (c > 0 ? n / c : 0), r / 1024 }'
    if [ "${CALLGRIND:-0}" = 1 ]; then
        rm -rf "$TMP/out"
        valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" >/dev/null 2>"$TMP/cg" || true
        awk -v n="$n" '/refs:/ { gsub(",", "", $NF); printf "  %8.0f instr/row", $NF / n }' "$TMP/cg"
    fi
    echo
}

for w in pprof otf2; do
    measure "nsys pipit (samples) -> $w" "$rows" "$TCONV" -q -R samples=true -w $w -o "$TMP/out" \
        "$TMP/pipit.sqlite"
    # The samples' frames on the calling thread: the run above reads them on a second one.
    measure "nsys pipit (samples) -j 1 -> $w" "$rows" "$TCONV" -q -j 1 -R samples=true -w $w \
        -o "$TMP/out" "$TMP/pipit.sqlite"
    measure "nsys fuser -> $w" "$rows2" "$TCONV" -q -w $w -o "$TMP/out" "$TMP/fuser.sqlite"
    measure "rocprofv3 JSON -> $w" "$rocrows" "$TCONV" -q -w $w -o "$TMP/out" "$ROCPROF"
    measure "rocprofv3 JSON x$ROCSCALE -> $w" "$rocrows2" "$TCONV" -q -w $w -o "$TMP/out" \
        "$TMP/rocprof.json"
    measure "chrome (Kineto) -> $w" "$events" "$TCONV" -q -w $w -o "$TMP/out" "$TMP/kineto.json"
    # The Chrome reader on one thread: the run above reads its event array in parts on every
    # core (-j).
    measure "chrome (Kineto) -j 1 -> $w" "$events" "$TCONV" -q -j 1 -w $w -o "$TMP/out" \
        "$TMP/kineto.json"
done
