#!/usr/bin/env bash
# The flamegraph writer's output in a real browser (headless chromium): see browser.py. The
# screenshots stay in the build folder (flamegraph-browser/) as artifacts.
# usage: browser.sh TCONV TESTDIR BUILDDIR TEVT_PLUGIN_DIR CORPUS
set -euo pipefail
tconv=$1 dir=$2 build=$3 tevt=$4 corpus=$5
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
    echo "chromium not installed (.ci/install-deps installs it): skipped"
    exit 77
fi
work=$build/flamegraph-browser
mkdir -p "$work"
T() { "$tconv" --plugin-path "$tevt" -q "$@"; }
T -o "$work/small.svg" "$dir/data/small.tevt"
T -o "$work/icicle.svg" -W icicle=true "$dir/data/small.tevt"
T -o "$work/hostile.svg" -W minwidth=0 "$dir/data/hostile.json"
T -o "$work/diff.svg" -W diff=true "$dir/data/small.tevt" "$dir/data/after.tevt"
args=("$chromium" "$work" "$work/small.svg" "$work/icicle.svg" "$work/hostile.svg" "$work/diff.svg")
kineto=$corpus/kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz
if [ -f "$kineto" ]; then
    T -o "$work/kineto.svg" -W title="ResNet-50 training step, CPU self time" "$kineto"
    args+=("$work/kineto.svg")
fi
exec python3 "$dir/browser.py" "${args[@]}"
