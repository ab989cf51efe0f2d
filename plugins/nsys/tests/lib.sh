# Shared by the nsys and rocprof reader tests: a scratch folder, assertions, and the exports
# to run on (the ones kept beside the tests, unpacked, and the corpus's when it is there).
# usage (sourced): TCONV SRC WORK CORPUS are set by the caller.
set -euo pipefail
unset TCONV_PLUGIN_PATH
mkdir -p "$WORK"
TMP=$(mktemp -d "$WORK/run.XXXXXX")
trap 'chmod -R u+w "$TMP" 2>/dev/null; rm -rf "$TMP"' EXIT
fails=0

fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

need() {
    command -v "$1" >/dev/null || {
        echo "SKIP: $1 not found (.ci/install-deps installs it)"
        exit 77
    }
}

# run CODE CMD...: CMD's exit status must be CODE; stdout in $TMP/out, stderr in $TMP/err
run() {
    local want=$1
    shift
    set +e
    "$@" >"$TMP/out" 2>"$TMP/err"
    local got=$?
    set -e
    if [ "$got" != "$want" ]; then
        fail "exit status $got, expected $want: $*"
        head -c 2000 "$TMP/err"
        return 1
    fi
}

# err_has TEXT: stderr of the last run holds TEXT
err_has() {
    grep -qF -- "$1" "$TMP/err" || {
        fail "stderr lacks '$1'"
        head -c 2000 "$TMP/err"
    }
}

finish() {
    if [ $fails -ne 0 ]; then
        echo "$fails checks failed"
        exit 1
    fi
    echo "all checks passed"
}
