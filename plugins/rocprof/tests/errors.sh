#!/usr/bin/env bash
# How the rocprof reader takes its inputs and what it says when they are not what it needs:
#   - detection: rocprofv3 JSON and rpd are its own; Chrome trace JSON (Kineto, rocprof v1) stays
#     the chrome reader's; an rpd database's gzip and stdin read like the file;
#   - a JSON document cut short or broken: exit 1 at the byte; JSON that is not rocprofv3's,
#     a rocprofiler-sdk rocpd database, an nsys export: exit 1 with what it is instead;
#   - a record without its times: a counted warning, or under -R strict=true an error at its
#     byte; a kernel id no symbol describes: named by its id, counted.
# usage: errors.sh TCONV SRC WORK CORPUS
TCONV=$1 SRC=$2 WORK=$3/errors CORPUS=$4
. "$SRC/../../nsys/tests/lib.sh"
need sqlite3
need python3
syn=$SRC/data/synthetic-rocprofv3-api.json
gzip -dc "$SRC/data/rocmProfileData-matmul_result.rpd.gz" >"$TMP/m.rpd"

# ---- detection -------------------------------------------------------------------------------
run 0 "$TCONV" -q -w text -o "$TMP/a.txt" "$syn"
run 0 "$TCONV" -q -r rocprof -w text -o "$TMP/b.txt" "$syn"
cmp -s "$TMP/a.txt" "$TMP/b.txt" || fail "rocprofv3 JSON is not detected as rocprof"
cp "$syn" "$TMP/noext"
run 0 "$TCONV" -q -w text -o "$TMP/c.txt" "$TMP/noext"
cmp -s "$TMP/a.txt" "$TMP/c.txt" || fail "rocprofv3 JSON without its extension is not detected"
kineto=$SRC/../../../examples/traces/kineto-minitoy.json.gz
run 0 "$TCONV" -q -w text -o "$TMP/k1.txt" "$kineto"
run 0 "$TCONV" -q -r chrome -w text -o "$TMP/k2.txt" "$kineto"
cmp -s "$TMP/k1.txt" "$TMP/k2.txt" || fail "a Kineto trace is not left to the chrome reader"
v1=$CORPUS/otf2_cli_chrome_trace_converter/tests/data/memcpy-host-device.rocprofiler.json.gz
[ -f "$v1" ] || v1=$(find "$CORPUS/otf2_cli_chrome_trace_converter" -name '*rocprofiler*.json*' 2>/dev/null | head -n 1)
if [ -n "$v1" ] && [ -f "$v1" ]; then
    run 0 "$TCONV" -q -w text -o "$TMP/v1a.txt" "$v1"
    run 0 "$TCONV" -q -r chrome -w text -o "$TMP/v1b.txt" "$v1"
    cmp -s "$TMP/v1a.txt" "$TMP/v1b.txt" || fail "rocprof v1's Chrome JSON is not the chrome reader's"
    run 1 "$TCONV" -q -r rocprof -w text "$v1" && err_has "not rocprofv3 output"
fi
run 0 "$TCONV" -q -w text -o "$TMP/r1.txt" "$TMP/m.rpd"
run 0 "$TCONV" -q -w text -o "$TMP/r2.txt" "$SRC/data/rocmProfileData-matmul_result.rpd.gz"
mkdir -p "$TMP/tmpdir"
TMPDIR=$TMP/tmpdir run 0 "$TCONV" -q -w text -o "$TMP/r3.txt" - <"$TMP/m.rpd"
cmp -s "$TMP/r1.txt" "$TMP/r2.txt" || fail "the rpd's gzip gives other events than the file"
cmp -s "$TMP/r1.txt" "$TMP/r3.txt" || fail "the rpd on stdin gives other events than the file"
[ -z "$(ls -A "$TMP/tmpdir")" ] || fail "temporary copies left behind"

# ---- refusals --------------------------------------------------------------------------------
head -c 3000 "$syn" >"$TMP/cut.json"
run 1 "$TCONV" -q -w text "$TMP/cut.json" && err_has "cut.json:" && err_has "cut short"
sed 's/"start_timestamp": 3000/"start_timestamp": 30q0/' "$syn" >"$TMP/broken.json"
run 1 "$TCONV" -q -r rocprof -w text "$TMP/broken.json" && err_has "broken.json:"
printf '[{"ph":"X","name":"a","ts":1,"dur":2,"pid":1,"tid":1}]' >"$TMP/chrome.json"
run 1 "$TCONV" -q -r rocprof -w text "$TMP/chrome.json" &&
    err_has "not a rocprofv3 JSON document" && err_has "-r chrome"
printf '{"traceEvents":[]}' >"$TMP/object.json"
run 1 "$TCONV" -q -r rocprof -w text "$TMP/object.json" && err_has "not rocprofv3 output"
sqlite3 "$TMP/sdk.db" "CREATE TABLE rocpd_info_node_0123(id INTEGER); CREATE TABLE rocpd_string_0123(id INTEGER, string TEXT)"
run 1 "$TCONV" -q -r rocprof -w text "$TMP/sdk.db" && err_has "rocprofiler-sdk rocpd database" &&
    err_has "--output-format json"
nsys=$SRC/../../nsys/tests/data/fuser-64ee035-report1.sqlite.gz
run 1 "$TCONV" -q -r rocprof -w text "$nsys" && err_has "-r nsys"
head -c 50000 "$TMP/m.rpd" >"$TMP/cut.rpd"
run 1 "$TCONV" -q -w text "$TMP/cut.rpd" && err_has "truncated"

# ---- bad records ------------------------------------------------------------------------------
python3 - "$syn" "$TMP" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
p = doc["rocprofiler-sdk-tool"][0]
del p["buffer_records"]["kernel_dispatch"][0]["end_timestamp"]
p["buffer_records"]["kernel_dispatch"][1]["dispatch_info"]["kernel_id"] = 99
json.dump(doc, open(sys.argv[2] + "/bad.json", "w"), indent=1)
PY
run 0 "$TCONV" -w text -o "$TMP/bad.txt" "$TMP/bad.json" &&
    err_has "a kernel dispatch without its times; skipped [rocprof.bad-record]" &&
    err_has "kernel id 99 is not among the kernel symbols"
grep -q 'name="kernel 99"' "$TMP/bad.txt" || fail "the unknown kernel is not named by its id"
[ "$(grep -c 'cat="kernel"' "$TMP/bad.txt")" = 2 ] || fail "not 2 kernels around the bad one"
run 1 "$TCONV" -q -R strict=true -w text "$TMP/bad.json" && err_has "a kernel dispatch without its times"
finish
