#!/usr/bin/env bash
# What the perf reader hands to writers, dumped by the core's text writer and compared with golden
# files: tracks and thread names, times, periods and sample types, frame flags, dsos, addresses,
# source lines, inlined frames, the event filter, C++ demangling and the options that change
# frames.
# usage: events.sh TCONV TESTDIR
set -euo pipefail
tconv=$1 dir=$2
pass=0 fail=0
check() { # NAME INPUT [TCONV ARGS...]
    local name=$1 input=$2
    shift 2
    local got
    got=$("$tconv" -r perf -w text "$@" "$dir/data/$input" 2>/dev/null)
    if [ "$got" == "$(cat "$dir/golden/$name.text")" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL $name"
        diff <(echo "$got") "$dir/golden/$name.text" | head -20
    fi
}
check fields fields.perf
check fields-instructions fields.perf -R event=instructions
check fields-inline-drop fields.perf -R inline=drop -R comm=false
check fields-inline-mark fields.perf -R inline=mark -R tid -R kernel
check layouts layouts.perf -R addrs
check mangled mangled.perf
check demangled mangled.perf -R demangle
# the samples of the other event are counted, not lost silently
err=$("$tconv" -r perf -w text -R event=instructions "$dir/data/fields.perf" 2>&1 >/dev/null)
if [[ "$err" == *"[perf.other-event, 3 times; first shown]"* ]]; then
    pass=$((pass + 1))
else
    fail=$((fail + 1))
    echo "FAIL other-event count: $err"
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
