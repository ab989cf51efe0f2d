#!/usr/bin/env bash
# seeds.sh OUT: assembles the fuzzers' starting corpora in OUT/<reader>/ from the curated seeds
# committed next to this script, the test suite's own data, generated memory profiles, and the
# corpus (../shared/corpus when present, else the slice in tests/corpus). Large files are cut to
# their first 64 KiB (a cut text or JSON file is still a useful input: the readers must handle
# truncation) and gzip files over 64 KiB are left out. Existing files in OUT are kept, so a
# corpus grows across runs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=${1:?usage: seeds.sh OUT}
corpus=${TCONV_CORPUS_DIR:-$repo/../shared/corpus}
[ -d "$corpus" ] || corpus=$repo/tests/corpus
max=65536

# add READER FILE...: copy each file in, named by its content so repeats collapse.
add() {
    local reader=$1
    shift
    mkdir -p "$out/$reader"
    local f sum
    for f in "$@"; do
        [ -f "$f" ] || continue
        local size
        size=$(stat -c %s "$f")
        if [ "$(head -c 2 "$f" | od -An -tx1 | tr -d ' ')" = 1f8b ]; then
            [ "$size" -le $max ] || continue
            sum=$(sha1sum <"$f" | cut -c1-16)
            cp "$f" "$out/$reader/$sum"
        else
            sum=$(head -c $max "$f" | sha1sum | cut -c1-16)
            head -c $max "$f" >"$out/$reader/$sum"
        fi
    done
}

for r in chrome tfmem perf folded otf2 firefox perfetto rocprof; do
    add $r "$here"/seeds/$r/*
done
add rocprof "$repo"/plugins/rocprof/tests/data/*.json "$repo"/plugins/rocprof/tests/data/*.rpd.gz
add chrome "$repo"/tests/data/chrome/* "$repo"/plugins/otf2/tests/data/*.json \
    "$repo"/plugins/pprof/tests/data/chrome/*.json "$repo"/plugins/folded/tests/data/*.json \
    "$repo"/examples/traces/*.gz
add perf "$repo"/plugins/perf/tests/data/*.perf
add perfetto "$repo"/plugins/perfetto/tests/data/*.pftrace
add folded "$repo"/plugins/folded/tests/data/*.folded "$repo"/plugins/folded/tests/golden/*.folded
add pprof "$repo"/plugins/pprof/tests/input/data/*.gz "$repo"/plugins/pprof/tests/input/data/*.pprof \
    "$repo"/plugins/pprof/tests/input/data/*.prof
add speedscope "$repo"/plugins/speedscope/tests/data/*.json
add firefox "$repo"/plugins/firefox/tests/data/*.json
# The JSON lexer alone (fuzz_json): its differential inputs and the Chrome test traces.
add json "$repo"/tests/data/json/*.json "$repo"/tests/data/chrome/*.json

# Memory profiles are generated (no real one is public).
if command -v python3 >/dev/null; then
    gen=$(mktemp -d)
    python3 "$repo/tests/tfmem/gen_tfmem.py" "$gen" >/dev/null
    add tfmem $(find "$gen" -name '*memory_profile*' -o -path '*/bad/*' | sort)
    add chrome $(find "$gen" -name '*.trace.json.gz' | sort)
    rm -rf "$gen"
fi

if [ -d "$corpus" ]; then
    add chrome $(find "$corpus" -type f \( -name '*.json' -o -name '*.json.gz' -o -name '*.gz' \) \
        -not -path '*/fastotf2/*' | sort)
    add perfetto $(find "$corpus/perfetto" -type f \( -name '*.pftrace' -o -name '*.pb' \) 2>/dev/null | sort)
    add perf $(find "$corpus/FlameGraph/test" "$corpus/inferno/tests/data/collapse-perf" \
        "$corpus/speedscope/sample/profiles/linux-perf" "$corpus/flamescope/examples" \
        "$corpus/firefox-profiler/src/test/fixtures/upgrades" -maxdepth 1 -type f \
        -not -name '*.json*' 2>/dev/null | sort)
    add folded $(find "$corpus/FlameGraph/test/results" "$corpus/inferno/tests/data" \
        "$corpus/speedscope/sample/profiles/stackcollapse" "$corpus/_generated" -type f \
        \( -path '*results*' -o -path '*flamegraph*' -o -path '*stackcollapse*' \) 2>/dev/null |
        sort)
fi
for r in chrome tfmem perf folded json pprof speedscope firefox perfetto rocprof; do
    echo "seeds: $r: $(ls "$out/$r" | wc -l) files, $(du -sh "$out/$r" | cut -f1)"
done
