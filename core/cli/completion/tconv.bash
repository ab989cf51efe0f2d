# bash completion for tconv. Reader and writer names come from `tconv --list`, their -R/-W keys
# and values from `tconv --help-plugin NAME`, and the options from `tconv --help`, so plugins
# and options added later complete too. The tconv asked is the one the command line names (a
# path, or the one on PATH), with the --plugin-path folders given so far.
#
# bash splits the line at '=' and ':' (COMP_WORDBREAKS), which would cut "-W unit=ms" into three
# words; the line is split here at blanks only, and the replies are trimmed back to the part of
# the word that bash replaces.

# _tconv_split: the words of the line up to the cursor, split at blanks, into _tconv_w; the
# last one (maybe empty) is the word being completed.
_tconv_split()
{
    local line=${COMP_LINE:0:COMP_POINT}
    read -ra _tconv_w <<<"$line"
    [[ -z $line || $line == *[[:blank:]] ]] && _tconv_w+=("")
}

# The plugin-path options on the line so far, to pass on to the tconv that is asked.
_tconv_plugin_args()
{
    local i n=$((${#_tconv_w[@]} - 1))
    _tconv_pargs=()
    for ((i = 1; i < n; i++)); do
        case ${_tconv_w[i]} in
        --plugin-path) _tconv_pargs+=(--plugin-path "${_tconv_w[i + 1]}") ;;
        --plugin-path=*) _tconv_pargs+=("${_tconv_w[i]}") ;;
        esac
    done
}

_tconv_ask()
{
    "$_tconv_cmd" "${_tconv_pargs[@]}" "$@" 2>/dev/null
}

# Names of the readers (reader) or writers (writer) of `tconv --list`.
_tconv_names()
{
    _tconv_ask --list | awk -v kind="$1" '$1 == kind { print $2 }'
}

# The options `tconv --help` lists: the words that start its option lines.
_tconv_options()
{
    _tconv_ask --help | awk '/^  +-/ {
        for (i = 1; i <= NF && $i ~ /^-/; i++) { sub(/,$/, "", $i); print $i }
    }'
}

# The value of the last option given as SHORT or LONG (any of its spellings) before the word
# being completed.
_tconv_value_of()
{
    local i w short=$1 long=$2 v= n=$((${#_tconv_w[@]} - 1))
    for ((i = 1; i < n; i++)); do
        w=${_tconv_w[i]}
        case $w in
        "$short" | "$long") v=${_tconv_w[i + 1]} ;;
        "$long"=*) v=${w#*=} ;;
        "$short"?*) v=${w#"$short"} ;;
        esac
    done
    printf '%s\n' "$v"
}

# The writer the -o name picks when no -w is given, by the endings each writer declares.
_tconv_inferred_writer()
{
    local out name
    out=$(_tconv_value_of -o --output)
    [[ -n $out ]] || return
    for name in $(_tconv_names writer); do
        _tconv_ask --help-plugin "$name" | awk -v out="$out" '
            /picked by output names ending in:/ {
                n = split($NF, ext, "|")
                for (k = 1; k <= n; k++) {
                    e = "." ext[k]
                    if (length(out) > length(e) && substr(out, length(out) - length(e) + 1) == e)
                        found = 1
                }
            }
            END { exit !found }' && { printf '%s\n' "$name"; return; }
    done
}

# "key=" for each option of reader or writer NAME, or the key's values when cur is "key=...".
_tconv_plugin_options()
{
    local kind=$1 name=$2 cur=$3 lines k v
    [[ -n $name ]] || return
    lines=$(_tconv_ask --help-plugin "$name" | awk -v kind="$kind" '
        /^(reader|writer) / { inside = ($1 == kind) }
        inside && /^    [^ ]/ { print $1, $2 }')
    if [[ $cur != *=* ]]; then
        COMPREPLY=($(compgen -W "$(awk '{ print $1 "=" }' <<<"$lines")" -- "$cur"))
        compopt -o nospace 2>/dev/null
        return
    fi
    while read -r k v; do
        [[ $k == "${cur%%=*}" ]] || continue
        case $v in
        bool) v="true|false" ;;
        *"|"*) ;;
        *) return ;;
        esac
        COMPREPLY=($(compgen -P "$k=" -W "${v//|/ }" -- "${cur#*=}"))
    done <<<"$lines"
}

_tconv()
{
    local cur prev
    _tconv_split
    _tconv_cmd=${_tconv_w[0]}
    cur=${_tconv_w[${#_tconv_w[@]} - 1]}
    prev=
    ((${#_tconv_w[@]} > 1)) && prev=${_tconv_w[${#_tconv_w[@]} - 2]}
    _tconv_plugin_args
    COMPREPLY=()

    case $prev in
    -r | --reader) COMPREPLY=($(compgen -W "$(_tconv_names reader)" -- "$cur")) ;;
    -w | --writer) COMPREPLY=($(compgen -W "$(_tconv_names writer)" -- "$cur")) ;;
    --help-plugin)
        COMPREPLY=($(compgen -W "$({ _tconv_names reader; _tconv_names writer
            _tconv_ask --list | awk '/^[^ ]/ { print $1 }'; } | sort -u)" -- "$cur"))
        ;;
    -R) _tconv_plugin_options reader "$(_tconv_value_of -r --reader)" "$cur" ;;
    -W)
        local w
        w=$(_tconv_value_of -w --writer)
        [[ -n $w ]] || w=$(_tconv_inferred_writer)
        _tconv_plugin_options writer "$w" "$cur"
        ;;
    --plugin-path)
        COMPREPLY=($(compgen -d -- "$cur"))
        compopt -o filenames 2>/dev/null
        ;;
    -j | --jobs | --jobs-memory | --window | --steps | --step-name | --input | --rank | \
        --max-input-bytes) ;;
    *)
        if [[ $cur == -* && $prev != -o && $prev != --output ]]; then
            COMPREPLY=($(compgen -W "$(_tconv_options)" -- "$cur"))
        else
            COMPREPLY=($(compgen -f -- "$cur"))
            compopt -o filenames 2>/dev/null
        fi
        ;;
    esac

    # bash replaces only the part of the word after its last '=' or ':'.
    local keep=${cur%"${cur##*[=:]}"} i
    if [[ -n $keep ]]; then
        for i in "${!COMPREPLY[@]}"; do
            COMPREPLY[i]=${COMPREPLY[i]#"$keep"}
        done
    fi
}
complete -F _tconv tconv
