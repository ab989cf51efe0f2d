#!/usr/bin/env bash
# run.sh [BUILD_DIR [NAME_REGEX]]: runs every test that drives the tconv executable (the CLI,
# hostile-input and plugin tests) with each tconv run under valgrind memcheck. A run with a memory
# error or a definite or indirect leak fails its test (exit status 99) and is listed at the end,
# whatever the test made of that exit status. Too slow for CI (20 minutes to an hour on two
# cores): run it on demand, after changing how memory is owned or freed.
#
# BUILD_DIR (default build-valgrind) is configured as a RelWithDebInfo build and built when
# needed; it must not be a sanitizer build. For the length of the run its tconv is a script that
# starts the real executable, renamed tconv.bin beside it (so that plugins are still found next
# to it), under valgrind; the executable is put back at the end. NAME_REGEX keeps only the tests
# whose name it matches (a regular expression, searched).
#
# The tests come from ctest's list (ctest --show-only=json-v1) and run here rather than under
# ctest, whose per-test timeouts are minutes; VALGRIND_JOBS (default 2) at a time, each within
# VALGRIND_TIMEOUT seconds (default 14400). Left out: failalloc.sweep (its LD_PRELOAD shim
# would be loaded into valgrind itself) and cli.example (it runs an installed copy of tconv, not
# the build's). The hostile.* tests see TCONV_TEST_VALGRIND=1: they run their smaller
# (sanitizer) sizes and check outcomes but not their time and memory limits.
#
# Results go to BUILD_DIR/valgrind/: tests/NAME.log (each test's output), logs/NAME/ (valgrind's
# log of each tconv run) and summary.txt.
set -euo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$SRC/build-valgrind}
FILTER=${2:-}
JOBS=${VALGRIND_JOBS:-2}
LIMIT=${VALGRIND_TIMEOUT:-14400}
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
command -v valgrind >/dev/null || {
    echo "SKIP: valgrind (Debian package valgrind) is needed" >&2
    exit 77
}

# An interrupted earlier run may have left its script in place of the executable.
restore() {
    if [ -f "$BUILD/tconv.bin" ]; then mv -f "$BUILD/tconv.bin" "$BUILD/tconv"; fi
}
restore
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
    cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
if grep -q '^TCONV_SANITIZE:BOOL=ON' "$BUILD/CMakeCache.txt"; then
    fail "$BUILD is a sanitizer build: valgrind cannot run it"
fi
cmake --build "$BUILD" -j "$JOBS" >/dev/null
BUILD=$(cd "$BUILD" && pwd)
OUT=$BUILD/valgrind
rm -rf "$OUT"
mkdir -p "$OUT/tests" "$OUT/logs" "$OUT/cmd" "$OUT/status"

# The test list, one small script per test that does what ctest would: the test's folder, its
# environment, its command.
ctest --test-dir "$BUILD" --show-only=json-v1 >"$OUT/tests.json"
python3 - "$OUT" "$BUILD/tconv" "$FILTER" <<'PY'
import json, re, shlex, sys
out, tconv, pattern = sys.argv[1:4]
skipped = {"failalloc.sweep", "cli.example"}
names = []
for t in json.load(open(out + "/tests.json"))["tests"]:
    name, cmd = t["name"], t.get("command", [])
    if tconv not in cmd or name in skipped or (pattern and not re.search(pattern, name)):
        continue
    props = {p["name"]: p["value"] for p in t.get("properties", [])}
    with open(f"{out}/cmd/{name}.sh", "w") as f:
        f.write(f"cd {shlex.quote(props.get('WORKING_DIRECTORY', '.'))}\n")
        for kv in props.get("ENVIRONMENT", []):
            f.write(f"export {shlex.quote(kv)}\n")
        f.write(f"exec {shlex.join(cmd)}\n")
    names.append(f"{name} {props.get('SKIP_RETURN_CODE', '')}")
open(out + "/list", "w").write("".join(n + "\n" for n in names))
PY
[ -s "$OUT/list" ] || fail "no test runs tconv${FILTER:+ and matches '$FILTER'}"

mv "$BUILD/tconv" "$BUILD/tconv.bin"
trap restore EXIT
# The log goes to a descriptor opened here: a file valgrind opened itself would take the lowest
# free descriptor, the standard output when a test closed it to see tconv fail to write.
cat >"$BUILD/tconv" <<EOF
#!/bin/sh
# tconv under valgrind, written by tests/valgrind/run.sh; the executable is tconv.bin.
dir=\${TCONV_VALGRIND_LOGS:-$OUT/logs/other}
mkdir -p "\$dir"
exec 9>"\$dir/\$\$.\$(date +%s%N).log"
exec valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=99 \\
    --num-callers=40 --log-fd=9 "$BUILD/tconv.bin" "\$@"
EOF
chmod +x "$BUILD/tconv"

run_test() { # run_test NAME SKIP_CODE
    local name=$1 skip=$2 start rc status
    start=$(date +%s)
    set +e
    TCONV_VALGRIND_LOGS=$OUT/logs/$name TCONV_TEST_VALGRIND=1 timeout "$LIMIT" \
        bash "$OUT/cmd/$name.sh" >"$OUT/tests/$name.log" 2>&1 </dev/null
    rc=$?
    set -e
    case $rc in
    0) status=passed ;;
    124) status=timeout ;;
    *) status=failed ;;
    esac
    [ -n "$skip" ] && [ "$rc" = "$skip" ] && status=skipped
    echo "$status $(($(date +%s) - start))" >"$OUT/status/$name"
    printf '%-48s %-8s %5s s\n' "$name" "$status" "$(($(date +%s) - start))"
}

started=$(date +%s)
running=0
while read -r name skip; do
    if [ "$running" -ge "$JOBS" ]; then
        wait -n || true
        running=$((running - 1))
    fi
    run_test "$name" "$skip" &
    running=$((running + 1))
done <"$OUT/list"
wait

# Every valgrind log ends with its error summary; one without it belongs to a run that was
# killed (SIGKILL, or valgrind's own failure), listed apart.
{
    echo "valgrind: $(wc -l <"$OUT/list") tests, $(find "$OUT/logs" -name '*.log' | wc -l) tconv runs," \
        "$(($(date +%s) - started)) s"
    count() { cat "$OUT"/status/* | grep -c "^$1 " || true; }
    echo "tests: $(count passed) passed, $(count skipped) skipped, $(count failed) failed," \
        "$(count timeout) timed out"
    for f in "$OUT"/status/*; do
        read -r s _ <"$f"
        [ "$s" = passed ] || echo "  $s: $(basename "$f")"
    done
    reports=0
    while read -r log; do
        [ -n "$log" ] || continue
        echo "--- ${log#"$OUT"/}"
        grep -m1 '^==[0-9]*== Command:' "$log" | sed 's/^==[0-9]*== /    /'
        if grep -q 'ERROR SUMMARY' "$log"; then
            reports=$((reports + 1))
            grep -E '^==[0-9]*== (Invalid|Conditional|Use of|Syscall|Mismatched|Source and|Argument|.* (definitely|indirectly) lost in)' "$log" |
                head -n 5 | sed 's/^==[0-9]*== /    /'
        else
            echo "    no error summary: the run was killed"
        fi
    done < <(grep -rL 'ERROR SUMMARY: 0 errors' "$OUT/logs" --include='*.log' || true)
    echo "runs with a valgrind report: $reports"
} | tee "$OUT/summary.txt"
! grep -qE '^  (failed|timeout): |^runs with a valgrind report: [^0]' "$OUT/summary.txt"
