#!/usr/bin/env bash
# compare-builds.sh: two builds of tconv against each other, byte for byte. Each build's CLI runs
# every input with every writer (and the writer variants below), one input at a time, and then
# the files of each folder together (-j 1 and -j 2, --keep-going), from the same working folder
# layout, so that the messages name the same paths; the exit status, stdout, stderr and the
# output (a file, or every file of a directory output) must be the same bytes.
#
# For changes that must not change what tconv makes (a refactoring): build the commit before
# and the commit after, then
#
#     tests/compare-builds.sh OLD/tconv NEW/tconv [-w pprof,folded] [-P 2] [-k] INPUT...
#
# INPUT is a file or a folder (every regular file below it; folders that hold two files or more
# are also run as one multi-input run). Without INPUT: the test corpus (../shared/corpus next
# to the source tree when it is there, else tests/corpus). -w limits the writers (default: every
# writer the new build lists); -P runs that many conversions at once; -k keeps the runs that
# differ (their folder is named). Exit status 1 when any run differs, with the first lines of
# each difference.
set -uo pipefail

usage() {
    sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

WRITERS=""
PAR=2
KEEP=0
ARGS=()
while [ $# -gt 0 ]; do
    case $1 in
    -w) WRITERS=$2; shift 2 ;;
    -P) PAR=$2; shift 2 ;;
    -k) KEEP=1; shift ;;
    -h | --help) usage ;;
    *) ARGS+=("$1"); shift ;;
    esac
done
set -- "${ARGS[@]}"
[ $# -ge 2 ] || usage
OLD=$(realpath "$1")
NEW=$(realpath "$2")
shift 2
[ -x "$OLD" ] && [ -x "$NEW" ] || { echo "compare-builds: not executables: $OLD $NEW" >&2; exit 2; }
unset TCONV_PLUGIN_PATH TCONV_FLUSH_AT_END TCONV_DEBUG

SRC=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -eq 0 ]; then
    if [ -f "$SRC/../shared/corpus/SOURCES.md" ]; then
        set -- "$SRC/../shared/corpus"
    else
        set -- "$SRC/tests/corpus"
    fi
fi

# Writers, and variants of them whose options take other paths through the core: GPU
# attribution, the stack writers' options, the csv tables, the ordered text writers.
if [ -z "$WRITERS" ]; then
    WRITERS=$("$NEW" --list 2>/dev/null | awk '$1 == "writer" {print $2}' | paste -sd, -)
fi
SPECS=()
IFS=, read -r -a wl <<<"$WRITERS"
for w in "${wl[@]}"; do
    SPECS+=("$w")
    case $w in
    pprof) SPECS+=("pprof:gpu=attribute") ;;
    folded) SPECS+=("folded:value=gpu") ;;
    csv) SPECS+=("csv:table=ops" "csv:table=kernels" "csv:table=stacks") ;;
    esac
done

WORK=$(mktemp -d)
[ $KEEP = 1 ] || trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/old" "$WORK/new" "$WORK/diff"

# One job per line: KIND<TAB>SPEC<TAB>INPUTS (files joined by a newline-free separator \x1f).
JOBS=$WORK/jobs
: >"$JOBS"
for root in "$@"; do
    root=$(realpath "$root")
    if [ -f "$root" ]; then
        files=("$root")
    else
        mapfile -t files < <(find "$root" -type f ! -name '*.md' | LC_ALL=C sort)
    fi
    for spec in "${SPECS[@]}"; do
        for f in "${files[@]}"; do
            printf 'one\t%s\t%s\n' "$spec" "$f" >>"$JOBS"
        done
    done
    [ -d "$root" ] || continue
    # every folder with two files or more, its files as one run
    while IFS= read -r dir; do
        mapfile -t fs < <(find "$dir" -maxdepth 1 -type f ! -name '*.md' | LC_ALL=C sort)
        [ "${#fs[@]}" -ge 2 ] || continue
        joined=$(printf '%s\x1f' "${fs[@]}")
        for spec in "${SPECS[@]}"; do
            printf 'j1\t%s\t%s\n' "$spec" "$joined" >>"$JOBS"
            printf 'j2\t%s\t%s\n' "$spec" "$joined" >>"$JOBS"
        done
    done < <(find "$root" -type d | LC_ALL=C sort)
done

# run_one N KIND SPEC INPUTS: both builds, compared; prints "same" or "DIFF ..." on one line.
run_one() {
    local n=$1 kind=$2 spec=$3 inputs=$4
    local writer=${spec%%:*} wopt=""
    [ "$spec" != "$writer" ] && wopt=${spec#*:}
    local args=(-w "$writer")
    [ -n "$wopt" ] && args+=(-W "$wopt")
    case $kind in
    j1) args+=(-j 1 --keep-going) ;;
    j2) args+=(-j 2 --keep-going) ;;
    esac
    local ins=()
    IFS=$'\x1f' read -r -a ins <<<"$inputs"
    for side in old new; do
        local bin=$OLD
        [ $side = new ] && bin=$NEW
        local d=$WORK/$side/$n
        mkdir -p "$d"
        (cd "$d" && timeout 600 "$bin" "${args[@]}" -o out "${ins[@]}" >stdout 2>stderr </dev/null
         echo $? >rc)
    done
    local a=$WORK/old/$n b=$WORK/new/$n
    if diff -r "$a" "$b" >"$WORK/diff/$n" 2>&1; then
        echo "same $(cat "$b/rc") $kind $spec ${ins[0]}"
        rm -rf "$a" "$b" "$WORK/diff/$n"
    else
        echo "DIFF $kind $spec ${ins[*]} (see $WORK/diff/$n)"
        { echo "== $kind $spec ${ins[*]}"; head -n 20 "$WORK/diff/$n"; } >>"$WORK/report"
    fi
}
export -f run_one
export OLD NEW WORK

total=$(wc -l <"$JOBS")
echo "compare-builds: $total runs of each build, $PAR at once" >&2
nl -ba -w1 -s$'\t' "$JOBS" |
    xargs -d '\n' -P "$PAR" -n 1 bash -c 'IFS=$'"'"'\t'"'"' read -r n kind spec ins <<<"$0"; run_one "$n" "$kind" "$spec" "$ins"' \
        >"$WORK/results"
same=$(grep -c '^same' "$WORK/results")
ok=$(grep -c '^same 0 ' "$WORK/results")
differ=$(grep -c '^DIFF' "$WORK/results")
echo "compare-builds: $same of $total runs the same ($ok of them succeeded), $differ differ"
if [ "$differ" -gt 0 ]; then
    cat "$WORK/report"
    exit 1
fi
