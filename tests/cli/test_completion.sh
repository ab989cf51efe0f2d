# Shell completion (core/cli/completion): bash completes options, reader and writer names,
# -R/-W keys and values of the chosen (or inferred) plugin and file names, from what the tconv
# on the command line says; zsh's helpers read the same lists. Driven as bash itself does it:
# COMP_LINE and COMP_POINT, then the completion function.
source "$(dirname "$0")/lib.sh"
COMPLETION=$SRC/../core/cli/completion

cat >"$TMP/drive.bash" <<'DRIVE'
source "$1/tconv.bash"
complete -p tconv >/dev/null || { echo "no completion registered for tconv"; exit 1; }
T=$2
# c LINE: the replies for LINE with the cursor at its end, sorted, on one line
c() {
    COMP_LINE="$T $1"
    COMP_POINT=${#COMP_LINE}
    COMPREPLY=()
    _tconv
    printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//'
    echo
}
cd "$3"
c "-w pp"
c "--writer pp"
c "-r "
c "--ste"
c "-w pprof -W "
c "-w pprof -W unit="
c "-w pprof -W unit=m"
c "--writer=pprof -W gpu="
c "-o flame.svg -W ti"
c "-w chrome -W lanes="
c "-r perf -R "
c "--help-plugin fol"
c "-o out.f"
c "in"
DRIVE
mkdir "$TMP/cwd"
touch "$TMP/cwd/out.folded" "$TMP/cwd/input.json"
bash "$TMP/drive.bash" "$COMPLETION" "$TCONV" "$TMP/cwd" >"$TMP/got" 2>"$TMP/err" ||
    { cat "$TMP/got" "$TMP/err" >&2; fail "the completion driver failed"; }
[ ! -s "$TMP/err" ] || { cat "$TMP/err" >&2; fail "completion printed errors"; }
# keys KIND NAME: the option keys --help-plugin lists for reader or writer NAME, sorted, one line
keys() {
    "$TCONV" --help-plugin "$2" | awk -v kind="$1" '/^(reader|writer) / { on = ($1 == kind) }
        on && /^    [^ ]/ { print $1 }' | sort | tr '\n' ' ' | sed 's/ $//'
}
perf_keys=$(keys reader perf | sed 's/\([^ ]*\)/\1=/g')
pprof_keys=$(keys writer pprof | sed 's/\([^ ]*\)/\1=/g')
cat >"$TMP/want" <<WANT
pprof
pprof
chrome folded otf2 perf tfmem
--step-name --steps
$pprof_keys
ms ns s us
ms
attribute off
title=
false true
$perf_keys
folded
out.folded
input.json
WANT
# Readers added by plugins built later must complete too: the expected list is --list's.
readers=$("$TCONV" --list | awk '$1 == "reader" { print $2 }' | sort | tr '\n' ' ' | sed 's/ $//')
sed -i "3s/.*/$readers/" "$TMP/want"
diff -u "$TMP/want" "$TMP/got" >&2 || fail "bash completion differs (- expected, + got)"

# zsh: the file parses, and its helpers read the same names and option values. The completion
# system's own functions are stubbed to print what they are given.
if command -v zsh >/dev/null; then
    zsh -n "$COMPLETION/_tconv" || fail "_tconv does not parse"
    cat >"$TMP/drive.zsh" <<'DRIVE'
_describe() { local -a arr; arr=("${(@P)4}"); arr=("${(@)arr%%:*}"); print -r -- "describe $3: ${(j: :)${(@o)arr}}" }
compadd() { [[ $1 == -- ]] && shift; print -r -- "compadd: $*" }
compset() { [[ $PREFIX == *=* ]] || return 1; IPREFIX=${PREFIX%%=*}=; PREFIX=${PREFIX#*=} }
_message() { print -r -- "message: $*" }
_arguments() { : }
source $1/_tconv
words=($2 -w pprof -W un)
CURRENT=4
PREFIX=un
_tconv_writer_options
PREFIX=unit=m
_tconv_writer_options
words=($2 -o x.svg -W '')
PREFIX=
_tconv_writer_options
words=($2 -w '')
CURRENT=3
_tconv_writers
DRIVE
    zsh -f "$TMP/drive.zsh" "$COMPLETION" "$TCONV" >"$TMP/zgot" 2>"$TMP/zerr" ||
        { cat "$TMP/zgot" "$TMP/zerr" >&2; fail "the zsh driver failed"; }
    writers=$("$TCONV" --list | awk '$1 == "writer" { print $2 }' | sort | tr '\n' ' ' | sed 's/ $//')
    flame=$(keys writer flamegraph)
    printf '%s\n' "describe writer option: $(keys writer pprof)" \
        "compadd: ns us ms s" "describe writer option: $flame" "describe writer: $writers" >"$TMP/zwant"
    diff -u "$TMP/zwant" "$TMP/zgot" >&2 || { cat "$TMP/zerr" >&2; fail "zsh completion helpers differ"; }
else
    echo "zsh not installed: only bash completion tested (.ci/install-deps installs zsh)"
fi
echo "completion: ok"
